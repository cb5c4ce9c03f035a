r"""The exact rule: the smallest noise whose divergence plus its error meets the budget (one order).

The divergence of the noisy outputs is non-increasing in the noise scale (a larger noise
is post-processing of a smaller one: :math:`N(0,\theta_2^2) = N(0,\theta_1^2) * N(0,
\theta_2^2-\theta_1^2)`; for Laplace noise :math:`\mathrm{Lap}(b_2) = \mathrm{Lap}(b_1) *
[r^2\delta_0 + (1-r^2)\mathrm{Lap}(b_2)]` with :math:`r = b_1/b_2 < 1`, comparing
characteristic functions).  So the minimal noise is found by monotone root finding
(``rpp._lib.numerics.min_feasible``) on ``value + error`` of the divergence, with a
sufficient rule as the feasible upper end.  The error is a proved bound for two Gaussians
and for Laplace noise on two empirical priors, and a quadrature error *estimate* otherwise
(see :class:`~rpp.calibration.Calibration`).

* :func:`~rpp.rules.exact` -- the rule: Gaussian or Laplace noise, any priors, a noise scale (two
  Gaussians with Gaussian noise: the vectorised kernel
  :func:`rpp.rules.gaussian_exact_variance`, broadcasting over ``alpha``/``epsilon``);
* :func:`~rpp.rules.search` -- the same search for a caller that shares its divergences
  (:class:`DivergenceMemo`, one per order) and knows a scale below the root (``above``):
  :func:`rpp.calibrate` does;
* :func:`~rpp.rules.order_probe` -- which of the two orders of a secret pair to solve first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._lib import cache as _cache
from .._lib import validation as v
from .._lib.numerics import min_feasible, sqrt_up
from ..certified import Certified
from ..divergence import bin_samples, bins_are_few
from ..noise import GaussianNoise, LaplaceNoise
from ..priors import Empirical, Gaussian, Prior, check_prior
from ._empirical import GRID_MIN_PAIRS, empirical_scale
from ._gaussian import gaussian_exact_variance, scale_of_variance
from ._mixture import gmm_ot_variance

__all__ = ["exact", "search", "order_probe", "DivergenceMemo"]

NOISES = ("gaussian", "laplace")


class DivergenceMemo:
    r"""The divergence of one order at noise scales, each computed once: ``memo(scale) -> (value, error)``.

    :math:`D_\alpha(P_i * Z\|P_j * Z)` with :math:`Z` the noise of family ``noise`` at ``scale``
    (θ or ``b``), computed by the noise object (:class:`rpp.noise.GaussianNoise`,
    :class:`rpp.noise.LaplaceNoise`), ``value + error`` its upper bound.  The search of
    :func:`~rpp.rules.exact` reads it; a caller that checks scales itself (:func:`rpp.calibrate`) passes its
    own memo to :func:`~rpp.rules.search` and :func:`~rpp.rules.order_probe` so that no divergence is computed twice.

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        The priors of the order.
    alpha : float
        Rényi order, ``> 1``.
    noise : {"gaussian", "laplace"} or type
        The noise family, by name or as the class (:class:`rpp.noise.GaussianNoise`,
        :class:`rpp.noise.LaplaceNoise`).

    Examples
    --------
    >>> from rpp import Empirical
    >>> memo = DivergenceMemo(Empirical([0.0]), Empirical([1.0]), alpha=2.0, noise="gaussian")
    >>> value, error = memo(1.0)  # a shift of 1 at theta = 1: alpha / 2
    >>> round(value, 12), len(memo.known())
    (1.0, 1)
    """

    def __init__(self, prior_i: Prior, prior_j: Prior, *, alpha: float, noise: str | type = "gaussian") -> None:
        self.prior_i = check_prior("prior_i", prior_i)
        self.prior_j = check_prior("prior_j", prior_j)
        self.alpha = float(v.alpha_order(alpha))
        self.noise = v.noise_family("noise", noise, NOISES)
        self._values: dict[float, tuple[float, float]] = {}
        self._rigorous: dict[float, bool] = {}
        self._starts: dict[float, tuple[float, bool]] = {}
        self._guesses: dict[tuple[float, bool], tuple[float, float] | None] = {}
        self._coarse: dict[float, Callable[[float], float] | None] = {}

    def __call__(self, scale: float) -> tuple[float, float]:
        """``(value, error)`` at the noise scale ``scale``."""
        scale = float(scale)
        if scale not in self._values:
            cls = GaussianNoise if self.noise == "gaussian" else LaplaceNoise
            result = cls(scale=scale).divergence(self.prior_i, self.prior_j, alpha=self.alpha)
            self._values[scale] = _value_error(result)
            self._rigorous[scale] = bool(getattr(result, "rigorous", False))
        return self._values[scale]

    def certified(self, scale: float) -> Certified:
        """Return the divergence at ``scale`` as a :class:`rpp.Certified` (computed once, like ``memo(scale)``)."""
        value, error = self(scale)
        return Certified(value, error, rigorous=self._rigorous[float(scale)])

    def known(self) -> dict[float, tuple[float, float]]:
        """Return a copy of ``{scale: (value, error)}`` computed so far."""
        return dict(self._values)

    def _upper_end(self, epsilon: float) -> tuple[float, bool]:
        """``(scale or variance, proved)``: the sufficient rule that starts the search, computed once per budget.

        Gaussian noise: the ``"gmm-ot"`` variance (proved); Laplace noise: ``_laplace_start``.
        :func:`order_probe` and :func:`search` both need it (at a million atoms the
        Laplace rule is a second's work).
        """
        starts = self._starts
        if epsilon not in starts:
            if self.noise == "gaussian":
                var = gmm_ot_variance(self.prior_i, self.prior_j, self.alpha, epsilon)
                starts[epsilon] = (var, True)
            else:
                starts[epsilon] = _laplace_start(self.prior_i, self.prior_j, self.alpha, epsilon)
        return starts[epsilon]

    def _guess(self, epsilon: float, fine: bool = True) -> tuple[float, float] | None:
        """``(b, slope)``: this order's Laplace root estimated on binned samples, and the slope there.

        Only for Laplace noise on two samples of at least ``_GUIDE_MIN_ATOMS`` atoms together,
        at least ``_GUIDE_ATOMS_PER_BIN`` to a bin (``None`` otherwise): :func:`_binned_root` on
        bins (``laplace_binned.bin_samples``, centres of mass) of width ``4 _GUIDE_RHO`` times the starting
        scale, then (``fine=True``) on bins of ``_GUIDE_RHO`` times that first root, started
        from it (measured at a million atoms, three samples: the first root within 1e-8 of the
        samples', 5e-7 once, the second within 1.3e-11; its error falls like the square of the
        width).  ``slope`` is the derivative of ``log(D / epsilon)`` in ``log b`` on the finer
        bins at ``b`` (central difference; ``nan`` with ``fine=False``).  A guide
        for where the search evaluates, never a bound: every decision of the search is still
        taken on the divergence itself.
        """
        key = (epsilon, fine)
        if key not in self._guesses:
            if fine:  # the fine root starts from the coarse one (computed once: order_probe asks for it too)
                coarse_guess = self._guess(epsilon, fine=False)
                self._guesses[key] = coarse_guess and self._fine_guess(epsilon, coarse_guess[0])
            else:
                self._guesses[key] = self._coarse_guess(epsilon)
        return self._guesses[key]

    def _coarse_width(self, epsilon: float) -> float | None:
        """Return the width of the coarse bins of :meth:`_guess`, or ``None`` where no guide applies."""
        p, q = self.prior_i, self.prior_j
        if not (
            self.noise == "laplace"
            and isinstance(p, Empirical)
            and isinstance(q, Empirical)
            and p.support.size + q.support.size >= _GUIDE_MIN_ATOMS
        ):
            return None
        start = self._upper_end(epsilon)[0]
        width = 4 * _GUIDE_RHO * start
        if not (np.isfinite(start) and start > 0 and _bins_are_few(p, q, width / 2)):
            return None
        return width

    def _coarse_ratio(self, epsilon: float) -> Callable[[float], float] | None:
        """Return ``f(b) = log((value + error) / epsilon)`` on the coarse bins of :meth:`_guess` (memoised), or ``None``."""
        if epsilon not in self._coarse:
            width = self._coarse_width(epsilon)
            f = None if width is None else _binned_log_ratio(self.prior_i, self.prior_j, self.alpha, epsilon, width)
            self._coarse[epsilon] = None if f is None else _memoised(f)
        return self._coarse[epsilon]

    def _coarse_guess(self, epsilon: float) -> tuple[float, float] | None:
        """``(b, nan)``: the root on the coarse bins of :meth:`_guess`, or ``None`` where no guide applies."""
        f = self._coarse_ratio(epsilon)
        if f is None:
            return None
        coarse = _binned_root(f, self._upper_end(epsilon)[0])
        return (coarse, np.nan) if coarse > 0 else None

    def _fine_guess(self, epsilon: float, coarse: float) -> tuple[float, float]:
        r"""``(b, slope)``: one Newton step from the coarse root on the fine bins of :meth:`_guess`.

        ``f`` (:func:`_binned_log_ratio`, in ``log b``) on the fine bins at ``coarse * exp(+-h)``:
        their mean is ``f(coarse)`` to :math:`h^2 f''/2` (about 1e-12 with ``h = 1e-6``) and their
        difference the slope to :math:`h^2 f'''/6`; the step lands within about
        :math:`\delta^2 |f''/(2f')|` of the fine root, :math:`\delta` the coarse root's distance from
        it in ``log b`` (measured at most 5e-7: below 1e-12).  Two divergences of the fine bins
        instead of a search on them.  ``(coarse, nan)`` where the slope is not negative.
        """
        p, q = self.prior_i, self.prior_j
        f = _binned_log_ratio(p, q, self.alpha, epsilon, _GUIDE_RHO * coarse)
        h = 1e-6
        up, down = f(coarse * float(np.exp(h))), f(coarse * float(np.exp(-h)))
        slope = (up - down) / (2 * h)
        if not (np.isfinite(slope) and slope < 0):
            return (coarse, np.nan)
        root = coarse * float(np.exp(-0.5 * (up + down) / slope))
        return (root, slope) if np.isfinite(root) and root > 0 else (coarse, np.nan)


# The tolerance of the Laplace search (in log b): an infeasible and a feasible scale this close.
_RTOL_LAPLACE = 1e-10
# The evaluations after the guided Newton step, this far (relative) either side of it: they
# bracket the root within the search's tolerance if the step is within 1e-11 of it (measured
# 1e-14 at a million atoms: the step starts within 1e-10 and the binned slope is close to the
# samples').
_NEWTON_MARGIN = 1e-11

# Laplace noise on two large samples: the search is guided by the root of the same problem on
# the samples binned to width 2 * _GUIDE_RHO * (the starting scale); below _GUIDE_MIN_ATOMS atoms
# (both samples together) a divergence is cheap and the search runs unguided.
_GUIDE_MIN_ATOMS = 20_000
_GUIDE_RHO = 1e-3
# ... and only where the finer bins hold at least this many atoms on average: a search on the
# binned samples takes about 37 of their divergences, the guide saves about 5 of the samples'
# own (measured at 1e4, 1e5 and 1e6 atoms each: it paid only at 1e6, 70 atoms per bin)
_GUIDE_ATOMS_PER_BIN = 20


def _bins_are_few(p: Empirical, q: Empirical, width: float) -> bool:
    """Whether bins of ``width`` hold on average at least ``_GUIDE_ATOMS_PER_BIN`` atoms (the guide then pays)."""
    return bins_are_few(p, q, width, _GUIDE_ATOMS_PER_BIN)


def _binned_root(f, start: float) -> float:
    """Return the smallest ``b`` with ``f(b) <= 0`` (``f``: :func:`_binned_log_ratio`, non-increasing), from ``start`` down by steps of e: an estimate."""
    return float(min_feasible(f, 0.0, start, rtol=1e-9, step=1.0, closest=True))


def _memoised(f: Callable[[float], float]) -> Callable[[float], float]:
    """``f`` remembering its values (a binned ratio asked again at the same scale by the probe and the search)."""
    cache: dict[float, float] = {}

    def g(b):
        b = float(b)
        if b not in cache:
            cache[b] = f(b)
        return cache[b]

    return g


def _binned_log_ratio(p: Prior, q: Prior, alpha: float, epsilon: float, width: float) -> Callable[[float], float]:
    """``f(b) = log((value + error) / epsilon)`` of the Laplace divergence of the binned samples (two samples only)."""
    if not (isinstance(p, Empirical) and isinstance(q, Empirical)):
        raise TypeError("binned guides are for two rpp.Empirical priors")
    bp, bq = _binned_pair(p, q, width)  # second order in the width: a guide, not a bound

    def f(b):
        return _log_ratio(sum(_value_error(LaplaceNoise(scale=b).divergence(bp, bq, alpha=alpha))), epsilon)

    return f


# The samples binned for the guides, per unordered pair and width: both orders' coarse guides
# (and the order probe) read the same bins, swapped.
_BINNED = _cache.Cache("rules.binned_pairs", entries=4)


def _binned_pair(p: Empirical, q: Empirical, width: float) -> tuple[Empirical, Empirical]:
    """Return ``laplace_binned.bin_samples(p, q, width, centre="mass")[:2]``, computed once per unordered pair and width.

    Each sample's bins depend on the other only through the common origin (the smaller first
    atom), so the pair binned in the other order is the same two priors, swapped.  Keyed by the
    priors' content (rpp._lib.cache).
    """
    kp, kq = _cache.key(p), _cache.key(q)
    swap = hash(kq) < hash(kp)  # either order of a pair: one entry
    key = (kq, kp, float(width)) if swap else (kp, kq, float(width))
    hit = _BINNED.get(key)
    if hit is None:
        first, second = (q, p) if swap else (p, q)
        hit = _BINNED.put(key, tuple(bin_samples(first, second, width, centre="mass")[:2]))
    return (hit[1], hit[0]) if swap else (hit[0], hit[1])


def _value_error(result: object) -> tuple[float, float]:
    """``(value, error)`` of a noise object's divergence (a pair, or a result with ``value``/``error``)."""
    if isinstance(result, tuple):
        return float(result[0]), float(result[1])
    return float(result.value), float(result.error)  # type: ignore[attr-defined]


