"""Custom Streamlit components (components v2, inline HTML/JS/CSS read from files next to them; no build step)."""
