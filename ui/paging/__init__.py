"""The page-replacement page's wing: its browser stage (stage.py/.js/.css) and, after the wings move, its page parts."""
