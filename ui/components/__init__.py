"""The shared browser components, one room each: `comparison` (the engines' lanes of `/` and the chapters),
`kv_stage` (block grid, free queue, block tables; `/kv` and chapter 4), `attention_stage` (chunk by chunk over the
(query, key) matrix; `/attention` and chapter 3), `stage_player` (the stepped stages' shared controls and keys) and
`offline` (a view as one self-contained HTML file, its download button and the `export-html` command); `loader.py`
registers a component's files with Streamlit.

Invariant: a room holds all of its component — mount, `.js`, `.css`, texts and streamlit-free export payload — and
imports only shared services (ui/ top level), the loader, the stage player and the offline writer, never a wing.
"""
