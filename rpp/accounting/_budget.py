r"""Calibrating a release for every secret pair, and a budget for repeated releases.

The practitioner's part of chapter 9 of The RPP Book, kept small on purpose:

* :func:`~rpp.accounting.calibrate_all_pairs` -- the noise for *all* discriminative pairs of a secret
  attribute (both orders), for one prior model or a finite prior class; the answer is the
  worst pair, with a per-pair table.  In the words of OpenDP it is the inverse of the
  *privacy map* of the Gaussian *measurement* (:class:`rpp.noise.GaussianNoise`).
* :class:`ReleaseBudget` -- a session budget (Tumult's word) or accountant (dp-accounting's)
  for repeated releases of **one** query on **unchanged** data: it composes them exactly
  (:func:`releases_divergence`), draws the noise itself and refuses a release that would
  exceed (α, ε).

Pufferfish privacy (Kifer & Machanavajjhala 2014) protects the pairs of secrets of
:math:`\mathbb S_{\text{pairs}}` under every prior of a class :math:`\mathcal P`: here the
secrets are the values of one attribute, :math:`\mathbb S_{\text{pairs}}` all pairs of them
(or a given list), and :math:`\mathcal P` one prior model (a dict ``{secret: prior}``) or a
finite class (a list of such dicts, e.g. bootstrap refits).  The guarantee is
:math:`\max_{\rho\in\mathcal P}\max_{(s_i, s_j)} D_\alpha(P(M \mid s_i, \rho)\|P(M\mid s_j,
\rho)) \le \varepsilon` (Yang et al. 2026, Def. II.1).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

import numpy as np

from .._lib import validation as v
from .._lib.numerics import at_most
from .._lib.optional import missing
from ..calibration import Calibration, pair_divergence
from ..priors import check_prior
from ..sampling import Release, bit_source, sample_release
from ._releases import calibrate_releases, combined_scale, per_release_scale

__all__ = ["calibrate_all_pairs", "ReleaseBudget"]

# Relative slack on epsilon (round-off only), as in rpp.calibrate.


def _members(priors: Any) -> list[Mapping]:
    """One prior model (a mapping secret -> prior) or a finite class (a sequence of them)."""
    members = [priors] if isinstance(priors, Mapping) else priors
    if isinstance(members, (str, bytes)) or not isinstance(members, Sequence) or not members:
        raise ValueError(
            "priors must be a dict {secret: prior} with at least 2 secrets, or a non-empty list "
            f"of such dicts (a prior class), got {type(priors).__name__}"
        )
    for r, member in enumerate(members):
        if not isinstance(member, Mapping) or len(member) < 2:
            raise ValueError(
                f"priors[{r}] must be a dict {{secret: prior}} with at least 2 secrets, got a {type(member).__name__}"
            )
        for s, prior in member.items():
            check_prior(f"priors[{r}][{s!r}]", prior)
    return list(members)


def _pair_key(prior_i: Any, prior_j: Any, directed: bool) -> Any:
    """Key of a pair of priors by value: ordered if ``directed``, else either order (both are protected)."""
    return (prior_i, prior_j) if directed else frozenset((prior_i, prior_j))


def _pair_list(members: list[Mapping], pairs: Any, directed: bool) -> list[tuple[int, Any, Any]]:
    """(member, s_i, s_j) for every protected pair of every member."""
    if pairs is None:
        if directed:
            raise ValueError(
                "directed=True needs an explicit list of pairs: with all pairs, both orders of "
                "each are protected anyway"
            )
        return [(r, a, b) for r, m in enumerate(members) for a, b in itertools.combinations(list(m), 2)]
    pairs = list(pairs)
    if not pairs:
        raise ValueError("pairs must be None (all pairs) or a non-empty list of (s_i, s_j)")
    out = []
    for k, pair in enumerate(pairs):
        if not (isinstance(pair, tuple) and len(pair) == 2) or pair[0] == pair[1]:
            raise ValueError(f"pairs must hold 2-tuples of distinct secrets (pairs[{k}] is not one)")
        for r, m in enumerate(members):
            if any(s not in m for s in pair):
                raise ValueError(f"pairs[{k}] names a secret that has no prior in priors[{r}]")
            out.append((r, pair[0], pair[1]))
    return out


def _executor(executor: Any) -> Executor | None:
    """``None`` or a :class:`concurrent.futures.Executor`; a TypeError naming ``executor`` otherwise."""
    if executor is not None and not isinstance(executor, Executor):
        raise TypeError(
            "executor must be None or a concurrent.futures.Executor (e.g. a ProcessPoolExecutor or a "
            f"dask.distributed client's get_executor()), got a {type(executor).__name__}"
        )
    return executor


def _map(executor: Executor | None, fn: Callable[..., Any], *columns: Iterable[Any]) -> list[Any]:
    """``[fn(*args) for args in zip(*columns)]``, in order, on ``executor``'s workers if one is given."""
    if executor is None:
        return list(map(fn, *columns))
    # as lists of equal length: dask.distributed's ClientExecutor.map takes sized iterables only
    # (an itertools.repeat column has no len()).
    rows = list(zip(*columns, strict=False))  # a repeat() column is as long as the others
    return list(executor.map(fn, *(list(col) for col in zip(*rows, strict=True)))) if rows else []


