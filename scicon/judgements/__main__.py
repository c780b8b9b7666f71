"""`python -m scicon.judgements {sample,read,originals}`: annotation rounds that teach the judge."""

from __future__ import annotations

import argparse

from scicon.judgements.originals import add_originals_arguments, run_originals
from scicon.judgements.params import JudgementsParams
from scicon.judgements.rounds import add_read_arguments, add_sample_arguments, run_read, run_sample
from scicon.params import load_key, load_section
from scicon.stage import run_stage


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(prog="python -m scicon.judgements", description=__doc__)
    command.add_argument("--params", default="params.yaml", help="parameters file (its `judgements` section)")
    steps = command.add_subparsers(dest="step", required=True)
    add_sample_arguments(steps.add_parser("sample", help="draw a round and write its blinded batches"))
    add_read_arguments(steps.add_parser("read", help="read every round's answers into the labelled set"))
    add_originals_arguments(
        steps.add_parser(
            "originals", help="fill in the sentence each judged edit was made from, in older keys"
        )
    )
    return command


def main(args: argparse.Namespace) -> None:
    params = load_section(args.params, "judgements", JudgementsParams)
    if args.step == "sample":
        run_sample(args, params, load_key(args.params, "target"))
    elif args.step == "originals":
        run_originals(args)
    else:
        run_read(args, params)


if __name__ == "__main__":
    run_stage(main, parser())
