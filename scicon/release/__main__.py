"""`python -m scicon.release {cut,verify,merge}`: release a SciCon build (scicon.release)."""

from __future__ import annotations

import argparse
from pathlib import Path

from scicon.release import __doc__ as RELEASE_DOC
from scicon.release.cut import DATASET, JUDGE_KEY, cut_release, default_released
from scicon.release.pointers import Released, merge_release
from scicon.release.remote import find_remote
from scicon.release.verify import verify_release
from scicon.release.workspace import repository_root
from scicon.stage import run_stage


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(
        prog="python -m scicon.release",
        description=RELEASE_DOC,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    steps = command.add_subparsers(dest="step", required=True)
    outputs_help = (
        f"a released output, PATH or PATH=NAME (NAME: its folder in release/); repeat for several "
        f"(default: {DATASET}=scicon and the folder {JUDGE_KEY} names, =judge)"
    )
    cut = steps.add_parser(
        "cut",
        help="check the workspace, push the released outputs, commit the record, verify from a clone, tag",
    )
    cut.add_argument("tag", help="the new tag, e.g. scicon-v3")
    cut.add_argument(
        "--remote", required=True, help="the DVC remote to push to (store: the repository's own)"
    )
    cut.add_argument("--output", action="append", type=Released.parse, help=outputs_help)
    cut.add_argument("--message", help="the release commit's message")
    cut.add_argument("--params", default="params.yaml", help="where the judge's folder is named")
    verify = steps.add_parser(
        "verify", help="clone a release, pull it from the remote, compare with dvc.lock"
    )
    verify.add_argument("revision", help="a tag or commit")
    verify.add_argument("--remote", required=True, help="the DVC remote to pull from")
    verify.add_argument("--output", action="append", type=Released.parse, help=outputs_help)
    verify.add_argument("--params", default="params.yaml", help="where the judge's folder is named")
    merge = steps.add_parser(
        "merge", help="bring a release's store and pointers (release/) onto this branch, keeping its record"
    )
    merge.add_argument("tag")
    return command


def main(args: argparse.Namespace) -> None:
    root = repository_root(Path.cwd())
    if args.step == "merge":
        merge_release(root, args.tag)
        return
    released = args.output or default_released(root / args.params)
    if args.step == "cut":
        cut_release(root, args.tag, args.remote, released, args.message)
    else:
        remote = find_remote(root, args.remote)
        verify_release(root, args.revision, remote, [item.path for item in released])


if __name__ == "__main__":
    run_stage(main, parser())
