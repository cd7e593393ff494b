"""The Streamlit shell: one wing (sub-package) per page, and the modules several pages share at this level.

Shared here: i18n (texts), palette (one colour per meaning), glossary, url_state, widgets, runs (the cached run),
plain (escaping user text), fmt (number formats), page_common, engine_messages, deep_link and component
(the loader of browser-side components). Invariant: a shared module imports no wing, and no wing imports another
wing (tests/test_ui_architecture.py); a page in pages/ imports its own wing and the shared modules.
"""
