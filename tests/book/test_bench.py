"""The benchmark runs and its figures are consistent (small sizes)."""

import numpy as np
import pytest

import rpp

pytestmark = pytest.mark.slow  # ~1.5 min on the loaded 2-core machine

from rpp_book import bench


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


def test_scaling_table_structure_tiny():
    """The scaling table (issue #13): one row per (family, size, noise, method), honest columns."""
    t = bench.scaling_table((8, 16), (2,), noises=("gaussian", "laplace"), max_seconds=60)
    n_methods = len(rpp.methods("gaussian")) + len(rpp.methods("laplace"))
    assert len(t) == 3 * n_methods  # sizes 8, 16 (empirical) and 2 (mixture), both noises
    assert list(t.columns[:5]) == ["family", "size", "noise", "method", "status"]
    assert set(t.status) <= {"ok", "n/a", "> budget"}
    ok = t[t.status == "ok"]
    # the baseline's own ratio is 1, every guaranteed method's theta is at least the exact one
    assert np.allclose(ok[ok.method == bench.BASELINE].vs_baseline, 1.0)
    assert (ok.theta_ratio.dropna() >= 1 - 1e-9).all()
    assert np.allclose(ok[ok.method == "exact"].theta_ratio, 1.0)
    assert (ok.seconds > 0).all()
    # closed forms for two Gaussians do not apply to empirical priors
    assert set(t[(t.method == "closed-form")].status) == {"n/a"}


def test_scaling_table_budget_reported_not_hung():
    t = bench.scaling_table((200,), (), noises=("gaussian",), max_seconds=1e-3)
    assert set(t.status) <= {"> budget", "n/a"} and "> budget" in set(t.status)


def test_scaling_pair_rejects_bad_arguments():
    with pytest.raises(ValueError, match="family"):
        bench.scaling_pair("cauchy", 3)
    with pytest.raises(ValueError, match="size"):
        bench.scaling_pair("empirical", 0)


def test_scaling_table_tries_every_size_after_over_budget(monkeypatch):
    """Cost is not monotone in size: a method over budget at one size is still run at the next."""
    calls = []

    def fake_run(p, q, alpha, epsilon, method, noise, max_seconds, require="estimate"):
        calls.append((p.n, method))
        if p.n == 8:  # every method over budget at the smallest size only
            return ("> budget", np.nan, max_seconds, np.nan, np.nan)
        return ("ok", 1.0, 0.5, np.nan, np.nan)

    monkeypatch.setattr(bench, "_run_with_budget", fake_run)
    t = bench.scaling_table((8, 16, 32), (), noises=("laplace",), max_seconds=2.0)
    names = rpp.methods("laplace")
    assert sorted(calls) == sorted((n, m) for n in (8, 16, 32) for m in names)
    assert set(t[t["size"] == 8].status) == {"> budget"}
    assert set(t[t["size"] > 8].status) == {"ok"}
    # a stopped call reports the time after which it was stopped, and no ratio to the baseline
    assert (t[t.status == "> budget"].seconds >= 2.0).all()
    assert t[t.status == "> budget"].vs_baseline.isna().all()
    assert np.allclose(t[t.status == "ok"].vs_baseline, 1.0)


def test_scaling_table_stopped_call_reports_its_time():
    t = bench.scaling_table((200,), (), noises=("gaussian",), max_seconds=1e-3)
    over = t[t.status == "> budget"]
    assert len(over) and (over.seconds >= 1e-3).all() and over.vs_baseline.isna().all()
    assert t[t.status == "n/a"].seconds.isna().all()


def test_class_scaling_pools_give_the_serial_result():
    """Issue #38: the class timing of book/status.md runs, and checks the pools against the serial run."""
    t = bench.class_scaling(shapes=((1, 3),), workers=(2,), repeat=1)
    assert list(t.workers) == [0, 2] and set(t.pairs) == {3}
    assert (t.seconds > 0).all() and np.isclose(t.speedup.iloc[0], 1.0)
