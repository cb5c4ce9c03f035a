r"""The examples of Bai et al. (2026) reproduced in chapter 7: collapse mechanisms, Asia, Capture-24.

* Section 4, Examples 1, 3 and 5: mechanisms with *zero* (or small) single-run posterior
  leakage that reveal the dataset / secret after a few runs -- the exact output
  distributions (for enumeration checks), the exact expected number of runs and the paper's
  bound, and vectorised simulations of the attack;
* :data:`ASIA` -- the Bayesian network of Section 6.4 (Asia in place of ALARM);
* :data:`CAPTURE24_STATES` -- the activity classes of the Top-:math:`k` experiments (Section 7).

Re-exported, under the same names, by :mod:`rpp.composition`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v

__all__ = [
    "example1_mechanism",
    "example1_expected_runs",
    "example1_runs_bound",
    "simulate_example1",
    "example3_mechanism",
    "simulate_example3",
    "example5_epsilon",
    "example5_epsilon_bruteforce",
    "example5_mechanism",
    "simulate_example5",
    "ASIA",
    "CAPTURE24_STATES",
]

#: The Asia network, as ``node -> (parents, table of Pr(node = 1 | parent values))``.
ASIA = {
    "asia": ((), {(): 0.01}),
    "smoke": ((), {(): 0.5}),
    "tub": (("asia",), {(1,): 0.05, (0,): 0.01}),
    "lung": (("smoke",), {(1,): 0.1, (0,): 0.01}),
    "bronc": (("smoke",), {(1,): 0.6, (0,): 0.3}),
    "either": (("tub", "lung"), {(0, 0): 0.0, (0, 1): 1.0, (1, 0): 1.0, (1, 1): 1.0}),
    "xray": (("either",), {(1,): 0.98, (0,): 0.05}),
    "dysp": (("bronc", "either"), {(1, 1): 0.9, (0, 1): 0.7, (1, 0): 0.8, (0, 0): 0.1}),
}


#: The 11 activity classes of the Capture-24 WillettsMET2018 annotation (Bai et al. App. D.1).
CAPTURE24_STATES = (
    "bicycling",
    "gym",
    "sitstand+activity",
    "sitstand+lowactivity",
    "sitting",
    "sleep",
    "sports",
    "standing",
    "vehicle",
    "walking",
    "walking+activity",
)


# ----------------------------------------------------------------------------- Example 1
def _split(prior: ArrayLike, s1_mask: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    prior = v.pmf("prior", prior)
    s1 = np.asarray(s1_mask, dtype=bool)
    if s1.shape != prior.shape:
        raise ValueError(f"s1_mask must have shape {prior.shape}, got {s1.shape}")
    p1, p2 = prior[s1].sum(), prior[~s1].sum()
    if p1 <= 0 or p2 <= 0:
        raise ValueError("both secrets must have positive prior probability")
    cond1 = np.where(s1, prior, 0.0) / p1
    cond2 = np.where(~s1, prior, 0.0) / p2
    return prior, s1, cond1, cond2


def example1_mechanism(prior: ArrayLike, s1_mask: ArrayLike) -> np.ndarray:
    r"""Output distribution of :math:`\mathcal M^*` of Bai et al. (2026), Example 1.

    If :math:`s_1(D)` holds, :math:`\mathcal M^*` samples :math:`D'\sim\theta^*(\cdot\mid s_2)`
    and outputs :math:`(D,D')`; if :math:`s_2(D)` holds it samples
    :math:`D'\sim\theta^*(\cdot\mid s_1)` and outputs :math:`(D',D)`.

    Returns
    -------
    mech : ndarray, shape (N, N*N)
        ``mech[D, a*N + b] = Pr(M*(D) = (a, b))``.
    """
    prior, s1, cond1, cond2 = _split(prior, s1_mask)
    N = prior.size
    mech = np.zeros((N, N, N))
    idx = np.arange(N)
    # s1 true: left component = D, right ~ theta(.|s2)
    mech[idx[s1], idx[s1], :] = cond2[None, :]
    # s2 true: right component = D, left ~ theta(.|s1)
    mech[idx[~s1], :, idx[~s1]] = cond1[None, :]
    return mech.reshape(N, N * N)


def example1_expected_runs(prior: ArrayLike, s1_mask: ArrayLike) -> float:
    r"""Exact expected number of runs of Example 1 until the dataset is revealed.

    Given :math:`s_1` the right component is i.i.d. :math:`\theta^*(\cdot\mid s_2)`; after the
    first draw :math:`d` the waiting time for a different draw is geometric with mean
    :math:`1/(1-\theta^*(d\mid s_2))`, so

    .. math:: \E[T\mid s_1] = 1 + \sum_d \frac{\theta^*(d\mid s_2)}{1-\theta^*(d\mid s_2)},

    and symmetrically for :math:`s_2`; the result averages over the prior of the secret.
    """
    prior, s1, cond1, cond2 = _split(prior, s1_mask)
    if cond1.max() >= 1 or cond2.max() >= 1:
        return np.inf
    e_given_s1 = 1.0 + np.sum(cond2 / (1 - cond2))
    e_given_s2 = 1.0 + np.sum(cond1 / (1 - cond1))
    return prior[s1].sum() * e_given_s1 + prior[~s1].sum() * e_given_s2


def example1_runs_bound(prior: ArrayLike, s1_mask: ArrayLike) -> float:
    r"""Bai et al. (2026), Thm. (Example 1): :math:`\E[T]\le 1+1/(1-\max_D\max_{s_i}\Pr(D\mid s_i))`."""
    prior, s1, cond1, cond2 = _split(prior, s1_mask)
    m = max(cond1.max(), cond2.max())
    return np.inf if m >= 1 else 1.0 + 1.0 / (1.0 - m)


def simulate_example1(
    prior: ArrayLike, s1_mask: ArrayLike, n_trials: int, rng: np.random.Generator, max_runs: int = 10_000
) -> tuple[np.ndarray, np.ndarray]:
    r"""Simulate the repeated-run attack on Example 1 (vectorised over trials).

    Each trial draws :math:`D\sim\theta^*`, runs :math:`\mathcal M^*` until two different
    outputs have been seen, and lets the attacker output the tuple component that did not
    change.

    Returns
    -------
    runs : ndarray of int, shape (n_trials,)
        Number of runs until the reveal.
    correct : ndarray of bool
        Whether the attacker's reconstruction equals the true dataset.
    """
    prior, s1, cond1, cond2 = _split(prior, s1_mask)
    n_trials = v.integer("n_trials", n_trials, 1)
    N = prior.size
    D = rng.choice(N, size=n_trials, p=prior)
    is1 = s1[D]

    left = np.where(is1, D, rng.choice(N, size=n_trials, p=cond1))
    right = np.where(is1, rng.choice(N, size=n_trials, p=cond2), D)
    first = np.stack([left, right], 1)
    runs = np.ones(n_trials, dtype=int)
    guess = np.full(n_trials, -1)
    active = np.arange(n_trials)
    for r in range(2, max_runs + 1):
        if active.size == 0:
            break
        k = active.size
        l_new = np.where(is1[active], D[active], rng.choice(N, size=k, p=cond1))
        r_new = np.where(is1[active], rng.choice(N, size=k, p=cond2), D[active])
        differs = (l_new != first[active, 0]) | (r_new != first[active, 1])
        done = active[differs]
        # attacker: the component that did not change is the dataset
        same_left = l_new[differs] == first[done, 0]
        guess[done] = np.where(same_left, first[done, 0], first[done, 1])
        runs[done] = r
        active = active[~differs]
    if active.size:
        raise RuntimeError(f"{active.size} trials not revealed within max_runs={max_runs}")
    return runs, guess == D


# ----------------------------------------------------------------------------- Example 3
def _bits(n):
    return ((np.arange(2**n)[:, None] >> np.arange(n - 1, -1, -1)) & 1).astype(np.int8)


def example3_mechanism(n: int, p_one: float = 0.5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Output distribution of :math:`\mathcal M^*` of Bai et al. (2026), Example 3.

    Datasets are :math:`n`-bit strings :math:`x_1\dots x_n` (prior: i.i.d. bits with
    :math:`\Pr(x_k=1)=` ``p_one``; the paper's zero-leakage claim needs ``p_one = 0.5``).
    With probability 1/2 the output is type A,
    :math:`(x_2\oplus x_1,\dots,x_n\oplus x_1)`; otherwise type B, the parity
    :math:`x_1\oplus\cdots\oplus x_n` (``n`` odd) or :math:`x_2\oplus\cdots\oplus x_n`
    (``n`` even).

    Returns
    -------
    prior : ndarray, shape (2**n,)
    mech : ndarray, shape (2**n, 2**(n-1) + 2)
        Columns ``0 .. 2**(n-1)-1`` are the type-A outputs (bit vectors read as binary
        numbers), the last two columns the type-B outputs 0 and 1.
    bits : ndarray, shape (2**n, n)
    """
    n = v.integer("n", n, 3)
    v.probability("p_one", p_one)
    bits = _bits(n)
    prior = np.prod(np.where(bits == 1, p_one, 1 - p_one), axis=1)
    a = bits[:, 1:] ^ bits[:, [0]]
    a_idx = (a * (1 << np.arange(n - 2, -1, -1))).sum(1)
    par = bits.sum(1) % 2 if n % 2 == 1 else bits[:, 1:].sum(1) % 2
    mech = np.zeros((2**n, 2 ** (n - 1) + 2))
    rows = np.arange(2**n)
    mech[rows, a_idx] += 0.5
    mech[rows, 2 ** (n - 1) + par] += 0.5
    return prior, mech, bits


