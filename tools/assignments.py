"""The assignment set: a curated set of the chapters' exercises, autograded by nbgrader.

``make assignments`` (``python tools/assignments.py --out assignments --check``) writes, from the
chapters ``book/0N_*.ipynb``, an nbgrader course folder ``assignments/``:

- ``source/rpp-exercises/rpp-exercises.ipynb``: the instructor's notebook, with the book's
  solutions and the hidden tests;
- ``release/rpp-exercises/rpp-exercises.ipynb``: what students get (``nbgrader
  generate_assignment``), the exercise statements with an empty answer cell each, and test cells
  whose visible part checks only types and shapes;
- ``gradebook.db``: nbgrader's gradebook, which keeps the hidden tests for ``nbgrader autograde``
  (no Docker, no network: the submissions run in a local kernel of this environment);

and with ``--check`` autogrades the reference solutions (full marks or a non-zero exit).

Each question is one exercise of the book. Its statement is the book's (the MyST roles written
as plain text), followed by the names of the variables the student must define. The reference
solution is the book's own solution code, read from the chapter between its
``:::{solution-start} <label>`` and ``:::{solution-end}`` markers (the leading statements that
answer the graded part). Each question has a small setup cell of its own (the few definitions of
the chapter it uses), so the notebook runs in seconds, not the whole chapter.

The hidden tests are **judges**, not stored numbers: each recomputes, with mpmath and closed forms
of its own (never ``rpp``), the quantity the answer claims to control. A calibration is accepted
when the divergence recomputed at the student's noise meets the budget over the whole class and
a noise 0.1 % smaller would not (near-minimal); a rule's scale, which may add noise, when it meets
the budget; a conversion or a level when it equals the independent value at the student's own
argument. ``JUDGES`` holds their shared code, which every hidden test cell runs, and
``tests/book/test_assignments.py`` runs the same judges on the reference answers and on planted
wrong ones (under-noising calibrations, a conversion with the wrong sign, a count off by one, a
limit in the wrong order...), without and with nbgrader.

The questions, one exercise each (two from chapters 2 and 3), and what their judges recompute:

- chapter 1, ``ex-ch1-calibrate``: the household's Pufferfish level through randomized response,
  over a grid of the class;
- chapter 2, ``ex-ch2-rr`` and ``ex-ch2-best-alpha``: discrete Rényi divergences, and the
  ``(eps', delta)`` conversion minimised by mpmath's root finder;
- chapter 3, ``ex-ch3-zero-noise`` and ``ex-ch3-break-class``: the Gaussian closed form;
- chapter 4, ``ex-mix-crossmass``: the divergence of the noisy Gaussian mixtures by quadrature;
- chapter 5, ``ex-wass-exact-gap`` (the scales at ``eps = 1``): the divergence of the
  Laplace-noised grade laws of the Student data, quadrature between the atoms and the tails in
  closed form (the judge keeps the grades' counts);
- chapter 6, ``ex-ch6-model-class``: the confidence box from mpmath's t and chi-square
  distribution functions (the judge keeps the subsets' sizes and sums), then the Gaussian closed
  form at every grid point;
- chapter 7, ``ex-ch7-break-class``: the exact leakage of five runs of randomized response on a
  Markov chain, over the multisets of outputs;
- chapter 8, ``ex-comp-mqm-hand``: MQM's sigma_max by enumerating every node's Markov quilts;
- chapter 9, ``ex-own-domain-edge``: whether the covariance matrix of the joint divergence of k
  releases is positive definite (mpmath's Cholesky), and the limit's closed form.

The grader: nbgrader 0.9.6, not otter-grader. Both were installed into the project's locked
environment with the locks as constraints: nbgrader only adds packages (alembic, Mako, RapidFuzz,
notebook, ipywidgets and its two widget packages); otter-grader 6.x and 7.x require ``wrapt < 2``
(the lock has 2.5.2, for dm-tree under dp-accounting) and 5.7.1, the newest release that resolves,
imports ``pkg_resources``, which the locked setuptools (84) no longer has. nbgrader is a
developers' tool (pyproject's ``[dev]`` extra, in requirements-dev.txt; the reader's lock does not
carry it). The output folder ``assignments/`` is generated (git-ignored).
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
NAME = "rpp-exercises"

_START_RE = re.compile(r"^\s*(?::{3,}|`{3,})\{solution-start\}\s*(\S*)", re.M)
_END_RE = re.compile(r"^\s*(?::{3,}|`{3,})\{solution-end\}", re.M)
_LABEL_RE = re.compile(r"^:label:\s*(\S+)\s*$", re.M)
_ROLE_RE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")


# ---------------------------------------------------------------- the judges (mpmath only)

# The hidden tests' shared code: exact divergences in mpmath, independent of rpp. Every hidden
# test cell starts with it (so each test runs on its own), and the tests of this tool exec it.
JUDGES = textwrap.dedent(
    '''
    import mpmath as _mp

    _mp.mp.dps = 40


    def _gauss_renyi(m1, v1, m2, v2, a):
        """D_a(N(m1, v1) || N(m2, v2)) in closed form (+inf outside the domain a v2 + (1-a) v1 > 0)."""
        m1, v1, m2, v2, a = (_mp.mpf(x) for x in (m1, v1, m2, v2, a))
        va = a * v2 + (1 - a) * v1
        if va <= 0:
            return _mp.inf
        return a * (m1 - m2) ** 2 / (2 * va) - _mp.log(va / (v1 ** (1 - a) * v2**a)) / (2 * (a - 1))


    def _discrete_renyi(p, q, a):
        a = _mp.mpf(a)
        return _mp.log(_mp.fsum(_mp.mpf(x) ** a * _mp.mpf(y) ** (1 - a) for x, y in zip(p, q))) / (a - 1)


    def _rr_rows(e0):
        """The rows of binary randomized response at level e0: keep w.p. e^e0 / (1 + e^e0)."""
        keep = _mp.exp(e0) / (1 + _mp.exp(e0))
        return [keep, 1 - keep], [1 - keep, keep]


    def _household_level(e0, c, p_a=0.2, p_b_if_not_a=0.1):
        """Pufferfish level of (Alice ill, Alice well) for two bits through e0-randomized response:
        the largest |log P(y | ill) / P(y | well)| over the four outputs, Bob ill w.p. c if Alice is."""
        e0, c = _mp.mpf(e0), _mp.mpf(c)
        keep = _mp.exp(e0) / (1 + _mp.exp(e0))

        def k(x, y):
            return keep if x == y else 1 - keep

        worst = _mp.mpf(0)
        for ya in (0, 1):
            for yb in (0, 1):
                ill = c * k(1, ya) * k(1, yb) + (1 - c) * k(1, ya) * k(0, yb)
                well = p_b_if_not_a * k(0, ya) * k(1, yb) + (1 - p_b_if_not_a) * k(0, ya) * k(0, yb)
                worst = max(worst, abs(_mp.log(ill / well)))
        return worst


    def _household_class_level(e0, lo=0.1, hi=1.0, n=901):
        return max(_household_level(e0, lo + (hi - lo) * _mp.mpf(t) / (n - 1)) for t in range(n))


    # chapter 3's household: Q = X_1 + X_2, secret-conditioned Gaussians at correlation r
    _HH = {"m_i": 3.0, "tau_i": 0.8, "m_j": 3.5, "tau_j": 2.0, "m_2": 3.0, "tau_2": 1.2}


    def _household_pair(r):
        h, r = _HH, _mp.mpf(r)
        law = {}
        for s in ("i", "j"):
            t, t2 = _mp.mpf(h[f"tau_{s}"]), _mp.mpf(h["tau_2"])
            law[s] = (_mp.mpf(h[f"m_{s}"]) + _mp.mpf(h["m_2"]), t**2 + 2 * r * t * t2 + t2**2)
        return law["i"], law["j"]


    def _household_noisy_level(theta2, r, a=3):
        (mi, vi), (mj, vj) = _household_pair(r)
        th2 = _mp.mpf(theta2)
        return max(_gauss_renyi(mi, vi + th2, mj, vj + th2, a), _gauss_renyi(mj, vj + th2, mi, vi + th2, a))


    def _household_class_noisy_level(theta2, lo=0.0, hi=0.4, n=401):
        return max(_household_noisy_level(theta2, lo + (hi - lo) * _mp.mpf(t) / (n - 1)) for t in range(n))

    def _bisect(f, lo, hi, steps=160):
        """The root of an increasing f on [lo, hi] by bisection (160 halvings: < 1e-40)."""
        lo, hi = _mp.mpf(lo), _mp.mpf(hi)
        for _ in range(steps):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
        return (lo + hi) / 2


    def _mixture_renyi(p, q, a, th2):
        """D_a(P * N(0, th2) || Q * N(0, th2)) for mixtures p, q = [(w, m, v), ...].

        By mpmath quadrature, for components of equal variance: cut 40 sd beyond the outer
        means, where the integrand is below e^-800.
        """
        a, th2 = _mp.mpf(a), _mp.mpf(th2)
        p, q = (
            [(_mp.mpf(w), _mp.mpf(m), _mp.sqrt(_mp.mpf(v) + th2)) for w, m, v in c]
            for c in (p, q)
        )

        def dens(c, y):
            return _mp.fsum(w * _mp.npdf(y, m, s) for w, m, s in c)

        means = sorted({m for _, m, _ in p + q})
        sd = max(s for _, _, s in p + q)
        cuts = [means[0] - 40 * sd, *means, means[-1] + 40 * sd]
        integral = _mp.quad(lambda y: dens(p, y) ** a * dens(q, y) ** (1 - a), cuts)
        return _mp.log(integral) / (a - 1)


    def _laplace_empirical_renyi(atoms, cp, cq, b, a):
        """D_a(P * Lap(b) || Q * Lap(b)) for laws on the sorted atoms with counts cp, cq.

        Between consecutive atoms (the kinks) each density is A e^(-y/b) + B e^(y/b), and
        mpmath integrates the integrand there; beyond the outer atoms it is a multiple of
        e^(-|y|/b), and the two tails are integrated in closed form.
        """
        a, b = _mp.mpf(a), _mp.mpf(b)
        xs = [_mp.mpf(x) for x in atoms]
        ws = [[_mp.mpf(c) / sum(cs) for c in cs] for cs in (cp, cq)]
        up = [[w * _mp.exp(x / b) for w, x in zip(ws_, xs)] for ws_ in ws]
        down = [[w * _mp.exp(-x / b) for w, x in zip(ws_, xs)] for ws_ in ws]
        # the tails: below xs[0] the densities are (sum of down) e^(y/b), above xs[-1]
        # (sum of up) e^(-y/b); their integrands integrate to these
        lo, hi = ([_mp.fsum(t) for t in ts] for ts in (down, up))
        total = lo[0] ** a * lo[1] ** (1 - a) * b * _mp.exp(xs[0] / b)
        total += hi[0] ** a * hi[1] ** (1 - a) * b * _mp.exp(-xs[-1] / b)
        for k in range(len(xs) - 1):
            left = [_mp.fsum(u[: k + 1]) for u in up]  # atoms at or left of y
            right = [_mp.fsum(d[k + 1 :]) for d in down]  # atoms right of y

            def f(y, left=left, right=right):
                e_minus, e_plus = _mp.exp(-y / b), _mp.exp(y / b)
                p, q = (lf * e_minus + rt * e_plus for lf, rt in zip(left, right))
                return p**a * q ** (1 - a)

            total += _mp.quad(f, [xs[k], xs[k + 1]])
        return _mp.log(total / (2 * b)) / (a - 1)


    # chapter 5: the final grade G3 of the Student (math) data, counts by guardian
    _G3_ATOMS = (0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20)
    _G3_MOTHER = (25, 1, 6, 11, 7, 21, 18, 37, 35, 20, 19, 19, 26, 11, 4, 7, 5, 1)
    _G3_FATHER = (8, 0, 1, 4, 1, 5, 6, 16, 8, 9, 8, 8, 6, 4, 2, 4, 0, 0)


    def _student_laplace_level(b, a=3):
        args = (_G3_ATOMS, _G3_MOTHER, _G3_FATHER)
        return max(
            _laplace_empirical_renyi(*args, b, a),
            _laplace_empirical_renyi(args[0], args[2], args[1], b, a),
        )


    # chapter 6: oldpeak of the Heart Disease (Cleveland) subsets slope = 1 and 3, as
    # (n, sum of 10 x, sum of (10 x)^2): integers, so the mean and variance are exact
    _OLDPEAK = {"i": (142, 580, 8972), "j": (21, 570, 20852)}


    def _chi2_cdf(x, k):
        return _mp.gammainc(_mp.mpf(k) / 2, 0, _mp.mpf(x) / 2, regularized=True)


    def _t_cdf(x, k):
        """Student's t distribution function for x >= 0."""
        k = _mp.mpf(k)
        z = k / (k + _mp.mpf(x) ** 2)
        tail = _mp.betainc(k / 2, _mp.mpf(1) / 2, 0, z, regularized=True)
        return 1 - tail / 2


    def _heart_box(level=1 - _mp.mpf("0.05") / 4):
        """The normal-theory box of each subset: (n, mean interval, variance interval)."""
        boxes = []
        for s in ("i", "j"):
            n, s1, s2 = _OLDPEAK[s]
            m = _mp.mpf(s1) / (10 * n)
            v = (_mp.mpf(s2) / 100 - n * m**2) / (n - 1)
            up = (1 + level) / 2
            t = _bisect(lambda x: _t_cdf(x, n - 1) - up, 0, 100)
            half = t * _mp.sqrt(v / n)
            c_hi = _bisect(lambda x: _chi2_cdf(x, n - 1) - up, 0, 10 * n)
            c_lo = _bisect(lambda x: _chi2_cdf(x, n - 1) - (1 - up), 0, 10 * n)
            var_box = ((n - 1) * v / c_hi, (n - 1) * v / c_lo)
            boxes.append((n, (m - half, m + half), var_box))
        return boxes


    def _heart_box_grid():
        """The 5 x 3 x 5 x 3 grid of the box: points (m_i, v_i, m_j, v_j)."""
        (_, mb_i, vb_i), (_, mb_j, vb_j) = _heart_box()

        def line(lo, hi, k):
            return [lo + (hi - lo) * t / (k - 1) for t in range(k)]

        return [
            (mi, vi, mj, vj)
            for mi in line(*mb_i, 5)
            for vi in line(*vb_i, 3)
            for mj in line(*mb_j, 5)
            for vj in line(*vb_j, 3)
        ]


    def _gauss_pair_level(pair, theta2, a=3):
        """D_a in the worse order of N(m_i, v_i + theta2) and N(m_j, v_j + theta2)."""
        (mi, vi), (mj, vj) = pair
        th2 = _mp.mpf(theta2)
        return max(
            _gauss_renyi(mi, vi + th2, mj, vj + th2, a),
            _gauss_renyi(mj, vj + th2, mi, vi + th2, a),
        )


    def _heart_point_level(point, theta2):
        """The level at the grid point (m_i, v_i, m_j, v_j): the laws N(m_s, v_s / n_s)."""
        mi, vi, mj, vj = point
        n_i, n_j = _OLDPEAK["i"][0], _OLDPEAK["j"][0]
        return _gauss_pair_level(((mi, vi / n_i), (mj, vj / n_j)), theta2)


    def _crossmass_level(theta):
        """Chapter 4: both orders of D_3 between the noisy mixtures of ex-mix-crossmass."""
        p = [("0.4", -5, 1), ("0.6", 5, 1)]
        q = [("0.1", -5, 1), ("0.9", 5, 1)]
        th2 = _mp.mpf(theta) ** 2
        return max(_mixture_renyi(p, q, 3, th2), _mixture_renyi(q, p, 3, th2))


    def _chain_runs_leak(eps_dp, c, runs=5):
        """Exact Pufferfish leakage of `runs` releases of three bits of a Markov chain.

        The chain is stationary and symmetric (stay w.p. c), each release is randomized
        response at eps_dp on each bit, the secret is the middle bit (0 against 1); the
        outputs of the runs matter through their counts only.
        """
        import itertools

        c = _mp.mpf(c)
        flip = 1 / (1 + _mp.exp(_mp.mpf(eps_dp)))
        xs = list(itertools.product((0, 1), repeat=3))
        law = {x: (c if x[0] == x[1] else 1 - c) * (c if x[1] == x[2] else 1 - c)
               for x in xs}
        dist = [[sum(u != v for u, v in zip(x, y)) for y in xs] for x in xs]
        worst = _mp.mpf(0)
        for outs in itertools.combinations_with_replacement(range(8), runs):
            like = [_mp.mpf(0), _mp.mpf(0)]
            for k, x in enumerate(xs):
                d = sum(dist[k][y] for y in outs)
                like[x[1]] += law[x] * flip**d * (1 - flip) ** (3 * runs - d)
            worst = max(worst, abs(_mp.log(like[0] / like[1])))
        return worst


    def _chain_class_leak(eps_dp):
        """Chapter 7: the largest leakage of five runs over the class p = q."""
        return max(_chain_runs_leak(eps_dp, c) for c in ("0.5", "0.6", "0.7", "0.8"))


    def _mqm_sigma_max(P, n, eps):
        """MQM's sigma_max for the stationary chain with transition matrix P on n nodes.

        For each node the smallest card(N) / (eps - e(Q)) over its Markov quilts Q (one node
        on each side or none, N the nodes between them), e(Q) the max-influence, the sum of
        the two sides'; sigma_max is the largest over the nodes.
        """
        P = _mp.matrix(P)
        k = P.rows
        pi = _mp.matrix([[_mp.mpf(1) / k] * k])
        for _ in range(2000):  # the stationary law, by power iteration
            pi = pi * P

        def influence(d, backward):
            Pd = P**d
            if backward:  # P(X_{i-d} = y | X_i = x) = pi(y) P^d(y, x) / pi(x)
                Pd = _mp.matrix(
                    [[pi[y] * Pd[y, x] / pi[x] for y in range(k)] for x in range(k)]
                )
            pairs = [(x, z, y) for x in range(k) for z in range(k) for y in range(k)]
            return max(_mp.log(Pd[x, y] / Pd[z, y]) for x, z, y in pairs)

        eps, worst = _mp.mpf(eps), _mp.mpf(0)
        for i in range(1, n + 1):
            best = _mp.inf
            for left in range(0, i):  # quilt node i - d on the left, 0: none
                for right in range(i + 1, n + 2):  # n + 1: none
                    e = influence(i - left, True) if left else 0
                    e += influence(right - i, False) if right <= n else 0
                    if e < eps:
                        best = min(best, (right - left - 1) / (eps - e))
            worst = max(worst, best)
        return worst


    def _joint_renyi_finite(k, pj, pi_, theta2, a):
        """Whether D_a of k releases X + N(0, theta2) of one X is finite, pj against pi_.

        The priors are Gaussians (mean, var); the divergence is finite iff the matrix
        a S_i + (1 - a) S_j is positive definite (mpmath's Cholesky), S = var 1 1^T +
        theta2 I the covariance of the k releases.
        """
        a, th2 = _mp.mpf(a), _mp.mpf(theta2)
        c = a * _mp.mpf(pi_[1]) + (1 - a) * _mp.mpf(pj[1])
        S = _mp.matrix([[c + (th2 if r == s else 0) for s in range(k)] for r in range(k)])
        try:
            _mp.cholesky(S)
        except ValueError:
            return False
        return True


    def _as_float(x):
        import numbers

        import numpy as _np

        value = _np.asarray(x)
        assert value.shape == (), f"expected one number, got shape {value.shape}"
        value = value.item()
        assert isinstance(value, numbers.Real), f"expected a real number, got {type(value).__name__}"
        return float(value)
    '''
).strip()


# ---------------------------------------------------------------- the questions


@dataclass(frozen=True)
class Question:
    """One graded exercise: where it is in the book, what it asks for, and how it is judged."""

    name: str  # the question's name (its cells' grade ids start with it)
    notebook: str  # the chapter, relative to book/
    label: str  # the exercise's label (its solution block has the same)
    answers: dict[str, str]  # variable -> what it must hold (said in the prompt)
    setup: str  # the chapter's definitions the exercise uses (a few seconds at most)
    public: str  # the public test: types and shapes only
    hidden: list[str]  # the hidden tests: judges (each runs after JUDGES)
    graded_part: str = ""  # which part of a longer exercise is graded, when not all of it
    code_cells: int = 0  # how many of the solution's code cells are the reference (0: all)
    statements: int = 0  # how many leading statements of those cells (0: all)
    points: int = 2


QUESTIONS: list[Question] = [
    Question(
        name="ch1_calibrate",
        notebook="01_pufferfish.ipynb",
        label="ex-ch1-calibrate",
        answers={"e0_wide": "the largest level ε₀ of the randomized response (a float) for the wider class"},
        graded_part=(
            "Graded: the calibration. Store in `e0_wide` the largest ε₀ whose Pufferfish level over the "
            "class $c \\in [0.1, 1]$ is at most $\\varepsilon = 1$ (the explanation is not graded)."
        ),
        setup=textwrap.dedent(
            """
            import numpy as np
            from scipy.optimize import brentq

            from rpp.pufferfish import product_channel, pufferfish_epsilon, randomized_response


            def household_prior(p_a=0.2, p_b_if_a=0.8, p_b_if_not_a=0.1):
                # Prior over databases (a, b), in the order (0,0), (0,1), (1,0), (1,1).
                return np.array(
                    [
                        (1 - p_a) * (1 - p_b_if_not_a),
                        (1 - p_a) * p_b_if_not_a,
                        p_a * (1 - p_b_if_a),
                        p_a * p_b_if_a,
                    ]
                )


            bits = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
            alice_sick = bits[:, 0] == 1
            alice_well = ~alice_sick
            """
        ).strip(),
        public="assert isinstance(float(e0_wide), float)",
        hidden=[
            # within budget: the level recomputed at the student's e0 over the class (901 points),
            # without slack (the book's solution steps off the float root to the safe side)
            "assert _household_class_level(_as_float(e0_wide)) <= 1",
            # near-maximal: 0.1 % more (less noise) already breaks the budget
            "assert _household_class_level(_as_float(e0_wide) * 1.001) > 1",
        ],
    ),
    Question(
        name="ch2_rr",
        notebook="02_renyi_rpp.ipynb",
        label="ex-ch2-rr",
        answers={
            "levels": "the four levels $D_\\alpha(K[1] \\| K[0])$ at $\\alpha = 1.5, 2, 5, 50$ (a list of floats)",
            "a_half": "the order at which the level first exceeds $\\varepsilon_0 / 2$ (a float)",
        },
        setup=textwrap.dedent(
            """
            import numpy as np

            from rpp import discrete_renyi_divergence
            from rpp.pufferfish import randomized_response
            """
        ).strip(),
        public="assert len(levels) == 4 and all(isinstance(float(v), float) for v in levels)\n"
        "assert isinstance(float(a_half), float)",
        hidden=[
            "_p, _q = _rr_rows(1)\n"
            "for _a, _v in zip((1.5, 2, 5, 50), levels, strict=True):\n"
            "    assert abs(_as_float(_v) - _discrete_renyi(_p, _q, _a)) <= 1e-9",
            # the order is judged by the divergence at the student's own order
            "_p, _q = _rr_rows(1)\n"
            "assert 1 < _as_float(a_half) and abs(_discrete_renyi(_p, _q, _as_float(a_half)) - 0.5) <= 1e-8",
        ],
    ),
    Question(
        name="ch2_best_alpha",
        notebook="02_renyi_rpp.ipynb",
        label="ex-ch2-best-alpha",
        answers={
            "best": "the smallest $\\varepsilon'$ over all $\\alpha > 1$ (a float)",
            "a_star": "the order that attains it (a float)",
        },
        setup="import numpy as np",
        public="assert isinstance(float(best), float) and isinstance(float(a_star), float)",
        hidden=[
            # the conversion eps'(alpha) = alpha / (2 theta^2) + log(1/delta) / (alpha - 1), theta = 4,
            # delta = 1e-5, minimised by mpmath's root finder on its derivative (not the closed form)
            "_f = lambda a: a / (2 * 16) + _mp.log(1 / _mp.mpf('1e-5')) / (a - 1)\n"
            "_a = _mp.findroot(lambda a: _mp.diff(_f, a), 20)\n"
            "assert abs(_as_float(best) - _f(_a)) <= 1e-9 * _f(_a)",
            "_f = lambda a: a / (2 * 16) + _mp.log(1 / _mp.mpf('1e-5')) / (a - 1)\n"
            "_a = _mp.findroot(lambda a: _mp.diff(_f, a), 20)\n"
            "assert abs(_as_float(a_star) - _a) <= 1e-6 * _a",
        ],
        code_cells=1,
    ),
    Question(
        name="ch3_zero_noise",
        notebook="03_gaussian_priors.ipynb",
        label="ex-ch3-zero-noise",
        answers={"mu_max": "the largest mean difference that needs no noise (a float)"},
        graded_part=(
            "Graded: the first question. Store in `mu_max` the largest mean difference for which "
            "$N(0, 1)$ against $N(\\mu, 1.2)$ needs no noise at $(\\alpha, \\varepsilon) = (3, 1)$ "
            "in both orders (the other questions are not graded)."
        ),
        setup=textwrap.dedent(
            """
            import numpy as np

            from rpp import Gaussian, calibrate, gaussian_renyi
            from rpp.rules import closed_form_variance
            """
        ).strip(),
        public="assert isinstance(float(mu_max), float)",
        hidden=[
            "_m = _as_float(mu_max)\n"
            "_lvl = lambda m: max(_gauss_renyi(0, 1, m, 1.2, 3), _gauss_renyi(m, 1.2, 0, 1, 3))\n"
            "assert _m > 0 and _lvl(_m) <= 1",
            "_m = _as_float(mu_max)\n"
            "_lvl = lambda m: max(_gauss_renyi(0, 1, m, 1.2, 3), _gauss_renyi(m, 1.2, 0, 1, 3))\n"
            "assert _lvl(_m * 1.0001) > 1",
        ],
        code_cells=1,
        statements=3,
    ),
    Question(
        name="ch3_class_calibration",
        notebook="03_gaussian_priors.ipynb",
        label="ex-ch3-break-class",
        answers={"th2_small": "the noise variance $\\theta^2$ calibrated for the class $r \\in [0, 0.4]$ (a float)"},
        graded_part=(
            "Graded: the calibration. Store in `th2_small` the smallest noise variance $\\theta^2$ "
            "that meets $(\\alpha, \\varepsilon) = (3, 1)$ in both orders for every correlation "
            "$r \\in [0, 0.4]$ (the leakage at $r = 0.8$ is not graded)."
        ),
        setup=textwrap.dedent(
            """
            import numpy as np

            from rpp import Gaussian, calibrate, gaussian_renyi

            # the household of chapter 3: Q = X_1 + X_2, the secret is the first person's status
            hh = {"m_i": 3.0, "tau_i": 0.8, "m_j": 3.5, "tau_j": 2.0, "m_2": 3.0, "tau_2": 1.2}


            def household_pair(r):
                # secret-conditioned laws of Q = X_1 + X_2 at correlation r
                return tuple(
                    Gaussian(
                        mean=hh[f"m_{s}"] + hh["m_2"],
                        var=hh[f"tau_{s}"] ** 2 + 2 * r * hh[f"tau_{s}"] * hh["tau_2"] + hh["tau_2"] ** 2,
                    )
                    for s in ("i", "j")
                )
            """
        ).strip(),
        public="assert isinstance(float(th2_small), float)",
        hidden=[
            # within budget: the divergence recomputed at the student's noise, over the class
            "assert _household_class_noisy_level(_as_float(th2_small)) <= 1",
            # near-minimal: a scale 0.1 % smaller breaks the budget somewhere in the class
            "assert _household_class_noisy_level(_as_float(th2_small) * 0.999**2) > 1",
        ],
        code_cells=1,
        statements=1,
    ),
    Question(
        name="ch4_crossmass",
        notebook="04_mixture_priors.ipynb",
        label="ex-mix-crossmass",
        answers={
            "tv": "the minimal mass any coupling of the weights moves between the modes (a float)",
            "ex": "the exact calibration θ at $(\\alpha, \\varepsilon) = (3, 0.5)$, both orders (a float)",
        },
        graded_part=(
            "Graded: the cross-mode mass `tv` and the exact calibration `ex`, the smallest noise "
            "scale θ that meets $(\\alpha, \\varepsilon) = (3, 0.5)$ in both orders (the coupling "
            "rules' lower bound and the comparison are not graded)."
        ),
        setup=textwrap.dedent(
            """
            import numpy as np

            from rpp import GaussianMixture, calibrate
            """
        ).strip(),
        public="assert isinstance(float(tv), float) and isinstance(float(ex), float)",
        hidden=[
            # the mass a coupling must move: 1 - sum_k min(w_ik, w_jk)
            "_w_i, _w_j = ('0.4', '0.6'), ('0.1', '0.9')\n"
            "_tv = 1 - sum(min(_mp.mpf(x), _mp.mpf(y)) for x, y in zip(_w_i, _w_j))\n"
            "assert abs(_as_float(tv) - _tv) <= 1e-12",
            # within budget: D_3 of the noisy mixtures (mpmath quadrature) at the student's noise
            "assert _crossmass_level(_as_float(ex)) <= _mp.mpf('0.5')",
            # near-minimal: a scale 0.1 % smaller breaks the budget
            "assert _crossmass_level(_as_float(ex) * 0.999) > _mp.mpf('0.5')",
        ],
        code_cells=1,
        statements=5,
    ),
    Question(
        name="ch5_laplace_scales",
        notebook="05_wasserstein_mechanisms.ipynb",
        label="ex-wass-exact-gap",
        answers={"b": "the Laplace scale of each method at $\\varepsilon = 1$ (a dict, method -> float)"},
        graded_part=(
            "Graded: the four calibrations at $\\varepsilon = 1$. Store in `b` a dict from each "
            "method of `lap_methods` to its Laplace scale $b$ for $(\\alpha, \\varepsilon) = (3, 1)$ "
            "on the Student pair (the loop of the book's solution leaves it so); the table and the "
            "share of the gap are not graded."
        ),
        setup=textwrap.dedent(
            """
            import numpy as np
            import pandas as pd

            from rpp import Empirical, calibrate
            from rpp_book.data import load_student

            student = load_student("mat")


            def emp(frame, column, key, value):
                return Empirical(frame.loc[frame[key] == value, column].dropna().to_numpy(float))


            pairs = {
                "Student": (
                    emp(student, "G3", "guardian", "mother"),
                    emp(student, "G3", "guardian", "father"),
                )
            }
            lap_methods = ["exact", "w-alpha-tight", "w-alpha", "pierquin"]
            """
        ).strip(),
        public="assert set(b) == {'exact', 'w-alpha-tight', 'w-alpha', 'pierquin'}\n"
        "assert all(isinstance(float(v), float) for v in b.values())",
        hidden=[
            # within budget: D_3 of the Laplace-noised grade laws (mpmath), both orders
            "assert _student_laplace_level(_as_float(b['exact'])) <= 1",
            # near-minimal: a scale 0.1 % smaller breaks the budget
            "assert _student_laplace_level(_as_float(b['exact']) * 0.999) > 1",
            # the rules may add noise, never less than the budget needs
            "for _m in ('w-alpha-tight', 'w-alpha', 'pierquin'):\n"
            "    assert _student_laplace_level(_as_float(b[_m])) <= 1, _m",
        ],
        code_cells=1,
        statements=3,
    ),
    Question(
        name="ch6_box",
        notebook="06_experiments.ipynb",
        label="ex-ch6-model-class",
        answers={
            "theta_box": "the exact calibration θ at each point of the grid (a list of 225 floats)",
            "worst_box": "the grid point $(m_i, v_i, m_j, v_j)$ that needs the most noise (a tuple)",
        },
        graded_part=(
            "Graded: the class calibration. Store in `theta_box` the exact calibration θ for "
            "$(3, 1)$ at each of the $5 \\times 3 \\times 5 \\times 3$ grid points (the largest is "
            "the class's noise) and in `worst_box` the grid point $(m_i, v_i, m_j, v_j)$ (raw "
            "variances, before the division by $n_s$) that needs the most (the comparisons with "
            "the point fit and the bootstrap interval are not graded)."
        ),
        setup=textwrap.dedent(
            """
            import numpy as np
            from scipy import stats

            import rpp
            from rpp_book import experiments
            from rpp_book.data import load_heart_disease

            ALPHA = 3.0
            SETTINGS = experiments.PAPER_SETTINGS
            data = {"heart": load_heart_disease("cleveland")}
            """
        ).strip(),
        public="assert len(theta_box) == 225 and all(isinstance(float(t), float) for t in theta_box)\n"
        "assert len(worst_box) == 4",
        hidden=[
            # within budget: D_3 in both orders (closed form) at the largest θ, at every point
            # of the judge's own grid (box from mpmath t and chi-square quantiles of the data)
            "_th = max(_as_float(t) for t in theta_box)\n"
            "assert all(_heart_point_level(_pt, _th**2) <= 1 for _pt in _heart_box_grid())",
            # near-minimal: 0.1 % less noise breaks the budget at some point of the grid
            "_th = max(_as_float(t) for t in theta_box)\n"
            "assert max(_heart_point_level(_pt, (0.999 * _th) ** 2) for _pt in _heart_box_grid()) > 1",
            # the binding point: the one whose level at the class's noise is the largest
            "_th = max(_as_float(t) for t in theta_box)\n"
            "_worst = max(_heart_box_grid(), key=lambda _pt: _heart_point_level(_pt, _th**2))\n"
            "for _x, _y in zip(worst_box, _worst, strict=True):\n"
            "    assert abs(_as_float(_x) - _y) <= 1e-9 * abs(_y)",
        ],
        code_cells=1,
        statements=10,
    ),
    Question(
        name="ch7_break_class",
        notebook="07_composition.ipynb",
        label="ex-ch7-break-class",
        answers={"lo_br": "the calibrated $\\epsilon_{DP}$ per bit (a float)"},
        graded_part=(
            "Graded: the calibration. Store in `lo_br` the largest $\\epsilon_{DP}$ per bit "
            "for which $r = 5$ runs leak at most $2$ for every chain "
            "$p = q \\in \\{0.5, 0.6, 0.7, 0.8\\}$; the leakage outside the class is not graded."
        ),
        setup=textwrap.dedent(
            '''
            import numpy as np

            import rpp.pufferfish as pf


            def two_state(p, q):
                return np.array([[p, 1 - p], [1 - q, q]])


            def rr_bits(eps_dp, n_bits):
                """Randomised response on each of n_bits bits: an eps_dp-DP channel per bit."""
                f = 1 / (1 + np.exp(eps_dp))
                M = np.array([[1.0]])
                for _ in range(n_bits):
                    M = np.kron(M, [[1 - f, f], [f, 1 - f]])
                return M


            s1_mid = (np.indices((2, 2, 2))[1] == 0).ravel()  # secret: the middle bit is 0


            def runs_leak(P, M, runs):
                return pf.composed_leakage_exact(M, pf.chain_joint(P, 3).ravel(), s1_mid, runs)
            '''
        ).strip(),
        public="assert isinstance(float(lo_br), float)",
        hidden=[
            # within budget: the exact leakage of the five runs (mpmath, over the 792 multisets
            # of outputs) at the student's eps_DP, for every chain of the class
            "assert _chain_class_leak(_as_float(lo_br)) <= 2",
            # near-maximal: 0.1 % more (less noise) already breaks the budget
            "assert _chain_class_leak(_as_float(lo_br) * 1.001) > 2",
        ],
        code_cells=1,
        statements=5,
    ),
    Question(
        name="ch8_mqm",
        notebook="08_composition_ab.ipynb",
        label="ex-comp-mqm-hand",
        answers={
            "s_max4": "MQM's $\\sigma_{\\max}$ (a float)",
            "eps_dp4": "the resulting $\\epsilon_{DP} = 1 / \\sigma_{\\max}$ (a float)",
        },
        graded_part=(
            "Graded: MQM's $\\sigma_{\\max}$ in `s_max4` and the $\\epsilon_{DP}$ of MQM as a "
            "Laplace mechanism, $1 / \\sigma_{\\max}$, in `eps_dp4` (the lists of quilts and the "
            "noise standard deviations are not graded)."
        ),
        setup=textwrap.dedent(
            """
            import numpy as np

            import rpp.pufferfish as pf
            """
        ).strip(),
        public="assert isinstance(float(s_max4), float) and isinstance(float(eps_dp4), float)",
        hidden=[
            # sigma_max recomputed by enumerating every node's Markov quilts (mpmath)
            "_s = _mqm_sigma_max([['0.9', '0.1'], ['0.4', '0.6']], 4, 4)\n"
            "assert abs(_as_float(s_max4) - _s) <= 1e-12 * _s",
            "_s = _mqm_sigma_max([['0.9', '0.1'], ['0.4', '0.6']], 4, 4)\n"
            "assert abs(_as_float(eps_dp4) - 1 / _s) <= 1e-12 / _s",
        ],
        code_cells=1,
        statements=10,
    ),
    Question(
        name="ch9_domain_edge",
        notebook="09_own_release.ipynb",
        label="ex-own-domain-edge",
        answers={
            "k_first_inf": "the number of releases from which the joint $D_3(j \\| i)$ is infinite (an int)",
            "limit": "the limit of the joint $D_3(i \\| j)$ as $k \\to \\infty$ (a float)",
        },
        graded_part=(
            "Graded: the check on the pair of case 1 at `theta_edge`. Store in `k_first_inf` the "
            "smallest number of releases for which the joint $D_3(j \\| i)$ is infinite, and in "
            "`limit` the limit of $D_3(i \\| j)$ as $k \\to \\infty$ (the derivation is not graded)."
        ),
        setup=textwrap.dedent(
            """
            import numpy as np

            import rpp
            from rpp.accounting import releases_divergence

            ALPHA_C, EPSILON = 3.0, 1.0
            edge = (rpp.Gaussian(mean=0, var=1), rpp.Gaussian(mean=2, var=2))  # case 1
            theta_edge = rpp.calibrate(*edge, alpha=ALPHA_C, epsilon=EPSILON).scale
            """
        ).strip(),
        public="assert int(k_first_inf) == k_first_inf and isinstance(float(limit), float)",
        hidden=[
            # the judge's own theta^2 (bisection on the closed form, both orders), then the
            # joint D_3(j || i) of k releases: finite iff 3 S_i - 2 S_j is positive definite
            "_t2 = _bisect(lambda t: 1 - _gauss_pair_level(((0, 1), (2, 2)), t), 0, 100)\n"
            "_k = int(k_first_inf)\n"
            "assert _joint_renyi_finite(_k - 1, (2, 2), (0, 1), _t2, 3)\n"
            "assert not _joint_renyi_finite(_k, (2, 2), (0, 1), _t2, 3)",
            # many releases reveal the value: the limit is D_3 between the priors themselves
            "_lim = _gauss_renyi(0, 1, 2, 2, 3)\nassert abs(_as_float(limit) - _lim) <= 1e-9 * _lim",
        ],
        code_cells=1,
        statements=7,
    ),
]


# ---------------------------------------------------------------- reading the book


def _plain(markdown: str) -> str:
    """An exercise statement without its MyST: the directive lines dropped, the roles as text."""

    def role(m: re.Match) -> str:
        kind, content = m.group(1), m.group(2)
        explicit = re.match(r"^(.*?)\s*<([^<>]+)>$", content, re.S)
        if explicit:
            return explicit.group(1)
        if kind == "eq":
            return f"equation ({content}) of the book"
        if kind in ("ref", "prf:ref", "numref"):
            return f"the book's “{content}”"
        if kind.startswith("cite"):
            return content
        return f"`{content}`"

    lines = [ln for ln in markdown.splitlines() if not re.match(r"^\s*(:{3,}|`{3,})", ln)]
    lines = [ln for ln in lines if not _LABEL_RE.match(ln)]
    return _ROLE_RE.sub(role, "\n".join(lines)).strip()


def exercise_statement(nb: nbformat.NotebookNode, label: str) -> str:
    """The statement of the exercise ``label`` (its markdown, from ``:::{exercise}`` to ``:::``)."""
    for cell in nb.cells:
        if cell.cell_type != "markdown" or f":label: {label}" not in cell.source:
            continue
        block = re.search(
            rf"^(:{{3,}})\{{exercise\}}[^\n]*\n:label: {re.escape(label)}\s*\n(.*?)^\1\s*$",
            cell.source,
            re.M | re.S,
        )
        if block:
            return _plain(block.group(2))
    raise LookupError(f"no exercise {label!r}")


def solution_code(nb: nbformat.NotebookNode, label: str) -> list[str]:
    """The sources of the code cells of the solution block of ``label``, in order."""
    cells, inside = [], False
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            start = _START_RE.search(cell.source)
            if start and start.group(1) == label:
                inside = True
                continue
            if inside and _END_RE.search(cell.source):
                return cells
        elif inside:
            cells.append(cell.source)
    raise LookupError(f"no solution block {label!r}")


def reference_solution(q: Question, book: Path = ROOT / "book") -> str:
    """The book's solution of ``q``: its first ``code_cells`` cells, their first ``statements``."""
    nb = nbformat.read(book / q.notebook, as_version=4)
    cells = solution_code(nb, q.label)
    source = "\n\n".join(cells[: q.code_cells] if q.code_cells else cells)
    if q.statements:
        body = ast.parse(source).body
        if len(body) < q.statements:
            raise ValueError(f"{q.label}: the solution has {len(body)} statements, not {q.statements}")
        lines = source.splitlines()
        source = "\n".join(lines[: body[q.statements - 1].end_lineno])
    return source.strip()


# ---------------------------------------------------------------- the nbgrader source notebook


def _meta(grade_id: str, *, solution: bool = False, grade: bool = False, points: int = 0) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3, "solution": solution}
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def _test_cell(q: Question, k: int, judge: str) -> str:
    """A graded cell: the public check (types and shapes), then one hidden judge."""
    return (
        f"# Test {q.name} {k + 1}: the public part checks only that the answer exists and has the right type.\n"
        f"{q.public}\n"
        f"{HIDDEN_BEGIN}\n{JUDGES}\n\n{judge}\n{HIDDEN_END}"
    )


HIDDEN_BEGIN, HIDDEN_END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
SOLUTION_BEGIN, SOLUTION_END = "### BEGIN SOLUTION", "### END SOLUTION"


def source_notebook(book: Path = ROOT / "book") -> nbformat.NotebookNode:
    """The instructor's notebook of the assignment set (nbgrader's source: solutions and hidden tests)."""
    new_md, new_code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        new_md(
            "# The RPP Book: exercises\n\n"
            "Answer each question in its answer cell, in the variables it names, then run the test "
            "cells below it. The *setup* cell of each question defines what the exercise uses (the "
            "chapter's own definitions): run it first. The visible tests only check that your "
            "variables exist and have the right type. The grading recomputes what your answer claims "
            "(the divergence at your noise, the conversion at your order) with independent exact "
            "arithmetic: there is no stored number to match, only the mathematics.",
            metadata=_meta("intro"),
        )
    ]
    for q in QUESTIONS:
        nb = nbformat.read(book / q.notebook, as_version=4)
        chapter = int(q.notebook[:2])
        prompt = f"## Chapter {chapter}: exercise `{q.label}`\n\n{exercise_statement(nb, q.label)}\n\n"
        if q.graded_part:
            prompt += q.graded_part + "\n\n"
        prompt += "Define:\n\n" + "\n".join(f"- `{v}`: {what}" for v, what in q.answers.items())
        cells += [
            new_md(prompt, metadata=_meta(f"{q.name}-prompt")),
            new_code("# setup\n" + q.setup, metadata=_meta(f"{q.name}-setup")),
            new_code(
                f"# Exercise {q.label}: define {', '.join(q.answers)}.\n"
                f"{SOLUTION_BEGIN}\n{reference_solution(q, book)}\n{SOLUTION_END}",
                metadata=_meta(f"{q.name}-answer", solution=True),
            ),
            *(
                new_code(_test_cell(q, k, judge), metadata=_meta(f"{q.name}-test-{k + 1}", grade=True, points=1))
                for k, judge in enumerate(q.hidden)
            ),
        ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


CONFIG = """\
# nbgrader's configuration of the RPP Book's assignment set (written by tools/assignments.py)
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "rpp-book"
c.CourseDirectory.root = {root!r}
c.Exchange.root = {exchange!r}
c.ExecutePreprocessor.timeout = 300
"""


def nbgrader(course: Path, *args: str) -> None:
    """Run one nbgrader command in the course folder ``course`` (its nbgrader_config.py)."""
    exe = Path(sys.executable).with_name("nbgrader")
    if not exe.exists():
        raise SystemExit(
            "nbgrader is not installed in this environment: it is in the developers' lock "
            "(`make venv` installs requirements-dev.txt)"
        )
    # nbgrader runs alembic (the gradebook's migrations) and the kernel from the PATH: this venv's
    env = {
        **os.environ,
        "PATH": f"{exe.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "JUPYTER_PREFER_ENV_PATH": "1",
    }
    subprocess.run([str(exe), *args], check=True, cwd=course, env=env)


def build(out: Path, book: Path = ROOT / "book") -> dict[str, Path]:
    """Write the course folder ``out``: the source notebook, and nbgrader's student version of it."""
    shutil.rmtree(out, ignore_errors=True)
    source = out / "source" / NAME
    source.mkdir(parents=True)
    (out / "nbgrader_config.py").write_text(CONFIG.format(root=str(out), exchange=str(out / "exchange")))
    nbformat.write(source_notebook(book), source / f"{NAME}.ipynb")
    nbgrader(out, "generate_assignment", NAME, "--force")
    return {
        "course": out,
        "source": source / f"{NAME}.ipynb",
        "student": out / "release" / NAME / f"{NAME}.ipynb",
        "gradebook": out / "gradebook.db",
    }


def autograde(course: Path, submissions: dict[str, Path]) -> dict[str, dict[str, float]]:
    """Autograde ``{student id: notebook}`` in the course folder; the score of every test cell of each."""
    from nbgrader.api import Gradebook

    for student, notebook in submissions.items():
        folder = course / "submitted" / student / NAME
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(notebook, folder / f"{NAME}.ipynb")
    nbgrader(course, "autograde", NAME, "--create", "--force")
    scores: dict[str, dict[str, float]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student in submissions:
            scores[student] = {
                f"{q.name}-test-{k + 1}": gb.find_grade(f"{q.name}-test-{k + 1}", NAME, NAME, student).score
                for q in QUESTIONS
                for k in range(len(q.hidden))
            }
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "assignments")
    parser.add_argument(
        "--check", action="store_true", help="then autograde the reference solutions (full marks expected)"
    )
    args = parser.parse_args(argv)
    paths = build(args.out.resolve())
    for kind, path in paths.items():
        print(f"{kind:10s} {path}")
    if args.check:
        scores = autograde(paths["course"], {"reference": paths["source"]})["reference"]
        total = sum(len(q.hidden) for q in QUESTIONS)
        got = sum(scores.values())
        print(f"reference solutions: {got:g} of {total} points")
        if got != total:
            print({k: v for k, v in scores.items() if v != 1}, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
