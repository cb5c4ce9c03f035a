"""The two errors of :mod:`rpp_book.data`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


class DataUnavailableError(RuntimeError):
    """The data cannot be obtained: no mirror file, no cached copy, no network.

    A subclass of ``RuntimeError`` (the environment, not the caller's
    arguments, is at fault). The message says exactly how to obtain the data:
    set ``RPP_DATA_DIR`` to a mirror directory, or download the UCI archive by
    hand and unzip it into the cache directory it names.

    Parameters
    ----------
    message : str
        What is missing and how to obtain it.
    path : pathlib.Path, optional
        The file that was looked for.
    url : str, optional
        The UCI archive that would provide it.

    Attributes
    ----------
    path
        The file that was looked for (a ``pathlib.Path``, or None).
    url
        The UCI archive that would provide it (a str, or None).

    Raises
    ------
    DataUnavailableError
        Raised by the loaders of :mod:`rpp_book.data` (never by its constructor).

    Examples
    --------
    >>> from pathlib import Path
    >>> err = DataUnavailableError("no copy of adult.data", path=Path("adult/adult.data"))
    >>> isinstance(err, RuntimeError), err.path.name, err.url
    (True, 'adult.data', None)
    """

    def __init__(self, message: str, *, path: Path | None = None, url: str | None = None):
        super().__init__(message)
        self.path = path
        self.url = url


class DataIntegrityError(ValueError):
    """A data file failed verification (wrong checksum, truncated, corrupted).

    A subclass of ``ValueError`` (the file's *value* is wrong). The message
    names the file, lists every check that failed as expected vs. got, and says
    how to fix it (restore the mirror copy, delete the cached copy to re-download).

    Parameters
    ----------
    message : str
        The file, the failed checks and the fix.
    path : pathlib.Path, optional
        The file (or, for a download, the cache path it was meant for).
    problems : sequence of str, optional
        One line per failed check (expected vs. got).

    Attributes
    ----------
    path
        The file (or, for a download, the cache path it was meant for): a
        ``pathlib.Path``, or None.
    problems
        One line per failed check (a list of str).

    Raises
    ------
    DataIntegrityError
        Raised by the loaders of :mod:`rpp_book.data` (never by its constructor).

    Examples
    --------
    >>> err = DataIntegrityError("adult.data: 2 problems", problems=("rows: 32561 != 3",))
    >>> isinstance(err, ValueError), err.problems
    (True, ['rows: 32561 != 3'])
    """

    def __init__(self, message: str, *, path: Path | None = None, problems: Sequence[str] = ()):
        super().__init__(message)
        self.path = path
        self.problems = list(problems)
