"""The benchmark suite's runner, table and regression gate (issue #38).

    python tools/bench_gate.py                      # every case (make bench): the table
    python tools/bench_gate.py --gated --check tests/benchmarks/baseline.json   # make bench-check (CI)
    python tools/bench_gate.py --gated --write-baseline tests/benchmarks/baseline.json   # make bench-baseline

The cases are in ``tests/benchmarks/cases.py``.  Each is timed best of its ``repeat`` runs, and
divided by the *reference kernel* timed right before it (a fixed ``np.sort`` of 2e6 floats and a
fixed pure-Python float loop, best of 3): shared, noisy machines slow both alike, so ``seconds /
reference`` moves less than seconds, also when the load changes during the run.

The gate compares each gated case's ratio with the baseline's: a case slower than ``--factor``
(default 1.5) times its baseline ratio is measured once more (a second best-of-k, against a
re-measured reference), and fails the gate, by name, only if it is still that slow.  A gated case
missing from the baseline fails too: the baseline is written on purpose, by ``make
bench-baseline`` (the median of three whole runs), and committed for review.  Cases below ``--floor`` seconds (default 0.05 s,
e.g. the few ms of a lazy ``import rpp``) are compared only once they exceed the floor: a timer's
jitter is not a regression.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES_FILE = ROOT / "tests" / "benchmarks" / "cases.py"
FACTOR = 1.5
FLOOR_S = 0.05


def load_cases():
    """The module ``tests/benchmarks/cases.py`` (not a package: loaded from its path)."""
    spec = importlib.util.spec_from_file_location("rpp_bench_cases", CASES_FILE)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def reference_kernel() -> None:
    """The fixed workload every figure is divided by: a numpy sort and a Python float loop."""
    import numpy as np

    x = np.random.default_rng(0).random(2_000_000)
    np.sort(x)
    s = 0.0
    for i in range(300_000):
        s += math.sqrt(i) * 1.0000001
    if not s > 0:  # pragma: no cover - keeps the loop from being optimised away
        raise RuntimeError("reference kernel")


def best_of(fn, repeat: int, self_timed: bool = False) -> float:
    """Smallest wall time of ``repeat`` calls (or of the seconds they return, if self-timed)."""
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, float(out) if self_timed else time.perf_counter() - t0)
    return best


def run_case(c, self_timed: set[str]) -> float:
    """Best of ``c.repeat`` runs, each on inputs prepared afresh (untimed).

    rpp remembers recent work by the content of the priors' arrays (the merged supports, the
    bins, recent results): a second call on equal priors would time a cache, so the caches
    are emptied (``rpp.clear_caches``) before each timed call: it times what a user's first
    call costs.
    """
    import rpp

    best = math.inf
    for _ in range(c.repeat):
        call = c.prepare()
        rpp.clear_caches()
        best = min(best, best_of(call, 1, c.name in self_timed))
    return best


def machine() -> dict:
    import numpy as np

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count()
    return dict(
        python=platform.python_version(),
        numpy=np.__version__,
        cores=cores,
        load=[round(x, 2) for x in os.getloadavg()],
        platform=platform.platform(),
    )


def select(mod, only: list[str] | None = None, gated: bool = False, chapters: bool = True) -> list[str]:
    """Names of the cases of ``mod`` to run (``only``: these names, checked)."""
    known = [c.name for c in mod.CASES]
    if only is not None:
        unknown = sorted(set(only) - set(known))
        if unknown:
            raise SystemExit(f"unknown benchmark(s): {unknown}; known: {known}")
    return [
        c.name
        for c in mod.CASES
        if (only is None or c.name in only)
        and (not gated or c.gated)
        and (chapters or not c.name.startswith("chapter_"))
    ]


def measure(names: list[str], verbose: bool = True) -> dict:
    """Time the cases ``names``; return ``{"reference_s", "machine", "cases": {name: {...}}}``.

    The reference kernel is timed (best of 3) right before each case and the case's ratio is to
    that time: a load that changes during the run changes both.  ``reference_s`` is the median
    of those reference times.
    """
    mod = load_cases()
    cases = [c for c in mod.CASES if c.name in names]
    out: dict = {"machine": machine(), "cases": {}}
    refs = []
    for c in cases:
        ref = best_of(reference_kernel, 3)
        s = run_case(c, mod.SELF_TIMED)
        refs.append(ref)
        out["cases"][c.name] = dict(seconds=s, ratio=s / ref, reference_s=ref, gated=c.gated, what=c.what)
        if verbose:
            print(f"  {c.name:<42} {s:9.4f} s  (reference {ref:.4f} s)", file=sys.stderr, flush=True)
    out["reference_s"] = sorted(refs)[len(refs) // 2] if refs else best_of(reference_kernel, 3)
    return out


def compare(now: dict, base: dict, factor: float = FACTOR, floor: float = FLOOR_S) -> dict[str, str]:
    """Status of each case of ``now`` against ``base``: ``ok``, ``SLOWER`` (> factor), ``new``, ``not gated``.

    ``new``: a gated case the baseline lacks (the gate fails: write the baseline on purpose).
    """
    status = {}
    for name, row in now["cases"].items():
        if not row["gated"]:
            status[name] = "not gated"
        elif name not in base["cases"]:
            status[name] = "new"
        elif row["seconds"] > floor and row["ratio"] > factor * base["cases"][name]["ratio"]:
            status[name] = "SLOWER"
        else:
            status[name] = "ok"
    return status


def table(now: dict, base: dict | None = None, status: dict[str, str] | None = None) -> str:
    """The printed table: seconds, seconds / reference, the baseline's ratio and the change."""
    head = f"{'benchmark':<42} {'seconds':>9} {'/ref':>8}"
    if base is not None:
        head += f" {'base /ref':>9} {'change':>7}  status"
    lines = [head, "-" * len(head)]
    for name, row in now["cases"].items():
        line = f"{name:<42} {row['seconds']:9.4f} {row['ratio']:8.3f}"
        if base is not None:
            b = base["cases"].get(name)
            if b is None:
                line += f" {'-':>9} {'-':>7}"
            else:
                line += f" {b['ratio']:9.3f} {row['ratio'] / b['ratio']:6.2f}x"
            line += f"  {status[name]}"
        lines.append(line)
    m = now["machine"]
    lines.append(
        f"reference kernel {now['reference_s']:.4f} s (median over the cases of its best of 3 before each); "
        f"Python {m['python']}, "
        f"numpy {m['numpy']}, {m['cores']} cores, load {m['load']}"
    )
    return "\n".join(lines)


