"""What blind annotators' labels say of a build: the judge EvoNLI searched against, scored on gold
pairs, and a blind read-back of the contradictions EvoNLI accepted. The project's own gold pairs and
read-backs were labelled by language-model annotators (automated readers), each working alone and
blind to how a pair was made, the rounds' batches with hidden gold controls.

Both go into ``reports/build.json`` and, as the section :data:`MEASURED_HEADING` and
the limitations that follow from them, into the dataset card, so that a reader of the card sees
how far the generated labels can be trusted without leaving the dataset. The judge is scored by
the function ``python -m scicon.teacher.gold`` runs, so a user who pulls the released judge and
runs that command gets the card's figures. The read-back is a file in the gold format (what
``python -m scicon.judgements read`` writes) under ``judgements/held_out/``; an accepted pair it
covers is matched by its two sentences, in either order, case and spacing aside, as the build
deduplicates them.

Only the build stage reads this module: the card's other sections (scicon.dataset.card) are part
of what the judge's training imports, and measuring the judge must not retrain it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from pydantic import Field, field_validator

from scicon.annotation.intervals import share_with_interval
from scicon.dataset.assemble import SciconBuild
from scicon.dataset.card import markdown_table
from scicon.dataset.gate import pair_key
from scicon.dataset.params import BuildSource
from scicon.dataset.sources import GENERATORS
from scicon.dataset.taxonomy import NEGATION_POLARITY
from scicon.errors import InputNotFoundError
from scicon.params import Section
from scicon.readers.gold import load_gold
from scicon.readers.sets import GoldSpec
from scicon.records.dataset import Example

EVONLI = GENERATORS[BuildSource.EVONLI]
# The folder of blind reads the build stage depends on (dvc.yaml): a read-back elsewhere would go
# stale unseen.
BLIND_READ_FOLDER = "judgements/held_out"
# The card's section the measured limitations join, and before which the measured section goes.
LIMITATIONS_HEADING = "## Known limitations"
MEASURED_HEADING = "## Measured against blind annotators' labels"
# Who labelled the project's gold pairs and read-backs, as the card says it.
ANNOTATORS = (
    "in this project, language-model annotators (automated readers, not people), each working "
    "alone and blind to how a pair was made"
)
_LIMITATION_ITEM = "\n- "


class CardParams(Section):
    """What the dataset card reports beyond the build's own counts (``card`` in params.yaml)."""

    blind_read: str | None = Field(
        description=f"a blind read-back of EvoNLI's accepted pairs in the gold format, under "
        f"{BLIND_READ_FOLDER}/: the card gives the share that truly contradict (null: not measured)"
    )

    @field_validator("blind_read")
    @classmethod
    def _blind_read_is_watched(cls, path: str | None) -> str | None:
        if path is not None and PurePosixPath(BLIND_READ_FOLDER) not in PurePosixPath(path).parents:
            raise ValueError(
                f"put the read-back under {BLIND_READ_FOLDER}/, the folder the build stage depends "
                "on (dvc.yaml), so that a new read reruns the build"
            )
        return path


def not_measured(reason: str) -> dict:
    return {"status": "not_measured", "reason": reason}


def judge_gold_figures(
    judge: Path | None,
    gold: GoldSpec,
    score: Callable[[Path, GoldSpec], dict | None],
    why_no_judge: str = "no judge",
) -> dict:
    """The judge's threshold-free gold figures (ROC-AUC overall and within the rule negatives, with
    bootstrap intervals) as ``score`` gives them (``scicon.teacher.gold.gold_figures``, passed in:
    the teacher package imports this one), or why there are none."""
    if judge is None:
        return not_measured(why_no_judge)
    if not gold.path:
        return not_measured("gold.path is null: no gold pairs to score the judge on")
    if not judge.is_dir():
        return not_measured(f"{judge}: no judge folder")
    figures = score(judge, gold)
    if figures is None or figures.get("status") != "evaluated":
        return not_measured((figures or {}).get("reason", "gold pairs not read"))
    return {"judge": str(judge), **figures}


# The generators whose label-1 rows are generated contradictions, the ones a blind read measures.
GENERATED = (EVONLI, GENERATORS[BuildSource.RULES_CROSS], GENERATORS[BuildSource.RULES_SELF])


