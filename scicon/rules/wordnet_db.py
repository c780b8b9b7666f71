"""Build an NLTK WordNet folder from Debian's WordNet 3.0 packages, offline.

Debian's ``wordnet-base`` and ``wordnet-sense-index`` ship the Princeton WordNet 3.0
database under ``/usr/share/wordnet``. Stock ``nltk.corpus.wordnet`` reads exactly
those files once they sit in ``<nltk data dir>/corpora/wordnet/`` beside a
``lexnames`` file, which no Debian package ships. Its content (45 lines
``NN<TAB>name<TAB>pos``) is printed in the ``lexnames(5WN)`` man page that
``wordnet-base`` does ship, so we derive it from there rather than hard-coding it.

``scripts/setup.sh`` runs this module; users with internet can instead run
``python -c "import nltk; nltk.download('wordnet')"``.
"""

from __future__ import annotations

import argparse
import gzip
import re
import shutil
import sys
from pathlib import Path

from scicon.errors import InputFormatError, InputNotFoundError
from scicon.io import atomic_open

DEBIAN_WORDNET = Path("/usr/share/wordnet")
DEBIAN_LEXNAMES_MANPAGE = Path("/usr/share/man/man5/lexnames.5WN.gz")
LEXNAMES_COUNT = 45

# The syntactic-category codes of the lexnames format (lexnames(5WN), "Syntactic Category").
_CATEGORY_CODES = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
# A table row of the man page: two-digit file number, tab, lexicographer file name.
_TABLE_ROW = re.compile(r"^(\d\d)\t(\w+\.\w+)\s*\t")


def lexnames_from_manpage(manpage: Path) -> str:
    """The ``lexnames`` file content, read from the (gzipped) lexnames(5WN) man page."""
    opener = gzip.open if manpage.suffix == ".gz" else open
    try:
        with opener(manpage, "rt", encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError as error:
        raise InputNotFoundError(
            f"{manpage}: WordNet's lexnames man page is missing (install Debian's wordnet-base)"
        ) from error
    rows = []
    for line in lines:
        match = _TABLE_ROW.match(line)
        if match:
            number, name = match.groups()
            rows.append(f"{number}\t{name}\t{_CATEGORY_CODES[name.split('.')[0]]}")
    numbers = [int(row.split("\t")[0]) for row in rows]
    if numbers != list(range(LEXNAMES_COUNT)):
        raise InputFormatError(
            str(manpage), f"expected lexicographer files 00..{LEXNAMES_COUNT - 1}, found {len(rows)} rows"
        )
    return "\n".join(rows) + "\n"


def build_nltk_wordnet(source: Path, manpage: Path, target: Path) -> Path:
    """Copy the database files from ``source`` into ``target`` and write ``lexnames``.

    ``target`` is the ``.../corpora/wordnet`` folder; files are replaced atomically
    so a half-built folder never passes for a complete one.
    """
    if not (source / "data.noun").is_file():
        raise InputNotFoundError(
            f"{source}: no WordNet database here (install Debian's wordnet-base and wordnet-sense-index)"
        )
    lexnames = lexnames_from_manpage(manpage)
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir()):
        if path.is_file():
            with open(path, "rb") as src, atomic_open(target / path.name, "wb") as dst:
                shutil.copyfileobj(src, dst)
    with atomic_open(target / "lexnames") as handle:
        handle.write(lexnames)
    return target


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEBIAN_WORDNET)
    parser.add_argument("--manpage", type=Path, default=DEBIAN_LEXNAMES_MANPAGE)
    parser.add_argument("--target", type=Path, required=True, help="the .../nltk_data/corpora/wordnet folder")
    args = parser.parse_args(argv)
    try:
        built = build_nltk_wordnet(args.source, args.manpage, args.target)
    except (InputNotFoundError, InputFormatError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    print(f"WordNet 3.0 for NLTK built in {built}")


if __name__ == "__main__":
    main()
