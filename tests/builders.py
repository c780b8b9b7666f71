"""Small builders of records for tests."""

from __future__ import annotations

from scicon.records.corpus import Abstract, Role, Sentence


def abstract(pmid: str, *sentences: tuple[str, str]) -> Abstract:
    """An abstract from (ROLE, text) tuples."""
    return Abstract(
        pmid=pmid,
        sentences=tuple(Sentence(role=Role(role), text=text) for role, text in sentences),
        origin=f"test:{pmid}",
    )
