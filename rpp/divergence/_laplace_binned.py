r"""Laplace noise on two large samples: a proved enclosure of the divergence from the samples binned.

Move every atom :math:`x` of both samples to the centre :math:`x'` of its bin, bins of width
:math:`w` on a common grid, so that :math:`|x - x'| \le h \approx w/2`.  The Laplace kernel is
:math:`1/b`-Lipschitz in log space, :math:`e^{-|z-x|/b} \in [e^{-h/b}, e^{h/b}]\,e^{-|z-x'|/b}`
for every output :math:`z`, so the noisy densities of the samples and of the binned samples
satisfy, pointwise,

.. math::

    e^{-h/b}(1-\eta)\,p'(z) \le p(z) \le e^{h/b}(1+\eta)\,p'(z)

(and the same for :math:`q`), :math:`\eta` bounding the rounding of the binned weights.  For
:math:`\alpha > 1`, :math:`p^\alpha` grows with :math:`p` and :math:`q^{1-\alpha}` falls with
:math:`q`, so :math:`I = \int p^\alpha q^{1-\alpha}` lies within a factor
:math:`e^{\pm(2\alpha-1)(h/b + c)}`, :math:`c = -\log(1-\eta)`, of the binned :math:`I'`, and

.. math::

    |D_\alpha(P * \ell_b\|Q * \ell_b) - D_\alpha(P' * \ell_b\|Q' * \ell_b)|
    \le \frac{2\alpha-1}{\alpha-1}\Bigl(\frac{h}{b} + c\Bigr).

The binned divergence comes with its own proved error (``rpp/divergence/_laplace_atoms.py``), so
the enclosure is proved; it is wider than the samples' own (about :math:`3\rho` at
:math:`\alpha = 2` for bins of width :math:`2\rho b`), and costs a divergence of the bins, not of
the atoms: tens of milliseconds for a million atoms each.  A check that a noise scale meets a
budget with room to spare (a sufficient rule's, or the other order of an exact search) needs no
more.  The bound is the pointwise form of the shift argument for Laplace noise (a Laplace
density moved by :math:`h` changes by at most a factor :math:`e^{h/b}`; Dwork & Roth 2014,
Thm 3.6, applied to every atom) -- it holds for Laplace noise only: a Gaussian kernel's ratio
under a shift is unbounded in :math:`z`.

* :func:`binned_laplace_divergence` -- the enclosure, as a :class:`rpp.Certified`;
* :func:`bins_are_few` -- whether bins of a width hold enough atoms on average for it to pay.
"""

from __future__ import annotations

import math

import numpy as np

from .._lib import validation as v
from .._lib.parallel import MIN_ITEMS, thread_map
from ..certified import Certified
from ..priors import Empirical, check_prior
from ._laplace_noise import laplace_divergence_flagged

__all__ = ["binned_laplace_divergence", "bins_are_few", "bin_samples"]

_U = 2.0**-53  # unit round-off of binary64


def _two_samples(p: object, q: object) -> None:
    """Raise a TypeError naming ``p`` or ``q`` unless both are :class:`rpp.Empirical` samples."""
    for name, prior in (("p", p), ("q", q)):
        check_prior(name, prior)
        if not isinstance(prior, Empirical):
            raise TypeError(f"{name} must be an rpp.Empirical, got {type(prior).__name__}")


def _bins_fit(p: Empirical, q: Empirical, width: float) -> bool:
    """Whether every bin index ``(x - origin) / width`` of the two samples is finite (O(1): the supports are sorted)."""
    origin = min(p.support[0], q.support[0])
    with np.errstate(over="ignore"):
        return bool(np.isfinite((max(p.support[-1], q.support[-1]) - origin) / width))


