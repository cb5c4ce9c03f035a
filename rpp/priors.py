"""One-dimensional prior distributions of a query output given a secret.

Three families cover the book:

* :class:`Gaussian` -- ``N(mean, var)`` (Yang et al. 2026, Section III);
* :class:`GaussianMixture` -- ``sum_k w_k N(mu_k, s_k^2)`` (Yang et al. 2026,
  Section IV);
* :class:`Empirical` -- a discrete law on finitely many atoms, e.g. the empirical
  distribution of a data sample (the W_infinity baseline of Pierquin et al. 2024 and the
  alpha-Wasserstein mechanisms work on it directly), optionally weighted.

Constructors are keyword-only (``Gaussian(mean=0, var=4)``: a *variance*; ``Gaussian.from_std``
takes a standard deviation), and priors are values: immutable, ``==`` compares their
parameters and equal priors hash equally.  Every family satisfies the :class:`Prior` protocol,
whose :meth:`~Prior.components` is the mixture view the rules and divergences read, and supports
``convolve(scale=theta)``: the law of ``X + N(0, theta^2)``, the output of the Gaussian mechanism
(Yang et al. 2026, Proposition III.2: ``N(mu, s^2) * N(0, t^2) = N(mu, s^2 + t^2)``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from ._lib import cache as _cache
from ._lib import validation as v
from ._lib.numerics import lse

__all__ = ["Prior", "Gaussian", "GaussianMixture", "Empirical", "Components", "check_prior"]

_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)

_WEIGHT_TOL = 1e-8

#: What the numeric methods return: a float array (a 0-d array for a scalar argument).
FloatArray = NDArray[np.float64]


def _frozen(a: np.ndarray) -> np.ndarray:
    """Return a read-only float copy (priors are immutable values)."""
    out = np.array(a, dtype=float) + 0.0  # -0.0 becomes 0.0: equal laws, equal bytes (== and hash by digest)
    out.flags.writeable = False
    return out


def _noise_variance(scale: float) -> float:
    """``scale**2`` of a Gaussian noise scale ``scale >= 0`` (validated, named ``scale``)."""
    s = float(v.positive("scale", scale, allow_zero=True))
    return s * s


@dataclass(frozen=True, eq=False)
class Components:  # numpydoc ignore=PR02
    r"""Mixture view ``(weights, means, vars)`` of any prior; variances may be 0.

    The law :math:`\sum_k w_k\,\mathcal N(\mu_k,\sigma_k^2)` (a point mass when
    :math:`\sigma_k^2=0`), the form in which the rules of Yang et al. (2026) read a prior.
    Returned by :meth:`Prior.components`; frozen.

    Parameters
    ----------
    weights : ndarray, shape (K,)
        Mixture weights :math:`w_k`, summing to 1.
    means : ndarray, shape (K,)
        Component means :math:`\mu_k`.
    vars : ndarray, shape (K,)
        Component variances :math:`\sigma_k^2\ge0`.

    Examples
    --------
    >>> c = Gaussian(mean=1.0, var=4.0).components()
    >>> c.weights, c.means, c.vars
    (array([1.]), array([1.]), array([4.]))
    """

    weights: np.ndarray
    means: np.ndarray
    vars: np.ndarray


@runtime_checkable
class Prior(Protocol):
    """What every prior offers: its mixture view, moments, distribution functions, sampling, noise.

    :class:`Gaussian`, :class:`GaussianMixture` and :class:`Empirical` satisfy it (a structural
    type: ``isinstance(x, Prior)`` checks the members are there).

    Examples
    --------
    >>> isinstance(Gaussian(mean=0, var=1), Prior), isinstance(1.0, Prior)
    (True, False)
    """

    @property
    def mean(self) -> float:
        """The mean."""
        ...

    @property
    def var(self) -> float:
        """The variance."""
        ...

    def components(self) -> Components:
        """Return the prior as a mixture of Gaussians and point masses."""
        ...

    def cdf(self, x: ArrayLike) -> FloatArray:
        """Distribution function."""
        ...

    def ppf(self, u: ArrayLike) -> FloatArray:
        """Quantile function."""
        ...

    def sample(self, n: int, rng: np.random.Generator | int | None = None) -> FloatArray:
        """``n`` independent draws."""
        ...

    def convolve(self, *, scale: float) -> Prior:
        """Law of ``X + N(0, scale**2)``."""
        ...


class _Value:
    """Immutable value object: attributes are set once in ``__init__``; ``==`` and ``hash`` by ``_key``."""

    __slots__ = ()
    #: The family compared by ``==`` (a subclass, e.g. a fitted mixture, compares as its family).
    _kind: ClassVar[str] = ""

    def _key(self) -> tuple:  # pragma: no cover - defined by every subclass
        raise NotImplementedError

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: build a new one instead of setting {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _set(self, **attrs: object) -> None:
        for name, value in attrs.items():
            object.__setattr__(self, name, value)

    def __getstate__(self) -> dict[str, object]:
        slots = [n for c in type(self).__mro__ for n in getattr(c, "__slots__", ())]
        return {**{n: getattr(self, n) for n in slots}, **getattr(self, "__dict__", {})}

    def __setstate__(self, state: dict[str, object]) -> None:
        self._set(**state)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Value) or other._kind != self._kind:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self._kind, self._key()))


def _array_key(a: np.ndarray) -> tuple:
    """Return the content key of a prior's (frozen, ``-0.0``-free) array: shape and digest (remembered)."""
    return _cache.key(a)


