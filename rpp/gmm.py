r"""Fitting Gaussian-mixture priors by EM with BIC model selection.

Yang et al. 2026, Section IV-A: for each secret :math:`s` fit
:math:`K`-component mixtures by EM for :math:`K = 1,\dots,K_{\max}` and keep

.. math::

    K_s = \arg\min_{1\le K\le K_{\max}} \; -2\log p(D_s;\hat\Theta_K) + q_K \log N,

with :math:`q_K = 3K - 1` free parameters in one dimension and
:math:`K_{\max}` capped by the number of samples and of distinct values.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike

from ._lib import validation as v
from ._lib.optional import missing
from .priors import GaussianMixture

__all__ = ["fit_gmm", "bic_curve", "FittedGaussianMixture", "VarianceFloorWarning"]


class VarianceFloorWarning(UserWarning):
    """Issued by :func:`fit_gmm` when a selected component's variance is set by the floor ``reg_covar``.

    EM placed the component on (nearly) a single value: its variance is less than twice
    ``reg_covar``, so the fitted density there is as peaked as the floor allows.  A chapter that
    shows this on purpose may silence it with ``warnings.simplefilter("ignore", VarianceFloorWarning)``.
    """


class FittedGaussianMixture(GaussianMixture):
    """A :class:`~rpp.GaussianMixture` returned by :func:`fit_gmm`, with its model-selection record.

    Parameters
    ----------
    weights : array_like
        Weights of the selected mixture (see :class:`~rpp.GaussianMixture`).
    means : array_like
        Its means.
    vars : array_like
        Its variances.
    criterion : str
        The criterion used, ``"bic"`` or ``"aic"``.
    ks : ndarray
        The numbers of components tried.
    scores : ndarray
        The criterion for each ``K``.
    bic : ndarray
        The BIC for each ``K`` (equal to ``scores`` when ``criterion="bic"``).

    Attributes
    ----------
    criterion_ : str
        ``criterion`` (scikit-learn's trailing-underscore convention).
    ks_ : ndarray
        ``ks``.
    scores_ : ndarray
        ``scores``.
    bic_ : ndarray
        ``bic``.
    at_floor_ : ndarray of bool
        Per component: variance below ``2 * reg_covar`` (set by the floor; see
        :class:`VarianceFloorWarning`).  All False unless ``reg_covar`` is given.

    Examples
    --------
    >>> g = FittedGaussianMixture(weights=[1.0], means=[0.0], vars=[1.0], criterion="bic", ks=np.array([1]),
    ...                           scores=np.array([3.2]), bic=np.array([3.2]))
    >>> g.criterion_, g.ks_, g.mean
    ('bic', array([1]), 0.0)
    """

    def __init__(
        self,
        *,
        weights: ArrayLike,
        means: ArrayLike,
        vars: ArrayLike,
        criterion: str,
        ks: np.ndarray,
        scores: np.ndarray,
        bic: np.ndarray,
        reg_covar: float | None = None,
    ) -> None:
        super().__init__(weights=weights, means=means, vars=vars)
        floor = -np.inf if reg_covar is None else 2 * float(reg_covar)
        self._set(
            at_floor_=self.vars < floor,
            criterion_=criterion,
            ks_=np.asarray(ks),
            scores_=np.asarray(scores, dtype=float),
            bic_=np.asarray(bic, dtype=float),
        )

    at_floor_: np.ndarray
    criterion_: str
    ks_: np.ndarray
    scores_: np.ndarray
    bic_: np.ndarray


_MAX_ABS = 1e150  # the EM fit squares the samples
_MAX_COMPONENTS = 100  # one full EM fit per count: beyond 100 components of 1-D data the BIC is not the question


def _prepare(samples, max_components):
    x = v.vector("samples", samples)
    if np.max(np.abs(x)) > _MAX_ABS:
        raise ValueError("samples must lie in [-1e150, 1e150] (the fit squares them)")
    if x.size < 2:
        raise ValueError(f"samples must contain at least 2 values to fit a mixture, got {x.size}")
    if np.ptp(x) == 0:
        raise ValueError("samples must not be constant: a Gaussian mixture needs spread")
    max_components = v.integer("max_components", max_components, 1)
    if max_components > _MAX_COMPONENTS:
        raise ValueError(f"max_components must be an integer in [1, {_MAX_COMPONENTS}], got {max_components}")
    k_max = int(min(max_components, x.size, np.unique(x).size))
    return x, k_max


def _seed(rng):
    """scikit-learn's ``random_state`` from None, an int seed or a numpy Generator (one draw from it)."""
    random_state = rng
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**32 - 1))
    if random_state is None:
        return None
    v.rng_from(random_state, name="rng")  # the same rules as every rng argument
    return int(random_state)


def _fit_one(x, k, random_state, reg_covar, n_init):
    # scikit-learn (the [fit] extra) is imported here, at first use (it takes most of a second)
    try:
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.mixture import GaussianMixture as _SkGMM
    except ImportError as exc:
        raise missing("sklearn", "rpp.fit_gmm") from exc

    model = _SkGMM(
        n_components=k,
        covariance_type="full",
        random_state=random_state,
        reg_covar=reg_covar,
        n_init=n_init,
        max_iter=500,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x[:, None])
    return model