def simulate_example3(
    n: int, n_trials: int, rng: np.random.Generator, max_runs: int = 10_000
) -> tuple[np.ndarray, np.ndarray]:
    r"""Simulate the reconstruction attack on Example 3 (uniform i.i.d. bits).

    The attacker waits for one type-A and one type-B output, computes
    :math:`x_1 = (\bigoplus_k A_k)\oplus B` and then :math:`x_k = A_k\oplus x_1`.

    Returns ``(runs, correct)`` as in :func:`simulate_example1`.
    """
    n = v.integer("n", n, 3)
    n_trials = v.integer("n_trials", n_trials, 1)
    x = rng.integers(0, 2, size=(n_trials, n), dtype=np.int8)
    A = x[:, 1:] ^ x[:, [0]]
    B = x.sum(1) % 2 if n % 2 == 1 else x[:, 1:].sum(1) % 2
    seenA = np.zeros(n_trials, bool)
    seenB = np.zeros(n_trials, bool)
    runs = np.zeros(n_trials, int)
    for r in range(1, max_runs + 1):
        todo = runs == 0
        if not todo.any():
            break
        typeA = rng.random(n_trials) < 0.5
        seenA |= todo & typeA
        seenB |= todo & ~typeA
        runs[todo & seenA & seenB] = r
    if (runs == 0).any():
        raise RuntimeError("some trials not revealed within max_runs")
    x1 = (A.sum(1) % 2) ^ B
    recon = np.concatenate([x1[:, None], A ^ x1[:, None]], axis=1).astype(np.int8)
    return runs, np.all(recon == x, axis=1)


# ----------------------------------------------------------------------------- Example 5
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
        \epsilon=\max\Bigl(\bigl|\log\tfrac{U_T}{L_F}\bigr|,\bigl|\log\tfrac{L_T}{U_F}\bigr|,
        \bigl|\log\tfrac{1-U_T}{U_F}\bigr|,\bigl|\log\tfrac{1-L_T}{L_F}\bigr|,
        \bigl|\log\tfrac{L_T}{1-L_F}\bigr|,\bigl|\log\tfrac{U_T}{1-U_F}\bigr|,
        \bigl|\log\tfrac{1-U_T}{1-L_F}\bigr|,\bigl|\log\tfrac{1-L_T}{1-U_F}\bigr|\Bigr).
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

    Returns
    -------
    p_s1, p_not_s1 : ndarray, shape (4,)
        Output distributions over (1a,2a), (1a,2b), (1b,2a), (1b,2b) given :math:`s_1`
        and given :math:`\neg s_1`.
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
    ``grid`` × ``grid`` lattice including the endpoints.
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

    Returns ``(runs, correct)``; ``correct`` compares the inferred secret with the truth.
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
