"""Where the UCI files come from: the packaged copy, a mirror directory, or a verified download.

Every source returns the same verified :class:`pandas.DataFrame` per file, or raises.
``load(rels, source)`` is the only entry point used by :mod:`rpp_book.data`.
"""

from __future__ import annotations

import gzip
import hashlib
import http.client
import io
import os
import tempfile
import urllib.error
import urllib.request
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import pandas as pd

from ._errors import DataIntegrityError, DataUnavailableError
from ._parse import parse
from ._specs import REWRITTEN, SHA256, SPECS, Spec

#: Seconds to wait for the UCI server before giving up on a download.
DOWNLOAD_TIMEOUT = 60.0

#: The accepted values of the loaders' ``source`` argument.
SOURCES = (None, "package", "uci")

#: The layout shared by the packaged copy, a mirror (``RPP_DATA_DIR``) and the cache.
LAYOUT = tuple(SPECS)

_REINSTALL = (
    "the installed rpp-book-support (the book support, rpp_book) is damaged. Reinstall it: "
    "`pip install --force-reinstall --no-deps ./support` from a clone (after "
    "`git checkout -- support/rpp_book/data/uci`)."
)


def packaged_dir() -> Traversable:
    """Return the folder of the packaged data (``rpp_book/data/uci`` inside the installed package)."""
    return resources.files(__package__) / "uci"


def cache_dir() -> Path:
    """Directory where files downloaded with ``source="uci"`` are cached.

    Takes no arguments: the location comes from the environment.

    Returns
    -------
    pathlib.Path
        ``$RPP_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/rpp-book``, else
        ``~/.cache/rpp-book``. It is created only when a file is written.

    Raises
    ------
    RuntimeError
        Only if neither variable is set and the home directory cannot be
        determined (``pathlib.Path.home()``).

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"RPP_CACHE_DIR": "/tmp/rpp-cache"}):
    ...     cache_dir().as_posix()
    '/tmp/rpp-cache'
    """
    env = os.environ.get("RPP_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg).expanduser() / "rpp-book"
    return Path.home() / ".cache" / "rpp-book"


def mirror_dir() -> Path | None:
    """``$RPP_DATA_DIR`` as a path, or ``None`` when it is unset or empty."""
    env = os.environ.get("RPP_DATA_DIR")
    return Path(env).expanduser() if env else None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: Verified frames of the original files, by path: parsing is deterministic, so bytes whose
#: SHA-256 is the expected one are parsed and content-checked once per process, and every
#: load returns a fresh copy (callers may modify what they get).
_VERIFIED: dict[str, pd.DataFrame] = {}


def _verify(spec: Spec, data: bytes, *, hashed: bool, where: str, path: Path | str, fix: str) -> pd.DataFrame:
    """Check ``data`` (SHA-256 if ``hashed``, then content); return the frame or raise."""
    problems = []
    digest = _sha256(data)
    if digest == SHA256[spec.rel] and spec.rel in _VERIFIED:
        return _VERIFIED[spec.rel].copy()
    if hashed and digest != SHA256[spec.rel]:
        problems.append(f"SHA-256: expected {SHA256[spec.rel]}, got {digest}")
    df, content = parse(data, spec)
    problems += content
    if problems or df is None:
        raise DataIntegrityError(
            f"{spec.rel} failed verification ({where}: {path}):\n"
            + "\n".join(f"  - {p}" for p in problems)
            + f"\nHow to fix: {fix}\nThe file was not used.",
            path=Path(str(path)),
            problems=problems,
        )
    if digest == SHA256[spec.rel]:
        _VERIFIED[spec.rel] = df.copy()
    return df


# ----------------------------------------------------------------------------- packaged copy
def read_packaged(spec: Spec) -> pd.DataFrame:
    """Return the packaged copy of ``spec.rel``, decompressed and verified (SHA-256 and content)."""
    item = packaged_dir() / (spec.rel + ".gz")
    try:
        compressed = item.read_bytes()
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise DataUnavailableError(
            f"The packaged data file {item} is missing: {_REINSTALL}",
            path=Path(str(item)),
        ) from exc
    try:
        data = gzip.decompress(compressed)
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise DataIntegrityError(
            f"The packaged data file {item} is not a valid gzip file ({exc}): {_REINSTALL}",
            path=Path(str(item)),
            problems=[str(exc)],
        ) from exc
    return _verify(spec, data, hashed=True, where="the copy packaged with rpp_book", path=str(item), fix=_REINSTALL)


# ----------------------------------------------------------------------------- a mirror
def read_mirror(spec: Spec, mirror: Path) -> pd.DataFrame:
    """``spec.rel`` from the mirror directory ``mirror`` (``RPP_DATA_DIR``), verified."""
    path = mirror / spec.rel
    if not path.is_file():
        hint = "" if mirror.is_dir() else f" (the directory {mirror} itself does not exist)"
        raise DataUnavailableError(
            f"RPP_DATA_DIR is set to {mirror}, but {path} does not exist{hint}. A mirror "
            f"directory must contain the uncompressed files {', '.join(LAYOUT)}.\nHow to "
            f"fix: point RPP_DATA_DIR at a directory with that layout (use an absolute path), "
            f"or unset RPP_DATA_DIR to use the copy packaged with rpp_book.",
            path=path,
        )
    return _verify(
        spec,
        path.read_bytes(),
        hashed=True,
        where="read from RPP_DATA_DIR",
        path=path,
        fix=f"this is not a copy of the book's data. Restore the file, or unset "
        f"RPP_DATA_DIR to use the copy packaged with rpp_book. ({mirror} must hold "
        f"the original files; `sha256sum -c` against support/rpp_book/data/uci/SHA256SUMS "
        f"lists those that differ.)",
    )


# ----------------------------------------------------------------------------- UCI download
def _download_fix(spec: Spec) -> str:
    return (
        f"delete {cache_dir() / spec.rel} and load again with source='uci' to download "
        f"it again, or use the copy packaged with rpp_book (the default source)."
    )


def _read_cached(spec: Spec, path: Path) -> pd.DataFrame:
    return _verify(
        spec,
        path.read_bytes(),
        hashed=spec.rel not in REWRITTEN,
        where="read from the download cache",
        path=path,
        fix=_download_fix(spec),
    )


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _download(spec: Spec) -> bytes:
    req = urllib.request.Request(spec.url, headers={"User-Agent": "rpp-book data loader"})
    err: Exception
    try:
        with urllib.request.urlopen(req, timeout=DOWNLOAD_TIMEOUT) as resp:
            return resp.read()
    except urllib.error.HTTPError as exc:
        reason, err = f"HTTP {exc.code} {exc.reason}", exc
    except (urllib.error.URLError, TimeoutError, OSError, http.client.HTTPException) as exc:
        reason = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
        err = exc
    raise DataUnavailableError(
        f"Could not download {spec.url} ({reason}).\nHow to fix: use the copy packaged with "
        f"rpp_book (the default source), or retry when the UCI repository is reachable.",
        path=cache_dir() / spec.rel,
        url=spec.url,
    ) from err


def _extract(archive: bytes, spec: Spec) -> bytes:
    """Read a (possibly nested) member; :mod:`zipfile` checks each member's CRC-32."""
    data = archive
    for depth, member in enumerate(spec.members):
        where = spec.url if depth == 0 else f"{spec.members[depth - 1]} inside {spec.url}"
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                names = [n for n in zf.namelist() if not n.startswith("__MACOSX/") and not n.endswith("/")]
                hits = [n for n in names if n == member] or [n for n in names if n.rsplit("/", 1)[-1] == member]
                if len(hits) != 1:
                    raise DataUnavailableError(
                        f"The archive {where} has no unique member {member!r} (members: "
                        f"{names[:20]}); the UCI archive layout may have changed. Use the "
                        f"copy packaged with rpp_book (the default source).",
                        path=cache_dir() / spec.rel,
                        url=spec.url,
                    )
                data = zf.read(hits[0])
        except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError) as exc:
            raise DataIntegrityError(
                f"The archive {where} is corrupted or incomplete ({exc}); {spec.rel} was not "
                f"cached.\nHow to fix: load again with source='uci' to retry the download, or "
                f"use the copy packaged with rpp_book (the default source).",
                path=cache_dir() / spec.rel,
                problems=[str(exc)],
            ) from exc
    return data


