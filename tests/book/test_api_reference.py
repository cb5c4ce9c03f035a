"""The API appendix (book/api.md) is generated from the package and must be up to date."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_api_appendix_is_generated_from_the_package():
    done = subprocess.run(
        [sys.executable, "tools/api_reference.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr + "\nrun `make api` and commit book/api.md"


def test_the_check_fails_on_a_stale_page(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import api_reference
    finally:
        sys.path.pop(0)
    stale = tmp_path / "api.md"
    stale.write_text(api_reference.render().replace("## Design", "## Old design"), encoding="utf-8")
    monkeypatch.setattr(api_reference, "TARGET", stale)
    assert api_reference.main(["--check"]) == 1
    monkeypatch.setattr(api_reference, "TARGET", tmp_path / "fresh.md")
    assert api_reference.main([]) == 0
    assert api_reference.main(["--check"]) == 0
