"""python-flint's one precision for the whole process, set by rpp under one lock (rpp._lib.arb)."""

import threading
import time

import flint
import numpy as np

from rpp._lib.arb import precision
from rpp.divergence import proved_divergence


def test_a_second_thread_waits_while_the_precision_is_set():
    inside, seen = threading.Event(), []

    def first():
        with precision(flint, 200):
            inside.set()
            time.sleep(0.3)  # the other thread tries to set 64 bits meanwhile
            seen.append(flint.ctx.prec)

    def second():
        inside.wait()
        with precision(flint, 64):
            seen.append(flint.ctx.prec)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [200, 64]  # without the lock the first thread would have computed at 64 bits


def test_proved_enclosures_from_threads_equal_the_serial_ones():
    # a closed form that raises the precision (a tiny divergence) beside Laplace mixtures (96 bits)
    jobs = [
        (([1.0], [0.0], [1.0]), ([1.0], [1e-9], [1.0 + 1e-12]), 2.0, "gaussian", 0.5),
        (([0.5, 0.5], [0.0, 1.0], [0.3, 0.2]), ([1.0], [0.4], [0.5]), 2.0, "laplace", 0.7),
        (([1.0], [0.0], [0.0]), ([1.0], [1e-12], [0.0]), 3.0, "laplace", 1.0),
    ] * 3
    serial = [proved_divergence(p, q, alpha=a, family=f, scale=s) for p, q, a, f, s in jobs]
    got = [None] * len(jobs)

    def run(i):
        p, q, a, f, s = jobs[i]
        got[i] = proved_divergence(p, q, alpha=a, family=f, scale=s)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == serial
    assert np.all([c.rigorous for c in got])
