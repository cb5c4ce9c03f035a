#!/usr/bin/env python
"""The book's own BibTeX entry, generated from ``CITATION.cff`` (the one source of the citation).

Usage (from the repository root, with the book's environment)::

    .venv/bin/python tools/citation.py            # print the entry
    .venv/bin/python tools/citation.py --check    # exit 1 if book/references.bib differs from it
    .venv/bin/python tools/citation.py --write    # rewrite that entry of book/references.bib

``CITATION.cff`` is what GitHub and reference managers read; its ``preferred-citation`` (or,
field by field, its top level) gives the authors, title, year and URL, and its ``version`` the
note "Version X.Y.Z". The entry ``rppbook<year>`` of ``book/references.bib`` must be exactly
the generated one: the preface shows that entry verbatim (``{rpp-bibtex} rppbook2026``, a
directive of ``tools/book_results.py``), the bibliography lists it, and ``make book`` fails
when it has drifted from ``CITATION.cff`` (``tools/book_html.py`` runs :func:`check` at the
start of every build; ``tests/book/test_citation.py`` checks the same).
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CFF = "CITATION.cff"
BIBFILE = "book/references.bib"
KEY_PREFIX = "rppbook"

# Combining accents -> the TeX accent command of BibTeX's {\'e} form.
_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0327": "c ", "\u030c": "v "}


def tex_escape(text: str) -> str:
    """Plain BibTeX text: accented letters as ``{\\'e}``, and ``&%$#_`` escaped.

    Raises
    ------
    ValueError
        If ``text`` holds a character outside ASCII that is not a letter with one of the
        accents above (it would print wrongly in BibTeX).
    """
    out = []
    for ch in text:
        if ch in "&%$#_":
            out.append("\\" + ch)
        elif ord(ch) < 128:
            out.append(ch)
        else:
            base, *marks = unicodedata.normalize("NFD", ch)
            if len(marks) != 1 or marks[0] not in _ACCENTS or ord(base) >= 128:
                raise ValueError(f"CITATION.cff: no BibTeX spelling for {ch!r} in {text!r}")
            out.append(f"{{\\{_ACCENTS[marks[0]]}{base}}}")
    return "".join(out)


def _author(person: dict) -> str:
    if person.get("name"):  # an entity ("The RPP Book contributors"): one braced name
        return "{" + tex_escape(person["name"]) + "}"
    given = person.get("given-names", "")
    family = " ".join(x for x in (person.get("name-particle"), person.get("family-names")) if x)
    if not family:
        raise ValueError(f"CITATION.cff: author {person!r} has neither 'name' nor 'family-names'")
    return tex_escape(f"{family}, {given}" if given else family)


def bibtex(cff: dict) -> str:
    """The ``@misc`` entry of the book, from the parsed ``CITATION.cff``.

    Raises
    ------
    ValueError
        If the file lacks authors, a title, a year or a URL.
    """
    pref = cff.get("preferred-citation") or {}

    def field(name: str):
        value = pref.get(name, cff.get(name))
        if not value:
            raise ValueError(f"CITATION.cff: no {name!r} (in preferred-citation or at the top level)")
        return value

    year = pref.get("year") or str(cff.get("date-released", ""))[:4]
    if not re.fullmatch(r"\d{4}", str(year)):
        raise ValueError("CITATION.cff: preferred-citation needs a four-digit 'year' (or date-released)")
    fields = [
        ("author", " and ".join(_author(p) for p in field("authors"))),
        ("title", "{" + tex_escape(field("title")) + "}"),
        ("year", str(year)),
        ("url", field("url")),
    ]
    if cff.get("version"):
        fields.append(("note", f"Version {cff['version']}"))
    width = max(len(k) for k, _ in fields)
    body = ",\n".join(_wrap(f"  {k:<{width}} = {{{v}}}") for k, v in fields)
    return f"@misc{{{KEY_PREFIX}{year},\n{body}\n}}"


#: Field lines longer than this wrap (BibTeX ignores the line breaks): the preface shows the
#: entry in a column of about 64 characters (``wrap_bibtex`` of ``tools/book_results.py``, which
#: leaves an entry wrapped here unchanged).
WIDTH = 64


def _wrap(line: str) -> str:
    import textwrap

    if len(line) <= WIDTH:
        return line
    indent = " " * (line.index("=") + 3)
    return "\n".join(
        textwrap.wrap(line, width=WIDTH, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    )


def key_of(entry: str) -> str:
    return re.match(r"@\w+\{([^,]+),", entry).group(1)


def read_cff(root: Path = ROOT) -> dict:
    return yaml.safe_load((root / CFF).read_text(encoding="utf-8"))


def find_entry(text: str, key: str) -> tuple[int, int] | None:
    """(start, end) of the entry ``@type{key, ...}`` in a BibTeX file's text."""
    m = re.search(r"@\w+\s*\{\s*" + re.escape(key) + r"\s*,", text)
    if not m:
        return None
    depth = 0
    for i in range(text.index("{", m.start()), len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return m.start(), i + 1
    return None


def check(root: Path = ROOT) -> str | None:
    """None when the book's entry in ``book/references.bib`` is the one ``CITATION.cff`` gives;
    otherwise what is wrong and how to mend it."""
    entry = bibtex(read_cff(root))
    key = key_of(entry)
    text = (root / BIBFILE).read_text(encoding="utf-8")
    span = find_entry(text, key)
    if span is None:
        return f"{BIBFILE} has no entry {key!r} (generated from {CFF}): run `python tools/citation.py --write`"
    if text[span[0] : span[1]] != entry:
        return (
            f"the entry {key!r} of {BIBFILE} differs from the one {CFF} gives: edit {CFF}, "
            f"then run `python tools/citation.py --write`"
        )
    return None


def write(root: Path = ROOT) -> bool:
    """Put the generated entry into ``book/references.bib`` (replaced, or appended). True if changed."""
    entry = bibtex(read_cff(root))
    path = root / BIBFILE
    text = path.read_text(encoding="utf-8")
    span = find_entry(text, key_of(entry))
    new = text.rstrip("\n") + "\n\n" + entry + "\n" if span is None else text[: span[0]] + entry + text[span[1] :]
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help=f"exit 1 if {BIBFILE} differs from {CFF}")
    group.add_argument("--write", action="store_true", help=f"rewrite the book's entry of {BIBFILE}")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.check:
        problem = check(args.root)
        if problem:
            print(f"ERROR: {problem}", file=sys.stderr)
            return 1
        return 0
    if args.write:
        changed = write(args.root)
        print(f"{BIBFILE}: {'rewritten' if changed else 'already up to date'}")
        return 0
    print(bibtex(read_cff(args.root)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
