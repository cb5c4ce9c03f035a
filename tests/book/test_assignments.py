"""The assignment set (tools/assignments.py, `make assignments`): its judges accept the book's own
solutions and reject planted wrong ones (under-noising calibrations, a conversion with the wrong
sign, a count off by one, a limit in the wrong order...); nbgrader's student version leaks no hidden test and no solution; nbgrader's autograder gives
the reference full marks and fails the planted answers.

The judges' tests need no grader. The nbgrader tests need nbgrader, a developers' tool (pyproject's
``[dev]`` extra, requirements-dev.txt): a tooling test, which the other environments' unit phase
(.ci/unit_phase, installed from ``.[test]``) leaves out.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import assignments as asg

QUESTIONS = {q.name: q for q in asg.QUESTIONS}

# Planted wrong solutions: the book's solution with one edit (old text -> new text); the
# autograder test plants the first of each question.
_LOOP = "    lo_br, hi_br = (mid, hi_br) if protected else (lo_br, mid)"
PLANTED = {
    # under-noising calibrations: the noise scale 1 % too small
    "ch3_class_calibration": [("th2_small = max(", "th2_small = 0.99**2 * max(")],
    "ch1_calibrate": [("e0_wide = e0_root", "e0_wide = 1.01 * e0_root")],
    # the (eps', delta) conversion with the wrong sign: eps(alpha) - log(1/delta) / (alpha - 1)
    "ch2_best_alpha": [("best = a_star / (2 * theta2) + lg", "best = a_star / (2 * theta2) - lg")],
    "ch4_crossmass": [("ex = calibrate(", "ex = 0.99 * calibrate(")],
    "ch5_laplace_scales": [("m: calibrate(", "m: 0.99 * calibrate(")],
    "ch6_box": [
        ("theta_box = [", "theta_box = [0.99 *"),
        # no Bonferroni correction: each interval at 95 %, a smaller box
        ("lvl = 1 - 0.05 / 4", "lvl = 0.95"),
    ],
    "ch7_break_class": [
        # eps_DP 1 % too large (too little noise)
        (_LOOP, _LOOP + "\nlo_br *= 1.01"),
        # the bisection's unprotected end, about 2e-9 above the root
        (_LOOP, _LOOP + "\nlo_br = hi_br"),
    ],
    "ch8_mqm": [
        # eps_DP from the end node's sigma, the smallest of the nodes, not the largest
        ("eps_dp4 = 1 / s_max4", "eps_dp4 = 1 / s_nodes4[0]"),
        (
            "s_max4, s_nodes4 = pf.mqm_sigma_chain(P_h4, 4, 4.0)",
            "s_max4, s_nodes4 = pf.mqm_sigma_chain(P_h4, 4, 4.0)\ns_max4 = min(s_nodes4)",
        ),
    ],
    "ch9_domain_edge": [
        # off by one: the last finite number of releases, not the first infinite one
        ("int(np.floor(count)) + 1", "int(np.floor(count))"),
        # the wrong order of the limit: D_3(j || i) between the priors (infinite)
        (
            "rpp.gaussian_renyi(p_i.mean, p_i.var, p_j.mean, p_j.var, ALPHA_C)",
            "rpp.gaussian_renyi(p_j.mean, p_j.var, p_i.mean, p_i.var, ALPHA_C)",
        ),
    ],
}
PLANTED_CASES = [(name, k) for name, edits in PLANTED.items() for k in range(len(edits))]


def _planted(name: str, k: int = 0) -> str:
    old, new = PLANTED[name][k]
    source = asg.reference_solution(QUESTIONS[name])
    assert source.count(old) == 1, f"the planted edit of {name} no longer applies: {old!r}"
    # without the book's own checks (a student's answer has none; they would catch the error first)
    return "\n".join(ln for ln in source.replace(old, new).splitlines() if not ln.lstrip().startswith("assert "))


def _judge(q: asg.Question, solution: str) -> list[bool]:
    """Run the setup and a solution, then each hidden judge; True where the judge accepts."""
    ns: dict = {}
    exec(q.setup, ns)
    exec(solution, ns)
    exec(q.public, ns)
    verdicts = []
    for judge in q.hidden:
        try:
            exec(asg.JUDGES + "\n\n" + judge, dict(ns))
        except AssertionError:
            verdicts.append(False)
        else:
            verdicts.append(True)
    return verdicts


@pytest.mark.parametrize("name", list(QUESTIONS))
def test_judges_accept_the_books_solution(name):
    q = QUESTIONS[name]
    assert _judge(q, asg.reference_solution(q)) == [True] * len(q.hidden)


@pytest.mark.parametrize(("name", "k"), PLANTED_CASES)
def test_judges_reject_planted_wrong_solutions(name, k):
    q = QUESTIONS[name]
    verdicts = _judge(q, _planted(name, k))
    assert not all(verdicts), f"{name}: planted wrong answer {k} passed every judge"


def test_judges_do_not_use_rpp():
    # the judges are independent of the package they grade
    sources = [asg.JUDGES, *(j for q in asg.QUESTIONS for j in q.hidden)]
    assert not any(re.search(r"\brpp\b", s) for s in sources)


def test_statements_are_plain_text():
    for q in asg.QUESTIONS:
        text = asg.exercise_statement(nbformat.read(asg.ROOT / "book" / q.notebook, as_version=4), q.label)
        assert text and not re.search(r"\{[\w:-]+\}`|^:::|^:label:", text, re.M), q.label


# ---------------------------------------------------------------- with nbgrader


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return asg.build(tmp_path_factory.mktemp("assignments") / "course")


def test_student_version_leaks_nothing(built):
    student = nbformat.read(built["student"], as_version=4)
    text = "\n".join(c.source for c in student.cells)
    assert asg.HIDDEN_BEGIN not in text and asg.SOLUTION_BEGIN not in text
    assert "_mp." not in text and "def _gauss_renyi" not in text  # no judge
    visible = {ln.strip() for c in student.cells for ln in c.source.splitlines()}
    setup = {ln.strip() for q in asg.QUESTIONS for ln in q.setup.splitlines()}
    for q in asg.QUESTIONS:
        for line in asg.reference_solution(q).splitlines():
            line = line.strip()
            if len(line) >= 12 and line not in setup:  # short lines (")", "return ...") say nothing
                assert line not in visible, f"{q.label}: solution line in the student notebook: {line!r}"
    answers = [c for c in student.cells if c.source.startswith("# Exercise ")]
    assert len(answers) == len(asg.QUESTIONS)
    assert all("raise NotImplementedError()" in c.source for c in answers)


def _submission(source: Path, edits: dict[str, str], out: Path) -> Path:
    """The source notebook with the answer cells of ``edits`` replaced (question name -> solution)."""
    nb = nbformat.read(source, as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        name = grade_id.removesuffix("-answer")
        if grade_id.endswith("-answer") and name in edits:
            cell.source = f"# Exercise: {name}\n{edits[name]}"
    nbformat.write(nb, out)
    return out


@pytest.mark.slow
def test_autograder_full_marks_for_reference_and_fails_planted(built, tmp_path):
    planted = _submission(built["source"], {name: _planted(name) for name in PLANTED}, tmp_path / "planted.ipynb")
    scores = asg.autograde(built["course"], {"reference": built["source"], "planted": planted})
    assert all(v == 1 for v in scores["reference"].values()), scores["reference"]
    for name, q in QUESTIONS.items():
        got = [scores["planted"][f"{name}-test-{k + 1}"] for k in range(len(q.hidden))]
        if name in PLANTED:
            assert min(got) == 0, f"{name}: the planted wrong answer got full marks"
        else:
            assert got == [1] * len(q.hidden)  # the other answers are the book's
