#!/usr/bin/env python
"""The configuration of ``make page NB=book/NN_slug.ipynb``: the whole book, one chapter executed.

Usage (the Makefile's ``page`` target runs it)::

    .venv/bin/python tools/page_config.py book/07_composition.ipynb _build/page-07_composition/_config.yml

The page build reads the whole table of contents, so every label of the other chapters
(``{prf:ref}``, ``{numref}``, ``{eq}``, ``{ref}``) resolves with the number the book gives it,
and warnings stay errors. Only the chosen page is executed (through its own execution cache,
in the page's output folder); the other chapter notebooks are rendered from their stored
outputs (``execute.exclude_patterns``; a MyST-Markdown notebook such as the Status appendix,
which stores no outputs, shows its code alone), so the build costs the chosen chapter's run time plus
about a minute of reading and writing. The file written is ``_config.yml`` with that one
change and the paths of the local extensions (``tools/``) made absolute.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def toc_notebooks(root: Path = ROOT) -> list[str]:
    """The notebooks of ``_toc.yml`` (``book/NN_slug.ipynb``), in its order."""
    from book_toc import toc_chapters

    return [p.resolve().relative_to(root.resolve()).as_posix() for p in toc_chapters(root)]


def page_config(page: str, root: Path = ROOT) -> dict:
    """``_config.yml`` for a build of the whole book that executes ``page`` only.

    Raises
    ------
    ValueError
        If ``page`` is not a page of ``_toc.yml``.
    """
    sys.path.insert(0, str(root / "tools"))
    page = Path(page).as_posix().removeprefix("./")
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    from book_html import _toc_files

    listed = _toc_files(yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8")))
    if Path(page).with_suffix("").as_posix() not in {Path(f).with_suffix("").as_posix() for f in listed}:
        raise ValueError(f"{page} is not a page of _toc.yml: add it there first (tools/new_chapter.py)")
    execute = config.setdefault("execute", {})
    executable = toc_notebooks(root) + [
        f"{doc}.md"
        for doc in sorted({Path(f).with_suffix("").as_posix() for f in listed})
        if (root / f"{doc}.md").is_file() and "{code-cell}" in (root / f"{doc}.md").read_text(encoding="utf-8")
    ]
    others = [nb for nb in executable if nb != page]
    execute["exclude_patterns"] = sorted(set(execute.get("exclude_patterns") or []) | set(others))
    local = config.get("sphinx", {}).get("local_extensions") or {}
    for name, folder in local.items():
        if not Path(folder).is_absolute():
            local[name] = str((root / folder).resolve()) + "/"
    return config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", help="the page to execute, e.g. book/07_composition.ipynb")
    parser.add_argument("out", type=Path, help="the configuration file to write")
    args = parser.parse_args(argv)
    try:
        config = page_config(args.page)
    except ValueError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