def _log_ratio(d, epsilon):
    """``log(d / epsilon)``, of the sign of ``d - epsilon`` (``-1e300`` for ``d = 0``, ``inf`` for ``d = inf``)."""
    return float(np.log(d / epsilon)) if d > 0 else -1e300


def _known_bracket(known, epsilon, lo, hi, proved, above):
    """``(hi, proved, hint)`` tightened by the divergences already known (``{point: (value, error)}``).

    The smallest feasible point known becomes the upper end if it is below the rule's, the
    largest infeasible point known below that end (or ``above``) the lower hint.
    """
    feasible = [z for z, (val, err) in known.items() if z > lo and val + err <= epsilon]
    if feasible and (min(feasible) < hi or not proved):
        hi, proved = float(min(feasible)), False
    infeasible = [z for z, (val, err) in known.items() if lo < z < hi and val + err > epsilon]
    infeasible += [float(above)] if lo < above < hi else []
    return hi, proved, (max(infeasible) if infeasible else None)


def _domain_lower_bound(p, q, alpha):
    """Largest noise variance at which ``D_alpha(p * N || q * N)`` is certainly infinite."""
    ci, cj = p.components(), q.components()
    return max(0.0, (alpha - 1) * ci.vars.max() - alpha * cj.vars.max())


def exact(
    prior_i: Prior, prior_j: Prior, *, alpha: ArrayLike, epsilon: ArrayLike, noise: str | type = "gaussian"
) -> float | np.ndarray:
    r"""Minimal noise scale with :math:`D_\alpha(P_i * Z\|P_j * Z)` + its error :math:`\le \varepsilon` (one order).

    Gaussian noise :math:`Z = N(0,\theta^2)` (returns θ) or Laplace noise
    :math:`Z = \mathrm{Lap}(b)` (returns ``b``).  The divergence is non-increasing in the scale
    (module docstring), so the scale is found by monotone root finding on ``value + error``
    (:func:`~rpp.rules.search`).  Two Gaussians with Gaussian noise: the closed form of Yang et al. 2026,
    Cor. III.3, with its round-off bound (:func:`rpp.rules.gaussian_exact_variance`),
    vectorised: ``alpha`` and ``epsilon`` broadcast.  Otherwise they are scalars.

    The error is a proved bound for two Gaussians and for Laplace noise on two empirical
    priors, and a quadrature error *estimate* otherwise.  A variance θ² is turned into θ by a
    rounded-up square root, so θ² (exactly) is at least the variance checked.

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        The secret-conditioned priors.
    alpha : float or array_like
        Rényi order, ``> 1``.
    epsilon : float or array_like
        Budget, ``>= 1e-300`` (finite).
    noise : {"gaussian", "laplace"} or type
        The noise family, by name or as the class (:class:`rpp.noise.GaussianNoise`,
        :class:`rpp.noise.LaplaceNoise`).

    Returns
    -------
    float or ndarray
        The scale (θ or ``b``), ``>= 0``.

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution.
    ValueError
        If ``alpha``, ``epsilon`` or ``noise`` is out of range, or ``alpha``/``epsilon`` are
        arrays for priors other than two Gaussians with Gaussian noise.

    Examples
    --------
    >>> from rpp import Empirical, Gaussian
    >>> theta = exact(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), alpha=3.0, epsilon=0.5)
    >>> round(theta**2, 9)  # alpha Delta / (2 eps) - 1
    11.0
    >>> b = exact(Empirical([0.0]), Empirical([1.0]), alpha=2.0, epsilon=1.0, noise="laplace")
    >>> from rpp.divergence import laplace_shift_divergence
    >>> bool(laplace_shift_divergence(1.0, b, 2.0).value <= 1.0 < laplace_shift_divergence(1.0, 0.999 * b, 2.0).value)
    True
    """
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    noise = v.noise_family("noise", noise, NOISES)
    a, e = v.alpha_order(alpha), v.epsilon_budget(epsilon)
    if noise == "gaussian" and isinstance(prior_i, Gaussian) and isinstance(prior_j, Gaussian):
        var = gaussian_exact_variance(prior_i.mean, prior_i.var, prior_j.mean, prior_j.var, alpha=a, epsilon=e)
        return scale_of_variance(var)
    if np.ndim(a) or np.ndim(e):
        raise ValueError(
            "alpha and epsilon must be scalars (arrays broadcast only for two rpp.Gaussian priors with "
            f"Gaussian noise), got shapes {np.shape(a)} and {np.shape(e)}"
        )
    return search(prior_i, prior_j, alpha=float(a), epsilon=float(e), noise=noise)


