"""The release path is secure by default (issue #23, item 1; item 2 for the release path).

``GaussianNoise.release``, ``LaplaceNoise.release`` and ``ReleaseBudget`` draw through
:mod:`rpp.sampling` (exact samples of the rounded mechanism from the operating system's
entropy); an integer seed or a numpy Generator is refused unless passed as ``insecure_seed=``,
which warns and which the budget's report flags; no confidential value appears in a message.
"""

from __future__ import annotations

import dataclasses
import os
import warnings

import numpy as np
import pytest

import rpp
from rpp.sampling import InsecureNoiseWarning, default_grid, secure_gaussian, secure_laplace

PRIORS = {"a": rpp.Gaussian(mean=0.0, var=1.0), "b": rpp.Gaussian(mean=2.0, var=1.0)}
SENTINEL = 7391.0412573
NOISES = [(rpp.GaussianNoise, secure_gaussian), (rpp.LaplaceNoise, secure_laplace)]


def _forms(v: float) -> list[str]:
    return [repr(v), str(v), f"{v:g}", f"{v:.3f}", f"{v:.2f}", f"{v:.1f}", f"{v:.4g}", "7391", "7392"]


@pytest.fixture
def urandom_calls(monkeypatch):
    calls: list[int] = []
    real = os.urandom

    def counting(n):
        calls.append(n)
        return real(n)

    monkeypatch.setattr(os, "urandom", counting)
    return calls


def on_grid(y, g) -> bool:
    y = np.asarray(y)
    return bool(np.array_equal(np.round(y / g) * g, y))


@pytest.mark.parametrize("cls, _", NOISES)
def test_noise_release_default_reads_os_entropy_and_rounds(urandom_calls, cls, _):
    noise = cls(scale=2.0)
    r = noise.release(np.full(50, 0.1))
    y = r.value
    assert urandom_calls and y.shape == (50,)
    assert on_grid(y, default_grid(2.0)) and len(set(y)) > 40
    assert isinstance(noise.release(0.1).value, float)
    # the record carries its provenance, read from the path that drew it
    assert (r.family, r.scale, r.grid, r.source, r.reproducible, r.calibration) == (
        cls.family, 2.0, default_grid(2.0), "os", False, None,
    )  # fmt: skip


@pytest.mark.parametrize("cls, sampler", NOISES)
def test_noise_release_refuses_seeds_and_generators(cls, sampler):
    noise = cls(scale=1.0)
    for bad in (0, 20261204, np.int64(3), np.random.default_rng(0)):
        with pytest.raises(ValueError, match="insecure_seed"):
            noise.release(1.0, rng=bad)
    with pytest.raises(TypeError, match="rng"):
        noise.release(1.0, rng="seed")
    with pytest.warns(InsecureNoiseWarning, match="UNSAFE"):
        r = noise.release(np.zeros(5), insecure_seed=4)
    assert r.source == "insecure_seed" and r.reproducible
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        assert np.array_equal(r.value, sampler(np.zeros(5), scale=1.0, insecure_seed=4).value)  # the sampler, exactly
        assert np.array_equal(r.value, noise.release(np.zeros(5), insecure_seed=4).value)


@pytest.mark.parametrize("cls, _", NOISES)
def test_noise_release_messages_hold_no_value(cls, _):
    noise = cls(scale=1.0)
    for call in (
        lambda: noise.release([SENTINEL, np.nan]),
        lambda: noise.release([SENTINEL, np.inf], insecure_seed=1),
        lambda: noise.release(SENTINEL, rng=1),
        lambda: noise.release(SENTINEL, rng=np.random.default_rng(1)),
        lambda: noise.release(SENTINEL, insecure_seed=-1),
    ):
        with pytest.raises((ValueError, TypeError)) as exc:
            call()
        assert not any(f in str(exc.value) for f in _forms(SENTINEL))


def test_zero_scale_releases_the_value_and_still_refuses_seeds():
    r = rpp.LaplaceNoise(scale=0.0).release(1.5)
    assert r.value == 1.5 and r.scale == 0.0 and r.grid is None and r.source == "os"
    with pytest.raises(ValueError, match="insecure_seed"):
        rpp.GaussianNoise(scale=0.0).release(1.5, rng=0)


def test_budget_default_is_secure_and_reported(urandom_calls):
    budget = rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0)
    r = budget.release(1.25, scale=2 * budget.scale_one)
    assert urandom_calls and on_grid(r.value, default_grid(2 * budget.scale_one))
    assert (r.family, r.scale, r.source, r.reproducible) == ("gaussian", 2 * budget.scale_one, "os", False)
    report = budget.report()
    assert budget.reproducible_noise is False
    assert report["noise source"].startswith("operating system entropy")


def test_budget_refuses_int_seeds_and_generators():
    for bad in (20261204, np.random.default_rng(3)):
        with pytest.raises(ValueError, match="insecure_seed"):
            rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0, rng=bad)
    with pytest.raises(TypeError, match="rng"):
        rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0, rng="seed")
    with pytest.raises(ValueError, match="insecure_seed"):
        rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0, insecure_seed=-3)


def test_budget_insecure_seed_is_reproducible_flagged_and_fresh():
    with pytest.warns(InsecureNoiseWarning):
        a = rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=5.0, insecure_seed=7)
        b = rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=5.0, insecure_seed=7)
        ra = [a.release(0.0, scale=50.0) for _ in range(30)]
        yb = [b.release(0.0, scale=50.0).value for _ in range(30)]
    ya = [r.value for r in ra]
    assert ya == yb and len(set(ya)) == 30  # reproducible, fresh noise at each release
    assert all(r.reproducible and r.source == "insecure_seed" for r in ra)
    assert a.reproducible_noise is True
    assert a.report()["noise source"].startswith("UNSAFE: reproducible noise")
    assert "UNSAFE" in repr(a)


