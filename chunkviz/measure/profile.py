"""Profile files: save a CostProfile as JSON, load and validate one (no torch needed for either).

Invariant: load_profile(save_profile(p, path)) == p; a bad file raises an InputError naming the bad key.
"""

from __future__ import annotations

from pathlib import Path

from chunkviz.config import CostProfile
from chunkviz.cost.profile import MAX_PROFILE_BYTES, profile_from_json, profile_to_json
from chunkviz.errors import InputError


def save_profile(profile: CostProfile, path: str | Path) -> Path:
    """Write the profile as JSON; returns the path written."""
    path = Path(path)
    path.write_text(profile_to_json(profile) + "\n", encoding="utf-8")
    return path


def load_profile(path: str | Path) -> CostProfile:
    """A validated CostProfile from a JSON file."""
    path = Path(path)
    if path.stat().st_size > MAX_PROFILE_BYTES:
        raise InputError(f"cost profile {path} is larger than {MAX_PROFILE_BYTES} bytes")
    return profile_from_json(path.read_bytes())
