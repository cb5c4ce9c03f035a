"""Verified loaders for the three UCI datasets used in The RPP Book; the data ship with ``rpp``.

The book's examples use three datasets from the UCI Machine Learning Repository, all
licensed `CC BY 4.0 <https://creativecommons.org/licenses/by/4.0/>`_ (cite them when you
use or redistribute them; ``support/rpp_book/data/uci/README.md`` is the licence notice):

* **Adult** (Census Income): B. Becker and R. Kohavi (1996). *Adult* [Dataset].
  UCI Machine Learning Repository. https://doi.org/10.24432/C5XW20 -- :func:`load_adult`.
* **Heart Disease**: A. Janosi, W. Steinbrunn, M. Pfisterer and R. Detrano (1989).
  *Heart Disease* [Dataset]. UCI Machine Learning Repository.
  https://doi.org/10.24432/C52P4X -- :func:`load_heart_disease`.
* **Student Performance**: P. Cortez (2008). *Student Performance* [Dataset].
  UCI Machine Learning Repository. https://doi.org/10.24432/C5TG7T -- :func:`load_student`.

Where the files come from (the loaders' ``source`` argument)
-------------------------------------------------------------
* ``source=None`` (default): the copy **packaged with rpp_book** (``support/rpp_book/data/uci/*.gz``, about
  0.7 MB), so the loaders need no network, no environment variable and no cache. If the
  environment variable ``RPP_DATA_DIR`` is set (and non-empty), the files are read instead
  from that directory, which must hold the uncompressed files in the layout
  ``adult/adult.{data,test}``, ``heart-disease/processed.{cleveland,hungarian,switzerland,
  va}.data``, ``student-performance/student-{mat,por}.csv`` (``LAYOUT``).
* ``source="package"``: always the packaged copy (``RPP_DATA_DIR`` is ignored).
* ``source="uci"``: the explicit opt-in to the network. Files live in a user cache
  (:func:`cache_dir`: ``$RPP_CACHE_DIR``, else ``$XDG_CACHE_HOME/rpp-book``, else
  ``~/.cache/rpp-book``); a file that is not cached is extracted from the original UCI
  archive (``ARCHIVE_URLS``), verified and written atomically.

How the files are verified
--------------------------
Every file is verified before it is used, whatever its source:

* **SHA-256** of the uncompressed bytes against ``SHA256`` (the digests in
  ``support/rpp_book/data/uci/SHA256SUMS``), for the packaged copy, a mirror and downloads alike, with
  one exception: the packaged ``processed.hungarian.data`` was re-serialised from a
  ``;``-separated copy (same values, other bytes; ``REWRITTEN``), so a genuine UCI
  download of it is checked by content only. (The download path is tested against a local
  server; the live UCI site is not reachable from the machines that test this book.)
* **Content checks**: valid UTF-8; the expected number of fields on every line; the
  published number of rows; every categorical value one of the documented categories;
  every numeric value parses, is whole where it must be and lies in its documented range;
  ``?`` (missing) only where it is known to occur; Adult's ``education`` and
  ``education-num`` agree; and the reference statistics of the UCI ``.names`` files hold
  (e.g. the Adult race counts White 27,816 / Black 3,124 / ...).

A failed check raises :class:`DataIntegrityError`, whose message names the file, lists
what differs (expected vs. got) and says how to fix it (for the packaged copy: reinstall
``rpp-book``); nothing half-loaded is returned. A missing file raises
:class:`DataUnavailableError` naming the path and the expected layout.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from . import _sources
from ._errors import DataIntegrityError, DataUnavailableError
from ._sources import LAYOUT, cache_dir
from ._specs import (
    ADULT_COLUMNS,
    ARCHIVE_URLS,
    HEART_COLUMNS,
    HEART_SOURCES,
    REWRITTEN,
    SHA256,
    STUDENT_COLUMNS,
)

__all__ = [
    "load_adult",
    "load_heart_disease",
    "load_student",
    "DataUnavailableError",
    "DataIntegrityError",
    "cache_dir",
    "ADULT_COLUMNS",
    "HEART_COLUMNS",
    "HEART_SOURCES",
    "STUDENT_COLUMNS",
    "ARCHIVE_URLS",
    "LAYOUT",
    "REWRITTEN",
    "SHA256",
]


def load_adult(split: str = "both", *, source: str | None = None) -> pd.DataFrame:
    """Load the UCI Adult (Census Income) data, verified.

    Reads ``adult/adult.data`` (training part, 32,561 rows) and/or
    ``adult/adult.test`` (test part, 16,281 rows; its first line, the
    ``|1x3 Cross validator`` comment, is skipped); see the module docstring for
    sources and verification. The UCI archive is ``ARCHIVE_URLS["adult"]``.

    Parameters
    ----------
    split : {"both", "train", "test"}, default "both"
        Which part to load. ``"both"`` concatenates train then test and adds a
        categorical ``split`` column with values ``"train"``/``"test"``.

    source : {None, "package", "uci"}, default None
        Where the file comes from (see the module docstring): ``None`` is the copy
        packaged with ``rpp``, or ``$RPP_DATA_DIR`` when that is set; ``"package"``
        always the packaged copy; ``"uci"`` the download cache, downloading the
        original archive from UCI when the file is not cached (the only source that
        uses the network).

    Returns
    -------
    pandas.DataFrame
        Columns ``ADULT_COLUMNS`` (names from adult.names): ``age``, ``fnlwgt``,
        ``education-num``, ``capital-gain``, ``capital-loss`` and
        ``hours-per-week`` as int64; the others categorical with the categories
        listed in adult.names. Leading spaces are stripped, ``?`` is missing (NaN;
        it occurs in ``workclass``, ``occupation`` and ``native-country``), and
        the test labels' trailing ``.`` is removed, so ``income`` has categories
        ``"<=50K"`` and ``">50K"`` in both parts. Index ``0..n-1``.

    Raises
    ------
    ValueError
        If ``split`` or ``source`` is not one of the allowed values.
    DataUnavailableError
        If a file is missing from its source (or, with ``source="uci"``, cannot
        be downloaded).
    DataIntegrityError
        If a file fails verification.

    Notes
    -----
    Dataset: B. Becker and R. Kohavi (1996). *Adult* [Dataset]. UCI Machine
    Learning Repository. https://doi.org/10.24432/C5XW20 (CC BY 4.0; bib key
    ``uci_adult``).

    Examples
    --------
    >>> df = load_adult("train")
    >>> len(df), int((df["race"] == "White").sum())
    (32561, 27816)
    """
    parts = {
        "train": ["adult/adult.data"],
        "test": ["adult/adult.test"],
        "both": ["adult/adult.data", "adult/adult.test"],
    }
    if split not in parts:
        raise ValueError(f"split must be one of 'both', 'train', 'test', got {split!r}")
    frames = _sources.load(parts[split], source)
    if split != "both":
        return frames[parts[split][0]]
    train, test = frames["adult/adult.data"], frames["adult/adult.test"]
    df = pd.concat([train, test], ignore_index=True)
    df["split"] = pd.Categorical(["train"] * len(train) + ["test"] * len(test), categories=["train", "test"])
    return df


def load_heart_disease(sources: str | Sequence[str] = "cleveland", *, source: str | None = None) -> pd.DataFrame:
    """Load the UCI Heart Disease data (the processed 14-attribute files), verified.

    Reads ``heart-disease/processed.<source>.data`` (Cleveland 303, Hungarian 294,
    Switzerland 123, VA Long Beach 200 rows; no header; 14 columns). The UCI
    archive is ``ARCHIVE_URLS["heart-disease"]``.

    Parameters
    ----------
    sources : {"cleveland", "hungarian", "switzerland", "va", "all"} or sequence of str
        One source, ``"all"`` (the four, in that order, 920 rows) or a list of
        distinct source names; rows are concatenated in the given order.

    source : {None, "package", "uci"}, default None
        Where the file comes from (see the module docstring): ``None`` is the copy
        packaged with ``rpp``, or ``$RPP_DATA_DIR`` when that is set; ``"package"``
        always the packaged copy; ``"uci"`` the download cache, downloading the
        original archive from UCI when the file is not cached (the only source that
        uses the network).

    Returns
    -------
    pandas.DataFrame
        Columns ``HEART_COLUMNS`` (age, sex, cp, trestbps, chol, fbs, restecg,
        thalach, exang, oldpeak, slope, ca, thal, num; see heart-disease.names)
        plus a categorical ``source`` column. ``?`` is missing (NaN). ``age``,
        ``sex``, ``cp`` and ``num`` are never missing and are int64; the other
        columns are float64. ``num`` is the diagnosis (0 = no disease, 1-4 =
        disease; in the Hungarian file it is coded 0/1 only). Values are as in the
        files: ``chol`` = 0 (Switzerland, VA) and ``trestbps`` = 0 (one VA row) are
        implausible and de facto missing, but are not recoded.

    Raises
    ------
    ValueError
        If ``sources`` names an unknown source, repeats one or is empty, or if
        ``source`` is not one of the allowed values.
    DataUnavailableError
        If a file is missing from its source (or, with ``source="uci"``, cannot
        be downloaded).
    DataIntegrityError
        If a file fails verification.

    Notes
    -----
    Dataset: A. Janosi, W. Steinbrunn, M. Pfisterer and R. Detrano (1989).
    *Heart Disease* [Dataset]. UCI Machine Learning Repository.
    https://doi.org/10.24432/C52P4X (CC BY 4.0; bib key ``uci_heart``).

    Examples
    --------
    >>> df = load_heart_disease("all")
    >>> df.groupby("source", observed=True).size().to_dict()
    {'cleveland': 303, 'hungarian': 294, 'switzerland': 123, 'va': 200}
    """
    if isinstance(sources, str):
        chosen = list(HEART_SOURCES) if sources == "all" else [sources]
    else:
        chosen = list(sources)
    allowed = ("all", *HEART_SOURCES)
    if not chosen:
        raise ValueError(f"sources must name at least one of {HEART_SOURCES}, got {sources!r}")
    for s in chosen:
        if not isinstance(s, str) or s not in HEART_SOURCES:
            raise ValueError(f"sources must be one of {allowed} or a list of {HEART_SOURCES}, got {s!r}")
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"sources must not repeat a source, got {sources!r}")
    rels = [f"heart-disease/processed.{s}.data" for s in chosen]
    frames = _sources.load(rels, source)
    df = pd.concat([frames[r] for r in rels], ignore_index=True)
    df["source"] = pd.Categorical(np.repeat(chosen, [len(frames[r]) for r in rels]), categories=list(HEART_SOURCES))
    return df


def load_student(subject: str = "mat", *, source: str | None = None) -> pd.DataFrame:
    """Load the UCI Student Performance data, verified.

    Reads ``student-performance/student-mat.csv`` (mathematics, 395 rows) and/or
    ``student-por.csv`` (Portuguese, 649 rows); ``;``-separated with a header row
    and 33 columns. The UCI archive ``ARCHIVE_URLS["student-performance"]`` holds
    them in a nested ``student.zip``.

    Parameters
    ----------
    subject : {"mat", "por", "both"}, default "mat"
        Which course. ``"both"`` concatenates mat then por and adds a categorical
        ``subject`` column. (About 382 students appear in both files; see
        student.txt.)

    source : {None, "package", "uci"}, default None
        Where the file comes from (see the module docstring): ``None`` is the copy
        packaged with ``rpp``, or ``$RPP_DATA_DIR`` when that is set; ``"package"``
        always the packaged copy; ``"uci"`` the download cache, downloading the
        original archive from UCI when the file is not cached (the only source that
        uses the network).

    Returns
    -------
    pandas.DataFrame
        Columns ``STUDENT_COLUMNS``: the 17 nominal/binary attributes (school,
        sex, address, ..., romantic) categorical with the categories documented in
        student.txt, the 16 numeric ones (age, Medu, ..., absences, G1, G2, G3)
        int64. There are no missing values.

    Raises
    ------
    ValueError
        If ``subject`` or ``source`` is not one of the allowed values.
    DataUnavailableError
        If a file is missing from its source (or, with ``source="uci"``, cannot
        be downloaded).
    DataIntegrityError
        If a file fails verification.

    Notes
    -----
    Dataset: P. Cortez (2008). *Student Performance* [Dataset]. UCI Machine
    Learning Repository. https://doi.org/10.24432/C5TG7T (CC BY 4.0; bib key
    ``uci_student``).

    Examples
    --------
    >>> df = load_student("mat")
    >>> df.shape, round(float(df["G3"].mean()), 4)
    ((395, 33), 10.4152)
    """
    parts = {"mat": ["mat"], "por": ["por"], "both": ["mat", "por"]}
    if subject not in parts:
        raise ValueError(f"subject must be one of 'mat', 'por', 'both', got {subject!r}")
    rels = [f"student-performance/student-{s}.csv" for s in parts[subject]]
    frames = _sources.load(rels, source)
    if subject != "both":
        return frames[rels[0]]
    df = pd.concat([frames[r] for r in rels], ignore_index=True)
    df["subject"] = pd.Categorical(np.repeat(parts[subject], [len(frames[r]) for r in rels]), categories=["mat", "por"])
    return df
