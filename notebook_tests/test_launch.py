"""The launch path, end to end and offline: a reader's fresh environment installs the ``rpp`` of
the notebook's commit from its first cell, then runs the chapter.

1. The repository is cloned into a temporary folder and a commit is added there that ships a
   probe module (``rpp/_launch_probe.py`` holding a random token): only an ``rpp`` installed from
   *that* commit has it.
2. The Jupyter edition of that commit is published onto the clone's branch ``jupyter``
   (``tools/jupyter_edition.py --publish``, as in the README's "Releasing"), with the clone as its
   repository: a chapter's first cell installs ``rpp-book[extras] @ git+file://<clone>@<sha>``.
3. A fresh virtual environment (``python -m venv``, no ``rpp-book`` in it) sees the book's
   pinned third-party packages through a ``.pth`` file pointing to an overlay of ``.venv``'s
   site-packages without ``rpp-book`` (no network: the packages are not downloaded, and pip runs
   with ``PIP_NO_INDEX``; build isolation off, so setuptools comes from the overlay too).
4. The notebook runs in a fresh kernel of that environment, from a folder outside the repository:
   the launch cell's ``%pip install`` really installs ``rpp`` from the clone; a last cell reports
   where ``rpp`` was imported from, the probe's token and the commit pip recorded
   (``direct_url.json``), which must be the venv's site-packages, the token and the clone's HEAD.

Chapters 1 (the quickest) and 4 (which imports ``ot``): both launch cells ask for ``[chapters]``,
which includes ``[ot]``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import book_toc
import jupyter_edition

CHAPTERS = {"01_pufferfish": ["chapters"], "04_mixture_priors": ["chapters"]}
#: The chapters of CHAPTERS that import the book support (rpp_book, the distribution rpp-book-support).
SUPPORT = {"04_mixture_priors"}

REPORT = """\
import json, importlib.metadata as _m, rpp, rpp._launch_probe as _probe
_d = _m.distribution("rpp-book")
print("LAUNCH-REPORT " + json.dumps({"rpp": rpp.__file__, "token": _probe.TOKEN,
    "direct_url": json.loads(_d.read_text("direct_url.json") or "{}")}))