def search(
    prior_i: Prior,
    prior_j: Prior,
    *,
    alpha: float,
    epsilon: float,
    noise: str | type = "gaussian",
    above: float = 0.0,
    memo: DivergenceMemo | None = None,
) -> float:
    r"""Return the minimal scale of :func:`~rpp.rules.exact` (scalars), reading and filling a caller's divergences.

    Gaussian noise: the root in the variance :math:`\theta^2` is bracketed by the domain edge
    below and the ``"gmm-ot"`` variance above (a proved sufficient rule, so it is not
    evaluated); every variance ``z`` tried is evaluated at the scale ``sqrt_up(z)``, the scale
    returned.  Laplace noise: the root in ``b``, with the upper end of ``_laplace_start``.
    Divergences already in ``memo`` (e.g. :func:`~rpp.rules.order_probe`'s) tighten the bracket.

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        The secret-conditioned priors.
    alpha : float
        Rényi order, ``> 1``.
    epsilon : float
        Budget, ``>= 1e-300`` (finite).
    noise : {"gaussian", "laplace"} or type
        The noise family, by name or as the class (:class:`rpp.noise.GaussianNoise`,
        :class:`rpp.noise.LaplaceNoise`).
    above : float
        A scale believed infeasible (e.g. the other order's root, where this order failed the
        check): the search starts there.  It is evaluated first; if it is feasible after all,
        the search continues below it, so a wrong hint costs time, never noise.
    memo : DivergenceMemo, optional
        The divergences of this order (its priors, ``alpha`` and ``noise`` must match); a new
        one by default.

    Returns
    -------
    float
        The scale, ``>= 0``.

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution, or ``memo`` not a :class:`DivergenceMemo`.
    ValueError
        If an argument is out of range, or ``memo`` is for other priors, order or noise.

    Examples
    --------
    >>> from rpp import Empirical
    >>> p, q = Empirical([0.0, 1.0]), Empirical([0.0, 3.0])
    >>> memo = DivergenceMemo(p, q, alpha=2.0)
    >>> theta = search(p, q, alpha=2.0, epsilon=1.0, memo=memo)
    >>> value, error = memo(theta)  # the returned scale was checked, and is remembered
    >>> bool(value + error <= 1.0)
    True
    """
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    noise = v.noise_family("noise", noise, NOISES)
    alpha = float(v.alpha_order(alpha))
    epsilon = float(v.epsilon_budget(epsilon))
    above = float(v.positive("above", above, allow_zero=True, allow_inf=True))
    if memo is None:
        memo = DivergenceMemo(prior_i, prior_j, alpha=alpha, noise=noise)
    elif not isinstance(memo, DivergenceMemo):
        raise TypeError(f"memo must be an rpp.rules.DivergenceMemo or None, got a {type(memo).__name__}")
    elif not _same(memo, prior_i, prior_j, alpha, noise):
        raise ValueError("memo must hold the divergences of the same priors, alpha and noise")
    if noise == "gaussian":
        return _search_gaussian(prior_i, prior_j, alpha, epsilon, above, memo)
    return _search_laplace(epsilon, above, memo)


