"""Exceptions that the CLI turns into one-line messages."""


class MirforgeError(Exception):
    """A failure of the run itself (exit code 1)."""


class InputError(MirforgeError):
    """Bad input from the user: a flag, a config field, a path (exit code 2)."""


class Reject(Exception):  # noqa: N818 - a control-flow signal, not an error
    """A sampled scene or question is ambiguous; the generator draws again."""