class Gaussian(_Value):
    """Univariate Gaussian prior ``N(mean, var)``.

    Parameters
    ----------
    mean : float
        Mean, finite (keyword-only).
    var : float
        Variance, ``0 < var < inf`` (keyword-only; :meth:`~rpp.priors.Gaussian.from_std` takes a standard deviation).

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).
    TypeError
        If ``mean`` or ``var`` is not numeric, or they are passed positionally.

    Examples
    --------
    >>> Gaussian(mean=0, var=4).std
    2.0
    >>> Gaussian(mean=0, var=1).convolve(scale=3.0)  # Yang et al. 2026, Prop. III.2
    Gaussian(mean=0.0, var=10.0)
    >>> Gaussian(mean=0, var=1) == Gaussian.from_std(mean=0.0, std=1.0)
    True
    """

    __slots__ = ("mean", "var")
    _kind = "Gaussian"
    mean: float
    var: float

    def __init__(self, *, mean: float, var: float) -> None:
        self._set(mean=float(v.finite("mean", mean)), var=float(v.positive("var", var)))

    @classmethod
    def from_std(cls, *, mean: float, std: float) -> Gaussian:
        """``N(mean, std**2)``: the Gaussian of a standard deviation ``std > 0``.

        Parameters
        ----------
        mean : float
            Mean, finite.
        std : float
            Standard deviation, ``0 < std < inf`` (its square must not underflow to 0).

        Returns
        -------
        Gaussian
            ``Gaussian(mean=mean, var=std**2)``.

        Raises
        ------
        ValueError
            If an argument is outside its range (the message names it).

        Examples
        --------
        >>> Gaussian.from_std(mean=1.0, std=3.0)
        Gaussian(mean=1.0, var=9.0)
        """
        std = float(v.positive("std", std))
        var = std * std
        if not (0 < var < np.inf):
            raise ValueError("std must give a finite positive variance std**2 (0 < std**2 < inf)")
        return cls(mean=mean, var=var)

    def _key(self) -> tuple:
        return (self.mean, self.var)

    @property
    def std(self) -> float:
        """Standard deviation ``sqrt(var)``."""
        return float(np.sqrt(self.var))

    def __repr__(self) -> str:
        """Return the parameters, for display."""
        return f"Gaussian(mean={self.mean!r}, var={self.var!r})"

    def components(self) -> Components:
        """One component: ``(weights=[1], means=[mean], vars=[var])``."""
        return Components(np.ones(1), np.array([self.mean]), np.array([self.var]))

    def logpdf(self, x: ArrayLike) -> FloatArray:
        """Log density."""
        z = (np.asarray(x, dtype=float) - self.mean) / self.std
        return np.asarray(-0.5 * z**2 - np.log(self.std) - _LOG_SQRT_2PI)

    def pdf(self, x: ArrayLike) -> FloatArray:
        """Density."""
        return np.exp(self.logpdf(x))

    def cdf(self, x: ArrayLike) -> FloatArray:
        """Distribution function."""
        return np.asarray(special.ndtr((np.asarray(x, dtype=float) - self.mean) / self.std))

    def ppf(self, u: ArrayLike) -> FloatArray:
        """Quantile function."""
        return np.asarray(self.mean + self.std * special.ndtri(u))

    def sample(self, n: int, rng: np.random.Generator | int | None = None) -> FloatArray:
        """``n`` independent draws."""
        return v.rng_from(rng).normal(self.mean, self.std, size=v.integer("n", n, 0))

    def convolve(self, *, scale: float) -> Gaussian:
        """Law of ``X + N(0, scale**2)``: ``N(mean, var + scale**2)`` (Prop. III.2)."""
        return Gaussian(mean=self.mean, var=self.var + _noise_variance(scale))

    def as_mixture(self) -> GaussianMixture:
        """Return the same law as a one-component :class:`GaussianMixture`."""
        return GaussianMixture(weights=[1.0], means=[self.mean], vars=[self.var])

    def _shifted(self, c: float) -> Gaussian:
        """Return the law moved by ``-c`` (the caller checked that ``mean - c`` is exact)."""
        return Gaussian(mean=self.mean - c, var=self.var)


