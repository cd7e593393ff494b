"""Colours that read on both light and dark backgrounds (mid-luminance, Tableau 10 hues), one per meaning."""

PREFILL = "#F28E2B"
DECODE = "#4E79A7"
WAITING = "#A0A7B4"
STALL = "#E15759"
PREEMPTED = "#B07AA1"
MIXED = "#59A14F"
FREE = "#8C96A6"
CACHED = "#EDC948"
CURSOR = "#E15759"
KIND_COLORS = {"waiting": WAITING, "prefill": PREFILL, "decode": DECODE, "stall": STALL, "preempted": PREEMPTED}