def bins_are_few(p: Empirical, q: Empirical, width: float, atoms_per_bin: float = 20.0) -> bool:
    """Whether bins of ``width`` (on the common grid of :func:`bin_samples`) hold on average at least ``atoms_per_bin`` atoms.

    Parameters
    ----------
    p, q : Empirical
        The two samples.
    width : float
        The bins' width, ``>= 0`` (``+inf`` allowed: one bin).  Bins too narrow for the float
        range (``width`` 0, or the samples' span over ``width`` beyond it) are not few: False.
    atoms_per_bin : float
        The average wanted, finite and ``>= 0``.

    Returns
    -------
    bool
        Whether the bins hold that many atoms on average.

    Raises
    ------
    TypeError
        If ``p`` or ``q`` is not an :class:`rpp.Empirical`.
    ValueError
        If ``width`` or ``atoms_per_bin`` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from rpp import Empirical
    >>> p, q = Empirical(np.arange(100.0)), Empirical(np.arange(100.0) + 0.5)
    >>> bins_are_few(p, q, 50.0), bins_are_few(p, q, 10.0)
    (True, False)
    """
    _two_samples(p, q)
    width = v.scalar_in_interval("width", width, low=0.0, allow_inf=True)
    atoms_per_bin = v.scalar_in_interval("atoms_per_bin", atoms_per_bin, low=0.0)
    origin = float(min(p.support[0], q.support[0]))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # width 0: keys inf or NaN, below
        keys = [np.floor((x.support - origin) / width) for x in (p, q)]
    if not all(np.all(np.isfinite(k)) for k in keys):
        return False
    n_bins = sum(int(np.count_nonzero(np.diff(k))) + 1 for k in keys)
    return p.support.size + q.support.size >= atoms_per_bin * n_bins


def bin_samples(
    p: Empirical, q: Empirical, width: float, centre: str = "midpoint"
) -> tuple[Empirical, Empirical, float, float]:
    r"""``(p', q', h, eta)``: both samples moved to one point per bin of ``width`` on a common grid.

    ``centre="midpoint"``: each bin's atoms move to its midpoint (``h`` at most half the width);
    ``"mass"``: to their centre of mass, which keeps each bin's first moment, so the Laplace
    densities move at second order in the width (:math:`\sum_i w_i e^{x_i/b} = W e^{\bar x/b}
    (1 + O(w^2/b^2))`; the guide of :func:`rpp.rules.search` uses it), while ``h`` may reach
    the width.  Every atom moves by at most ``h`` (measured on the float centres, rounded up) and
    every binned weight is within a relative ``eta`` of the exact sum of the weights it gathers
    (sequential summation and the normalisation: :math:`\eta = (2n + 4)u`, :math:`n` the atoms
    of the larger sample, :math:`u = 2^{-53}`).

    Parameters
    ----------
    p, q : Empirical
        The two samples.
    width : float
        The bins' width, finite and ``> 0``, with the samples' span over ``width`` within the
        double range.
    centre : {"midpoint", "mass"}
        Where each bin's atoms move.

    Returns
    -------
    tuple
        ``(p', q', h, eta)``: the binned samples (:class:`rpp.Empirical`), the largest move and
        the weights' relative error.

    Raises
    ------
    TypeError
        If ``p`` or ``q`` is not an :class:`rpp.Empirical`.
    ValueError
        If ``width`` or ``centre`` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from rpp import Empirical
    >>> p2, q2, h, eta = bin_samples(Empirical(np.arange(100.0)), Empirical(np.arange(100.0) + 0.5), 10.0)
    >>> p2.support.size, q2.support.size, round(h, 9), eta < 1e-13
    (10, 10, 5.0, True)
    """
    _two_samples(p, q)
    width = v.scalar_in_interval("width", width, low=0.0, low_open=True)
    v.one_of("centre", centre, ["midpoint", "mass"])
    if not _bins_fit(p, q, width):
        raise ValueError("width is too small for these samples: their span over width is beyond the double range")
    origin = float(min(p.support[0], q.support[0]))

    def binned(x):  # (the two samples side by side: rpp._lib.parallel)
        keys = np.floor((x.support - origin) / width)  # non-decreasing: the support is sorted
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        counts = np.diff(np.r_[starts, keys.size])
        sums = np.add.reduceat(x.probs, starts)
        if centre == "midpoint":
            centres = origin + (keys[starts] + 0.5) * width
        else:  # within [first, last] atom of the bin up to rounding: measured below like the midpoints
            centres = np.add.reduceat(x.probs * x.support, starts) / sums
        # |x - x'| as computed is within one rounding of the exact distance
        moved = float(np.max(np.abs(x.support - np.repeat(centres, counts)))) * (1 + 2 * _U)
        if np.all(centres[1:] > centres[:-1]):
            probs = sums / sums.sum()
            return Empirical._exact(centres, probs, centres, probs), moved
        # centres that round together (bins narrower than the float spacing there) merge
        return Empirical(centres, weights=sums), moved

    (bp, hp), (bq, hq) = thread_map(binned, (p, q), parallel=p.support.size + q.support.size >= MIN_ITEMS)
    eta = (2 * max(p.support.size, q.support.size) + 4) * _U
    return bp, bq, float(np.nextafter(max(0.0, hp, hq), np.inf)), eta


