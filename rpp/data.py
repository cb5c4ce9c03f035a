"""Verified loaders for the three UCI datasets used in The RPP Book.

The book's examples use three datasets from the UCI Machine Learning Repository,
all licensed `CC BY 4.0 <https://creativecommons.org/licenses/by/4.0/>`_ (cite them
when you use or redistribute them):

* **Adult** (Census Income): B. Becker and R. Kohavi (1996). *Adult* [Dataset].
  UCI Machine Learning Repository. https://doi.org/10.24432/C5XW20 -- :func:`load_adult`.
* **Heart Disease**: A. Janosi, W. Steinbrunn, M. Pfisterer and R. Detrano (1989).
  *Heart Disease* [Dataset]. UCI Machine Learning Repository.
  https://doi.org/10.24432/C52P4X -- :func:`load_heart_disease`.
* **Student Performance**: P. Cortez (2008). *Student Performance* [Dataset].
  UCI Machine Learning Repository. https://doi.org/10.24432/C5TG7T -- :func:`load_student`.

Where the files come from
-------------------------
1. If the environment variable ``RPP_DATA_DIR`` is set (and non-empty), the files are
   read from that directory, which must have the layout of the book's mirror
   (``../shared/data/uci`` in the development tree)::

       adult/adult.data
       adult/adult.test
       heart-disease/processed.{cleveland,hungarian,switzerland,va}.data
       student-performance/student-{mat,por}.csv

   The network is never touched in this mode; a missing file raises
   :class:`DataUnavailableError` naming the path. A relative ``RPP_DATA_DIR`` is
   resolved against the current working directory, so prefer an absolute path.
2. Otherwise the files live in a user cache directory (:func:`cache_dir`:
   ``$RPP_CACHE_DIR``, else ``$XDG_CACHE_HOME/rpp-book``, else ``~/.cache/rpp-book``)
   with the same layout. A file that is not cached is extracted from the original
   archive downloaded from UCI (see ``ARCHIVE_URLS``) with :mod:`urllib` and
   written atomically (temporary file, then rename). Without network access and
   without a mirror, :class:`DataUnavailableError` explains how to get the data.

How the files are verified
--------------------------
Every file is verified before it is used, whatever its source:

* **Content checks** (all sources): the file is valid UTF-8; every data line has
  the expected number of fields; the number of data rows is as published; every
  categorical value is one of the documented categories; every numeric value
  parses, is an integer where it must be and lies in its documented range;
  missing values (``?``) occur only in the columns where they are known to occur;
  Adult's ``education`` and ``education-num`` agree; and the reference statistics
  of the mirror's README and of the UCI ``.names`` files hold (e.g. the Adult race
  counts White 27,816 / Black 3,124 / ...; the Heart Disease class distributions).
* **SHA-256** against the mirror's ``SHA256SUMS`` (copied into ``MIRROR_SHA256``)
  for files read from ``RPP_DATA_DIR``: a mirror copy must be byte-identical.
* **Downloads are not checked against** ``MIRROR_SHA256``. The mirror's
  ``processed.hungarian.data`` was re-serialised (same values, different bytes), and
  the other mirror copies are documented as identical to UCI's *rows*, which has
  not been checked byte for byte against the current UCI archives (the build
  machines have no network). Enforcing the mirror hashes on downloads could thus
  reject a correct original. A download is instead protected by the archive's own
  CRC-32 of every member (checked by :mod:`zipfile`) and by the content checks
  above; a member that fails them is never written to the cache.
* **Cache files** are pinned on first verification: the SHA-256 of a verified
  cache file is recorded beside it (``<file>.sha256``), and a later change of the
  bytes is an error. (A file unzipped into the cache by hand is content-checked
  and then pinned the same way.)

A failed check raises :class:`DataIntegrityError`, whose message names the file,
lists what differs (expected vs. got) and says how to fix it. A corrupted or
truncated file is never used silently.
"""
from __future__ import annotations

import csv
import hashlib
import http.client
import io
import os
import tempfile
import urllib.error
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "DataUnavailableError",
    "DataIntegrityError",
    "load_adult",
    "load_heart_disease",
    "load_student",
    "cache_dir",
    "ADULT_COLUMNS",
    "HEART_COLUMNS",
    "HEART_SOURCES",
    "STUDENT_COLUMNS",
    "ARCHIVE_URLS",
    "MIRROR_SHA256",
]

#: Seconds to wait for the UCI server before giving up on a download.
DOWNLOAD_TIMEOUT = 60.0


# --------------------------------------------------------------------------- errors
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

    def __init__(self, message: str, *, path: Path | None = None,
                 problems: Sequence[str] = ()):
        super().__init__(message)
        self.path = path
        self.problems = list(problems)


# --------------------------------------------------------------------------- sources
#: Original archives on the UCI repository, by mirror folder.
ARCHIVE_URLS: dict[str, str] = {
    "adult": "https://archive.ics.uci.edu/static/public/2/adult.zip",
    "heart-disease": "https://archive.ics.uci.edu/static/public/45/heart+disease.zip",
    "student-performance":
        "https://archive.ics.uci.edu/static/public/320/student+performance.zip",
}

