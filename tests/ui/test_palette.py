"""Every pair of meanings in ui/palette.py stays apart under normal vision and the three dichromacies, and every
colour stands off both theme backgrounds (issue 22: under deuteranopia stall red and mixed green were ΔE00 0.7).

Simulation: Machado, Oliveira & Fernandes (2009) at severity 1 (dichromacy), applied to linear sRGB, as
colour-science implements it (colour.blindness.matrix_cvd_Machado2009); difference: CIEDE2000 in CIELAB (D65).
colour-science is a test-only dependency (requirements-dev.txt).
"""

from __future__ import annotations

import itertools

import colour  # colour-science (requirements-dev.txt)
import numpy as np
import pytest

from ui import palette

VISIONS = (None, "Deuteranomaly", "Protanomaly", "Tritanomaly")  # None: normal vision
MIN_DELTA_E00 = 10.0
MIN_CONTRAST = 1.5  # a bar or block against the page, light and dark theme (WCAG's contrast ratio)


def _linear(hex_colour: str) -> np.ndarray:
    rgb = np.array([int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return colour.models.eotf_sRGB(rgb)


def _lab(hex_colour: str, vision: str | None) -> np.ndarray:
    linear = _linear(hex_colour)
    if vision is not None:
        linear = np.clip(colour.blindness.matrix_cvd_Machado2009(vision, 1.0) @ linear, 0, 1)
    xyz = colour.RGB_to_XYZ(linear, colour.RGB_COLOURSPACES["sRGB"], apply_cctf_decoding=False)
    return colour.XYZ_to_Lab(xyz)


def delta_e00(a: str, b: str, vision: str | None) -> float:
    return float(colour.delta_E(_lab(a, vision), _lab(b, vision), method="CIE 2000"))


def contrast(a: str, b: str) -> float:
    ya, yb = (float(_linear(h) @ np.array([0.2126, 0.7152, 0.0722])) for h in (a, b))
    return (max(ya, yb) + 0.05) / (min(ya, yb) + 0.05)


@pytest.mark.parametrize("vision", VISIONS, ids=lambda v: v or "normal")
def test_every_pair_of_meanings_differs_by_at_least_10(vision):
    close = [f"{a}/{b}: {delta_e00(palette.MEANINGS[a], palette.MEANINGS[b], vision):.1f}"
             for a, b in itertools.combinations(palette.MEANINGS, 2)
             if delta_e00(palette.MEANINGS[a], palette.MEANINGS[b], vision) < MIN_DELTA_E00]
    assert not close, close


def test_the_check_tells_the_old_stall_red_from_the_old_mixed_green_apart_only_in_normal_vision():
    """The measure itself: the issue's pair (Tableau red #E15759, green #59A14F) fails under deuteranopia."""
    assert delta_e00("#E15759", "#59A14F", None) > 30
    assert delta_e00("#E15759", "#59A14F", "Deuteranomaly") < 2


@pytest.mark.parametrize("background", [palette.LIGHT_BACKGROUND, palette.DARK_BACKGROUND])
def test_every_meaning_stands_off_both_theme_backgrounds(background):
    faint = {name: round(contrast(c, background), 2) for name, c in palette.MEANINGS.items()
             if contrast(c, background) < MIN_CONTRAST}
    assert not faint, faint


@pytest.mark.parametrize("background", [palette.LIGHT_BACKGROUND, palette.DARK_BACKGROUND])
def test_the_kv_transfer_stands_3_to_1_off_both_theme_backgrounds(background):
    """Issue 35: chapter 7's transfers are thin bands a projector must show (WCAG 1.4.11, non-text contrast 3:1);
    the indigo before had 1.95:1 on the dark theme."""
    assert contrast(palette.TRANSFER, background) >= 3.0, contrast(palette.TRANSFER, background)
    assert contrast("#3311DD", palette.DARK_BACKGROUND) < 3.0  # the measure tells the old colour apart


def test_stall_preempted_and_mixed_carry_a_pattern_and_the_others_none():
    assert set(palette.PATTERNS) == {"stall", "preempted", "mixed"}
    assert len(set(palette.PATTERNS.values())) == 3
    assert palette.pattern_of("decode")["shape"] == "" and palette.pattern_of("stall")["shape"] == "x"
