"""Sphinx extension of The RPP Book: how a name in an ``rpp`` docstring finds its documentation.

Loaded through ``_config.yml`` (``sphinx: local_extensions: api_xref: tools/``).

The API appendix (``book/api.md``, written by ``tools/api_reference.py``) documents each public
name once, where the package exports it: ``rpp.accounting.dp_epsilon``, not
``rpp.accounting.conversions.dp_epsilon``; each public submodule is documented after its package
with its docstring and the names the package does not re-export. A docstring, though, is written
in its own module: ``rpp/divergence/renyi.py`` says :func:`gaussian_renyi` and
``rpp/accounting/budget.py`` may say :func:`rpp.accounting.releases.calibrate_releases`. Sphinx's
Python domain looks a short name up only in the current module, so both would be unresolved.

On Sphinx's ``missing-reference`` event, for a Python reference that the domain could not
resolve, this extension tries, in order,

1. the target with one of its inner module components removed, the innermost first
   (``rpp.accounting.releases.calibrate_releases`` -> ``rpp.accounting.calibrate_releases``;
   ``rpp.accounting.budget.ReleaseBudget.release`` -> ``rpp.accounting.ReleaseBudget.release``);
2. the target in each package enclosing the current module, the nearest first
   (``gaussian_renyi`` written in ``rpp.divergence.renyi`` -> ``rpp.divergence.gaussian_renyi``,
   then ``rpp.gaussian_renyi``).

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
    """The targets to try for an unresolved Python reference, best first."""
    parts = target.split(".")
    if parts[0] in ("rpp", "rpp_book"):
        for k in range(len(parts) - 2, 0, -1):
            yield ".".join(parts[:k] + parts[k + 1 :])
    elif module and module.startswith("rpp"):
        mod = module.split(".")
        for k in range(len(mod) - 1, 0, -1):
            yield ".".join([*mod[:k], target])


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
