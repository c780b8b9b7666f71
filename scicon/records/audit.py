"""The audit sample's answer key, as the audit_sample stage writes it and audit_score reads it."""

from __future__ import annotations

from pydantic import Field

from scicon.records.base import Record
from scicon.records.dataset import Example


class AuditItem(Record):
    """One sampled SciCon row with what the annotators must not see: its label and origin.

    ``item_id`` is what the blinded files carry; it is derived from the example id and the
    audit seed, so it neither reveals the generator (example ids do) nor changes when
    other rows of the build change.
    """

    item_id: str
    stratum: str = Field(description="the row's stratum, e.g. 'rules/contradiction/negation_polarity'")
    weight: float = Field(gt=0, description="rows of its stratum in the build per sampled item")
    example: Example