def _same(memo, prior_i, prior_j, alpha, noise):
    """Whether ``memo`` holds the divergences of these priors (the same objects, or equal ones), order and noise."""
    if (memo.alpha, memo.noise) != (alpha, noise):
        return False
    return (memo.prior_i is prior_i or memo.prior_i == prior_i) and (memo.prior_j is prior_j or memo.prior_j == prior_j)


def _var_of_scale(s: float) -> float:
    """Return the largest variance ``z`` with ``sqrt_up(z) == s`` (about ``s**2``, rounded down)."""
    from fractions import Fraction

    z = s * s
    if Fraction(z) > Fraction(s) ** 2:
        z = float(np.nextafter(z, 0.0))
    return z


def _search_gaussian(prior_i, prior_j, alpha, epsilon, above, memo):
    if isinstance(prior_i, Gaussian) and isinstance(prior_j, Gaussian):
        var = gaussian_exact_variance(
            prior_i.mean, prior_i.var, prior_j.mean, prior_j.var, alpha=alpha, epsilon=epsilon
        )
        return sqrt_up(float(var))

    def f(z):  # log((value + error) / epsilon) at the scale returned for z: smoother in log z
        val, err = memo(sqrt_up(z))
        return _log_ratio(val + err, epsilon)

    lo = _domain_lower_bound(prior_i, prior_j, alpha)
    hint_var = above * above
    hint = hint_var if hint_var > lo else None
    if hint is None and lo == 0 and f(0.0) <= 0:
        return 0.0
    hi = memo._upper_end(epsilon)[0]
    # two samples: the sort-based gmm-ot variance is within a small factor of the root; bracket
    # it by steps of e (the default steps of e^8 probe tiny noises, costly for large samples)
    step = 1.0 if isinstance(prior_i, Empirical) and isinstance(prior_j, Empirical) else 8.0
    proved = bool(np.isfinite(hi) and hi > lo)
    known = {_var_of_scale(s): r for s, r in memo.known().items()}
    hi, proved, hint = _known_bracket(known, epsilon, lo, hi, proved, hint_var)
    z = min_feasible(f, lo, max(hi, lo), rtol=1e-9, step=step, hi_feasible=proved, infeasible=hint, closest=True)
    return sqrt_up(_checked_end(f, z))


