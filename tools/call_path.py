"""The path of one divergence call through ``rpp``, traced: which files it visits, in what order.

The API appendix's Design section draws the path of two calls from this trace (so the picture is
what the code does, not what it was meant to do), and ``tests/test_layers.py`` checks that no call
on these paths climbs back up the layers of ``pyproject.toml``'s import-linter contract except a
*callback*: a function the caller was handed as an argument (``_lib.numerics.integrate_log``
evaluating the integrand that ``divergence`` passed it).

A *step* is a call from one file of ``rpp`` into another (calls inside one file are not steps).
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "rpp"


@dataclass(frozen=True)
class Step:
    """A call from ``caller`` (a file of rpp, relative to rpp/) into ``callee`` (another file)."""

    caller: str
    callee: str
    function: str
    callback: bool  # the callee is a function the caller holds in a local variable (an argument)


def _relative(filename: str) -> str | None:
    try:
        return Path(filename).resolve().relative_to(PKG).as_posix()
    except ValueError:
        return None


def trace(call: Callable[[], Any]) -> list[Step]:
    """The steps of ``call()`` between files of rpp, in order (``sys.setprofile``)."""
    steps: list[Step] = []

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call" or frame.f_back is None:
            return
        callee, caller = _relative(frame.f_code.co_filename), _relative(frame.f_back.f_code.co_filename)
        if callee is None or caller is None or callee == caller:
            return
        held = {getattr(v, "__code__", None) for v in frame.f_back.f_locals.values() if callable(v)}
        steps.append(Step(caller, callee, frame.f_code.co_name, frame.f_code in held))

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return steps


def layer_rows() -> dict[str, int]:
    """{top-level name of rpp: row of the layers contract} (row 0 is the top)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    rows = {}
    for k, layer in enumerate(contract["layers"]):
        for name in layer.replace(":", "|").split("|"):
            rows[name.strip().strip("()")] = k
    return rows


def top(path: str) -> str:
    """The top-level package or module of a file of rpp: ``divergence/_renyi.py`` -> ``divergence``."""
    return path.split("/")[0].removesuffix(".py")


def climbs(steps: list[Step], rows: dict[str, int] | None = None) -> list[Step]:
    """The steps that call a file of a higher layer than the caller's, callbacks excepted."""
    rows = layer_rows() if rows is None else rows
    out = []
    for s in steps:
        a, b = top(s.caller), top(s.callee)
        if a in rows and b in rows and rows[b] < rows[a] and not s.callback:
            out.append(s)
    return out


def files(steps: list[Step]) -> list[str]:
    """The files the path visits, in order of first visit (the first caller first)."""
    seen: list[str] = []
    for s in steps:
        for f in (s.caller, s.callee):
            if f not in seen:
                seen.append(f)
    return seen


def examples() -> dict[str, Callable[[], Any]]:
    """The calls the Design section draws: a noise object's divergence of two mixtures, estimated and proved."""
    import rpp

    p = rpp.GaussianMixture(weights=[0.5, 0.5], means=[0.0, 2.0], vars=[1.0, 0.5])
    q = rpp.GaussianMixture(weights=[0.3, 0.7], means=[0.5, 1.5], vars=[1.0, 0.5])
    noise = rpp.GaussianNoise(1.0)

    def estimate() -> Any:
        return noise.divergence(p, q, alpha=2.0)

    def proved() -> Any:
        return rpp.renyi_divergence(p, q, alpha=2.0, noise=noise, require="proved")

    return {
        "GaussianNoise(1.0).divergence(P, Q, alpha=2.0)  # two mixtures: an estimate": estimate,
        'renyi_divergence(P, Q, alpha=2.0, noise=GaussianNoise(1.0), require="proved")': proved,
    }


def path_lines(steps: list[Step]) -> list[str]:
    """The path as text: one line a step, indented by how many files deep the call is."""
    out, stack = [], []
    for s in steps:
        while stack and stack[-1] != s.caller:
            stack.pop()
        if not stack:
            stack.append(s.caller)
            out.append(s.caller)
        note = "  (callback)" if s.callback else ""
        out.append("  " * len(stack) + f"-> {s.callee}: {s.function}{note}")
        stack.append(s.callee)
    # a file called again and again in a row (a loop over components) is drawn once
    return [line for k, line in enumerate(out) if k == 0 or line != out[k - 1]]


def run_examples() -> dict[str, list[Step]]:
    """Each example traced after one warm-up call (imports, caches emptied after it)."""
    import rpp

    out = {}
    for name, call in examples().items():
        call()
        rpp.clear_caches()
        out[name] = trace(call)
    return out
