"""One-dimensional prior distributions of a query output given a secret.

Three families cover the book:

* :class:`Gaussian` -- ``N(mean, var)`` (Yang et al. 2026, Section III);
* :class:`GaussianMixture` -- ``sum_k w_k N(mu_k, s_k^2)`` (Yang et al. 2026,
  Section IV);
* :class:`Empirical` -- the empirical distribution of a data sample (the
  W_infinity baseline of Pierquin et al. 2024 and the alpha-Wasserstein
  mechanisms work on it directly).

Every family supports ``convolve(noise_var)``: the distribution of
``X + N(0, noise_var)``, i.e. the output of the Gaussian mechanism
(Yang et al. 2026, Proposition III.2: ``N(mu, s^2) * N(0, t^2) = N(mu, s^2 + t^2)``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from ._lib import validation as v
from ._lib.numerics import lse

__all__ = ["Gaussian", "GaussianMixture", "Empirical", "Components", "components", "check_prior"]

_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)

_WEIGHT_TOL = 1e-8


class Gaussian:
    """Univariate Gaussian prior ``N(mean, var)``.

    Parameters
    ----------
    mean : float
        Mean, finite.
    var : float
        Variance, ``0 < var < inf``.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).
    TypeError
        If ``mean`` or ``var`` is not numeric.

    Examples
    --------
    >>> Gaussian(0, 4).std
    2.0
    >>> Gaussian(0, 1).convolve(3.0)  # Yang et al. 2026, Prop. III.2
    Gaussian(mean=0.0, var=4.0)
    """

    def __init__(self, mean: float, var: float) -> None:
        self.mean = float(v.finite("mean", mean))
        self.var = float(v.positive("var", var))

    @property
    def std(self) -> float:
        """Standard deviation, the square root of ``var``."""
        return float(np.sqrt(self.var))

    def __repr__(self) -> str:
        """Return the parameters, for display."""
        return f"Gaussian(mean={self.mean!r}, var={self.var!r})"

    def logpdf(self, x: ArrayLike) -> float | np.ndarray:
        """Log density at ``x``.

        Parameters
        ----------
        x : array_like
            Points.

        Returns
        -------
        float or ndarray
            The log density, the shape of ``x``.
        """
        z = (np.asarray(x, dtype=float) - self.mean) / self.std
        return -0.5 * z**2 - np.log(self.std) - _LOG_SQRT_2PI

    def pdf(self, x: ArrayLike) -> float | np.ndarray:
        """Density at ``x``.

        Parameters
        ----------
        x : array_like
            Points.

        Returns
        -------
        float or ndarray
            The density, the shape of ``x``.
        """
        return np.exp(self.logpdf(x))

    def cdf(self, x: ArrayLike) -> float | np.ndarray:
        """Cumulative distribution function at ``x``.

        Parameters
        ----------
        x : array_like
            Points.

        Returns
        -------
        float or ndarray
            The probability of ``<= x``, the shape of ``x``.
        """
        return special.ndtr((np.asarray(x, dtype=float) - self.mean) / self.std)

    def ppf(self, u: ArrayLike) -> float | np.ndarray:
        """Quantile function at ``u``.

        Parameters
        ----------
        u : array_like
            Probabilities in [0, 1].

        Returns
        -------
        float or ndarray
            The quantiles, the shape of ``u``.
        """
        return self.mean + self.std * special.ndtri(u)

    def sample(self, n: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """Draw ``n`` independent samples.

        Parameters
        ----------
        n : int
            Number of samples, ``>= 0``.
        rng : numpy.random.Generator, int or None
            Randomness (a seed or a Generator).

        Returns
        -------
        ndarray
            The samples, shape ``(n,)``.
        """
        return v.rng_from(rng).normal(self.mean, self.std, size=v.integer("n", n, 0))

    def convolve(self, noise_var: float) -> Gaussian:
        """Law of ``X + N(0, noise_var)``: ``N(mean, var + noise_var)`` (Prop. III.2)."""
        noise_var = float(v.positive("noise_var", noise_var, allow_zero=True))
        return Gaussian(self.mean, self.var + noise_var)

    def as_mixture(self) -> GaussianMixture:
        """Return the prior as a one-component Gaussian mixture.

        Returns
        -------
        GaussianMixture
            ``GaussianMixture([1.0], [mean], [var])``.
        """
        return GaussianMixture([1.0], [self.mean], [self.var])


class GaussianMixture:
    """Univariate Gaussian mixture ``sum_k w_k N(mu_k, s_k^2)`` (Yang et al. 2026, Sec. II).

    Parameters
    ----------
    weights : array_like, shape (K,)
        Mixture weights, ``w_k >= 0`` and ``sum_k w_k = 1`` (to 1e-8; they are
        then renormalised exactly).
    means : array_like, shape (K,)
        Component means, finite.
    variances : array_like, shape (K,)
        Component variances, ``> 0``.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> M = GaussianMixture([0.25, 0.75], [-1, 1], [1, 1])
    >>> M.mean, M.n_components
    (0.5, 2)
    """

    def __init__(self, weights: ArrayLike, means: ArrayLike, variances: ArrayLike) -> None:
        w = v.positive("weights", v.vector("weights", np.atleast_1d(weights), min_size=0), allow_zero=True)
        mu = v.vector("means", np.atleast_1d(means), min_size=0)
        var = v.positive("variances", v.vector("variances", np.atleast_1d(variances), min_size=0))
        if w.size == 0:
            raise ValueError("weights must have at least one component")
        if not (w.size == mu.size == var.size):
            raise ValueError(
                f"weights, means and variances must have the same length, got {w.size}, {mu.size}, {var.size}"
            )
        total = w.sum()
        if abs(total - 1.0) > _WEIGHT_TOL:
            raise ValueError(f"weights must sum to 1 (within {_WEIGHT_TOL})")
        keep = w > 0
        self.weights = w[keep] / w[keep].sum()
        self.means = mu[keep]
        self.variances = var[keep]

    def __repr__(self) -> str:
        """Return the parameters, for display."""
        return (
            f"GaussianMixture(weights={self.weights.round(6).tolist()}, "
            f"means={self.means.round(6).tolist()}, "
            f"variances={self.variances.round(6).tolist()})"
        )

    @property
    def n_components(self) -> int:
        """Number of components."""
        return self.weights.size

    @property
    def mean(self) -> float:
        """Mean of the prior."""
        return float(np.dot(self.weights, self.means))

    @property
    def var(self) -> float:
        """Variance of the prior."""
        m = self.mean
        return float(np.dot(self.weights, self.variances + (self.means - m) ** 2))

    def logpdf(self, x: ArrayLike) -> float | np.ndarray:
        """Log density at ``x``.

        Parameters
        ----------
        x : array_like
            Points.

        Returns
        -------
        float or ndarray
            The log density, the shape of ``x``.
        """
        x = np.asarray(x, dtype=float)
        sd = np.sqrt(self.variances)
        lp = -0.5 * ((x[..., None] - self.means) / sd) ** 2 - np.log(sd) - _LOG_SQRT_2PI
        return lse(lp, b=self.weights, axis=-1)

    def pdf(self, x: ArrayLike) -> float | np.ndarray:
        """Density at ``x``.

        Parameters
        ----------
        x : array_like
            Points.

        Returns
        -------
        float or ndarray
            The density, the shape of ``x``.
        """
        return np.exp(self.logpdf(x))

    def cdf(self, x: ArrayLike) -> float | np.ndarray:
        """Cumulative distribution function at ``x``.

        Parameters
        ----------
        x : array_like
            Points.

        Returns
        -------
        float or ndarray
            The probability of ``<= x``, the shape of ``x``.
        """
        x = np.asarray(x, dtype=float)
        return special.ndtr((x[..., None] - self.means) / np.sqrt(self.variances)) @ self.weights

    def ppf(self, u: ArrayLike) -> float | np.ndarray:
        """Quantile function by vectorised bisection (to ~1e-12 relative)."""
        u = np.asarray(u, dtype=float)
        sd = np.sqrt(self.variances)
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
        out = np.where(u <= 0, -np.inf, np.where(u >= 1, np.inf, out))
        return out

    def sample(self, n: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """Draw ``n`` independent samples.

        Parameters
        ----------
        n : int
            Number of samples, ``>= 0``.
        rng : numpy.random.Generator, int or None
            Randomness (a seed or a Generator).

        Returns
        -------
        ndarray
            The samples, shape ``(n,)``.
        """
        rng = v.rng_from(rng)
        k = rng.choice(self.n_components, size=v.integer("n", n, 0), p=self.weights)
        return rng.normal(self.means[k], np.sqrt(self.variances[k]))

    def convolve(self, noise_var: float) -> GaussianMixture:
        """Law of ``X + N(0, noise_var)``: every component variance grows by ``noise_var``."""
        noise_var = float(v.positive("noise_var", noise_var, allow_zero=True))
        return GaussianMixture(self.weights, self.means, self.variances + noise_var)


class Empirical:
    """Empirical distribution of a one-dimensional sample.

    Parameters
    ----------
    samples : array_like
        A scalar or a 1-D array of at least one finite value (2-D input is rejected, not
        flattened: pass ``x.ravel()`` if that is meant).  The sample is stored sorted in
        ``samples``; its distinct values and their probabilities in
        ``support`` and ``probs``.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> E = Empirical([3, 1, 1, 2])
    >>> E.support, E.probs
    (array([1., 2., 3.]), array([0.5 , 0.25, 0.25]))
    """

    def __init__(self, samples: ArrayLike) -> None:
        x = v.vector("samples", np.atleast_1d(np.asarray(samples, dtype=float)), min_size=0)
        if x.size == 0:
            raise ValueError("samples must contain at least one value, got an empty sample")
        self.samples = np.sort(x)
        self.support, counts = np.unique(self.samples, return_counts=True)
        self.probs = counts / counts.sum()

    def __repr__(self) -> str:
        """Return the parameters, for display."""
        return f"Empirical(n={self.n}, distinct={self.support.size})"

    @property
    def n(self) -> int:
        """Number of samples."""
        return self.samples.size

    @property
    def mean(self) -> float:
        """Mean of the prior."""
        return float(np.mean(self.samples))

    @property
    def var(self) -> float:
        """Variance of the prior."""
        return float(np.var(self.samples))

    def cdf(self, x: ArrayLike) -> float | np.ndarray:
        """Cumulative distribution function at ``x``.

        Parameters
        ----------
        x : array_like
            Points.

        Returns
        -------
        float or ndarray
            The probability of ``<= x``, the shape of ``x``.
        """
        return np.searchsorted(self.samples, np.asarray(x, dtype=float), side="right") / self.n

    def ppf(self, u: ArrayLike) -> float | np.ndarray:
        """Return the left-continuous quantile ``F^{-1}(u) = inf{x : F(x) >= u}`` for ``u in (0, 1]``."""
        u = np.asarray(u, dtype=float)
        cum = np.cumsum(self.probs)
        idx = np.searchsorted(cum, u - 1e-12, side="left")
        return self.support[np.clip(idx, 0, self.support.size - 1)]

    def sample(self, n: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """Draw ``n`` independent samples.

        Parameters
        ----------
        n : int
            Number of samples, ``>= 0``.
        rng : numpy.random.Generator, int or None
            Randomness (a seed or a Generator).

        Returns
        -------
        ndarray
            The samples, shape ``(n,)``.
        """
        return v.rng_from(rng).choice(self.samples, size=v.integer("n", n, 0), replace=True)

    def convolve(self, noise_var: float) -> GaussianMixture:
        """Law of ``X + N(0, noise_var)``: an equal-variance mixture at the data points."""
        noise_var = float(v.positive("noise_var", noise_var))
        return GaussianMixture(self.probs, self.support, np.full(self.support.size, noise_var))


#: Any of the three prior types (for type hints).
Prior = Gaussian | GaussianMixture | Empirical


@dataclass(frozen=True)
class Components:  # numpydoc ignore=PR02
    r"""Mixture view ``(weights, means, variances)`` of any prior; variances may be 0.

    The law :math:`\sum_k w_k\,\mathcal N(\mu_k,\sigma_k^2)` (a point mass when
    :math:`\sigma_k^2=0`), the form in which the rules of Yang et al. (2026) read a prior.
    Built by :func:`components`; frozen.

    Parameters
    ----------
    weights : ndarray, shape (K,)
        Mixture weights :math:`w_k`, summing to 1.
    means : ndarray, shape (K,)
        Component means :math:`\mu_k`.
    variances : ndarray, shape (K,)
        Component variances :math:`\sigma_k^2\ge0`.

    Examples
    --------
    >>> c = components(Gaussian(1.0, 4.0))
    >>> c.weights, c.means, c.variances
    (array([1.]), array([1.]), array([4.]))
    """

    weights: np.ndarray
    means: np.ndarray
    variances: np.ndarray


def components(prior: Prior) -> Components:
    """Return the mixture representation of a prior.

    A :class:`Gaussian` is one component, an :class:`Empirical` sample is a
    mixture of point masses (variance 0) at its distinct values.

    Parameters
    ----------
    prior : Gaussian, GaussianMixture or Empirical
        The prior.

    Returns
    -------
    Components
        ``weights``, ``means``, ``variances`` (0 for the atoms of an empirical sample).

    Raises
    ------
    TypeError
        For any other object.

    Examples
    --------
    >>> components(Empirical([1.0, 2.0, 2.0])).weights
    array([0.33333333, 0.66666667])
    """
    if isinstance(prior, Gaussian):
        return Components(np.ones(1), np.array([prior.mean]), np.array([prior.var]))
    if isinstance(prior, GaussianMixture):
        return Components(prior.weights, prior.means, prior.variances)
    if isinstance(prior, Empirical):
        return Components(prior.probs, prior.support, np.zeros(prior.support.size))
    raise TypeError(f"prior must be an rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical, got {type(prior).__name__}")


def check_prior(name: str, prior: object) -> Prior:
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
    >>> check_prior("p", Gaussian(0, 1))
    Gaussian(mean=0.0, var=1.0)
    """
    if not isinstance(prior, (Gaussian, GaussianMixture, Empirical)):
        raise TypeError(
            f"{name} must be an rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical, got {type(prior).__name__}"
        )
    return prior
