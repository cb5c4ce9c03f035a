"""Timing and tightness benchmark of the calibration rules: ``python -m rpp.paper.bench``.

Prints, measured in one run on the current machine:

* the time of ``"closed-form"`` and ``"exact"`` over a 10^5-point (epsilon, alpha)
  grid for one Gaussian pair (one vectorised call each) and their ratio;
* the time per (epsilon, alpha) point of ``"exact"``, ``"gmm-ot"`` and
  ``"gmm-ot-tight"`` for pairs of 3-component mixtures;
* theta ratios (method / exact) on a few fixed cases.

Every timed result is also checked: all returned scales must be guaranteed.
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import numpy as np

from ..calibration import calibrate
from ..distributions import Gaussian, GaussianMixture


def _timed(fn, repeat=3):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def gaussian_grid(n_eps: int = 1000, n_alpha: int = 100) -> dict[str, float]:
    P, Q = Gaussian(0.0, 0.25), Gaussian(1.0, 16.0)
    eps = np.geomspace(1e-3, 10, n_eps)
    alpha = np.geomspace(1.01, 100, n_alpha)[:, None]
    t_cf, cf = _timed(lambda: calibrate(P, Q, alpha=alpha, epsilon=eps, method="closed-form"))
    t_ex, ex = _timed(lambda: calibrate(P, Q, alpha=alpha, epsilon=eps, method="exact"))
    assert np.all(cf.guaranteed) and np.all(ex.guaranteed)
    assert np.all(ex.scale <= cf.scale * (1 + 1e-9))
    return dict(points=eps.size * alpha.size, closed_form_s=t_cf, exact_s=t_ex, ratio=t_ex / t_cf)


def mixture_pairs(n_pairs: int = 5, seed: int = 0) -> dict[str, tuple[float, float]]:
    rng = np.random.default_rng(seed)
    rows: dict[str, list[float]] = {m: [] for m in ("exact", "gmm-ot", "gmm-ot-tight")}
    for _ in range(n_pairs):
        P = GaussianMixture(rng.dirichlet(np.ones(3)), rng.normal(0, 3, 3), np.exp(rng.uniform(-1.5, 1, 3)))
        Q = GaussianMixture(rng.dirichlet(np.ones(3)), rng.normal(0, 3, 3), np.exp(rng.uniform(-1.5, 1, 3)))
        a, e = float(rng.uniform(1.5, 10)), float(rng.uniform(0.1, 3))
        for m in rows:
            t, cal = _timed(partial(calibrate, P, Q, alpha=a, epsilon=e, method=m), repeat=1)
            assert cal.guaranteed
            rows[m].append(t)
    return {m: (float(np.mean(ts)), float(np.max(ts))) for m, ts in rows.items()}


FIXED_CASES = [
    ("N(0,.5^2) vs N(1,4^2), a=5, e=1", Gaussian(0, 0.25), Gaussian(1, 16), 5.0, 1.0),
    ("N(0,1) vs N(3.5,1.1^2), a=3, e=0.5", Gaussian(0, 1), Gaussian(3.5, 1.21), 3.0, 0.5),
    ("N(0,1) vs N(2,1), a=2, e=0.2", Gaussian(0, 1), Gaussian(2, 1), 2.0, 0.2),
    (
        "mixtures .5/.5 vs .3/.7 at +-3, a=3, e=0.05",
        GaussianMixture([0.5, 0.5], [-3, 3], [0.5, 0.5]),
        GaussianMixture([0.3, 0.7], [-3, 3], [0.5, 0.5]),
        3.0,
        0.05,
    ),
]


def theta_ratios() -> list[tuple[str, float, dict[str, float]]]:
    out = []
    for name, P, Q, a, e in FIXED_CASES:
        exact = calibrate(P, Q, alpha=a, epsilon=e).scale
        ratios = {}
        methods = (["closed-form", "pierquin"] if isinstance(P, Gaussian) else []) + ["gmm-ot", "gmm-ot-tight"]
        for m in methods:
            s = calibrate(P, Q, alpha=a, epsilon=e, method=m).scale
            ratios[m] = s / exact if exact > 0 else np.nan
        out.append((name, exact, ratios))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5, help="mixture pairs to time (default 5)")
    args = parser.parse_args(argv)
    g = gaussian_grid()
    print(f"Gaussian pair, {g['points']:,} (epsilon, alpha) points, one vectorised call each (best of 3):")
    print(
        f"  closed-form {g['closed_form_s']:.3f} s   exact {g['exact_s']:.3f} s   "
        f"ratio exact/closed-form {g['ratio']:.1f}x"
    )
    mix = mixture_pairs(args.pairs)
    print(f"3-component mixture pairs ({args.pairs} random pairs, both orders), seconds per (epsilon, alpha) point:")
    for m, (mean, worst) in mix.items():
        print(f"  {m:<13} mean {mean:.3f} s   max {worst:.3f} s")
    print("theta / theta_exact on fixed cases:")
    for name, exact, ratios in theta_ratios():
        rs = "  ".join(f"{m} {r:.3f}" for m, r in ratios.items())
        print(f"  {name}: theta_exact = {exact:.4f};  {rs}")


if __name__ == "__main__":
    main()
