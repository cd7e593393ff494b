"""Why-sentences: one line per engine step saying why the batch looks as it does, from the scheduler's recorded
decision (simulator/decision.py), in English or Chinese.

Invariant: pure function of (trace, step index, language); every clause comes from WHY_TEXTS, whose English and
Chinese templates have the same fields (ui/text_common.py registers them, so the i18n tests check them).
"""

from __future__ import annotations

from chunkviz.simulator.decision import ReserveNote
from chunkviz.simulator.trace import StepRecord, Trace

WHY_TEXTS: dict[str, tuple[str, str]] = {
    "why.decode_first": ("decodes first: {tokens:,} tokens", "解码优先：{tokens:,} 个 token"),
    "why.decode_first_one": ("decodes first: 1 token", "解码优先：1 个 token"),
    "why.decode_only": ("decode only: {n} requests get one token each in {ms:.1f} ms",
                        "只有解码：{n} 个请求各得到 1 个 token，用时 {ms:.1f} 毫秒"),
    "why.decode_only_one": ("decode only: 1 request gets one token in {ms:.1f} ms",
                            "只有解码：1 个请求得到 1 个 token，用时 {ms:.1f} 毫秒"),
    "why.chunk_rest": ("R{rid}'s chunk got the remaining {tokens:,} of the {budget:,}-token budget "
                       "(prompt tokens {a:,}–{b:,} of {total:,})",
                       "R{rid} 的块拿到了 {budget:,} token 预算中剩下的 {tokens:,} 个（提示词第 {a:,}–{b:,} 个，共 {total:,} 个）"),
    "why.chunk": ("R{rid}'s chunk: {tokens:,} tokens (prompt tokens {a:,}–{b:,} of {total:,})",
                  "R{rid} 的块：{tokens:,} 个 token（提示词第 {a:,}–{b:,} 个，共 {total:,} 个）"),
    "why.chunk_one": ("R{rid}'s chunk: 1 token (prompt token {a:,} of {total:,})",
                      "R{rid} 的块：1 个 token（提示词第 {a:,} 个，共 {total:,} 个）"),
    "why.whole": ("R{rid}'s whole {total:,}-token prompt", "R{rid} 的整个 {total:,} token 提示词"),
    # More whole prompts in one step than a slide's caption line holds one by one (static batching admits five).
    "why.whole_many": ("{n} whole prompts ({ids}; {tokens:,} tokens)", "{n} 段完整提示词（{ids}；共 {tokens:,} 个 token）"),
    "why.prefill_only": ("prefill-first: this step runs only {what}, so {n} chats get no token for {ms:.0f} ms",
                         "预填充优先：这一步只运行 {what}，所以 {n} 个聊天有 {ms:.0f} 毫秒拿不到 token"),
    "why.prefill_only_one": ("prefill-first: this step runs only {what}, so 1 chat gets no token for {ms:.0f} ms",
                             "预填充优先：这一步只运行 {what}，所以 1 个聊天有 {ms:.0f} 毫秒拿不到 token"),
    "why.np_whole": ("R{rid}'s {total:,}-token prompt", "R{rid} 的 {total:,} token 提示词"),
    "why.np_chunk": ("a {tokens:,}-token chunk of R{rid}'s prompt (tokens {a:,}–{b:,} of {total:,})",
                     "R{rid} 提示词的一个 {tokens:,} token 的块（第 {a:,}–{b:,} 个，共 {total:,} 个）"),
    "why.np_many": ("{n} prompts ({ids}; {tokens:,} tokens)", "{n} 个提示词（{ids}；共 {tokens:,} 个 token）"),
    "why.stall_budget": ("{n} decodes get no token: the budget ran out",
                         "{n} 个解码拿不到 token：预算用完了"),
    "why.wait_budget": ("{ids} wait: budget spent", "{ids}等待：预算已用完"),
    "why.wait_seats": ("{ids} wait: max_num_seqs requests already run", "{ids}等待：运行中的请求已达 max_num_seqs"),
    "why.wait_memory": ("{ids} wait: the KV cache is full", "{ids}等待：KV 缓存已满"),
    "why.wait_no_chunking": ("{ids} wait: a whole prompt must fit the budget left and chunking is off",
                             "{ids}等待：不分块时整个提示词必须放进剩余预算"),
    "why.wait_whole_prompt": ("{ids} wait: the free KV blocks cannot hold the whole prompt, and vLLM admits a request "
                              "only when they can (scheduler_reserve_full_isl)",
                              "{ids}等待：空闲 KV 块放不下整个提示词，而 vLLM 只在放得下时才接纳请求"
                              "（scheduler_reserve_full_isl）"),
    "why.wait_policy": ("{ids} wait: this engine admits nobody until its batch drains",
                        "{ids}等待：这个引擎要等当前批次全部完成才接纳新请求"),
    # A reserving admission rule refused the head of the queue (simulator/decision.py ReserveNote): its own figures.
    "why.wait_guaranteed_no_evict": (
        "{ids} wait: guaranteed-no-evict reserves R{rid}'s prompt + max_tokens ({max_tokens}) = {tokens:,} tokens, "
        "{need:,} blocks, and only {free:,} are free beside the running requests' reservations",
        "{ids}等待：TensorRT-LLM 的 GUARANTEED_NO_EVICT 要为 R{rid} 预留提示词 + max_tokens（{max_tokens}）= {tokens:,} 个 token，即 "
        "{need:,} 个块，而除去运行中请求的预留只剩 {free:,} 个空闲块"),
    "why.wait_prefill_adder": (
        "{ids} wait: SGLang's PrefillAdder reserves R{rid}'s input + min(max_new_tokens ({max_tokens}), 4096) = "
        "{tokens:,} tokens and only {free:,} are left after the running requests' expected writes",
        "{ids}等待：SGLang 的 PrefillAdder.add_one_req 要为 R{rid} 预留输入 + max_new_tokens（{max_tokens}，最多按 "
        "4096 计）= "
        "{tokens:,} 个 token，而扣除运行中请求预计还要写的部分只剩 {free:,} 个"),
    "why.wait_max_model_len": (
        "{ids} wait: Orca reserves max_model_len ({tokens:,} tokens, {need:,} blocks) for R{rid} and only {free:,} "
        "blocks are free beside the running requests' reservations",
        "{ids}等待：Orca 要为 R{rid} 预留 max_model_len（{tokens:,} 个 token，{need:,} 个块），而除去运行中请求的"
        "预留只剩 {free:,} 个空闲块"),
    "why.max_tokens_unset": ("unset, read as {n:,}", "未设置，按 {n:,} 算"),
    "why.preempted": ("KV cache full: R{rid} was preempted ({blocks} blocks freed) and will recompute",
                      "KV 缓存已满：R{rid} 被抢占（释放 {blocks} 个块），之后重新计算"),
    "why.ids_1": ("R{a}", "R{a}"),
    "why.ids_2": ("R{a} and R{b}", "R{a} 和 R{b}"),
    "why.ids_3": ("R{a}, R{b} and R{c}", "R{a}、R{b} 和 R{c}"),
    "why.ids_more": ("R{a}, R{b} and {n} more", "R{a}、R{b} 及另外 {n} 个请求"),
    "why.sep": ("; ", "；"),
}


