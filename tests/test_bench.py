"""The benchmark runs and its figures are consistent (small sizes)."""
import numpy as np

from rpp.paper import bench


def test_gaussian_grid_small():
    out = bench.gaussian_grid(n_eps=50, n_alpha=10)
    assert out["points"] == 500 and out["exact_s"] > 0 and out["closed_form_s"] > 0


def test_mixture_pairs_and_ratios():
    mix = bench.mixture_pairs(n_pairs=1)
    assert set(mix) == {"exact", "gmm-ot", "gmm-ot-tight"}
    for name, exact, ratios in bench.theta_ratios():
        assert exact > 0, name
        for m, r in ratios.items():
            assert r >= 1 - 1e-9 or np.isinf(r), (name, m, r)


def test_main_prints(capsys):
    bench.main(["--pairs", "1"])
    out = capsys.readouterr().out
    assert "ratio exact/closed-form" in out and "theta / theta_exact" in out
