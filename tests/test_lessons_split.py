"""Chapter 7's runs: chapter 2's requests on two GPUs either way, the document's KV crossing to the decode GPU, and
the sweep of goodput per GPU that says where each deployment wins and what a slow link costs."""

from __future__ import annotations

from chunkviz.analysis.metrics import summarize
from chunkviz.lessons import predictions, split
from chunkviz.lessons.chapters import LECTURE, long_request_id


def test_both_deployments_serve_chapter_2s_requests_on_two_gpus():
    runs = {k: split.split_run(k) for k in split.DEPLOYMENT_KINDS}
    ids = sorted(r.request_id for r in LECTURE.requests())
    for run in runs.values():
        assert run.num_gpus == 2 and len(run.instances) == 2
        assert sorted(r.request_id for r in run.trace.requests) == ids
    assert [i.role for i in runs["colocated"].instances] == ["colocated", "colocated"]
    assert [i.role for i in runs["disagg"].instances] == ["prefill", "decode"]
    decode = runs["disagg"].instances[1].trace
    # The decode GPU runs no prompt but the one token per request vLLM's decode side recomputes to sample token 1.
    assert all(c.phase == "decode" or c.num_tokens == 1 for s in decode.steps for c in s.chunks)


def test_the_documents_kv_crosses_after_its_prefill_and_the_question_quotes_it():
    run = split.split_run("disagg")
    doc = long_request_id(run.trace)
    kv = next(x for x in run.transfers if x.request_id == doc)
    prompt = next(r.prompt_tokens for r in run.trace.requests if r.request_id == doc)
    assert kv.num_bytes == prompt * split.split_scenario("disagg").sim_config().model.kv_bytes_per_token
    assert kv.prefill_end_s <= kv.ready_s and kv.exposed_s >= 0
    p = predictions.prediction(7)
    assert p.value("doc_rid") == doc and p.value("doc_exposed_ms") == kv.exposed_s * 1e3
    gaps = {k: summarize(split.split_run(k).trace).tbt_s.max * 1e3 for k in split.DEPLOYMENT_KINDS}
    assert p.value("tbt_max_ms_colocated") == gaps["colocated"] and p.value("tbt_max_ms_disagg") == gaps["disagg"]


def test_the_sweep_shows_which_link_assumptions_make_the_split_win():
    """Connectors as shipped (after the prefill, measured 2.7-10 GB/s, 58 ms setup): colocated serves more at every
    length; only layer-by-layer streaming at >= 10 GB/s reaches it (within the search's tolerance), the longest
    documents included, where it serves more (issue 36)."""
    cells = {(c.doc_tokens, c.deployment): c.goodput_per_gpu for c in split.sweep()}
    assert set(cells) == {(d, k) for d in split.SWEEP_DOC_TOKENS for k in ("colocated",) + split.SWEEP_LINKS}
    short, long_ = split.SWEEP_DOC_TOKENS[0], split.SWEEP_DOC_TOKENS[-1]
    assert all(cells[(short, "colocated")] > cells[(short, dep)] for dep in split.SWEEP_LINKS)
    for doc in split.SWEEP_DOC_TOKENS:  # columns go from the slowest assumption to the most favourable
        row = [cells[(doc, dep)] for dep in split.SWEEP_LINKS]
        assert row == sorted(row)
    reach = split.reaching_colocated(split.sweep())
    shipped = [dep for dep in split.SWEEP_LINKS if split.link_and_mode(dep)[1] is None]
    assert shipped and all(reach[dep] == () for dep in shipped)  # the engine's own transfer never reaches it
    assert long_ in reach["nvlink+layerwise"] and short not in reach["nvlink+layerwise"]
    assert cells[(long_, "nvlink+layerwise")] >= cells[(long_, "colocated")]


def test_splitting_pays_at_a_chats_first_token_as_the_answer_says():
    """The answer's "price": under 1P+1D a chat queues behind the document on the one prefill GPU."""
    p = predictions.prediction(7)
    run = split.split_run("disagg")
    doc = long_request_id(run.trace)
    chats = {r.request_id: (r.first_token_s - r.arrival_s) * 1e3 for r in run.trace.requests if r.request_id != doc}
    assert p.value("chat_ttft_max_ms_disagg") == max(chats.values())
    assert p.value("chat_ttft_max_ms_disagg") > p.value("chat_ttft_max_ms_colocated")


def test_the_load_axis_shows_each_deployment_winning_somewhere_and_both_failing_when_overloaded():
    """Issue 24: where each deployment wins at what load. Every cell is a run; a cell meets the SLO exactly when
    its figures do; both, neither and colocated-only occur; at a fixed length, more load never turns a failure into a pass
    for either deployment (the loads run are far apart), and the winners agree with the goodput sweep's ranking."""
    cells = split.load_sweep()
    assert len(cells) == len(split.SWEEP_DOC_TOKENS) * len(split.LOADS_QPS) * len(split.LOAD_DEPLOYMENTS)
    for c in cells:
        assert c.meets_slo == (c.ttft_p90_s <= split.SWEEP_SLO.ttft_p90_s and c.tbt_p99_s <= split.SWEEP_SLO.tbt_p99_s)
    winners = {(d, q): split.load_winner(cells, d, q) for d in split.SWEEP_DOC_TOKENS for q in split.LOADS_QPS}
    assert {"both", "neither", "colocated"} <= set(winners.values()) <= set(split.WINNERS)
    for doc in split.SWEEP_DOC_TOKENS:
        for dep in split.LOAD_DEPLOYMENTS:
            met = [c.meets_slo for c in cells if c.doc_tokens == doc and c.deployment == dep]
            assert met == sorted(met, reverse=True)  # passes, then fails
    low, high = split.LOADS_QPS[0], split.LOADS_QPS[-1]
    assert all(winners[(d, low)] in ("both", "colocated") and winners[(d, high)] == "neither"
               for d in split.SWEEP_DOC_TOKENS)
    assert winners[(split.SWEEP_DOC_TOKENS[0], low)] == "both"
    # Short documents: colocated holds a load 1P+1D cannot; long ones: the other way round (as the sweep ranks them).
    short, long_ = split.SWEEP_DOC_TOKENS[0], split.SWEEP_DOC_TOKENS[-1]
    assert "colocated" in {winners[(short, q)] for q in split.LOADS_QPS}
    def highest_met(doc, dep):
        return max((c.qps for c in cells if c.doc_tokens == doc and c.deployment == dep and c.meets_slo), default=0.0)
    # Over the slide's link as the connector ships it, colocated holds every load 1P+1D holds (the sweep agrees)
    for doc in split.SWEEP_DOC_TOKENS:
        assert highest_met(doc, "colocated") >= highest_met(doc, split.LOAD_DEPLOYMENTS[1])
    goodput = {(c.doc_tokens, c.deployment): c.goodput_per_gpu for c in split.sweep()}
    for (doc, qps), w in winners.items():
        if w in ("colocated", "disagg"):
            other = split.LOAD_DEPLOYMENTS[1] if w == "colocated" else "colocated"
            mine = "colocated" if w == "colocated" else split.LOAD_DEPLOYMENTS[1]
            assert goodput[(doc, mine)] >= goodput[(doc, other)]
