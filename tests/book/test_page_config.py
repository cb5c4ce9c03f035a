"""``make page`` reads the whole book and executes one page (tools/page_config.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("page_config", ROOT / "tools" / "page_config.py")
page_config = importlib.util.module_from_spec(spec)
sys.modules["page_config"] = page_config
spec.loader.exec_module(page_config)


@pytest.mark.parametrize("page", ["book/07_composition.ipynb", "./book/03_gaussian_priors.ipynb", "book/status.md"])
def test_only_the_page_is_executed_and_everything_else_is_the_book(page):
    config = page_config.page_config(page)
    book = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    excluded = config["execute"]["exclude_patterns"]
    chapters = page_config.toc_notebooks()
    page = page.removeprefix("./")
    assert page not in excluded
    assert set(chapters) - {page} <= set(excluded)
    assert ("book/status.md" in excluded) == (page != "book/status.md")  # a MyST-Markdown notebook
    for name, folder in config["sphinx"]["local_extensions"].items():
        assert Path(folder).is_absolute() and (Path(folder) / f"{name}.py").is_file(), (name, folder)
    # nothing else of the book's configuration changes
    for key in ("execute", "sphinx"):
        config.pop(key), book.pop(key)
    assert config == book


def test_a_page_outside_the_toc_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"not a page of _toc\.yml"):
        page_config.page_config("book/10_scratch.ipynb")
    assert page_config.main(["book/10_scratch.ipynb", str(tmp_path / "c.yml")]) == 2
    assert not (tmp_path / "c.yml").exists()
