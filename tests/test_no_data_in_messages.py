"""No value derived from the data in any exception, warning or log of ``rpp`` (issue 23, item 2).

A SENTINEL data value is planted through every public callable: as a scalar, inside arrays
(with NaN, a negative entry, a 2-D shape), as a prior's mean, variance, atom or weight, as a
pmf entry, as a string.  Each call is made with one argument replaced by an invalid or
sentinel-bearing value while the others carry the sentinel in valid form, so the call raises
or warns on the data.  Every exception message (with its ``__cause__`` / ``__context__``
chain), every warning and every log record is collected, and the sentinel's digits must
never appear in them.

*Parameters* (an order ``alpha``, a budget ``epsilon``, a count ``k``, a method name, a
noise scale, a seed ...) are chosen by the caller, are not data, and may be echoed; they get
sentinel-free invalid values, so any sentinel seen in a message came from the data.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import logging
import signal
import warnings
from contextlib import contextmanager

import numpy as np
import pytest

import rpp
from rpp import Empirical, Gaussian, GaussianMixture, GaussianNoise

S = 7392.0412573  # the confidential value
NEEDLES = ("7392.04", "7392.0412573", repr(S), "7392", "739204", "7.39204", "-7392")

MODULES = [
    "rpp",
    "rpp.priors",
    "rpp.divergence",
    "rpp.noise",
    "rpp.transport",
    "rpp.gmm",
    "rpp.rules",
    "rpp.calibration",
    "rpp.accounting",
    "rpp.pufferfish",
    "rpp.sampling",
]

# Names that take no data at all, with the reason (the meta-test checks the list is exact).
NO_DATA = {
    "PrivacyWarning": "a warning class: no arguments of its own",
    "VarianceFloorWarning": "a warning class: no arguments of its own",
    "InsecureNoiseWarning": "a warning class: no arguments of its own",
    "MAX_BITS": "a constant, not callable",
    "GRID_SHIFT": "a constant, not callable",
    "clear_caches": "takes no argument: empties the package's caches",
    "cache_info": "takes no argument: reports the caches' size",
    "methods": "takes only the noise family name (a parameter): lists method names",
    "Prior": "a typing Protocol (the interface of the priors), never instantiated",
    "product_channel": "takes the mechanism's channels (*channels, chosen by the caller), no data",
}

# Float kernels exported for another layer of rpp (issue #37, one path per name) that still leak data
# in a message (none since they check their arguments). Strict: the test fails when one stops leaking.
KERNELS: dict[str, str] = {}

# Result records: plain containers without validation (nothing to raise); still called above.
RECORDS = {"BestConversion", "LinearCalibration", "Calibration", "Certified", "Components", "ReleaseReport"}
# Stores its two (already validated) Components; its call raises and is in _methods_cases.
RECORDS |= {"QuantileDifference"}
# The measured rates of an attack (rpp.accounting._audit): built by audit_threshold_attack, which validates.
RECORDS |= {"ThresholdAudit"}
# The results of the proofs over a box of priors (rpp.accounting._prior_box): built by
# prior_box_divergence and prior_box_side_divergence, which validate.
RECORDS |= {"PriorBoxBound", "PriorBoxSideBound"}

# Arguments that are parameters chosen by the caller, not data: they may be echoed.
PARAMS = {
    "family",  # the noise family of rpp.divergence.proved_divergence
    "alpha",
    "epsilon",
    "epsilon_prime",
    "delta",
    "k",
    "runs",
    "n",
    "method",
    "noise",
    "rule",
    "criterion",
    "require",
    "order",
    "axis",
    "rng",
    "insecure_seed",
    "tol",
    "max_components",
    "n_init",
    "reg_covar",
    "scale",
    "scales",
    "base_scales",
    "grid",
    "sensitivity",
    "directed",
    "both_orders",
    "log",
    "kl_bound",
    "under",
    "smax",
    "exact_upto",
    "max_cells",
    "n_mu",
    "n_grid",
    "step",
    "L",
    "group_records",
    "n_attributes",
    "b",
    "b_star",
    "bs",
    "chain_length",
    "ell",
    "gamma",
    "lower",
    "upper",
    "uncertainty",
    "orders",
    "size",
    "name",
    "center",
    "cost",
    "candidates",
    "pairs",
    "entries",
    "shape",
    "low",
    "high",
    "keep",
    "node",
    "text",
    "profile",
    "table",
    "i",
    "rigorous",
    "error",
    "releases",
    "mu",
    "s",
    "Z",
    "z",
    "threshold",
    "t",
    "pool",
    "kernel",
}
PARAM_BAD = [-2.5, 0, "bogus", np.nan, [1.5, -3.0], None, True]

GOOD_PRIOR = Gaussian(mean=S, var=S)


def data_pool():
    """Sentinel-bearing values, valid and invalid, of every shape the API takes as data."""
    return [
        S,
        -S,
        np.inf,
        np.array([S, np.nan]),
        np.array([S, -S]),
        np.array([S, -1.0, 0.5]),
        [S, S + 1.0],
        np.array([[S, 0.5], [0.5, S]]),
        np.array([[S, -S], [0.25, 0.75]]),
        np.array([[[S]]]),
        np.array([S / (S + 1), 1 / (S + 1)]),  # a pmf whose entries derive from the data
        GOOD_PRIOR,
        GaussianMixture(weights=[0.5, 0.5], means=[S, -S], vars=[S, 1.0]),
        Empirical([S, -S, S + 1.0]),
        Empirical([S], weights=[1.0]),
        str(S),
        f"[{S}, x]",
        (S, S),
        (S, -S),
        {"a": GOOD_PRIOR, "b": Gaussian(mean=-S, var=1.0)},
        [{"a": GOOD_PRIOR}, {"a": Gaussian(mean=-S, var=S)}],
        GaussianNoise(S),
        object(),
    ]


def default_for(name: str, param: inspect.Parameter):
    if name in PARAMS:
        return param.default if param.default is not inspect.Parameter.empty else 2.0
    if "prior" in name and name != "priors":
        return GOOD_PRIOR
    if name == "priors":
        return {"a": GOOD_PRIOR, "b": Gaussian(mean=-S, var=1.0)}
    return np.array([S, S + 1.0])


class _Timeout(Exception):
    pass


@contextmanager
def time_limit(seconds: int):
    def handler(signum, frame):
        raise _Timeout

    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def chain_text(exc: BaseException) -> list[str]:
    out, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        out.append(f"{type(exc).__name__}: {exc}")
        out.extend(str(a) for a in getattr(exc, "args", ()))
        out.extend(getattr(exc, "__notes__", []))
        exc = exc.__cause__ or exc.__context__
    return out


def run_collect(fn, args, kwargs, caplog) -> tuple[list[str], bool]:
    """Call ``fn``; return every message it produced and whether it raised."""
    texts: list[str] = []
    raised = False
    caplog.clear()
    with warnings.catch_warnings(record=True) as rec, caplog.at_level(logging.DEBUG):
        warnings.simplefilter("always")
        try:
            with time_limit(3), np.errstate(all="ignore"):
                fn(*args, **kwargs)
        except _Timeout:
            pass
        except Exception as exc:  # every exception type is inspected
            if not isinstance(exc, _Timeout):
                raised = True
                texts.extend(chain_text(exc))
    texts.extend(str(w.message) for w in rec)
    texts.extend(r.getMessage() for r in caplog.records)
    return texts, raised


def leaks(texts: list[str]) -> list[str]:
    return [t for t in texts if any(n in t for n in NEEDLES)]


def public_names() -> dict[str, object]:
    out: dict[str, object] = {}
    for m in MODULES:
        mod = importlib.import_module(m)
        for n in mod.__all__:
            obj = getattr(mod, n)
            if inspect.ismodule(obj):
                continue
            out.setdefault(n, obj)
    return out


NAMES = public_names()
CALLABLES = sorted(n for n in NAMES if n not in NO_DATA)


def calls_for(name: str):
    """The table of calls of one public name: each argument in turn over the pool."""
    fn = NAMES[name]
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    base = {p.name: default_for(p.name, p) for p in params}
    for p in params:
        pool = PARAM_BAD if p.name in PARAMS else data_pool()
        for bad in pool:
            kw = dict(base)
            kw[p.name] = bad
            pos = [kw.pop(q.name) for q in params if q.kind == q.POSITIONAL_ONLY]
            yield fn, pos, kw


@pytest.mark.parametrize("name", CALLABLES)
def test_no_sentinel_in_messages(name, caplog):
    found, n_raised = [], 0
    for fn, args, kwargs in calls_for(name):
        texts, raised = run_collect(fn, args, kwargs, caplog)
        n_raised += raised
        found.extend(leaks(texts))
    if name in KERNELS:
        assert found, f"{name} no longer leaks: remove it from KERNELS ({KERNELS[name]})"
        return
    assert not found, f"{name}: data in messages: {sorted(set(found))[:5]}"
    if name in RECORDS:
        return
    assert n_raised > 0, f"{name}: no call raised: the table reaches no raise path"


def _methods_cases():
    """Raise paths of methods that take data (the constructors are covered above)."""
    g = GOOD_PRIOR
    m = GaussianMixture(weights=[0.5, 0.5], means=[S, -S], vars=[S, 1.0])
    e = Empirical([S, -S, S + 1.0])
    cases = [
        (Gaussian.from_std, (), {"mean": S, "std": -S}),
        (Gaussian.from_std, (), {"mean": S, "std": 1e200}),
        (Gaussian.from_std, (), {"mean": np.nan, "std": S}),
        (Empirical, ([S, -S],), {"weights": [S, -S]}),
        (Empirical, ([S, -S],), {"weights": [0.0, 0.0]}),
        (Empirical, ([S, -S],), {"weights": [1e308, 1e308]}),
        (Empirical, ([S, -S],), {"weights": ["x", str(S)]}),
        (Empirical, ([S, -S],), {"weights": [S]}),
        (Empirical, ([str(S), "x"],), {}),
        (GaussianMixture, (), {"weights": [S, S], "means": [S], "vars": [S]}),
        (GaussianMixture, (), {"weights": [1.0], "means": [str(S) + "x"], "vars": [S]}),
        (e.convolve, (), {"scale": 1e-200}),
    ]
    for prior in (g, m, e):
        for attr in ("pdf", "logpdf", "cdf", "sample", "convolve", "ppf", "quantile", "shifted", "mean_var"):
            meth = getattr(prior, attr, None)
            if not callable(meth):
                continue
            for bad in (np.array([S, np.nan]), str(S), -S, np.array([[S]])):
                cases.append((meth, (bad,), {}))
                cases.append((meth, (), {"scale": bad}))
    from rpp.priors import Components
    from rpp.transport import QuantileDifference

    comp = Components(np.array([0.5, 0.5]), np.array([S, -S]), np.array([S, 1.0]))
    qd = QuantileDifference(comp, comp)
    for bad in (np.array([S, np.nan]), str(S), np.array([[S]])):
        cases.append((qd, (bad,), {}))
    noise = GaussianNoise(1.0)
    for meth_name in ("release", "logpdf", "pdf"):
        meth = getattr(noise, meth_name, None)
        if callable(meth):
            for bad in (np.array([S, np.nan]), str(S), np.array([S, np.inf])):
                cases.append((meth, (bad,), {}))
    return cases


def test_methods_no_sentinel(caplog):
    found = []
    for fn, args, kwargs in _methods_cases():
        texts, _ = run_collect(fn, args, kwargs, caplog)
        found.extend(leaks(texts))
    assert not found, sorted(set(found))[:5]


def test_release_budget_refusals_carry_no_value(caplog):
    budget = rpp.ReleaseBudget(
        {"a": Gaussian(mean=0.0, var=1.0), "b": Gaussian(mean=10.0, var=1.0)},
        alpha=2.0,
        epsilon=1.0,
        insecure_seed=0,
    )
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        budget.release(S, scale=10.0)  # the first release fixes the value
    texts = [str(w.message) for w in rec]
    for bad in (np.array([S, S]), str(S + 1.0), np.nan):
        t, raised = run_collect(budget.release, (bad,), {"scale": 10.0}, caplog)
        assert raised
        texts += t
    refusals = []
    for guess in (S, S + 1.0, -S):  # over budget: the same refusal, whatever the value
        t, raised = run_collect(budget.release, (guess,), {"scale": 1e-3}, caplog)
        assert raised
        texts += t
        refusals.append(t)
    assert refusals[0] == refusals[1] == refusals[2]
    assert not leaks(texts), leaks(texts)


def test_release_budget_is_no_equality_oracle(caplog):
    """Issue 36: a refusal must not tell whether a guess equals the confidential value.

    The budget keeps no copy of the value: a release of another value is accepted and
    charged like one of the first value, and the budget's repr, report and state carry
    no trace of it.
    """
    priors = {"a": Gaussian(mean=0.0, var=1.0), "b": Gaussian(mean=10.0, var=1.0)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        budget = rpp.ReleaseBudget(priors, alpha=2.0, epsilon=1.0, insecure_seed=0)
        scale = 2.0 * budget.scale_one  # a quarter of the budget's precision
        budget.release(S, scale=scale)
        outcomes = []
        for guess in (S, S + 1.0, 0.0):  # accepted alike: nothing to probe
            t, raised = run_collect(budget.release, (guess,), {"scale": scale}, caplog)
            outcomes.append(raised)
            assert not leaks(t), leaks(t)
    assert outcomes == [False, False, False] and len(budget.scales) == 4
    texts = [repr(budget), str(budget.report()), repr(vars(budget))]
    assert not leaks(texts), leaks(texts)


def _release_paths():
    """Every release path of rpp, each releasing the sentinel S with a large noise (its record must not hold S)."""
    from rpp.sampling import secure_gaussian, secure_laplace

    big = 1e6
    cal = rpp.calibrate(Gaussian(mean=0.0, var=1.0), Gaussian(mean=2.0, var=1.0), alpha=3.0, epsilon=1.0)
    budget = rpp.ReleaseBudget(
        {"a": Gaussian(mean=0.0, var=1.0), "b": Gaussian(mean=10.0, var=1.0)}, alpha=2.0, epsilon=1.0
    )
    return [
        lambda: secure_gaussian(S, scale=big),
        lambda: secure_laplace(np.array([S, -S]), scale=big, insecure_seed=3),
        lambda: GaussianNoise(big).release(S),
        lambda: rpp.LaplaceNoise(big).release(S, insecure_seed=(1, 2)),
        lambda: GaussianNoise(cal.scale * 1e5).release(S, calibration=dataclasses.replace(cal, scale=cal.scale * 1e5)),
        lambda: budget.release(S, scale=big),
    ]


def test_release_records_hold_no_input(caplog):
    """Issue #36: the record of a release holds the noisy output and metadata only.

    Its repr (the noisy value masked: it is public, and may share digits with S by chance), its
    fields, its pickled state and the report built from it carry no trace of the input.
    """
    import pickle

    from rpp.accounting import release_report

    records = []
    for make in _release_paths():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = make()
        records.append(r)
        masked = repr(r).replace(repr(r.value), "<value>")
        assert masked.startswith("Release(value=<value>, family="), masked
        assert not leaks([masked, str(dataclasses.replace(r, value=0.0))]), masked
        fields = [getattr(r, f.name) for f in dataclasses.fields(r) if f.name != "value"]
        assert not any(isinstance(x, float) and x in (S, -S) for x in fields)
        assert not np.isin([S, -S], np.atleast_1d(r.value)).any()  # the noise moved every value
        state = pickle.dumps({f.name: getattr(r, f.name) for f in dataclasses.fields(r) if f.name != "value"})
        assert pickle.dumps(S)[2:-1] not in state
    report = release_report(
        releases=records, alpha=3.0, epsilon=1.0, rigorous=False, secret="s", query="q",
        prior_class="p", data_unchanged=True,
    )  # fmt: skip
    record = report.to_dict()
    record["release"]["published"] = []
    texts = [report.to_text(values=False), json.dumps(record)]
    assert not leaks(texts), leaks(texts)


def test_detector_sees_a_leak(caplog):
    """The collector and detector catch a sentinel in a message, a cause, a warning and a log."""

    def bad():
        try:
            raise ValueError(f"got {S!r}")
        except ValueError as exc:
            raise TypeError("wrapped") from exc

    def warn():
        warnings.warn(f"value {S:.6g}", stacklevel=1)
        logging.getLogger("rpp").error("x=%s", S)

    t1, raised = run_collect(bad, (), {}, caplog)
    t2, _ = run_collect(warn, (), {}, caplog)
    assert raised and len(leaks(t1)) >= 1
    assert len(leaks(t2)) >= 2


def test_table_covers_every_public_name():
    """Every public callable is in the table; the skip list names only real public names."""
    assert set(NO_DATA) <= set(NAMES), set(NO_DATA) - set(NAMES)
    for n in CALLABLES:
        assert callable(NAMES[n]), n
        assert any(True for _ in calls_for(n)), n
    assert set(CALLABLES) | set(NO_DATA) == set(NAMES)