def _search_laplace(epsilon, above, memo):
    def f(b):
        val, err = memo(b)
        return _log_ratio(val + err, epsilon)

    hint = above if above > 0 else None
    if hint is None and f(0.0) <= 0:
        return 0.0
    hi, proved = memo._upper_end(epsilon)
    guess = memo._guess(epsilon)
    if guess is not None and (above < guess[0] < hi or not proved):
        # the samples' divergence at the guide, then a Newton step with the binned slope, then
        # evaluations _NEWTON_MARGIN either side of it: with the guide they bracket the root within
        # the search's tolerance (the guide itself is one end if it is that close: one evaluation
        # on the other side suffices).  The memo keeps them; the search goes on from them.
        b, slope = guess
        fb = f(b)
        r = b * float(np.exp(-fb / slope)) if np.isfinite(fb) and slope < 0 else np.nan
        if np.isfinite(r) and r > 0:
            near = abs(np.log(r / b)) + _NEWTON_MARGIN <= 0.99 * _RTOL_LAPLACE
            sides = (1 - _NEWTON_MARGIN,) if near and fb <= 0 else (1 + _NEWTON_MARGIN,) if near else None
            for point in [r * k for k in sides or (1 + _NEWTON_MARGIN, 1 - _NEWTON_MARGIN)]:
                if above < point < hi or not proved:
                    f(point)
    hi, proved, hint = _known_bracket(memo.known(), epsilon, 0.0, hi, proved, above)
    # the upper end is within a small factor of the root: bracket it by steps of e
    b = min_feasible(f, 0.0, hi, rtol=_RTOL_LAPLACE, step=1.0, hi_feasible=proved, infeasible=hint, closest=True)
    return float(_checked_end(f, b))