def blind_read_figures(examples: Sequence[Example], read_back: str | None, level: float) -> dict:
    """Of the generated contradictions (EvoNLI's and the rules'), those the read-back covers: how
    many truly contradict (the annotators' majority) and how many read as machine-edited, per
    generator and per operator, with Wilson intervals at ``level``; EvoNLI's at the top, negations
    and other edits apart, by split.
    Pairs of the read-back the build lacks count nowhere."""
    if not read_back:
        return not_measured("card.blind_read is null: no blind read of the accepted pairs")
    path = Path(read_back)
    if not path.is_file():
        raise InputNotFoundError(f"card.blind_read: {path}: read-back not found")
    readings = {pair_key(pair.sentence1, pair.sentence2): pair for pair in load_gold(path, None)}
    generated = [example for example in examples if example.generator in GENERATED and example.label == 1]
    # every generated contradiction with its reading (None: the read does not cover it)
    rows = [(example, readings.get(pair_key(example.sentence1, example.sentence2))) for example in generated]

    def truly(members: list) -> dict:
        return share_with_interval(sum(read.label for _, read in members), len(members), level)

    def garbled(members: list) -> dict:
        return share_with_interval(
            sum(read.facet("garbled") == "1" for _, read in members), len(members), level
        )

    def figures(members: list) -> dict:
        read = [item for item in members if item[1] is not None]
        return {
            "in_build": len(members),
            "read": len(read),
            "truly_contradict": truly(read),
            "garbled": garbled(read),
        }

    evonli = [item for item in rows if item[0].generator == EVONLI and item[1] is not None]
    splits: dict[str, int] = {}
    for example, _ in evonli:
        splits[example.split] = splits.get(example.split, 0) + 1
    groups: dict[str, dict[str, list]] = {"by_source": {}, "by_operator": {}}
    for item in rows:
        for grouping, name in (("by_source", item[0].generator), ("by_operator", _operator_name(item[0]))):
            groups[grouping].setdefault(name, []).append(item)
    return {
        "status": "read",
        "file": str(path),
        "accepted": sum(example.generator == EVONLI for example in generated),
        "read": len(evonli),
        "by_split": dict(sorted(splits.items())),
        "truly_contradict": truly(evonli),
        "not_negations": truly([item for item in evonli if item[0].mutation_type != NEGATION_POLARITY]),
        "negations": truly([item for item in evonli if item[0].mutation_type == NEGATION_POLARITY]),
        "garbled": sum(read.facet("garbled") == "1" for _, read in evonli),
        "garbled_share": garbled(evonli),
        **{
            grouping: {name: figures(members) for name, members in sorted(named.items())}
            for grouping, named in groups.items()
        },
    }


def _operator_name(example: Example) -> str:
    """EvoNLI's rows by mutation type (its operators are recipes), the rules' by operator."""
    if example.generator == EVONLI:
        return f"{EVONLI}: {example.mutation_type or 'other'}"
    return f"{example.generator}: {example.operator or '-'}"


def _interval(low: float | None, high: float | None) -> str:
    return f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""


def _auc(figures: dict) -> str:
    auc = figures.get("roc_auc")
    if auc is None:
        return "not defined (one label only)"
    return f"{auc:.3f}{_interval(figures.get('roc_auc_ci_low'), figures.get('roc_auc_ci_high'))}"


def _share(entry: dict) -> str:
    if not entry["of"]:
        return "0 of 0"
    return f"{entry['hits']} of {entry['of']}, {entry['share']:.3f}{_interval(*entry['interval'])}"


def _percent_level(level: float) -> str:
    return f"{100 * level:g}%"


