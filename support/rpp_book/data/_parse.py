"""Parse one UCI data file and check its content against its :class:`~._specs.Spec`."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd

from ._specs import MISSING, Col, Spec


def _examples(values: pd.Series, lines: np.ndarray, mask: np.ndarray, k: int = 3) -> str:
    idx = np.flatnonzero(mask)[:k]
    return ", ".join(f"line {lines[i]}: {values.iat[i]!r}" for i in idx)


def _header_problems(lines: list[str], spec: Spec) -> tuple[int, list[str]]:
    """Check the comment line or header line; return (first data line index, problems)."""
    names = [c.name for c in spec.columns]
    problems: list[str] = []
    if spec.first_line is not None:
        first = lines[0].strip() if lines else "<empty file>"
        if first != spec.first_line:
            problems.append(f"first line: expected {spec.first_line!r}, got {first[:60]!r}")
        return 1, problems
    if spec.header:
        header = next(csv.reader(lines[:1], delimiter=spec.sep), [])
        if [g.strip() for g in header] != names:
            problems.append(
                f"header line: expected the {len(names)} columns {spec.sep.join(names)!r}, "
                f"got {lines[0][:80] if lines else '<empty file>'!r}"
            )
        return 1, problems
    return 0, problems


def _rows(lines: list[str], start: int, spec: Spec) -> tuple[list[list[str]], list[int], list[str]]:
    """Split the data lines into fields; return (rows, their line numbers, problems)."""
    names = [c.name for c in spec.columns]
    ncol = len(names)
    rows: list[list[str]] = []
    linenos: list[int] = []
    problems: list[str] = []
    bad_width: list[str] = []
    n_bad_width = n_empty = 0
    reader = csv.reader(lines[start:], delimiter=spec.sep, skipinitialspace=True)
    for i, raw in enumerate(reader, start=start + 1):
        if not raw or (len(raw) == 1 and not raw[0].strip()):
            continue  # blank line (adult files end with one)
        fields = [f.strip() for f in raw]
        if len(fields) != ncol:
            n_bad_width += 1
            if len(bad_width) < 3:
                bad_width.append(f"line {i} has {len(fields)}")
            continue
        if "" in fields:
            n_empty += 1
            if n_empty == 1:
                problems.append(
                    f"line {i}: empty field in column {names[fields.index('')]!r} (truncated or corrupted?)"
                )
        rows.append(fields)
        linenos.append(i)
    if n_bad_width:
        sep_name = {",": "comma", ";": "semicolon"}[spec.sep]
        problems.append(
            f"fields per line: expected {ncol} {sep_name}-separated fields, "
            f"{n_bad_width} line(s) differ ({'; '.join(bad_width)}) -- truncated or corrupted lines"
        )
    if n_empty > 1:
        problems.append(f"{n_empty} lines have empty fields")
    if len(rows) != spec.n_rows:
        hint = " (file truncated or lines lost?)" if len(rows) < spec.n_rows else " (extra lines?)"
        problems.append(f"rows: expected {spec.n_rows} data rows, got {len(rows)}{hint}")
    return rows, linenos, problems


def _column(col: Col, s: pd.Series, lines: np.ndarray) -> tuple[object, list[str]]:
    """Convert and check one column; return (values or None, problems)."""
    problems: list[str] = []
    miss = (s == MISSING).to_numpy()
    if miss.any() and not col.missing_ok:
        problems.append(
            f"column {col.name!r}: {int(miss.sum())} missing value(s) {MISSING!r}, none "
            f"expected ({_examples(s, lines, miss)})"
        )
    if col.kind == "cat":
        allowed = tuple(col.raw_map) if col.raw_map else col.categories
        bad = ~(s.isin(allowed).to_numpy() | miss)
        if bad.any():
            problems.append(
                f"column {col.name!r}: {int(bad.sum())} value(s) outside the documented "
                f"categories {list(allowed)} ({_examples(s, lines, bad)})"
            )
            return None, problems
        vals = s.map(col.raw_map) if col.raw_map else s
        return pd.Categorical(vals.where(~miss, None), categories=col.categories), problems
    numv = pd.to_numeric(s.where(~miss, None), errors="coerce").astype("float64").to_numpy()
    bad = np.isnan(numv) & ~miss
    if bad.any():
        problems.append(f"column {col.name!r}: {int(bad.sum())} value(s) are not numbers ({_examples(s, lines, bad)})")
        return None, problems
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
        problems.append(f"column {col.name!r}: {int(bad.sum())} value(s) outside {what} ({_examples(s, lines, bad)})")
        return None, problems
    return (numv.astype("int64") if col.kind == "int" and not miss.any() else numv), problems


def parse(data: bytes, spec: Spec) -> tuple[pd.DataFrame | None, list[str]]:
    """Parse and content-check one file; return (frame or None, problems)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [
            f"not valid UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 8]!r}); the file is corrupted"
        ]
    lines = text.splitlines()
    start, problems = _header_problems(lines, spec)
    rows, linenos, row_problems = _rows(lines, start, spec)
    problems += row_problems
    if problems:  # the table is malformed: the value checks below would only add noise
        return None, problems
    names = [c.name for c in spec.columns]
    raw = pd.DataFrame(rows, columns=names, dtype=object)
    lines_arr = np.asarray(linenos)
    out = {}
    for col in spec.columns:
        values, col_problems = _column(col, raw[col.name], lines_arr)
        problems += col_problems
        if values is not None:
            out[col.name] = values
    if problems:
        return None, problems
    df = pd.DataFrame(out, columns=names)
    return df, check_reference(df, spec)


def check_reference(df: pd.DataFrame, spec: Spec) -> list[str]:
    """Return the reference statistics of ``spec`` that ``df`` does not reproduce (one line each)."""
    problems = []
    for col, table in spec.counts.items():
        counts = {k: int((df[col] == k).sum()) for k in table}
        if counts != dict(table):
            problems.append(f"counts of {col!r}: expected {dict(table)}, got {counts}")
    for col, ref in spec.means.items():
        mean = float(df[col].mean())
        if abs(mean - ref) > 5e-5:  # references are given to 4 decimals
            problems.append(f"mean of {col!r}: expected {ref:.4f}, got {mean:.4f}")
    if spec.complete_rows is not None:
        complete = int(df.notna().all(axis=1).sum())
        if complete != spec.complete_rows:
            problems.append(f"rows without missing values: expected {spec.complete_rows}, got {complete}")
    for check in spec.extra:
        problems.extend(check(df))
    return problems
