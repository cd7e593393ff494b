"""The stepped stages' shared player: controls, keys (a clicker's PageDown / PageUp between bookmarks, B blank, F
full screen), play loop and URL cursor, put in front of a stage's own `.js` / `.css` (`mount.py`).

Invariant: every stage steps the same way; a stage's own script only draws.
"""
