r"""Record RPP releases in Google's dp-accounting ledger (``dp_accounting.rdp.RdpAccountant``).

dp-accounting composes *events* whose Rényi curves it knows; an RPP release is none of them. The adapter
records, for each release, a ``dp_accounting.GaussianDpEvent`` whose curve
:math:`\alpha/(2\sigma^2)` is at least what the release adds to the exact Rényi curve of everything recorded,
**at every order of the accountant** (computed there and checked after composing: a domination on the
accountant's orders, not a proof for all :math:`\alpha`; the accountant never uses other orders).

What the ledger's numbers mean. After :meth:`RppLedger.record`, the accountant's RDP value at each of its
orders :math:`\alpha_k` is :math:`\ge \max(D_{\alpha_k}(P_i\|P_j), D_{\alpha_k}(P_j\|P_i))` of the *joint* release
of every recorded query, for the declared secret pair and the declared Gaussian prior (the exact composition
of :func:`linear_queries_divergence`; releases about the same data are not independent, so the ledger
does not add per-release divergences, it tops up to the joint curve). Hence

* ``ledger.accountant.get_epsilon(delta)`` is an :math:`\varepsilon'` such that the whole release is
  :math:`(\varepsilon', \delta)`-Pufferfish private for that pair and prior, in both orders (the improved
  conversion of ``rpp/accounting/_conversions.py``, applied by dp-accounting), and it is never below the
  exact RPP composition's conversion on the same orders;
* it is **not** a differential-privacy guarantee: the accountant's ``neighboring_relation`` and the events'
  ``noise_multiplier`` are bookkeeping devices, not the noise that was added;
* for a Pufferfish class with several pairs or priors, keep one ledger per (pair, prior) and report the
  largest number (or record, with :func:`gaussian_event_for_curve`, an event that dominates the
  largest curve of the class at every order).

Composing other events. An event composed into the same accountant (``ledger.accountant.compose``) is
added on top of the ledger's own (:meth:`RppLedger.record` tops up against its own events only). The sum
of the curves bounds :math:`D_\alpha` of *all* the releases together, for the same pair and prior, when

1. the other mechanism is :math:`\varepsilon_{\text{o}}(\alpha)`-Rényi DP for replacing the target's
   record (all its attributes, the secret included) with the other records fixed, with noise independent
   of the RPP releases' noise: e.g. a Gaussian-mechanism count with ``noise_multiplier`` :math:`\sigma`
   (the noise over the sensitivity), :math:`\varepsilon_{\text{o}}(\alpha) = \alpha/(2\sigma^2)`;
2. the other records are known to the adversary, or independent of the target's record and secret.

Proof sketch: fix the other records (under 2 the divergence of the mixture over them is at most the
largest, by joint quasi-convexity, van Erven & Harremoës 2014, Thm. 13). Given the RPP outputs
:math:`a` and the secret, the other mechanism's output is a mixture of its laws at the target's posterior
records, so by joint quasi-convexity again it diverges by at most :math:`\varepsilon_{\text{o}}(\alpha)`
between the secrets, whatever :math:`a`; the chain rule of Rényi divergence (the proof of Mironov 2017,
Prop. 1) adds that to the RPP releases' :math:`D_\alpha`. Releases about the same data are dependent
given the secret, so the sum is a bound of this argument, not independent composition. The other events'
noise multipliers are the noise actually added; the ledger's own are bookkeeping.

dp-accounting is an optional dependency (the extra ``rpp-book[accounting]``), imported only when a function
of this module is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as checks
from ._linear_queries import checked_gaussian_pair, linear_release_law, proved_release_curve

if TYPE_CHECKING:  # the optional dependency, for the annotations only
    import dp_accounting

__all__ = ["RppLedger", "dominating_noise_multiplier", "gaussian_event_for_curve"]

_EXTRA = "dp-accounting is not installed: it is the optional extra of rpp-book (pip install 'rpp-book[accounting]')"


def _dp_accounting() -> Any:
    try:
        import dp_accounting
        import dp_accounting.rdp  # the accountant lives in the subpackage
    except ImportError as exc:
        raise ImportError(_EXTRA) from exc
    return dp_accounting


def _gaussian_rdp(orders: np.ndarray, sigma: float) -> np.ndarray:
    """dp-accounting's RDP of the Gaussian mechanism (q = 1), the same floating-point expression."""
    return np.array([alpha / (2 * sigma**2) for alpha in orders])


