r"""Example 5 of Bai et al. (2026), Section 4: a set of priors, its Pufferfish parameter and the attack.

Re-exported by :mod:`rpp_book.composition_examples` and :mod:`rpp.pufferfish`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rpp._lib import validation as v

__all__ = ["example5_epsilon", "example5_mechanism", "example5_epsilon_bruteforce", "simulate_example5"]


def _check_bounds(LT, UT, LF, UF):
    for nm, value in (("L_T", LT), ("U_T", UT), ("L_F", LF), ("U_F", UF)):
        v.probability(nm, value)
    if LT > UT:
        raise ValueError(f"L_T must be <= U_T, got {LT} > {UT}")
    if LF > UF:
        raise ValueError(f"L_F must be <= U_F, got {LF} > {UF}")


def example5_epsilon(LT: float, UT: float, LF: float, UF: float) -> float:
    r"""Pufferfish parameter of Example 5 (Bai et al. 2026, Thm. for Example 5).

    .. math::
        \epsilon = \max\Bigl(&\bigl|\log\tfrac{U_T}{L_F}\bigr|,\bigl|\log\tfrac{L_T}{U_F}\bigr|,
        \bigl|\log\tfrac{1-U_T}{U_F}\bigr|,\bigl|\log\tfrac{1-L_T}{L_F}\bigr|,\\
        &\bigl|\log\tfrac{L_T}{1-L_F}\bigr|,\bigl|\log\tfrac{U_T}{1-U_F}\bigr|,
        \bigl|\log\tfrac{1-U_T}{1-L_F}\bigr|,\bigl|\log\tfrac{1-L_T}{1-U_F}\bigr|\Bigr).

    Parameters
    ----------
    LT, UT : float
        Bounds :math:`L_T\le U_T` of :math:`t=\Pr(1a\mid s_1)`.
    LF, UF : float
        Bounds :math:`L_F\le U_F` of :math:`f=\Pr(2a\mid\neg s_1)`.

    Returns
    -------
    float
        :math:`\epsilon`.

    Raises
    ------
    ValueError
        If a bound is not a probability or a lower bound exceeds its upper bound.

    Examples
    --------
    >>> round(example5_epsilon(0.4, 0.6, 0.4, 0.6), 6)
    0.405465
    """
    _check_bounds(LT, UT, LF, UF)
    vals = [
        UT / LF,
        LT / UF,
        (1 - UT) / UF,
        (1 - LT) / LF,
        LT / (1 - LF),
        UT / (1 - UF),
        (1 - UT) / (1 - LF),
        (1 - LT) / (1 - UF),
    ]
    return float(np.max(np.abs(np.log(vals))))


def example5_mechanism(t: ArrayLike, f: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    r"""Case-level output distribution of :math:`\mathcal M^*` in Example 5.

    The four cases are 1a, 1b (:math:`s_1` true, :math:`\Pr(1a\mid s_1)=t`) and 2a, 2b
    (:math:`s_1` false, :math:`\Pr(2a\mid\neg s_1)=f`). The mechanism outputs the pair
    (case in {1a,1b}, case in {2a,2b}) whose true-side entry is the real case and whose
    other entry is uniform on the other side.

    Parameters
    ----------
    t, f : float or array_like
        :math:`\Pr(1a\mid s_1)` and :math:`\Pr(2a\mid\neg s_1)` (broadcast).

    Returns
    -------
    p_s1, p_not_s1 : ndarray, shape (4,)
        Output distributions over (1a,2a), (1a,2b), (1b,2a), (1b,2b) given :math:`s_1`
        and given :math:`\neg s_1`.

    Examples
    --------
    >>> example5_mechanism(0.5, 0.5)[0]
    array([0.25, 0.25, 0.25, 0.25])
    """
    t = np.asarray(t, float)[..., None]
    f = np.asarray(f, float)[..., None]
    c1 = np.concatenate([t, t, 1 - t, 1 - t], -1)  # Pr(first entry | s1)
    c2 = np.concatenate([f, 1 - f, f, 1 - f], -1)  # Pr(second entry | not s1)
    return 0.5 * c1, 0.5 * c2


def example5_epsilon_bruteforce(LT: float, UT: float, LF: float, UF: float, grid: int = 201) -> float:
    r"""Brute-force :math:`\sup_{\theta\in\Theta}\max_\omega|\log\Pr(\omega\mid s_1,\theta)/\Pr(\omega\mid\neg s_1,\theta)|`.

    The prior set is parametrised by :math:`t=\Pr(1a\mid s_1)\in[L_T,U_T]` and
    :math:`f=\Pr(2a\mid\neg s_1)\in[L_F,U_F]`; the supremum is taken over a
    ``grid`` × ``grid`` lattice including the endpoints (a check of :func:`example5_epsilon`).

    Parameters
    ----------
    LT, UT : float
        Bounds :math:`L_T\le U_T` of :math:`t=\Pr(1a\mid s_1)`.
    LF, UF : float
        Bounds :math:`L_F\le U_F` of :math:`f=\Pr(2a\mid\neg s_1)`.
    grid : int, default 201
        Lattice points per axis.

    Returns
    -------
    float
        The supremum over the lattice.

    Raises
    ------
    ValueError
        If a bound is not a probability or a lower bound exceeds its upper bound.

    Examples
    --------
    >>> round(example5_epsilon_bruteforce(0.4, 0.6, 0.4, 0.6, grid=11), 6)
    0.405465
    """
    _check_bounds(LT, UT, LF, UF)
    t, f = np.meshgrid(np.linspace(LT, UT, grid), np.linspace(LF, UF, grid), indexing="ij")
    p1, p2 = example5_mechanism(t, f)
    return float(np.max(np.abs(np.log(p1) - np.log(p2))))


def simulate_example5(
    LT: float,
    UT: float,
    LF: float,
    UF: float,
    n_trials: int,
    rng: np.random.Generator,
    p_s1: float = 0.5,
    max_runs: int = 10_000,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Simulate the attack on Example 5 under random priors from the set.

    Each trial draws a prior (:math:`t\sim U[L_T,U_T]`, :math:`f\sim U[L_F,U_F]`), a secret
    (:math:`\Pr(s_1)=` ``p_s1``) and the case, then runs :math:`\mathcal M^*` until two
    different outputs appear; the unchanged entry is the true case, hence the secret.

    Parameters
    ----------
    LT, UT : float
        Bounds :math:`L_T\le U_T` of :math:`t=\Pr(1a\mid s_1)`.
    LF, UF : float
        Bounds :math:`L_F\le U_F` of :math:`f=\Pr(2a\mid\neg s_1)`.
    n_trials : int
        Number of independent trials.
    rng : numpy.random.Generator
        Source of randomness.
    p_s1 : float, default 0.5
        :math:`\Pr(s_1)`.
    max_runs : int, default 10000
        Cap on the runs of one trial.

    Returns
    -------
    runs : ndarray of int
        Runs until the attacker decides.
    correct : ndarray of bool
        Whether the inferred secret is the true one.

    Raises
    ------
    ValueError
        If a bound is not a probability or a lower bound exceeds its upper bound.

    Examples
    --------
    >>> runs, correct = simulate_example5(0.4, 0.6, 0.4, 0.6, 1000, np.random.default_rng(0))
    >>> bool(correct.all()), round(float(runs.mean()), 2)
    (True, 3.1)
    """
    _check_bounds(LT, UT, LF, UF)
    n_trials = v.integer("n_trials", n_trials, 1)
    t = rng.uniform(LT, UT, n_trials)
    f = rng.uniform(LF, UF, n_trials)
    s1 = rng.random(n_trials) < p_s1
    # true case: 0 = 'a', 1 = 'b' on the true side
    case = np.where(s1, rng.random(n_trials) >= t, rng.random(n_trials) >= f).astype(int)

    def one_run(k_idx):
        fake = rng.integers(0, 2, size=k_idx.size)
        first = np.where(s1[k_idx], case[k_idx], fake)
        second = np.where(s1[k_idx], fake, case[k_idx])
        return first, second

    f0, s0 = one_run(np.arange(n_trials))
    runs = np.ones(n_trials, int)
    inferred = np.zeros(n_trials, bool)
    active = np.arange(n_trials)
    for r in range(2, max_runs + 1):
        if active.size == 0:
            break
        a, b = one_run(active)
        differs = (a != f0[active]) | (b != s0[active])
        done = active[differs]
        inferred[done] = a[differs] == f0[done]  # first entry unchanged  =>  s1 true
        runs[done] = r
        active = active[~differs]
    if active.size:
        raise RuntimeError("some trials not revealed within max_runs")
    return runs, inferred == s1
