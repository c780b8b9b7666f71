"""A round's files: what each annotator receives, and the private key that stays behind.

An annotator gets one plain-text batch (each item's id, sentence A and sentence B, in the
annotator's own order), the same items as Label Studio tasks with a three-way labeling
config, and the instructions. A is always the abstract's sentence and B the statement, as
the instructions define them. Nothing else: not the source, operator, PMID or whether an
item is a gold control.

The round folder:

- ``key.jsonl`` (private): every sampled item with its provenance and sampling weight;
- ``controls.jsonl`` (private): the hidden gold items and their labels;
- ``assignments.json`` (private): which item ids each annotator was given, in order;
- ``manifest.json``: what the round was drawn from and how many of each stratum;
- ``blinded/annotator-N.txt``, ``blinded/annotator-N.labelstudio.json``,
  ``blinded/labelstudio_config.xml``, ``blinded/INSTRUCTIONS.md``: what is sent out;
- ``annotations/``: where the answers go (``annotator-N.tsv`` or a Label Studio export).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from scicon.annotation.blinding import (
    ANNOTATIONS,
    BLINDED,
    CONFIG_FILE,
    INSTRUCTIONS_FILE,
    KEY_FILE,
    MANIFEST_FILE,
)
from scicon.annotation.labelstudio import task
from scicon.annotation.readback import GARBLED_FIELD, LABEL_FIELD
from scicon.io import atomic_open, write_json, write_jsonl
from scicon.judgements.sample import RoundSample

LABELS = ("contradiction", "entailment", "neutral")
CONTROLS_FILE = "controls.jsonl"
ASSIGNMENTS_FILE = "assignments.json"

LABELING_CONFIG = f"""<View>
  <Header value="How does B relate to A? (see INSTRUCTIONS.md)"/>
  <Header value="A" size="5"/>
  <Text name="sentence_a" value="$sentence_a"/>
  <Header value="B" size="5"/>
  <Text name="sentence_b" value="$sentence_b"/>
  <Choices name="{LABEL_FIELD}" toName="sentence_a" choice="single" showInline="true" required="true">
    <Choice value="contradiction"/>
    <Choice value="entailment"/>
    <Choice value="neutral"/>
  </Choices>
  <Choices name="{GARBLED_FIELD}" toName="sentence_b" choice="single" showInline="true">
    <Choice value="{GARBLED_FIELD}"/>
  </Choices>
</View>
"""


def batch_text(name: str, shown: list[tuple[str, str, str]]) -> str:
    lines = [
        f"# Batch {name}: {len(shown)} items. Read INSTRUCTIONS.md first.",
        "# Answer every item with one line: item_id<TAB>label<TAB>garbled",
        "# (label: contradiction, entailment or neutral; garbled: 1 or 0).",
        "",
    ]
    for number, (item_id, sentence_a, sentence_b) in enumerate(shown, start=1):
        lines += [f"[{number}] {item_id}", f"A: {sentence_a}", f"B: {sentence_b}", ""]
    return "\n".join(lines)


def write_round(sample: RoundSample, manifest: dict, instructions: Path, folder: Path) -> None:
    """Write the round folder (see the module docstring); the key and batches are replaced whole."""
    sentences = {item.item_id: (item.sentence1, item.sentence2) for item in sample.items}
    sentences |= {control.item_id: (control.sentence1, control.sentence2) for control in sample.controls}
    write_jsonl(folder / KEY_FILE, sample.items)
    write_jsonl(folder / CONTROLS_FILE, sample.controls)
    write_json(folder / ASSIGNMENTS_FILE, sample.assignments)
    write_json(folder / MANIFEST_FILE, manifest)
    blinded = folder / BLINDED
    blinded.mkdir(parents=True, exist_ok=True)
    for name, ids in sample.assignments.items():
        shown = [(item_id, *sentences[item_id]) for item_id in ids]
        with atomic_open(blinded / f"{name}.txt") as handle:
            handle.write(batch_text(name, shown))
        write_json(blinded / f"{name}.labelstudio.json", [task(*row) for row in shown])
    with atomic_open(blinded / CONFIG_FILE) as handle:
        handle.write(LABELING_CONFIG)
    shutil.copyfile(instructions, blinded / INSTRUCTIONS_FILE)
    (folder / ANNOTATIONS).mkdir(exist_ok=True)
