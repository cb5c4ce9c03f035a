"""The oracle suite's agreement table: every comparison a test makes is recorded and written at the end.

Each test calls ``oracle.check(key, **inputs)`` (the fixture below): the comparison of
``oracle_cases.CASES[key]`` is evaluated, recorded under its (function, oracle, tolerance) row
and asserted.  At the end of the session the table -- per row: inputs tried, inputs that
failed, the maximum difference (``oracle_cases.metric``) and the largest share of the tolerance used
(``oracle_cases.tolerance_used``; above 1 fails) -- is written to
``_build/oracles/agreement-<tier>.json`` and ``.md`` under the repository root (or the directory
named by ``RPP_ORACLE_DIR``), ``<tier>`` being ``fast`` (``-m "not slow"``), ``slow``
(``-m slow ...``) or ``all``.  Under pytest-xdist each worker sends its rows
to the controller, which merges them; a run that selects no oracle test writes nothing.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import oracle_cases as oc

_ROWS: dict[str, dict] = {}


def _row(key: str, label: str) -> dict:
    case = oc.CASES[key]
    name = f"{key}{'/' + label if label else ''}"
    if name not in _ROWS:
        _ROWS[name] = {
            "key": name,
            "function": case.function + (f" [{label}]" if label else ""),
            "oracle": case.oracle,
            "tolerance": case.tolerance,
            "inputs": 0,
            "failed": 0,
            "max_difference": -math.inf,
            "max_tolerance_used": 0.0,
        }
    return _ROWS[name]


class Oracle:
    """``check(key, label="", **inputs)``: evaluate, record and assert one comparison."""

    def check(self, key: str, label: str = "", **inputs):
        out = oc.CASES[key].check(**inputs)
        ok = oc.passed(key, out)
        row = _row(key, label)
        row["inputs"] += 1
        row["failed"] += not ok
        m = oc.metric(key, out)
        row["max_difference"] = max(row["max_difference"], m if not math.isnan(m) else math.inf)
        row["max_tolerance_used"] = max(row["max_tolerance_used"], oc.tolerance_used(key, out))
        assert ok, (
            f"{oc.CASES[key].function} vs {oc.CASES[key].oracle} at {inputs}: rpp {out.rpp!r}, "
            f"oracle {out.oracle!r}, difference {out.diff:.3e} > allowed {out.allowed:.3e}"
        )
        return out


@pytest.fixture
def oracle() -> Oracle:
    return Oracle()


def _merge(into: dict, rows: dict) -> None:
    for name, r in rows.items():
        if name not in into:
            into[name] = dict(r)
            continue
        t = into[name]
        t["inputs"] += r["inputs"]
        t["failed"] += r["failed"]
        t["max_difference"] = max(t["max_difference"], r["max_difference"])
        t["max_tolerance_used"] = max(t["max_tolerance_used"], r["max_tolerance_used"])


_FROM_WORKERS: dict[str, dict] = {}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node):
    rows = getattr(node, "workeroutput", {}).get("rpp_oracle_rows")
    if rows:
        _merge(_FROM_WORKERS, json.loads(rows))


def _fmt(x: float) -> str:
    return "inf" if x == math.inf else ("-" if x == -math.inf else f"{x:.2e}")


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    if hasattr(config, "workerinput"):  # an xdist worker: hand the rows to the controller
        config.workeroutput["rpp_oracle_rows"] = json.dumps(_ROWS, default=str)
        return
    rows: dict[str, dict] = {}
    _merge(rows, _ROWS)
    _merge(rows, _FROM_WORKERS)
    if not rows:
        return
    out_dir = Path(os.environ.get("RPP_ORACLE_DIR") or Path(config.rootpath) / "_build" / "oracles")
    out_dir.mkdir(parents=True, exist_ok=True)
    # `make test` runs the fast tier (-m "not slow") and later the slow one (-m "slow or notebook"): one file each
    markexpr = (config.getoption("markexpr", "") or "").replace(" ", "")
    tier = "fast" if "notslow" in markexpr else ("slow" if "slow" in markexpr else "all")
    table = sorted(rows.values(), key=lambda r: r["key"])
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    (out_dir / f"agreement-{tier}.json").write_text(
        json.dumps({"written": stamp, "exitstatus": int(exitstatus), "rows": table}, indent=1, default=str) + "\n"
    )
    lines = [
        f"Oracle agreement table ({tier} tier), written {stamp} (pytest exit status {int(exitstatus)})",
        "",
        "| function | oracle | inputs | failed | max difference | max share of tolerance | tolerance |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {r['function']} | {r['oracle']} | {r['inputs']} | {r['failed']} | {_fmt(r['max_difference'])} | "
        f"{_fmt(r['max_tolerance_used'])} | {r['tolerance']} |"
        for r in table
    ]
    (out_dir / f"agreement-{tier}.md").write_text("\n".join(lines) + "\n")
