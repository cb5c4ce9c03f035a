"""The chunked and side-by-side paths of issue #26 give the numbers of the whole-array ones.

A million atoms are evaluated in chunks (bounded memory) and, where numpy allows, on two cores;
the merged support is built by one merge, the Gaussian check's grid without merging the atoms.
Each path is compared here with the path it replaced -- forced by shrinking or growing the chunk
sizes -- on inputs small enough to run in the fast tier: the values must be the same to the bit
wherever the arithmetic is the same, and the error bounds of the same size where only the
grouping of the panels differs.
"""

import numpy as np
import pytest

import rpp
from rpp import transport
from rpp._lib import parallel
from rpp.divergence import _gaussian_noise as gn
from rpp.divergence import _laplace_atoms as la


def _sample_pair(n, seed, ties=False):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(0, 1, n), rng.normal(0.4, 1.3, n + 17)
    if ties:
        x, y = np.round(x, 2), np.concatenate([np.round(y, 2), x[:50]])
    return rpp.Empirical(x), rpp.Empirical(y, weights=rng.uniform(0.2, 1.0, y.size))


class _Components:
    """Components with repeated, unsorted means (the layout merges them)."""

    def __init__(self, means, weights):
        self.means, self.weights = np.asarray(means, float), np.asarray(weights, float)


@pytest.mark.parametrize("seed", range(6))
def test_the_merged_support_and_layouts_are_those_of_union1d_and_searchsorted(seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=int(rng.integers(1, 400))), int(rng.integers(0, 3)))
    y = np.concatenate([np.round(rng.normal(size=int(rng.integers(1, 400))), 1), x[:5], [-0.0, 0.0]])
    pairs = [
        (rpp.Empirical(x).components(), rpp.Empirical(y).components()),
        (_Components(x, rng.uniform(0.1, 1, x.size)), _Components(y[::-1], rng.uniform(0.1, 1, y.size))),
    ]
    for P, Q in pairs:
        xs, lay_p, lay_q = la._merge(P, Q)
        ref = np.union1d(P.means, Q.means)
        assert np.array_equal(xs, ref)
        for got, comp in ((lay_p, P), (lay_q, Q)):
            want = la._layout(ref, comp)  # atoms, log weights, searchsorted counts
            assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))


def test_the_prefix_sums_do_not_depend_on_the_chunk_size(monkeypatch):
    rng = np.random.default_rng(3)
    x = np.sort(rng.normal(size=40_000)) * 3
    x[1000:1200] = x[1000] + np.arange(200) * 50  # sparse blocks (summed pair by pair)
    x = np.sort(x)
    lw = np.log(rng.uniform(1e-3, 1, x.size))
    whole = la._sweep(lw, x, 0.05)
    monkeypatch.setattr(la, "_PANEL_CHUNK", 512)
    chunked = la._sweep(lw, x, 0.05)
    assert all(np.array_equal(a, b) for a, b in zip(whole, chunked, strict=True))


@pytest.mark.parametrize("alpha, b", [(2.0, 0.05), (1.01, 0.3), (8.0, 0.02)])
@pytest.mark.deep
def test_the_quadrature_in_chunks_matches_one_chunk_and_its_error_covers_the_dense_reference(alpha, b, monkeypatch):
    p, q = _sample_pair(2_500, seed=int(alpha * 10), ties=alpha == 2.0)
    P, Q = p.components(), q.components()
    one = la._atoms_log_integral(P, Q, alpha, b, False)  # 5000 panels: one chunk
    monkeypatch.setattr(la, "_PANEL_CHUNK", 256)
    la._AT_B.clear()
    many = la._atoms_log_integral(P, Q, alpha, b, False)  # about 20 chunks, side by side
    assert many[0] == pytest.approx(one[0], rel=4e-16, abs=4e-16)
    assert 0 < many[1] < 1e-9 and 0.5 < many[1] / one[1] < 2.0
    dense = la._atoms_log_integral(P, Q, alpha, b, True)
    assert abs(many[0] - dense[0]) <= many[1] + dense[1]


