"""Page replacement: textbook fault counts, a naive-LRU differential test, invariants, input parsing and the CLI."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkviz.cli.main import main
from chunkviz.errors import InputError
from chunkviz.lessons.paging import (
    ALGORITHMS,
    MAX_REFS,
    PRESETS,
    REASON_TEMPLATES,
    PagingResult,
    faults_curve,
    find_belady_anomaly,
    parse_refs,
    random_refs,
    simulate_paging,
)

BELADY = PRESETS["belady"]
TEXTBOOK = PRESETS["textbook"]

# Every (algorithm, conventions) combination the UI can pick.
VARIANTS: list[tuple[str, dict[str, object]]] = [
    ("fifo", {}), ("lru", {}), ("opt", {}),
    ("clock", {"clock_ref_bit_on_load": True}), ("clock", {"clock_ref_bit_on_load": False}),
    ("lfu", {"lfu_tie_break": "fifo"}), ("lfu", {"lfu_tie_break": "lru"}),
]

refs_strategy = st.lists(st.integers(min_value=0, max_value=7), min_size=1, max_size=40).map(tuple)
frames_strategy = st.integers(min_value=1, max_value=6)


# --- golden numbers (shared/guides/streamlit.md §1.2) -------------------------------------------------------------

@pytest.mark.parametrize(("algorithm", "conventions", "frames", "faults"), [
    ("fifo", {}, 3, 9), ("fifo", {}, 4, 10),  # Belady's anomaly: one more frame, one more fault
    ("lru", {}, 3, 10), ("lru", {}, 4, 8),
    ("opt", {}, 3, 7), ("opt", {}, 4, 6),
    ("clock", {"clock_ref_bit_on_load": True}, 3, 9), ("clock", {"clock_ref_bit_on_load": True}, 4, 10),
    ("clock", {"clock_ref_bit_on_load": False}, 3, 10), ("clock", {"clock_ref_bit_on_load": False}, 4, 8),
    ("lfu", {"lfu_tie_break": "fifo"}, 3, 10), ("lfu", {"lfu_tie_break": "fifo"}, 4, 8),
])
def test_belady_string_fault_counts(algorithm: str, conventions: dict[str, object], frames: int, faults: int) -> None:
    assert simulate_paging(algorithm, BELADY, frames, **conventions).faults == faults  # type: ignore[arg-type]


@pytest.mark.parametrize(("algorithm", "conventions", "frames", "faults"), [
    ("fifo", {}, 3, 15), ("lru", {}, 3, 12), ("opt", {}, 3, 9),
    ("clock", {"clock_ref_bit_on_load": True}, 3, 14), ("clock", {"clock_ref_bit_on_load": False}, 3, 11),
    ("lfu", {"lfu_tie_break": "fifo"}, 3, 13), ("lfu", {"lfu_tie_break": "lru"}, 3, 11),
    ("fifo", {}, 4, 10), ("lru", {}, 4, 8), ("opt", {}, 4, 8),
])
def test_textbook_string_fault_counts(algorithm: str, conventions: dict[str, object], frames: int, faults: int) -> None:
    assert simulate_paging(algorithm, TEXTBOOK, frames, **conventions).faults == faults  # type: ignore[arg-type]


def test_fifo_belady_hits_are_refs_8_9_12_with_three_frames_and_5_6_with_four() -> None:
    hits3 = [s.index + 1 for s in simulate_paging("fifo", BELADY, 3).steps if s.is_hit]
    hits4 = [s.index + 1 for s in simulate_paging("fifo", BELADY, 4).steps if s.is_hit]
    assert (hits3, hits4) == ([8, 9, 12], [5, 6])


def test_textbook_final_slot_views_and_hit_ratios() -> None:
    fifo, lru = simulate_paging("fifo", TEXTBOOK, 3), simulate_paging("lru", TEXTBOOK, 3)
    assert fifo.steps[-1].frames == (7, 0, 1)
    assert lru.steps[-1].frames == (1, 0, 7)
    assert (fifo.hit_ratio, lru.hit_ratio, simulate_paging("opt", TEXTBOOK, 3).hit_ratio) == (0.25, 0.40, 0.55)


def test_first_evictions_on_textbook_string_name_victim_and_reason() -> None:
    # Ref #4 is page 2 with frames 7,0,1 full: FIFO and LRU evict 7 (oldest / least recent); OPT evicts 7
    # because its next use (ref #18) is further than 0 (#5) and 1 (#14).
    fifo, lru, opt = (simulate_paging(a, TEXTBOOK, 3).steps[3] for a in ("fifo", "lru", "opt"))
    assert (fifo.victim, fifo.reason_code, fifo.reason) == (7, "evict_fifo", "miss: evict 7, loaded first")
    assert (lru.victim, lru.reason) == (7, "miss: evict 7, used least recently")
    assert (opt.victim, opt.reason) == (7, "miss: evict 7, next used furthest in future")
    assert fifo.frames == (2, 0, 1)  # slot view: 2 takes 7's slot, 0 and 1 stay put
    assert fifo.order == (0, 1, 2) and lru.order == (0, 1, 2)


def test_order_views_after_textbook_ref_5() -> None:
    # After 7,0,1,2,0: FIFO queue is still 0,1,2 (the hit on 0 changes nothing); LRU recency is 1,2,0.
    assert simulate_paging("fifo", TEXTBOOK, 3).steps[4].order == (0, 1, 2)
    assert simulate_paging("lru", TEXTBOOK, 3).steps[4].order == (1, 2, 0)
    # OPT next-use distances after ref index 4 (page 0): 0 next at index 6 (2 away), 2 at 8 (4), 1 at 13 (9).
    step = simulate_paging("opt", TEXTBOOK, 3).steps[4]
    assert (step.order, step.order_values) == ((1, 2, 0), (9, 4, 2))


def test_clock_reports_hand_and_bits_and_lfu_reports_counts() -> None:
    step = simulate_paging("clock", BELADY, 3).steps[7]  # hit on 1 after 5 replaced 4: frames 5,1,2
    assert step.frames == (5, 1, 2) and step.hand == 1
    assert (step.order, step.order_values) == ((1, 2, 5), (1, 0, 1))
    lfu = simulate_paging("lfu", BELADY, 3).steps[8]  # after ...,5,1,2: counts 5:1, 1:2, 2:2
    assert (lfu.order, lfu.order_values) == ((5, 1, 2), (1, 2, 2))
    assert simulate_paging("fifo", BELADY, 3).steps[0].hand is None


# --- differential and property tests -----------------------------------------------------------------------------

def naive_lru(refs: tuple[int, ...], num_frames: int) -> list[tuple[bool, int | None]]:
    """O(n^2) LRU: on a miss with full memory, scan history backwards for each resident page's last use."""
    resident: list[int] = []
    out: list[tuple[bool, int | None]] = []
    for i, page in enumerate(refs):
        if page in resident:
            out.append((True, None))
            continue
        victim = None
        if len(resident) == num_frames:
            last_use = {p: max(j for j in range(i) if refs[j] == p) for p in resident}
            victim = min(resident, key=lambda p: last_use[p])
            resident.remove(victim)
        resident.append(page)
        out.append((False, victim))
    return out


