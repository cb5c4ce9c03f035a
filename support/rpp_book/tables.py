r"""Statistics and checks of the sweep tables of :func:`rpp_book.experiments.sweep` (chapter 6).

The "average noise reduction against the :math:`W_\infty` baseline" of Yang et al. 2026
(Sec. V-B, their 48.9 %) under an explicit protocol (:func:`reduction_table`, :func:`headline`,
:func:`paper_headline`); the budget flag of every calibrated noise level, checked and recomputed
(:func:`check_budgets`, :func:`verify_table`); the baseline recomputed for another finite
stand-in of :math:`W_\infty` (:func:`rebaseline`, :func:`quantile_w_inf`); the Monte Carlo error
of a bootstrap quantile (:func:`quantile_mc_se`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from rpp import rules
from rpp.divergence import renyi_divergence
from rpp.noise import GaussianNoise
from rpp.transport import w_infinity

from .experiments import resolve_rule
from .query_data import QueryPriors, quantile_discretization

__all__ = [
    "check_budgets",
    "reduction_table",
    "headline",
    "paper_headline",
    "Verification",
    "verify_table",
    "quantile_w_inf",
    "rebaseline",
    "quantile_mc_se",
]


def _toy_table() -> pd.DataFrame:
    """Return the table of the examples: one panel, a baseline and a rule on three budgets."""
    rules, eps, theta = ["base"] * 3 + ["r"] * 3, [1.0, 2.0, 3.0] * 2, [2.0, 2.0, 2.0, 1.0, 1.5, 0.0]
    return pd.DataFrame(dict(dataset="toy", query="q", alpha=3.0, directed=False, rule=rules, epsilon=eps, theta=theta))


def check_budgets(table: pd.DataFrame, rules: Sequence[str] | None = None, on: str = "within_budget") -> pd.DataFrame:
    """Return the rows of a sweep table over budget (``within_budget`` False); empty when all are within it.

    ``within_budget`` is the check divergence + error <= epsilon with the error as computed
    (a quadrature estimate for mixtures): not a proof (see :class:`~rpp.calibration.Calibration`).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`rpp_book.experiments.sweep` (columns ``rule``,
        ``within_budget``, ``model_within_budget``).
    rules : sequence of str, optional
        Only these rules (default: all).
    on : {"within_budget", "model_within_budget"}
        ``"within_budget"`` checks each rule on the prior it was calibrated for,
        ``"model_within_budget"`` on the model prior (mixture or Gaussian).

    Returns
    -------
    pandas.DataFrame
        The failing rows (no row: every checked point is private).

    Raises
    ------
    ValueError
        If ``on`` is not one of the two column names.

    Examples
    --------
    >>> tab = pd.DataFrame({"rule": ["a", "b"], "within_budget": [True, False]})
    >>> check_budgets(tab)["rule"].tolist(), len(check_budgets(tab, rules=["a"]))
    (['b'], 0)
    """
    if on not in ("within_budget", "model_within_budget"):
        raise ValueError(f"on must be 'within_budget' or 'model_within_budget', got {on!r}")
    sel = table if rules is None else table[table["rule"].isin(list(rules))]
    return sel[~sel[on].astype(bool)]


def reduction_table(
    table: pd.DataFrame,
    *,
    baseline: str = "pierquin",
    reference: str = "exact",
    exclude_zero: bool = True,
    by: Sequence[str] = ("dataset", "query"),
) -> pd.DataFrame:
    r"""Noise reduction of every rule against the baseline, per panel.

    For each panel (a group of ``by`` plus ``alpha`` and ``directed``) and rule
    :math:`r` (the baseline included, whose reduction is 0), at each grid point
    :math:`\varepsilon_k`

    .. math::

        \rho_r(\varepsilon_k) = 1 - \theta_r(\varepsilon_k) / \theta_{\mathrm{base}}(\varepsilon_k) ,

    the reduction of Yang et al. 2026, Sec. V-B, as a fraction of the baseline's
    noise scale.  With ``exclude_zero=True`` (the paper's "excluding regimes in
    which our mechanism requires no additional noise"), only the points with
    :math:`\theta_r(\varepsilon_k) > 0` are used.

    Parameters
    ----------
    table : pandas.DataFrame
        A sweep table (:func:`rpp_book.experiments.sweep`): columns ``by``,
        ``alpha``, ``directed``, ``rule``, ``epsilon`` and ``theta``.
    baseline : str
        The rule in the denominator (default ``"pierquin"``).
    reference : str
        The rule of the ``ratio_to_reference`` column (default ``"exact"``; the
        column is left out when the table has no such rule).
    exclude_zero : bool
        Drop each rule's zero-noise points (the paper's protocol, default).
    by : sequence of str
        Columns that define a panel, besides ``alpha`` and ``directed``.

    Returns
    -------
    pandas.DataFrame
        One row per panel and rule with

        * ``n_points`` -- points used, ``n_zero`` -- points with :math:`\theta_r = 0`;
        * ``reduction`` -- mean of :math:`\rho_r` over the points used, in percent;
        * ``ratio_to_reference`` -- mean of :math:`\theta_r/\theta_{\mathrm{ref}}` over the
          points with :math:`\theta_{\mathrm{ref}} > 0` (how far a rule is above ``reference``);
        * ``above_baseline`` -- points where :math:`\theta_r > \theta_{\mathrm{base}}`;
        * ``n_inf_baseline`` -- points used with an infinite baseline (no finite
          :math:`W_\infty`), where :math:`\rho = 1`.

    Raises
    ------
    ValueError
        If a needed column is missing or ``baseline`` is not a rule of the table.

    Notes
    -----
    With ``exclude_zero=True`` each rule is averaged over its *own* points: a
    rule that needs no noise at some budgets loses exactly its best points
    (:math:`\rho = 1`), so two rules are then not compared on the same grid.
    ``exclude_zero=False`` keeps every point and ranks rules consistently.

    Examples
    --------
    >>> red = reduction_table(_toy_table(), baseline="base").set_index("rule")
    >>> int(red.loc["r", "n_points"]), int(red.loc["r", "n_zero"]), float(red.loc["r", "reduction"])
    (2, 1, 37.5)
    >>> float(reduction_table(_toy_table(), baseline="base", exclude_zero=False).iloc[1]["reduction"])
    58.333333333333336
    """
    keys = [*by, "alpha", "directed"]
    missing = [c for c in [*keys, "rule", "epsilon", "theta"] if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks the columns {missing}; pass the output of rpp_book.experiments.sweep")
    wide = table.pivot_table(index=[*keys, "epsilon"], columns="rule", values="theta", aggfunc="first")
    if baseline not in wide.columns:
        raise ValueError(f"baseline rule {baseline!r} is not in the table (rules: {list(wide.columns)})")
    rows = []
    for panel, grp in wide.groupby(level=keys, sort=False):
        base = grp[baseline].to_numpy(float)
        ref = grp[reference].to_numpy(float) if reference in grp.columns else None
        for rule in grp.columns:
            th = grp[rule].to_numpy(float)
            ok = ~np.isnan(th) & ~np.isnan(base)
            if not ok.any():
                continue
            use = ok & (th > 0) if exclude_zero else ok
            with np.errstate(divide="ignore", invalid="ignore"):
                rho = np.where(np.isinf(base), 1.0, 1.0 - th / base)
            rec = dict(zip(keys, panel if isinstance(panel, tuple) else (panel,), strict=True))
            rec.update(
                rule=rule,
                n_points=int(use.sum()),
                n_zero=int((ok & (th == 0)).sum()),
                n_inf_baseline=int((use & np.isinf(base)).sum()),
                reduction=100 * float(np.mean(rho[use])) if use.any() else np.nan,
                above_baseline=int((ok & (th > base)).sum()),
            )
            if ref is not None:
                rpos = ok & (ref > 0)
                rec["ratio_to_reference"] = float(np.mean(th[rpos] / ref[rpos])) if rpos.any() else np.nan
            rows.append(rec)
    return pd.DataFrame(rows)


def headline(reductions: pd.DataFrame, rule: str, average: str = "panel") -> float:
    r"""Average noise reduction of one rule (percent), from :func:`reduction_table`.

    Parameters
    ----------
    reductions : pandas.DataFrame
        Output of :func:`reduction_table`.
    rule : str
        The rule to average.
    average : {"panel", "pooled"}
        ``"panel"``: the unweighted mean of the per-panel reductions over the
        panels with at least one point used (each data set × query counts once);
        ``"pooled"``: the mean over all points used, i.e. panels weighted by
        their ``n_points``.

    Returns
    -------
    float
        The average reduction in percent (Yang et al. 2026, Sec. V-B, report 48.9 %).

    Raises
    ------
    ValueError
        If the rule has no point with positive noise, or ``average`` is unknown.

    Examples
    --------
    >>> headline(reduction_table(_toy_table(), baseline="base"), "r")
    37.5
    """
    sel = reductions[(reductions["rule"] == rule) & (reductions["n_points"] > 0)]
    if sel.empty:
        raise ValueError(f"rule {rule!r} has no point with positive noise in the table")
    if average == "panel":
        return float(sel["reduction"].mean())
    if average == "pooled":
        return float(np.average(sel["reduction"], weights=sel["n_points"]))
    raise ValueError(f"average must be 'panel' or 'pooled', got {average!r}")


def paper_headline(table: pd.DataFrame, rule: str = "paper", **options: Any) -> float:
    """Return the headline reduction of one rule straight from a sweep table (chapter 6's statistic).

    ``headline(reduction_table(table), rule, **options)``: the default protocol of
    :func:`reduction_table` (baseline ``"pierquin"``, zero-noise points dropped).

    Parameters
    ----------
    table : pandas.DataFrame
        A sweep table with a ``"pierquin"`` baseline.
    rule : str
        The rule (default ``"paper"``, the rules of Yang et al. 2026).
    **options
        Passed to :func:`headline` (``average="pooled"``).

    Returns
    -------
    float
        The average reduction in percent.

    Raises
    ------
    ValueError
        As :func:`reduction_table` and :func:`headline`.

    Examples
    --------
    >>> paper_headline(_toy_table().replace({"rule": {"base": "pierquin"}}), "r")
    37.5
    """
    return headline(reduction_table(table), rule, **options)


class Verification(NamedTuple):
    r"""What :func:`verify_table` checked; unpacks as ``n_points, n_checked, worst_ratio, n_failed, problems``.

    ``n_points`` rows in the table, ``n_checked`` of them recomputed; ``worst_ratio`` the largest
    recomputed :math:`D_\alpha / \varepsilon` of a row within budget (at most 1 when all checks
    hold); ``n_failed`` rows flagged over budget; ``problems`` one line per failed check
    (empty: the table is verified).
    """

    n_points: int
    n_checked: int
    worst_ratio: float
    n_failed: int
    problems: list[str]


def _divergence_ends(p, q, alpha, variance, directed):
    """D_alpha at ``variance``, max over the orders: (value, lower end of its interval)."""
    noise = GaussianNoise(float(np.sqrt(variance)))
    orders = [(p, q)] if directed else [(p, q), (q, p)]
    cs = [renyi_divergence(a, b, alpha=alpha, noise=noise) for a, b in orders]
    return max(float(c.value) for c in cs), max(float(c.lower) for c in cs)


def _divergence(p, q, alpha, variance, directed):
    return _divergence_ends(p, q, alpha, variance, directed)[0]


def verify_table(table: pd.DataFrame, priors: Mapping[str, Mapping[str, QueryPriors]], stride: int = 4) -> Verification:
    r"""Check every budget flag of a sweep table and recompute :math:`D_\alpha` at a sample of its points.

    Two checks, as chapter 6 states them ("every plotted θ is verified"):

    1. every row is ``within_budget``, except the :math:`W_\infty` baseline on Gaussian priors
       (``rule == "pierquin"``, ``prior == "gaussian"``): its finite stand-in is Pierquin et
       al.'s δ-approximate :math:`W_\infty`, which may be over budget;
    2. at every ``stride``-th point of every curve (and every point flagged over budget)
       the divergence of the noisy priors is recomputed with :func:`rpp.renyi_divergence`, in
       both orders unless the row is ``directed``: a row within budget needs
       the recomputed interval not to lie above :math:`\varepsilon` (its lower end
       :math:`\le \varepsilon`, no slack: the recomputation goes through the variance and may
       differ from the table's by its own error), a failing row :math:`D_\alpha > \varepsilon`.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`rpp_book.experiments.sweep` (several concatenated).
    priors : mapping
        ``{dataset: {query: QueryPriors}}``: the priors the table was computed from
        (``table["dataset"]``, ``table["query"]``).
    stride : int
        Recompute every ``stride``-th point of every (dataset, query, rule, α,
        directed) curve.

    Returns
    -------
    Verification
        Counts, the largest ratio :math:`D_\alpha/\varepsilon` and the failed checks.

    Raises
    ------
    ValueError
        If ``stride`` is not an integer >= 1 or a (dataset, query) of the table has no priors.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> from rpp_book.experiments import sweep
    >>> p, q = Gaussian(mean=0.0, var=0.04), Gaussian(mean=1.0, var=0.09)
    >>> pr = QueryPriors("mean", p, q, quantile_discretization(p, 50), quantile_discretization(q, 50), 10, 10)
    >>> tab = sweep(pr, ["exact", "pierquin"], alpha=3.0, epsilon=[0.5, 1.0], dataset="toy")
    >>> ver = verify_table(tab, {"toy": {"mean": pr}}, stride=1)
    >>> ver.n_points, ver.n_checked, ver.problems, bool(ver.worst_ratio <= 1 + 1e-9)
    (4, 4, [], True)
    """
    if int(stride) != stride or stride < 1:
        raise ValueError(f"stride must be an integer >= 1, got {stride!r}")
    approx = (table["rule"] == "pierquin") & (table["prior"] == "gaussian")
    bad = table[~approx & ~table["within_budget"]]
    problems = [f"{r.rule} on {r.dataset}/{r.query} at eps = {r.epsilon:g} is over budget" for r in bad.itertuples()]
    keys = ["dataset", "query", "rule", "alpha", "directed"]
    sample = table[(table.groupby(keys).cumcount() % int(stride) == 0) | ~table["within_budget"]]
    worst = 0.0
    for row in sample.itertuples():
        try:
            pr = priors[row.dataset][row.query]
        except KeyError:
            raise ValueError(f"priors has no entry for dataset {row.dataset!r}, query {row.query!r}") from None
        _, p, q, _ = resolve_rule(pr, row.rule)
        d, lower = _divergence_ends(p, q, row.alpha, row.variance, row.directed)
        where = f"{row.rule} on {row.dataset}/{row.query} at eps = {row.epsilon:g}"
        if row.within_budget:
            if not lower <= row.epsilon:
                problems.append(f"{where}: D = {d:.6g} is over budget")
            worst = max(worst, d / row.epsilon)
        elif not d > row.epsilon:
            problems.append(f"{where} is flagged over budget, but D = {d:.6g}")
    return Verification(len(table), len(sample), worst, int((~table["within_budget"]).sum()), problems)


def quantile_w_inf(priors: QueryPriors, n_quantiles: int) -> float:
    r""":math:`W_\infty` of the ``n_quantiles``-point quantile discretisations of a query's model priors.

    The finite stand-in for the infinite :math:`W_\infty` of two Gaussians with unequal variances:
    :math:`|\mu_i-\mu_j| + |\sigma_i-\sigma_j|\,\Phi^{-1}(1 - 1/(2B))`, :math:`B` = ``n_quantiles``.

    Parameters
    ----------
    priors : QueryPriors
        A query with Gaussian or mixture model priors.
    n_quantiles : int
        :math:`B`, the number of atoms of each discretisation.

    Returns
    -------
    float
        The :math:`\infty`-Wasserstein distance of the two discretisations.

    Raises
    ------
    ValueError
        If ``n_quantiles`` is not an integer >= 1 or the priors are not Gaussian or mixtures.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> p, q = Gaussian(mean=0.0, var=1.0), Gaussian(mean=1.0, var=4.0)
    >>> pr = QueryPriors("mean", p, q, quantile_discretization(p, 2), quantile_discretization(q, 2), 5, 5)
    >>> round(quantile_w_inf(pr, 1000), 6)  # 1 + (2 - 1) * z_{0.9995}
    4.290527
    """
    p: Any = priors.prior_i  # quantile_discretization checks the type
    q: Any = priors.prior_j
    return float(w_infinity(quantile_discretization(p, n_quantiles), quantile_discretization(q, n_quantiles)))


def rebaseline(
    table: pd.DataFrame,
    priors: Mapping[str, Mapping[str, QueryPriors]],
    w_inf: Callable[[QueryPriors], float],
) -> pd.DataFrame:
    r"""Replace the baseline rows of the Gaussian-output queries by Pierquin's rule for another :math:`W_\infty`.

    For every row with ``rule == "pierquin"`` and ``query != "raw"`` the noise
    becomes :math:`\theta^2 = \alpha\,W^2 / (2\varepsilon)` (Pierquin et al. 2024;
    :func:`rpp.rules.sensitivity_scale`) with :math:`W` = ``w_inf(priors[dataset][query])``,
    and ``divergence`` and ``within_budget`` are recomputed exactly on the Gaussian
    priors (both orders unless the row is ``directed``). Other rows are unchanged.

    Parameters
    ----------
    table : pandas.DataFrame
        A sweep table.
    priors : mapping
        ``{dataset: {query: QueryPriors}}`` of the table.
    w_inf : callable
        ``QueryPriors -> float``: the :math:`W_\infty` stand-in, e.g.
        ``lambda p: quantile_w_inf(p, 10_000)`` or the mean shift
        ``lambda p: abs(p.prior_i.mean - p.prior_j.mean)``.

    Returns
    -------
    pandas.DataFrame
        A copy of ``table`` with the baseline rows recomputed (``theta``,
        ``variance``, ``divergence``, ``within_budget``, ``w_inf``).

    Raises
    ------
    ValueError
        If a baseline row has no priors, or ``w_inf`` returns a negative value.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> from rpp_book.experiments import sweep
    >>> p, q = Gaussian(mean=0.0, var=0.04), Gaussian(mean=1.0, var=0.09)
    >>> pr = QueryPriors("mean", p, q, quantile_discretization(p, 50), quantile_discretization(q, 50), 10, 10)
    >>> tab = sweep(pr, ["pierquin"], alpha=3.0, epsilon=[1.0], dataset="toy")
    >>> shift = rebaseline(tab, {"toy": {"mean": pr}}, lambda p: abs(p.prior_i.mean - p.prior_j.mean))
    >>> round(float(shift["variance"].iloc[0]), 12), bool(shift["within_budget"].iloc[0])  # 3 * 1 / 2: too little
    (1.5, False)
    """
    out = table.copy()
    rows = (out["rule"] == "pierquin") & (out["query"] != "raw")
    for (name, query), idx in out[rows].groupby(["dataset", "query"]).groups.items():
        try:
            p = priors[name][query]
        except KeyError:
            raise ValueError(f"priors has no entry for dataset {name!r}, query {query!r}") from None
        w = w_inf(p)
        alphas, eps = out.loc[idx, "alpha"].to_numpy(), out.loc[idx, "epsilon"].to_numpy()
        var = np.asarray(rules.sensitivity_scale(w, alpha=alphas, epsilon=eps)) ** 2
        div = [
            _divergence(p.prior_i, p.prior_j, a, v_, directed)
            for a, v_, directed in zip(alphas, var, out.loc[idx, "directed"], strict=True)
        ]
        out.loc[idx, "theta"], out.loc[idx, "variance"], out.loc[idx, "divergence"] = np.sqrt(var), var, div
        out.loc[idx, "within_budget"] = np.array(div) <= eps
        out.loc[idx, "w_inf"] = w
    return out


def quantile_mc_se(x: ArrayLike, p: float, h: float = 0.02) -> float:
    r"""Monte Carlo standard error of the sample :math:`p`-quantile of ``x`` (e.g. a bootstrap interval's end).

    The asymptotic standard error of a sample quantile of :math:`R` independent
    draws is :math:`\sqrt{p(1-p)/R}\,/\,f(q_p)` (e.g. van der Vaart 1998,
    Corollary 21.5); the density :math:`f(q_p)` is estimated by the spacing of the
    neighbouring quantiles, :math:`f(q_p) \approx 2h / (q_{p+h} - q_{p-h})`.

    Parameters
    ----------
    x : array_like
        The :math:`R \ge 2` draws (1-D, finite).
    p : float
        The quantile level, with :math:`0 < p - h` and :math:`p + h < 1`.
    h : float
        Half-width of the spacing, in quantile levels (default 0.02).

    Returns
    -------
    float
        The estimated standard error, in the units of ``x``.

    Raises
    ------
    ValueError
        If ``x`` has fewer than 2 values or a non-finite one, or ``p ± h`` leaves (0, 1).

    Examples
    --------
    >>> u = (np.arange(1000) + 0.5) / 1000  # 1000 evenly spread "draws" of U(0, 1)
    >>> round(quantile_mc_se(u, 0.5), 4)  # sqrt(0.25 / 1000) / 1
    0.0158
    """
    x = np.asarray(x, dtype=float).ravel()
    if x.size < 2 or not np.all(np.isfinite(x)):
        raise ValueError(f"x must hold at least 2 finite values, got {x.size} values")
    if not (0 < h and 0 < p - h and p + h < 1):
        raise ValueError(f"p and h must satisfy 0 < h and 0 < p - h < p + h < 1, got p = {p!r}, h = {h!r}")
    q_lo, q_hi = np.quantile(x, [p - h, p + h])
    return float(np.sqrt(p * (1 - p) / x.size) * (q_hi - q_lo) / (2 * h))
