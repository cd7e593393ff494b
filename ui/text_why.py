"""Texts of the why-sentences (English, 中文): registered here so the i18n tests check the core's templates."""

from chunkviz.analysis.why import WHY_TEXTS

TEXTS: dict[str, tuple[str, str]] = dict(WHY_TEXTS)
