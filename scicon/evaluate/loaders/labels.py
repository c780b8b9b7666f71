"""Options shared by loaders of labelled data whose labels are mapped onto the three NLI classes."""

from __future__ import annotations

from pydantic import Field, field_validator

from scicon.evaluate.benchmarks import LoaderOptions
from scicon.evaluate.loaders.rows import NLI_LABELS


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
