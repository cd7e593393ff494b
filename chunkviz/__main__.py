"""Entry point for `python -m chunkviz`."""

from chunkviz.cli.main import main

raise SystemExit(main())