def _calibrate_pair(prior_i: Any, prior_j: Any, options: dict[str, Any]) -> Calibration:
    """One pair's calibration (a top-level function: it pickles, for a process pool)."""
    return calibrate_releases(prior_i, prior_j, **options)


def _pair_divergence(prior_i: Any, prior_j: Any, options: dict[str, Any]) -> Any:
    """One pair's divergence at a given scale (a top-level function: it pickles, for a process pool)."""
    return pair_divergence(prior_i, prior_j, **options)


def calibrate_all_pairs(
    priors: Mapping | Sequence[Mapping],
    *,
    alpha: float,
    epsilon: float,
    method: str = "exact",
    pairs: Sequence[tuple[Any, Any]] | None = None,
    directed: bool = False,
    k: int = 1,
    executor: Executor | None = None,
    require: str = "proved",
) -> tuple[Calibration, Any]:
    r"""Noise for every secret pair (and every prior of a class): the worst pair decides.

    Each pair :math:`(s_i, s_j)` of each prior model :math:`\rho` is calibrated with
    :func:`rpp.accounting.calibrate_releases` (that is :func:`rpp.calibrate`
    for ``k = 1``), both orders unless ``directed``; the largest scale
    :math:`\theta = \max_{\rho, (s_i,s_j)} \theta_{\rho,ij}` protects every pair, because
    :math:`D_\alpha` of the noisy outputs is non-increasing in θ (a larger noise is
    post-processing of a smaller one: :math:`N(0,\theta_2^2) = N(0,\theta_1^2) *
    N(0,\theta_2^2-\theta_1^2)`).  The divergence (value plus error) of every pair is then
    evaluated *at that common* θ.

    Parameters
    ----------
    priors : dict or list of dict
        ``{secret: prior}`` (rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical), at least 2
        secrets; or a list of such dicts, a finite prior class :math:`\mathcal P`.
    alpha : float
        Rényi order, ``> 1``.
    epsilon : float
        Budget, ``> 0`` (of all ``k`` releases together).
    method : str
        A Gaussian method of :func:`rpp.methods` (``"exact"``: the minimal noise).
    pairs : list of (s_i, s_j), optional
        The discriminative pairs; default: all unordered pairs of secrets.
    directed : bool
        Protect :math:`D_\alpha(s_i\|s_j)` only (needs ``pairs``).
    k : int
        Number of releases of the query the scale is for (``>= 1``; :func:`calibrate_releases`).
    executor : concurrent.futures.Executor, optional
        Runs the pairs' calibrations, then their divergences at the common scale, on its
        workers (``executor.map``): a ``concurrent.futures.ProcessPoolExecutor``, or a
        dask.distributed client's ``get_executor()`` for a class larger than one machine.  The
        results are identical to the serial run (default ``None``: in this process); the
        priors are sent to the workers (they pickle).
    require : {"proved", "estimate"}
        As in :func:`rpp.calibrate`: ``"proved"`` (default) proves every pair's calibration and
        its divergence at the common scale; ``"estimate"`` is the explicit opt-in for speed.

    Returns
    -------
    worst : Calibration
        The calibration of the worst pair, with ``divergence``/``divergence_error`` the
        maximum over *all* pairs at its scale; ``details`` holds ``orders``, ``k``,
        ``scale_one``, ``pair`` (its secrets), ``member`` (its prior in the class),
        ``pairs`` (how many pairs are protected) and ``distinct_pairs`` (how many were
        calibrated: a pair of priors equal by value, in another member or in the other order,
        is calibrated and evaluated once).
    table : pandas.DataFrame
        One row per (member, s_i, s_j): ``scale`` (its own calibration), ``divergence`` and
        ``divergence_error`` at the common scale, ``guaranteed`` and ``worst``.

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution, ``directed`` not a bool or ``executor`` not an
        Executor.
    ValueError
        If ``priors``, ``pairs``, ``alpha``, ``epsilon``, ``k``, ``method`` or ``require`` is out of range, or no proved path exists (``require="proved"``).

    Examples
    --------
    >>> from rpp import Gaussian
    >>> priors = {"a": Gaussian(mean=0, var=1), "b": Gaussian(mean=1, var=1), "c": Gaussian(mean=2, var=1)}
    >>> worst, table = calibrate_all_pairs(priors, alpha=3, epsilon=0.5)
    >>> worst.details["pair"], round(worst.variance, 9)  # alpha 2^2 / (2 eps) - 1
    (('a', 'c'), 11.0)
    >>> table[["s_i", "s_j", "worst"]].to_numpy().tolist()
    [['a', 'b', False], ['a', 'c', True], ['b', 'c', False]]
    """
    try:
        import pandas as pd
    except ImportError as exc:
        raise missing("pandas", "calibrate_all_pairs (its table)") from exc

    members = _members(priors)
    directed = v.flag("directed", directed)
    alpha = float(v.alpha_order(alpha))
    epsilon = float(v.epsilon_budget(epsilon))
    k = v.integer("k", k)
    v.one_of("require", require, ["estimate", "proved"])
    plist = _pair_list(members, pairs, directed)
    # a pair of priors that recurs (the same secret-conditioned priors in several members of a
    # class, or in both orders) is calibrated and evaluated once: the work grows with the
    # number of distinct pairs (priors compare by value)
    keys = [_pair_key(members[r][a], members[r][b], directed) for r, a, b in plist]
    first: dict[Any, tuple[int, Any, Any]] = {}
    for (r, a, b), key in zip(plist, keys, strict=True):
        first.setdefault(key, (r, a, b))
    executor = _executor(executor)
    left = [members[r][a] for r, a, _ in first.values()]
    right = [members[r][b] for r, _, b in first.values()]
    options = dict(alpha=alpha, epsilon=epsilon, k=k, method=method, directed=directed, require=require)
    own = dict(zip(first, _map(executor, _calibrate_pair, left, right, itertools.repeat(options)), strict=True))
    cals = [own[key] for key in keys]
    w = int(np.argmax([float(c.scale) for c in cals]))
    scale = float(cals[w].scale)
    at = dict(alpha=alpha, scale=per_release_scale(scale, k), directed=directed, require=require)
    at_common = dict(zip(first, _map(executor, _pair_divergence, left, right, itertools.repeat(at)), strict=True))
    rows = []
    rigorous = True
    for (r, a, b), cal, key in zip(plist, cals, keys, strict=True):
        c = at_common[key]
        rigorous = rigorous and c.rigorous
        rows.append(
            dict(
                member=r,
                s_i=a,
                s_j=b,
                scale=float(cal.scale),
                divergence=float(c.value),
                divergence_error=float(c.error),
            )
        )
    table = pd.DataFrame(rows)
    table["within_budget"] = at_most(table["divergence"].to_numpy(), table["divergence_error"].to_numpy(), epsilon)
    table["worst"] = np.arange(len(table)) == w
    if len(members) == 1:
        table = table.drop(columns="member")
    top = int(np.argmax(table["divergence"] + table["divergence_error"]))
    worst = dataclasses.replace(
        cals[w],
        divergence=float(table["divergence"].iloc[top]),
        divergence_error=float(table["divergence_error"].iloc[top]),
        rigorous=rigorous,
        within_budget=bool(table["within_budget"].all()),
        guaranteed=bool(table["within_budget"].all()) and rigorous,
        details={
            **cals[w].details,
            "pair": plist[w][1:],
            "member": plist[w][0],
            "pairs": len(plist),
            "distinct_pairs": len(first),
        },
    )
    return worst, table


