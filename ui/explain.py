"""Turns a step's events into sentences (English or Chinese) for the "explain this step" panel.

Invariant: pure given (step record, language); at most MAX_LINES sentences so a busy step stays readable.
"""

from __future__ import annotations

from chunkviz.trace import StepRecord
from ui.i18n import register, tr

MAX_LINES = 14

register({
    "ex.summary": ("Step {step} took {ms:.1f} ms: {decodes} decode token(s) and {prefill} prefill token(s) "
                   "(budget {budget}).",
                   "第 {step} 步耗时 {ms:.1f} 毫秒：{decodes} 个解码 token，{prefill} 个预填充 token（预算 {budget}）。"),
    "ex.chunk": ("Request {rid} prefilled tokens {start}–{end} of its prompt.",
                 "请求 {rid} 预填充了提示词的第 {start}–{end} 个 token。"),
    "ex.Arrived": ("Request {request_id} arrived ({prompt_tokens}-token prompt, {output_tokens} tokens to write).",
                   "请求 {request_id} 到达（提示词 {prompt_tokens} 个 token，要生成 {output_tokens} 个）。"),
    "ex.Rejected": ("Request {request_id} was rejected: {reason}.", "请求 {request_id} 被拒绝：{reason}。"),
    "ex.Admitted": ("Request {request_id} left the queue and started running ({prefix_hit_tokens} tokens reused "
                    "from the prefix cache).",
                    "请求 {request_id} 离开队列开始运行（从前缀缓存复用 {prefix_hit_tokens} 个 token）。"),
    "ex.FirstToken": ("Request {request_id} got its first token, {ttft_ms:.0f} ms after arriving.",
                      "请求 {request_id} 收到首个 token，距到达 {ttft_ms:.0f} 毫秒。"),
    "ex.Finished": ("Request {request_id} finished.", "请求 {request_id} 完成。"),
    "ex.Preempted": ("Memory ran out: request {request_id} was preempted, its {freed_blocks} blocks freed; it "
                     "will recompute.",
                     "显存不足：请求 {request_id} 被抢占，释放 {freed_blocks} 个块，之后重新计算。"),
    "ex.DecodeStalled": ("Stall: {n} decoding request(s) ({ids}) got no token this step.",
                         "卡顿：{n} 个正在解码的请求（{ids}）这一步没有得到 token。"),
    "ex.Allocated": ("Request {request_id} got new block(s) {blocks}.", "请求 {request_id} 分配到新块 {blocks}。"),
    "ex.PrefixHit": ("Request {request_id} reused cached block(s) {blocks} ({hit_tokens} tokens skipped).",
                     "请求 {request_id} 复用缓存块 {blocks}（跳过 {hit_tokens} 个 token）。"),
    "ex.CopyOnWrite": ("Sample {sample_index} of request {request_id} wrote into shared block {from_block}, so it "
                       "was copied to block {to_block}.",
                       "请求 {request_id} 的第 {sample_index} 个样本要写共享块 {from_block}，于是复制到块 {to_block}。"),
    "ex.Evicted": ("Cached block {block_id} was evicted to make room.", "缓存块 {block_id} 被淘汰以腾出空间。"),
    "ex.Freed": ("Request {request_id} returned blocks {blocks} (last block first).",
                 "请求 {request_id} 归还块 {blocks}（从最后一块开始）。"),
    "ex.Forked": ("Request {request_id} forked into {num_samples} samples sharing {shared_blocks} block(s).",
                  "请求 {request_id} 分叉为 {num_samples} 个样本，共享 {shared_blocks} 个块。"),
    "ex.more": ("… and {n} more event(s).", "……还有 {n} 个事件。"),
})


# What a learner should read first when a step is busy; lower ranks come first.
_RANK = {"DecodeStalled": 0, "Preempted": 0, "Rejected": 0, "CopyOnWrite": 1, "PrefixHit": 1, "Evicted": 1,
         "Forked": 1, "FirstToken": 2, "Finished": 3, "Admitted": 4, "Arrived": 5, "Allocated": 6, "Freed": 6}


def _short(ids: tuple[int, ...], limit: int = 8) -> str:
    text = ", ".join(str(i) for i in ids[:limit])
    return text + (" …" if len(ids) > limit else "")


def _fields(event: object) -> dict[str, object]:
    data = {name: getattr(event, name) for name in event.__dataclass_fields__}  # type: ignore[attr-defined]
    if "block_ids" in data:
        data["blocks"] = _short(data["block_ids"])  # type: ignore[arg-type]
    if "ttft_s" in data:
        data["ttft_ms"] = data["ttft_s"] * 1e3  # type: ignore[operator]
    if "request_ids" in data:
        data["n"], data["ids"] = len(data["request_ids"]), _short(data["request_ids"])  # type: ignore[arg-type]
    return data


def explain_step(record: StepRecord, budget_tokens: int, lang: str) -> list[str]:
    prefill = sum(c.num_tokens for c in record.chunks if c.phase == "prefill")
    decodes = sum(c.num_tokens for c in record.chunks if c.phase == "decode")
    lines = [tr("ex.summary", lang, step=record.step, ms=record.duration_s * 1e3, decodes=decodes, prefill=prefill,
                budget=budget_tokens)]
    events = sorted((e for e in record.events if e.kind != "ChunkScheduled"), key=lambda e: _RANK.get(e.kind, 9))
    important = [e for e in events if _RANK.get(e.kind, 9) < 5]
    for event in important:
        lines.append(tr(f"ex.{event.kind}", lang, **_fields(event)))
    for c in record.chunks:
        if c.phase == "prefill":
            lines.append(tr("ex.chunk", lang, rid=c.request_id, start=c.start_token, end=c.start_token + c.num_tokens))
    for event in events[len(important):]:
        lines.append(tr(f"ex.{event.kind}", lang, **_fields(event)))
    if len(lines) > MAX_LINES:
        hidden = len(lines) - (MAX_LINES - 1)
        lines = lines[: MAX_LINES - 1] + [tr("ex.more", lang, n=hidden)]
    return lines
