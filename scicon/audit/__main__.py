"""`python -m scicon.audit {export,score}`: the audit of any SciCon build folder, outside DVC too."""

from __future__ import annotations

import argparse

from scicon.audit.export import add_export_arguments, run_export
from scicon.audit.params import AuditParams
from scicon.audit.scoring import add_score_arguments, run_score
from scicon.params import load_section
from scicon.stage import run_stage


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(prog="python -m scicon.audit", description=__doc__)
    command.add_argument("--params", default="params.yaml", help="parameters file (its `audit` section)")
    steps = command.add_subparsers(dest="step", required=True)
    add_export_arguments(steps.add_parser("export", help="draw the sample and write the blinded files"))
    add_score_arguments(steps.add_parser("score", help="score the annotators' files against the sample"))
    return command


def main(args: argparse.Namespace) -> None:
    params = load_section(args.params, "audit", AuditParams)
    if args.step == "export":
        run_export(args, params)
    else:
        run_score(args, params)


if __name__ == "__main__":
    run_stage(main, parser())
