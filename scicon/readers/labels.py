"""Options shared by loaders of labelled data whose labels are mapped onto the three NLI classes."""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path

from pydantic import Field, field_validator

from scicon.readers import LoaderOptions
from scicon.readers.rows import NLI_LABELS, line_error

log = logging.getLogger(__name__)


def log_left_out(where: Path, left_out: Counter[str]) -> None:
    """Say which rows a loader left out and why (skipped labels, claims without evidence)."""
    if left_out:
        log.info("%s: left out %s", where.name, dict(sorted(left_out.items())))


class LabelMapOptions(LoaderOptions):
    labels: dict[str, str] = Field(
        min_length=1,
        description="raw label -> entailment | neutral | contradiction; a raw label not listed is an error",
    )
    skip_labels: tuple[str, ...] = Field(
        description="raw labels whose rows are left out and counted (e.g. SNLI's '-' for no consensus)"
    )

    @field_validator("labels")
    @classmethod
    def _three_way(cls, labels: dict[str, str]) -> dict[str, str]:
        wrong = {raw: mapped for raw, mapped in labels.items() if mapped not in NLI_LABELS}
        if wrong:
            raise ValueError(f"labels must map onto {', '.join(NLI_LABELS)}; got {wrong}")
        return labels

    def nli_label(self, value: object, path: Path, line: int, column: str) -> str | None:
        """The three-way label a raw value stands for; None for a raw label in ``skip_labels``.
        Any other raw label not in ``labels`` stops with the file and line."""
        raw = str(value).strip() if value is not None else ""
        if raw in self.skip_labels:
            return None
        if raw not in self.labels:
            raise line_error(
                path, line, f"{column} {raw!r} is not a known label ({', '.join(sorted(self.labels))})"
            )
        return self.labels[raw]


class ClaimsAgainstCorpusOptions(LabelMapOptions):
    """A release folder of claim files whose evidence indexes sentences of a corpus file."""

    claims: tuple[str, ...] = Field(min_length=1, description="claim files, relative to the folder")
    corpus: str = Field(
        min_length=1,
        description="the abstracts or cited documents the evidence points into, relative to folder",
    )