class GaussianMixture(_Value):
    """Univariate Gaussian mixture ``sum_k w_k N(mu_k, s_k^2)`` (Yang et al. 2026, Sec. II).

    All three parameters are keyword-only.  Two mixtures are equal when their (stored) weights,
    means and variances are, in the same order.

    Parameters
    ----------
    weights : array_like, shape (K,)
        Mixture weights, ``w_k >= 0`` and ``sum_k w_k = 1`` (to 1e-8; they are
        then renormalised exactly).  Components of weight 0 are dropped.
    means : array_like, shape (K,)
        Component means, finite.
    vars : array_like, shape (K,)
        Component variances, ``> 0``.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> M = GaussianMixture(weights=[0.25, 0.75], means=[-1, 1], vars=[1, 1])
    >>> M.mean, M.n_components
    (0.5, 2)
    """

    __slots__ = ("means", "vars", "weights")
    _kind = "GaussianMixture"
    weights: np.ndarray
    means: np.ndarray
    vars: np.ndarray

    def __init__(self, *, weights: ArrayLike, means: ArrayLike, vars: ArrayLike) -> None:
        w = v.positive("weights", v.vector("weights", np.atleast_1d(weights), min_size=0), allow_zero=True)
        mu = v.vector("means", np.atleast_1d(means), min_size=0)
        var = v.positive("vars", v.vector("vars", np.atleast_1d(vars), min_size=0))
        if w.size == 0:
            raise ValueError("weights must have at least one component")
        if not (w.size == mu.size == var.size):
            raise ValueError(f"weights, means and vars must have the same length, got {w.size}, {mu.size}, {var.size}")
        total = w.sum()
        if abs(total - 1.0) > _WEIGHT_TOL:
            raise ValueError(f"weights must sum to 1 (within {_WEIGHT_TOL})")
        keep = w > 0
        self._set(weights=_frozen(w[keep] / w[keep].sum()), means=_frozen(mu[keep]), vars=_frozen(var[keep]))

    @classmethod
    def _exact(cls, weights: np.ndarray, means: np.ndarray, vars: np.ndarray) -> GaussianMixture:
        """Return a mixture with these parameters stored as given (no validation, no renormalisation)."""
        out = cls.__new__(cls)
        out._set(weights=_frozen(weights), means=_frozen(means), vars=_frozen(vars))
        return out

    def _key(self) -> tuple:
        return (_array_key(self.weights), _array_key(self.means), _array_key(self.vars))

    def __repr__(self) -> str:
        """Return the parameters, for display."""
        return (
            f"GaussianMixture(weights={self.weights.round(6).tolist()}, "
            f"means={self.means.round(6).tolist()}, "
            f"vars={self.vars.round(6).tolist()})"
        )

    @property
    def n_components(self) -> int:
        """Number of components (of positive weight)."""
        return int(self.weights.size)

    @property
    def mean(self) -> float:
        """Mean ``sum_k w_k mu_k``."""
        return float(np.dot(self.weights, self.means))

    @property
    def var(self) -> float:
        """Variance ``sum_k w_k (s_k^2 + (mu_k - mean)^2)``."""
        m = self.mean
        return float(np.dot(self.weights, self.vars + (self.means - m) ** 2))

    def components(self) -> Components:
        """Return the components ``(weights, means, vars)``."""
        return Components(self.weights, self.means, self.vars)

    def logpdf(self, x: ArrayLike) -> FloatArray:
        """Log density (log-sum-exp over the components)."""
        x = np.asarray(x, dtype=float)
        sd = np.sqrt(self.vars)
        lp = -0.5 * ((x[..., None] - self.means) / sd) ** 2 - np.log(sd) - _LOG_SQRT_2PI
        return np.asarray(lse(lp, b=self.weights, axis=-1))

    def pdf(self, x: ArrayLike) -> FloatArray:
        """Density."""
        return np.exp(self.logpdf(x))

    def cdf(self, x: ArrayLike) -> FloatArray:
        """Distribution function."""
        x = np.asarray(x, dtype=float)
        return np.asarray(special.ndtr((x[..., None] - self.means) / np.sqrt(self.vars)) @ self.weights)

    def ppf(self, u: ArrayLike) -> FloatArray:
        """Quantile function by vectorised bisection (to ~1e-12 relative)."""
        u = np.asarray(u, dtype=float)
        sd = np.sqrt(self.vars)
        lo = np.full(u.shape, np.min(self.means - 40 * sd))
        hi = np.full(u.shape, np.max(self.means + 40 * sd))
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            below = self.cdf(mid) < u
            lo = np.where(below, mid, lo)
            hi = np.where(below, hi, mid)
            if np.all(hi - lo <= 1e-13 * np.maximum(1.0, np.abs(hi))):
                break
        out = 0.5 * (lo + hi)
        return np.where(u <= 0, -np.inf, np.where(u >= 1, np.inf, out))

    def sample(self, n: int, rng: np.random.Generator | int | None = None) -> FloatArray:
        """``n`` independent draws."""
        rng = v.rng_from(rng)
        k = rng.choice(self.n_components, size=v.integer("n", n, 0), p=self.weights)
        return rng.normal(self.means[k], np.sqrt(self.vars[k]))

    def convolve(self, *, scale: float) -> GaussianMixture:
        """Law of ``X + N(0, scale**2)``: every component variance grows by ``scale**2``."""
        return GaussianMixture._exact(self.weights, self.means, self.vars + _noise_variance(scale))

    def _shifted(self, c: float) -> GaussianMixture:
        """Return the law moved by ``-c``, weights and variances unchanged (the caller checked exactness)."""
        return GaussianMixture._exact(self.weights, self.means - c, self.vars)


