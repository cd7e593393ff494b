"""Golden exports: every offline HTML file `export-html` writes (each view in both languages and the variants in
scripts/golden_exports.py) is byte-identical to the stored hashes, first taken before the shared components moved
into their rooms (ui/components/) and export-html was handed to the app's own command; a change meant to alter a
file regenerates them (`python scripts/golden_exports.py --write`) and says so in its commit."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import golden_exports  # noqa: E402

GOLDEN = json.loads(golden_exports.GOLDEN.read_text())


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_export_is_byte_identical_to_the_golden_hash(key):
    name, lang = key.split(":")
    assert golden_exports.export_sha256(name, lang) == GOLDEN[key]


def test_golden_file_covers_every_export_and_language():
    assert set(GOLDEN) == {f"{n}:{lang}" for n in golden_exports.EXPORTS for lang in golden_exports.LANGS}