def dominating_noise_multiplier(*, orders: ArrayLike, divergences: ArrayLike) -> float:
    r"""Largest :math:`\sigma` with :math:`\alpha_k/(2\sigma^2) \ge D_k` at every listed order.

    .. math::

        \sigma = \min_{k:\, D_k > 0} \sqrt{\frac{\alpha_k}{2 D_k}},

    capped at :math:`10^{150}` (its square stays finite), then lowered by ulps (then by growing relative steps)
    until dp-accounting's own expression ``alpha / (2 * sigma**2)`` is :math:`\ge D_k` at every order in
    floating point (so the accountant, not only the formula, dominates the curve). The
    Gaussian mechanism with noise multiplier :math:`\sigma` has the Rényi curve :math:`\alpha/(2\sigma^2)`
    (Mironov 2017, Prop. 7). Returns ``inf`` when every :math:`D_k = 0`.

    Parameters
    ----------
    orders : array
        Orders :math:`\alpha_k \ge 1`, finite, 1-D.
    divergences : array
        :math:`D_k \ge 0`, finite, same shape.

    Returns
    -------
    float
        The noise multiplier :math:`\sigma`.

    Raises
    ------
    ValueError
        On orders below 1, negative, NaN or infinite divergences (no Gaussian event dominates an
        infinite divergence), or shapes that differ.

    Examples
    --------
    >>> dominating_noise_multiplier(orders=[2.0, 4.0], divergences=[0.25, 0.5])   # D = alpha / 8: sigma = 2
    2.0
    """
    a = checks.in_interval("orders", orders, low=1.0)
    d = checks.in_interval("divergences", divergences, low=0.0)
    if a.ndim != 1 or d.shape != a.shape or a.size == 0:
        raise ValueError("orders and divergences must be 1-D arrays of the same length >= 1")
    positive = d > 0
    if not positive.any():
        return float("inf")
    # sqrt(alpha / 2) / sqrt(D): no overflow for a subnormal D; at most 1e150, whose square is finite
    # in dp-accounting's expression (a larger sigma would be needed only for D below ~1e-300)
    sigma = min(float(np.min(np.sqrt(a[positive] / 2.0) / np.sqrt(d[positive]))), 1e150)
    k = 0
    while np.any(_gaussian_rdp(a, sigma) < d):  # ulps first, then growing steps (subnormal curves are coarse)
        sigma = float(np.nextafter(sigma, 0.0)) if k < 8 else sigma * (1.0 - 2.0**-52 * 2.0 ** min(k - 8, 40))
        k += 1
    return sigma


def gaussian_event_for_curve(*, orders: ArrayLike, divergences: ArrayLike) -> dp_accounting.GaussianDpEvent:
    r"""Return a ``dp_accounting.GaussianDpEvent`` whose Rényi curve dominates :math:`(\alpha_k, D_k)` at every listed order.

    The noise multiplier is :func:`dominating_noise_multiplier`. Composed in an ``RdpAccountant`` whose orders
    are among ``orders``, it contributes at least :math:`D_k` at each of them. For an RPP release whose curve
    is :math:`D_\alpha = \max` over both orders of the output divergence, the event stands for the release in
    the ledger (see the module's docstring for what the ledger's :math:`(\varepsilon', \delta)` then means).

    Parameters
    ----------
    orders, divergences : array
        As in :func:`dominating_noise_multiplier`; some :math:`D_k > 0`.

    Returns
    -------
    dp_accounting.GaussianDpEvent
        The Gaussian event with the noise multiplier :func:`dominating_noise_multiplier`.

    Raises
    ------
    ImportError
        If dp-accounting is not installed (the extra ``rpp-book[accounting]``).
    ValueError
        As :func:`dominating_noise_multiplier`, and if every :math:`D_k = 0` (record nothing then).

    Examples
    --------
    >>> event = gaussian_event_for_curve(orders=[2.0, 8.0], divergences=[0.1, 0.5])
    >>> sigma = event.noise_multiplier  # its curve alpha / (2 sigma^2) dominates both points
    >>> bool(2.0 / (2 * sigma**2) >= 0.1 and 8.0 / (2 * sigma**2) >= 0.5)
    True
    """
    dpa = _dp_accounting()
    sigma = dominating_noise_multiplier(orders=orders, divergences=divergences)
    if np.isinf(sigma):
        raise ValueError("divergences are all 0: there is nothing to record (no event needed)")
    return dpa.GaussianDpEvent(noise_multiplier=sigma)