"""


def _git(*args, cwd: Path) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=launch test", "-c", "user.email=launch@test.invalid", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture(scope="module")
def index():
    return jupyter_edition.BookIndex.load(ROOT)


@pytest.fixture(scope="module")
def clone(tmp_path_factory, index) -> tuple[Path, str, str]:
    """(clone, sha, token): the repository's HEAD plus one commit with the probe module, and
    the Jupyter edition of that commit published onto the clone's branch ``jupyter`` (as the
    README's "Releasing" does), with the clone as the repository the launch cells install from."""
    clone = tmp_path_factory.mktemp("launch") / "clone"
    _git("clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone), cwd=ROOT)
    # publish() commits with git's own identity: give the clone one (CI runs with an empty HOME)
    _git("config", "user.name", "launch test", cwd=clone)
    _git("config", "user.email", "launch@test.invalid", cwd=clone)
    token = secrets.token_hex(8)
    (clone / "rpp" / "_launch_probe.py").write_text(f'TOKEN = "{token}"\n', encoding="utf-8")
    _git("add", "rpp/_launch_probe.py", cwd=clone)
    _git("commit", "--quiet", "-m", "launch probe", cwd=clone)
    sha = _git("rev-parse", "HEAD", cwd=clone)
    jupyter_edition.publish(clone, "jupyter", repo_url=f"file://{clone}", index=index)
    assert _git("rev-parse", "HEAD", cwd=clone) == sha and not _git("status", "--porcelain", cwd=clone)
    return clone, sha, token


def test_published_branch_holds_both_editions(clone):
    repo, sha, _ = clone
    files = set(_git("ls-tree", "-r", "--name-only", "jupyter", cwd=repo).splitlines())
    chapters = [p.name for p in book_toc.toc_chapters(ROOT)]
    assert files == {
        "README.md",
        "requirements.txt",
        "runtime.txt",
        "postBuild",
        *(f"book/{c}" for c in chapters),
        *(f"student/{c}" for c in chapters),
    }, files
    assert sha in _git("show", "jupyter:README.md", cwd=repo)


@pytest.fixture
def fresh_venv(request, tmp_path_factory) -> Path:
    """A new venv without rpp-book that sees the book's other packages through a .pth file.

    ``bundled-pip``: the pip that ``python -m venv`` installs (ensurepip's wheel, offline; pip
    23.2.1 on Python 3.11.7), what a reader who never upgrades pip has. ``locked-pip``: no pip of
    its own; the pip of the book's lock comes through the overlay.
    """
    base = tmp_path_factory.mktemp("venv")
    venv = base / "venv"
    bundled = request.param == "bundled-pip"
    subprocess.run([sys.executable, "-m", "venv", *([] if bundled else ["--without-pip"]), str(venv)], check=True)
    if bundled:
        # Python 3.11's venv also bundles setuptools 65, too old for pyproject's PEP 639 licence.
        # Online, pip builds rpp-book in an isolated environment with pyproject's build
        # requirements (setuptools >= 77) from the index; offline, with build isolation off, the
        # overlay's setuptools (the lock's) stands for that environment.
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "uninstall", "--quiet", "--yes", "setuptools"],
            check=True,
            env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        )
    overlay = base / "overlay"
    overlay.mkdir()
    ours = Path(sysconfig.get_paths()["purelib"])
    for entry in ours.iterdir():
        name = entry.name.lower()
        if name.startswith(("rpp_book", "__editable__", "rpp")) or name.endswith(".pth"):
            continue
        if bundled and (name == "pip" or name.startswith("pip-")):
            continue  # the venv's own pip, not the lock's
        (overlay / entry.name).symlink_to(entry)
    site = Path(
        subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (site / "book_packages.pth").write_text(f"{overlay}\n", encoding="utf-8")
    probe = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import importlib.metadata as m, importlib.util as u; "
            "print(u.find_spec('rpp') is None, u.find_spec('numpy') is not None); "
            "m.version('rpp-book')",
        ],
        capture_output=True,
        text=True,
        cwd=base,
    )
    assert probe.stdout.split() == ["True", "True"] and "PackageNotFoundError" in probe.stderr, (
        "the fresh venv must see numpy but neither rpp nor rpp-book:\n" + probe.stdout + probe.stderr
    )
    kernels = base / "jupyter" / "kernels" / "launch-venv"
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [str(venv / "bin" / "python"), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "fresh venv",
                "language": "python",
            }
        ),
        encoding="utf-8",
    )
    return venv


# Each pip once, each with the chapter that asks most of it: chapter 1 with the pip `python -m venv`
# bundles (the launch cell's requirement must parse with the oldest), chapter 4 (POT through the
# extras, and the book support from the same commit) with the lock's. Chapter 1 with the lock's pip
# too was a third install of the whole lock that tested nothing chapter 4's does not (CI time).
LAUNCHES = [("01_pufferfish", "bundled-pip"), ("04_mixture_priors", "locked-pip")]


