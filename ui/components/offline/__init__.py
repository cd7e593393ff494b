"""A view as one self-contained HTML file: `writer.py` (the host page and the views it can write, streamlit-free),
`download.py` (the "Download this view" button), `cli.py` (the `export-html` command the core hands off to),
`text.py` (their texts).

Invariant: streamlit-free except `download.py`; the same component and data give the same bytes.
"""
