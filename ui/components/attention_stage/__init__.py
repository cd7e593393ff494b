"""The attention stage: chunk by chunk over the (query, key) matrix, stepped in the browser.

`mount.py` mounts it, `export.py` builds its payload and offline file without Streamlit (data from
chunkviz/lessons/attention_stage.py), `attention_stage.{js,css}` draw it, `text.py` holds its texts.
Invariant: the offline file and the app mount the same payload.
"""
