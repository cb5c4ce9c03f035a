"""rpp._lib.parallel.thread_map: the results of a sequential run, in order, with the caller's error state (issue #26)."""

import multiprocessing
import sys
import threading

import numpy as np
import pytest

from rpp._lib import parallel
from rpp._lib.parallel import thread_map, workers


def test_results_come_in_the_order_of_the_items_and_equal_a_sequential_run():
    rng = np.random.default_rng(0)
    chunks = [rng.normal(size=50_000) for _ in range(9)]
    par = thread_map(lambda a: np.logaddexp.accumulate(a), chunks)
    seq = thread_map(lambda a: np.logaddexp.accumulate(a), chunks, parallel=False)
    assert all(np.array_equal(p, s) for p, s in zip(par, seq, strict=True))
    assert thread_map(lambda x: -x, []) == [] and thread_map(lambda x: -x, [3]) == [-3]


@pytest.mark.skipif(workers() < 2, reason="one core: thread_map runs sequentially (tested above)")
def test_several_items_run_on_the_pool_and_one_or_parallel_false_on_the_callers_thread():
    names = thread_map(lambda _: threading.current_thread().name, range(4))
    assert all(n.startswith("rpp") for n in names)
    main = threading.current_thread().name
    assert thread_map(lambda _: threading.current_thread().name, [0]) == [main]
    assert thread_map(lambda _: threading.current_thread().name, range(3), parallel=False) == [main] * 3


def test_a_task_sees_the_callers_floating_point_error_state():
    def divide(x):
        return np.float64(1.0) / np.float64(x)

    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            thread_map(divide, [1.0, 0.0, 2.0])
    with np.errstate(divide="ignore"):
        assert thread_map(divide, [1.0, 0.0]) == [1.0, np.inf]


def test_an_exception_in_a_task_reaches_the_caller():
    def boom(x):
        if x == 2:
            raise ValueError("task 2")
        return x

    with pytest.raises(ValueError, match="task 2"):
        thread_map(boom, range(4))


def test_a_task_that_maps_again_runs_its_items_itself_and_does_not_wait_on_the_pool():
    # more nested tasks than workers: a nested map on the pool would wait for itself
    inner = [None] * 6

    def outer(i):
        inner[i] = thread_map(lambda j: threading.current_thread().name, range(3))
        return i

    assert thread_map(outer, range(6)) == list(range(6))
    for names in inner:
        assert len(set(names)) == 1  # all on the task's own thread


def test_workers_is_a_positive_count_bounded_by_the_cap():
    assert 1 <= workers() <= parallel._MAX_WORKERS


def _square_sum_in_pool(n):
    return sum(thread_map(lambda x: x * x, range(n)))


@pytest.mark.skipif(sys.platform != "linux", reason="the fork start method is Linux's default")
def test_a_forked_process_makes_its_own_pool_instead_of_waiting_on_the_parents():
    thread_map(lambda x: x, range(4))  # the parent's pool exists (its threads are not copied by fork)
    with multiprocessing.get_context("fork").Pool(2) as pool:
        # (a child waiting on a pool copied from its parent would wait for ever: time out instead)
        assert pool.map_async(_square_sum_in_pool, [4, 5], chunksize=1).get(timeout=60) == [14, 30]
