"""The app served with its room endpoints: `st.App` runs app.py (the same pages as `streamlit run app.py`) and, beside
it, the routes of ui/components/room/routes.py (server-sent events for a class following its teacher, votes).

Run (scripts/run-app.sh does): python -m streamlit run serve.py --server.port=8501 ...   (Streamlit finds `app`
below and serves it with uvicorn; every --server.* flag works as for app.py). Invariant: importing this module opens
no socket of its own; the teacher key is generated (and printed) only when unset and no Redis is shared.
"""

import streamlit as st

from ui.components.room.routes import prepare, room_routes

prepare()
app = st.App("app.py", routes=room_routes())

if __name__ == "__main__":
    app.run()
