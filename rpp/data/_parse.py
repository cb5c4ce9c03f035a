"""Parse one UCI data file and check its content against its :class:`~._specs.Spec`."""
from __future__ import annotations

import csv

import numpy as np
import pandas as pd

from ._specs import MISSING, Spec

def _examples(values: pd.Series, lines: np.ndarray, mask: np.ndarray, k: int = 3) -> str:
    idx = np.flatnonzero(mask)[:k]
    return ", ".join(f"line {lines[i]}: {values.iat[i]!r}" for i in idx)


def parse(data: bytes, spec: Spec) -> tuple[pd.DataFrame | None, list[str]]:
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
        miss = (s == MISSING).to_numpy()
        if miss.any() and not col.missing_ok:
            problems.append(f"column {col.name!r}: {int(miss.sum())} missing value(s) "
                            f"{MISSING!r}, none expected ({_examples(s, lines_arr, miss)})")
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
    return df, check_reference(df, spec)


def check_reference(df: pd.DataFrame, spec: Spec) -> list[str]:
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


