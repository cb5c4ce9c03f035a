r"""The examples of Bai et al. (2026) reproduced in chapter 7: collapse mechanisms, Asia, Capture-24.

* Section 4, Examples 1, 3 and 5: mechanisms with *zero* (or small) single-run posterior
  leakage that reveal the dataset / secret after a few runs -- the exact output
  distributions (for enumeration checks), the exact expected number of runs and the paper's
  bound, and vectorised simulations of the attack;
* :data:`ASIA` -- the Bayesian network of Section 6.4 (Asia in place of ALARM);
* :data:`CAPTURE24_STATES` -- the activity classes of the Top-:math:`k` experiments (Section 7);
* :func:`load_alarm` -- the ALARM network of Section 6.3.1 (chapter 8), read from the packaged
  BIF file by :func:`rpp.pufferfish.read_bif`.

Example 5 lives in ``rpp_book.composition_example5`` (imported here).

**ALARM** (Beinlich, Suermondt, Chavez & Cooper (1989), "The ALARM monitoring system",
AIME 89): ``alarm.bif.gz`` in this package is a byte-identical copy of
``pgmpy/utils/example_models/alarm.bif.gz`` of pgmpy 1.1.2 (MIT licence, (c) 2013-present
pgmpy), which distributes the BIF file of the bnlearn Bayesian-network repository
(https://www.bnlearn.com/bnrepository/); SHA-256
``f5860caa7137b5817e0c4f169cce0f1451ce6c246b96f5ce4fb4a8167993be29``.
"""

from __future__ import annotations

import gzip
import hashlib
from importlib import resources

import numpy as np
from numpy.typing import ArrayLike

from rpp._lib import validation as v
from rpp.pufferfish import read_bif