def _t(key: str, lang: str, **fields: object) -> str:
    en, zh = WHY_TEXTS[key]
    return (zh if lang == "zh" else en).format(**fields)


def _ids(ids: tuple[int, ...], total: int, lang: str) -> str:
    total = max(total, len(ids))
    if total <= 3 and len(ids) == total:
        return _t(f"why.ids_{total}", lang, **dict(zip("abc", ids)))
    return _t("why.ids_more", lang, a=ids[0], b=ids[1], n=total - 2, total=total) if len(ids) >= 2 else _t("why.ids_1", lang, a=ids[0])


MAX_WHOLE_NAMED = 3  # whole prompts named one by one in a step's sentence; more are counted (why.whole_many)


def _prefill_clauses(record: StepRecord, prompts: dict[int, int], lang: str, decode_tokens: int) -> list[str]:
    budget = record.decision.max_num_batched_tokens if record.decision else 0
    prefills = [c for c in record.chunks if c.phase == "prefill"]
    whole = [c for c in prefills if c.start_token == 0 and c.num_tokens >= prompts.get(c.request_id, c.num_tokens)]
    out = []
    if len(whole) > MAX_WHOLE_NAMED:  # one clause for them all, so the sentence stays one line on a slide
        out.append(_t("why.whole_many", lang, n=len(whole), ids=_ids(tuple(c.request_id for c in whole[:2]),
                                                                         len(whole), lang),
                      tokens=sum(c.num_tokens for c in whole)))
    for i, c in enumerate(prefills):
        total = prompts.get(c.request_id, c.start_token + c.num_tokens)
        fields = dict(rid=c.request_id, tokens=c.num_tokens, a=c.start_token + 1, b=c.start_token + c.num_tokens,
                      total=total, budget=budget)
        if c in whole:
            if len(whole) <= MAX_WHOLE_NAMED:
                out.append(_t("why.whole", lang, total=total, rid=c.request_id))
        elif i == len(prefills) - 1 and decode_tokens + sum(x.num_tokens for x in prefills) == budget:
            out.append(_t("why.chunk_rest", lang, **fields))
        else:  # (a 1-token chunk: the decode GPU of a split recomputes the prompt's last token)
            out.append(_t("why.chunk_one" if c.num_tokens == 1 else "why.chunk", lang, **fields))
    return out