def test_the_sum_of_the_panels_in_pieces_is_the_sum_of_their_concatenation(monkeypatch):
    rng = np.random.default_rng(5)
    parts = [rng.normal(-3, 4, 70_001), np.array([-np.inf, 2.0]), rng.normal(-40, 9, 33_333)]
    whole = la._log_sum([np.concatenate(parts)])  # a single piece: the former computation
    monkeypatch.setattr(la, "_PANEL_CHUNK", 1 << 12)  # pieces of 4096 (a multiple of the rows of 256)
    pieces = la._log_sum(parts)
    assert pieces[0] == whole[0]  # the same rows, their sums by fsum: the same value to the bit
    assert pieces[1] == pytest.approx(whole[1], rel=1e-12)
    # a panel of no width (-inf) adds nothing: its share is 0, not 0 * inf (the bound was NaN before)
    assert np.isfinite(whole[1]) and np.isfinite(la._log_sum([np.array([0.0, -np.inf, 1.0])])[1])
    assert la._lse_parts(parts) == pytest.approx(float(rpp._lib.numerics.lse(np.concatenate(parts))), abs=1e-13)


@pytest.mark.parametrize("f", gn._LEVELS[:2])
def test_the_moments_of_bins_summed_in_groups_side_by_side_are_those_of_one_pass(f, monkeypatch):
    rng = np.random.default_rng(7)
    atoms = np.sort(rng.normal(size=9_000))
    w = rng.uniform(0.1, 1, atoms.size)
    monkeypatch.setattr(gn, "MIN_ITEMS", 1 << 40)
    monkeypatch.setattr(gn, "_GROUP_ATOMS", 1 << 40)
    one = gn._Bins(atoms, w, 0.9, f)  # one group, on the caller's thread
    monkeypatch.setattr(gn, "MIN_ITEMS", 1_000)
    monkeypatch.setattr(gn, "_GROUP_ATOMS", 700)
    groups = gn._Bins(atoms, w, 0.9, f)  # groups of whole bins, side by side
    assert np.array_equal(one.centre, groups.centre) and one.dmax == groups.dmax
    assert np.array_equal(one.mom[: gn._ORDER], groups.mom[: gn._ORDER])  # the orders a node's series uses
    moved_one, moved_groups = one.at(1.1), groups.at(1.1)  # the other orders, summed when first needed
    assert np.array_equal(one.mom, groups.mom)
    assert np.array_equal(moved_one.mom, moved_groups.mom) and moved_one.rho == moved_groups.rho


def _grid_of_the_union(m, s):
    """The grid near the union of the atoms, computed on the merged atoms (the former way)."""
    n_grid = (m[-1] - m[0]) / (0.5 * s) + 49
    if n_grid > 48 * m.size:
        return np.unique((m[:, None] + s * np.linspace(-12, 12, 13)).ravel())
    grid = m[0] - 12 * s + 0.5 * s * np.arange(int(n_grid) + 1)
    j = np.clip(np.searchsorted(m, grid), 1, m.size - 1)
    near = np.minimum(np.abs(grid - m[j - 1]), np.abs(m[j] - grid)) <= 12 * s
    return grid[near]


@pytest.mark.parametrize(
    "spread, n, shared", [(1.0, 3_000, 0), (40.0, 200, 0), (40.0, 200, 150), (1e3, 30, 0), (3.0, 1, 0)]
)
def test_the_gaussian_checks_grid_is_the_grid_of_the_union_of_the_atoms(spread, n, shared):
    rng = np.random.default_rng(int(spread) + n + shared)
    a = np.sort(rng.normal(0, spread, n))
    c = np.sort(np.concatenate([rng.normal(2, spread, n + 3), a[:shared]]))
    got = gn._atom_grid([a, c], 0.3)
    want = _grid_of_the_union(np.unique(np.concatenate([a, c])), 0.3)
    assert np.array_equal(got, want)


def test_the_quantile_coupling_is_the_same_on_two_cores(monkeypatch):
    p, q = _sample_pair(20_000, seed=11, ties=True)
    monkeypatch.setattr(transport, "MIN_ITEMS", 1 << 40)
    one = transport.quantile_coupling(p, q)
    monkeypatch.setattr(transport, "MIN_ITEMS", 1)
    two = transport.quantile_coupling(p, q)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    assert parallel.workers() >= 1
