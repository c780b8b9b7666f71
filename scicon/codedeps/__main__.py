"""``python -m scicon.codedeps digests|check|write``: the code stage's digest files, and
dvc.yaml checked against (or rewritten from) the sources."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scicon.codedeps.closure import CODE, write_digests
from scicon.codedeps.dvcfile import DVC_FILE, check, write


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m scicon.codedeps",
        description="Stage code digests, and dvc.yaml checked against the code.",
    )
    parser.add_argument("command", choices=("check", "write", "digests"))
    parser.add_argument("--out", type=Path, default=Path(CODE), help="digests: the folder to write into")
    args = parser.parse_args(argv)
    if args.command == "digests":
        written = write_digests(args.out)
        print(f"{args.out}: {len(written)} digest files, one per stage script")
        return
    if args.command == "write":
        write()
        print(f"{DVC_FILE}: digest-file deps and params rewritten from the sources")
        return
    problems = check()
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} differences; `python -m scicon.codedeps write` updates {DVC_FILE}")
        sys.exit(1)
    print(f"{DVC_FILE}: every stage declares its code digest file and the params it reads")


if __name__ == "__main__":
    main()