def _checked_end(f, x: float) -> float:
    """``x``, checked: ``f(x) <= 0`` (the divergence plus its error within the budget), else stepped up.

    A sufficient rule's scale (``hi_feasible``) is proved only as mathematics: its condition is
    evaluated in binary64, and for two point masses the condition *is* the divergence, which then
    exceeded epsilon by ~1e-16 relative (issue #35's mutation report).  So the search's end is checked
    like every other point (one evaluation, memoised), and stepped up by 1e-12, x8, ... (at most
    2e-6 relative) until it is within the budget.  Where that does not reach it (at a budget near the
    divergence's own error bar, the check can never pass) the end is returned as it was: the rule's
    proved scale, which calibrate's final check judges.
    """
    if x == 0 or f(x) <= 0:
        return x
    for k in range(8):
        nxt = x * (1 + 1e-12 * 8.0**k)
        if f(nxt) <= 0:
            return nxt
    return x


def _laplace_start(prior_i, prior_j, alpha, epsilon):
    r"""``(b, proved)``: the upper end of the Laplace search.

    Two samples: the joint-convexity scale of ``"w-alpha-tight"`` (a sort; proved), from many
    atoms on its distances rounded up to a grid (``rpp.rules._empirical.empirical_scale``: at most
    0.27 % larger, as proved, and a fraction of the cost).  Two
    continuous priors: that rule integrates over mixture quantiles (seconds at 50 components),
    so the Laplace scale of the ``"gmm-ot"`` variance (:math:`2b^2 = \theta^2`), not proved,
    checked and grown by doubling.  Mixed priors: 1, likewise.
    """
    if isinstance(prior_i, Empirical) and isinstance(prior_j, Empirical):
        grid = prior_i.support.size + prior_j.support.size >= GRID_MIN_PAIRS  # its distances on a grid
        b = empirical_scale(prior_i, prior_j, alpha, epsilon, "laplace", "tight", grid=grid)
        return (float(b), True) if np.isfinite(b) and b > 0 else (1.0, False)
    if isinstance(prior_i, Empirical) or isinstance(prior_j, Empirical):
        return 1.0, False
    b = float(np.sqrt(gmm_ot_variance(prior_i, prior_j, alpha, epsilon) / 2))
    return (b, False) if np.isfinite(b) and b > 0 else (1.0, False)


