"""Chinese for the core's English messages (settings notes, rejection reasons, trace-loading notes).

The core stays language-free and writes English sentences; this table maps each sentence shape to Chinese.
Invariant: a message that matches no pattern is returned unchanged (so nothing is lost), and every message the
core can produce has a pattern (tests/ui/test_engine_messages.py builds each one).
"""

from __future__ import annotations

import re

_ROWS = r"(?P<n>\d+) rows?"
PATTERNS: tuple[tuple[str, str], ...] = (
    (r"max_num_seqs=(?P<s>\d+) exceeds the (?P<b>\d+) KV blocks: at most (?P<b2>\d+) sequences can ever run at once",
     "max_num_seqs={s} 超过了 {b} 个 KV 块：同时运行的序列最多只能有 {b2} 个"),
    (r"long_prefill_token_threshold=(?P<t>\d+) is not below max_num_batched_tokens=(?P<b>\d+), so it never caps "
     r"anything", "long_prefill_token_threshold={t} 不小于 max_num_batched_tokens={b}，所以它从不起作用"),
    (r"prompt \+ output = (?P<n>\d+) tokens exceeds the model's max length (?P<m>\d+)",
     "提示词 + 输出 = {n} 个 token，超过了模型的最大长度 {m}"),
    (r"prompt of (?P<n>\d+) tokens exceeds max_num_batched_tokens=(?P<b>\d+) and policy (?P<p>[\w-]+) does not chunk "
     r"prompts \(the engine rejects it\)",
     "提示词有 {n} 个 token，超过 max_num_batched_tokens={b}，而策略 {p} 不分块（引擎会拒绝）"),
    (r"long_prefill_token_threshold=(?P<t>\d+) is ignored: policy (?P<p>[\w-]+) does not chunk prompts",
     "long_prefill_token_threshold={t} 不起作用：策略 {p} 不分块"),
    (r"long_prefill_token_threshold=(?P<t>\d+) is ignored: it is a vLLM setting and policy (?P<p>[\w-]+) has no "
     r"such knob", "long_prefill_token_threshold={t} 不起作用：这是 vLLM 的设置，策略 {p} 没有这个参数"),
    (r"n=(?P<n>\d+) samples exceed max_num_seqs=(?P<m>\d+)", "n={n} 个样本超过了 max_num_seqs={m}"),
    (r"needs (?P<n>\d+) KV blocks even alone, but the cache holds (?P<m>\d+)",
     "即使单独运行也需要 {n} 个 KV 块，但缓存只有 {m} 个"),
    (r"needs (?P<n>\d+) tokens in one step but max_num_batched_tokens is (?P<b>\d+) and chunked prefill is off",
     "一步需要 {n} 个 token，但 max_num_batched_tokens 为 {b}，且未开启分块预填充"),
    (r"could not be scheduled even on an idle engine", "即使引擎空闲也无法调度"),
    (r"rows were not in arrival order; they were sorted by arrival time \(ties keep file order\)",
     "各行没有按到达时间排列；已按到达时间排序（时间相同的保持文件中的顺序）"),
    (r"arrival_s counts from the first TIMESTAMP, (?P<ts>.+)", "arrival_s 从第一个 TIMESTAMP（{ts}）开始计时"),
    (r"arrival_s counts from the first request: (?P<s>[\d.e+-]+) s was subtracted from each",
     "arrival_s 从第一个请求开始计时：每行都减去了 {s} 秒"),
    (_ROWS + r" with 0 in (?P<col>\w+) (?:was|were) given 1 token", "{n} 行的 {col} 为 0，已改为 1 个 token"),
    (_ROWS + r" with 0 in (?P<col>\w+) (?:was|were) skipped", "{n} 行的 {col} 为 0，已跳过"),
    (_ROWS + r" skipped in all \(zero_tokens='skip'\)", "共跳过 {n} 行（zero_tokens='skip'）"),
)
_COMPILED = tuple((re.compile(rf"^{p}$"), zh) for p, zh in PATTERNS)


def to_chinese(message: str) -> str:
    """The Chinese version of a core message; unknown messages come back unchanged."""
    for pattern, zh in _COMPILED:
        match = pattern.match(message)
        if match:
            return zh.format(**match.groupdict())
    return message