class Empirical(_Value):
    """A discrete law on finitely many atoms: a data sample's empirical law, optionally weighted.

    Parameters
    ----------
    atoms : array_like
        A scalar or a 1-D array of at least one finite value (2-D input is rejected, not
        flattened: pass ``x.ravel()`` if that is meant).  Repeated values add up their weights.
    weights : array_like, optional
        Keyword-only.  One finite weight ``>= 0`` per atom, with a positive sum; they are
        normalised to probabilities.  Default: equal weights (the empirical distribution).

    Attributes
    ----------
    atoms : ndarray
        The atoms, sorted (repetitions kept).
    weights : ndarray
        Their normalised weights, aligned with ``atoms``.
    support : ndarray
        The distinct atoms of positive weight, sorted.
    probs : ndarray
        Their probabilities (summing to 1).

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Notes
    -----
    Two empirical laws are equal when their ``support`` and ``probs`` are: equal laws compare
    equal, whatever their atoms' order or repetition.

    Examples
    --------
    >>> E = Empirical([3, 1, 1, 2])
    >>> E.support, E.probs
    (array([1., 2., 3.]), array([0.5 , 0.25, 0.25]))
    >>> Empirical([1, 2, 3], weights=[2, 1, 1]) == E
    True
    """

    __slots__ = ("atoms", "probs", "support", "weights")
    _kind = "Empirical"
    atoms: np.ndarray
    weights: np.ndarray
    support: np.ndarray
    probs: np.ndarray

    def __init__(self, atoms: ArrayLike, *, weights: ArrayLike | None = None) -> None:
        x = v.vector("atoms", np.atleast_1d(v.as_float_array("atoms", atoms)), min_size=0)
        if x.size == 0:
            raise ValueError("atoms must contain at least one value, got an empty sample")
        if weights is None:
            w = np.full(x.size, 1.0 / x.size)
        else:
            w = _weights(weights, x.size)
        order = np.argsort(x, kind="stable")
        x, w = x[order], w[order]
        pos = w > 0
        support, inverse = np.unique(x[pos], return_inverse=True)
        if weights is None:
            probs = np.bincount(inverse).astype(float)
            probs = probs / probs.sum()  # counts / n, as the empirical law is usually written
        else:
            probs = np.bincount(inverse, weights=w[pos], minlength=support.size)
            probs = probs / probs.sum()
        self._set(atoms=_frozen(x), weights=_frozen(w), support=_frozen(support), probs=_frozen(probs))

    @classmethod
    def _exact(cls, atoms: np.ndarray, weights: np.ndarray, support: np.ndarray, probs: np.ndarray) -> Empirical:
        """Return an empirical law with these arrays stored as given (no validation, no merging)."""
        out = cls.__new__(cls)
        out._set(atoms=_frozen(atoms), weights=_frozen(weights), support=_frozen(support), probs=_frozen(probs))
        return out

    def _key(self) -> tuple:
        return (_array_key(self.support), _array_key(self.probs))

    def __repr__(self) -> str:
        """Return the parameters, for display."""
        return f"Empirical(n={self.n}, distinct={self.support.size})"

    @property
    def n(self) -> int:
        """Number of atoms (with repetitions)."""
        return int(self.atoms.size)

    def _equal_weights(self) -> bool:
        return bool(np.all(self.weights == self.weights[0]))

    @property
    def mean(self) -> float:
        """Mean ``sum p_k x_k`` (the sample mean for equal weights)."""
        if self._equal_weights():
            return float(np.mean(self.atoms))
        return float(np.dot(self.probs, self.support))

    @property
    def var(self) -> float:
        """Variance ``sum p_k (x_k - mean)^2`` (the population variance for equal weights)."""
        if self._equal_weights():
            return float(np.var(self.atoms))
        return float(np.dot(self.probs, (self.support - self.mean) ** 2))

    def components(self) -> Components:
        """Point masses (variance 0) at the distinct atoms."""
        return Components(self.probs, self.support, np.zeros(self.support.size))

    def cdf(self, x: ArrayLike) -> FloatArray:
        """Distribution function ``P(X <= x)``."""
        if self._equal_weights():
            return np.asarray(np.searchsorted(self.atoms, np.asarray(x, dtype=float), side="right") / self.n)
        cum = np.concatenate([[0.0], np.minimum(np.cumsum(self.probs), 1.0)])
        idx = np.searchsorted(self.support, np.asarray(x, dtype=float), side="right")
        return np.asarray(cum[idx])

    def ppf(self, u: ArrayLike) -> FloatArray:
        """Return the left-continuous quantile ``F^{-1}(u) = inf{x : F(x) >= u}`` for ``u in (0, 1]``.

        Exact: ``F`` at the ``k``-th distinct atom is ``count/n`` for equal weights, else the exact
        sum of the stored probabilities; the rounded cumulative sums decide where they are farther
        from ``u`` than their error bound, exact sums (``math.fsum``, whose sign is exact) decide the
        rest.  A ``u`` above the total of the stored probabilities gives the largest atom.

        Examples
        --------
        >>> Empirical([0.0, 1.0]).ppf([0.5, 0.5 + 5e-13, 1.0]).tolist()
        [0.0, 1.0, 1.0]
        """
        u = np.asarray(u, dtype=float)
        n = self.support.size
        if self._equal_weights():  # F at the k-th distinct atom: (atoms <= it) / n, an exact ratio
            counts = np.searchsorted(self.atoms, self.support, side="right")

            def at_least(k: int, x: float) -> bool:  # F_k >= x, exactly
                return Fraction(int(counts[k]), self.n) >= Fraction(x)

            cum = counts / self.n
        else:
            probs = self.probs

            def at_least(k: int, x: float) -> bool:
                return math.fsum([*probs[: k + 1].tolist(), -x]) >= 0

            cum = np.cumsum(probs)
        # sequential sums: |cum_k - F_k| <= (k + 1) u_r F_k (Higham, Thm 4.4); the ratios, 1 ulp
        err = cum * ((np.arange(n) + 2) * 2.0**-52)
        flat = u.ravel()
        idx = np.searchsorted(cum, flat, side="left")
        lo = np.searchsorted(cum + err, flat, side="left")  # below lo: certainly F_k < u
        hi = np.searchsorted(cum - err, flat, side="left")  # from hi on: certainly F_k >= u
        for j in np.flatnonzero(lo != hi):  # undecided: the first k in [lo, hi) with F_k >= u
            k, end = int(lo[j]), min(int(hi[j]), n)
            while k < end and not at_least(k, float(flat[j])):
                k += 1
            idx[j] = k
        return self.support[np.clip(idx, 0, n - 1)].reshape(u.shape)

    def sample(self, n: int, rng: np.random.Generator | int | None = None) -> FloatArray:
        """``n`` independent draws (with replacement)."""
        rng = v.rng_from(rng)
        n = v.integer("n", n, 0)
        if self._equal_weights():  # equal weights: draw from the atoms (as before)
            return rng.choice(self.atoms, size=n, replace=True)
        return rng.choice(self.support, size=n, replace=True, p=self.probs)

    def convolve(self, *, scale: float) -> GaussianMixture:
        """Law of ``X + N(0, scale**2)``: an equal-variance mixture at the atoms (``scale > 0``)."""
        var = float(v.positive("scale", scale)) ** 2
        if not var > 0:
            raise ValueError("scale must be large enough for scale**2 > 0")
        return GaussianMixture._exact(self.probs, self.support, np.full(self.support.size, var))

    def _shifted(self, c: float) -> Empirical:
        """Return the law moved by ``-c``, probabilities unchanged (the caller checked exactness)."""
        return Empirical._exact(self.atoms - c, self.weights, self.support - c, self.probs)


