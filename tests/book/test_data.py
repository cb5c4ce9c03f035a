"""Tests for rpp_book.data: the verified UCI loaders (packaged copy, mirror, cache, download).

The data ship with the book support rpp_book (support/rpp_book/data/uci/*.gz); nothing here reads ../shared or the network.
Mirror directories and UCI archives are made by the tests themselves from the packaged
copy (a session fixture decompresses it into a temporary directory). No test touches the
network: urllib.request.urlopen is replaced in every test (by a guard that fails the
test, by a fake server or a simulated outage), except the end-to-end download test, which
serves the archives from an HTTP server on 127.0.0.1.
"""

import functools
import gzip
import hashlib
import http.server
import io
import re
import shutil
import socket
import threading
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rpp_book import data
from rpp_book.data import _sources, _specs

REAL_URLOPEN = urllib.request.urlopen

ADULT = ["adult/adult.data", "adult/adult.test"]
HEART = [f"heart-disease/processed.{s}.data" for s in data.HEART_SOURCES]
STUDENT = ["student-performance/student-mat.csv", "student-performance/student-por.csv"]
ALL_FILES = ADULT + HEART + STUDENT
URL = data.ARCHIVE_URLS


# ------------------------------------------------------------------------ fixtures
PACKAGED = Path(str(_sources.packaged_dir()))


