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


def _tool(name):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


def test_every_public_name_of_every_documented_module_is_in_the_appendix():
    """A submodule's __all__ is documented once: by its package's namespace or under the submodule."""
    import importlib

    api_reference = _tool("api_reference")
    text = api_reference.TARGET.read_text(encoding="utf-8")
    missing = []
    for package, *_ in api_reference.SECTIONS:
        exported = set(api_reference._members(package))
        for sub, extra in api_reference._submodules(package):
            if f".. automodule:: {sub}\n" not in text:
                missing.append(sub)
            for name in importlib.import_module(sub).__all__:
                if name not in exported and name not in extra:
                    missing.append(f"{sub}.{name}")
                if name in extra and f"{name}" not in text:
                    missing.append(f"{sub}.{name}")
    assert not missing, missing
    assert ".. automodule:: rpp.sampling\n" in text  # the secure sampler has its own section
    assert ".. automodule:: rpp.accounting.conversions\n" in text


def test_a_short_or_submodule_name_is_looked_up_through_the_packages_that_export_it():
    api_xref = _tool("api_xref")
    assert list(api_xref.candidates("rpp.accounting.releases.calibrate_releases", None)) == [
        "rpp.accounting.calibrate_releases",
        "rpp.releases.calibrate_releases",
    ]
    assert list(api_xref.candidates("rpp.accounting.budget.ReleaseBudget.release", None))[1] == (
        "rpp.accounting.ReleaseBudget.release"
    )
    assert list(api_xref.candidates("gaussian_renyi", "rpp.divergence.renyi")) == [
        "rpp.divergence.gaussian_renyi",
        "rpp.gaussian_renyi",
    ]
    # Nothing outside rpp is guessed: other projects' names stay unresolved (and fail -n -W).
    assert list(api_xref.candidates("numpy.ndarray", None)) == []
    assert list(api_xref.candidates("gaussian_renyi", None)) == []