def _binned_order(memos, epsilon) -> tuple[int, int] | None:
    """``(first, second)`` decided on the coarse bins of two large samples (Laplace noise), else ``None``.

    Both orders' binned divergences by steps of e down from the start, until one meets the
    budget and the other does not (a few divergences of the bins); if both fail at the same step,
    their binned roots decide.  An estimate: a wrong order costs the second root, never noise.
    """
    ratios = [memo._coarse_ratio(epsilon) for memo in memos]
    if ratios[0] is None or ratios[1] is None:
        return None
    b = min(memo._upper_end(epsilon)[0] for memo in memos)
    for _ in range(64):
        ok = [r(b) <= 0 for r in ratios]
        if ok[0] != ok[1]:
            return (0, 1) if ok[1] else (1, 0)
        if not ok[0]:  # both roots in the last step
            roots = [memo._guess(epsilon, fine=False) for memo in memos]
            if roots[0] is None or roots[1] is None:
                return None
            return (1, 0) if roots[1][0] > roots[0][0] else (0, 1)
        b /= np.e
    return None


def _check_orders_memos(orders: object, memos: object) -> None:
    """Raise a TypeError or ValueError naming ``orders`` or ``memos`` unless they are pairs of priors and one memo each."""
    if not isinstance(orders, (list, tuple)) or not all(isinstance(o, (list, tuple)) and len(o) == 2 for o in orders):
        raise TypeError(f"orders must be a sequence of (prior, prior) pairs, got a {type(orders).__name__}")
    for pair in orders:
        check_prior("orders", pair[0])
        check_prior("orders", pair[1])
    if not isinstance(memos, (list, tuple)) or not all(isinstance(m, DivergenceMemo) for m in memos):
        raise TypeError(f"memos must be a sequence of rpp.rules.DivergenceMemo, got a {type(memos).__name__}")
    if len(memos) != len(orders):
        raise ValueError(f"memos must hold one DivergenceMemo per order: {len(orders)}, got {len(memos)}")