@pytest.fixture(scope="session")
def mirror(tmp_path_factory):
    """A mirror directory (uncompressed files, SHA256SUMS) made from the packaged copy."""
    root = tmp_path_factory.mktemp("uci-mirror")
    for gz in PACKAGED.rglob("*.gz"):
        rel = gz.relative_to(PACKAGED).with_suffix("")
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(gzip.decompress(gz.read_bytes()))
    shutil.copyfile(PACKAGED / "SHA256SUMS", root / "SHA256SUMS")
    return root


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    """No real network, no user cache, no inherited mirror setting."""

    def no_network(*args, **kwargs):
        raise AssertionError("the test touched the network (urllib.request.urlopen)")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    monkeypatch.delenv("RPP_DATA_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("RPP_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def cache(tmp_path):
    return tmp_path / "cache"


@pytest.fixture
def use_mirror(monkeypatch, mirror):
    monkeypatch.setenv("RPP_DATA_DIR", str(mirror))
    return mirror


@pytest.fixture
def mirror_copy(tmp_path, mirror, monkeypatch):
    """A writable copy of the mirror's data files, used as RPP_DATA_DIR."""
    dst = tmp_path / "mirror"
    for rel in ALL_FILES:
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(mirror / rel, dst / rel)
    monkeypatch.setenv("RPP_DATA_DIR", str(dst))
    return dst


def read(mirror, rel):
    return (mirror / rel).read_bytes()


def zip_bytes(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, payload in members.items():
            zf.writestr(name, payload)
    return buf.getvalue()


def uci_archives(mirror, override=None, prefix=""):
    """In-memory zips with the member names of the UCI archives."""
    files = {rel: read(mirror, rel) for rel in ALL_FILES}
    files.update(override or {})
    base = lambda rel: rel.split("/", 1)[1]
    adult = {prefix + base(r): files[r] for r in ADULT}
    adult[prefix + "adult.names"] = read(mirror, "adult/adult.names")
    heart = {prefix + base(r): files[r] for r in HEART}
    heart[prefix + "heart-disease.names"] = read(mirror, "heart-disease/heart-disease.names")
    student = {base(r): files[r] for r in STUDENT}
    student["student.txt"] = read(mirror, "student-performance/student.txt")
    return {
        URL["adult"]: zip_bytes(adult),
        URL["heart-disease"]: zip_bytes(heart),
        URL["student-performance"]: zip_bytes({prefix + "student.zip": zip_bytes(student)}),
    }


class FakeUCI:
    """Stands in for urllib.request.urlopen; records the URLs requested."""

    def __init__(self, archives):
        self.archives = archives
        self.calls = []

    def __call__(self, req, timeout=None):
        url = req.full_url if isinstance(req, urllib.request.Request) else req
        assert timeout is not None and timeout > 0, "downloads must have a timeout"
        self.calls.append(url)
        if url not in self.archives:
            raise urllib.error.HTTPError(url, 404, "Not Found", {}, None)
        return io.BytesIO(self.archives[url])


@pytest.fixture
def serve(monkeypatch):
    def install(archives):
        fake = FakeUCI(archives)
        monkeypatch.setattr(urllib.request, "urlopen", fake)
        return fake

    return install


def go_offline(monkeypatch, exc=None):
    def offline(*args, **kwargs):
        raise (
            exc
            if exc is not None
            else urllib.error.URLError(socket.gaierror(-3, "Temporary failure in name resolution"))
        )

    monkeypatch.setattr(urllib.request, "urlopen", offline)


# ------------------------------------------------------------------------ the mirror itself
def test_hash_table_is_the_packaged_sha256sums():
    sums = {}
    for line in (PACKAGED / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        sums[name.removeprefix("./")] = digest
    assert set(data.SHA256) == set(ALL_FILES) == set(data.LAYOUT)
    assert data.REWRITTEN <= set(ALL_FILES)
    for rel, digest in data.SHA256.items():
        assert sums[rel] == digest, rel
        raw = gzip.decompress((PACKAGED / (rel + ".gz")).read_bytes())
        assert hashlib.sha256(raw).hexdigest() == digest, rel
    # every packaged file (data and UCI's descriptions) is listed, and nothing else ships
    shipped = {str(p.relative_to(PACKAGED).with_suffix("")) for p in PACKAGED.rglob("*.gz")}
    assert shipped == set(sums)


def test_packaged_licence_notice_names_licence_creators_and_dois():
    text = (PACKAGED / "README.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in text
    for doi in ("10.24432/C5XW20", "10.24432/C52P4X", "10.24432/C5TG7T"):
        assert doi in text and doi in data.__doc__
    for creator in ("Becker", "Kohavi", "Janosi", "Detrano", "Cortez"):
        assert creator in text


def test_adult_columns_and_categories_match_adult_names(mirror):
    text = (mirror / "adult/adult.names").read_text()
    attrs = re.findall(r"^([a-z-]+): (.+)\.$", text, flags=re.M)
    assert [a for a, _ in attrs] + ["income"] == list(data.ADULT_COLUMNS)
    df_cats = _specs._ADULT_CATS
    for name, values in attrs:
        if values != "continuous":
            assert tuple(v.strip() for v in values.split(",")) == df_cats[name], name
    assert ">50K, <=50K." in text and set(df_cats["income"]) == {">50K", "<=50K"}


# ------------------------------------------------------------------------ loading from the mirror
@pytest.fixture(params=["package", "mirror"])
def any_source(request, monkeypatch, mirror):
    """The default source: the packaged copy, or a mirror named by RPP_DATA_DIR."""
    if request.param == "mirror":
        monkeypatch.setenv("RPP_DATA_DIR", str(mirror))
    return request.param


def test_adult(any_source):
    df = data.load_adult()
    assert df.shape == (48842, 16)
    assert list(df.columns) == [*data.ADULT_COLUMNS, "split"]
    assert df["split"].value_counts().to_dict() == {"train": 32561, "test": 16281}
    for col in ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]:
        assert df[col].dtype == np.int64, col
    assert isinstance(df["race"].dtype, pd.CategoricalDtype)
    # leading spaces stripped, "?" is NaN, test labels lose their trailing "."
    assert list(df["income"].cat.categories) == ["<=50K", ">50K"]
    assert df["income"].notna().all()
    assert df["income"].value_counts().to_dict() == {"<=50K": 37155, ">50K": 11687}
    for col in df.select_dtypes("category"):
        assert not any(str(c).startswith(" ") or c == "?" for c in df[col].cat.categories)
    assert df.isna().sum()[lambda s: s > 0].to_dict() == {"workclass": 2799, "occupation": 2809, "native-country": 857}
    assert df.iloc[0]["workclass"] == "State-gov" and df.iloc[0]["fnlwgt"] == 77516

    train = data.load_adult("train")
    test = data.load_adult("test")
    assert train.shape == (32561, 15) and test.shape == (16281, 15)
    assert "split" not in train and "split" not in test
    pd.testing.assert_frame_equal(df.iloc[32561:].drop(columns="split").reset_index(drop=True), test)
    # the README's reference statistics for adult.data
    assert train["race"].value_counts().to_dict() == {
        "White": 27816,
        "Black": 3124,
        "Asian-Pac-Islander": 1039,
        "Amer-Indian-Eskimo": 311,
        "Other": 271,
    }
    rel = train["relationship"].value_counts()
    assert (rel["Husband"], rel["Not-in-family"]) == (13193, 8305)
    assert round(train["education-num"].mean(), 4) == 10.0807
    # adult.names: rows without unknowns, train=30162, test=15060
    assert (len(train.dropna()), len(test.dropna())) == (30162, 15060)
    assert test.iloc[0]["income"] == "<=50K" and test.iloc[2]["income"] == ">50K"


def test_heart(any_source):
    cle = data.load_heart_disease()
    assert cle.shape == (303, 15)
    assert list(cle.columns) == [*data.HEART_COLUMNS, "source"]
    assert (cle["source"] == "cleveland").all()
    assert cle["slope"].value_counts().to_dict() == {1: 142, 2: 140, 3: 21}
    assert cle["fbs"].value_counts().to_dict() == {0: 258, 1: 45}
    assert cle.isna().sum()[lambda s: s > 0].to_dict() == {"ca": 4, "thal": 2}
    assert cle["num"].dtype == np.int64 and cle["chol"].dtype == np.float64

    every = data.load_heart_disease("all")
    assert every.shape == (920, 15)
    assert every["source"].value_counts().to_dict() == {
        "cleveland": 303,
        "hungarian": 294,
        "switzerland": 123,
        "va": 200,
    }
    assert list(every["source"].cat.categories) == list(data.HEART_SOURCES)
    pd.testing.assert_frame_equal(every.iloc[:303], cle)
    assert every.loc[every.source == "hungarian", "ca"].isna().sum() == 291

    two = data.load_heart_disease(["va", "cleveland"])
    assert len(two) == 503 and list(two["source"].iloc[[0, 200]]) == ["va", "cleveland"]
    assert len(data.load_heart_disease("switzerland")) == 123


def test_student(any_source):
    mat, por = data.load_student("mat"), data.load_student("por")
    assert mat.shape == (395, 33) and por.shape == (649, 33)
    assert list(mat.columns) == list(data.STUDENT_COLUMNS)
    assert (mat.select_dtypes("int64").shape[1], mat.select_dtypes("category").shape[1]) == (16, 17)
    assert round(mat["G3"].mean(), 4) == 10.4152 and round(por["G3"].mean(), 4) == 11.9060
    assert mat["schoolsup"].value_counts().to_dict() == {"no": 344, "yes": 51}
    assert por["schoolsup"].value_counts().to_dict() == {"no": 581, "yes": 68}
    assert mat["guardian"].value_counts().to_dict() == {"mother": 273, "father": 90, "other": 32}
    assert por["guardian"].value_counts().to_dict() == {"mother": 455, "father": 153, "other": 41}
    assert mat["G1"].dtype == np.int64  # quoted numbers in student-mat.csv are parsed
    both = data.load_student("both")
    assert both.shape == (1044, 34)
    assert both["subject"].value_counts().to_dict() == {"mat": 395, "por": 649}
    assert not both.isna().any().any()


@pytest.mark.parametrize(
    "call, arg",
    [
        (data.load_adult, "dev"),
        (data.load_adult, "Train"),
        (data.load_heart_disease, "mars"),
        (data.load_heart_disease, ["va", "mars"]),
        (data.load_heart_disease, []),
        (data.load_heart_disease, ["va", "va"]),
        (data.load_student, "bio"),
    ],
)
def test_bad_arguments_raise_value_error(call, arg):
    with pytest.raises(ValueError, match="must"):
        call(arg)


@pytest.mark.parametrize("source", ["mirror", "UCI", "", 1])
def test_bad_source_raises_value_error_naming_the_choices(source):
    with pytest.raises(ValueError, match=r"source must be None .* 'package' or 'uci'"):
        data.load_student(source=source)


def test_default_needs_no_environment_and_no_network(monkeypatch, tmp_path):
    """A fresh install: no RPP_DATA_DIR, an empty HOME, no cache, no network (guarded)."""
    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))
    monkeypatch.delenv("RPP_CACHE_DIR")
    assert len(data.load_heart_disease("all")) == 920
    assert len(data.load_student("both")) == 1044
    assert not (tmp_path / "empty-home").exists(), "the packaged copy must not write a cache"


def test_source_package_ignores_rpp_data_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("RPP_DATA_DIR", str(tmp_path / "nowhere"))
    assert len(data.load_student(source="package")) == 395
    with pytest.raises(data.DataUnavailableError):
        data.load_student()


# ------------------------------------------------------------------------ a damaged install
@pytest.fixture
def packaged_copy(tmp_path, monkeypatch):
    """A writable copy of the packaged data, used in place of the installed one."""
    dst = tmp_path / "installed" / "uci"
    shutil.copytree(PACKAGED, dst)
    monkeypatch.setattr(_sources, "packaged_dir", lambda: dst)
    return dst


def test_damaged_packaged_file_names_it_and_how_to_reinstall(packaged_copy):
    gz = packaged_copy / "adult/adult.data.gz"
    raw = gzip.decompress(gz.read_bytes()).replace(b"77516", b"77517", 1)  # content still valid
    gz.write_bytes(gzip.compress(raw, mtime=0))
    assert len(data.load_adult("test")) == 16281  # the other file is intact
    with pytest.raises(data.DataIntegrityError) as err:
        data.load_adult("both")
    msg = str(err.value)
    assert str(gz) in msg and "adult/adult.data" in msg and data.SHA256["adult/adult.data"] in msg
    assert "damaged" in msg and "pip install --force-reinstall --no-deps ./support" in msg
    assert "was not used" in msg and err.value.path == gz


def test_packaged_file_that_is_not_gzip(packaged_copy):
    gz = packaged_copy / "heart-disease/processed.va.data.gz"
    gz.write_bytes(gz.read_bytes()[:100])  # truncated install
    with pytest.raises(data.DataIntegrityError, match=r"not a valid gzip file.*Reinstall"):
        data.load_heart_disease("va")


def test_packaged_file_missing(packaged_copy):
    (packaged_copy / "student-performance/student-por.csv.gz").unlink()
    assert len(data.load_student("mat")) == 395
    with pytest.raises(data.DataUnavailableError, match=r"student-por\.csv\.gz is missing.*Reinstall"):
        data.load_student("both")


# ------------------------------------------------------------------------ damaged mirror files
def test_mirror_checksum_mismatch_is_caught(mirror_copy):
    path = mirror_copy / "adult/adult.data"
    raw = path.read_bytes()
    assert raw.startswith(b"39, State-gov, 77516,")
    path.write_bytes(raw.replace(b"77516", b"77517", 1))  # content checks cannot see this
    with pytest.raises(data.DataIntegrityError) as err:
        data.load_adult("train")
    msg = str(err.value)
    assert str(path) in msg and "adult/adult.data" in msg
    assert data.SHA256["adult/adult.data"] in msg
    assert hashlib.sha256(path.read_bytes()).hexdigest() in msg
    assert "RPP_DATA_DIR" in msg and "sha256sum -c" in msg
    assert len(err.value.problems) == 1 and err.value.problems[0].startswith("SHA-256")
    assert isinstance(err.value, ValueError)


def test_mirror_flipped_byte_in_heart_file(mirror_copy):
    path = mirror_copy / "heart-disease/processed.cleveland.data"
    raw = bytearray(path.read_bytes())
    raw[0] ^= 0x01  # "63.0" -> "73.0"
    path.write_bytes(bytes(raw))
    assert len(data.load_heart_disease("hungarian")) == 294  # other files unaffected
    with pytest.raises(data.DataIntegrityError, match="SHA-256: expected a74b7efa"):
        data.load_heart_disease("all")


def test_mirror_altered_category_is_named(mirror_copy):
    path = mirror_copy / "adult/adult.data"
    path.write_bytes(path.read_bytes().replace(b", White,", b", Whitf,", 1))
    with pytest.raises(data.DataIntegrityError) as err:
        data.load_adult()
    msg = str(err.value)
    assert "SHA-256" in msg and "column 'race'" in msg and "'Whitf'" in msg and "line 1:" in msg


@pytest.mark.parametrize(
    "rel, loader, expected",
    [
        ("adult/adult.data", lambda: data.load_adult("train"), "expected 32561 data rows, got 32461"),
        ("adult/adult.test", lambda: data.load_adult("test"), "expected 16281 data rows, got 16181"),
        ("heart-disease/processed.va.data", lambda: data.load_heart_disease("va"), "expected 200 data rows, got 100"),
        ("student-performance/student-por.csv", lambda: data.load_student("por"), "expected 649 data rows, got 549"),
    ],
)
def test_mirror_truncated_file_lines_dropped(mirror_copy, rel, loader, expected):
    path = mirror_copy / rel
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-101] if rel.startswith("adult") else lines[:-100]))
    with pytest.raises(data.DataIntegrityError) as err:
        loader()
    msg = str(err.value)
    assert expected in msg and "truncated" in msg and "SHA-256" in msg and str(path) in msg


