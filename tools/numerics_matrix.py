"""Rounding-noise detector: run every chapter under each numpy SIMD level of this CPU and thread count.

``make test-numerics`` (run by ``.ci/run``) calls this script.  A chapter whose verdict depends
on rounding noise (which SIMD path numpy's ufuncs take, how many BLAS threads sum a product)
passes on the machine it was written on and fails on a reader's.  Here nbval re-runs every
chapter, with numpy's floating-point RuntimeWarnings as errors (``tools/strict_kernel``), under

each lower dispatch level this CPU supports, from the highest down to the baseline: numpy's
``NPY_DISABLE_CPU_FEATURES`` with that level and every level above it, OpenBLAS's kernels for a
CPU of that level (``OPENBLAS_CORETYPE``), alternately one thread and two.  ``make test`` has
already run the chapters at the default dispatch with two threads (the machine's), so with at
least two lower levels every level and both thread counts are covered, at one pass per level.
The chapters are shared out among the passes in turn (the first, third, ... chapter under the
first pass, the second, fourth, ... under the second): each chapter runs once more, in a float
environment other than ``make test``'s, and every level and thread count runs some chapters, at
half the cost of every chapter under every pass (``--all``, about three minutes on two cores).

On an x86-64 machine with AVX-512 (numpy 2.4 names) that is two passes:
``X86_V4 AVX512_ICL AVX512_SPR`` disabled (AVX2, OpenBLAS ``Haswell``) with one thread;
``X86_V3`` and above disabled (the ``X86_V2`` baseline, OpenBLAS ``Nehalem``) with two threads.
On other architectures the lower level is the baseline (every dispatched feature disabled).
Every pass first checks, in a fresh interpreter, that numpy really runs at that level.

    python tools/numerics_matrix.py            # all passes, the chapters shared out; exit 1 if any fails
    python tools/numerics_matrix.py --all      # every chapter under every pass
    python tools/numerics_matrix.py --list     # print the passes only
    python tools/numerics_matrix.py --pass 2 book/03_gaussian_priors.ipynb
    python tools/numerics_matrix.py --under 1 -- make pdf
                                               # a command under pass 1's environment, its kernels strict

``--under`` is how ``.ci/run`` runs the detector without a run of its own: the editions' lane
builds the book (``make pdf``, which executes every chapter into the execution cache that
``make book`` then reads) under pass 1, with the strict kernel (``IPYTHONDIR`` from
``tools/strict_kernel``; the build's ``raise_on_error`` fails it on a cell's error), and the
other environments' lane runs its chapters under the last pass (the baseline). ``make test`` runs
every chapter at the default dispatch with two threads, so every chapter runs at two float
environments in CI, every level below the CPU's runs chapters, and both thread counts do.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: tools/ is sys.path[0], the repository is not
    sys.path.insert(0, str(ROOT))

from tools.strict_kernel import strict_ipython_dir

#: OpenBLAS core type of a CPU without the level that is disabled (x86-64-v4, v3).
CORETYPE = {"X86_V4": "Haswell", "AVX512F": "Haswell", "X86_V3": "Nehalem", "AVX2": "Nehalem"}
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _numpy_features(env: dict[str, str]) -> dict:
    code = (
        "import json, numpy\n"
        "try:\n"
        "    from numpy._core import _multiarray_umath as m\n"
        "except ImportError:  # numpy < 2\n"
        "    from numpy.core import _multiarray_umath as m\n"
        "print(json.dumps({'baseline': list(m.__cpu_baseline__), 'dispatch': list(m.__cpu_dispatch__),"
        " 'features': m.__cpu_features__}))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def passes() -> list[dict]:
    """The configurations, each a dict with a label and the environment variables it sets."""
    info = _numpy_features(dict(os.environ, NPY_DISABLE_CPU_FEATURES=""))
    found = [name for name in info["dispatch"] if info["features"].get(name)]
    if any(name.startswith("X86_V") for name in found):
        levels = [name for name in found if name.startswith("X86_V")]
    elif "AVX2" in found:  # numpy < 2.4 names the x86-64-v3 and v4 levels by their features
        levels = [name for name in ("AVX2", "AVX512F") if name in found]
    else:
        levels = found[:1]  # elsewhere: the baseline only (every dispatched feature disabled)
    out = []
    for k, level in enumerate(reversed(levels)):
        disable = found[found.index(level) :]
        below = found[found.index(level) - 1] if found.index(level) > 0 else info["baseline"][-1]
        out.append(
            {
                "label": f"{' '.join(disable)} disabled (runs at {below}), {1 + k % 2} thread{'s' if k % 2 else ''}",
                "disable": disable,
                "threads": 1 + k % 2,
                "coretype": CORETYPE.get(level),
                "expect_off": disable,
            }
        )
    return out


def shares(notebooks: list[str], n: int) -> list[list[str]]:
    """The notebooks shared out among ``n`` passes in turn: the first, (n+1)-th, ... to pass 1, and so on."""
    return [notebooks[k::n] for k in range(n)]


def environment(cfg: dict) -> dict[str, str]:
    env = dict(os.environ)
    env["NPY_DISABLE_CPU_FEATURES"] = " ".join(cfg["disable"])
    for var in THREAD_VARS:
        env[var] = str(cfg["threads"])
    if cfg["coretype"]:
        env["OPENBLAS_CORETYPE"] = cfg["coretype"]
    else:
        env.pop("OPENBLAS_CORETYPE", None)
    return env


def _checked_environment(cfg: dict) -> dict[str, str] | None:
    """The pass's environment, or None (with a message) where numpy does not run at its level."""
    env = environment(cfg)
    feats = _numpy_features(env)["features"]
    still_on = [name for name in cfg.get("expect_off", []) if feats.get(name)]
    if still_on:
        print(f"ERROR: NPY_DISABLE_CPU_FEATURES did not disable {still_on}", file=sys.stderr)
        return None
    return env