def bic_curve(
    samples: ArrayLike,
    *,
    max_components: int = 10,
    rng: np.random.Generator | int | None = 0,
    reg_covar: float = 1e-6,
    n_init: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    r"""BIC of the EM fit for ``K = 1 .. K_max`` (``K_max`` capped as in :func:`fit_gmm`).

    Parameters
    ----------
    samples : array_like
        At least two finite, not all equal values, in [-1e150, 1e150].
    max_components : int
        :math:`K_{\max}`, in [1, 100].
    rng : None, int or numpy.random.Generator
        Seed of scikit-learn's EM (its ``random_state``; a Generator gives one seed drawn from it).
    reg_covar : float
        Variance floor.
    n_init : int
        EM restarts per ``K``.

    Returns
    -------
    ks : ndarray of int
        The numbers of components, ``1 .. K_max``.
    bic : ndarray
        The BIC of each fit (lower is better).

    Raises
    ------
    ValueError
        As :func:`fit_gmm`.

    Examples
    --------
    >>> ks, bic = bic_curve(np.arange(10.0), max_components=3)
    >>> ks
    array([1, 2, 3])
    """
    x, k_max = _prepare(samples, max_components)
    random_state = _seed(rng)
    reg_covar = float(v.positive("reg_covar", reg_covar))
    n_init = v.integer("n_init", n_init, 1)
    ks = np.arange(1, k_max + 1)
    bic = np.array([_fit_one(x, k, random_state, reg_covar, n_init).bic(x[:, None]) for k in ks])
    return ks, bic


def fit_gmm(
    samples: ArrayLike,
    *,
    max_components: int = 10,
    criterion: str = "bic",
    rng: np.random.Generator | int | None = 0,
    reg_covar: float = 1e-6,
    n_init: int = 1,
) -> FittedGaussianMixture:
    r"""Fit a 1-D Gaussian mixture by EM, choosing the number of components by BIC.

    Parameters
    ----------
    samples : array_like
        At least two finite, not all equal values, in [-1e150, 1e150].
    max_components : int
        Upper bound :math:`K_{\max}` in [1, 100]; further capped by the number of samples and
        of distinct values (Yang et al. 2026, Sec. IV-A).
    criterion : {"bic", "aic"}
        Model-selection criterion (the paper uses BIC).
    rng : None, int or numpy.random.Generator
        Seed of scikit-learn's EM initialisation, its ``random_state`` (results are reproducible;
        a Generator gives one seed drawn from it).
    reg_covar : float
        Added to every component variance by scikit-learn (its default 1e-6).
        On integer-valued data EM may place a component on a single value; the
        variance is then ``reg_covar``, which makes the fitted density very
        peaked -- the book discusses this in the mixture and experiment chapters.
    n_init : int
        EM restarts per ``K``.

    Returns
    -------
    FittedGaussianMixture
        The selected mixture (a :class:`~rpp.GaussianMixture`), with ``criterion_``
        (the name), ``ks_`` and ``scores_`` (criterion per ``K``) and ``bic_``.

    Raises
    ------
    ValueError
        For fewer than two or constant samples, samples that are not a finite 1-D array, or
        bad options.

    Warns
    -----
    VarianceFloorWarning
        When a selected component's variance is below ``2 * reg_covar`` (``at_floor_``): EM put
        it on a single value (e.g. ``fit_gmm(x, max_components=5)`` on two points, or integer data).  A warning
        rather than an error because the floor is a legitimate, documented outcome on discrete
        data (the mixture chapter shows it); it must not be silent.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(-3, 1, 300), rng.normal(3, 1, 300)])
    >>> fit = fit_gmm(x, max_components=4)
    >>> fit.n_components, fit.criterion_
    (2, 'bic')
    """
    if criterion not in ("bic", "aic"):
        raise ValueError(f"criterion must be 'bic' or 'aic', got {criterion!r}")
    reg_covar = float(v.positive("reg_covar", reg_covar))
    x, k_max = _prepare(samples, max_components)
    random_state = _seed(rng)
    n_init = v.integer("n_init", n_init, 1)
    ks = np.arange(1, k_max + 1)
    models = [_fit_one(x, k, random_state, reg_covar, n_init) for k in ks]
    scores = np.array([getattr(m, criterion)(x[:, None]) for m in models])
    best = models[int(np.argmin(scores))]
    order = np.argsort(best.means_.ravel())
    w = best.weights_[order]
    bic = scores if criterion == "bic" else np.array([m.bic(x[:, None]) for m in models])
    fit = FittedGaussianMixture(
        weights=w / w.sum(),
        means=best.means_.ravel()[order],
        vars=best.covariances_.ravel()[order],
        criterion=criterion,
        ks=ks,
        scores=scores,
        bic=bic,
        reg_covar=reg_covar,
    )
    n_floor = int(fit.at_floor_.sum())
    if n_floor:
        warnings.warn(
            f"fit_gmm: {n_floor} of the {fit.n_components} selected components have a variance set by the "
            f"floor reg_covar = {reg_covar:g} (EM placed them on single values; the fitted density is as "
            "peaked as the floor allows there). Give more samples, a smaller max_components or a larger "
            "reg_covar (e.g. h**2/12 for data on a grid of step h); see at_floor_.",
            VarianceFloorWarning,
            stacklevel=2,
        )
    return fit