class ReleaseBudget:
    r"""Budget for repeated releases of **one** query with fresh Gaussian noise; refuses overspending.

    The budget holds the (α, ε) target, the priors (a model or a finite class, as in
    :func:`~rpp.accounting.calibrate_all_pairs`) and its own source of noise.  :meth:`~rpp.accounting.ReleaseBudget.release` adds
    :math:`N(0, \theta^2)` noise to the query value -- exact samples of the Gaussian mechanism
    rounded to a fine grid, from the operating system's entropy (:func:`rpp.sampling.secure_gaussian`,
    a post-processing of the Gaussian mechanism, so the accounting below holds unchanged) --
    *only if* the releases made so far plus this one still meet the budget:

    .. math::

        \begin{aligned}
        &\max_{\rho,\,(s_i,s_j),\,\text{orders}}
        D_\alpha\bigl(P_i * N(0, \theta_{\text{comb}}^2)\,\|\,P_j * N(0, \theta_{\text{comb}}^2)\bigr)\\
        &\qquad\le \varepsilon, \qquad
        \theta_{\text{comb}} = \Bigl(\sum_t \theta_t^{-2}\Bigr)^{-1/2},
        \end{aligned}

    the exact joint divergence of all releases (:func:`releases_divergence`), value plus
    error of the noise object's divergence (proved where ``rigorous``).  Otherwise it raises a
    ValueError naming ``scale`` and the smallest scale that would still fit, and records
    nothing.

    **What it composes.**  Releases of the *same* value :math:`f(X)` -- one query on
    unchanged data -- with independent noise at scales fixed in advance (not chosen from
    earlier outputs).  The noise comes from the budget's own source, never a seed passed
    per call (the same seed twice with different scales would reveal :math:`f(X)`
    exactly).  That every release passes the same value is the **caller's** part: the
    budget keeps no copy of the value, in plaintext or hashed, and charges every release
    to the budget whatever value it is passed.  A check would need a copy, and its refusal
    would be an equality oracle: whoever can call :meth:`~rpp.accounting.ReleaseBudget.release`
    would learn, at no cost to the budget, whether a guess equals :math:`f(X)`.  So every
    refusal depends on the scales and the releases made so far only (all of them public),
    never on the value.  It does **not** compose releases of different queries, of
    changed data, or with Laplace noise: for Pufferfish privacy there is no general
    composition theorem (Bai et al. 2026); open another budget and account for the
    combination yourself.  Post-processing of released values is free.

    Parameters
    ----------
    priors : dict or list of dict
        ``{secret: prior}`` or a finite prior class, as in :func:`~rpp.accounting.calibrate_all_pairs`.
    alpha : float
        Rényi order, ``> 1``.
    epsilon : float
        Total budget of all releases, ``> 0``.
    pairs : list of (s_i, s_j), optional
        The discriminative pairs (default: all pairs, both orders).
    directed : bool
        Protect :math:`D_\alpha(s_i\|s_j)` only (needs ``pairs``).
    method : str
        Gaussian calibration method of :meth:`~rpp.accounting.ReleaseBudget.min_scale` and :meth:`~rpp.accounting.ReleaseBudget.max_releases`
        (``"exact"``: they are then tight); a method that does not meet the budget (the
        published ``"bisection"``) is refused with a ValueError.
    rng : None or random.SystemRandom
        Source of all the noise of this budget: ``None``, the operating system's entropy.  An int
        seed or a numpy Generator is refused (ValueError): reproducible noise can be subtracted
        by whoever learns the seed.
    insecure_seed : int or tuple of int, optional
        Reproducible, **unsafe** noise for teaching and tests (release ``t`` draws from the
        stream ``(insecure_seed, t)``); every release warns
        :class:`rpp.sampling.InsecureNoiseWarning`, its record says ``source="insecure_seed"``
        (so :func:`rpp.accounting.release_report` refuses to call it publishable), and
        ``reproducible_noise``, ``report()`` and the repr say ``UNSAFE: reproducible noise``.
        Never for a real release.
    executor : concurrent.futures.Executor, optional
        Runs the pairs' calibrations and the divergences of every check of the budget on its
        workers, as in :func:`~rpp.accounting.calibrate_all_pairs` (identical results).

    Raises
    ------
    TypeError, ValueError
        As :func:`~rpp.accounting.calibrate_all_pairs` for bad arguments; ``rng`` of the wrong type is a TypeError,
        an int or a numpy Generator a ValueError (use ``insecure_seed``), both ``rng`` and
        ``insecure_seed`` a ValueError.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> budget = ReleaseBudget({"a": Gaussian(mean=0, var=1), "b": Gaussian(mean=2, var=1)}, alpha=3, epsilon=0.5)
    >>> round(budget.min_scale() ** 2, 9)  # one release: theta^2 = 11
    11.0
    >>> budget.max_releases(np.sqrt(22.0))  # two at theta^2 = 22 reach D = epsilon exactly: not provable with round-off
    1
    >>> budget.max_releases(np.sqrt(22.5))  # two releases at theta^2 = 22.5 are worth one at 11.25
    2
    >>> r = budget.release(1.0, scale=np.sqrt(22.5))  # a Release record: r.value is the noisy value
    >>> r = budget.release(1.0, scale=np.sqrt(22.5))
    >>> budget.release(1.0, scale=np.sqrt(22.5))
    Traceback (most recent call last):
    ...
    ValueError: scale=4.743416490252569: 3 releases would reach D_alpha = 0.7059 > epsilon = 0.5 (value + error); the smallest scale that fits is 22.2486
    """

    def __init__(
        self,
        priors: Mapping | Sequence[Mapping],
        *,
        alpha: float,
        epsilon: float,
        pairs: Sequence[tuple[Any, Any]] | None = None,
        directed: bool = False,
        method: str = "exact",
        rng: Any = None,
        insecure_seed: Any = None,
        executor: Executor | None = None,
    ) -> None:
        self._executor = _executor(executor)
        self._members = _members(priors)
        self.directed = v.flag("directed", directed)
        self.alpha = float(v.alpha_order(alpha))
        self.epsilon = float(v.epsilon_budget(epsilon))
        self._pairs = _pair_list(self._members, pairs, self.directed)
        bit_source(rng, insecure_seed, warn=False)  # refuses int seeds and numpy Generators
        self._rng = rng
        self._insecure_seed = insecure_seed
        #: True if the noise is reproducible (``insecure_seed``): UNSAFE, not a real release.
        self.reproducible_noise = insecure_seed is not None
        one, _ = calibrate_all_pairs(
            priors,
            alpha=self.alpha,
            epsilon=self.epsilon,
            method=method,
            pairs=pairs,
            directed=directed,
            executor=self._executor,
        )
        if not one.within_budget:
            raise ValueError(f"method {method!r} does not meet (alpha, epsilon) for these priors; use method='exact'")
        if not one.scale > 0:  # the budget would be an infinite precision: nothing to account
            raise ValueError(
                "epsilon: these priors meet (alpha, epsilon) without any noise, so a budget of releases "
                "has nothing to spend; lower epsilon (a budget needs epsilon below the noise-free divergence)"
            )
        #: Scale of a single release that spends the whole budget (calibrated with ``method``).
        self.scale_one = float(one.scale)
        self.method = method
        self._scales: list[float] = []  # the value is not kept: no copy, no oracle

    def __repr__(self) -> str:
        """Return alpha, epsilon, the number of releases, what is spent, and whether the noise is reproducible."""
        unsafe = ", UNSAFE: reproducible noise" if self.reproducible_noise else ""
        return (
            f"ReleaseBudget(alpha={self.alpha!r}, epsilon={self.epsilon!r}, releases={len(self._scales)}, "
            f"spent={self.spent:.6g}{unsafe})"
        )

    @property
    def scales(self) -> tuple[float, ...]:
        """Noise scales of the releases made so far, in order."""
        return tuple(self._scales)

    def _used(self) -> float:
        r"""Total precision of the releases so far, :math:`\sum_t \theta_t^{-2}`."""
        return float(sum(1.0 / s**2 for s in self._scales))

    def _certified(self, precision: float) -> float:
        """Certified joint divergence (value + error) of releases of total ``precision``, max over pairs and class."""
        if precision == 0:
            return 0.0
        s = float(1.0 / np.sqrt(precision))  # the combined scale
        left = [self._members[r][a] for r, a, _ in self._pairs]
        right = [self._members[r][b] for r, _, b in self._pairs]
        at = dict(alpha=self.alpha, scale=s, directed=self.directed)
        return max(float(c.upper) for c in _map(self._executor, _pair_divergence, left, right, itertools.repeat(at)))

    @property
    def spent(self) -> float:
        r"""Certified :math:`D_\alpha` of all releases so far (0 before the first)."""
        return self._certified(self._used())

    def _fits(self, precision: float) -> bool:
        return self._certified(precision) <= self.epsilon

    def _precision_left(self) -> float:
        r"""Precision still available, :math:`\theta_1^{-2} - \sum_t \theta_t^{-2}`; 0 within 1e-9 of the total."""
        total = 1.0 / self.scale_one**2
        left = total - self._used()
        return 0.0 if left <= 1e-9 * total else left

    def min_scale(self) -> float:
        r"""Smallest noise scale of one more release that the budget accepts (``inf`` if spent).

        The budget is a total precision: :math:`\sum_t \theta_t^{-2} \le \theta_1^{-2}` with
        :math:`\theta_1` = :attr:`scale_one`, so the next release needs
        :math:`\theta \ge (\theta_1^{-2} - \sum_t \theta_t^{-2})^{-1/2}`; the value is stepped
        up until :meth:`~rpp.accounting.ReleaseBudget.release` would accept it.  Less than a relative 1e-9 of the total
        precision left counts as spent.  With ``method="exact"`` the value is the smallest
        accepted scale (to the calibration's tolerance); with another rule it is a
        conservative one.
        """
        left = self._precision_left()
        if left <= 0:
            return float(np.inf)
        s = float(1.0 / np.sqrt(left))
        used = self._used()
        for i in range(60):
            if self._fits(used + 1.0 / s**2):
                return s
            s *= 1 + 1e-12 * 4 ** min(i, 20)
        return float(np.inf)  # pragma: no cover - round-off never needs this many steps

    def max_releases(self, scale: float) -> int:
        """How many more releases at ``scale`` (``> 0``) the budget accepts.

        Counted in total precision, as :meth:`~rpp.accounting.ReleaseBudget.min_scale`: ``floor(left * scale**2)`` releases,
        checked with the divergence plus its error; once less than a relative 1e-9 of the precision
        is left, 0.
        """
        scale = float(v.positive("scale", scale))
        used, each = self._used(), 1.0 / scale**2
        left = self._precision_left()
        n = max(0, int(np.floor(left / each * (1 + 1e-12))))
        while n > 0 and not self._fits(used + n * each):
            n -= 1
        for _ in range(2):  # round-off of the estimate, upwards (never more than a step)
            if left > 0 and self._fits(used + (n + 1) * each):
                n += 1
        return n

    def release(self, value: float, *, scale: float) -> Release:
        r"""Release ``value + Z``, :math:`Z \sim N(0, \text{scale}^2)`, from the budget's source of noise.

        The noise is :func:`rpp.sampling.secure_gaussian`'s: the Gaussian mechanism rounded to
        the grid :func:`rpp.sampling.default_grid` of ``scale``, sampled exactly.

        Parameters
        ----------
        value : float
            The query value :math:`f(X)`; the caller passes the same one at every release of
            this budget.  It is not kept and not compared with earlier releases' (see the
            class), so no refusal depends on it.
        scale : float
            Noise standard deviation, ``> 0``.

        Returns
        -------
        rpp.sampling.Release
            The record of the release: ``.value`` the noisy value, ``.source`` the budget's
            source of noise (``"insecure_seed"`` with ``insecure_seed``), no calibration
            attached (the budget's account, :attr:`spent`, is the guarantee of all its
            releases together; :func:`rpp.accounting.release_report` takes the records).

        Raises
        ------
        ValueError
            If ``value`` is not a finite scalar, ``scale`` is not positive and finite, or the
            release would exceed the budget (nothing is recorded).  Whether a release is
            refused depends on ``scale`` and the earlier releases' scales only; no message
            contains ``value``.
        """
        x = v.finite("value", value)
        if x.ndim:
            raise ValueError(f"value must be a scalar query value, got shape {x.shape}")
        scale = float(v.positive("scale", scale))
        after = self._certified(self._used() + 1.0 / scale**2)
        if not after <= self.epsilon:
            floor = self.min_scale()
            hint = f"the smallest scale that fits is {floor:.6g}" if np.isfinite(floor) else "the budget is spent"
            raise ValueError(
                f"scale={scale!r}: {len(self._scales) + 1} releases would reach D_alpha = {after:.4g} "
                f"> epsilon = {self.epsilon:g} (value + error); {hint}"
            )
        seed = self._insecure_seed
        if seed is not None:  # release t draws from the stream (seed, t): reproducible, fresh each time
            seed = (*(seed if isinstance(seed, tuple) else (seed,)), len(self._scales))
        out = sample_release("gaussian", float(x), scale, None, self._rng, seed, stacklevel=3)
        self._scales.append(scale)
        return out

    def report(self) -> dict[str, Any]:
        """Return a summary: (α, ε), the noise and its source, releases, their scales, the combined scale, spent and what is left.

        ``"noise source"`` is ``"operating system entropy ..."`` or, with ``insecure_seed``,
        ``"UNSAFE: reproducible noise ..."``.
        """
        return {
            "alpha": self.alpha,
            "epsilon": self.epsilon,
            "noise": "gaussian",
            "noise source": (
                "UNSAFE: reproducible noise (insecure_seed)"
                if self.reproducible_noise
                else "operating system entropy (exact, rounded)"
            ),
            "pairs": len(self._pairs),
            "releases": len(self._scales),
            "scales": self.scales,
            "combined scale": combined_scale(list(self._scales)),
            "spent (D_alpha + error)": self.spent,
            "min scale of next release": self.min_scale(),
        }
