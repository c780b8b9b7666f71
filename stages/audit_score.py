"""Stage `audit_score`: the audit's figures from the annotators' files and the answer key.

Reads the sample folder of `audit_sample` and every annotation file in the annotations
folder; writes `metrics/audit.json` (headline) and `reports/audit.json` (every figure), a
markdown report and the items whose majority disagrees with the algorithmic label. With no
annotations yet it writes metrics whose status is `no_annotations`. See docs/audit.md.
"""

from scicon.audit.params import AuditParams
from scicon.audit.scoring import add_score_arguments, run_score
from scicon.params import load_section
from scicon.stage import run_stage, stage_parser


def main(args) -> None:
    run_score(args, load_section(args.params, "audit", AuditParams))


def parser():
    return add_score_arguments(stage_parser(__doc__))


if __name__ == "__main__":
    run_stage(main, parser())
