"""`python -m scicon.corpus place SOURCE FILE`: a local copy as a named source's download.

For a machine without a network: the file a named source downloads (e.g. PubMedQA's
``data/ori_pqal.json`` for ``pubmedqa-l``), fetched elsewhere, is checked against the source's
pinned digest and put into the download cache, so that ``ingest.source: <source>`` reads it as
the download it stands for, by name, and the run is the one anyone with a network reproduces.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from scicon.corpus.sources import NAMED_SOURCES, place_named
from scicon.paths import cache_root
from scicon.stage import run_stage

log = logging.getLogger(__name__)


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(prog="python -m scicon.corpus", description=__doc__)
    steps = command.add_subparsers(dest="step", required=True)
    placing = steps.add_parser("place", help="put a local copy into the cache as a named source's download")
    placing.add_argument("source", choices=sorted(NAMED_SOURCES), help="the named source")
    placing.add_argument("file", help="the local copy of the file it downloads")
    placing.add_argument("--split", help="the source's split (default: its default split)")
    return command


def main(args: argparse.Namespace) -> None:
    placed = place_named(args.source, Path(args.file), split=args.split, cache_dir=cache_root())
    log.info("%s now reads %s", args.source, placed)


if __name__ == "__main__":
    run_stage(main, parser())
