"""The KV stage: block grid, free queue, block tables and what changed per step, stepped in the browser.

`mount.py` mounts it, `export.py` builds its payload and offline file without Streamlit (data from
chunkviz/lessons/kv_stage.py and kv_stage_data.py), `kv_stage.{js,css}` draw it, `text.py` holds its texts.
Invariant: the offline file and the app mount the same payload.
"""