def _weights(weights: ArrayLike, n: int) -> np.ndarray:
    """Validate empirical weights: ``n`` finite values ``>= 0`` with a positive sum; normalised."""
    try:
        w: np.ndarray | None = np.atleast_1d(np.asarray(weights, dtype=float))
    except (TypeError, ValueError):
        w = None
    if w is None:  # raised outside the except block: numpy's message repeats the weights
        raise ValueError(f"weights must be an array of {n} finite numbers >= 0, got a {type(weights).__name__}")
    if w.ndim != 1 or w.size != n:
        raise ValueError(f"weights must be a 1-D array with one weight per atom ({n}), got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and >= 0")
    total = float(np.sum(w))
    if not (total > 0 and np.isfinite(total)):
        raise ValueError("weights must have a positive finite sum")
    return w / total


def check_prior(name: str, prior: object) -> Gaussian | GaussianMixture | Empirical:
    """Return ``prior`` if it is a :class:`Gaussian`, :class:`GaussianMixture` or :class:`Empirical`.

    Parameters
    ----------
    name : str
        Argument name for the message.
    prior : object
        The value to check.

    Returns
    -------
    Gaussian, GaussianMixture or Empirical
        ``prior`` itself.

    Raises
    ------
    TypeError
        Naming the argument ``name`` otherwise.

    Examples
    --------
    >>> check_prior("prior_i", Gaussian(mean=0, var=1))
    Gaussian(mean=0.0, var=1.0)
    """
    if not isinstance(prior, (Gaussian, GaussianMixture, Empirical)):
        raise TypeError(
            f"{name} must be an rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical, got {type(prior).__name__}"
        )
    return prior