def _judge_text(judge: dict, level: float) -> str:
    if judge.get("status") != "evaluated":
        return f"The gold figures of the judge EvoNLI searched against were not measured: {judge['reason']}."
    overall, negatives = judge["overall"], judge["within_rule_negatives"]
    text = (
        f"EvoNLI searched against the judge `{judge['judge']}`. On {overall['examples']} gold pairs "
        f"(`{judge['file']}`, {overall['contradictions']} contradictions; pairs the pipeline made, "
        f"labelled by blind annotators: {ANNOTATORS}) it ranks contradictions above the "
        "rest at ROC-AUC "
        f"**{_auc(overall)}** overall and {_auc(negatives)} within the rule negatives "
        f"({negatives['examples']} pairs)"
    )
    edits = judge.get("within_edits")
    if edits:
        text += (
            f", {_auc(edits['not_negation'])} within the edits that are not negations and "
            f"{_auc(edits['negation'])} within the negations"
        )
    return (
        text + f"; {_percent_level(level)} bootstrap intervals. `python -m scicon.teacher.gold JUDGE "
        "--gold FILE` recomputes them from the judge's folder."
    )


def _blind_read_text(read: dict, level: float) -> str:
    if read.get("status") != "read":
        return f"No blind read of the accepted contradictions: {read['reason']}."
    splits = ", ".join(f"{split} {count}" for split, count in read["by_split"].items()) or "none"
    text = (
        f"Annotators who did not know how a pair was made ({ANNOTATORS}, their batches with hidden "
        f"gold controls) read {read['read']} of the "
        f"{read['accepted']} contradictions EvoNLI accepted (splits: {splits}; `{read['file']}`): "
        f"**{_share(read['truly_contradict'])}** truly contradict sentence1 "
        f"(Wilson {_percent_level(level)} interval); "
        f"{_share(read['not_negations'])} of those that are not negations and "
        f"{_share(read['negations'])} of the negations; {read['garbled']} read as machine-edited."
    )
    if "by_source" not in read:
        return text
    rows = [
        (
            name,
            figures["in_build"],
            figures["read"],
            _share(figures["truly_contradict"]),
            _share(figures["garbled"]),
        )
        for grouping in ("by_source", "by_operator")
        for name, figures in read[grouping].items()
    ]
    return (
        text + " Every generated contradiction of this build that the read covers, per source and then per "
        f"operator (EvoNLI's by mutation type), with Wilson {_percent_level(level)} intervals:\n\n"
        + markdown_table(
            ("source or operator", "in the build", "read", "truly contradict", "read as machine-edited"), rows
        )
    )


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def measured_limitations(metrics: dict) -> list[str]:
    """Limitations that follow from the build's own figures, one card item each."""
    items = []
    read = metrics["blind_read"]
    if read.get("status") == "read" and read["truly_contradict"]["share"] is not None:
        items.append(
            f"Of the EvoNLI contradictions read blind, {_percent(read['truly_contradict']['share'])} "
            "truly contradict sentence1: the label-1 rows are training signal, not a benchmark of "
            "true contradictions."
        )
    negation = metrics["mutation_types"].get(EVONLI, {}).get(NEGATION_POLARITY)
    if negation:
        items.append(
            f"{_percent(negation)} of EvoNLI's contradictions are negation edits: a model trained "
            "here can learn negation words as the cue, and its figures on pairs without them (the "
            "evaluate stage's `hard` benchmarks) say whether it did."
        )
    return items


def card_with_measures(card: str, metrics: dict, level: float) -> str:
    """``card`` with the section :data:`MEASURED_HEADING` before its limitations and
    the limitations those figures imply at the head of its limitation list."""
    head, heading, rest = card.partition(LIMITATIONS_HEADING)
    first_item = rest.find(_LIMITATION_ITEM)
    if not heading or first_item < 0:
        raise ValueError(f"the card has no {LIMITATIONS_HEADING!r} section with a list to extend")
    section = "\n\n".join(
        [
            MEASURED_HEADING,
            _judge_text(metrics["judge"], level),
            _blind_read_text(metrics["blind_read"], level),
        ]
    )
    items = "".join(_LIMITATION_ITEM + item for item in measured_limitations(metrics))
    return head + section + "\n\n" + heading + rest[:first_item] + items + rest[first_item:]


def add_measures(build: SciconBuild, judge: dict, card: CardParams, level: float) -> None:
    """Put the judge's gold figures and the blind read into the build's report and card; ``level``
    is the gold figures' confidence level (``gold.confidence_level``), the blind read's too."""
    build.metrics["judge"] = judge
    build.metrics["blind_read"] = blind_read_figures(build.dataset.examples, card.blind_read, level)
    build.card = card_with_measures(build.card, build.metrics, level)
