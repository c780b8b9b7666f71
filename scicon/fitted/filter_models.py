"""The ``filter_models`` section of params.yaml: the same-topic and claim models, one of each per
project. EvoNLI's ``similarity.embedding`` and ``claim.trained`` filters threshold them and the
finder ranks with them (its claim model with ``find.claim_model``'s changes), so both stages
declare this section and neither reads the other's."""

from __future__ import annotations

from pydantic import Field

from scicon.fitted.claim_model import ClaimModelSettings
from scicon.fitted.topic_model import TopicModelSettings
from scicon.params import Section


class FilterModels(Section):
    topic_model: TopicModelSettings = Field(description="P(same topic): the encoder and its calibration")
    claim_model: ClaimModelSettings = Field(description="P(claim): the claim classifier and its calibration")