def run_under(cfg: dict, command: list[str]) -> int:
    """Run ``command`` under the pass ``cfg``'s environment with the strict kernel's ``IPYTHONDIR``."""
    env = _checked_environment(cfg)
    if env is None:
        return 2
    root = strict_ipython_dir()
    try:
        env["IPYTHONDIR"] = str(root)
        print(f"== under {cfg['label']}, strict kernels: {' '.join(command)}", flush=True)
        return subprocess.call(command, env=env, cwd=ROOT)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _pass_of(parser: argparse.ArgumentParser, cfgs: list[dict], under: int, command: list[str]) -> dict:
    """The pass ``--under`` names (1-based, -1 the last); a usage error if there is none or no command."""
    if not command:
        parser.error("--under needs a command after --")
    if not cfgs:  # numpy dispatches nothing on this CPU: no lower level to run at
        return {
            "label": "the default level (no lower one on this CPU), 1 thread",
            "disable": [],
            "threads": 1,
            "coretype": None,
        }
    if not (1 <= under <= len(cfgs) or -len(cfgs) <= under <= -1):
        parser.error(f"--under: a pass from 1 to {len(cfgs)}, or -1 for the last (got {under})")
    return cfgs[under - 1 if under > 0 else under]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", action="store_true", help="print the passes and exit")
    parser.add_argument("--pass", dest="only", type=int, help="run only this pass (1-based)")
    parser.add_argument("--all", action="store_true", help="every notebook under every pass (default: shared out)")
    parser.add_argument(
        "--under",
        type=int,
        metavar="PASS",
        help="run the command given after -- under this pass (1-based; -1 the last) with strict kernels",
    )
    parser.add_argument("notebooks", nargs="*", help="default: book/*.ipynb (with --under: the command)")
    args = parser.parse_args(argv)
    cfgs = passes()
    for i, cfg in enumerate(cfgs, 1):
        print(f"pass {i}: {cfg['label']}" + (f", OPENBLAS_CORETYPE={cfg['coretype']}" if cfg["coretype"] else ""))
    if args.list:
        return 0
    if args.under is not None:
        return run_under(_pass_of(parser, cfgs, args.under, args.notebooks), args.notebooks)
    notebooks = args.notebooks or sorted(str(p.relative_to(ROOT)) for p in (ROOT / "book").glob("*.ipynb"))
    if not notebooks:
        print("ERROR: no notebooks in book/", file=sys.stderr)
        return 2
    # by default the notebooks are shared out in turn (each runs once, under one lower level); with
    # --all, or a single pass, or notebooks named, every notebook runs under every pass selected
    share = not (args.all or args.only is not None or args.notebooks)
    failed = []
    for i, cfg in enumerate(cfgs, 1):
        if args.only is not None and i != args.only:
            continue
        mine = shares(notebooks, len(cfgs))[i - 1] if share else notebooks
        if not mine:
            continue
        env = _checked_environment(cfg)
        if env is None:
            return 2
        print(f"== pass {i}: {cfg['label']}: {' '.join(Path(n).stem for n in mine)}", flush=True)
        start = time.monotonic()
        rc = subprocess.call(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-p",
                "tools.strict_kernel.nbval_plugin",
                "-q",
                # two chapters at a time, each whole in one kernel (a pass's thread count is per kernel)
                "-n",
                "2",
                "--dist",
                "loadfile",
                "--nbval-lax",
                "--nbval-current-env",
                "--nbval-cell-timeout=300",
                *mine,
            ],
            env=env,
            cwd=ROOT,
        )
        print(
            f"== pass {i} {'passed' if rc == 0 else f'FAILED (pytest exit {rc})'} in {time.monotonic() - start:.0f} s",
            flush=True,
        )
        if rc != 0:
            failed.append(f"pass {i} ({cfg['label']})")
    if failed:
        print("ERROR: the chapters fail under " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
