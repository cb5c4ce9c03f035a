"""Prior classes beyond one machine (issue #38 item 4): ``executor=`` runs the pairs elsewhere.

calibrate_all_pairs and ReleaseBudget accept any ``concurrent.futures.Executor``; with a
ProcessPoolExecutor of 2 workers the worst pair, its calibration and the per-pair table are
identical to the serial run (only ``details["seconds"]``, a wall time, differs), and the work
really goes through the executor.  A dask.distributed test runs where dask is installed (it is
in the developers' lock, [dev]; skipped only where it is absent, e.g. the lowest-versions run).
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

import rpp
from rpp.accounting import ReleaseBudget, calibrate_all_pairs

# A class of 2 models x 3 secrets; model 1 repeats one prior of model 0 (a pair calibrated once).
A = rpp.GaussianMixture(weights=[0.3, 0.7], means=[-1.0, 0.5], vars=[0.4, 0.8])
B = rpp.GaussianMixture(weights=[0.6, 0.4], means=[0.2, 1.5], vars=[0.5, 0.3])
C = rpp.Gaussian(mean=1.2, var=0.6)
D = rpp.Empirical(np.linspace(-1.0, 2.0, 40))
CLASS = [{"a": A, "b": B, "c": C}, {"a": A, "b": B, "c": D}]
# The pair (A, D) calibrates onto the edge of the Gaussian tail condition, where the proved default
# steps up to 2^-10 and takes about 20 s: the tests of the whole class compare executors, and ask
# for require="estimate" (the serial and pooled results must still be identical).


def _without_seconds(cal):
    return dataclasses.replace(cal, details={k: v for k, v in cal.details.items() if k != "seconds"})


@pytest.fixture(scope="module")
def pool():
    with ProcessPoolExecutor(2) as ex:
        yield ex


@pytest.mark.parametrize(
    "kwargs",
    [dict(), dict(k=3), dict(pairs=[("a", "c"), ("b", "a")], directed=True)],
    ids=["all-pairs", "k=3", "directed"],
)
def test_process_pool_gives_the_serial_results(pool, kwargs):
    serial, t_serial = calibrate_all_pairs(CLASS, alpha=2.5, epsilon=0.8, **kwargs, require="estimate")
    pooled, t_pooled = calibrate_all_pairs(CLASS, alpha=2.5, epsilon=0.8, executor=pool, **kwargs, require="estimate")
    assert _without_seconds(pooled) == _without_seconds(serial)
    assert pooled.scale == serial.scale and pooled.divergence == serial.divergence
    assert t_pooled.equals(t_serial)
    assert pooled.guaranteed == serial.guaranteed and pooled.within_budget


class Counting(Executor):
    """An Executor that runs in this thread and counts the calls it was given."""

    def __init__(self):
        self.calls = 0

    def submit(self, fn, /, *args, **kwargs):
        from concurrent.futures import Future

        self.calls += 1
        f = Future()
        f.set_result(fn(*args, **kwargs))
        return f


def test_the_work_goes_through_the_executor():
    ex = Counting()
    worst, table = calibrate_all_pairs(CLASS, alpha=2.5, epsilon=0.8, executor=ex, require="estimate")
    distinct = worst.details["distinct_pairs"]
    assert distinct == 5 and len(table) == 6  # (a, b) is in both models: calibrated once
    assert ex.calls == 2 * distinct  # each distinct pair calibrated, then evaluated at the common scale


def test_release_budget_on_a_pool_matches_the_serial_budget(pool):
    priors = [{"a": A, "b": B}, {"a": A, "b": C}]
    serial = ReleaseBudget(priors, alpha=3.0, epsilon=0.5, insecure_seed=1)
    pooled = ReleaseBudget(priors, alpha=3.0, epsilon=0.5, insecure_seed=1, executor=pool)
    assert pooled.scale_one == serial.scale_one
    assert pooled.min_scale() == serial.min_scale()
    s = 1.7 * serial.scale_one
    assert pooled.max_releases(s) == serial.max_releases(s)
    with pytest.warns(rpp.sampling.InsecureNoiseWarning):
        assert pooled.release(2.0, scale=s).value == serial.release(2.0, scale=s).value
    assert pooled.spent == serial.spent


def test_a_thread_pool_works_too():
    with ThreadPoolExecutor(2) as ex:
        pooled, _ = calibrate_all_pairs(CLASS[0], alpha=2.5, epsilon=0.8, executor=ex)
    serial, _ = calibrate_all_pairs(CLASS[0], alpha=2.5, epsilon=0.8)
    assert _without_seconds(pooled) == _without_seconds(serial)


@pytest.mark.parametrize("bad", [2, "processes", ProcessPoolExecutor])
def test_executor_must_be_an_executor(bad):
    with pytest.raises(TypeError, match=r"executor must be None or a concurrent\.futures\.Executor"):
        calibrate_all_pairs(CLASS[0], alpha=2.5, epsilon=0.8, executor=bad)
    with pytest.raises(TypeError, match="executor"):
        ReleaseBudget(CLASS[0], alpha=2.5, epsilon=0.8, executor=bad)


def test_dask_distributed_client_executor():
    """A local Dask cluster (dask.distributed, in the developers' lock) runs the class."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.Client(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None) as client:
        pooled, t_pooled = calibrate_all_pairs(
            CLASS, alpha=2.5, epsilon=0.8, executor=client.get_executor(), require="estimate"
        )
    serial, t_serial = calibrate_all_pairs(CLASS, alpha=2.5, epsilon=0.8, require="estimate")
    assert _without_seconds(pooled) == _without_seconds(serial) and t_pooled.equals(t_serial)
