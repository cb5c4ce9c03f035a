r"""Sweeps over ε of calibration rules on real data, as tidy tables (Yang et al. 2026, Section V).

:func:`sweep` calibrates one query's secret-conditioned priors
(:class:`rpp_book.queries.QueryPriors`) with a list of rules over a grid of
(α, ε) and returns one row per (rule, α, ε).  The statistics and checks of these
tables (:func:`~rpp_book.tables.reduction_table`, :func:`~rpp_book.tables.headline`,
:func:`~rpp_book.tables.check_budgets`, :func:`~rpp_book.tables.verify_table`, ...)
are in :mod:`rpp_book.tables` (which imports this module, never the reverse).

The rules:

``"paper"``
    The rule Yang et al. 2026 use for the prior type: ``"gmm-ot"`` (Theorem IV.1)
    for mixtures, ``"closed-form"`` (Theorem III.5) for Gaussians
    (:func:`rpp_book.queries.paper_method`).
``"pierquin"``
    The :math:`W_\infty` baseline of Pierquin et al. 2024,
    :math:`\theta^2 = \alpha W_\infty^2 / (2\varepsilon)`, with :math:`W_\infty`
    between the *baseline* priors of the query (the data for RAW; the quantile
    discretisations of the two Gaussians otherwise).
any other method of :func:`rpp.calibration.methods`
    ``"exact"``, ``"gmm-ot"``, ``"gmm-ot-tight"``, ``"closed-form"``, ... applied
    to the *model* priors.
``"<method>:baseline"``
    A method applied to the baseline priors (e.g. ``"exact:baseline"``: the
    exact calibration for the empirical prior the baseline uses).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from rpp import rules
from rpp._lib import validation as v
from rpp._lib.numerics import at_most
from rpp.calibration import PrivacyWarning, calibrate, methods
from rpp.divergence import renyi_divergence_bound
from rpp.priors import Empirical, Gaussian, GaussianMixture
from rpp.transport import w_infinity

from .queries import QueryPriors, paper_method, query_priors

__all__ = [
    "COLUMNS",
    "PAPER_SETTINGS",
    "AWASS_SETTINGS",
    "load_setting",
    "sweep",
    "resolve_rule",
]

#: Columns of the table returned by :func:`sweep`.
COLUMNS = [
    "dataset",
    "query",
    "rule",
    "method",
    "prior",
    "alpha",
    "epsilon",
    "directed",
    "theta",
    "variance",
    "divergence",
    "divergence_error",
    "within_budget",
    "model_divergence",
    "model_within_budget",
    "w_inf",
]

#: The three settings of Yang et al. 2026, Sec. V-A (released column, secret column, secrets) with the
#: book's choices of data file and model inputs (the paper does not state them).
PAPER_SETTINGS: dict[str, dict[str, Any]] = {
    "adult": dict(
        loader="load_adult",
        load_kwargs={"split": "train"},
        x="education-num",
        secret="race",
        s_i="White",
        s_j="Other",
        features=["age", "hours-per-week"],
    ),
    "heart": dict(
        loader="load_heart_disease",
        load_kwargs={"sources": "cleveland"},
        x="oldpeak",
        secret="slope",
        s_i=1.0,
        s_j=3.0,
        features=["age", "thalach"],
    ),
    "student": dict(
        loader="load_student",
        load_kwargs={"subject": "mat"},
        x="G3",
        secret="schoolsup",
        s_i="no",
        s_j="yes",
        features=["age", "absences"],
    ),
}

#: The secret pairs of the α-Wasserstein paper (awass2026, Sec. V) with the same released columns.
AWASS_SETTINGS = {
    "adult": dict(PAPER_SETTINGS["adult"], secret="relationship", s_i="Husband", s_j="Not-in-family"),
    "heart": dict(PAPER_SETTINGS["heart"], secret="fbs", s_i=0.0, s_j=1.0),
    "student": dict(PAPER_SETTINGS["student"], secret="guardian", s_i="mother", s_j="father"),
}


def load_setting(
    setting: dict[str, Any],
    df: pd.DataFrame | None = None,
    queries: Sequence[str] = ("raw", "mean", "gp", "bnn"),
    **options: Any,
) -> dict[str, QueryPriors]:
    """Build the priors of several query families for one setting.

    Parameters
    ----------
    setting : dict
        An entry of :data:`PAPER_SETTINGS` / :data:`AWASS_SETTINGS` (or a dict with
        the same keys).
    df : DataFrame, optional
        The data; loaded with ``rpp_book.data.<loader>(**load_kwargs)`` when omitted.
    queries : sequence of str
        Query families to build.
    **options
        ``{query: {option: value}}`` passed to the query builders, e.g.
        ``raw={"reg_covar": 1e-6}``.

    Returns
    -------
    dict
        ``{query: QueryPriors}``.

    Raises
    ------
    ValueError
        As the query builders of :mod:`rpp_book.queries` (unknown query, missing column, ...).
    KeyError
        If ``setting`` lacks one of the keys ``x``, ``secret``, ``s_i``, ``s_j`` (or
        ``features`` for the GP and BNN queries).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1.0, 2, 2, 3, 5, 6, 6, 8], "age": [30.0, 41, 25, 52, 38, 47, 29, 60],
    ...                    "s": list("aaaabbbb")})
    >>> setting = dict(x="x", secret="s", s_i="a", s_j="b", features=["age"])
    >>> prs = load_setting(setting, df=df, queries=("mean", "bnn"), bnn={"n_hidden": 5})
    >>> sorted(prs), prs["bnn"].details["n_hidden"]
    (['bnn', 'mean'], 5)
    """
    if df is None:
        from . import data

        df = getattr(data, setting["loader"])(**setting.get("load_kwargs", {}))
    out = {}
    for q in queries:
        opts = dict(options.get(q, {}))
        if q in ("gp", "bnn"):
            opts.setdefault("features", setting["features"])
        out[q] = query_priors(df, setting["x"], setting["secret"], setting["s_i"], setting["s_j"], q, **opts)
    return out


def _model_divergence(p, q, alpha, variance, directed):
    """Exact D_α of the model priors at a noise variance (max over the protected orders) and its error bound."""
    orders = [(p, q)] if directed else [(p, q), (q, p)]
    vals = [renyi_divergence_bound(a, b, alpha, variance) for a, b in orders]
    return max(r[0] for r in vals), max(r[1] for r in vals)


def resolve_rule(priors: QueryPriors, rule: str) -> tuple[Any, Any, Any, str]:
    r"""How a rule is applied to a query: ``(method, prior_i, prior_j, label)``.

    Parameters
    ----------
    priors : QueryPriors
        The query's priors.
    rule : str
        A rule name (module docstring): ``"paper"``, ``"pierquin"``, a method of
        :func:`rpp.calibration.methods` or ``"<method>:baseline"``.

    Returns
    -------
    tuple
        ``method`` (the method of :func:`rpp.calibrate`, or ``"pierquin"``);
        ``prior_i``, ``prior_j``, the priors whose exact :math:`D_\alpha` the
        ``divergence`` column of :func:`sweep` reports (the model priors for
        ``"pierquin"`` on quantile discretisations, see :func:`sweep`); ``label``, the
        ``prior`` column: ``"gmm"``, ``"gaussian"``, ``"empirical"``.

    Raises
    ------
    ValueError
        If ``rule`` is none of the above.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> from rpp_book.queries import quantile_discretization
    >>> p, q = Gaussian(mean=0.0, var=1.0), Gaussian(mean=1.0, var=2.0)
    >>> pr = QueryPriors("mean", p, q, quantile_discretization(p, 5), quantile_discretization(q, 5), 10, 10)
    >>> resolve_rule(pr, "paper")[0], resolve_rule(pr, "pierquin")[3], resolve_rule(pr, "exact:baseline")[0]
    ('closed-form', 'gaussian', 'exact')
    """
    method, p, q, label = _resolve(rule, priors)
    if method == "pierquin" and label == "quantiles":
        return method, priors.prior_i, priors.prior_j, "gaussian"
    return method, p, q, label


def _resolve(rule, priors):
    """Return (method, prior_i, prior_j, prior label) for a rule."""

    def label(p):
        if isinstance(p, Empirical):
            return "empirical" if priors.query == "raw" else "quantiles"
        return "gmm" if isinstance(p, GaussianMixture) else "gaussian"

    if rule == "paper":
        m, (p, q) = paper_method(priors), (priors.prior_i, priors.prior_j)
    elif rule == "pierquin":
        m, (p, q) = "pierquin", (priors.baseline_i, priors.baseline_j)
    elif rule.endswith(":baseline"):
        m, (p, q) = rule[: -len(":baseline")], (priors.baseline_i, priors.baseline_j)
    else:
        m, (p, q) = rule, (priors.prior_i, priors.prior_j)
    if m not in methods("gaussian"):
        raise ValueError(
            f"rule must be 'paper', 'pierquin', a method of rpp.calibration.methods() "
            f"{methods('gaussian')} or '<method>:baseline', got {rule!r}"
        )
    return m, p, q, label(p)


def _point(p, q, mp, mq, alpha, epsilon, method, directed, model_check, require):
    """One point-by-point calibration (and the model-prior check); a top-level function so joblib can ship it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        cal = calibrate(p, q, alpha=alpha, epsilon=epsilon, method=method, directed=directed, require=require)
    if model_check and np.isfinite(cal.variance):
        mdiv, merr = _model_divergence(mp, mq, alpha, cal.variance, directed)
    elif model_check:
        mdiv, merr = 0.0, 0.0
    else:
        mdiv, merr = cal.divergence, cal.divergence_error
    return (
        float(cal.scale),
        float(cal.variance),
        float(cal.divergence),
        float(cal.divergence_error),
        bool(cal.within_budget),
        float(mdiv),
        float(merr),
    )


