"""Priority scheduling (SchedulerConfig.scheduling_policy "priority"), each rule on a hand-built scenario.

vLLM V1 --scheduling-policy priority (vllm/v1/core/sched/request_queue.py PriorityRequestQueue, scheduler.py
Scheduler.schedule): waiting requests are served by (priority, arrival), lower value first, and the preemption victim
is the running request with the largest (priority, arrival). SGLang --enable-priority-scheduling orders its waiting
queue the same way (schedule_policy.py SchedulePolicy._sort_by_priority_and_fcfs). fcfs stays the default.
"""

from __future__ import annotations

import dataclasses
import json
from collections import deque

import pytest

from chunkviz.cli.main import main
from chunkviz.config import SchedulerConfig
from chunkviz.errors import InputError
from chunkviz.request import Request
from chunkviz.simulator.engine import simulate
from chunkviz.simulator.events import Preempted
from chunkviz.simulator.knobs import Knobs
from chunkviz.simulator.kv.counting import CountingKvManager
from chunkviz.simulator.sched_common import Plan, SchedContext, lowest_priority_victim, newest_victim, schedule_running
from chunkviz.simulator.sequence import SeqState
from chunkviz.workloads.loaders import load_bytes
from tests.helpers import make_config

CHAT, DOC = 0, 1


def _with(config, **scheduler):
    return dataclasses.replace(config, scheduler=dataclasses.replace(config.scheduler, **scheduler))


# One seat (max_num_seqs=1): A runs; a document B (priority 1) arrives at 1 ms, a chat C (priority 0) at 2 ms.
# Both wait for A's seat; whoever the queue serves first is admitted when A finishes.
ONE_SEAT = (Request(0, 0.0, 100, 5, CHAT), Request(1, 0.001, 100, 5, DOC), Request(2, 0.002, 100, 5, CHAT))


def _first_scheduled(trace) -> dict[int, float]:
    return {r.request_id: r.first_scheduled_s for r in trace.requests}


@pytest.mark.parametrize("policy", ["chunked", "sglang"])
def test_priority_admits_a_later_chat_before_an_earlier_document(policy):
    config = make_config(policy, budget=512, max_num_seqs=1)
    fcfs = _first_scheduled(simulate(config, ONE_SEAT))
    low_first = {"schedule_low_priority_values_first": True} if policy == "sglang" else {}  # vLLM: always
    prio = _first_scheduled(simulate(_with(config, scheduling_policy="priority", **low_first), ONE_SEAT))
    assert fcfs[1] < fcfs[2]  # fcfs: arrival order, the document first
    assert prio[2] < prio[1]  # priority: the chat (0) jumps the document (1)
    assert prio[0] == fcfs[0] == 0.0


def test_fcfs_is_the_default_and_ignores_priority():
    assert SchedulerConfig().scheduling_policy == "fcfs"
    config = make_config("chunked", budget=512, max_num_seqs=1)
    base = simulate(config, ONE_SEAT)
    explicit = simulate(_with(config, scheduling_policy="fcfs"), ONE_SEAT)
    assert base.to_json() == explicit.to_json()


def _seq(rid: int, priority: int, arrival_s: float) -> SeqState:
    return SeqState(request=Request(rid, arrival_s, 10, 5, priority))


def test_victim_rule_largest_priority_then_latest_arrival_first_in_list_on_ties():
    a, b, c = _seq(0, CHAT, 0.0), _seq(1, DOC, 0.5), _seq(2, CHAT, 1.0)
    assert lowest_priority_victim([a, b, c]) is b  # the document, though not the newest
    assert newest_victim([a, b, c]) is c  # fcfs: the last admitted
    assert lowest_priority_victim([a, c]) is c  # same priority: the later arrival
    twin1, twin2 = _seq(3, CHAT, 2.0), _seq(4, CHAT, 2.0)
    assert lowest_priority_victim([twin1, twin2]) is twin1  # max() keeps the first on a tie, as vLLM's


# Five 16-token blocks. A document D (priority 1, arrives first) and a chat C (1 ms later) each hold 2 blocks after
# their 32-token prompts; D takes the last free block for its first decode, so C's first decode finds none. fcfs
# preempts the newest (C itself); priority preempts D, which was already scheduled in that very step: its token goes
# back to the budget and the step runs C alone (Scheduler.schedule: `token_budget += ...; req_index -= 1`).
SHORT_OF_BLOCKS = (Request(0, 0.0, 32, 40, DOC), Request(1, 0.001, 32, 40, CHAT))