#: SHA-256 of the book's mirror copies, copied from the mirror's ``SHA256SUMS``.
#: Enforced for files read from ``RPP_DATA_DIR`` only (see the module docstring).
MIRROR_SHA256: dict[str, str] = {
    "adult/adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult/adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    "heart-disease/processed.cleveland.data":
        "a74b7efa387bc9d108d7d0115d831fe9b414b29ae7124f331b622b4efa0427c8",
    "heart-disease/processed.hungarian.data":
        "d1ad108f785768cd3d7e82dc522e6f5a61eea93cccfb3a46ee8076f73fc3d796",
    "heart-disease/processed.switzerland.data":
        "834a405ccf5b66ab4056bb77794adc8df0b7125186454c0a1d002d33c6c3b314",
    "heart-disease/processed.va.data":
        "e7c93d8d0d2acdadfa4c5e8de768e2191e7f618b952e29623f1f0d5949ff6b8f",
    "student-performance/student-mat.csv":
        "e47f9ee225e1ee6e69b7564e6dac7123e80b8486677fe111f351964cef5dec80",
    "student-performance/student-por.csv":
        "a7594a11d7771c0efe1a740824e0e833da9c4cad07c39a9766a874575563fb3f",
}

_MISSING = "?"


def cache_dir() -> Path:
    """Directory where downloaded files are cached.

    Returns
    -------
    pathlib.Path
        ``$RPP_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/rpp-book``, else
        ``~/.cache/rpp-book``. It is created only when a file is written.
    """
    env = os.environ.get("RPP_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg).expanduser() / "rpp-book"
    return Path.home() / ".cache" / "rpp-book"


def _mirror_dir() -> Path | None:
    env = os.environ.get("RPP_DATA_DIR")
    return Path(env).expanduser() if env else None


# --------------------------------------------------------------------------- file specs
@dataclass(frozen=True)
class _Col:
    """One column: how to parse and check it."""

    name: str
    kind: str                                  # "cat", "int" (never missing) or "float"
    categories: tuple[str, ...] = ()           # allowed categories ("cat")
    raw_map: Mapping[str, str] | None = None   # raw token -> category (replaces the check)
    lo: float = -np.inf                        # allowed numeric range
    hi: float = np.inf
    codes: tuple[float, ...] | None = None     # allowed numeric codes
    integral: bool = False                     # numeric values must be whole numbers
    missing_ok: bool = False                   # "?" allowed


@dataclass(frozen=True)
class _Spec:
    rel: str                                   # path inside the mirror / cache
    members: tuple[str, ...]                   # path inside the UCI archive (nested zips)
    sep: str
    columns: tuple[_Col, ...]
    n_rows: int
    header: bool = False                       # first line holds the column names
    first_line: str | None = None              # a comment line to check and skip
    counts: Mapping[str, Mapping[object, int]] = field(default_factory=dict)
    means: Mapping[str, float] = field(default_factory=dict)   # to 4 decimals
    complete_rows: int | None = None           # rows without any missing value
    extra: tuple[Callable[[pd.DataFrame], list[str]], ...] = ()

    @property
    def folder(self) -> str:
        return self.rel.split("/")[0]

    @property
    def url(self) -> str:
        return ARCHIVE_URLS[self.folder]


# Adult: column names and categories as listed in adult.names.
_ADULT_CATS = {
    "workclass": ("Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov",
                  "Local-gov", "State-gov", "Without-pay", "Never-worked"),
    "education": ("Bachelors", "Some-college", "11th", "HS-grad", "Prof-school",
                  "Assoc-acdm", "Assoc-voc", "9th", "7th-8th", "12th", "Masters",
                  "1st-4th", "10th", "Doctorate", "5th-6th", "Preschool"),
    "marital-status": ("Married-civ-spouse", "Divorced", "Never-married", "Separated",
                       "Widowed", "Married-spouse-absent", "Married-AF-spouse"),
    "occupation": ("Tech-support", "Craft-repair", "Other-service", "Sales",
                   "Exec-managerial", "Prof-specialty", "Handlers-cleaners",
                   "Machine-op-inspct", "Adm-clerical", "Farming-fishing",
                   "Transport-moving", "Priv-house-serv", "Protective-serv",
                   "Armed-Forces"),
    "relationship": ("Wife", "Own-child", "Husband", "Not-in-family", "Other-relative",
                     "Unmarried"),
    "race": ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
    "sex": ("Female", "Male"),
    "native-country": (
        "United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
        "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China",
        "Cuba", "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica",
        "Vietnam", "Mexico", "Portugal", "Ireland", "France", "Dominican-Republic",
        "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia", "Hungary", "Guatemala",
        "Nicaragua", "Scotland", "Thailand", "Yugoslavia", "El-Salvador",
        "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands"),
    "income": ("<=50K", ">50K"),
}

#: Adult column names, in file order (from adult.names; ``income`` is the label).
ADULT_COLUMNS: tuple[str, ...] = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country", "income")

# education -> education-num (the census coding; one-to-one in both files).
_ADULT_EDUCATION_NUM = {
    "Preschool": 1, "1st-4th": 2, "5th-6th": 3, "7th-8th": 4, "9th": 5, "10th": 6,
    "11th": 7, "12th": 8, "HS-grad": 9, "Some-college": 10, "Assoc-voc": 11,
    "Assoc-acdm": 12, "Bachelors": 13, "Masters": 14, "Prof-school": 15, "Doctorate": 16,
}


def _adult_columns(test: bool) -> tuple[_Col, ...]:
    num = {  # sanity ranges (the files: age 17-90, hours 1-99, capital-gain <= 99999)
        "age": (0, 120), "fnlwgt": (1, 1e7), "education-num": (1, 16),
        "capital-gain": (0, 99999), "capital-loss": (0, 99999), "hours-per-week": (0, 168),
    }
    cols = []
    for name in ADULT_COLUMNS:
        if name in num:
            lo, hi = num[name]
            cols.append(_Col(name, "int", lo=lo, hi=hi, integral=True))
        elif name == "income" and test:  # adult.test labels end with "."
            cols.append(_Col(name, "cat", _ADULT_CATS[name],
                             raw_map={"<=50K.": "<=50K", ">50K.": ">50K"}))
        else:
            cols.append(_Col(name, "cat", _ADULT_CATS[name],
                             missing_ok=name in ("workclass", "occupation", "native-country")))
    return tuple(cols)


def _check_adult_education(df: pd.DataFrame) -> list[str]:
    expected = df["education"].map(_ADULT_EDUCATION_NUM).astype("int64")
    bad = np.flatnonzero(expected.to_numpy() != df["education-num"].to_numpy())
    if bad.size == 0:
        return []
    ex = ", ".join(f"row {i + 1}: education={df['education'].iat[i]!s} but "
                   f"education-num={df['education-num'].iat[i]}" for i in bad[:3])
    return [f"education and education-num disagree in {bad.size} rows "
            f"(expected the census coding Preschool=1 ... Doctorate=16; {ex})"]


#: Heart Disease column names (heart-disease.names, the 14 attributes used).
HEART_COLUMNS: tuple[str, ...] = (
    "age", "sex", "cp", "trestbps", "chol", "fbs", "restecg", "thalach", "exang",
    "oldpeak", "slope", "ca", "thal", "num")
#: The four Heart Disease sources (files ``processed.<source>.data``).
HEART_SOURCES: tuple[str, ...] = ("cleveland", "hungarian", "switzerland", "va")

# Coded attributes per heart-disease.names; continuous ones get sanity ranges.
# trestbps and chol contain 0 in some sources (an undocumented missing code, kept
# as is). age, sex, cp and num are never missing, so they are int64; the others
# can be missing ("?") in some source and are float64 with NaN.
_HEART_COLS = (
    _Col("age", "int", lo=0, hi=120, integral=True),
    _Col("sex", "int", codes=(0, 1)),
    _Col("cp", "int", codes=(1, 2, 3, 4)),
    _Col("trestbps", "float", lo=0, hi=300, missing_ok=True),
    _Col("chol", "float", lo=0, hi=1000, missing_ok=True),
    _Col("fbs", "float", codes=(0, 1), missing_ok=True),
    _Col("restecg", "float", codes=(0, 1, 2), missing_ok=True),
    _Col("thalach", "float", lo=0, hi=300, missing_ok=True),
    _Col("exang", "float", codes=(0, 1), missing_ok=True),
    _Col("oldpeak", "float", lo=-10, hi=10, missing_ok=True),
    _Col("slope", "float", codes=(1, 2, 3), missing_ok=True),
    _Col("ca", "float", codes=(0, 1, 2, 3), missing_ok=True),
    _Col("thal", "float", codes=(3, 6, 7), missing_ok=True),
    _Col("num", "int", codes=(0, 1, 2, 3, 4)),
)

#: Student Performance column names (student.txt; identical in both files).
STUDENT_COLUMNS: tuple[str, ...] = (
    "school", "sex", "age", "address", "famsize", "Pstatus", "Medu", "Fedu", "Mjob",
    "Fjob", "reason", "guardian", "traveltime", "studytime", "failures", "schoolsup",
    "famsup", "paid", "activities", "nursery", "higher", "internet", "romantic",
    "famrel", "freetime", "goout", "Dalc", "Walc", "health", "absences", "G1", "G2", "G3")

_JOBS = ("teacher", "health", "services", "at_home", "other")
_STUDENT_CATS = {
    "school": ("GP", "MS"), "sex": ("F", "M"), "address": ("U", "R"),
    "famsize": ("LE3", "GT3"), "Pstatus": ("T", "A"), "Mjob": _JOBS, "Fjob": _JOBS,
    "reason": ("home", "reputation", "course", "other"),
    "guardian": ("mother", "father", "other"),
    **{c: ("no", "yes") for c in ("schoolsup", "famsup", "paid", "activities",
                                   "nursery", "higher", "internet", "romantic")},
}
_STUDENT_RANGES = {  # documented ranges in student.txt
    "age": (15, 22), "Medu": (0, 4), "Fedu": (0, 4), "traveltime": (1, 4),
    "studytime": (1, 4), "failures": (0, 4), "famrel": (1, 5), "freetime": (1, 5),
    "goout": (1, 5), "Dalc": (1, 5), "Walc": (1, 5), "health": (1, 5),
    "absences": (0, 93), "G1": (0, 20), "G2": (0, 20), "G3": (0, 20),
}
_STUDENT_COLS = tuple(
    _Col(c, "cat", _STUDENT_CATS[c]) if c in _STUDENT_CATS
    else _Col(c, "int", lo=_STUDENT_RANGES[c][0], hi=_STUDENT_RANGES[c][1], integral=True)
    for c in STUDENT_COLUMNS)

# Reference statistics: the mirror README (Adult race/relationship counts and mean
# education-num; Cleveland slope and fbs counts; student G3 means, schoolsup and
# guardian counts), adult.names (rows without unknowns: train 30162, test 15060) and
# heart-disease.names (class distribution of num; processed.hungarian.data codes num
# as 0/1, so its 37+26+28+15 = 106 diseased patients all have num = 1).
_SPECS: dict[str, _Spec] = {s.rel: s for s in (
    _Spec("adult/adult.data", ("adult.data",), ",", _adult_columns(test=False), 32561,
          counts={"race": {"White": 27816, "Black": 3124, "Asian-Pac-Islander": 1039,
                           "Amer-Indian-Eskimo": 311, "Other": 271},
                  "relationship": {"Husband": 13193, "Not-in-family": 8305}},
          means={"education-num": 10.0807}, complete_rows=30162,
          extra=(_check_adult_education,)),
    _Spec("adult/adult.test", ("adult.test",), ",", _adult_columns(test=True), 16281,
          first_line="|1x3 Cross validator", complete_rows=15060,
          extra=(_check_adult_education,)),
    _Spec("heart-disease/processed.cleveland.data", ("processed.cleveland.data",), ",",
          _HEART_COLS, 303,
          counts={"slope": {1: 142, 2: 140, 3: 21}, "fbs": {0: 258, 1: 45},
                  "num": {0: 164, 1: 55, 2: 36, 3: 35, 4: 13}}),
    _Spec("heart-disease/processed.hungarian.data", ("processed.hungarian.data",), ",",
          _HEART_COLS, 294, counts={"num": {0: 188, 1: 106}}),
    _Spec("heart-disease/processed.switzerland.data", ("processed.switzerland.data",),
          ",", _HEART_COLS, 123, counts={"num": {0: 8, 1: 48, 2: 32, 3: 30, 4: 5}}),
    _Spec("heart-disease/processed.va.data", ("processed.va.data",), ",",
          _HEART_COLS, 200, counts={"num": {0: 51, 1: 56, 2: 41, 3: 42, 4: 10}}),
    _Spec("student-performance/student-mat.csv", ("student.zip", "student-mat.csv"), ";",
          _STUDENT_COLS, 395, header=True, means={"G3": 10.4152},
          counts={"schoolsup": {"no": 344, "yes": 51},
                  "guardian": {"mother": 273, "father": 90, "other": 32}}),
    _Spec("student-performance/student-por.csv", ("student.zip", "student-por.csv"), ";",
          _STUDENT_COLS, 649, header=True, means={"G3": 11.9060},
          counts={"schoolsup": {"no": 581, "yes": 68},
                  "guardian": {"mother": 455, "father": 153, "other": 41}}),
)}


# --------------------------------------------------------------------------- parsing
def _examples(values: pd.Series, lines: np.ndarray, mask: np.ndarray, k: int = 3) -> str:
    idx = np.flatnonzero(mask)[:k]
    return ", ".join(f"line {lines[i]}: {values.iat[i]!r}" for i in idx)


def _parse(data: bytes, spec: _Spec) -> tuple[pd.DataFrame | None, list[str]]:
    """Parse and content-check one file; return (frame or None, problems)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [f"not valid UTF-8 text (byte {exc.start}: {data[exc.start:exc.start + 8]!r});"
                      " the file is corrupted"]
    lines = text.splitlines()
    start = 0
    problems: list[str] = []
    names = [c.name for c in spec.columns]
    ncol = len(names)
    sep_name = {",": "comma", ";": "semicolon"}[spec.sep]
    if spec.first_line is not None:
        got = lines[0].strip() if lines else "<empty file>"
        if got != spec.first_line:
            problems.append(f"first line: expected {spec.first_line!r}, got {got[:60]!r}")
        start = 1
    if spec.header:
        got = next(csv.reader(lines[:1], delimiter=spec.sep), [])
        if [g.strip() for g in got] != names:
            problems.append(f"header line: expected the {ncol} columns {spec.sep.join(names)!r}, "
                            f"got {lines[0][:80] if lines else '<empty file>'!r}")
        start = 1
    rows: list[list[str]] = []
    linenos: list[int] = []
    bad_width: list[str] = []
    n_bad_width = n_empty = 0
    reader = csv.reader(lines[start:], delimiter=spec.sep, skipinitialspace=True)
    for i, fields in enumerate(reader, start=start + 1):
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue  # blank line (adult files end with one)
        fields = [f.strip() for f in fields]
        if len(fields) != ncol:
            n_bad_width += 1
            if len(bad_width) < 3:
                bad_width.append(f"line {i} has {len(fields)}")
            continue
        if "" in fields:
            n_empty += 1
            if n_empty == 1:
                problems.append(f"line {i}: empty field in column "
                                f"{names[fields.index('')]!r} (truncated or corrupted?)")
        rows.append(fields)
        linenos.append(i)
    if n_bad_width:
        problems.append(f"fields per line: expected {ncol} {sep_name}-separated fields, "
                        f"{n_bad_width} line(s) differ ({'; '.join(bad_width)}) "
                        "-- truncated or corrupted lines")
    if n_empty > 1:
        problems.append(f"{n_empty} lines have empty fields")
    if len(rows) != spec.n_rows:
        problems.append(f"rows: expected {spec.n_rows} data rows, got {len(rows)}"
                        + (" (file truncated or lines lost?)" if len(rows) < spec.n_rows
                           else " (extra lines?)"))
    if problems:  # the table is malformed: the value checks below would only add noise
        return None, problems

    raw = pd.DataFrame(rows, columns=names, dtype=object)
    lines_arr = np.asarray(linenos)
    out = {}
    for col in spec.columns:
        s = raw[col.name]
        miss = (s == _MISSING).to_numpy()
        if miss.any() and not col.missing_ok:
            problems.append(f"column {col.name!r}: {int(miss.sum())} missing value(s) "
                            f"{_MISSING!r}, none expected ({_examples(s, lines_arr, miss)})")
        if col.kind == "cat":
            allowed = tuple(col.raw_map) if col.raw_map else col.categories
            bad = ~(s.isin(allowed).to_numpy() | miss)
            if bad.any():
                problems.append(f"column {col.name!r}: {int(bad.sum())} value(s) outside the "
                                f"documented categories {list(allowed)} "
                                f"({_examples(s, lines_arr, bad)})")
                continue
            vals = s.map(col.raw_map) if col.raw_map else s
            out[col.name] = pd.Categorical(vals.where(~miss, None), categories=col.categories)
            continue
        num = pd.to_numeric(s.where(~miss, None), errors="coerce").astype("float64")
        numv = num.to_numpy()
        bad = np.isnan(numv) & ~miss
        if bad.any():
            problems.append(f"column {col.name!r}: {int(bad.sum())} value(s) are not numbers "
                            f"({_examples(s, lines_arr, bad)})")
            continue
        ok = ~np.isnan(numv)
        if col.codes is not None:
            bad = ok & ~np.isin(numv, col.codes)
            what = f"the documented codes {[int(c) for c in col.codes]}"
        else:
            bad = ok & ((numv < col.lo) | (numv > col.hi))
            what = f"the range [{col.lo:g}, {col.hi:g}]"
        if col.integral:
            bad |= ok & (numv != np.round(numv))
            what += " (whole numbers)"
        if bad.any():
            problems.append(f"column {col.name!r}: {int(bad.sum())} value(s) outside {what} "
                            f"({_examples(s, lines_arr, bad)})")
            continue
        out[col.name] = numv.astype("int64") if col.kind == "int" and not miss.any() else numv
    if problems:
        return None, problems
    df = pd.DataFrame(out, columns=names)
    return df, _check_reference(df, spec)


def _check_reference(df: pd.DataFrame, spec: _Spec) -> list[str]:
    problems = []
    for col, table in spec.counts.items():
        got = {k: int((df[col] == k).sum()) for k in table}
        if got != dict(table):
            problems.append(f"counts of {col!r}: expected {dict(table)}, got {got}")
    for col, ref in spec.means.items():
        got = float(df[col].mean())
        if abs(got - ref) > 5e-5:  # references are given to 4 decimals
            problems.append(f"mean of {col!r}: expected {ref:.4f}, got {got:.4f}")
    if spec.complete_rows is not None:
        got = int(df.notna().all(axis=1).sum())
        if got != spec.complete_rows:
            problems.append(f"rows without missing values: expected {spec.complete_rows}, "
                            f"got {got}")
    for check in spec.extra:
        problems.extend(check(df))
    return problems


# --------------------------------------------------------------------------- verification
def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _integrity_error(spec: _Spec, where: str, path: Path, problems: list[str],
                     fix: str) -> DataIntegrityError:
    msg = (f"{spec.rel} failed verification ({where}: {path}):\n"
           + "\n".join(f"  - {p}" for p in problems)
           + f"\nHow to fix: {fix}\nThe file was not used.")
    return DataIntegrityError(msg, path=path, problems=problems)


def _from_mirror(spec: _Spec, mirror: Path) -> pd.DataFrame:
    path = mirror / spec.rel
    if not path.is_file():
        layout = ", ".join(_SPECS)
        hint = ("" if mirror.is_dir() else
                f" (the directory {mirror} itself does not exist)")
        raise DataUnavailableError(
            f"RPP_DATA_DIR is set to {mirror}, but {path} does not exist{hint}. "
            f"With RPP_DATA_DIR set, the data are read from that directory only and the "
            f"network is never used. It must contain: {layout}.\nHow to fix: point "
            f"RPP_DATA_DIR at the book's data mirror (e.g. an absolute path to "
            f"shared/data/uci), copy the missing file into {path.parent}, or unset "
            f"RPP_DATA_DIR to download the original archive {spec.url} into the cache "
            f"({cache_dir()}).", path=path, url=spec.url)
    data = path.read_bytes()
    problems = []
    digest = _sha256(data)
    if digest != MIRROR_SHA256[spec.rel]:
        problems.append(f"SHA-256: expected {MIRROR_SHA256[spec.rel]} (the mirror's "
                        f"SHA256SUMS), got {digest}")
    df, content = _parse(data, spec)
    problems += content
    if problems:
        raise _integrity_error(
            spec, "read from the mirror RPP_DATA_DIR", path, problems,
            f"this is not the book's mirror copy. Restore it from the original mirror "
            f"(`sha256sum -c SHA256SUMS` in {mirror} lists the files that differ), or "
            f"unset RPP_DATA_DIR to download the original from UCI into the cache "
            f"({cache_dir()}). (If {mirror} holds a fresh UCI download rather than the "
            f"book's mirror, put it into the cache directory instead: cached files are "
            f"checked by content, not against the mirror's SHA-256.)")
    return df


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _from_cache(spec: _Spec, path: Path) -> pd.DataFrame:
    data = path.read_bytes()
    digest = _sha256(data)
    side = _sidecar(path)
    problems = []
    recorded = None
    if side.is_file():
        parts = side.read_text(encoding="utf-8", errors="replace").split()
        recorded = parts[0] if parts else "<empty>"
        if recorded != digest:
            problems.append(f"SHA-256: expected {recorded} (recorded in {side} when the "
                            f"file was first verified), got {digest} -- the file changed")
    df, content = _parse(data, spec)
    problems += content
    if problems:
        raise _integrity_error(
            spec, "read from the cache", path, problems,
            f"delete {path}" + (f" and {side}" if side.is_file() else "")
            + f" and call the loader again to re-download it from {spec.url}; or set "
            "RPP_DATA_DIR to a mirror directory with the same layout.")
    if recorded is None:  # hand-placed file: pin it now that it is verified
        try:
            _atomic_write(side, f"{digest}  {path.name}\n".encode())
        except OSError:
            pass
    return df


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _ways_to_get(spec: _Spec) -> str:
    """The two ways to provide a file by hand (used in error messages)."""
    target = cache_dir() / spec.folder
    nested = (" then unzip the student.zip it contains into the same folder,"
              if len(spec.members) > 1 else "")
    needed = ", ".join(r.split("/", 1)[1] for r in _SPECS if r.startswith(spec.folder + "/"))
    return (f"  1. set RPP_DATA_DIR to a mirror directory with the layout "
            f"{', '.join(_SPECS)} (the book's mirror is shared/data/uci; use an absolute "
            f"path), e.g. `export RPP_DATA_DIR=/path/to/shared/data/uci`; or\n"
            f"  2. download {spec.url} by hand and unzip it into {target},{nested} so that "
            f"{cache_dir() / spec.rel} exists (files needed there: {needed}).")


def _how_to_get(spec: _Spec) -> str:
    return "How to fix (either):\n" + _ways_to_get(spec)


def _download(spec: _Spec) -> bytes:
    req = urllib.request.Request(spec.url, headers={"User-Agent": "rpp-book data loader"})
    try:
        with urllib.request.urlopen(req, timeout=DOWNLOAD_TIMEOUT) as resp:
            return resp.read()
    except urllib.error.HTTPError as exc:
        reason = f"HTTP {exc.code} {exc.reason}"
        err = exc
    except (urllib.error.URLError, TimeoutError, OSError, http.client.HTTPException) as exc:
        reason = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
        err = exc
    raise DataUnavailableError(
        f"Could not download {spec.url} ({reason}); {cache_dir() / spec.rel} is not "
        f"cached and RPP_DATA_DIR is not set.\n{_how_to_get(spec)}",
        path=cache_dir() / spec.rel, url=spec.url) from err


def _extract(archive: bytes, members: tuple[str, ...], spec: _Spec) -> bytes:
    """Read a (possibly nested) member; zipfile checks each member's CRC-32."""
    data = archive
    for depth, member in enumerate(members):
        where = spec.url if depth == 0 else f"{members[depth - 1]} inside {spec.url}"
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                names = [n for n in zf.namelist()
                         if not n.startswith("__MACOSX/") and not n.endswith("/")]
                hits = [n for n in names if n == member] or \
                       [n for n in names if n.rsplit("/", 1)[-1] == member]
                if len(hits) != 1:
                    raise DataUnavailableError(
                        f"The archive {where} has no unique member {member!r} "
                        f"(members: {names[:20]}); the UCI archive layout may have "
                        f"changed.\n{_how_to_get(spec)}",
                        path=cache_dir() / spec.rel, url=spec.url)
                data = zf.read(hits[0])
        except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError) as exc:
            raise DataIntegrityError(
                f"The archive {where} is corrupted or incomplete ({exc}); {spec.rel} "
                f"was not cached.\nHow to fix: call the loader again to retry the download, or\n"
                + _ways_to_get(spec),
                path=cache_dir() / spec.rel, problems=[str(exc)]) from exc
    return data


