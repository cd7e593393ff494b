"""Entry point for `python -m chunkviz`."""

from chunkviz.cli import main

raise SystemExit(main())