def _first_preemption(trace) -> tuple[int, list[tuple[int, int]]]:
    for step in trace.steps:
        victims = [e.request_id for e in step.events if isinstance(e, Preempted)]
        if victims:
            return victims[0], [(c.request_id, c.num_tokens) for c in step.chunks]
    raise AssertionError("no preemption")


def test_priority_victim_is_the_lowest_priority_even_when_already_scheduled_this_step():
    config = make_config("chunked", budget=512, num_gpu_blocks=5)
    fcfs = simulate(config, SHORT_OF_BLOCKS)
    prio = simulate(_with(config, scheduling_policy="priority"), SHORT_OF_BLOCKS)
    assert _first_preemption(fcfs)[0] == 1  # fcfs: running.pop(), the chat that came last
    victim, chunks = _first_preemption(prio)
    assert victim == 0 and chunks == [(1, 1)]  # the document goes, its planned decode is taken back
    by_id = {r.request_id: r for r in prio.requests}
    assert by_id[1].num_preemptions == 0 and by_id[0].num_preemptions >= 1
    assert all(r.finish_s is not None for r in prio.requests)


def _running(rid: int, priority: int, prompt: int, computed: int, outputs: int) -> SeqState:
    seq = SeqState(request=Request(rid, 0.0, prompt, 5, priority), num_output_tokens=outputs)
    seq.num_computed_tokens = computed
    return seq


def test_a_victim_scheduled_earlier_in_the_step_gives_its_tokens_back_to_the_budget():
    """A 3-token step over running [D (document, decoding), C (chat, decoding, needs a new block), E (chat, prefill)]
    with no free block: D gets its token, C's allocation fails, the victim is D; D's token returns to the budget, so
    E's chunk is 2 tokens, not 1."""
    d, c, e = _running(0, DOC, 20, 20, 1), _running(1, CHAT, 32, 32, 1), _running(2, CHAT, 64, 16, 0)
    kv = CountingKvManager(5, 16)
    for seq in (d, c, e):
        assert kv.allocate(seq.key, 0, seq.num_computed_tokens)
    ctx = SchedContext(running=[d, c, e], waiting=deque(), kv=kv, scheduler=SchedulerConfig("chunked", 3),
                       knobs=Knobs(3, 256, 0, True, False, 8192), emit=lambda event: None,
                       victim=lowest_priority_victim, by_priority=True)
    plan = Plan()
    assert schedule_running(ctx, plan, 3) == 0
    assert [(s.request.request_id, n) for s, n in plan.items] == [(1, 1), (2, 2)]
    assert plan.preempted == [d] and list(ctx.waiting) == [d] and ctx.running == [c, e]


def test_fast_path_stays_exact_under_priority(capsys):
    argv = ["simulate", "--json", "--workload", "long-among-chats", "--num-requests", "60", "--qps", "30",
            "--max-num-batched-tokens", "512", "--scheduling-policy", "priority",
            "--no-enable-prefix-caching"]  # the fast path's cover without caching: this checks the queue order only
    outs = []
    for extra in ([], ["--no-fast-forward"]):
        assert main([*argv, *extra]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0].pop("fast_forwarded_steps") > 0 and outs[1].pop("fast_forwarded_steps") == 0
    assert outs[0] == outs[1]


def test_bad_scheduling_policy_gets_a_clear_message(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "--scheduling-policy", "foo"])
    assert exit_info.value.code == 2
    assert "--scheduling-policy: invalid choice: 'foo' (choose from 'fcfs', 'priority')" in capsys.readouterr().err
    with pytest.raises(ValueError, match="scheduling_policy must be one of fcfs, priority, got 'foo'"):
        SchedulerConfig(scheduling_policy="foo")


def test_priority_is_refused_for_a_policy_whose_engine_has_none():
    with pytest.raises(InputError, match="modelled only for the policies vllm-nochunk, chunked, sglang"):
        simulate(_with(make_config("trtllm"), scheduling_policy="priority"), ONE_SEAT)


