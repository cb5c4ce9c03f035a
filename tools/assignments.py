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
a noise 0.1 % smaller would not (near-minimal); a conversion or a level when it equals the
independent value at the student's own argument. ``JUDGES`` holds their shared code, which every
hidden test cell runs, and ``tests/book/test_assignments.py`` runs the same judges on the
reference answers and on planted wrong ones (an under-noising calibration, a conversion with the
wrong sign), without and with nbgrader.

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

            from rpp.pufferfish.finite import product_channel, pufferfish_epsilon, randomized_response


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
            from rpp.pufferfish.finite import randomized_response
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
            from rpp.rules.gaussian import closed_form_variance
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