def _download_and_cache(spec: _Spec, wanted: Iterable[str]) -> dict[str, pd.DataFrame]:
    """Download ``spec``'s archive; verify and cache its files that are not cached.

    Returns the verified frames of the files it cached. Raises if ``spec`` itself
    fails; a sibling that fails is not cached (it is re-downloaded when needed).
    """
    archive = _download(spec)
    cache = cache_dir()
    out: dict[str, pd.DataFrame] = {}
    failure: Exception | None = None
    siblings = [s for s in _SPECS.values() if s.folder == spec.folder
                and (s.rel == spec.rel or not (cache / s.rel).is_file())]
    for sib in siblings:
        try:
            data = _extract(archive, sib.members, sib)
        except (DataIntegrityError, DataUnavailableError) as exc:
            if sib.rel == spec.rel:
                failure = exc
            continue
        df, problems = _parse(data, sib)
        if problems:
            if sib.rel == spec.rel:
                failure = _integrity_error(
                    sib, f"extracted from the download of {sib.url}", cache / sib.rel,
                    problems,
                    f"it was not cached. Try again later; if it keeps failing, the archive "
                    f"on UCI may have changed: set RPP_DATA_DIR to a mirror directory with "
                    f"the book's layout (e.g. shared/data/uci).")
            continue
        path = cache / sib.rel
        try:
            _atomic_write(path, data)
            _atomic_write(_sidecar(path), f"{_sha256(data)}  {path.name}\n".encode())
        except OSError as exc:
            raise DataUnavailableError(
                f"Cannot write the downloaded file to {path} ({exc}).\nHow to fix: set "
                f"RPP_CACHE_DIR to a writable directory, or set RPP_DATA_DIR to a mirror "
                f"directory.", path=path, url=sib.url) from exc
        if sib.rel in wanted or sib.rel == spec.rel:
            out[sib.rel] = df
    if failure is not None:  # raised after the intact siblings were cached
        raise failure
    return out


