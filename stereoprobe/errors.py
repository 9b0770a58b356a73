"""Errors a user can act on. The CLI prints their message as one line and exits 2."""


class StereoprobeError(Exception):
    """A problem the user can fix; the message says what to do, in one line."""


class DataError(StereoprobeError):
    """A malformed or missing input file (catalog, lexicon, run directory)."""


class BackendError(StereoprobeError):
    """The model cannot be used at all (no key, unreachable endpoint, missing package)."""
