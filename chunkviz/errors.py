"""User-facing errors: anything raised as InputError carries a message fit to show a user as it is.

Invariant: the CLI and the app print an InputError's message (or a ValueError from config validation) and never
a traceback.
"""


class InputError(ValueError):
    """Bad input from a flag, a widget, a URL or a file; the message says what is wrong and where."""


class SimulationLimitError(RuntimeError):
    """The engine loop hit its step bound; the message names the limit."""