def test_a_request_priority_must_be_an_integer():
    with pytest.raises(ValueError, match="priority must be an integer"):
        Request(0, 0.0, 10, 5, priority="high")  # type: ignore[arg-type]


def test_trace_files_carry_an_optional_priority():
    csv = b"arrival_s,prompt_tokens,output_tokens,priority\n0.0,100,5,1\n0.5,100,5,\n1.0,100,5,-2\n"
    assert [r.priority for r in load_bytes(csv, "csv").requests] == [1, 0, -2]
    mooncake = b'{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1], "priority": 3}\n'
    assert load_bytes(mooncake, "mooncake").requests[0].priority == 3
    plain = b"arrival_s,prompt_tokens,output_tokens\n0.0,100,5\n"
    assert load_bytes(plain, "csv").requests[0].priority == 0


@pytest.mark.parametrize("raw, fmt, message", [
    (b"arrival_s,prompt_tokens,output_tokens,priority\n0.0,100,5,high\n", "csv",
     "row 1 (line 2), column priority: expected a whole number from -999,999,999 to 999,999,999"),
    (b"arrival_s,prompt_tokens,output_tokens,priority\n0.0,100,5,1.5\n", "csv", "column priority: expected a whole"),
    (b'{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1], "priority": 1.5}\n', "mooncake",
     "line 1, field priority: expected a whole number"),
    (b'{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1], "priority": true}\n', "mooncake",
     "field priority: expected a whole number"),
])
def test_a_non_integer_priority_in_a_trace_file_gets_a_clear_message(raw, fmt, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_bytes(raw, fmt)


def test_the_chapter_6_rows_are_what_the_printed_command_gives(capsys):
    from chunkviz.lessons.priority import cli_command, largest_gain, priority_rows

    rows = priority_rows(loads_qps=(16.0, 32.0))
    assert rows[0].qps == 16.0 and largest_gain(rows).qps == 32.0
    row = rows[1]
    for policy, chat, doc in (("fcfs", row.chat_ttft_p99_fcfs_s, row.doc_ttft_p50_fcfs_s),
                              ("priority", row.chat_ttft_p99_priority_s, row.doc_ttft_p50_priority_s)):
        argv = cli_command(row.qps, policy).split()[3:]  # after "python -m chunkviz"
        assert main(argv) == 0
        classes = json.loads(capsys.readouterr().out)["by_priority"]
        assert (classes["0"]["ttft_s"]["p99"], classes["1"]["ttft_s"]["p50"]) == (chat, doc)
    assert row.chat_ttft_p99_priority_s < 0.8 * row.chat_ttft_p99_fcfs_s


def test_sglang_serves_higher_priority_values_first_by_default():
    # SGLang SchedulePolicy._sort_by_priority_and_fcfs: priority_sign = -1 unless --schedule-low-priority-values-first,
    # so by default the document (1) is served before the later chat (0) -- the opposite of vLLM's order.
    config = _with(make_config("sglang", budget=512, max_num_seqs=1), scheduling_policy="priority")
    default = _first_scheduled(simulate(config, ONE_SEAT))
    flipped = _first_scheduled(simulate(_with(config, schedule_low_priority_values_first=True), ONE_SEAT))
    assert default[1] < default[2]  # higher value first: the document
    assert flipped[2] < flipped[1]  # the flag: lower value first, the chat
    vllm = _first_scheduled(simulate(_with(make_config("chunked", budget=512, max_num_seqs=1),
                                           scheduling_policy="priority"), ONE_SEAT))
    assert vllm[2] < vllm[1]


@pytest.mark.parametrize("argv", [["--policy", "chunked", "--scheduling-policy", "priority"],
                                  ["--policy", "sglang"]])
def test_the_sglang_flag_is_refused_where_it_would_be_ignored(capsys, argv):
    assert main(["simulate", "--num-requests", "4", "--schedule-low-priority-values-first", *argv]) == 2
    err = capsys.readouterr().err
    assert "--schedule-low-priority-values-first is SGLang's" in err and err.count("\n") == 1


# SGLang PrefillAdder.preempt_to_schedule (schedule_policy.py), tried once the seats are full: one seat; A
# (priority 0, 40 output tokens) runs; B (priority 20) arrives at 1 ms. Higher values first (SGLang's default), B
# outranks A by 20 > the threshold 10, and the KV pool is ample, so A is preempted and B seated at once.
OUTRANKED = (Request(0, 0.0, 100, 40, 0), Request(1, 0.001, 100, 5, 20))


def _sglang_priority(threshold: int | None = None, num_gpu_blocks: int | None = None):
    config = _with(make_config("sglang", budget=512, max_num_seqs=1, num_gpu_blocks=num_gpu_blocks),
                   scheduling_policy="priority")
    return config if threshold is None else _with(config, priority_scheduling_preemption_threshold=threshold)


def _record(trace, rid: int):
    return next(r for r in trace.requests if r.request_id == rid)


def test_sglang_preempts_a_running_request_outranked_by_more_than_the_threshold():
    trace = simulate(_sglang_priority(), OUTRANKED)
    a, b = _record(trace, 0), _record(trace, 1)
    assert a.num_preemptions == 1 and b.num_preemptions == 0
    assert b.first_scheduled_s < 0.02 and b.finish_s < a.finish_s  # B seated within a few steps, done first
    # re-queued after B's admission: A comes back once B is done, recomputing its prompt and outputs so far
    assert a.finish_s is not None and a.num_generated_tokens == 40


@pytest.mark.parametrize("threshold", [20, 30])
def test_sglang_does_not_preempt_within_the_threshold(threshold):
    # (20 - 0) * -priority_sign must EXCEED the threshold: 20 > 20 is false, so B waits for A's seat
    trace = simulate(_sglang_priority(threshold), OUTRANKED)
    a, b = _record(trace, 0), _record(trace, 1)
    assert a.num_preemptions == 0 and b.first_scheduled_s >= a.finish_s


def test_sglang_does_not_preempt_when_the_freed_reservation_falls_short():
    # 20 blocks of 16 tokens, A holding 7: B (250 + 5 tokens) is short of rem_total_tokens (208 free - A's 39 * 0.7
    # = 180.7) by 74.3, and preempting A frees only its offset, 27.3: the shortfall stays > 0, so preempt_to_schedule
    # commits nothing and B waits for A to finish (then fits the pool).
    trace = simulate(_sglang_priority(num_gpu_blocks=20), (Request(0, 0.0, 100, 40, 0), Request(1, 0.001, 250, 5, 20)))
    a, b = _record(trace, 0), _record(trace, 1)
    assert a.num_preemptions == 0 and b.first_scheduled_s >= a.finish_s
    # the same B with a 150-token prompt: short by 155 - 180.7 < 0 already, so A goes (at least one victim is taken)
    trace = simulate(_sglang_priority(num_gpu_blocks=20), (Request(0, 0.0, 100, 40, 0), Request(1, 0.001, 150, 5, 20)))
    assert _record(trace, 0).num_preemptions == 1


def test_sglang_lower_values_first_flips_who_outranks_whom():
    low_first = _with(_sglang_priority(), schedule_low_priority_values_first=True)
    trace = simulate(low_first, OUTRANKED)  # B (20) now ranks below A (0): no preemption
    assert _record(trace, 0).num_preemptions == 0
    flipped = (Request(0, 0.0, 100, 40, 20), Request(1, 0.001, 100, 5, 0))
    assert _record(simulate(low_first, flipped), 0).num_preemptions == 1


@pytest.mark.parametrize("argv", [["--policy", "chunked", "--scheduling-policy", "priority"],
                                  ["--policy", "sglang"]])
def test_the_preemption_threshold_is_refused_where_it_would_be_ignored(capsys, argv):
    assert main(["simulate", "--num-requests", "4", "--priority-scheduling-preemption-threshold", "5", *argv]) == 2
    err = capsys.readouterr().err
    assert "--priority-scheduling-preemption-threshold is SGLang's" in err and err.count("\n") == 1


@pytest.mark.parametrize("value", ["-1", "ten", "1.5"])
def test_a_bad_preemption_threshold_gets_one_line(capsys, value):
    argv = ["simulate", "--num-requests", "4", "--policy", "sglang", "--scheduling-policy", "priority",
            "--priority-scheduling-preemption-threshold", value]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's refusal of a non-integer (cli/main.Parser.error: one line, exit 2)
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert "preemption" in err and err.count("\n") == 1 and "Traceback" not in err
