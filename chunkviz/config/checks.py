"""The value checks every frozen config runs in `__post_init__`.

Invariant: a check returns None for a good value and raises ValueError naming the setting, the rule and the value
given, so a bad config fails where it is built, with a message a user can act on.
"""

from __future__ import annotations

import math


def check_positive_int(name: str, value: object, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


def check_positive_float(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