def binned_laplace_divergence(p: Empirical, q: Empirical, *, scale: float, alpha: float, rho: float) -> Certified:
    r"""Proved enclosure of :math:`D_\alpha(P * \mathrm{Lap}(b)\|Q * \mathrm{Lap}(b))` from bins of width :math:`2\rho b`.

    The divergence of the binned samples (:func:`bin_samples`) with its proved error, widened by
    :math:`\frac{2\alpha-1}{\alpha-1}(h/b + c)` (module docstring), rounded up.

    Parameters
    ----------
    p, q : Empirical
        The two samples (keyword ``p`` is the first argument of the divergence).
    scale : float
        The Laplace scale ``b``, ``> 0`` and finite.
    alpha : float
        Rényi order, ``> 1``.
    rho : float
        Half the bin width in units of ``b``, in ``(0, 1]``.

    Returns
    -------
    Certified
        ``value`` the binned divergence, ``error`` its proved error plus the binning term;
        ``rigorous`` as the binned divergence's (proved for two samples).

    Raises
    ------
    TypeError
        If ``p`` or ``q`` is not an :class:`rpp.Empirical`.
    ValueError
        If ``scale``, ``alpha`` or ``rho`` is out of range: also where the bins' width ``2 rho scale``
        is too small for the samples' span (the bin indices beyond the double range), ``scale`` or
        ``alpha`` beyond the atoms' quadrature's range (:func:`laplace_renyi_divergence_bound`).

    Examples
    --------
    >>> import numpy as np
    >>> from rpp import Empirical
    >>> rng = np.random.default_rng(0)
    >>> p, q = Empirical(rng.normal(0, 1, 2000)), Empirical(rng.normal(0.5, 1, 2000))
    >>> c = binned_laplace_divergence(p, q, scale=1.0, alpha=2.0, rho=1e-3)
    >>> from rpp.noise import LaplaceNoise
    >>> exact = LaplaceNoise(scale=1.0).divergence(p, q, alpha=2.0)
    >>> bool(abs(c.value - exact.value) <= c.error), c.rigorous, bool(c.error < 4e-3)
    (True, True, True)
    """
    _two_samples(p, q)
    b = v.scalar_in_interval("scale", scale, low=0.0, low_open=True)
    alpha = v.alpha_scalar(alpha)
    rho = v.scalar_in_interval("rho", rho, low=0.0, high=1.0, low_open=True)
    width = 2 * rho * b
    if width == 0 or not _bins_fit(p, q, width):  # 0 after an underflow, or bin indices beyond the double range
        raise ValueError(
            "scale and rho are too small for these samples: the samples' span over the bins' width "
            "2 rho scale is beyond the double range"
        )
    bp, bq, h, eta = bin_samples(p, q, width)
    try:
        value, error, rigorous = laplace_divergence_flagged(bp, bq, alpha, b)
        overflow = False
    except OverflowError:  # the atoms' quadrature bounds its 4th derivative by a quartic in alpha
        overflow = True
    if overflow:  # raised outside the except block: no OverflowError in the chain
        raise ValueError(
            "alpha is too large for the Laplace atoms' quadrature: its error bound (of degree 4 in alpha) "
            "is beyond the double range"
        )
    c = -math.log1p(-eta)
    widen = (2 * alpha - 1) / (alpha - 1) * (h / b + c)
    return Certified(float(value), float((error + widen) * (1 + 8 * _U)), rigorous=bool(rigorous))