def _load(rels: Sequence[str]) -> dict[str, pd.DataFrame]:
    """Locate, verify and parse the files ``rels`` (paths in the mirror layout)."""
    mirror = _mirror_dir()
    out: dict[str, pd.DataFrame] = {}
    for rel in rels:
        if rel in out:
            continue
        spec = _SPECS[rel]
        if mirror is not None:
            out[rel] = _from_mirror(spec, mirror)
            continue
        path = cache_dir() / rel
        if path.is_file():
            out[rel] = _from_cache(spec, path)
        else:
            out.update(_download_and_cache(spec, wanted=[r for r in rels if r not in out]))
    return out


# --------------------------------------------------------------------------- public API
def load_adult(split: str = "both") -> pd.DataFrame:
    """Load the UCI Adult (Census Income) data, verified.

    Reads ``adult/adult.data`` (training part, 32,561 rows) and/or
    ``adult/adult.test`` (test part, 16,281 rows; its first line, the
    ``|1x3 Cross validator`` comment, is skipped) from ``RPP_DATA_DIR`` or the
    cache (downloading https://archive.ics.uci.edu/static/public/2/adult.zip on
    first use); see the module docstring for sources and verification.

    Parameters
    ----------
    split : {"both", "train", "test"}, default "both"
        Which part to load. ``"both"`` concatenates train then test and adds a
        categorical ``split`` column with values ``"train"``/``"test"``.

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
        If ``split`` is not one of the allowed values.
    DataUnavailableError
        If a file is neither in the mirror/cache nor downloadable.
    DataIntegrityError
        If a file fails verification.

    Notes
    -----
    Dataset: B. Becker and R. Kohavi (1996). *Adult* [Dataset]. UCI Machine
    Learning Repository. https://doi.org/10.24432/C5XW20 (CC BY 4.0; bib key
    ``uci_adult``).

    Examples
    --------
    >>> df = load_adult("train")                       # doctest: +SKIP
    >>> df["race"].value_counts()["White"]             # doctest: +SKIP
    27816
    """
    parts = {"train": ["adult/adult.data"], "test": ["adult/adult.test"],
             "both": ["adult/adult.data", "adult/adult.test"]}
    if split not in parts:
        raise ValueError(f"split must be one of 'both', 'train', 'test', got {split!r}")
    frames = _load(parts[split])
    if split != "both":
        return frames[parts[split][0]]
    train, test = frames["adult/adult.data"], frames["adult/adult.test"]
    df = pd.concat([train, test], ignore_index=True)
    df["split"] = pd.Categorical(["train"] * len(train) + ["test"] * len(test),
                                 categories=["train", "test"])
    return df