def sweep(
    priors: QueryPriors,
    rules: Sequence[str],
    *,
    alpha: ArrayLike,
    epsilon: ArrayLike,
    directed: bool = False,
    dataset: str = "",
    progress: bool = False,
    n_jobs: int = 1,
    require: str = "proved",
) -> pd.DataFrame:
    r"""Calibrate one query's priors with several rules over an (α, ε) grid.

    Parameters
    ----------
    priors : rpp_book.queries.QueryPriors
        The query's priors (model and baseline).
    rules : sequence of str
        See the module docstring.
    alpha, epsilon : float or array_like
        Grid (broadcast against each other, then flattened).
    directed : bool
        Protect :math:`D_\alpha(P_i\|P_j)` only (``True``) or both orders
        (``False``, default; the book's convention).
    dataset : str
        Label stored in the ``dataset`` column.
    progress : bool
        Show a tqdm bar over the point-by-point calibrations.
    n_jobs : int
        Worker processes for the point-by-point calibrations (joblib); the
        results do not depend on it.
    require : {"proved", "estimate"}
        Passed to :func:`rpp.calibrate`: ``"estimate"`` (the explicit opt-in for speed, a
        chapter's sweep of thousands of points) makes ``within_budget`` rest on error
        estimates for mixtures and data.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`, one row per (rule, α, ε):

        * ``theta``, ``variance`` -- the calibrated noise;
        * ``divergence``, ``divergence_error``, ``within_budget`` -- the exact
          :math:`D_\alpha` at ``theta`` for the priors the rule was calibrated
          on (``prior``), as computed by :func:`rpp.calibrate`;
        * ``model_divergence``, ``model_within_budget`` -- the exact
          :math:`D_\alpha` at ``theta`` for the *model* priors (mixture or
          Gaussian), so that every rule is also checked on the prior the paper's
          rules protect;
        * ``w_inf`` -- :math:`W_\infty` of the baseline priors (``"pierquin"`` rows).

        Gaussian model priors are calibrated in one vectorised call per rule.
        For ``"pierquin"`` on quantile discretisations (Gaussian outputs) the
        noise is ``pierquin_variance`` of their exact :math:`W_\infty`
        (quadrature over two 1000-atom laws would be too costly); its guarantee
        for the discretised laws is Pierquin et al.'s theorem, and the
        ``divergence`` and ``within_budget`` columns then report the check on the
        model (Gaussian) priors, ``prior`` being ``"gaussian"``.

    Raises
    ------
    ValueError
        If ``priors`` is not a :class:`~rpp_book.queries.QueryPriors`, ``rules`` is empty or
        names an unknown rule, α or ε is out of range, or ``n_jobs`` < 1.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> from rpp_book.queries import quantile_discretization
    >>> p, q = Gaussian(mean=2.0, var=1 / 6), Gaussian(mean=6.25, var=0.4)
    >>> pr = QueryPriors("mean", p, q, quantile_discretization(p, 10), quantile_discretization(q, 10), 4, 4)
    >>> tab = sweep(pr, ["paper", "exact", "pierquin"], alpha=3.0, epsilon=[1.0, 2.0], dataset="toy")
    >>> tab[["rule", "epsilon", "theta", "within_budget"]].round(2)
           rule  epsilon  theta  within_budget
    0     paper      1.0   5.23           True
    1     paper      2.0   3.72           True
    2     exact      1.0   5.23           True
    3     exact      2.0   3.72           True
    4  pierquin      1.0   5.66           True
    5  pierquin      2.0   4.00           True
    """
    if not isinstance(priors, QueryPriors):
        raise ValueError(f"priors must be an rpp_book.queries.QueryPriors, got {type(priors).__name__}")
    if isinstance(rules, str) or len(rules) == 0:
        raise ValueError(f"rules must be a non-empty sequence of rule names, got {rules!r}")
    if int(n_jobs) != n_jobs or n_jobs < 1:
        raise ValueError(f"n_jobs must be an integer >= 1, got {n_jobs!r}")
    a_b, e_b = np.broadcast_arrays(v.alpha_order(alpha), v.epsilon_budget(epsilon))
    a_f, e_f = a_b.ravel().astype(float), e_b.ravel().astype(float)
    results, tasks = {}, []
    for rule in rules:
        results[rule], rule_tasks = _sweep_rule(priors, rule, a_f, e_f, bool(directed), require)
        tasks += rule_tasks
    if tasks:
        out = _run_tasks(tasks, progress, n_jobs, f"{dataset} {priors.query}".strip())
        names = [
            "theta",
            "variance",
            "divergence",
            "divergence_error",
            "within_budget",
            "model_divergence",
            "model_error",
        ]
        for rule in {t[0] for t in tasks}:
            rows = [r for t, r in zip(tasks, out, strict=True) if t[0] == rule]
            for j, name in enumerate(names):
                results[rule][name] = np.array([r[j] for r in rows], dtype=bool if name == "within_budget" else float)
    frames = []
    for rule in rules:
        r = results[rule]
        frames.append(
            pd.DataFrame(
                {
                    "dataset": dataset,
                    "query": priors.query,
                    "rule": rule,
                    "method": r["method"],
                    "prior": r["prior"],
                    "alpha": a_f,
                    "epsilon": e_f,
                    "directed": bool(directed),
                    "theta": r["theta"],
                    "variance": r["variance"],
                    "divergence": r["divergence"],
                    "divergence_error": r["divergence_error"],
                    "within_budget": np.asarray(r["within_budget"], bool),
                    "model_divergence": r["model_divergence"],
                    "model_within_budget": at_most(r["model_divergence"], r["model_error"], e_f),
                    "w_inf": r["w_inf"],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def _sweep_rule(priors, rule, a_f, e_f, directed, require):
    """Columns of one rule computed at once (vectorised cases), or the point-by-point tasks it needs."""
    mp, mq = priors.prior_i, priors.prior_j
    method, p, q, plabel = _resolve(rule, priors)
    w_inf = w_infinity(p, q) if method == "pierquin" else np.nan
    model = p is mp and q is mq
    if method == "pierquin" and plabel == "quantiles":
        var = np.asarray(rules.sensitivity_scale(w_inf, alpha=a_f, epsilon=e_f)) ** 2
        pairs = [_model_divergence(mp, mq, a_f[k], var[k], directed) for k in range(a_f.size)]
        div, err = np.array([r[0] for r in pairs]), np.array([r[1] for r in pairs])
        guar = np.asarray(at_most(div, err, e_f))
        return dict(
            method=method,
            prior="gaussian",
            w_inf=w_inf,
            theta=np.sqrt(var),
            variance=var,
            divergence=div,
            divergence_error=err,
            within_budget=guar,
            model_divergence=div,
            model_error=err,
        ), []
    if isinstance(p, Gaussian) and isinstance(q, Gaussian):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyWarning)
            cal = calibrate(p, q, alpha=a_f, epsilon=e_f, method=method, directed=directed, require=require)
        var = np.atleast_1d(np.asarray(cal.variance, float))
        div = np.atleast_1d(np.asarray(cal.divergence, float))
        err = np.atleast_1d(np.asarray(cal.divergence_error, float))
        return dict(
            method=method,
            prior=plabel,
            w_inf=w_inf,
            theta=np.atleast_1d(np.asarray(cal.scale, float)),
            variance=var,
            divergence=div,
            divergence_error=err,
            within_budget=np.atleast_1d(np.asarray(cal.within_budget, bool)),
            model_divergence=div,
            model_error=err,
        ), []
    tasks = [(rule, k, (p, q, mp, mq, a_f[k], e_f[k], method, directed, not model, require)) for k in range(a_f.size)]
    return dict(method=method, prior=plabel, w_inf=w_inf), tasks


def _run_tasks(tasks, progress, n_jobs, desc):
    """Run the point-by-point calibrations (in worker processes when ``n_jobs > 1``), in order."""
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(tasks), desc=desc, leave=False)
    try:
        if n_jobs == 1:
            gen = (_point(*t[2]) for t in tasks)
        else:
            from joblib import Parallel, delayed

            gen = Parallel(n_jobs=int(n_jobs), return_as="generator")(delayed(_point)(*t[2]) for t in tasks)
        out = []
        for r in gen:
            out.append(r)
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    return out
