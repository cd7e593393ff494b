"""Command line: `python -m chunkviz SUBCOMMAND ...`; `main` builds the parser, one module per subcommand.

May import anything in chunkviz (measure lazily, since it needs torch). Nothing in chunkviz imports cli.
"""