@settings(max_examples=200, deadline=None)
@given(refs=refs_strategy, frames=frames_strategy)
def test_lru_matches_naive_reference(refs: tuple[int, ...], frames: int) -> None:
    steps = simulate_paging("lru", refs, frames).steps
    assert [(s.is_hit, s.victim) for s in steps] == naive_lru(refs, frames)


@settings(max_examples=100, deadline=None)
@given(refs=refs_strategy, frames=frames_strategy)
def test_invariants_for_every_algorithm(refs: tuple[int, ...], frames: int) -> None:
    for algorithm, conventions in VARIANTS:
        result = simulate_paging(algorithm, refs, frames, **conventions)  # type: ignore[arg-type]
        assert result.faults + result.hits == len(refs) == len(result.steps)
        previous: tuple[int | None, ...] = (None,) * frames
        for step in result.steps:
            resident = [p for p in step.frames if p is not None]
            assert len(step.frames) == frames and len(resident) == len(set(resident)) <= frames
            assert step.page in resident and sorted(step.order) == sorted(resident)
            assert len(step.order_values) == len(step.order)
            assert step.is_hit == (step.page in previous)
            # Slot view: every page that stays resident keeps its slot.
            assert all(p == q for p, q in zip(previous, step.frames) if p is not None and p in resident)
            assert step.reason == REASON_TEMPLATES[step.reason_code].format(page=step.page, victim=step.victim)
            previous = step.frames


@settings(max_examples=150, deadline=None)
@given(refs=refs_strategy, frames=frames_strategy)
def test_opt_never_faults_more_than_any_algorithm(refs: tuple[int, ...], frames: int) -> None:
    best = simulate_paging("opt", refs, frames).faults
    for algorithm, conventions in VARIANTS:
        assert best <= simulate_paging(algorithm, refs, frames, **conventions).faults  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(refs=refs_strategy)
def test_stack_algorithms_show_no_belady_anomaly(refs: tuple[int, ...]) -> None:
    for algorithm in ("lru", "opt"):
        assert find_belady_anomaly(faults_curve(algorithm, refs, 6)) is None


@settings(max_examples=100, deadline=None)
@given(refs=refs_strategy, frames=frames_strategy)
def test_same_input_gives_equal_result(refs: tuple[int, ...], frames: int) -> None:
    # Determinism: results are frozen and comparable, so two runs must be equal field by field.
    for algorithm, conventions in VARIANTS:
        first = simulate_paging(algorithm, refs, frames, **conventions)  # type: ignore[arg-type]
        assert first == simulate_paging(algorithm, refs, frames, **conventions)  # type: ignore[arg-type]