def test_mirror_truncated_mid_line(mirror_copy):
    path = mirror_copy / "student-performance/student-mat.csv"
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) - 20])  # cuts the last line short
    with pytest.raises(data.DataIntegrityError, match="expected 33 semicolon-separated fields"):
        data.load_student("mat")
    path = mirror_copy / "adult/adult.test"
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(data.DataIntegrityError, match="15 comma-separated fields"):
        data.load_adult("test")


def test_mirror_missing_file(mirror_copy):
    (mirror_copy / "heart-disease/processed.va.data").unlink()
    assert len(data.load_heart_disease("cleveland")) == 303  # no network either
    with pytest.raises(data.DataUnavailableError) as err:
        data.load_heart_disease("all")
    msg = str(err.value)
    assert str(mirror_copy / "heart-disease/processed.va.data") in msg
    assert "RPP_DATA_DIR" in msg and "How to fix" in msg
    for rel in ALL_FILES:  # the expected layout is spelled out
        assert rel in msg
    assert isinstance(err.value, RuntimeError)
    assert err.value.path == mirror_copy / "heart-disease/processed.va.data"


def test_mirror_dir_that_does_not_exist(monkeypatch, tmp_path):
    monkeypatch.setenv("RPP_DATA_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(data.DataUnavailableError, match="does not exist"):
        data.load_student()


# ------------------------------------------------------------------------ source="uci": offline
@pytest.mark.parametrize(
    "loader, folder",
    [
        (data.load_adult, "adult"),
        (data.load_heart_disease, "heart-disease"),
        (data.load_student, "student-performance"),
    ],
)
def test_uci_offline(monkeypatch, cache, loader, folder):
    go_offline(monkeypatch)
    with pytest.raises(data.DataUnavailableError) as err:
        loader(source="uci")
    msg = str(err.value)
    assert URL[folder] in msg and "Could not download" in msg
    assert "packaged with rpp_book (the default source)" in msg
    assert isinstance(err.value.__cause__, urllib.error.URLError)
    assert not cache.exists() or not any(cache.rglob("*.*"))


def test_uci_offline_timeout(monkeypatch, cache):
    go_offline(monkeypatch, TimeoutError("timed out"))
    with pytest.raises(data.DataUnavailableError, match="TimeoutError: timed out"):
        data.load_heart_disease(source="uci")


def test_uci_http_error_is_reported(serve):
    serve({})  # every URL answers 404
    with pytest.raises(data.DataUnavailableError, match="HTTP 404"):
        data.load_student(source="uci")


def test_only_source_uci_touches_the_network(serve, monkeypatch, mirror):
    fake = serve(uci_archives(mirror))
    data.load_heart_disease("all")
    data.load_heart_disease("all", source="package")
    monkeypatch.setenv("RPP_DATA_DIR", str(mirror))
    data.load_heart_disease("all")
    assert fake.calls == []


# ------------------------------------------------------------------------ source="uci": downloads
# one test per archive (xdist shares them): what each one downloads, caches and reloads
DOWNLOADS = {
    "adult": (lambda **kw: data.load_adult(**kw), "adult/", (48842, 16)),
    "heart-disease": (lambda **kw: data.load_heart_disease("all", **kw), "heart-disease/", (920, 15)),
    "student-performance": (lambda **kw: data.load_student("both", **kw), "student-performance/", (1044, 34)),
}


@pytest.mark.parametrize("archive", list(DOWNLOADS))
def test_download_lands_in_cache_and_is_reused(archive, mirror, cache, serve, monkeypatch):
    load, folder, shape = DOWNLOADS[archive]
    fake = serve(uci_archives(mirror))
    df = load(source="uci")
    # one download for the archive: the sibling files were cached along the way
    assert fake.calls == [URL[archive]]
    for rel in (r for r in ALL_FILES if r.startswith(folder)):
        assert (cache / rel).read_bytes() == read(mirror, rel), rel
    assert not list(cache.rglob("*.part")), "temporary files left behind"
    assert df.shape == shape

    go_offline(monkeypatch)  # second use: the cache alone suffices
    pd.testing.assert_frame_equal(load(source="uci"), df)
    # and agrees with the packaged copy
    pd.testing.assert_frame_equal(load(), df)


def test_download_only_needed_archive(mirror, cache, serve):
    fake = serve(uci_archives(mirror))
    assert len(data.load_heart_disease("va", source="uci")) == 200
    assert fake.calls == [URL["heart-disease"]]
    assert sorted(p.name for p in (cache / "heart-disease").glob("*.data")) == sorted(Path(r).name for r in HEART)
    assert not (cache / "adult").exists()


def test_download_members_in_a_subfolder(mirror, cache, serve):
    serve(uci_archives(mirror, prefix="data/"))
    assert len(data.load_student("por", source="uci")) == 649
    assert len(data.load_heart_disease("switzerland", source="uci")) == 123


def test_download_is_checked_against_the_packaged_sha256(mirror, cache, serve):
    """Bytes that pass every content check but differ from the original are refused."""
    rel = "adult/adult.data"
    changed = read(mirror, rel).replace(b"77516", b"77517", 1)
    serve(uci_archives(mirror, override={rel: changed}))
    with pytest.raises(data.DataIntegrityError) as err:
        data.load_adult("train", source="uci")
    assert err.value.problems == [f"SHA-256: expected {data.SHA256[rel]}, got {hashlib.sha256(changed).hexdigest()}"]
    assert "not cached" in str(err.value) and not (cache / rel).exists()


def test_download_reserialised_hungarian_is_accepted(mirror, cache, serve, monkeypatch):
    # The packaged Hungarian file was re-serialised (data.REWRITTEN): UCI's bytes differ
    # from its SHA-256 with the same values. Such a download passes on content.
    rel = "heart-disease/processed.hungarian.data"
    assert rel in data.REWRITTEN
    text = read(mirror, rel).decode()
    other = (
        "\n".join(",".join(f + ".0" if f.isdigit() else f for f in line.split(",")) for line in text.splitlines())
        + "\n"
    )
    assert hashlib.sha256(other.encode()).hexdigest() != data.SHA256[rel]
    serve(uci_archives(mirror, override={rel: other.encode()}))
    got = data.load_heart_disease("hungarian", source="uci")
    pd.testing.assert_frame_equal(got, data.load_heart_disease("hungarian"))
    go_offline(monkeypatch)
    pd.testing.assert_frame_equal(data.load_heart_disease("hungarian", source="uci"), got)


def test_download_truncated_member_is_not_cached(mirror, cache, serve):
    lines = read(mirror, "adult/adult.data").splitlines(keepends=True)
    serve(uci_archives(mirror, override={"adult/adult.data": b"".join(lines[:1000])}))
    with pytest.raises(data.DataIntegrityError) as err:
        data.load_adult("train", source="uci")
    msg = str(err.value)
    assert "expected 32561 data rows, got 1000" in msg
    assert URL["adult"] in msg and "not cached" in msg
    assert not (cache / "adult/adult.data").exists()
    assert (cache / "adult/adult.test").exists()  # the intact sibling was kept
    assert len(data.load_adult("test", source="uci")) == 16281


def test_download_corrupted_value_is_not_cached(mirror, cache, serve):
    raw = read(mirror, "student-performance/student-mat.csv")
    bad = raw.replace(b'"mother"', b'"mothr"', 1)
    serve(uci_archives(mirror, override={"student-performance/student-mat.csv": bad}))
    with pytest.raises(data.DataIntegrityError, match=r"column 'guardian'.*'mothr'"):
        data.load_student("mat", source="uci")
    assert not (cache / "student-performance/student-mat.csv").exists()


def test_download_corrupted_archive(mirror, cache, serve):
    archives = uci_archives(mirror)
    good = archives[URL["heart-disease"]]
    serve({URL["heart-disease"]: good[: len(good) // 2]})  # transfer cut short
    with pytest.raises(data.DataIntegrityError, match="corrupted or incomplete"):
        data.load_heart_disease(source="uci")
    # corrupted compressed data of one member
    name = b"processed.cleveland.data"
    pos = good.index(name) + len(name) + 5  # inside the (compressed) payload
    flipped = good[:pos] + bytes([good[pos] ^ 0xFF]) + good[pos + 1 :]
    serve({URL["heart-disease"]: flipped})
    with pytest.raises(data.DataIntegrityError, match="corrupted or incomplete"):
        data.load_heart_disease(source="uci")
    assert not (cache / "heart-disease/processed.cleveland.data").exists()
    # a stored (uncompressed) member whose bytes no longer match its CRC-32
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for rel in HEART:
            zf.writestr(rel.split("/")[1], read(mirror, rel))
    stored = buf.getvalue()
    pos = stored.index(b"63.0,1.0,1.0,145.0")
    serve({URL["heart-disease"]: stored[:pos] + b"64" + stored[pos + 2 :]})
    with pytest.raises(data.DataIntegrityError, match="CRC"):
        data.load_heart_disease(source="uci")
    assert not (cache / "heart-disease/processed.cleveland.data").exists()
    assert (cache / "heart-disease/processed.va.data").exists()  # intact members are kept


def test_cached_file_changed_after_download(mirror, cache, serve, monkeypatch):
    serve(uci_archives(mirror))
    data.load_adult("train", source="uci")
    path = cache / "adult/adult.data"
    path.write_bytes(path.read_bytes().replace(b"77516", b"77517", 1))  # content still valid
    go_offline(monkeypatch)
    with pytest.raises(data.DataIntegrityError) as err:
        data.load_adult("train", source="uci")
    msg = str(err.value)
    assert "SHA-256: expected" in msg and f"delete {path}" in msg
    # following the advice (delete, load again) repairs the cache
    path.unlink()
    serve(uci_archives(mirror))
    assert len(data.load_adult("train", source="uci")) == 32561


def test_cache_filled_by_hand(mirror, cache):
    for rel in STUDENT:
        (cache / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(mirror / rel, cache / rel)
    assert len(data.load_student("both", source="uci")) == 1044  # no download (network guard)

    rel = "heart-disease/processed.cleveland.data"  # a truncated hand-placed file
    (cache / rel).parent.mkdir(parents=True)
    (cache / rel).write_bytes(b"".join(read(mirror, rel).splitlines(keepends=True)[:-3]))
    with pytest.raises(data.DataIntegrityError) as err:
        data.load_heart_disease(source="uci")
    assert "expected 303 data rows, got 300" in str(err.value)
    assert f"delete {cache / rel}" in str(err.value)


def test_cache_dir_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("RPP_CACHE_DIR", str(tmp_path / "a"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert data.cache_dir() == tmp_path / "a"
    monkeypatch.delenv("RPP_CACHE_DIR")
    assert data.cache_dir() == tmp_path / "x" / "rpp-book"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert data.cache_dir() == tmp_path / "home" / ".cache" / "rpp-book"


def test_empty_rpp_data_dir_means_unset(monkeypatch):
    monkeypatch.setenv("RPP_DATA_DIR", "")
    assert len(data.load_heart_disease()) == 303  # the packaged copy


# ------------------------------------------------------------------------ a real HTTP download
class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def local_uci(tmp_path, mirror, monkeypatch):
    """The three archives served over HTTP from 127.0.0.1; ARCHIVE_URLS point there."""
    root = tmp_path / "www"
    root.mkdir()
    archives = uci_archives(mirror)
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    for folder, url in list(URL.items()):
        name = url.rsplit("/", 1)[1]
        (root / name).write_bytes(archives[url])
        monkeypatch.setitem(URL, folder, f"http://127.0.0.1:{port}/{name}")

    def local_only(req, *args, **kwargs):
        url = req.full_url if isinstance(req, urllib.request.Request) else req
        assert url.startswith(f"http://127.0.0.1:{port}/"), f"not the local server: {url}"
        return REAL_URLOPEN(req, *args, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", local_only)
    try:
        yield root
    finally:
        server.shutdown()
        server.server_close()


def test_download_over_http_from_a_local_server(local_uci, cache):
    assert URL["heart-disease"].startswith("http://127.0.0.1:")
    heart = data.load_heart_disease("all", source="uci")
    pd.testing.assert_frame_equal(heart, data.load_heart_disease("all"))
    assert sorted(p.name for p in (cache / "heart-disease").iterdir()) == sorted(Path(r).name for r in HEART)
    (local_uci / "heart+disease.zip").unlink()  # the server now answers 404 ...
    assert len(data.load_heart_disease("all", source="uci")) == 920  # ... the cache suffices
    (local_uci / "adult.zip").unlink()
    with pytest.raises(data.DataUnavailableError, match="HTTP 404"):
        data.load_adult(source="uci")