def load_heart_disease(sources: str | Sequence[str] = "cleveland") -> pd.DataFrame:
    """Load the UCI Heart Disease data (the processed 14-attribute files), verified.

    Reads ``heart-disease/processed.<source>.data`` (Cleveland 303, Hungarian 294,
    Switzerland 123, VA Long Beach 200 rows; no header; 14 columns) from
    ``RPP_DATA_DIR`` or the cache (downloading
    https://archive.ics.uci.edu/static/public/45/heart+disease.zip on first use).

    Parameters
    ----------
    sources : {"cleveland", "hungarian", "switzerland", "va", "all"} or sequence of str
        One source, ``"all"`` (the four, in that order, 920 rows) or a list of
        distinct source names; rows are concatenated in the given order.

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
        If ``sources`` names an unknown source, repeats one or is empty.
    DataUnavailableError
        If a file is neither in the mirror/cache nor downloadable.
    DataIntegrityError
        If a file fails verification.

    Notes
    -----
    Dataset: A. Janosi, W. Steinbrunn, M. Pfisterer and R. Detrano (1989).
    *Heart Disease* [Dataset]. UCI Machine Learning Repository.
    https://doi.org/10.24432/C52P4X (CC BY 4.0; bib key ``uci_heart``).
    """
    if isinstance(sources, str):
        chosen = list(HEART_SOURCES) if sources == "all" else [sources]
    else:
        chosen = list(sources)
    allowed = ("all",) + HEART_SOURCES
    if not chosen:
        raise ValueError(f"sources must name at least one of {HEART_SOURCES}, got {sources!r}")
    for s in chosen:
        if not isinstance(s, str) or s not in HEART_SOURCES:
            raise ValueError(f"sources must be one of {allowed} or a list of "
                             f"{HEART_SOURCES}, got {s!r}")
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"sources must not repeat a source, got {sources!r}")
    rels = [f"heart-disease/processed.{s}.data" for s in chosen]
    frames = _load(rels)
    df = pd.concat([frames[r] for r in rels], ignore_index=True)
    df["source"] = pd.Categorical(
        np.repeat(chosen, [len(frames[r]) for r in rels]), categories=list(HEART_SOURCES))
    return df


