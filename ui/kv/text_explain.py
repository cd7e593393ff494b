"""Texts of the "explain this step" panel (English, 中文)."""

TEXTS: dict[str, tuple[str, str]] = {
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
}