@pytest.mark.parametrize(
    ("stem", "fresh_venv"), LAUNCHES, indirect=["fresh_venv"], ids=[f"{stem}-{pip}" for stem, pip in LAUNCHES]
)
def test_launch_cell_installs_the_commit_and_the_chapter_runs(clone, fresh_venv, index, stem, tmp_path, monkeypatch):
    from nbclient import NotebookClient

    repo, sha, token = clone
    nb = nbformat.reads(_git("show", f"jupyter:book/{stem}.ipynb", cwd=repo), as_version=4)  # as published
    first = nb.cells[0]
    assert jupyter_edition.LAUNCH_TAG in first.metadata.tags
    requirement = (
        f"rpp-book{'[' + ','.join(CHAPTERS[stem]) + ']' if CHAPTERS[stem] else ''} @ git+file://localhost{repo}@{sha}"
    )
    assert f'RPP_REQUIREMENT = "{requirement}"' in first.source, first.source
    # chapter 4 imports the book support (rpp_book): its launch cell installs it from the same commit
    support = f"rpp-book-support @ git+file://localhost{repo}@{sha}#subdirectory=support"
    assert (f'RPP_SUPPORT_REQUIREMENT = "{support}"' in first.source) == (stem in SUPPORT), first.source
    for cell in nb.cells:  # run from scratch: no stored output may hide a failure
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.cells.append(nbformat.v4.new_code_cell(REPORT))

    monkeypatch.setenv("JUPYTER_PATH", str(fresh_venv.parent / "jupyter"))
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # offline: nothing from an index
    monkeypatch.setenv("PIP_NO_BUILD_ISOLATION", "0")  # pip's spelling of --no-build-isolation
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    monkeypatch.setenv("PYTHONNOUSERSITE", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    run_dir = tmp_path / "run"  # outside the repository: no rpp/ folder to import from
    run_dir.mkdir()
    NotebookClient(nb, timeout=600, kernel_name="launch-venv", resources={"metadata": {"path": str(run_dir)}}).execute()

    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    report = json.loads(text.split("LAUNCH-REPORT ", 1)[1])
    assert Path(report["rpp"]).is_relative_to(fresh_venv), f"rpp imported from {report['rpp']}"
    assert report["token"] == token, "the installed rpp is not the clone's commit"
    assert report["direct_url"]["vcs_info"]["commit_id"] == sha
    assert report["direct_url"]["url"] == f"file://localhost{repo}"
    listing = subprocess.run(
        [str(fresh_venv / "bin" / "python"), "-m", "pip", "show", "rpp-book"],
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert "Location: " + str(fresh_venv) in listing.stdout, listing.stdout + listing.stderr
    if stem in SUPPORT:  # the book support too, from the clone's commit, into the fresh venv
        listing = subprocess.run(
            [str(fresh_venv / "bin" / "python"), "-m", "pip", "show", "rpp-book-support"],
            capture_output=True,
            text=True,
            env={**os.environ},
        )
        assert "Location: " + str(fresh_venv) in listing.stdout, listing.stdout + listing.stderr


def test_published_branch_builds_on_binder(clone):
    """repo2docker's rules for the branch Binder builds: ``runtime.txt`` names a ``python-X.Y`` that
    the lock resolves for (3.11-3.13), ``postBuild`` is executable and installs the published commit."""
    repo, sha, _ = clone
    runtime = _git("show", "jupyter:runtime.txt", cwd=repo)
    assert re.fullmatch(r"python-3\.(11|12|13)", runtime), runtime
    modes = {line.split()[-1]: line.split()[0] for line in _git("ls-tree", "jupyter", cwd=repo).splitlines()}
    assert modes["postBuild"] == "100755" and modes["runtime.txt"] == "100644", modes
    post = _git("show", "jupyter:postBuild", cwd=repo)
    assert post.startswith("#!/bin/sh") and "set -e" in post
    assert f'"rpp-book @ git+file://localhost{repo}@{sha}"' in post, post
    assert f'"rpp-book-support @ git+file://localhost{repo}@{sha}#subdirectory=support"' in post, post


@pytest.mark.parametrize("fresh_venv", ["bundled-pip"], indirect=True)
def test_binder_post_build_installs_the_commit(clone, fresh_venv, tmp_path):
    """Run the published ``postBuild`` as repo2docker does (its Python first on PATH), offline."""
    repo, sha, token = clone
    script = tmp_path / "postBuild"
    script.write_text(_git("show", "jupyter:postBuild", cwd=repo) + "\n", encoding="utf-8")
    script.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{fresh_venv / 'bin'}:{os.environ['PATH']}",
        "PIP_NO_INDEX": "1",
        "PIP_NO_BUILD_ISOLATION": "0",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "HOME": str(tmp_path),
    }
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(script)], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    probe = subprocess.run(
        [
            str(fresh_venv / "bin" / "python"),
            "-c",
            "import json, importlib.metadata as m, rpp._launch_probe as p; "
            "print(json.dumps([p.TOKEN, json.loads(m.distribution('rpp-book')"
            ".read_text('direct_url.json'))['vcs_info']['commit_id']]))",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert json.loads(probe.stdout) == [token, sha], probe.stdout + probe.stderr
    probe = subprocess.run(
        [str(fresh_venv / "bin" / "python"), "-c", "import rpp_book.data, rpp_book; print(rpp_book.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert probe.returncode == 0 and Path(probe.stdout.strip()).is_relative_to(fresh_venv), probe.stdout + probe.stderr
