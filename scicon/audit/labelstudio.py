"""The audit's Label Studio files: the labeling config with the question, and its exports read.

The task import and the export formats are :mod:`scicon.annotation.labelstudio`'s; the audit's
config names its choice ``answer`` and its text box ``comment``. Label Studio's CSV export has
the JSON-MIN columns and is read by :mod:`scicon.audit.annotations`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import quoteattr

from scicon.annotation.labelstudio import read_export as read_labelstudio_export
from scicon.audit.question import GUIDANCE, QUESTION, Answer

ANSWER_FIELD = "answer"
COMMENT_FIELD = "comment"


def labeling_config() -> str:
    """The labeling interface: both sentences, the question, three choices and a comment box."""
    choices = "\n".join(f"    <Choice value={quoteattr(answer.value)}/>" for answer in Answer)
    return f"""<View>
  <Header value={quoteattr(QUESTION)}/>
  <Text name="guidance" value={quoteattr(GUIDANCE)}/>
  <Header value="Sentence A" size="5"/>
  <Text name="sentence_a" value="$sentence_a"/>
  <Header value="Sentence B" size="5"/>
  <Text name="sentence_b" value="$sentence_b"/>
  <Choices name="{ANSWER_FIELD}" toName="sentence_a" choice="single" showInline="true" required="true">
{choices}
  </Choices>
  <TextArea name="{COMMENT_FIELD}" toName="sentence_a" rows="2" maxSubmissions="1"
            placeholder="Optional comment (please say why when unsure)"/>
</View>
"""


@dataclass(frozen=True)
class RawAnswer:
    """One answer as a file holds it, before it is checked against the sample."""

    item_id: str
    answer: str
    comment: str
    sentences: tuple[str, str] | None
    user: str | None  # the tool's user, when the file says; None: the file's annotator
    position: str  # "line 7", "task 3": where in the file, for messages
    line: int | None = None


def read_export(path: Path) -> list[RawAnswer]:
    """The answers in a Label Studio JSON or JSON-MIN export (or in an unlabelled task file)."""
    return [
        RawAnswer(
            item_id=exported.item_id,
            answer=exported.choices.get(ANSWER_FIELD, ""),
            comment=exported.texts.get(COMMENT_FIELD, ""),
            sentences=exported.sentences,
            user=exported.user,
            position=exported.position,
        )
        for exported in read_labelstudio_export(path, choices=(ANSWER_FIELD,), texts=(COMMENT_FIELD,))
    ]