def order_probe(
    orders: Sequence[tuple[Prior, Prior]],
    *,
    alpha: float,
    epsilon: float,
    noise: str | type,
    memos: Sequence[DivergenceMemo],
) -> tuple[int, int]:
    r"""Which order of a secret pair needs more noise: ``(first, second)``, the order to solve first.

    The root of :math:`\max(D_\alpha(i\|j), D_\alpha(j\|i))` is the larger of the two
    orders' roots; solving the right order first spares the other's root (one check at the
    first root suffices, the divergence being non-increasing in the noise).  Both orders'
    divergences are computed at a probe scale one step of :math:`e` (in the variance
    :math:`\theta^2`, or in the Laplace scale ``b``) below the smaller of the two orders'
    cheap sufficient scales (``"gmm-ot"``; for Laplace noise the upper end of
    :func:`~rpp.rules.exact`'s search), and kept in ``memos`` (one per order), where :func:`~rpp.rules.search`
    finds them and starts from the tightest bracket they give.  If one order meets the budget at
    the probe and the other does not, the latter is solved first; otherwise both are computed
    at a second point a step of :math:`e` towards their roots, each order's root is estimated by
    the secant of :math:`\log(D/\varepsilon)` against the log of the noise parameter through
    its two points, and the larger is solved first (a divergence that is larger at the probe
    but flat can need less noise than a steep one).  A wrong guess costs the second root, never
    noise: the caller checks both orders at the result.

    Parameters
    ----------
    orders : sequence of two (prior, prior) pairs
        The two orders.
    alpha : float
        Rényi order, ``> 1``: the order the memos were made for (checked: a memo of another order
        would answer for the wrong divergence).
    epsilon : float
        Budget, ``>= 1e-300`` (finite).
    noise : {"gaussian", "laplace"} or type
        The noise family, by name or as the class (:class:`rpp.noise.GaussianNoise`,
        :class:`rpp.noise.LaplaceNoise`).
    memos : sequence of two DivergenceMemo
        The orders' divergences (filled in place).

    Returns
    -------
    first, second : int
        Indices of the order to solve first and second.

    Raises
    ------
    TypeError
        If ``orders`` is not a sequence of pairs of rpp distributions, or ``memos`` not a sequence
        of :class:`DivergenceMemo`.
    ValueError
        If ``alpha`` is not an order ``> 1`` or is not the order of the ``memos``, ``epsilon`` or
        ``noise`` is out of range, or ``memos`` does not hold one memo per order.

    Examples
    --------
    >>> from rpp import Empirical
    >>> p, q = Empirical([0.0, 0.1]), Empirical([0.0, 3.0])
    >>> memos = [DivergenceMemo(p, q, alpha=2.0), DivergenceMemo(q, p, alpha=2.0)]
    >>> order_probe([(p, q), (q, p)], alpha=2.0, epsilon=1.0, noise="gaussian", memos=memos)  # D(q||p) needs more
    (1, 0)
    >>> [len(m.known()) for m in memos]  # one probe each, kept for the root finder
    [1, 1]
    >>> order_probe([(p, q), (q, p)], alpha=3.0, epsilon=1.0, noise="gaussian", memos=memos)
    Traceback (most recent call last):
    ...
    ValueError: alpha: the memos were made for another Rényi order than alpha
    """
    a = float(v.alpha_order(alpha))
    epsilon = float(v.epsilon_budget(epsilon))
    _check_orders_memos(orders, memos)
    if any(m.alpha != a for m in memos):
        raise ValueError("alpha: the memos were made for another Rényi order than alpha")
    noise = v.noise_family("noise", noise, NOISES)
    if len(orders) < 2:
        return 0, 1
    gauss = noise == "gaussian"
    p0, q0 = orders[0]
    if isinstance(p0, Empirical) and isinstance(q0, Empirical) and tuple(orders[1]) == (q0, p0):
        # two samples: the sufficient rule that starts the search ("gmm-ot", or "w-alpha-tight"
        # for Laplace noise) reads the quantile coupling through |x - y| only, the same for both
        # orders: computed once
        memos[1]._starts.setdefault(epsilon, memos[0]._upper_end(epsilon))
    if not gauss:
        decided = _binned_order(memos, epsilon)
        if decided is not None:
            return decided
    if gauss:
        bounds = [float(np.sqrt(memo._upper_end(epsilon)[0])) for memo in memos]
    else:
        bounds = [memo._upper_end(epsilon)[0] for memo in memos]
    probe = min(bounds) * np.exp(-0.5 if gauss else -1.0)  # a step of e in theta^2 or in b
    if not (np.isfinite(probe) and probe > 0):
        return 0, 1
    probe = sqrt_up(probe * probe) if gauss else float(probe)  # a scale the search itself evaluates

    def log_ratios(scale):  # log((value + error) / epsilon) of both orders, kept in the memos
        return [_log_ratio(sum(memos[k](scale)), epsilon) for k in range(len(orders))]

    g0 = log_ratios(probe)
    if (g0[0] > 0) != (g0[1] > 0):  # one order infeasible at the probe, the other not: decided
        return (1, 0) if g0[1] > 0 else (0, 1)
    # a second point a step of e towards both roots; each order's root in y = log(noise parameter)
    # by the secant through its two points (slope -1 when it is not negative and finite): an order
    # whose divergence falls steeply may need more noise than one that is larger but flat
    second = probe * np.exp((1.0 if g0[0] > 0 else -1.0) * (0.5 if gauss else 1.0))
    second = sqrt_up(second * second) if gauss else float(second)
    g1 = log_ratios(second)
    dy = np.log(probe / second) * (2.0 if gauss else 1.0)
    roots = []
    for a, b in zip(g0, g1, strict=True):
        slope = (a - b) / dy if np.isfinite(a) and np.isfinite(b) else -1.0
        roots.append(a / -slope if slope < 0 else (np.inf if a > 0 else -np.inf))
    return (1, 0) if roots[1] > roots[0] else (0, 1)
