"""The comparison element: every engine's lanes on one time axis with one cursor, stepped in the browser.

`mount.py` mounts it (a page adds its own drawables as `extras`), `data.py` and `export.py` build its payload and its
offline file without Streamlit, `comparison.{js,css}` draw it (cursor, play, arrow keys, a clicker's PageDown /
PageUp, B blank, F full screen), `text.py` holds its texts. Invariant: the offline file and the app mount the same
payload.
"""