def download(spec: Spec, wanted: Iterable[str]) -> dict[str, pd.DataFrame]:
    """Download ``spec``'s archive; verify and cache the files of its folder not yet cached.

    Returns the verified frames of ``spec`` and of the cached files listed in ``wanted``.
    Raises if ``spec`` itself fails; a sibling that fails is not cached.
    """
    archive = _download(spec)
    cache = cache_dir()
    out: dict[str, pd.DataFrame] = {}
    failure: Exception | None = None
    for sib in SPECS.values():
        if sib.folder != spec.folder or (sib.rel != spec.rel and (cache / sib.rel).is_file()):
            continue
        try:
            data = _extract(archive, sib)
            df = _verify(
                sib,
                data,
                hashed=sib.rel not in REWRITTEN,
                where=f"extracted from the download of {sib.url}",
                path=cache / sib.rel,
                fix="it was not cached. Retry later; if it keeps failing, the archive "
                "on UCI has changed: use the copy packaged with rpp_book.",
            )
        except (DataIntegrityError, DataUnavailableError) as exc:
            if sib.rel == spec.rel:
                failure = exc
            continue
        try:
            _atomic_write(cache / sib.rel, data)
        except OSError as exc:
            raise DataUnavailableError(
                f"Cannot write the downloaded file to {cache / sib.rel} ({exc}).\nHow to fix: "
                f"set RPP_CACHE_DIR to a writable directory.",
                path=cache / sib.rel,
                url=sib.url,
            ) from exc
        if sib.rel in wanted or sib.rel == spec.rel:
            out[sib.rel] = df
    if failure is not None:  # raised after the intact siblings were cached
        raise failure
    return out


# ----------------------------------------------------------------------------- dispatch
def load(rels: Sequence[str], source: str | None) -> dict[str, pd.DataFrame]:
    """Locate, verify and parse the files ``rels`` (paths in :data:`LAYOUT`) from ``source``."""
    if source not in SOURCES:
        raise ValueError(
            f"source must be None (the packaged copy, or RPP_DATA_DIR when it is "
            f"set), 'package' or 'uci', got {source!r}"
        )
    mirror = mirror_dir() if source is None else None
    out: dict[str, pd.DataFrame] = {}
    for rel in rels:
        if rel in out:
            continue
        spec = SPECS[rel]
        if source == "uci":
            path = cache_dir() / rel
            if path.is_file():
                out[rel] = _read_cached(spec, path)
            else:
                out.update(download(spec, wanted=[r for r in rels if r not in out]))
        elif mirror is not None:
            out[rel] = read_mirror(spec, mirror)
        else:
            out[rel] = read_packaged(spec)
    return out
