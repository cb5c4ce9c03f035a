r"""Laplace noise: exact Rényi divergences of Laplace-noised priors, and the Laplace mechanism.

The Laplace mechanism releases :math:`Y = X + Z`, :math:`Z \sim \mathrm{Lap}(b)`
with density :math:`\ell_b(z) = e^{-|z|/b}/(2b)` (variance :math:`2b^2`).
Under a prior :math:`P` the output density is :math:`P * \ell_b`:

* an :class:`~rpp.Empirical` prior (atoms :math:`x_k`, weights :math:`w_k`) gives a
  mixture of Laplace densities, :math:`\sum_k w_k\,\ell_b(y - x_k)`;
* a Gaussian component :math:`N(\mu, s^2)` gives
  :math:`\frac{1}{2b}e^{s^2/(2b^2)}\bigl[e^{-(y-\mu)/b}\Phi(\tfrac{y-\mu}{s}-\tfrac{s}{b})
  + e^{(y-\mu)/b}\Phi(-\tfrac{y-\mu}{s}-\tfrac{s}{b})\bigr]`.

:func:`laplace_renyi_divergence_bound` computes
:math:`D_\alpha(P_i * \ell_b \,\|\, P_j * \ell_b)` with an error such that
``value + error`` is an upper bound -- proved for two empirical priors, as far as the
quadrature estimate goes otherwise (like :func:`rpp.divergence.renyi_divergence_bound` for Gaussian
noise):

* **Two empirical priors -- certified.**  Between consecutive atoms both
  output densities are :math:`a e^{-y/b} + c e^{y/b}` with :math:`a, c \ge 0`,
  analytic in the strip :math:`|\mathrm{Im}\,y| < \pi b/2`; there
  :math:`p(x)\cos(\mathrm{Im}\,y/b) \le |p(x+i\,\mathrm{Im}\,y)| \le p(x)` and
  :math:`\log p` is :math:`1/b`-Lipschitz on the real line.  So the integrand
  :math:`f = p^\alpha q^{1-\alpha}` is bounded on every Bernstein ellipse inside
  the strip by :math:`M \le \cos(y_m)^{-(\alpha-1)_+}\max f`, the maximum over
  the real projection being bounded through the Lipschitz constant
  :math:`(\alpha + |1-\alpha|)/b` of :math:`\log f`.  Each panel is integrated
  by 20-point Gauss-Legendre with the rigorous error bound
  :math:`\frac{b-a}{2}\,\frac{64M}{15(1-\rho^{-2})\rho^{40}}` (Trefethen,
  *Approximation Theory and Approximation Practice*, Thm 19.3), panels are
  bisected until the bounds are negligible, and the two tails beyond the
  extreme atoms are integrated in closed form (the integrand is
  :math:`f(Y)e^{-|y-Y|/b}` there).  A floating-point allowance is added.
  The densities at the nodes come from prefix sums over the sorted atoms,
  :math:`O(1)` per node (``rpp/divergence/_laplace_atoms.py``).
* **Priors with Gaussian components** (:class:`~rpp.Gaussian`,
  :class:`~rpp.GaussianMixture`, possibly against an empirical prior): the
  densities above are evaluated in log space (with ``erfcx``; more than 9 standard
  deviations beyond :math:`\mu \pm s^2/b` a component's density is one exponential, whose
  relative error, at most 2e-18, is charged to the error), the body is
  integrated by the adaptive Gauss-Legendre routine of :mod:`rpp.divergence`
  (error estimate ``|GL20 - GL10|``, as for Gaussian noise; breakpoints at most
  :math:`2s_k` apart within :math:`12s_k` of each mean, shared by overlapping components), and the tails
  beyond :math:`U = \max_k(\mu_k + s_k^2/b + 10 s_k)` are bounded rigorously
  (there :math:`\Phi(10)\,A e^{-y/b} \le 2b\,p(y) \le A e^{-y/b}`).

Both priors are first translated by one common, exact offset (``rpp/divergence/_centre.py``; the
divergence is translation invariant): far from 0 relative to their spread the densities would
otherwise spend their digits on the offset (issue #21).

The noise object is :class:`rpp.noise.LaplaceNoise`; the calibration methods of
``noise="laplace"`` are in :mod:`rpp.calibration`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from .._lib import validation as v
from .._lib.numerics import integrate_log, lse
from ..priors import Empirical, Prior, check_prior
from ._centre import centre_pair
from ._closed_forms import empirical_renyi_value
from ._gaussian_noise import renyi_divergence_bound
from ._laplace_atoms import atoms_log_integral
from ._laplace_shift import LOG_SHIFT_REL_ERR, laplace_shift_value

__all__ = [
    "laplace_renyi_divergence_bound",
    "laplace_divergence_flagged",
    "laplace_renyi_divergence",
    "laplace_noisy_logpdf",
]

_CHUNK = 2_000_000  # entries of a (points x atoms) work array
_U = 2.0**-53
_SQRT2 = float(np.sqrt(2.0))
_FAR = 9.0  # beyond u = -9 a Gaussian component's Laplace-noisy density is one exponential
_FAR_REL = 2e-18  # >= max(1/Phi(9) - 1, exp(-81/2)/2): that exponential's relative error


#: The smallest Laplace scale computed for priors with a continuous part, relative to their largest
#: standard deviation, and absolutely (``laplace_divergence_flagged``: below them the quadrature's
#: reach s^2 / b and the tails' amplitudes e^{s^2 / (2 b^2)} leave the double range).
_MIN_SCALE_REL = 1e-100
_MIN_SCALE = 1e-150
#: The largest order computed for Laplace noise on priors of several atoms (``atoms_log_integral``).
_MAX_ALPHA_ATOMS = 1e75


def _validate_pair(p, q):
    check_prior("p", p)
    check_prior("q", q)


# ----------------------------------------------------------------------------
# Output densities
# ----------------------------------------------------------------------------


def _log_conv_gauss(y, mu, s, b):
    r"""Log of :math:`N(\mu, s^2) * \mathrm{Lap}(b)` at ``y`` (arrays broadcast; ``s > 0``).

    With :math:`z = y - \mu`, :math:`u_\pm = s/b \mp z/s` and :math:`\ell = s^2/(2b^2) - |z|/b` the
    density is :math:`\frac{1}{2b}\sum_\pm e^{s^2/(2b^2) \mp z/b}\,\Phi(-u_\pm)`, and
    :math:`e^{s^2/(2b^2) \mp z/b}\Phi(-u_\pm) = e^{-z^2/(2s^2)}\,\mathrm{erfcx}(u_\pm/\sqrt2)/2`
    (no cancellation where :math:`u_\pm > 0`).  :math:`u_+ + u_- = 2s/b > 0`: at most one,
    :math:`u = \min u_\pm`, is :math:`\le 0`, and its term is :math:`e^\ell\,\Phi(|u|)`
    (``log1p``).  Far out, :math:`u \le -9`, the density is :math:`e^\ell/(2b)` times a factor in
    :math:`[\Phi(9),\,1 + e^{-81/2}/2]` (the other term is :math:`e^{\ell - u^2/2}\,\mathrm{erfcx}/2`):
    ``_FAR_REL`` bounds that relative error, and no special function is evaluated there.
    """
    z = np.asarray(y - mu, float)
    s, shape = np.broadcast_to(s, z.shape).ravel(), z.shape
    z = z.ravel()
    out = 0.5 * (s / b) ** 2 - np.abs(z) / b
    near = np.abs(z) / s - s / b < _FAR  # u > -9
    if near.any():
        zn, sn = z[near], s[near]
        zs, r = zn / sn, sn / b
        lo, hi = r - np.abs(zs), r + np.abs(zs)  # min and max of u_+-
        e_lo, e_hi = special.erfcx(np.abs(lo) / _SQRT2), special.erfcx(hi / _SQRT2)
        gauss = -0.5 * zs**2
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            one = np.logaddexp(out[near] + np.log1p(-0.5 * e_lo * np.exp(-0.5 * lo**2)), np.log(0.5 * e_hi) + gauss)
            out[near] = np.where(lo > 0, np.log(0.5 * (e_lo + e_hi)) + gauss, one)
    return out.reshape(shape) - np.log(2 * b)


def _log_density(y, comp, b):
    """Log of (prior * Lap(b)) at points ``y`` (1-D array), in chunks of bounded memory."""
    y = np.asarray(y, float)
    step = max(1, _CHUNK // comp.weights.size)
    if y.size > step:
        return np.concatenate([_log_density(y[i : i + step], comp, b) for i in range(0, y.size, step)])
    lw = np.log(comp.weights)
    s = np.sqrt(comp.vars)
    atom = s == 0
    parts = np.empty((y.size, comp.weights.size))
    if atom.any():
        parts[:, atom] = lw[atom] - np.abs(y[:, None] - comp.means[atom]) / b - np.log(2 * b)
    if (~atom).any():
        parts[:, ~atom] = lw[~atom] + _log_conv_gauss(y[:, None], comp.means[~atom], s[~atom], b)
    return lse(parts, axis=1)


def laplace_noisy_logpdf(prior: Prior, y: ArrayLike, scale: float) -> float | np.ndarray:
    r"""Log density of :math:`X + \mathrm{Lap}(b)` under ``prior`` at the points ``y`` (``scale = b > 0``).

    Parameters
    ----------
    prior : Gaussian, GaussianMixture or Empirical
        The prior.
    y : array_like
        Points.
    scale : float
        :math:`b > 0`.

    Returns
    -------
    float or ndarray
        The log density.

    Raises
    ------
    TypeError
        If a prior is not an rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical.
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> from rpp import Empirical
    >>> float(laplace_noisy_logpdf(Empirical([0.0]), 0.0, 1.0))  # log(1 / 2)
    -0.6931471805599453
    """
    check_prior("prior", prior)
    b = float(v.positive("scale", scale))
    y = v.finite("y", y)
    out = _log_density(np.atleast_1d(y).ravel(), prior.components(), b).reshape(np.shape(y))
    return out if out.ndim else float(out)


# ----------------------------------------------------------------------------
# Priors with Gaussian components
# ----------------------------------------------------------------------------


def _tail_log_amplitude(comp, b, sign):
    r"""Return the log A with :math:`2b\,p(y) \approx A e^{-\mathrm{sign}\cdot y/b}` in the ``sign`` tail."""
    s2 = comp.vars
    return lse(np.log(comp.weights) + s2 / (2 * b**2) + sign * comp.means / b)


def _nested_points(m, s, reach=12.0):
    """Points within ``reach s_k`` of each ``m_k``, spaced in ``(s_k, 2 s_k]`` there, on nested dyadic grids.

    Overlapping components share their grid points (as the Gaussian-noise breakpoints of :mod:`rpp.divergence`;
    issue #13: 25 points per component were 2500 panels for 100 components).
    """
    delta = 2 * s.min() * 2.0 ** np.floor(np.log2(s / s.min()))
    first = np.floor((m - reach * s) / delta)
    count = (np.ceil((m + reach * s) / delta) - first + 1).astype(int)
    k = np.repeat(np.arange(m.size), count)
    return np.unique(delta[k] * (first[k] + np.arange(k.size) - np.repeat(np.cumsum(count) - count, count)))


def _smooth_log_integral(P, Q, alpha, b):
    s = np.sqrt(np.concatenate([P.vars, Q.vars]))
    mu = np.concatenate([P.means, Q.means])
    hi = float(np.max(mu + s**2 / b + 10 * s))
    lo = float(np.min(mu - s**2 / b - 10 * s))
    hi = max(hi, float(mu.max()) + 40 * b)
    lo = min(lo, float(mu.min()) - 40 * b)

    def log_f_mag(y):
        lp, lq = _log_density(y, P, b), _log_density(y, Q, b)
        # value and magnitude of its terms (round-off allowance of rpp._lib.numerics.integrate_log)
        return alpha * lp + (1 - alpha) * lq, np.abs(alpha * lp) + np.abs((1 - alpha) * lq)

    pts = [mu[s == 0], [lo, hi]]
    gs = s[s > 0]
    if gs.size:  # spacing <= s_k within 12 s_k of each mean; mu_k +- s_k^2/b (exponential tails) beyond that
        pts.append(_nested_points(mu[s > 0], gs))
        far = gs > 12 * b
        pts.append((mu[s > 0][far][:, None] + (gs[far] ** 2 / b)[:, None] * np.array([-1.0, 1.0])).ravel())
    # gaps between the components' windows (the exponential tails e^{-|y - mu|/b} reach far beyond
    # 12 s_k when s_k << b, and a panel much wider than b across a gap put no node where they are):
    # points from both ends of each gap, steps b / (4 max(alpha, 1)) doubling
    order = np.argsort(mu - 12 * s - s**2 / b)
    w_lo, w_hi = (mu - 12 * s - s**2 / b)[order], np.maximum.accumulate((mu + 12 * s + s**2 / b)[order])
    for g0, g1 in zip(w_hi[:-1], w_lo[1:], strict=True):
        if g1 - g0 > 4 * b:
            steps = b / (4 * max(alpha, 1.0)) * 2.0 ** np.arange(0, np.log2(4 * max(alpha, 1.0) * (g1 - g0) / b))
            pts.extend([g0 + steps, g1 - steps])
    scale = max(b, float(gs.min()) if gs.size else b)
    geo = scale * 2.0 ** np.arange(-3, 80)
    geo = geo[geo < (hi - lo)]
    pts.extend([mu.max() + geo, mu.min() - geo])
    brk = np.unique(np.clip(np.concatenate([np.ravel(p) for p in pts]), lo, hi))
    log_body, rel_body = integrate_log(log_f_mag, brk)
    # tails: f <= (A_P e^{-y/b})^alpha (Phi(10) A_Q e^{-y/b})^{1-alpha} / (2b)  (alpha > 1), etc.
    phi10 = float(special.ndtr(10.0))
    tails, tail_err = [], 0.0
    for sign, end in ((1.0, hi), (-1.0, lo)):
        la = _tail_log_amplitude(P, b, sign)
        lq = _tail_log_amplitude(Q, b, sign)
        lt = alpha * la + (1 - alpha) * lq - sign * end / b - np.log(2.0)  # integral of A..e^{-y/b}/(2b)
        tails.append(lt)
        if alpha > 1:
            tail_err_factor = phi10 ** (1 - alpha) - phi10**alpha
        else:
            tail_err_factor = 1 - phi10
        tail_err = max(tail_err, tail_err_factor)
    log_tail = lse(tails)
    log_i = float(np.logaddexp(log_body, log_tail))
    rel = (
        rel_body * np.exp(log_body - log_i)
        + tail_err * np.exp(log_tail - log_i)
        + 8 * _U * (alpha + abs(1 - alpha)) * ((hi - lo) / b + 60)
        + 2 * _FAR_REL * (alpha + abs(1 - alpha))  # far components as one exponential (_log_conv_gauss)
        + 1e-13
    )
    return log_i, float(rel)


# ----------------------------------------------------------------------------
# Public divergences
# ----------------------------------------------------------------------------


def _single_atoms(delta, b, alpha):
    r"""Mironov's closed form for two single atoms, with an error bound.

    :math:`t = \Delta/b` is rounded twice (the difference of the atoms and the quotient): the
    exact :math:`t` lies in :math:`t(1 \pm 2u)`, and :math:`D_\alpha` increases with :math:`t`.
    :func:`rpp.divergence.log_laplace_shift_integral` has relative error at most
    ``LOG_SHIFT_REL_ERR`` (``rpp/divergence/_laplace_shift.py``), so :math:`D = \log I/(\alpha-1)` has at
    most that plus :math:`2u` (the division, and :math:`\alpha - 1` for :math:`\alpha > 2`):
    a relative bound, with no :math:`1/(\alpha-1)` amplification.  The error returned bounds
    the distance from the value to :math:`D` at both ends of the interval of :math:`t`.
    """
    with np.errstate(over="ignore"):
        if not np.isfinite(delta / b):
            raise ValueError(
                "scale is too small for these atoms: the divergence, of the order of the atoms' distance "
                "over the scale, is beyond the double range"
            )
    val = float(laplace_shift_value(delta, b, alpha))
    if alpha < 1:  # the orders below 1: the second form of log I (no expansion), bounded crudely
        return val, float(16 * _U * (val + (delta / b + 1) / abs(alpha - 1)) + 1e-300)
    t = delta / b
    rel = LOG_SHIFT_REL_ERR + 4 * _U
    up = float(laplace_shift_value(t * (1 + 4 * _U), 1.0, alpha)) * (1 + rel)
    down = float(laplace_shift_value(t * (1 - 4 * _U), 1.0, alpha)) * (1 - rel)
    err = max(up - val, val - down, 0.0)
    if up < 1e-300:  # a divergence near or below the subnormal range: their absolute resolution
        err += 1e-320
    return val, float(err)


def laplace_renyi_divergence_bound(p: Prior, q: Prior, alpha: float, scale: float) -> tuple[float, float]:
    r"""Value and error (bound or estimate) of :math:`D_\alpha(p * \mathrm{Lap}(b) \,\|\, q * \mathrm{Lap}(b))`.

    See the module docstring for the method.  ``value + error`` is an upper
    bound on the divergence (certified for two :class:`~rpp.Empirical` priors;
    for Gaussian components the body error is the Gauss-Legendre estimate used
    throughout :mod:`rpp.divergence`).  Single atoms against single atoms use
    the closed form :func:`rpp.divergence.laplace_shift_divergence`.  ``scale = 0`` (no
    noise) gives the divergence of the priors themselves
    (:func:`rpp.renyi_divergence` with ``noise_var=0``).

    Parameters
    ----------
    p, q : Gaussian, GaussianMixture or Empirical
        The priors.
    alpha : float
        In (0, 1) or (1, inf).
    scale : float
        Laplace scale ``b >= 0``.

    Returns
    -------
    value, error : float
        The divergence is finite for every ``b > 0`` (Laplace tails).

    Raises
    ------
    TypeError
        If a prior is not an rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical.
    ValueError
        If an argument is outside its range (the message names it); also a scale below
        ``1e-100`` times the priors' largest standard deviation or ``1e-150`` (a continuous part),
        and an ``alpha`` above ``1e75`` on priors of several atoms (the quadrature's bound beyond the
        double range; its error bound is infinite from about ``1e30``).

    Examples
    --------
    >>> from rpp import Empirical
    >>> val, err = laplace_renyi_divergence_bound(Empirical([0.0]), Empirical([1.0]), 2.0, 1.0)
    >>> round(val, 12), bool(err < 1e-13)  # Mironov 2017, Prop. 6
    (0.619123629999, True)
    """
    value, err, _ = laplace_divergence_flagged(p, q, alpha, scale)
    return value, err


def laplace_divergence_flagged(p: Prior, q: Prior, alpha: float, scale: float) -> tuple[float, float, bool]:
    """``(value, error, rigorous)`` of :func:`laplace_renyi_divergence_bound`.

    ``rigorous`` is True where ``error`` is proved: single atoms against single atoms (closed
    form), identical empirical priors (0), two empirical priors (Bernstein-ellipse bounds,
    ``rpp/divergence/_laplace_atoms.py``); False for Gaussian components (the quadrature
    estimate) and without noise on mixtures.
    """
    _validate_pair(p, q)
    alpha = float(v.alpha_order(alpha, allow_below_one=True))
    b = float(v.positive("scale", scale, allow_zero=True))
    if b == 0:
        pe, qe = isinstance(p, Empirical), isinstance(q, Empirical)
        if pe and qe:
            return float(empirical_renyi_value(p, q, alpha)), 0.0, False
        if pe or qe:
            return np.inf, 0.0, True  # a discrete law against a continuous one: mutually singular
        return (*renyi_divergence_bound(p, q, alpha, 0.0), False)
    p, q, _ = centre_pair(p, q)  # D is translation invariant: quadrature on exactly centred data
    P, Q = p.components(), q.components()
    atoms = np.all(P.vars == 0) and np.all(Q.vars == 0)
    spread = float(np.sqrt(max(P.vars.max(), Q.vars.max())))
    if not atoms and b < max(_MIN_SCALE_REL * spread, _MIN_SCALE):
        # the quadrature's reach (s^2 / b beyond each mean) and the tails' amplitudes (e^{s^2 / (2 b^2)})
        # leave the double range below these; no number is returned that rests on an overflow
        raise ValueError(
            f"scale must be >= {_MIN_SCALE_REL:g} times the priors' largest standard deviation and >= "
            f"{_MIN_SCALE:g} where a prior has a continuous part (smaller Laplace scales are not computed)"
        )
    if atoms and P.weights.size == 1 and Q.weights.size == 1:
        return (*_single_atoms(abs(P.means[0] - Q.means[0]), b, alpha), True)
    if (
        atoms
        and P.weights.size == Q.weights.size
        and np.array_equal(P.means, Q.means)
        and np.array_equal(P.weights, Q.weights)
    ):
        return 0.0, 0.0, True
    if atoms:
        if alpha > _MAX_ALPHA_ATOMS:
            # the quadrature's fourth-derivative bound (_k4, about 16 alpha^4) leaves the double range
            # beyond about 1.8e76 (OverflowError), and its error bound is infinite from about 1e30
            raise ValueError(
                f"alpha must be <= {_MAX_ALPHA_ATOMS:g} for Laplace noise on priors of several atoms "
                "(the quadrature's error bound is infinite beyond)"
            )
        log_i, rel = atoms_log_integral(P, Q, alpha, b)
    else:
        log_i, rel = _smooth_log_integral(P, Q, alpha, b)
    value = max(0.0, log_i / (alpha - 1))
    if rel >= 1:
        return value, np.inf, bool(atoms)
    err = max(np.log1p(rel), -np.log1p(-rel)) / abs(alpha - 1)
    return value, float(err), bool(atoms)


def laplace_renyi_divergence(p: Prior, q: Prior, alpha: float, scale: ArrayLike) -> float | np.ndarray:
    r""":math:`D_\alpha(p * \mathrm{Lap}(b)\,\|\,q * \mathrm{Lap}(b))`: the privacy loss of the Laplace mechanism.

    ``alpha`` and ``scale`` may be arrays (evaluated point by point).  See
    :func:`laplace_renyi_divergence_bound` for the error.

    Parameters
    ----------
    p, q : Gaussian, GaussianMixture or Empirical
        The two priors.
    alpha : float or array_like
        Order in (0, 1) or (1, inf).
    scale : float or array_like
        :math:`b \ge 0`.

    Returns
    -------
    float or ndarray
        The divergence.

    Raises
    ------
    TypeError
        If a prior is not an rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical.
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> from rpp import Empirical
    >>> round(laplace_renyi_divergence(Empirical([0.0]), Empirical([1.0]), 2.0, 1.0), 12)
    0.619123629999
    """
    _validate_pair(p, q)
    a = v.alpha_order(alpha, allow_below_one=True)
    s = v.positive("scale", scale, allow_zero=True)
    if a.ndim or s.ndim:
        a_b, s_b = np.broadcast_arrays(a, s)
        out = np.array(
            [
                laplace_renyi_divergence_bound(p, q, float(x), float(y))[0]
                for x, y in zip(a_b.ravel(), s_b.ravel(), strict=True)
            ]
        )
        return out.reshape(a_b.shape)
    return laplace_renyi_divergence_bound(p, q, float(a), float(s))[0]
