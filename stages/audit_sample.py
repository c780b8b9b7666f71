"""Stage `audit_sample`: a seeded, stratified, blinded sample of SciCon for an expert audit.

Reads the SciCon splits named in `audit.splits`; writes the answer key and the sample
manifest into the sample folder, and one blinded CSV and Label Studio task file per
annotator (with the labeling config and the annotators' instructions) into the blinded
folder. See docs/audit.md.
"""

from scicon.audit.export import add_export_arguments, run_export
from scicon.audit.params import AuditParams
from scicon.params import load_section
from scicon.stage import run_stage, stage_parser


def main(args) -> None:
    run_export(args, load_section(args.params, "audit", AuditParams))


def parser():
    return add_export_arguments(stage_parser(__doc__))


if __name__ == "__main__":
    run_stage(main, parser())
