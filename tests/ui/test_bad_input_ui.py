"""Bad-input catalogue for the app: every URL parameter a page publishes, fed zero, negative, huge, NaN and text,
and the sidebar uploads fed broken files. Each page must keep working and say what it ignored."""

from __future__ import annotations

import json

import pytest

from tests.ui.apptest_helpers import open_app

PAGES = ["pages/timeline_page.py", "pages/kv_cache_page.py", "pages/paging_page.py", "pages/tradeoffs_page.py",
         "pages/attention_page.py", "pages/seed_demo_page.py", "pages/quiz_page.py", "pages/traces_page.py",
         "pages/measure_page.py"]
BAD = ("0", "-1", "1e30", "nan", "abc")


def _open(page: str, **query: str):
    # The timeline is the default page: opening it directly keeps the deep link's first (and only) run.
    return open_app(None if page == "pages/timeline_page.py" else page, **query)


def _published_keys(page: str) -> list[str]:
    """Keys this page itself keeps in the URL (the sidebar's and the first run's are checked on the timeline)."""
    first_run = set(open_app(None).query_params)
    keys = set(_open(page).query_params)
    if page != "pages/timeline_page.py":
        keys -= first_run
    return sorted(keys - {"lang"})


@pytest.mark.parametrize("page", PAGES)
def test_every_url_parameter_survives_bad_values(page):
    keys = _published_keys(page)
    assert keys or page == "pages/quiz_page.py", "the page keeps its parameters in the URL"
    for key in keys:
        # All bad values at once per key keeps the run short; each one is checked for a warning or acceptance.
        for value in BAD:
            at = _open(page, **{key: value})
            assert not at.exception, (page, key, value)
            shown = " ".join(w.value for w in at.warning) + " ".join(e.value for e in at.error)
            current = at.query_params.get(key)
            current = current[0] if isinstance(current, list) else current
            # Either the value was legitimate and kept (maybe normalised, 0 → 0.0), or the page says what it did.
            assert _same(current, value) or key in shown or (shown and current != value), \
                (page, key, value, current, shown[:200])


def _same(current: str | None, value: str) -> bool:
    if current == value:
        return True
    try:
        return current is not None and float(current) == float(value)
    except ValueError:
        return current == value


def _upload(at, key: str, data: bytes, name: str):
    at.file_uploader(key=key).set_value((name, data, "application/json")).run()  # type: ignore[attr-defined]
    return at


@pytest.mark.parametrize("data", [b"", b"{not json", b"\xff\xfe", json.dumps([1, 2]).encode(),
                                  json.dumps({"num_hidden_layers": -4}).encode(),
                                  json.dumps({"num_hidden_layers": 2, "hidden_size": 100, "num_attention_heads": 3,
                                              "intermediate_size": 10, "vocab_size": 10}).encode()])
def test_bad_model_upload_is_reported(data):
    at = open_app()
    _upload(at, "model_upload", data, "config.json")
    assert not at.exception
    assert any("config.json" in e.value or "Could not use" in e.value for e in at.sidebar.error)


@pytest.mark.parametrize("data", [b"{}", json.dumps({"peak_tflops": "fast", "hbm_tb_per_s": 1, "memory_gb": 8}).encode(),
                                  json.dumps({"peak_tflops": 100, "hbm_tb_per_s": 1, "memory_gb": 1}).encode()])
def test_bad_gpu_upload_is_reported(data):
    at = open_app()
    _upload(at, "gpu_upload", data, "gpu.json")
    assert not at.exception
    # A GPU too small for the weights is valid JSON but cannot run: the page says why.
    messages = [e.value for e in at.sidebar.error] + [e.value for e in at.error]
    assert messages, "the user is told what is wrong"
