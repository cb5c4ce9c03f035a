r"""The release report: what a published RPP release guarantees, to whom, under which assumptions.

:func:`release_report` turns the facts of one release -- the :math:`(\alpha, \varepsilon)`-RPP
guarantee (and, optionally, the Rényi curve :math:`\alpha \mapsto \varepsilon(\alpha)` the mechanism
meets), the noise, the prior class and the public metadata -- into a :class:`ReleaseReport`, a frozen
record with a text form (:meth:`ReleaseReport.to_text`) for people and a JSON form
(:meth:`ReleaseReport.to_json`, stable keys, ``schema_version``) for archives and pipelines. Every
number in it is computed by the existing functions of :mod:`rpp.accounting`:

* the :math:`(\varepsilon', \delta)` statements, the best over the curve
  (:func:`~rpp.accounting.best_dp_epsilon`);
* the attacker's odds: a factor the release multiplies the prior odds of one secret against another by,
  except with a small probability (:func:`~rpp.accounting.odds_update_bound`), and the
  posterior it allows (:func:`~rpp.accounting.posterior_bound`);
* the hypothesis-testing trade-off: the largest true-positive rate of any test at a given
  false-positive rate (:func:`~rpp.accounting.max_true_positive_rate`).

Each of them holds at every order of the curve on its own, so the report states the smallest over the
orders and names the order that gives it.

**Nothing confidential.** The report takes no data: only parameters chosen by the publisher, prose, and
the published (noisy) outputs, which are public by definition. The noise scale is a parameter; it must
not have been computed from the confidential data (that would leak, see the book's chapter 9).

**Words are flags.** The report calls the guarantee *proved* only when the caller says it is
(``rigorous=True``, e.g. the ``guaranteed`` field of :class:`~rpp.calibration.Calibration`); otherwise it is an
*estimate*. Reproducible noise (``insecure_seed``) is flagged ``UNSAFE TO PUBLISH``; data changed since
the prior class was fitted are flagged ``GUARANTEE DOES NOT APPLY``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._lib import validation as checks
from ..sampling import default_grid
from .conversions import best_dp_epsilon
from .interpretation import max_true_positive_rate, odds_update_bound, posterior_bound

__all__ = ["ReleaseReport", "release_report"]

#: Identifies the JSON record.
SCHEMA = "rpp.release_report"
#: Incremented whenever a key of the JSON record changes meaning or disappears.
SCHEMA_VERSION = 1

_NOISES = ("gaussian", "laplace")
_WIDTH = 88


def _text(name: str, value: Any, *, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str (a description), got a {type(value).__name__}")
    if not empty and not value.strip():
        raise ValueError(f"{name} must be a non-empty description")
    return value


def _texts(name: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a sequence of str (one item each), got a {type(value).__name__}")
    return tuple(_text(f"{name}[{i}]", v) for i, v in enumerate(value))


def _numbers(name: str, value: Any, **bounds: Any) -> tuple[float, ...]:
    arr = checks.in_interval(name, value, **bounds)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a scalar or a 1-D sequence")
    return tuple(float(x) for x in np.atleast_1d(arr))


def _expected_errors(noise: str, scale: float) -> tuple[float, float]:
    r"""(E|Z|, sqrt(E Z^2)) of the continuous noise: Gaussian θ√(2/π), θ; Laplace b, b√2."""
    if noise == "gaussian":
        return scale * math.sqrt(2.0 / math.pi), scale
    return scale, scale * math.sqrt(2.0)


@dataclasses.dataclass(frozen=True)
class ReleaseReport:
    r"""A frozen report of one release; build it with :func:`release_report`.

    Fields hold plain Python values (tuples, floats, str, bool); :meth:`to_dict` gives the JSON record,
    :meth:`to_text` the text. Conversions are ``(delta, epsilon_prime, order)``, the trade-off
    ``(false_positive_rate, max_true_positive_rate, order)``, the curve ``(order, epsilon)``.
    """

    alpha: float
    epsilon: float
    rigorous: bool
    secret: str
    query: str
    noise: str
    scales: tuple[float, ...]
    releases: int
    published: tuple[float, ...]
    reproducible_noise: bool
    prior_class: str
    coverage: float | None
    public_metadata: tuple[str, ...]
    data_unchanged: bool
    assumptions: tuple[str, ...]
    curve: tuple[tuple[float, float], ...]
    conversions: tuple[tuple[float, float, float], ...]
    odds_probability: float
    odds_factor: float
    odds_order: float
    prior_probability: float
    posterior: float
    tradeoff: tuple[tuple[float, float, float], ...]
    grids: tuple[float, ...]
    expected_abs_errors: tuple[float, ...]
    rmses: tuple[float, ...]

    @property
    def publishable(self) -> bool:
        """False if the noise is reproducible (``insecure_seed``) or the data changed since the prior was fitted."""
        return not self.reproducible_noise and self.data_unchanged

    def flags(self) -> tuple[str, ...]:
        """Return the warnings of the report, most serious first (empty when there is nothing to flag)."""
        out = []
        if self.reproducible_noise:
            out.append(
                "UNSAFE TO PUBLISH: reproducible noise (insecure_seed): anyone who knows or guesses "
                "the seed can subtract the noise and recover the confidential value"
            )
        if not self.data_unchanged:
            out.append("GUARANTEE DOES NOT APPLY: the data changed since the prior class was fitted")
        if not self.rigorous:
            out.append("ESTIMATE: the privacy level is an estimate, not proved (see the prior class)")
        if self.coverage is None:
            out.append("COVERAGE NOT STATED: nothing says how likely the true prior is to lie in the class")
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON record (a dict of plain values; infinities as the string ``"inf"``)."""

        def num(x: float | None) -> Any:
            if x is None:
                return None
            return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")

        status = "proved" if self.rigorous else "estimate"
        return {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "publishable": self.publishable,
            "flags": list(self.flags()),
            "guarantee": {
                "notion": "Renyi Pufferfish privacy",
                "alpha": num(self.alpha),
                "epsilon": num(self.epsilon),
                "status": status,
                "secret": self.secret,
                "curve": [{"alpha": num(a), "epsilon": num(e)} for a, e in self.curve],
            },
            "release": {
                "query": self.query,
                "releases": self.releases,
                "published": [num(y) for y in self.published],
            },
            "noise": {
                "family": self.noise,
                "scales": [num(x) for x in self.scales],
                "source": "reproducible (insecure_seed): UNSAFE"
                if self.reproducible_noise
                else "operating system entropy",
                "grids": [num(x) for x in self.grids],
                "expected_abs_errors": [num(x) for x in self.expected_abs_errors],
                "rmses": [num(x) for x in self.rmses],
            },
            "dp_conversions": [
                {"delta": num(d), "epsilon_prime": num(e), "alpha": num(a)} for d, e, a in self.conversions
            ],
            "attacker": {
                "odds_probability": num(self.odds_probability),
                "odds_factor": num(self.odds_factor),
                "odds_alpha": num(self.odds_order),
                "prior_probability": num(self.prior_probability),
                "posterior_bound": num(self.posterior),
                "tradeoff": [
                    {"false_positive_rate": num(f), "max_true_positive_rate": num(t), "alpha": num(a)}
                    for f, t, a in self.tradeoff
                ],
            },
            "assumptions": {
                "prior_class": self.prior_class,
                "coverage": num(self.coverage),
                "public_metadata": list(self.public_metadata),
                "data_unchanged_since_prior_fitted": self.data_unchanged,
                "other": list(self.assumptions),
            },
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """Return :meth:`to_dict` as JSON (sorted keys, no NaN: the record is stable and strict)."""
        return json.dumps(self.to_dict(), indent=indent, sort_keys=True, allow_nan=False, ensure_ascii=False)

    def to_text(self) -> str:
        """Return the report as text for people (lines of at most 88 characters)."""
        lines: list[str] = []

        def para(text: str, indent: str = "") -> None:
            lines.extend(textwrap.wrap(text, _WIDTH, initial_indent=indent, subsequent_indent=" " * len(indent) + "  "))

        lines.append(f"RPP RELEASE REPORT ({SCHEMA} v{SCHEMA_VERSION})")
        for flag in self.flags():
            para("!! " + flag)
        lines.append("")
        word = "proved" if self.rigorous else "an estimate, NOT proved"
        para(
            f"Guarantee: ({self.alpha:g}, {self.epsilon:.4g})-Renyi Pufferfish privacy ({word}) for the "
            f"secret: {self.secret}. Releases covered together: {self.releases}."
        )
        para(f"Query: {self.query}")
        if self.published:
            para("Published (noisy) values: " + ", ".join(f"{y:.6g}" for y in self.published))
        source = "REPRODUCIBLE insecure_seed (UNSAFE)" if self.reproducible_noise else "operating system entropy"

        def listed(values: tuple[float, ...], fmt: str) -> str:
            return ", ".join(format(x, fmt) for x in values)

        para(
            f"Noise: {self.noise}, scale {listed(self.scales, '.6g')} per release (one per statistic), from "
            f"{source}, rounded to a grid of {listed(self.grids, '.3g')}. Expected absolute error of one "
            f"release {listed(self.expected_abs_errors, '.4g')} (root-mean-square "
            f"{listed(self.rmses, '.4g')}; the grid adds at most half a grid step)."
        )
        lines.append("")
        lines.append("What it means")
        # the coverage beside delta: delta is conditional on the class containing the true prior
        held = (
            f", with probability >= {self.coverage:.4g} that the class contains the true prior (its coverage)"
            if self.coverage is not None and self.coverage < 1
            else ""
        )
        for d, e, a in self.conversions:
            para(
                f"(epsilon', delta) = ({e:.4g}, {d:.3g}) for every secret pair and prior of the class "
                f"(conversion at alpha = {a:g}){held}.",
                "- ",
            )
        para(
            f"An attacker who knows the prior: when one secret is true, the release multiplies its "
            f"odds for that secret against another by at most {self.odds_factor:.4g}, except with "
            f"probability {self.odds_probability:g} (order {self.odds_order:g}); from prior "
            f"probability {self.prior_probability:g} the posterior stays below {self.posterior:.4g}.",
            "- ",
        )
        for f, t, a in self.tradeoff:
            para(
                f"Any test of one secret against another with false-positive rate {f:g} has a "
                f"true-positive rate of at most {t:.4g} (order {a:g}).",
                "- ",
            )
        lines.append("")
        lines.append("Assumptions (the guarantee holds only if all of them do)")
        cov = (
            f"coverage {self.coverage:.4g} (the probability that the class contains the true prior)"
            if self.coverage is not None
            else "coverage NOT STATED"
        )
        para(f"[ ] prior class: {self.prior_class}; {cov}", "- ")
        meta = "; ".join(self.public_metadata) if self.public_metadata else "none"
        para(f"[ ] metadata published besides the values: {meta}", "- ")
        para(
            "[x] data unchanged since the prior class was fitted"
            if self.data_unchanged
            else "[!] the data CHANGED since the prior class was fitted: the guarantee does not apply",
            "- ",
        )
        for item in self.assumptions:
            para(f"[ ] {item}", "- ")
        return "\n".join(lines)


def release_report(
    *,
    alpha: float,
    epsilon: float,
    rigorous: bool,
    secret: str,
    query: str,
    noise: str,
    scale: Any,
    reproducible_noise: bool,
    prior_class: str,
    data_unchanged: bool,
    coverage: float | None = None,
    public_metadata: Sequence[str] = (),
    assumptions: Sequence[str] = (),
    published: Any = (),
    releases: int = 1,
    orders: Any = None,
    epsilons: Any = None,
    deltas: Any = (1e-5,),
    false_positive_rates: Any = (0.01, 0.05, 0.1),
    probability: float = 0.05,
    prior_probability: float = 0.5,
) -> ReleaseReport:
    r"""Build the report of a release with an :math:`(\alpha, \varepsilon)`-RPP guarantee.

    With the Rényi curve :math:`\{(\alpha_k, \varepsilon_k)\}` (``orders``, ``epsilons``; the pair
    ``(alpha, epsilon)`` is always added), the report states

    .. math::

        \varepsilon'(\delta) = \min_k \Bigl[\varepsilon_k + \log\Bigl(1 - \frac{1}{\alpha_k}\Bigr)
        - \frac{\log\delta + \log\alpha_k}{\alpha_k - 1}\Bigr]_+

    (:func:`~rpp.accounting.best_dp_epsilon`: Canonne, Kamath & Steinke 2020, Prop. 12, with
    the Bretagnolle-Huber bound), the odds factor

    .. math::

        F = \min_k \exp\Bigl(\varepsilon_k + \frac{\log(1/\beta)}{\alpha_k - 1}\Bigr),\qquad
        P_{Y\sim P_i}\Bigl(\frac{p_i(Y)}{p_j(Y)} > F\Bigr) \le \beta,

    (:func:`~rpp.accounting.odds_update_bound`, Mironov 2017, Prop. 3), the posterior
    :math:`\pi F/(\pi F + 1 - \pi)` from the prior probability :math:`\pi`
    (:func:`~rpp.accounting.posterior_bound`), and for each false-positive rate :math:`a`
    the largest true-positive rate :math:`\min_k b^\star_{\alpha_k, \varepsilon_k}(a)`
    (:func:`~rpp.accounting.max_true_positive_rate`, data processing; van Erven &
    Harremoës 2014, Thm 9). Each bound holds at every order of the curve, hence their minimum.

    The error of one release is that of the continuous noise plus the rounding of the secure sampler
    (:func:`rpp.sampling.default_grid`, :math:`g`): :math:`\mathbb E|Z| = \theta\sqrt{2/\pi}`,
    :math:`\sqrt{\mathbb E Z^2} = \theta` for :math:`N(0, \theta^2)`; :math:`\mathbb E|Z| = b`,
    :math:`\sqrt{\mathbb E Z^2} = b\sqrt 2` for Laplace(:math:`b`); the rounding moves a release by at
    most :math:`g/2`.

    Parameters
    ----------
    alpha : float
        The order of the guarantee, :math:`> 1`, finite.
    epsilon : float
        The guaranteed divergence bound :math:`\varepsilon \ge 0` (of all releases together), finite.
    rigorous : bool
        Whether :math:`\varepsilon` is *proved* for every prior of the class (e.g. a calibration's
        ``guaranteed``); ``False`` makes the report say *estimate*.
    secret : str
        What is protected: the secret pairs, in words.
    query : str
        What is published, in words.
    noise : {"gaussian", "laplace"}
        The noise family.
    scale : float or sequence of float
        Its scale per release (Gaussian standard deviation :math:`\theta`, Laplace :math:`b`), positive;
        one per published statistic when they differ.
        A parameter, never computed from the confidential data.
    reproducible_noise : bool
        Whether the noise came from ``insecure_seed`` (flagged UNSAFE TO PUBLISH). No default: the
        caller must say where the noise came from.
    prior_class : str
        The prior class, in words (how it was fitted, on which public data).
    data_unchanged : bool
        Whether the confidential data are unchanged since the prior class was fitted.
    coverage : float, optional
        The confidence level of the class, in (0, 1] (``None``: not stated, flagged).
    public_metadata : sequence of str
        Everything *published* besides the values (sizes, dates, the noise scales ...), and
        nothing else.  What the adversary is assumed to know without its being published
        (other records, say), and what must stay unpublished for the guarantee to hold, are
        assumptions: pass them in ``assumptions``.
    assumptions : sequence of str
        Further assumptions of the threat model: what the adversary is assumed to know, what
        is not published, the independence of the records ...
    published : float or sequence of float
        The published noisy outputs (public); may be empty.
    releases : int
        Number of releases the guarantee covers together, :math:`\ge 1`.
    orders, epsilons : sequence of float, optional
        A Rényi curve the mechanism meets: orders :math:`> 1` (finite) and bounds :math:`\ge 0`, same
        length (both or neither).
    deltas : float or sequence of float
        The :math:`\delta \in (0, 1)` of the :math:`(\varepsilon', \delta)` statements.
    false_positive_rates : float or sequence of float
        The rates :math:`a \in [0, 1]` of the trade-off.
    probability : float
        :math:`\beta \in (0, 1]` of the odds bound.
    prior_probability : float
        :math:`\pi \in [0, 1]` of the posterior bound.

    Returns
    -------
    ReleaseReport
        The frozen report (:meth:`ReleaseReport.to_text`, :meth:`ReleaseReport.to_json`).

    Raises
    ------
    TypeError
        If a description is not a str or a flag not a bool.
    ValueError
        If a number is out of its range (the message names the argument, never a value).

    Examples
    --------
    >>> r = release_report(alpha=3.0, epsilon=1.0, rigorous=True, secret="s1 vs s2", query="a mean",
    ...                    noise="gaussian", scale=2.0, reproducible_noise=False, prior_class="N(m, v)",
    ...                    data_unchanged=True, coverage=0.95)
    >>> r.odds_factor == odds_update_bound(alpha=3.0, epsilon=1.0, probability=0.05)
    True
    >>> r.publishable, r.to_dict()["schema_version"]
    (True, 1)
    """
    a = checks.scalar_in_interval("alpha", alpha, low=1.0, low_open=True)
    e = checks.scalar_in_interval("epsilon", epsilon, low=0.0)
    rigorous = checks.flag("rigorous", rigorous)
    reproducible_noise = checks.flag("reproducible_noise", reproducible_noise)
    data_unchanged = checks.flag("data_unchanged", data_unchanged)
    noise = checks.one_of("noise", noise, _NOISES)
    scales = _numbers("scale", scale, low=0.0, low_open=True)
    if not scales:
        raise ValueError("scale must be a positive number or a non-empty sequence of them")
    k = checks.integer("releases", releases)
    cov = (
        None if coverage is None else checks.scalar_in_interval("coverage", coverage, low=0.0, high=1.0, low_open=True)
    )
    secret = _text("secret", secret)
    query = _text("query", query)
    prior_class = _text("prior_class", prior_class)
    meta = _texts("public_metadata", public_metadata)
    extra = _texts("assumptions", assumptions)
    out = _numbers("published", published) if np.size(np.asarray(published, dtype=object)) else ()
    if (orders is None) != (epsilons is None):
        raise ValueError("orders and epsilons must be given together (a Rényi curve) or not at all")
    if orders is None:
        curve_a, curve_e = np.array([a]), np.array([e])
    else:
        oa = np.array(_numbers("orders", orders, low=1.0, low_open=True))
        oe = np.array(_numbers("epsilons", epsilons, low=0.0))
        if oa.shape != oe.shape:
            raise ValueError("orders and epsilons must have the same length")
        curve_a, curve_e = np.append(oa, a), np.append(oe, e)
        order = np.argsort(curve_a, kind="stable")
        curve_a, curve_e = curve_a[order], curve_e[order]
    ds = _numbers("deltas", deltas, low=0.0, high=1.0, low_open=True, high_open=True)
    fprs = _numbers("false_positive_rates", false_positive_rates, low=0.0, high=1.0)
    beta = checks.scalar_in_interval("probability", probability, low=0.0, high=1.0, low_open=True)
    pi = checks.scalar_in_interval("prior_probability", prior_probability, low=0.0, high=1.0)

    conversions = []
    for d in ds:
        best = best_dp_epsilon(alpha=curve_a, epsilon=curve_e, delta=d)
        conversions.append((d, best.value, best.alpha))
    with np.errstate(over="ignore"):  # a factor beyond the largest float is +inf: intended
        factors = np.atleast_1d(odds_update_bound(alpha=curve_a, epsilon=curve_e, probability=beta))
    j = int(np.argmin(factors))
    posterior = float(posterior_bound(alpha=curve_a[j], epsilon=curve_e[j], prior=pi, probability=beta))
    tradeoff = []
    for f in fprs:
        tprs = np.atleast_1d(max_true_positive_rate(alpha=curve_a, epsilon=curve_e, false_positive_rate=f))
        i = int(np.argmin(tprs))
        tradeoff.append((f, float(tprs[i]), float(curve_a[i])))
    errors = [_expected_errors(noise, x) for x in scales]
    return ReleaseReport(
        alpha=a,
        epsilon=e,
        rigorous=rigorous,
        secret=secret,
        query=query,
        noise=noise,
        scales=scales,
        releases=k,
        published=out,
        reproducible_noise=reproducible_noise,
        prior_class=prior_class,
        coverage=cov,
        public_metadata=meta,
        data_unchanged=data_unchanged,
        assumptions=extra,
        curve=tuple((float(x), float(y)) for x, y in zip(curve_a, curve_e, strict=True)),
        conversions=tuple(conversions),
        odds_probability=beta,
        odds_factor=float(factors[j]),
        odds_order=float(curve_a[j]),
        prior_probability=pi,
        posterior=posterior,
        tradeoff=tuple(tradeoff),
        grids=tuple(default_grid(x) for x in scales),
        expected_abs_errors=tuple(e[0] for e in errors),
        rmses=tuple(e[1] for e in errors),
    )
