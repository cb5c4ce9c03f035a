"""The book's tools (tools/*.py) import one another without a cycle.

Every ``import x`` / ``from x import ...`` of a tools module that names another tools module, at
module level or inside a function, is an edge; the graph must be acyclic (issue #37: the Jupyter
and student editions imported each other). The student edition's source step
(``student_edition``) and the chapter list (``book_toc``) import no other tool.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools"


def _graph() -> dict[str, set[str]]:
    names = {p.stem for p in TOOLS.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in TOOLS.glob("*.py"):
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                edges.add(node.module.split(".")[0])
        graph[path.stem] = (edges & names) - {path.stem}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph[n]):
            if state.get(m) == 1:
                return [*stack[stack.index(m) :], m]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)):
            return found
    return None


def test_the_tools_import_each_other_without_a_cycle():
    assert _cycle(_graph()) is None, f"import cycle among tools/: {' -> '.join(_cycle(_graph()))}"


def test_the_finder_of_cycles_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_student_step_and_the_chapter_list_import_no_other_tool():
    graph = _graph()
    assert graph["student_edition"] == set()
    assert graph["book_toc"] == set()
    assert {"student_edition", "book_toc"} <= graph["jupyter_edition"]