class RppLedger:
    r"""A dp-accounting ``RdpAccountant`` that records linear-query releases of Gaussian data exactly.

    The data are :math:`x \sim N(\mu_s, \Sigma_s)` under the secret :math:`s \in \{i, j\}`; each
    :meth:`record` publishes :math:`y = Ax + \eta` with independent noise :math:`N(0, \operatorname{diag}(\theta^2))`
    (:func:`linear_queries_divergence`). After each record the accountant's curve is :math:`\ge` the exact
    joint curve :math:`J(\alpha_k)` of all releases so far, at every order :math:`\alpha_k` of the accountant:
    the ledger composes :math:`\sigma` with :math:`\alpha_k/(2\sigma^2) \ge J_{\text{new}}(\alpha_k) -
    C(\alpha_k)`, :math:`C` the accountant's curve before, and checks :math:`C_{\text{new}} \ge J_{\text{new}}`
    afterwards. See the module docstring for what its :math:`(\varepsilon', \delta)` means.

    **Other events in the same accountant.** An event composed directly into
    :attr:`accountant` (a differentially private release of the same data, say) is added on
    top: :math:`C` above is the curve of the ledger's *own* events only, so a later
    :meth:`record` never counts another mechanism's curve as covering the RPP releases, and
    the accountant's curve is :math:`\ge J(\alpha_k)` plus the other events' curves.  What
    that sum means (when it bounds the Pufferfish divergence of all the releases together)
    is in the module docstring.

    Parameters
    ----------
    mean_i, cov_i, mean_j, cov_j : array
        The data's law under each secret, (d,), (d, d), covariances positive semi-definite.
    orders : sequence of float, optional
        The accountant's orders (all :math:`> 1`, finite); default dp-accounting's ``DEFAULT_RDP_ORDERS``.
        Every recorded release must have a finite divergence at every order (for unequal prior covariances
        the divergence is infinite beyond an order set by the noise: choose the orders below it).
    both_orders : bool
        Bound both :math:`D_\alpha(P_i\|P_j)` and :math:`D_\alpha(P_j\|P_i)` (RPP's definition; default).

    Raises
    ------
    ImportError
        If dp-accounting is not installed.
    ValueError
        On invalid arguments.

    Examples
    --------
    Two releases of the same statistic at :math:`\theta = 3` of data with a shift of 1 and unit prior variance:
    the first is the Gaussian mechanism with :math:`\mu = 1/\sqrt{10}`, the two together equal one release at
    :math:`3/\sqrt 2`, so the ledger's curve is :math:`\alpha/11`, not twice :math:`\alpha/20`:

    >>> ledger = RppLedger(mean_i=[0.0], cov_i=[[1.0]], mean_j=[1.0], cov_j=[[1.0]])
    >>> round(ledger.record(queries=[[1.0]], scales=[3.0]).noise_multiplier, 10)   # sqrt(10)
    3.1622776602
    >>> _ = ledger.record(queries=[[1.0]], scales=[3.0])
    >>> bool(np.allclose(ledger.accountant.rdp, ledger.orders / 11, rtol=1e-12))
    True
    """

    def __init__(
        self,
        *,
        mean_i: ArrayLike,
        cov_i: ArrayLike,
        mean_j: ArrayLike,
        cov_j: ArrayLike,
        orders: Sequence[float] | None = None,
        both_orders: bool = True,
    ) -> None:
        dpa = _dp_accounting()
        if orders is None:
            orders = dpa.rdp.rdp_privacy_accountant.DEFAULT_RDP_ORDERS
        o = checks.in_interval("orders", orders, low=1.0, low_open=True)
        if o.ndim != 1 or o.size == 0:
            raise ValueError("orders must be a 1-D sequence of orders > 1")
        self._orders = o
        self._both = checks.flag("both_orders", both_orders)
        # validate the model once (the law of a trivial release checks shapes and covariances)
        d = checks.as_float_array("mean_i", mean_i).reshape(-1).size
        for mean, cov in ((mean_i, cov_i), (mean_j, cov_j)):
            linear_release_law(mean=mean, cov=cov, queries=np.eye(1, d), scales=[1.0])
        self._model = checked_gaussian_pair(mean_i, cov_i, mean_j, cov_j)  # the exact floats the proofs start from
        self._queries = np.zeros((0, d))
        self._scales = np.zeros(0)
        self._covered = np.zeros(o.shape)  # the curve of the ledger's own events, C(alpha_k)
        #: The wrapped ``dp_accounting.rdp.RdpAccountant``.
        self.accountant = dpa.rdp.RdpAccountant(orders=list(o))

    @property
    def orders(self) -> np.ndarray:
        """The accountant's orders."""
        return self._orders.copy()

    def _joint(self, queries: np.ndarray, scales: np.ndarray) -> np.ndarray:
        """Return the upper ends of the proved enclosures of the joint curve (the exact law of y = A x + eta in arb)."""
        return proved_release_curve(self._model, queries, scales, self._orders, both=self._both)

    def curve(self) -> np.ndarray:
        r"""Return the joint Rényi curve :math:`J(\alpha_k)` of every release recorded so far (zeros if none).

        Each entry is the upper end of a proved enclosure of the exact joint divergence (ball arithmetic on
        the exact law of the releases, :func:`rpp.accounting.multivariate_gaussian_renyi`), so it is at least
        the true curve: the ledger dominates the truth, not a float approximation of it.
        """
        if self._scales.size == 0:
            return np.zeros(self._orders.shape)
        return self._joint(self._queries, self._scales)

    def record(self, *, queries: ArrayLike, scales: ArrayLike) -> dp_accounting.GaussianDpEvent | None:
        r"""Record a release :math:`y = Ax + \eta` (one or several queries) and compose its event.

        Parameters
        ----------
        queries : array (k, d)
            The new queries.
        scales : array (k,)
            Their noise standard deviations (> 0).

        Returns
        -------
        dp_accounting.GaussianDpEvent or None
            The event composed, or ``None`` when the ledger already covers the new joint curve.

        Raises
        ------
        ValueError
            On invalid queries or scales, or if the joint divergence is infinite at one of the ledger's
            orders (nothing is recorded then).
        """
        dpa = _dp_accounting()
        q = np.atleast_2d(checks.in_interval("queries", queries))
        s = np.atleast_1d(checks.in_interval("scales", scales, low=0.0, low_open=True))
        if q.ndim != 2 or q.shape[1] != self._queries.shape[1] or s.shape != (q.shape[0],):
            raise ValueError(f"queries must be k x {self._queries.shape[1]} and scales of length k")
        new_q, new_s = np.vstack([self._queries, q]), np.concatenate([self._scales, s])
        joint = self._joint(new_q, new_s)
        if not np.all(np.isfinite(joint)):
            raise ValueError("the release's divergence is infinite at some of the ledger's orders: "
                             "construct the ledger with orders at which it is finite")  # fmt: skip
        # the ledger's own events only: another event composed into the accountant (a DP
        # release, say) adds its own curve and never covers the RPP releases' curve
        before = self._covered
        # the top-up, padded by 4 ulps of the joint value so that before + top-up >= joint after rounding
        need = np.where(joint > before, joint - before + 4 * np.finfo(float).eps * joint, 0.0)
        event, covered = None, before
        if np.any(need > 0):
            event = dpa.GaussianDpEvent(
                noise_multiplier=dominating_noise_multiplier(orders=self._orders, divergences=need)
            )
            # the event's curve as dp-accounting computes it (the same expression as the accountant)
            alone = dpa.rdp.RdpAccountant(orders=list(self._orders))
            alone.compose(event)
            covered = before + alone.rdp
        if np.any(covered < joint):
            raise RuntimeError("internal error: the ledger does not dominate the joint curve")
        if event is not None:
            self.accountant.compose(event)
        self._covered = covered
        self._queries, self._scales = new_q, new_s
        return event