def write_baseline(names: list[str], first: dict, path: str, runs: int) -> None:
    """Write the median of ``runs`` whole runs (``first`` and ``runs - 1`` more) to ``path``."""
    every = [first] + [measure(names) for _ in range(runs - 1)]
    for n, row in first["cases"].items():
        for key in ("ratio", "seconds", "reference_s"):
            row[key] = statistics.median(r["cases"][n][key] for r in every)
    first["reference_s"] = statistics.median(r["reference_s"] for r in every)
    keep = {k: v for k, v in first.items() if k != "cases"}
    keep["cases"] = {
        n: {k: round(r[k], 5) for k in ("ratio", "seconds", "reference_s")} for n, r in first["cases"].items()
    }
    Path(path).write_text(json.dumps(keep, indent=1, sort_keys=True) + "\n")
    print(table(first))
    print(f"baseline written to {path} (median of {runs} runs): review and commit it")


def check(now: dict, path: str, factor: float, floor: float) -> int:
    """Compare ``now`` with the baseline at ``path`` (re-measuring the slow cases once); 1 if the gate fails."""
    base = json.loads(Path(path).read_text())
    status = compare(now, base, factor, floor)
    again = [n for n, s in status.items() if s == "SLOWER"]
    if again:  # a noisy machine: measure the slow ones once more before failing
        print(f"re-measuring {again}", file=sys.stderr)
        second = measure(again)
        for n in again:
            if second["cases"][n]["ratio"] < now["cases"][n]["ratio"]:
                now["cases"][n] = dict(second["cases"][n], gated=True)
        status = compare(now, base, factor, floor)
    print(table(now, base, status))
    for n, s in status.items():
        if s == "SLOWER":
            change = now["cases"][n]["ratio"] / base["cases"][n]["ratio"]
            print(
                f"BENCHMARK GATE FAILED: {n} is {change:.2f}x slower than the baseline (allowed {factor}x)",
                file=sys.stderr,
            )
        elif s == "new":
            print(
                f"BENCHMARK GATE FAILED: {n} has no baseline; run `make bench-baseline` and commit "
                "tests/benchmarks/baseline.json",
                file=sys.stderr,
            )
    if any(s in ("SLOWER", "new") for s in status.values()):
        return 1
    print(f"benchmark gate passed: no gated case slower than {factor}x its baseline ratio")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gated", action="store_true", help="only the cases of the CI gate")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="only these cases")
    ap.add_argument("--no-chapters", action="store_true", help="skip the chapters' execution times")
    ap.add_argument("--check", metavar="BASELINE", help="compare with BASELINE; exit 1 on a slowdown")
    ap.add_argument("--write-baseline", metavar="BASELINE", help="write the measured ratios to BASELINE")
    ap.add_argument("--factor", type=float, default=FACTOR, help=f"allowed slowdown of a ratio (default {FACTOR})")
    ap.add_argument(
        "--floor", type=float, default=FLOOR_S, help=f"seconds below which no case fails (default {FLOOR_S})"
    )
    ap.add_argument("--runs", type=int, default=3, help="with --write-baseline: whole runs, median kept (default 3)")
    ap.add_argument("--json", metavar="OUT", help="also write the measurements to OUT")
    args = ap.parse_args(argv)
    if not args.factor > 1:
        raise SystemExit(f"--factor must be > 1, got {args.factor}")
    names = select(load_cases(), args.only, args.gated, not args.no_chapters)
    t0 = time.perf_counter()
    now = measure(names)
    if args.json:
        Path(args.json).write_text(json.dumps(now, indent=1) + "\n")
    if args.write_baseline:
        write_baseline(names, now, args.write_baseline, args.runs)
        return 0
    rc = check(now, args.check, args.factor, args.floor) if args.check else print(table(now)) or 0
    print(f"({time.perf_counter() - t0:.0f} s)")
    return rc


if __name__ == "__main__":
    sys.exit(main())
