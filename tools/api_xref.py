"""Sphinx extension of The RPP Book: how a name in an ``rpp`` docstring finds its documentation.

Loaded through ``_config.yml`` (``sphinx: local_extensions: api_xref: tools/``).

The API appendix (``book/api.md``, written by ``tools/api_reference.py``) documents each public
name once, in its home (issue #37, one path per name): ``rpp.accounting.dp_epsilon``, a name of
the namespace of ``rpp.accounting``, whose modules are private. A reference, though, may be
written otherwise: the book and the docstrings say :func:`rpp.calibrate`, a curated alias of
:func:`rpp.calibration.calibrate`; a docstring is written in its own (private) module, so
``rpp/divergence/_renyi.py`` says :func:`gaussian_renyi`; and Sphinx writes the annotations of a
signature by the object's module, ``rpp.calibration._result.Calibration``. Sphinx's Python
domain looks a short name up only in the current module, so all three would be unresolved.

On Sphinx's ``missing-reference`` event, for a Python reference that the domain could not
resolve, this extension tries, in order,

1. a curated top-level name at its home (``rpp._LAZY``: ``rpp.calibrate`` ->
   ``rpp.calibration.calibrate``; ``rpp.Calibration.guaranteed`` ->
   ``rpp.calibration.Calibration.guaranteed``);
2. the target with one of its inner module components removed, the innermost first
   (``rpp.calibration._result.Calibration`` -> ``rpp.calibration.Calibration``;
   ``rpp.accounting._budget.ReleaseBudget.release`` -> ``rpp.accounting.ReleaseBudget.release``);
3. the target in each package enclosing the current module, the nearest first
   (``gaussian_renyi`` written in ``rpp.divergence._renyi`` -> ``rpp.divergence.gaussian_renyi``,
   then ``rpp.gaussian_renyi``), then as a curated name of ``rpp`` (``Gaussian`` written in
   ``rpp`` -> ``rpp.priors.Gaussian``).

Only names the appendix really documents can match (the domain resolves each candidate exactly),
so a reference to a name that does not exist still fails the nitpicky build (``-n -W``).
"""

from __future__ import annotations

from collections.abc import Iterator

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment


def candidates(target: str, module: str | None) -> Iterator[str]:
    """The targets to try for an unresolved Python reference, best first (each once)."""
    seen: set[str] = set()
    for candidate in _candidates(target, module):
        if candidate not in seen:
            seen.add(candidate)
            yield candidate


def _candidates(target: str, module: str | None) -> Iterator[str]:
    parts = target.split(".")
    if parts[0] == "rpp" and len(parts) > 1:
        import rpp

        home = rpp._LAZY.get(parts[1])
        if home is not None and home[1:] != parts[1]:  # a curated name, not a subpackage
            yield "rpp" + home + "." + ".".join(parts[1:])
    if parts[0] in ("rpp", "rpp_book"):
        for k in range(len(parts) - 2, 0, -1):
            yield ".".join(parts[:k] + parts[k + 1 :])
    elif module and module.startswith("rpp"):
        mod = module.split(".")
        for k in range(len(mod) - 1, 0, -1):
            yield ".".join([*mod[:k], target])
        # then as a curated name of rpp: `Gaussian` in rpp's own docstring -> rpp.priors.Gaussian
        yield from _candidates(f"rpp.{target}", None)


def resolve(app: Sphinx, env: BuildEnvironment, node: pending_xref, contnode: nodes.Element) -> nodes.Element | None:
    """Resolve a Python reference through the package that exports its name (see the module docstring)."""
    if node.get("refdomain") != "py":
        return None
    domain = env.get_domain("py")
    target = node["reftarget"].lstrip("~.")
    for candidate in candidates(target, node.get("py:module")):
        found = domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], candidate, node, contnode)
        if found is not None:
            return found
    return None


def setup(app: Sphinx) -> dict:
    """Register the ``missing-reference`` handler."""
    app.connect("missing-reference", resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
