"""The chapters of The RPP Book in reading order, read from ``_toc.yml`` (one reader for every tool).

Used by the editions (``tools/jupyter_edition.py``, ``tools/student_edition.py``), the one-page
build (``tools/page_config.py``) and the checks of ``tests/``, ``notebook_tests/`` and
``browser_tests/``.
"""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def toc_chapters(root: Path = ROOT) -> list[Path]:
    """The chapter notebooks listed in ``_toc.yml``, in reading order."""

    def names(node):
        if isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    yield node[key]
            for value in node.values():
                if isinstance(value, (list, dict)):
                    yield from names(value)
        elif isinstance(node, list):
            for item in node:
                yield from names(item)

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    paths = (root / f"{name.removesuffix('.ipynb')}.ipynb" for name in names(toc))
    return list(dict.fromkeys(p for p in paths if p.is_file()))
