"""What the three UCI data files look like: columns, categories, ranges, reference statistics.

One :class:`Spec` per file, with its path in the data layout, its member path inside the UCI
archive, its columns (:class:`Col`) and the reference statistics that the loader checks
(row counts, category counts and means from the UCI ``.names`` files and the mirror's README).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: Original archives on the UCI repository, by mirror folder.
ARCHIVE_URLS: dict[str, str] = {
    "adult": "https://archive.ics.uci.edu/static/public/2/adult.zip",
    "heart-disease": "https://archive.ics.uci.edu/static/public/45/heart+disease.zip",
    "student-performance": "https://archive.ics.uci.edu/static/public/320/student+performance.zip",
}

#: SHA-256 of every data file as shipped in ``support/rpp_book/data/uci`` (of the uncompressed bytes; the
#: same digests as ``support/rpp_book/data/uci/SHA256SUMS``). Enforced for the packaged copy, for a mirror in
#: ``RPP_DATA_DIR``, and for downloads and cached copies of every file except those in
#: :data:`REWRITTEN`.
SHA256: dict[str, str] = {
    "adult/adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult/adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    "heart-disease/processed.cleveland.data": "a74b7efa387bc9d108d7d0115d831fe9b414b29ae7124f331b622b4efa0427c8",
    "heart-disease/processed.hungarian.data": "d1ad108f785768cd3d7e82dc522e6f5a61eea93cccfb3a46ee8076f73fc3d796",
    "heart-disease/processed.switzerland.data": "834a405ccf5b66ab4056bb77794adc8df0b7125186454c0a1d002d33c6c3b314",
    "heart-disease/processed.va.data": "e7c93d8d0d2acdadfa4c5e8de768e2191e7f618b952e29623f1f0d5949ff6b8f",
    "student-performance/student-mat.csv": "e47f9ee225e1ee6e69b7564e6dac7123e80b8486677fe111f351964cef5dec80",
    "student-performance/student-por.csv": "a7594a11d7771c0efe1a740824e0e833da9c4cad07c39a9766a874575563fb3f",
}

#: Files whose packaged bytes are not UCI's original bytes. ``processed.hungarian.data`` was
#: recovered from a ``;``-separated copy and rewritten with ``,`` separators (the values are
#: unchanged, see ``support/rpp_book/data/uci/README.md``), so a genuine UCI download cannot match its
#: SHA-256: a download or cached copy of it is verified by the content checks only.
REWRITTEN: frozenset[str] = frozenset({"heart-disease/processed.hungarian.data"})

#: The token that marks a missing value in the UCI files.
MISSING = "?"


@dataclass(frozen=True)
class Col:
    """One column: how to parse and check it."""

    name: str
    kind: str  # "cat", "int" (never missing) or "float"
    categories: tuple[str, ...] = ()  # allowed categories ("cat")
    raw_map: Mapping[str, str] | None = None  # raw token -> category (replaces the check)
    lo: float = -np.inf  # allowed numeric range
    hi: float = np.inf
    codes: tuple[float, ...] | None = None  # allowed numeric codes
    integral: bool = False  # numeric values must be whole numbers
    missing_ok: bool = False  # "?" allowed


@dataclass(frozen=True)
class Spec:
    rel: str  # path inside the mirror / cache
    members: tuple[str, ...]  # path inside the UCI archive (nested zips)
    sep: str
    columns: tuple[Col, ...]
    n_rows: int
    header: bool = False  # first line holds the column names
    first_line: str | None = None  # a comment line to check and skip
    counts: Mapping[str, Mapping[object, int]] = field(default_factory=dict)
    means: Mapping[str, float] = field(default_factory=dict)  # to 4 decimals
    complete_rows: int | None = None  # rows without any missing value
    extra: tuple[Callable[[pd.DataFrame], list[str]], ...] = ()

    @property
    def folder(self) -> str:
        return self.rel.split("/")[0]

    @property
    def url(self) -> str:
        return ARCHIVE_URLS[self.folder]


# Adult: column names and categories as listed in adult.names.
_ADULT_CATS = {
    "workclass": (
        "Private",
        "Self-emp-not-inc",
        "Self-emp-inc",
        "Federal-gov",
        "Local-gov",
        "State-gov",
        "Without-pay",
        "Never-worked",
    ),
    "education": (
        "Bachelors",
        "Some-college",
        "11th",
        "HS-grad",
        "Prof-school",
        "Assoc-acdm",
        "Assoc-voc",
        "9th",
        "7th-8th",
        "12th",
        "Masters",
        "1st-4th",
        "10th",
        "Doctorate",
        "5th-6th",
        "Preschool",
    ),
    "marital-status": (
        "Married-civ-spouse",
        "Divorced",
        "Never-married",
        "Separated",
        "Widowed",
        "Married-spouse-absent",
        "Married-AF-spouse",
    ),
    "occupation": (
        "Tech-support",
        "Craft-repair",
        "Other-service",
        "Sales",
        "Exec-managerial",
        "Prof-specialty",
        "Handlers-cleaners",
        "Machine-op-inspct",
        "Adm-clerical",
        "Farming-fishing",
        "Transport-moving",
        "Priv-house-serv",
        "Protective-serv",
        "Armed-Forces",
    ),
    "relationship": ("Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"),
    "race": ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
    "sex": ("Female", "Male"),
    "native-country": (
        "United-States",
        "Cambodia",
        "England",
        "Puerto-Rico",
        "Canada",
        "Germany",
        "Outlying-US(Guam-USVI-etc)",
        "India",
        "Japan",
        "Greece",
        "South",
        "China",
        "Cuba",
        "Iran",
        "Honduras",
        "Philippines",
        "Italy",
        "Poland",
        "Jamaica",
        "Vietnam",
        "Mexico",
        "Portugal",
        "Ireland",
        "France",
        "Dominican-Republic",
        "Laos",
        "Ecuador",
        "Taiwan",
        "Haiti",
        "Columbia",
        "Hungary",
        "Guatemala",
        "Nicaragua",
        "Scotland",
        "Thailand",
        "Yugoslavia",
        "El-Salvador",
        "Trinadad&Tobago",
        "Peru",
        "Hong",
        "Holand-Netherlands",
    ),
    "income": ("<=50K", ">50K"),
}

#: Adult column names, in file order (from adult.names; ``income`` is the label).
ADULT_COLUMNS: tuple[str, ...] = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)

# education -> education-num (the census coding; one-to-one in both files).
_ADULT_EDUCATION_NUM = {
    "Preschool": 1,
    "1st-4th": 2,
    "5th-6th": 3,
    "7th-8th": 4,
    "9th": 5,
    "10th": 6,
    "11th": 7,
    "12th": 8,
    "HS-grad": 9,
    "Some-college": 10,
    "Assoc-voc": 11,
    "Assoc-acdm": 12,
    "Bachelors": 13,
    "Masters": 14,
    "Prof-school": 15,
    "Doctorate": 16,
}


def _adult_columns(test: bool) -> tuple[Col, ...]:
    num = {  # sanity ranges (the files: age 17-90, hours 1-99, capital-gain <= 99999)
        "age": (0, 120),
        "fnlwgt": (1, 1e7),
        "education-num": (1, 16),
        "capital-gain": (0, 99999),
        "capital-loss": (0, 99999),
        "hours-per-week": (0, 168),
    }
    cols = []
    for name in ADULT_COLUMNS:
        if name in num:
            lo, hi = num[name]
            cols.append(Col(name, "int", lo=lo, hi=hi, integral=True))
        elif name == "income" and test:  # adult.test labels end with "."
            cols.append(Col(name, "cat", _ADULT_CATS[name], raw_map={"<=50K.": "<=50K", ">50K.": ">50K"}))
        else:
            cols.append(
                Col(name, "cat", _ADULT_CATS[name], missing_ok=name in ("workclass", "occupation", "native-country"))
            )
    return tuple(cols)


def _check_adult_education(df: pd.DataFrame) -> list[str]:
    expected = df["education"].map(_ADULT_EDUCATION_NUM).astype("int64")
    bad = np.flatnonzero(expected.to_numpy() != df["education-num"].to_numpy())
    if bad.size == 0:
        return []
    ex = ", ".join(
        f"row {i + 1}: education={df['education'].iat[i]!s} but education-num={df['education-num'].iat[i]}"
        for i in bad[:3]
    )
    return [
        f"education and education-num disagree in {bad.size} rows "
        f"(expected the census coding Preschool=1 ... Doctorate=16; {ex})"
    ]


#: Heart Disease column names (heart-disease.names, the 14 attributes used).
HEART_COLUMNS: tuple[str, ...] = (
    "age",
    "sex",
    "cp",
    "trestbps",
    "chol",
    "fbs",
    "restecg",
    "thalach",
    "exang",
    "oldpeak",
    "slope",
    "ca",
    "thal",
    "num",
)
#: The four Heart Disease sources (files ``processed.<source>.data``).
HEART_SOURCES: tuple[str, ...] = ("cleveland", "hungarian", "switzerland", "va")

# Coded attributes per heart-disease.names; continuous ones get sanity ranges.
# trestbps and chol contain 0 in some sources (an undocumented missing code, kept
# as is). age, sex, cp and num are never missing, so they are int64; the others
# can be missing ("?") in some source and are float64 with NaN.
_HEART_COLS = (
    Col("age", "int", lo=0, hi=120, integral=True),
    Col("sex", "int", codes=(0, 1)),
    Col("cp", "int", codes=(1, 2, 3, 4)),
    Col("trestbps", "float", lo=0, hi=300, missing_ok=True),
    Col("chol", "float", lo=0, hi=1000, missing_ok=True),
    Col("fbs", "float", codes=(0, 1), missing_ok=True),
    Col("restecg", "float", codes=(0, 1, 2), missing_ok=True),
    Col("thalach", "float", lo=0, hi=300, missing_ok=True),
    Col("exang", "float", codes=(0, 1), missing_ok=True),
    Col("oldpeak", "float", lo=-10, hi=10, missing_ok=True),
    Col("slope", "float", codes=(1, 2, 3), missing_ok=True),
    Col("ca", "float", codes=(0, 1, 2, 3), missing_ok=True),
    Col("thal", "float", codes=(3, 6, 7), missing_ok=True),
    Col("num", "int", codes=(0, 1, 2, 3, 4)),
)

#: Student Performance column names (student.txt; identical in both files).
STUDENT_COLUMNS: tuple[str, ...] = (
    "school",
    "sex",
    "age",
    "address",
    "famsize",
    "Pstatus",
    "Medu",
    "Fedu",
    "Mjob",
    "Fjob",
    "reason",
    "guardian",
    "traveltime",
    "studytime",
    "failures",
    "schoolsup",
    "famsup",
    "paid",
    "activities",
    "nursery",
    "higher",
    "internet",
    "romantic",
    "famrel",
    "freetime",
    "goout",
    "Dalc",
    "Walc",
    "health",
    "absences",
    "G1",
    "G2",
    "G3",
)

_JOBS = ("teacher", "health", "services", "at_home", "other")
_STUDENT_CATS = {
    "school": ("GP", "MS"),
    "sex": ("F", "M"),
    "address": ("U", "R"),
    "famsize": ("LE3", "GT3"),
    "Pstatus": ("T", "A"),
    "Mjob": _JOBS,
    "Fjob": _JOBS,
    "reason": ("home", "reputation", "course", "other"),
    "guardian": ("mother", "father", "other"),
    **{
        c: ("no", "yes")
        for c in ("schoolsup", "famsup", "paid", "activities", "nursery", "higher", "internet", "romantic")
    },
}
_STUDENT_RANGES = {  # documented ranges in student.txt
    "age": (15, 22),
    "Medu": (0, 4),
    "Fedu": (0, 4),
    "traveltime": (1, 4),
    "studytime": (1, 4),
    "failures": (0, 4),
    "famrel": (1, 5),
    "freetime": (1, 5),
    "goout": (1, 5),
    "Dalc": (1, 5),
    "Walc": (1, 5),
    "health": (1, 5),
    "absences": (0, 93),
    "G1": (0, 20),
    "G2": (0, 20),
    "G3": (0, 20),
}
_STUDENT_COLS = tuple(
    Col(c, "cat", _STUDENT_CATS[c])
    if c in _STUDENT_CATS
    else Col(c, "int", lo=_STUDENT_RANGES[c][0], hi=_STUDENT_RANGES[c][1], integral=True)
    for c in STUDENT_COLUMNS
)

# Reference statistics: the mirror README (Adult race/relationship counts and mean
# education-num; Cleveland slope and fbs counts; student G3 means, schoolsup and
# guardian counts), adult.names (rows without unknowns: train 30162, test 15060) and
# heart-disease.names (class distribution of num; processed.hungarian.data codes num
# as 0/1, so its 37+26+28+15 = 106 diseased patients all have num = 1).
SPECS: dict[str, Spec] = {
    s.rel: s
    for s in (
        Spec(
            "adult/adult.data",
            ("adult.data",),
            ",",
            _adult_columns(test=False),
            32561,
            counts={
                "race": {
                    "White": 27816,
                    "Black": 3124,
                    "Asian-Pac-Islander": 1039,
                    "Amer-Indian-Eskimo": 311,
                    "Other": 271,
                },
                "relationship": {"Husband": 13193, "Not-in-family": 8305},
            },
            means={"education-num": 10.0807},
            complete_rows=30162,
            extra=(_check_adult_education,),
        ),
        Spec(
            "adult/adult.test",
            ("adult.test",),
            ",",
            _adult_columns(test=True),
            16281,
            first_line="|1x3 Cross validator",
            complete_rows=15060,
            extra=(_check_adult_education,),
        ),
        Spec(
            "heart-disease/processed.cleveland.data",
            ("processed.cleveland.data",),
            ",",
            _HEART_COLS,
            303,
            counts={
                "slope": {1: 142, 2: 140, 3: 21},
                "fbs": {0: 258, 1: 45},
                "num": {0: 164, 1: 55, 2: 36, 3: 35, 4: 13},
            },
        ),
        Spec(
            "heart-disease/processed.hungarian.data",
            ("processed.hungarian.data",),
            ",",
            _HEART_COLS,
            294,
            counts={"num": {0: 188, 1: 106}},
        ),
        Spec(
            "heart-disease/processed.switzerland.data",
            ("processed.switzerland.data",),
            ",",
            _HEART_COLS,
            123,
            counts={"num": {0: 8, 1: 48, 2: 32, 3: 30, 4: 5}},
        ),
        Spec(
            "heart-disease/processed.va.data",
            ("processed.va.data",),
            ",",
            _HEART_COLS,
            200,
            counts={"num": {0: 51, 1: 56, 2: 41, 3: 42, 4: 10}},
        ),
        Spec(
            "student-performance/student-mat.csv",
            ("student.zip", "student-mat.csv"),
            ";",
            _STUDENT_COLS,
            395,
            header=True,
            means={"G3": 10.4152},
            counts={"schoolsup": {"no": 344, "yes": 51}, "guardian": {"mother": 273, "father": 90, "other": 32}},
        ),
        Spec(
            "student-performance/student-por.csv",
            ("student.zip", "student-por.csv"),
            ";",
            _STUDENT_COLS,
            649,
            header=True,
            means={"G3": 11.9060},
            counts={"schoolsup": {"no": 581, "yes": 68}, "guardian": {"mother": 455, "father": 153, "other": 41}},
        ),
    )
}