def load_student(subject: str = "mat") -> pd.DataFrame:
    """Load the UCI Student Performance data, verified.

    Reads ``student-performance/student-mat.csv`` (mathematics, 395 rows) and/or
    ``student-por.csv`` (Portuguese, 649 rows); ``;``-separated with a header row
    and 33 columns. Source: ``RPP_DATA_DIR`` or the cache (downloading
    https://archive.ics.uci.edu/static/public/320/student+performance.zip, which
    holds a nested ``student.zip``, on first use).

    Parameters
    ----------
    subject : {"mat", "por", "both"}, default "mat"
        Which course. ``"both"`` concatenates mat then por and adds a categorical
        ``subject`` column. (About 382 students appear in both files; see
        student.txt.)

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
        If ``subject`` is not one of the allowed values.
    DataUnavailableError
        If a file is neither in the mirror/cache nor downloadable.
    DataIntegrityError
        If a file fails verification.

    Notes
    -----
    Dataset: P. Cortez (2008). *Student Performance* [Dataset]. UCI Machine
    Learning Repository. https://doi.org/10.24432/C5TG7T (CC BY 4.0; bib key
    ``uci_student``).
    """
    parts = {"mat": ["mat"], "por": ["por"], "both": ["mat", "por"]}
    if subject not in parts:
        raise ValueError(f"subject must be one of 'mat', 'por', 'both', got {subject!r}")
    rels = [f"student-performance/student-{s}.csv" for s in parts[subject]]
    frames = _load(rels)
    if subject != "both":
        return frames[rels[0]]
    df = pd.concat([frames[r] for r in rels], ignore_index=True)
    df["subject"] = pd.Categorical(
        np.repeat(parts[subject], [len(frames[r]) for r in rels]), categories=["mat", "por"])
    return df
