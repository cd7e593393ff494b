"""Markup injection (issue 16), server side: a URL value, an uploaded file's name or its contents reach the page
only as escaped text, so Markdown renders them literally (no link, image, directive or tag can come from them).

AppTest shows the Markdown source Streamlit will render, so these tests assert on the source: every payload
appears only with its punctuation backslash-escaped. tests/e2e/test_injection_browser.py checks the rendered DOM.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.ui.apptest_helpers import open_app
from ui.plain import WORD_JOINER, md_escape

EVIL = "https://evil.example/x.png"
PAYLOADS = (f"[click here]({EVIL})", f"![x]({EVIL})", f'<img src="{EVIL}">', ":red[alarm] :material/home: $x^2$")
# Unescaped Markdown/HTML that would turn into an element: a link or image target, a tag, a directive.
LIVE = re.compile(r"(?<!\\)\]\(|(?<!\\)<img|:red\[|(?<!\\)\$x")


def _rendered(at) -> list[str]:
    kinds = (at.title, at.markdown, at.caption, at.info, at.warning, at.error, at.success, at.subheader)
    side = (at.sidebar.markdown, at.sidebar.caption, at.sidebar.error, at.sidebar.warning, at.sidebar.info)
    return [str(e.value) for kind in kinds + side for e in kind]


def _assert_inert(at, payload: str) -> None:
    shown = _rendered(at)
    assert not at.exception
    assert not any(LIVE.search(text) and "evil" in text for text in shown), [t for t in shown if "evil" in t]
    assert not any("https://evil" in text or "www.evil" in text for text in shown)  # autolinks broken by joiners


def test_md_escape_leaves_nothing_for_markdown_to_interpret():
    for payload in PAYLOADS:
        escaped = md_escape(payload)
        assert not LIVE.search(escaped)
        # Unescaping (and dropping the invisible word joiners) gives the text back, character for character.
        assert re.sub(r"\\(.)", r"\1", escaped).replace(WORD_JOINER, "") == payload
    assert md_escape("a\n\n# title") == "a # title"  # one line: a newline cannot open a heading or a list
    assert md_escape("# title") == "\\# title" and md_escape("1. item") == "1\\. item"  # nor can the value's start
    assert WORD_JOINER in md_escape("https://x") and WORD_JOINER in md_escape("www.x")  # no GFM autolink


@pytest.mark.parametrize("payload", PAYLOADS)
def test_url_values_are_echoed_as_plain_text(payload):
    at = open_app(None, pa=payload, n=payload, preset=payload)
    warnings = [w.value for w in at.warning]
    assert any("pa=" in w for w in warnings), warnings  # the page says what it ignored
    _assert_inert(at, payload)


def test_uploaded_names_and_contents_are_plain_text():
    at = open_app()
    bad_model = json.dumps({"num_hidden_layers": 2, "torch_dtype": PAYLOADS[0]}).encode()
    at.file_uploader(key="model_upload").set_value((f"{PAYLOADS[1]}.json", bad_model, "application/json")).run()
    assert at.sidebar.error, "the bad config.json is reported"
    gpu = json.dumps({"peak_tflops": 989, "hbm_tb_per_s": 3.35, "memory_gb": 80, "name": PAYLOADS[0]}).encode()
    at.file_uploader(key="gpu_upload").set_value((f"{PAYLOADS[2]}.json", gpu, "application/json")).run()
    _assert_inert(at, PAYLOADS[0])
    at.switch_page("pages/attention_page.py").run()  # the uploaded GPU's name is shown in a lesson sentence
    _assert_inert(at, PAYLOADS[0])


def test_uploaded_trace_name_and_cells_are_plain_text():
    at = open_app("pages/traces_page.py", rt_source="upload")
    csv = f"arrival_s,prompt_tokens,output_tokens\n0,{PAYLOADS[0]},4\n".encode()
    at.file_uploader(key="rt_upload").set_value((f"{PAYLOADS[1]}.csv", csv, "text/csv")).run()
    assert at.error, "the bad trace is reported"
    _assert_inert(at, PAYLOADS[0])


def test_typed_reference_string_is_plain_text():
    at = open_app("pages/paging_page.py", pr_refs=PAYLOADS[0])
    assert at.error, "the bad reference string is reported"
    _assert_inert(at, PAYLOADS[0])


# Hostile uploads (issue 16): the app uses the CLI's input gate, so each class gives the same message, shown escaped.
LLAMA = {"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
         "intermediate_size": 14336, "vocab_size": 128256}
MODEL_UPLOADS = [
    ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "model config.json nests arrays or objects more than 32 levels deep (the limit)"),
    ('{"num_hidden_layers": 1' + "0" * 5000 + "}",
     "model config.json: the integer 100000000000… has 5,001 digits; the limit is 19"),
    (json.dumps({**LLAMA, "torch_dtype": ["bfloat16"]}),
     "model config.json: torch_dtype must be a string, one of bfloat16, float16, float32, fp8, float8_e4m3fn; got a "
     "JSON array"),
    ("x" * 1_000_001, "model config.json is 1,000,001 bytes; the limit is 1,000,000 bytes"),
]
GPU_UPLOADS = [
    (json.dumps({"peak_tflops": 5e-324, "hbm_tb_per_s": 3, "memory_gb": 80}),
     "GPU JSON: 'peak_tflops' must be a number from 0.01 to 100000, got 5e-324"),
    (json.dumps({"peak_tflops": 900, "hbm_tb_per_s": 3, "memory_gb": 80, "name": [1]}),
     "GPU JSON: 'name' must be a string, got a JSON array"),
]


@pytest.mark.parametrize("key, data, message", [("model_upload", d, m) for d, m in MODEL_UPLOADS]
                         + [("gpu_upload", d, m) for d, m in GPU_UPLOADS])
def test_hostile_spec_uploads_give_the_cli_message(key, data, message):
    at = open_app()
    at.file_uploader(key=key).set_value(("spec.json", data.encode(), "application/json")).run()
    assert not at.exception
    assert [e.value for e in at.sidebar.error] == [f"Could not use that file: {md_escape(message)}"]


def test_hostile_trace_upload_gives_the_cli_message():
    at = open_app("pages/traces_page.py", rt_source="upload")
    line = '{"timestamp": ' + "9" * 5000 + ', "input_length": 100, "output_length": 4, "hash_ids": [1]}\n'
    at.file_uploader(key="rt_upload").set_value(("t.jsonl", line.encode(), "application/json")).run()
    assert not at.exception
    message = "line 1: the integer 999999999999… has 5,000 digits; the limit is 19"
    assert f"Could not load {md_escape('t.jsonl')}: {md_escape(message)}" in [e.value for e in at.error]


def test_extreme_but_valid_gpu_shows_no_nan_card():
    at = open_app()
    gpu = json.dumps({"peak_tflops": 0.01, "hbm_tb_per_s": 0.001, "memory_gb": 100_000}).encode()
    at.file_uploader(key="gpu_upload").set_value(("slow.json", gpu, "application/json")).run()
    assert not at.exception
    shown = [str(m.value) for m in at.metric] + _rendered(at)
    assert not any("nan" in text.lower().split() or "nan ms" in text.lower() for text in shown), shown
