"""The benchmark suite's runner, table and regression gate (issue #38).

    python tools/bench_gate.py                      # every case (make bench): the table
    python tools/bench_gate.py --gated --check tests/benchmarks/baseline.json   # make bench-check (CI)
    python tools/bench_gate.py --gated --write-baseline tests/benchmarks/baseline.json   # make bench-baseline

The cases are in ``tests/benchmarks/cases.py``.  Each is timed best of its ``repeat`` runs, and
divided by the *reference kernel* timed in the same run (a fixed ``np.sort`` of 2e6 floats and a
fixed pure-Python float loop, best of 5, measured before and after the cases; the smaller time is
used): shared, noisy machines slow both alike, so ``seconds / reference`` moves less than seconds.

The gate compares each gated case's ratio with the baseline's: a case slower than ``--factor``
(default 1.5) times its baseline ratio is measured once more (a second best-of-k, against a
re-measured reference), and fails the gate, by name, only if it is still that slow.  A gated case
missing from the baseline fails too: the baseline is written on purpose, by ``make
bench-baseline``, and committed for review.  Cases below ``--floor`` seconds (default 0.05 s,
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

    rpp remembers recent work by the identity of the priors' arrays (the merged supports, the
    bins, recent results): a second call on the same objects would time a cache.  Fresh
    objects (equal values, new arrays) time what a user's first call costs.
    """
    best = math.inf
    for _ in range(c.repeat):
        best = min(best, best_of(c.prepare(), 1, c.name in self_timed))
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
    """Time the cases ``names``; return ``{"reference_s", "machine", "cases": {name: {...}}}``."""
    mod = load_cases()
    cases = [c for c in mod.CASES if c.name in names]
    ref = best_of(reference_kernel, 5)
    out: dict = {"machine": machine(), "cases": {}}
    for c in cases:
        s = run_case(c, mod.SELF_TIMED)
        out["cases"][c.name] = dict(seconds=s, gated=c.gated, what=c.what)
        if verbose:
            print(f"  {c.name:<42} {s:9.4f} s", file=sys.stderr, flush=True)
    ref = min(ref, best_of(reference_kernel, 5))
    out["reference_s"] = ref
    for row in out["cases"].values():
        row["ratio"] = row["seconds"] / ref
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
        f"reference kernel {now['reference_s']:.4f} s (best of 5, before and after); Python {m['python']}, "
        f"numpy {m['numpy']}, {m['cores']} cores, load {m['load']}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gated", action="store_true", help="only the cases of the CI gate")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="only these cases")
    ap.add_argument("--no-chapters", action="store_true", help="skip the chapters' execution times")
    ap.add_argument("--check", metavar="BASELINE", help="compare with BASELINE; exit 1 on a slowdown")
    ap.add_argument("--write-baseline", metavar="BASELINE", help="write the measured ratios to BASELINE")
    ap.add_argument("--factor", type=float, default=FACTOR, help=f"allowed slowdown of a ratio (default {FACTOR})")
    ap.add_argument("--floor", type=float, default=FLOOR_S, help=f"seconds below which no case fails (default {FLOOR_S})")
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
        keep = {k: v for k, v in now.items() if k != "cases"}
        keep["cases"] = {n: dict(ratio=round(r["ratio"], 5), seconds=round(r["seconds"], 5)) for n, r in now["cases"].items()}
        Path(args.write_baseline).write_text(json.dumps(keep, indent=1, sort_keys=True) + "\n")
        print(table(now))
        print(f"baseline written to {args.write_baseline}: review and commit it")
        return 0
    if not args.check:
        print(table(now))
        print(f"({time.perf_counter() - t0:.0f} s)")
        return 0
    base = json.loads(Path(args.check).read_text())
    status = compare(now, base, args.factor, args.floor)
    again = [n for n, s in status.items() if s == "SLOWER"]
    if again:  # a noisy machine: measure the slow ones once more before failing
        print(f"re-measuring {again}", file=sys.stderr)
        second = measure(again)
        for n in again:
            if second["cases"][n]["ratio"] < now["cases"][n]["ratio"]:
                now["cases"][n] = dict(second["cases"][n], gated=True)
        status = compare(now, base, args.factor, args.floor)
    print(table(now, base, status))
    bad = {n: s for n, s in status.items() if s in ("SLOWER", "new")}
    print(f"({time.perf_counter() - t0:.0f} s)")
    if bad:
        for n, s in bad.items():
            if s == "SLOWER":
                print(f"BENCHMARK GATE FAILED: {n} is {now['cases'][n]['ratio'] / base['cases'][n]['ratio']:.2f}x "
                      f"slower than the baseline (allowed {args.factor}x)", file=sys.stderr)
            else:
                print(f"BENCHMARK GATE FAILED: {n} has no baseline; run `make bench-baseline` and commit "
                      "tests/benchmarks/baseline.json", file=sys.stderr)
        return 1
    print(f"benchmark gate passed: no gated case slower than {args.factor}x its baseline ratio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
