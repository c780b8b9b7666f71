"""Fill a labelled root from the named sources' canonical locations, checksums enforced.

    python -m scicon.labelled download check_covid mnli_snli --root data/labelled
    python -m scicon.labelled download healthver nli4ct --root data/benchmarks
    python -m scicon.labelled list

A file already in place with the pinned digest is kept; one with another digest is
refused rather than overwritten (it may be a user's own copy). Downloads go through the
corpus downloader (streamed, retried, verified before they are moved into place).
"""

from __future__ import annotations

import argparse
import logging
import shutil
from collections.abc import Iterable
from pathlib import Path

from scicon.corpus.download import fetch
from scicon.errors import ChecksumMismatchError, ParamsError
from scicon.io import atomic_open, hash_file
from scicon.labelled.sources import SOURCES, LabelledSource
from scicon.paths import cache_root
from scicon.stage import run_stage

log = logging.getLogger(__name__)


def source(name: str) -> LabelledSource:
    if name not in SOURCES:
        raise ParamsError(f"unknown labelled source {name!r} (known: {', '.join(sorted(SOURCES))})")
    return SOURCES[name]


def download(names: Iterable[str], root: Path, cache_dir: Path | None = None) -> list[Path]:
    """Every file of the named sources under ``root``, verified; returns the paths written or kept."""
    cache_dir = cache_dir or cache_root()
    placed = []
    for name in names:
        for file in source(name).files:
            destination = root / file.path
            if destination.is_file():
                (digest,) = hash_file(destination, "sha256")
                if digest != file.sha256:
                    raise ChecksumMismatchError(
                        f"{destination}: sha256 {digest} is not the pinned {file.sha256} of {file.url}; "
                        "move it away to download the published file"
                    )
                log.info("%s: already in place", destination)
                placed.append(destination)
                continue
            offline_hint = (
                f"Without a network, fetch it elsewhere and put it at {destination} "
                f"(sha256 {file.sha256}): a file in place with that digest is kept"
            )
            fetched = fetch(file.url, cache_dir, sha256=file.sha256, offline_hint=offline_hint)
            with open(fetched.path, "rb") as cached, atomic_open(destination, "wb") as placed_file:
                shutil.copyfileobj(cached, placed_file)
            log.info("%s: downloaded from %s", destination, file.url)
            placed.append(destination)
    return placed


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(prog="python -m scicon.labelled", description=__doc__.split("\n")[0])
    commands = command.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="the named sources, their licences and files")
    fetching = commands.add_parser("download", help="download named sources into a labelled root")
    fetching.add_argument("names", nargs="+", choices=sorted(SOURCES))
    fetching.add_argument("--root", type=Path, required=True, help="the labelled root to fill")
    return command


def run(arguments: argparse.Namespace) -> None:
    if arguments.command == "list":
        for item in SOURCES.values():
            print(f"{item.name} ({item.purpose}): {item.description} [{item.licence}]")
            for file in item.files:
                print(f"  {file.path}  {file.url}  sha256 {file.sha256}")
        return
    for path in download(arguments.names, arguments.root):
        print(path)


def main(argv: list[str] | None = None) -> None:
    """A failed download or a refused file ends in one `error:` line and exit status 1."""
    run_stage(run, parser(), argv)