from .composition_example5 import (
    example5_epsilon,
    example5_epsilon_bruteforce,
    example5_mechanism,
    simulate_example5,
)

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
    "load_alarm",
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

    Parameters
    ----------
    prior : array_like, shape (N,)
        Prior :math:`\theta^*` over the datasets.
    s1_mask : array_like of bool, shape (N,)
        The datasets where :math:`s_1` holds.

    Returns
    -------
    mech : ndarray, shape (N, N*N)
        ``mech[D, a*N + b] = Pr(M*(D) = (a, b))``.

    Raises
    ------
    ValueError
        If ``prior`` is not a pmf, ``s1_mask`` has another shape, or a secret has prior 0.

    Examples
    --------
    >>> prior, s1 = [0.25] * 4, [True, True, False, False]
    >>> example1_mechanism(prior, s1).shape
    (4, 16)
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

    Parameters
    ----------
    prior : array_like, shape (N,)
        Prior :math:`\theta^*` over the datasets.
    s1_mask : array_like of bool, shape (N,)
        The datasets where :math:`s_1` holds.

    Returns
    -------
    float
        :math:`\E[T]`.

    Raises
    ------
    ValueError
        If ``prior`` is not a pmf, ``s1_mask`` has another shape, or a secret has prior 0.

    Examples
    --------
    >>> prior, s1 = [0.25] * 4, [True, True, False, False]
    >>> round(float(example1_expected_runs(prior, s1)), 6)
    3.0
    """
    prior, s1, cond1, cond2 = _split(prior, s1_mask)
    if cond1.max() >= 1 or cond2.max() >= 1:
        return np.inf
    e_given_s1 = 1.0 + np.sum(cond2 / (1 - cond2))
    e_given_s2 = 1.0 + np.sum(cond1 / (1 - cond1))
    return prior[s1].sum() * e_given_s1 + prior[~s1].sum() * e_given_s2


def example1_runs_bound(prior: ArrayLike, s1_mask: ArrayLike) -> float:
    r"""Bai et al. (2026), Thm. (Example 1): :math:`\E[T]\le 1+1/(1-\max_D\max_{s_i}\Pr(D\mid s_i))`.

    Parameters
    ----------
    prior : array_like, shape (N,)
        Prior :math:`\theta^*` over the datasets.
    s1_mask : array_like of bool, shape (N,)
        The datasets where :math:`s_1` holds.

    Returns
    -------
    float
        The bound (``inf`` if some :math:`\Pr(D\mid s_i)=1`).

    Raises
    ------
    ValueError
        If ``prior`` is not a pmf, ``s1_mask`` has another shape, or a secret has prior 0.

    Examples
    --------
    >>> prior, s1 = [0.25] * 4, [True, True, False, False]
    >>> round(float(example1_runs_bound(prior, s1)), 6)
    3.0
    """
    prior, _s1, cond1, cond2 = _split(prior, s1_mask)
    m = max(cond1.max(), cond2.max())
    return np.inf if m >= 1 else 1.0 + 1.0 / (1.0 - m)


def simulate_example1(
    prior: ArrayLike, s1_mask: ArrayLike, n_trials: int, rng: np.random.Generator, max_runs: int = 10_000
) -> tuple[np.ndarray, np.ndarray]:
    r"""Simulate the repeated-run attack on Example 1 (vectorised over trials).

    Each trial draws :math:`D\sim\theta^*`, runs :math:`\mathcal M^*` until two different
    outputs have been seen, and lets the attacker output the tuple component that did not
    change.

    Parameters
    ----------
    prior : array_like, shape (N,)
        Prior :math:`\theta^*` over the datasets.
    s1_mask : array_like of bool, shape (N,)
        The datasets where :math:`s_1` holds.
    n_trials : int
        Number of independent trials.
    rng : numpy.random.Generator
        Source of randomness.
    max_runs : int, default 10000
        Cap on the runs of one trial.

    Returns
    -------
    runs : ndarray of int, shape (n_trials,)
        Number of runs until the reveal.
    correct : ndarray of bool
        Whether the attacker's reconstruction equals the true dataset.

    Raises
    ------
    ValueError
        If ``prior`` is not a pmf, ``s1_mask`` has another shape, or a secret has prior 0.

    Examples
    --------
    >>> prior, s1 = [0.25] * 4, [True, True, False, False]
    >>> runs, correct = simulate_example1(prior, s1, 1000, np.random.default_rng(0))
    >>> bool(correct.all()), round(float(runs.mean()), 2)
    (True, 2.93)
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

    Parameters
    ----------
    n : int
        Number of bits, ``>= 3``.
    p_one : float, default 0.5
        :math:`\Pr(x_k=1)`.

    Returns
    -------
    prior : ndarray, shape (2**n,)
        The prior of the datasets.
    mech : ndarray, shape (2**n, 2**(n-1) + 2)
        Columns ``0 .. 2**(n-1)-1`` are the type-A outputs (bit vectors read as binary
        numbers), the last two columns the type-B outputs 0 and 1.
    bits : ndarray, shape (2**n, n)
        The bits of each dataset.

    Raises
    ------
    ValueError
        If ``n < 3`` or ``p_one`` is not a probability.

    Examples
    --------
    >>> [a.shape for a in example3_mechanism(3)]
    [(8,), (8, 6), (8, 3)]
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

    Parameters
    ----------
    n : int
        Number of bits.
    n_trials : int
        Number of independent trials.
    rng : numpy.random.Generator
        Source of randomness.
    max_runs : int, default 10000
        Cap on the runs of one trial.

    Returns
    -------
    runs, correct : ndarray
        As in :func:`simulate_example1`.

    Examples
    --------
    >>> runs, correct = simulate_example3(3, 1000, np.random.default_rng(0))
    >>> bool(correct.all()), round(float(runs.mean()), 2)
    (True, 2.98)
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


ALARM_SHA256 = "f5860caa7137b5817e0c4f169cce0f1451ce6c246b96f5ce4fb4a8167993be29"


def load_alarm() -> dict[str, tuple[tuple[str, ...], np.ndarray, tuple[str, ...]]]:
    """Return the ALARM network (37 nodes, 46 edges, 509 parameters), read from the packaged BIF file.

    Provenance and licence: see the module docstring; the SHA-256 of the file is checked.

    Returns
    -------
    dict
        The network, as :func:`rpp.pufferfish.read_bif` returns it.

    Raises
    ------
    ValueError
        If the packaged file does not have the recorded SHA-256.

    Examples
    --------
    >>> alarm = load_alarm()
    >>> len(alarm), sum(len(p) for p, _, _ in alarm.values())
    (37, 46)
    """
    raw = resources.files(__package__).joinpath("alarm.bif.gz").read_bytes()
    if hashlib.sha256(raw).hexdigest() != ALARM_SHA256:
        raise ValueError("alarm.bif.gz: SHA-256 does not match the recorded copy")
    return read_bif(gzip.decompress(raw).decode("ascii"))
