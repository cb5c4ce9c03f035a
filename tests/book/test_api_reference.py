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


def test_every_public_name_is_documented_once_in_its_home():
    """Each documented home's __all__ is documented by its section's automodule; no private module
    (rpp.divergence._renyi) has a section; each curated top-level name is listed as an alias."""
    import rpp

    api_reference = _tool("api_reference")
    text = api_reference.TARGET.read_text(encoding="utf-8")
    for package, *_ in api_reference.SECTIONS:
        assert f".. automodule:: {package}\n   :members:\n" in text, package
        assert text.count(f".. automodule:: {package}\n") == 1, package
        assert not api_reference._public_submodules(package), package
    assert ".. automodule:: rpp.sampling\n" in text  # the secure sampler has its own section
    assert ".. automodule:: rpp.accounting._" not in text and ".. automodule:: rpp.divergence._" not in text
    for name in rpp.__all__:
        obj = getattr(rpp, name)
        if isinstance(obj, type(rpp)) or rpp._LAZY[name].startswith("._lib"):
            continue
        assert f"- `rpp.{name}`: " in text, name
        assert f".. autofunction:: rpp.{name}\n" not in text and f".. autoclass:: rpp.{name}\n" not in text


def test_a_short_or_submodule_name_is_looked_up_through_the_packages_that_export_it():
    api_xref = _tool("api_xref")
    assert list(api_xref.candidates("rpp.calibration._search.calibrate", None)) == [
        "rpp.calibration.calibrate",
        "rpp._search.calibrate",
    ]
    assert list(api_xref.candidates("rpp.accounting._budget.ReleaseBudget.release", None))[1] == (
        "rpp.accounting.ReleaseBudget.release"
    )
    assert list(api_xref.candidates("rpp.calibrate", None)) == ["rpp.calibration.calibrate"]
    assert next(api_xref.candidates("rpp.Calibration.guaranteed", None)) == "rpp.calibration.Calibration.guaranteed"
    assert list(api_xref.candidates("gaussian_renyi", "rpp.divergence._renyi")) == [
        "rpp.divergence.gaussian_renyi",
        "rpp.gaussian_renyi",
    ]
    assert list(api_xref.candidates("Gaussian", "rpp")) == ["rpp.priors.Gaussian"]  # rpp's own docstring
    # Nothing outside rpp is guessed: other projects' names stay unresolved (and fail -n -W).
    assert list(api_xref.candidates("numpy.ndarray", None)) == []
    assert list(api_xref.candidates("gaussian_renyi", None)) == []
