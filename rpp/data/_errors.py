"""The two errors of :mod:`rpp.data`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


class DataUnavailableError(RuntimeError):
    """The data cannot be obtained: no mirror file, no cached copy, no network.

    A subclass of :class:`RuntimeError` (the environment, not the caller's
    arguments, is at fault). The message says exactly how to obtain the data:
    set ``RPP_DATA_DIR`` to a mirror directory, or download the UCI archive by
    hand and unzip it into the cache directory it names.

    Attributes
    ----------
    path : pathlib.Path or None
        The file that was looked for.
    url : str or None
        The UCI archive that would provide it.
    """

    def __init__(self, message: str, *, path: Path | None = None, url: str | None = None):
        super().__init__(message)
        self.path = path
        self.url = url


class DataIntegrityError(ValueError):
    """A data file failed verification (wrong checksum, truncated, corrupted).

    A subclass of :class:`ValueError` (the file's *value* is wrong). The message
    names the file, lists every check that failed as expected vs. got, and says
    how to fix it (restore the mirror copy, delete the cached copy to re-download).

    Attributes
    ----------
    path : pathlib.Path or None
        The file (or, for a download, the cache path it was meant for).
    problems : list of str
        One line per failed check.
    """

    def __init__(self, message: str, *, path: Path | None = None, problems: Sequence[str] = ()):
        super().__init__(message)
        self.path = path
        self.problems = list(problems)
