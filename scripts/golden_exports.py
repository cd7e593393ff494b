"""Prints (or with --write, stores) the sha256 of every offline HTML file `python -m chunkviz export-html` writes:
each view in both languages, plus the variants its flags select (one engine, caching off, each paging rule, chunks).

The files come from the CLI, so the same script runs on any revision of the tree (a move of modules must leave
every byte as it was); tests/test_golden_exports.py compares today's bytes with tests/golden/export_sha256.json.
Regenerate the file only for a change that is meant to alter what a file holds, and say so in the commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "export_sha256.json"
# name → export-html flags (each run in en and zh). Small runs: the bytes, not the size, are what is checked.
EXPORTS: dict[str, list[str]] = {
    "timeline": ["--view", "timeline", "--num-requests", "8"],
    "timeline-one-engine": ["--view", "timeline", "--num-requests", "6", "--compare", "none", "--policy", "sglang"],
    "kv": ["--view", "kv"],
    "kv-no-caching": ["--view", "kv", "--no-prefix-caching", "--num-requests", "12"],
    "paging-fifo": ["--view", "paging"],
    "paging-clock": ["--view", "paging", "--algorithm", "clock", "--frames", "4"],
    "paging-lfu": ["--view", "paging", "--algorithm", "lfu", "--refs", "1,2,3,1,4,5,1,2"],
    "attention": ["--view", "attention"],
    "attention-chunks": ["--view", "attention", "--attention-tokens", "40", "--attention-chunk", "7", "--head-dim", "16"],
}
LANGS = ("en", "zh")


def export_sha256(name: str, lang: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "view.html"
        subprocess.run([sys.executable, "-m", "chunkviz", "export-html", *EXPORTS[name], "--lang", lang,
                        "--out", str(out)], cwd=ROOT, check=True, capture_output=True, text=True)
        return hashlib.sha256(out.read_bytes()).hexdigest()


def all_hashes() -> dict[str, str]:
    return {f"{name}:{lang}": export_sha256(name, lang) for name in EXPORTS for lang in LANGS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"store the hashes in {GOLDEN.relative_to(ROOT)}")
    args = parser.parse_args()
    hashes = all_hashes()
    text = json.dumps(hashes, indent=2, sort_keys=True) + "\n"
    if args.write:
        GOLDEN.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
