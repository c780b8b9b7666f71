"""SciCon assembly: sources → deduplicated, PMID-grouped, order-randomised splits, with a card."""

from scicon.dataset.assemble import SciconBuild, assemble_scicon, write_scicon

__all__ = ["SciconBuild", "assemble_scicon", "write_scicon"]