def test_faults_curve_finds_belady_anomaly_for_fifo_only() -> None:
    curve = faults_curve("fifo", BELADY, 5)
    assert curve == ((1, 12), (2, 12), (3, 9), (4, 10), (5, 5))
    assert find_belady_anomaly(curve) == (3, 4)
    assert find_belady_anomaly(faults_curve("lru", BELADY, 5)) is None


def test_result_to_dict_is_json_round_trippable() -> None:
    result = simulate_paging("clock", BELADY, 3, clock_ref_bit_on_load=False)
    data = json.loads(json.dumps(result.to_dict()))
    assert {"algorithm", "frames", "refs", "faults", "hits", "hit_ratio", "convention", "steps"} <= data.keys()
    assert data["convention"] == {"clock_ref_bit_on_load": False, "lfu_tie_break": "fifo"}
    assert data["faults"] == 10 and len(data["steps"]) == 12
    assert data["steps"][0]["frames"] == [1, None, None]
    assert isinstance(result, PagingResult) and set(ALGORITHMS) == {"fifo", "lru", "opt", "clock", "lfu"}


# --- input validation ---------------------------------------------------------------------------------------------

def test_parse_refs_accepts_commas_spaces_and_both() -> None:
    assert parse_refs("1,2,3") == parse_refs("1 2 3") == parse_refs(" 1, 2 ,3\n") == (1, 2, 3)


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"), ("   ", "empty"),
    ("1,x,3", "page #2 is not an integer"), ("1 2 3.5", "page #3 is not an integer"),
    ("1,,2", "page #2 is empty"), ("1,-4", "page #2 is negative"),
    ("1,\u0663", "page #2 is not an integer"), ("1_0", "page #1"), ("1234567", "page #1"),
    (",".join(["1"] * (MAX_REFS + 1)), f"at most {MAX_REFS}"),
])
def test_parse_refs_rejects_bad_input_with_position(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_refs(text)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"num_frames": 0}, "frames must be an integer from 1 to 64"),
    ({"num_frames": 65}, "frames must be an integer from 1 to 64"),
    ({"num_frames": True}, "frames must be an integer"),
    ({"refs": ()}, "empty"), ({"refs": (1, -1)}, "page #2"),
    ({"algorithm": "mru"}, "algorithm must be one of"),
    ({"lfu_tie_break": "random"}, "lfu_tie_break"), ({"clock_ref_bit_on_load": 1}, "clock_ref_bit_on_load"),
])
def test_simulate_paging_rejects_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"algorithm": "lru", "refs": (1, 2), "num_frames": 2} | kwargs
    with pytest.raises(InputError, match=message):
        simulate_paging(**args)  # type: ignore[arg-type]


def test_random_refs_is_seeded_and_bounded() -> None:
    refs = random_refs(seed=7, length=50, num_pages=5)
    assert refs == random_refs(seed=7, length=50, num_pages=5) and len(refs) == 50
    assert set(refs) <= set(range(5)) and refs != random_refs(seed=8, length=50, num_pages=5)
    with pytest.raises(InputError, match="length"):
        random_refs(seed=1, length=MAX_REFS + 1, num_pages=5)


# --- CLI ----------------------------------------------------------------------------------------------------------

def test_cli_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["paging", "--algorithm", "fifo", "--frames", "3", "--preset", "belady", "--json", "--curve", "5"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {"faults", "hits", "hit_ratio", "steps", "curve", "convention"} <= data.keys()
    assert (data["faults"], data["hits"], data["hit_ratio"]) == (9, 3, 0.25)
    assert data["curve"][3] == {"frames": 4, "faults": 10} and data["belady_anomaly"] == [3, 4]


def test_cli_conventions_reach_the_simulation(capsys: pytest.CaptureFixture[str]) -> None:
    main(["paging", "--algorithm", "clock", "--preset", "textbook", "--clock-ref-bit-on-load", "0", "--json"])
    assert json.loads(capsys.readouterr().out)["faults"] == 11
    main(["paging", "--algorithm", "lfu", "--refs", " ".join(map(str, TEXTBOOK)), "--lfu-tie-break", "lru", "--json"])
    assert json.loads(capsys.readouterr().out)["faults"] == 11


def test_cli_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["paging", "--algorithm", "opt", "--refs", "1,2,3,4,1", "--frames", "3", "--curve", "3"]) == 0
    out = capsys.readouterr().out
    assert "miss: evict 2, never used again" in out and "faults 4, hits 1" in out and "frames  faults" in out


@pytest.mark.parametrize("argv", [
    ["paging", "--refs", "1,x,3"],
    ["paging", "--refs", "1,2", "--frames", "0"],
    ["paging", "--refs", "1,2", "--curve", "99"],
    ["paging", "--refs", ""],
])
def test_cli_bad_input_exits_2_with_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("chunkviz paging: error:") and "Traceback" not in err


def test_cli_argparse_errors_exit_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["paging", "--algorithm", "mru", "--preset", "belady"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "invalid choice" in err
