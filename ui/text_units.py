"""Axis titles for units (English, 中文): charts name a unit in the reader's language."""

TEXTS: dict[str, tuple[str, str]] = {
    "axis.flops": ("FLOPs", "浮点运算次数（FLOPs）"),
    "axis.bytes": ("bytes", "字节"),
    "axis.ms": ("ms", "毫秒"),
    "axis.tokens": ("tokens", "token 数"),
    "axis.steps": ("steps", "步数"),
    "axis.blocks": ("blocks", "块数"),
    "axis.faults": ("faults", "缺页次数"),
    "axis.kib": ("KiB", "KiB"),
    "axis.heads": ("heads", "头数"),
    "axis.ratio": ("ratio", "倍数"),
    "axis.diff": ("difference", "差值"),
}