def test_budget_value_mismatch_message_holds_no_value():
    """Issue #23 item 2: 'value=3.2555555555555555 differs from the first release's' leaked x_true + 1.

    Since issue #36 the budget keeps no copy of the value and compares none (a comparison would be an
    equality oracle): another value is charged like the first; a value that is not one finite number
    is refused, and the refusal holds no value either.
    """
    budget = rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0)
    big = 10 * budget.scale_one
    budget.release(SENTINEL, scale=big)
    budget.release(SENTINEL + 1.0, scale=big)  # not compared: charged as any release
    assert len(budget.scales) == 2
    for other in ([SENTINEL, SENTINEL], np.nan, [SENTINEL, np.nan]):
        with pytest.raises(ValueError, match="value") as exc:
            budget.release(other, scale=big)
        text = str(exc.value)
        assert not any(f in text for f in _forms(SENTINEL) + _forms(SENTINEL + 1.0)), text
    with pytest.raises(ValueError, match="scale") as exc:
        budget.release(SENTINEL, scale=-1.0)
    assert not any(f in str(exc.value) for f in _forms(SENTINEL))


# ---------------------------------------------------------------------------------------------
# the record of a release (issue #36, item 2)


def _calibration(noise="gaussian"):
    return rpp.calibrate(PRIORS["a"], PRIORS["b"], alpha=3.0, epsilon=1.0, noise=noise)


@pytest.mark.parametrize("cls, sampler", NOISES)
def test_record_keeps_a_matching_calibration(cls, sampler):
    cal = _calibration(cls.family)
    r = cls(cal.scale).release(0.5, calibration=cal)
    assert r.calibration is cal and r.scale == float(cal.scale) and r.family == cal.noise
    assert sampler(0.5, scale=cal.scale, calibration=cal).calibration is cal


@pytest.mark.parametrize("cls, sampler", NOISES)
def test_mismatched_calibration_is_refused_naming_the_argument(cls, sampler):
    cal = _calibration(cls.family)
    other = "laplace" if cls.family == "gaussian" else "gaussian"
    for call in (
        lambda: cls(2 * cal.scale).release(0.5, calibration=cal),  # another scale
        lambda: sampler(0.5, scale=2 * cal.scale, calibration=cal),
        lambda: cls(cal.scale).release(0.5, calibration=_calibration(other)),  # another family
        lambda: rpp.Release(value=0.5, family=cls.family, scale=1.0, grid=None, source="os", reproducible=False),
    ):
        with pytest.raises(ValueError, match=r"calibration|grid"):
            call()
    grid_cal = rpp.calibrate(PRIORS["a"], PRIORS["b"], alpha=[2.0, 3.0], epsilon=1.0, noise=cls.family)
    with pytest.raises(ValueError, match="calibration"):
        cls(cal.scale).release(0.5, calibration=grid_cal)  # an array of scales: not one calibration
    with pytest.raises(TypeError, match="calibration"):
        cls(cal.scale).release(0.5, calibration={"scale": cal.scale})


def test_record_is_frozen_and_not_a_number():
    r = rpp.GaussianNoise(1.0).release(np.zeros(3))
    for name, new in (("value", 0.0), ("source", "os"), ("reproducible", False), ("scale", 2.0)):
        with pytest.raises(AttributeError):
            setattr(r, name, new)
    with pytest.raises(ValueError, match="read-only"):
        r.value[0] = 1.0  # an array value is a read-only copy
    one = rpp.GaussianNoise(1.0).release(0.0)
    with pytest.raises(TypeError):
        float(one)
    with pytest.raises(TypeError, match=r"\.value"):
        np.asarray(one)
    with pytest.raises(TypeError):
        one + 1.0  # no arithmetic on a record: callers use .value


def test_record_fields_must_agree():
    base = dict(value=0.5, family="gaussian", scale=1.0, grid=2.0**-10, source="os", reproducible=False)
    assert rpp.Release(**base).grid == 2.0**-10
    for kw, exc, word in (
        ({"reproducible": True}, ValueError, "reproducible"),  # an OS source is not reproducible
        ({"source": "insecure_seed"}, ValueError, "reproducible"),
        ({"source": "numpy"}, ValueError, "source"),
        ({"family": "uniform"}, ValueError, "family"),
        ({"scale": -1.0}, ValueError, "scale"),
        ({"scale": [1.0, 2.0]}, ValueError, "scale"),
        ({"scale": 0.0}, ValueError, "grid"),  # no noise: no grid either
        ({"grid": 0.3}, ValueError, "grid"),
        ({"value": np.nan}, ValueError, "value"),
        ({"reproducible": 0}, TypeError, "reproducible"),
    ):
        with pytest.raises(exc, match=word):
            rpp.Release(**{**base, **kw})


def test_record_holds_the_noisy_output_only():
    """The record never makes the input recoverable: no field, and no part of its repr, is the input."""
    cal = rpp.calibrate(PRIORS["a"], PRIORS["b"], alpha=3.0, epsilon=1.0)
    r = rpp.GaussianNoise(1e4).release(SENTINEL, calibration=dataclasses.replace(cal, scale=1e4))
    fields = [r.value, r.family, r.scale, r.grid, r.source, r.reproducible]
    assert SENTINEL not in fields
    text = repr(r).replace(repr(r.value), "<value>")
    assert not any(f in text for f in _forms(SENTINEL)), text
    assert text.startswith("Release(value=<value>, family='gaussian', scale=10000.0")
