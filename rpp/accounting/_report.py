r"""The release report: what a published RPP release guarantees, to whom, under which assumptions.

:func:`release_report` turns the records of the releases (:class:`rpp.sampling.Release`, returned by
every release path of ``rpp``), the :math:`(\alpha, \varepsilon)`-RPP guarantee (and, optionally, the
Rényi curve :math:`\alpha \mapsto \varepsilon(\alpha)` the mechanism meets), the prior class and the
public metadata into a :class:`ReleaseReport`, a frozen
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
the release records, which hold the published (noisy) outputs -- public by definition -- and how they
were drawn, never the query value. The noise scale is a parameter; it must not have been computed from
the confidential data (that would leak, see the book's chapter 9).

**Checked, or declared.**  What the records say is *checked*: the noise family and scale of each
release, its grid, where its noise came from (reproducible noise from ``insecure_seed`` makes the
report ``UNSAFE TO PUBLISH``, whatever else is said), and the calibration attached to it.  The
guarantee is called *proved* only when a calibration proves it (one release whose attached
:class:`~rpp.calibration.Calibration` is ``guaranteed`` for the report's :math:`(\alpha,
\varepsilon)`); otherwise its status is the publisher's (``rigorous=``), and the report says
*declared proved by the publisher, not checked*.  What
the library cannot know -- that the data did not change since the prior class was fitted, that the
prior class is what the words say, what else is published -- is *declared by the publisher, not
checked*, and the report lists it apart from what was checked.
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
from ..sampling import Release
from ._conversions import best_dp_epsilon
from ._interpretation import max_true_positive_rate, odds_update_bound, posterior_bound

__all__ = ["ReleaseReport", "release_report"]

#: Identifies the JSON record.
SCHEMA = "rpp.release_report"
#: Incremented whenever a key of the JSON record changes meaning or disappears.
SCHEMA_VERSION = 2

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


def _listed(values: Sequence[Any], fmt: str) -> str:
    return ", ".join(format(x, fmt) for x in values)


def _positions(flags: Sequence[bool]) -> str:
    """Return the releases where ``flags`` is true, in words: "the release", "all 2 releases", "release 1 of 3"."""
    hits = [str(i + 1) for i, f in enumerate(flags) if f]
    if len(flags) == 1:
        return "the release"
    if len(hits) == len(flags):
        return f"all {len(flags)} releases"
    return ("release " if len(hits) == 1 else "releases ") + ", ".join(hits) + f" of {len(flags)}"


def _calibration_record(cal: Any) -> dict[str, Any]:
    """Return the public parameters of a calibration (no prior, no detail)."""
    return {
        "noise": str(cal.noise),
        "scale": float(cal.scale),
        "method": str(cal.method),
        "alpha": float(cal.alpha),
        "epsilon": float(cal.epsilon),
        "within_budget": bool(cal.within_budget),
        "guaranteed": bool(cal.guaranteed),
    }


def _records(releases: Any) -> tuple[Release, ...]:
    if isinstance(releases, Release):
        raise TypeError("releases must be a sequence of rpp.Release records, got one Release: pass [record]")
    if isinstance(releases, (str, bytes)) or not isinstance(releases, Sequence):
        raise TypeError(f"releases must be a sequence of rpp.Release records, got a {type(releases).__name__}")
    if not releases:
        raise ValueError("releases must hold at least one rpp.Release record")
    for i, r in enumerate(releases):
        if not isinstance(r, Release):
            raise TypeError(
                f"releases[{i}] must be an rpp.Release (returned by the release functions), got a {type(r).__name__}"
            )
        if r.scale == 0:
            raise ValueError(
                f"releases[{i}] has scale 0: no noise was added, so there is no noise to report "
                "(the report covers noisy releases, scale > 0)"
            )
    return tuple(releases)


def _expected_errors(noise: str, scale: float) -> tuple[float, float]:
    r"""(E|Z|, sqrt(E Z^2)) of the continuous noise: Gaussian θ√(2/π), θ; Laplace b, b√2."""
    if noise == "gaussian":
        return scale * math.sqrt(2.0 / math.pi), scale
    return scale, scale * math.sqrt(2.0)


@dataclasses.dataclass(frozen=True)
class ReleaseReport:
    r"""A frozen report of one publication (one or more releases); build it with :func:`release_report`.

    Fields hold plain Python values (tuples, floats, str, bool, dicts of them); :meth:`to_dict` gives
    the JSON record, :meth:`to_text` the text.  Per release (one entry per record, in order):
    ``noises``, ``scales``, ``grids``, ``sources``, ``reproducible``, ``calibrations`` (the public
    parameters of the attached calibration, or None), ``expected_abs_errors``, ``rmses``.
    Conversions are ``(delta, epsilon_prime, order)``, the trade-off ``(false_positive_rate,
    max_true_positive_rate, order)``, the curve ``(order, epsilon)``.  ``rigorous`` is the status
    of the guarantee (proved or estimate); ``rigorous_checked`` says whether a calibration
    established it (True) or the publisher declared it (False).
    """

    alpha: float
    epsilon: float
    rigorous: bool
    rigorous_checked: bool
    secret: str
    query: str
    releases: int
    published: tuple[float, ...]
    noises: tuple[str, ...]
    scales: tuple[float, ...]
    grids: tuple[float, ...]
    sources: tuple[str, ...]
    reproducible: tuple[bool, ...]
    calibrations: tuple[dict[str, Any] | None, ...]
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
    expected_abs_errors: tuple[float, ...]
    rmses: tuple[float, ...]

    @property
    def noise(self) -> str:
        """The noise family of every release, or ``"mixed"`` when the releases disagree."""
        return self.noises[0] if len(set(self.noises)) == 1 else "mixed"

    @property
    def reproducible_noise(self) -> bool:
        """Whether any release drew reproducible noise (``insecure_seed``): read from the records."""
        return any(self.reproducible)

    @property
    def budget_missed(self) -> tuple[int, ...]:
        """Return the positions (0-based) of the releases whose attached calibration does not meet its own budget."""
        return tuple(i for i, c in enumerate(self.calibrations) if c is not None and not c["within_budget"])

    @property
    def publishable(self) -> bool:
        """False if any noise is reproducible, an attached calibration misses its budget, or the data changed."""
        return not self.reproducible_noise and not self.budget_missed and self.data_unchanged

    def flags(self) -> tuple[str, ...]:
        """Return the warnings of the report, most serious first (empty when there is nothing to flag)."""
        out = []
        if self.reproducible_noise:
            out.append(
                f"UNSAFE TO PUBLISH: reproducible noise (insecure_seed) in {_positions(self.reproducible)} "
                "(read from the release records): anyone who knows or guesses the seed can subtract the "
                "noise and recover the confidential value"
            )
        if self.budget_missed:
            out.append(
                "NOT PUBLISHABLE: the calibration attached to "
                f"{_positions([i in self.budget_missed for i in range(self.releases)])} does not meet its "
                "own (alpha, epsilon)"
            )
        if not self.data_unchanged:
            out.append(
                "GUARANTEE DOES NOT APPLY: the data changed since the prior class was fitted (declared by the publisher)"
            )
        if self.noise == "mixed":
            out.append(
                f"MIXED NOISE: the releases use different noise families ({_listed(self.noises, 's')}): the "
                "guarantee must have been computed for this combination"
            )
        if not self.rigorous:
            out.append("ESTIMATE: the privacy level is an estimate, not proved (see the prior class)")
        if self.coverage is None:
            out.append("COVERAGE NOT STATED: nothing says how likely the true prior is to lie in the class")
        return tuple(out)

    def _status(self) -> str:
        if self.rigorous_checked:
            return "proved" if self.rigorous else "an estimate, NOT proved"
        if self.rigorous:
            return "declared proved by the publisher, not checked"
        return "an estimate, NOT proved; declared by the publisher"

    def _source(self) -> str:
        if not self.reproducible_noise:
            return "operating system entropy"
        if all(self.reproducible):
            return "REPRODUCIBLE insecure_seed (UNSAFE)"
        return f"REPRODUCIBLE insecure_seed (UNSAFE) in {_positions(self.reproducible)}, else OS entropy"

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
                "status_basis": "checked: the attached calibration" if self.rigorous_checked else "declared",
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
            "checked": {
                "provenance": [
                    {
                        "family": f,
                        "scale": num(x),
                        "grid": num(g),
                        "source": src,
                        "reproducible": rep,
                        "calibration": None
                        if cal is None
                        else {k: num(v) if isinstance(v, float) else v for k, v in cal.items()},
                    }
                    for f, x, g, src, rep, cal in zip(
                        self.noises,
                        self.scales,
                        self.grids,
                        self.sources,
                        self.reproducible,
                        self.calibrations,
                        strict=True,
                    )
                ],
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
            "declared_not_checked": {
                "guarantee_status": None if self.rigorous_checked else status,
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

    def _checked_items(self) -> list[str]:
        """Return the lines of what the release records establish (the section "Checked ...")."""
        out: list[str] = []
        every = "in the release" if self.releases == 1 else f"in all {self.releases} releases"
        if self.reproducible_noise:
            out.append(f"[!] noise source: REPRODUCIBLE (insecure_seed) in {_positions(self.reproducible)}")
        else:
            out.append(f"[x] noise source: the operating system's entropy, {every}")
        if self.noise == "mixed":
            out.append(f"[!] noise families differ: {_listed(self.noises, 's')}")
        else:
            out.append(f"[x] noise family: {self.noise}, {every}; scales and grids as above")
        for i, cal in enumerate(self.calibrations):
            if cal is None:
                continue
            word = (
                "guaranteed (proved)"
                if cal["guaranteed"]
                else ("within budget, not proved" if cal["within_budget"] else "does NOT meet its budget")
            )
            out.append(
                f"[{'x' if cal['guaranteed'] else '!'}] release {i + 1}: calibration ({cal['method']}) for "
                f"(alpha, epsilon) = ({cal['alpha']:g}, {cal['epsilon']:.4g}) at this noise and scale: {word}"
            )
        if all(c is None for c in self.calibrations):
            out.append("[ ] no calibration attached to the releases: the guarantee's status is declared")
        return out

    def to_text(self, *, values: bool = True, width: int = _WIDTH) -> str:
        """Return the report as text for people (lines of at most ``width`` characters).

        Parameters
        ----------
        values : bool
            Whether to list the published (noisy) values; ``False`` prints the report without
            them (to show a report where the values must not appear, e.g. before publication).
        width : int
            The longest line, an int in [40, 200] (default 88).

        Returns
        -------
        str
            The report, one item per line.
        """
        values = checks.flag("values", values)
        if isinstance(width, bool) or not isinstance(width, int) or not 40 <= width <= 200:
            raise ValueError("width must be an int in [40, 200] (characters per line)")
        lines: list[str] = []

        def para(text: str, indent: str = "") -> None:
            lines.extend(textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=" " * len(indent) + "  "))

        lines.append(f"RPP RELEASE REPORT ({SCHEMA} v{SCHEMA_VERSION})")
        for flag in self.flags():
            para("!! " + flag)
        lines.append("")
        para(
            f"Guarantee: ({self.alpha:g}, {self.epsilon:.4g})-Renyi Pufferfish privacy ({self._status()}) for "
            f"the secret: {self.secret}. Releases covered together: {self.releases}."
        )
        para(f"Query: {self.query}")
        if self.published and values:
            para("Published (noisy) values: " + ", ".join(f"{y:.6g}" for y in self.published))
        elif self.published:
            para(f"Published (noisy) values: {len(self.published)}, not shown in this copy of the report.")
        para(
            f"Noise: {self.noise}, scale {_listed(self.scales, '.6g')} per release (one per statistic), from "
            f"{self._source()}, rounded to a grid of {_listed(self.grids, '.3g')}. Expected absolute error of one "
            f"release {_listed(self.expected_abs_errors, '.4g')} (root-mean-square "
            f"{_listed(self.rmses, '.4g')}; the grid adds at most half a grid step)."
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
        lines.append("Checked from the release records")
        for item in self._checked_items():
            para(item, "- ")
        lines.append("")
        para("Declared by the publisher, not checked (the guarantee holds only if all of them do)")
        if not self.rigorous_checked:
            para(f"[ ] the guarantee is {'proved' if self.rigorous else 'an estimate'} for the prior class", "- ")
        else:
            para("[ ] the priors of the attached calibration are the prior class described here", "- ")
        cov = (
            f"coverage {self.coverage:.4g} (the probability that the class contains the true prior)"
            if self.coverage is not None
            else "coverage NOT STATED"
        )
        para(f"[ ] prior class: {self.prior_class}; {cov}", "- ")
        meta = "; ".join(self.public_metadata) if self.public_metadata else "none"
        para(f"[ ] metadata published besides the values: {meta}", "- ")
        para(
            "[ ] data unchanged since the prior class was fitted"
            if self.data_unchanged
            else "[!] the data CHANGED since the prior class was fitted: the guarantee does not apply",
            "- ",
        )
        for item in self.assumptions:
            para(f"[ ] {item}", "- ")
        return "\n".join(lines)


def release_report(
    *,
    releases: Sequence[Release],
    alpha: float,
    epsilon: float,
    secret: str,
    query: str,
    prior_class: str,
    data_unchanged: bool,
    rigorous: bool | None = None,
    coverage: float | None = None,
    public_metadata: Sequence[str] = (),
    assumptions: Sequence[str] = (),
    orders: Any = None,
    epsilons: Any = None,
    deltas: Any = (1e-5,),
    false_positive_rates: Any = (0.01, 0.05, 0.1),
    probability: float = 0.05,
    prior_probability: float = 0.5,
) -> ReleaseReport:
    r"""Build the report of released values with an :math:`(\alpha, \varepsilon)`-RPP guarantee.

    The facts of the noise are read from the release records (``releases``), not declared: the
    family, scale and grid of each release, the source of its noise (any reproducible noise makes
    the report not publishable), and the calibration attached to it.  The status of the guarantee
    is *checked* when there is one release whose attached calibration is for the report's
    :math:`(\alpha, \varepsilon)` (proved iff the calibration is ``guaranteed``); otherwise -- several
    releases (their joint guarantee is not the calibrations' of each: Pufferfish privacy has no
    general composition theorem), or no calibration -- the publisher declares it (``rigorous``),
    and the report says *declared by the publisher, not checked*.

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
    releases : sequence of rpp.Release
        The records of the published releases (returned by :func:`rpp.sampling.secure_gaussian`,
        ``rpp.GaussianNoise.release``, :meth:`rpp.accounting.ReleaseBudget.release` ...), one
        per release, all covered together by :math:`(\alpha, \varepsilon)`; at least one, each with
        a positive scale.  Their values are the published (noisy) outputs.
    alpha : float
        The order of the guarantee, :math:`> 1`, finite.
    epsilon : float
        The guaranteed divergence bound :math:`\varepsilon \ge 0` (of all releases together), finite.
    secret : str
        What is protected: the secret pairs, in words.
    query : str
        What is published, in words.
    prior_class : str
        The prior class, in words (how it was fitted, on which public data).
    data_unchanged : bool
        Declared by the publisher, not checked: whether the confidential data are unchanged since
        the prior class was fitted (``False`` makes the report say the guarantee does not apply).
    rigorous : bool, optional
        Declared by the publisher: whether :math:`\varepsilon` is *proved* for every prior of the
        class.  Required unless the status is checked (one release with a calibration for
        :math:`(\alpha, \varepsilon)`); there ``False`` lowers it to an estimate (e.g. when the
        calibration's priors are only part of the class) and ``True`` must agree with the
        calibration.
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
        If ``releases`` is not a sequence of :class:`rpp.sampling.Release`, a description is not a
        str or a flag not a bool.
    ValueError
        If a number is out of its range, ``releases`` is empty or holds a release without noise,
        ``rigorous`` is missing where nothing checks the status, ``rigorous=True`` contradicts the
        attached calibration, or the calibration is for another :math:`(\alpha, \varepsilon)` (the
        message names the argument, never a value).

    Examples
    --------
    >>> from rpp import Gaussian, GaussianNoise, calibrate
    >>> cal = calibrate(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), alpha=3.0, epsilon=1.0)
    >>> rec = GaussianNoise(cal.scale).release(0.7, calibration=cal)  # OS entropy
    >>> r = release_report(releases=[rec], alpha=3.0, epsilon=1.0, secret="s1 vs s2", query="a mean",
    ...                    prior_class="N(m, 1), m in {0, 2}", data_unchanged=True, coverage=0.95)
    >>> r.publishable, r.rigorous, r.rigorous_checked, r.to_dict()["schema_version"]
    (True, True, True, 2)
    >>> r.odds_factor == odds_update_bound(alpha=3.0, epsilon=1.0, probability=0.05)
    True
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     seeded = GaussianNoise(cal.scale).release(0.7, insecure_seed=1, calibration=cal)
    >>> bad = release_report(releases=[seeded], alpha=3.0, epsilon=1.0, secret="s1 vs s2", query="a mean",
    ...                      prior_class="N(m, 1), m in {0, 2}", data_unchanged=True, coverage=0.95)
    >>> bad.publishable, bad.flags()[0][:18]
    (False, 'UNSAFE TO PUBLISH:')
    """
    records = _records(releases)
    a = checks.scalar_in_interval("alpha", alpha, low=1.0, low_open=True)
    e = checks.scalar_in_interval("epsilon", epsilon, low=0.0)
    data_unchanged = checks.flag("data_unchanged", data_unchanged)
    declared = None if rigorous is None else checks.flag("rigorous", rigorous)
    cals = tuple(None if r.calibration is None else _calibration_record(r.calibration) for r in records)
    if len(records) == 1 and cals[0] is not None:  # the status is checked by the calibration
        cal = cals[0]
        if cal["alpha"] != a or not cal["epsilon"] <= e:
            raise ValueError(
                f"alpha, epsilon: the report claims ({a:g}, {e:g}) but releases[0].calibration is for "
                f"({cal['alpha']:g}, {cal['epsilon']:g}); report what the calibration meets (same alpha, "
                "epsilon at least its epsilon)"
            )
        if declared is True and not cal["guaranteed"]:
            raise ValueError(
                "rigorous=True contradicts releases[0].calibration, which is not guaranteed (proved); "
                "leave rigorous unset to take the calibration's word"
            )
        status = cal["guaranteed"] and declared is not False
        checked = declared is None or declared == cal["guaranteed"]  # a declared False may lower it
    else:
        if declared is None:
            raise ValueError(
                "rigorous must be declared (True or False): "
                + (
                    "the releases carry no calibration"
                    if all(c is None for c in cals)
                    else "the calibrations of several releases do not establish their joint guarantee"
                )
                + ", so the report cannot check whether the guarantee is proved"
            )
        status, checked = declared, False
    cov = (
        None if coverage is None else checks.scalar_in_interval("coverage", coverage, low=0.0, high=1.0, low_open=True)
    )
    secret = _text("secret", secret)
    query = _text("query", query)
    prior_class = _text("prior_class", prior_class)
    meta = _texts("public_metadata", public_metadata)
    extra = _texts("assumptions", assumptions)
    out = tuple(float(y) for r in records for y in np.atleast_1d(r.value))
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
    errors = [_expected_errors(r.family, r.scale) for r in records]
    return ReleaseReport(
        alpha=a,
        epsilon=e,
        rigorous=bool(status),
        rigorous_checked=bool(checked),
        secret=secret,
        query=query,
        releases=len(records),
        published=out,
        noises=tuple(r.family for r in records),
        scales=tuple(r.scale for r in records),
        grids=tuple(float(r.grid) for r in records if r.grid is not None),
        sources=tuple(r.source for r in records),
        reproducible=tuple(r.reproducible for r in records),
        calibrations=cals,
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
        expected_abs_errors=tuple(x[0] for x in errors),
        rmses=tuple(x[1] for x in errors),
    )