def _prefill_noun(record: StepRecord, prompts: dict[int, int], lang: str) -> str:
    """What a prefill-only step runs, as a noun phrase: one prompt, one chunk, or a count of prompts."""
    prefills = [c for c in record.chunks if c.phase == "prefill"]
    if len(prefills) > 1:
        ids = _ids(tuple(c.request_id for c in prefills[:3]), len(prefills), lang)
        return _t("why.np_many", lang, n=len(prefills), ids=ids, tokens=sum(c.num_tokens for c in prefills))
    c = prefills[0]
    total = prompts.get(c.request_id, c.start_token + c.num_tokens)
    if c.start_token == 0 and c.num_tokens >= total:
        return _t("why.np_whole", lang, rid=c.request_id, total=total)
    return _t("why.np_chunk", lang, rid=c.request_id, tokens=c.num_tokens, a=c.start_token + 1,
              b=c.start_token + c.num_tokens, total=total)


def why_sentence(record: StepRecord, prompts: dict[int, int], lang: str = "en") -> str:
    """Why step `record` has this batch; `prompts` maps request id → prompt tokens."""
    decode_tokens = sum(c.num_tokens for c in record.chunks if c.phase == "decode")
    decision = record.decision
    clauses: list[str] = []
    for e in record.events:
        if e.kind == "Preempted":
            clauses.append(_t("why.preempted", lang, rid=e.request_id, blocks=e.freed_blocks))
    prefill = _prefill_clauses(record, prompts, lang, decode_tokens)
    if decision is not None and decision.stall_reason == "prefill_first" and prefill:
        what = _prefill_noun(record, prompts, lang)
        one = "_one" if record.num_stalled_decodes == 1 else ""  # "1 chat gets", not "1 chats get"
        clauses.append(_t(f"why.prefill_only{one}", lang, what=what, n=record.num_stalled_decodes,
                          ms=record.duration_s * 1e3))
    else:
        if decode_tokens and prefill:
            clauses.append(_t("why.decode_first_one" if decode_tokens == 1 else "why.decode_first", lang,
                              tokens=decode_tokens))
        elif decode_tokens:
            clauses.append(_t("why.decode_only_one" if decode_tokens == 1 else "why.decode_only", lang,
                              n=decode_tokens, ms=record.duration_s * 1e3))
        clauses.extend(prefill)
        if decision is not None and decision.stall_reason == "budget":
            clauses.append(_t("why.stall_budget", lang, n=record.num_stalled_decodes))
    if decision is not None and decision.waiting_ids and decision.wait_reason:
        ids = _ids(decision.waiting_ids, record.num_waiting, lang)
        clauses.append(_reserve_clause(decision.reserve, ids, lang) if decision.reserve is not None
                       else _t(f"why.wait_{decision.wait_reason}", lang, ids=ids))
    return _t("why.sep", lang).join(clauses)


def _reserve_clause(note: ReserveNote, ids: str, lang: str) -> str:
    """Why the head of the queue waits when a reserving admission rule refused it, in the rule's own figures."""
    max_tokens = (_t("why.max_tokens_unset", lang, n=note.read_max_tokens) if note.max_tokens is None
                  else f"{note.max_tokens:,}")
    return _t(f"why.wait_{note.rule}", lang, ids=ids, rid=note.request_id, max_tokens=max_tokens,
              tokens=note.reserve_tokens, need=note.need, free=max(note.available, 0))


def why_sentences(trace: Trace, lang: str = "en") -> tuple[str, ...]:
    """One why-sentence per step of a detailed trace."""
    prompts = {r.request_id: r.prompt_tokens for r in trace.requests}
    return tuple(why_sentence(step, prompts, lang) for step in trace.steps)
