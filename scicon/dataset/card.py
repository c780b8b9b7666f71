"""The SciCon dataset card (README.md beside the data), generated from the build's own numbers.

The YAML header follows the Hugging Face dataset-card spec (configs/data_files,
features with the label names, per-split counts); the prose sections follow the
card template's checklist. Every number comes from the same statistics that go
into ``reports/build.json``, so card and data cannot drift apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import yaml

from scicon.dataset.build import SPLITS, BuiltDataset
from scicon.dataset.params import BuildParams
from scicon.dataset.sources import GENERATORS, SourceReport
from scicon.dataset.taxonomy import MUTATION_TYPES
from scicon.labelled.candidates import LABELLED_PREFIX
from scicon.params import Thresholds

LABEL_NAMES = {0: "non_contradiction", 1: "contradiction"}

_FIELDS = (
    ("example_id", "string", "stable id: source pair or rule-negative id plus the generator"),
    (
        "pmid",
        "string",
        "the abstract both sentences come from (splits are grouped by it): a PubMed id (digits), a "
        "PubMed Central id (PMC and digits: the Evidence Inference trials) or DEMO and digits (the "
        "fictional demo corpus); the set and its group for labelled:<set> rows",
    ),
    ("sentence1", "string", "first sentence (order randomised per pair)"),
    ("sentence2", "string", "second sentence (order randomised per pair)"),
    ("label", "class_label", "1 = contradiction, 0 = non-contradiction"),
    (
        "generator",
        "string",
        "what made the pair: "
        + ", ".join(dict.fromkeys(GENERATORS.values()))
        + ", or labelled:<set> (a pair of a labelled NLI set, with the set's label); a generator can "
        "hold both labels (rules_cross: rule contradictions and label-0 synonym controls), so select "
        "on label and operator",
    ),
    ("operator", "string", "EvoNLI recipe, rule operator, or the pair kind for original pairs"),
    ("mutation_type", "string", "appendix-D mutation type of a generated contradiction (null otherwise)"),
    ("split", "string", "train, dev or test"),
)


def _size_category(count: int) -> str:
    for limit, name in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
    ):
        if count < limit:
            return name
    return "n>1M"


def _header(dataset: BuiltDataset) -> str:
    features = []
    for name, dtype, _ in _FIELDS:
        if dtype == "class_label":
            features.append(
                {
                    "name": name,
                    "dtype": {"class_label": {"names": {str(k): v for k, v in LABEL_NAMES.items()}}},
                }
            )
        else:
            features.append({"name": name, "dtype": dtype})
    header = {
        "pretty_name": "SciCon",
        "language": ["en"],
        # the text keeps each source corpus's licence, the labels and edits are the project's: the
        # card's "Licences" section says which applies to which rows
        "license": "other",
        "license_name": "per-source",
        "license_details": _LICENCE_DETAILS,
        "task_categories": ["text-classification"],
        "task_ids": ["natural-language-inference"],
        "size_categories": [_size_category(len(dataset.examples))],
        "source_datasets": _source_datasets(dataset.examples),
        "tags": ["biomedical", "contradiction-detection", "pubmed", "synthetic"],
        "configs": [
            {
                "config_name": "default",
                "data_files": [{"split": split, "path": f"{split}.parquet"} for split in SPLITS],
            }
        ],
        "dataset_info": {
            "features": features,
            "splits": [{"name": split, "num_examples": len(dataset.splits[split])} for split in SPLITS],
        },
    }
    return "---\n" + yaml.safe_dump(header, sort_keys=False, allow_unicode=True) + "---\n"


_LICENCE_DETAILS = (
    "The sentences are abstracts' text (or edits of it) and keep their source's licence: PubMedQA "
    "and Evidence Inference are MIT, the fictional demo corpus CC0, a labelled NLI set its own; the "
    "labels and the edits are the SciCon project's, Apache-2.0. See the card's Licences section."
)


def _id_form(pmid: str) -> str:
    """Which kind of abstract id ``pmid`` is: the card's licence rows follow it."""
    if pmid.startswith("PMC") and pmid[3:].isdigit():
        return "pmcid"
    if pmid.startswith("DEMO"):
        return "demo"
    return "pmid" if pmid.isdigit() else "other"


def _source_datasets(examples: Sequence) -> list[str]:
    """``original`` for the project's own fictional demo text alone; ``extended`` when the text comes
    from another corpus (named in the Licences section)."""
    forms = {_id_form(example.pmid) for example in examples if not _is_labelled(example)}
    return ["original"] if forms <= {"demo"} and not any(map(_is_labelled, examples)) else ["extended"]


def _is_labelled(example) -> bool:
    return example.generator.startswith(LABELLED_PREFIX)


def markdown_table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


_INTRO = """\
# SciCon

SciCon is a binary biomedical contradiction dataset: sentence pairs from structured abstracts,
labelled contradiction (1) or non-contradiction (0). Its contradictions are machine-made, by rule
edits of a sentence (`rules_cross`, `rules_self`: negations, opposites, modality and significance
flips, role swaps) and by EvoNLI, the evolutionary word-mutation search of *Evolutionary
Self-Supervised Contradiction Detection for Biomedical NLI* (`evonli`); its non-contradictions are
the original entailing pairs, EvoNLI's non-contradiction target and label-preserving rule edits
(synonym controls). This card was generated by the `build` stage from the same statistics as
`reports/build.json`."""

# What a label-1 or label-0 row of each generator is, for the card's composition table.
_MADE_BY = {
    "evonli": "EvoNLI rewrites",
    "evonli_non_contradiction": "EvoNLI rewrites (target non-contradiction)",
    "original": "original entailing pairs",
    "rules_cross": "rule edits of sentence2 (cross form)",
    "rules_self": "rule edits paired with their own sentence (self form)",
}
_CONTROLS = "label-preserving synonym controls"

_USES = """\
## Uses

For studying how contradictions are generated from abstracts and what a classifier learns from
them: the EvoNLI method, its rule-based baselines and their artefacts. Not, as built, a benchmark
of true contradictions (the labels are the generating procedure's; the section measured against
annotators' labels, where a build has it, says how far they hold), nor training data for a
deployable classifier: in the project's runs, students fine-tuned on SciCon have not beaten a
model that reads sentence2 alone on biomedical NLI benchmarks (the project's README). Out of
scope: medical advice, and judging real studies: every contradiction here is machine-made and
contradicts its source sentence, not the literature."""


def _label_source(example) -> str:
    """What made a row, label apart: a generator, or the controls that share a rule generator."""
    if example.generator.startswith(LABELLED_PREFIX):
        return f"pairs of the labelled set `{example.generator.removeprefix(LABELLED_PREFIX)}`"
    made = _MADE_BY.get(example.generator, example.generator)
    if example.label == 0 and example.generator.startswith("rules_"):
        return f"{_CONTROLS} (`{example.generator}`)"
    return f"{made} (`{example.generator}`)"


def _composition(examples: Sequence) -> str:
    """Where the contradictions and the non-contradictions come from, with their shares."""
    parts = []
    for label, name in ((1, "contradictions"), (0, "non-contradictions")):
        members = [example for example in examples if example.label == label]
        if not members:
            continue
        counts = Counter(_label_source(example) for example in members)
        rows = [(source, count, _percent(count / len(members))) for source, count in counts.most_common()]
        parts.append(f"Its {len(members)} {name}:\n\n" + markdown_table(("made by", "rows", "share"), rows))
    return "\n\n".join(parts) if parts else "(no examples)"


def _both_labels(examples: Sequence) -> str:
    """A warning for each generator whose rows carry both labels: filtering on it returns both."""
    notes = []
    for generator in sorted({example.generator for example in examples}):
        labels = Counter(example.label for example in examples if example.generator == generator)
        if len(labels) < 2:
            continue
        zero_operators = sorted(
            {e.operator for e in examples if e.generator == generator and e.label == 0 and e.operator}
        )
        notes.append(
            f"**`{generator}` rows carry both labels**: {labels[1]} contradictions and {labels[0]} "
            f"label-0 rows ({', '.join(f'`{name}`' for name in zero_operators) or 'no operator'}). "
            "Select on `label` and `operator`, not on `generator` alone."
        )
    return "\n\n".join(notes)


_SPLITS = """\
## Splits and label balance

Splits are grouped by abstract (PMID): all pairs of one abstract share a split, so no test
sentence is seen in training. An abstract's split is a hash of (seed, PMID) against the split
fractions (dev {dev_fraction}, test {test_fraction} of the abstracts).{held_out}"""

_HELD_OUT = """ The abstracts listed in {paths} (kept out of every training set) go to test
whatever the hash says: {held} of this build's abstracts are among them, so test holds
{test_abstracts} of the {abstracts} abstracts ({share}), not the {test_fraction} the hash draws alone."""


def _splits_text(dataset: BuiltDataset, metrics: dict, params: BuildParams) -> str:
    held_out = ""
    if params.held_out:
        listed = params.held_out_ids()
        abstracts = {example.pmid for example in dataset.examples}
        test = metrics["test"]["abstracts"]
        held_out = _HELD_OUT.format(
            paths=" and ".join(f"`{path}`" for path in params.held_out),
            held=len(abstracts & listed),
            test_abstracts=test,
            abstracts=len(abstracts),
            share=_percent(test / len(abstracts)) if abstracts else "-",
            test_fraction=_percent(params.test_fraction),
        )
    return _SPLITS.format(
        dev_fraction=params.dev_fraction, test_fraction=params.test_fraction, held_out=held_out
    )


# Where each kind of abstract id's text comes from, and its licence (the card's Licences section).
_ID_SOURCES = {
    "pmid": (
        "a PubMed id",
        "PubMed abstracts: in the project's `real-abstracts` recipe, PubMedQA's labelled abstracts "
        "(`pubmedqa/pubmedqa`, named source `pubmedqa-l`); otherwise the corpus `ingest.source` named",
        "MIT for PubMedQA; otherwise the corpus's own",
    ),
    "pmcid": (
        "a PubMed Central id (`PMC...`)",
        "abstracts of PubMed Central articles: the Evidence Inference trials "
        "(`jayded/evidence-inference`, named source `evidence-inference`)",
        "MIT (Evidence Inference)",
    ),
    "demo": ("`DEMO...`", "the project's fictional demo corpus (`data/demo/`), not medical data", "CC0"),
    "other": ("another id", "the corpus `ingest.source` named", "the corpus's own"),
}


def _licences(examples: Sequence) -> str:
    rows = []
    forms = Counter(_id_form(example.pmid) for example in examples if not _is_labelled(example))
    for form, (pmid, source, licence) in _ID_SOURCES.items():
        if forms[form]:
            rows.append((forms[form], pmid, source, licence))
    labelled = Counter(example.generator for example in examples if _is_labelled(example))
    for generator, count in sorted(labelled.items()):
        rows.append((count, "the set and its group", f"the labelled set `{generator}`", "the set's own"))
    table = markdown_table(("rows", "pmid", "text from", "licence"), rows) if rows else "(no rows)"
    return "\n\n".join(
        [
            "## Licences",
            "Every sentence is text of the abstracts the `ingest` stage read (or of a labelled set), "
            "or an edit of it, and keeps its source's licence, which binds anyone who redistributes "
            "this build:",
            table,
            "The labels, the edits and the card are the SciCon project's, under its licence (Apache-2.0).",
        ]
    )


_REMOVED = """\
Removed while building: {duplicates} duplicates (unordered, normalised sentence pairs),
{conflicting_labels} pairs that appeared with both labels, {identical_sentences} pairs whose two
sentences were identical. Sentence order is swapped in {swapped} of the pairs (exactly half of
each split and label, seeded), so position carries no label information."""

_TYPES = """\
## Mutation types

Each generated contradiction is tagged with its appendix-D mutation type by rules over the
words its edit removed or inserted (logical types take priority). The paper reports 42%
negation/polarity and 30% causation for SciCon."""

# What each form of rule negatives means for a model trained on it (scicon.dataset.sources).
_RULE_FORMS = {
    "rules_self": """\
- `rules_self` rows pair a sentence with its own rule edit. Such pairs differ by a word or two,
  and a classifier can learn them through that shortcut (near-identical sentences mean
  contradiction); measured in this project, what it learns from them does not transfer to
  real contradictions.
""",
    "rules_cross": """\
- `rules_cross` rows pair a pair's first sentence (the supporting result, or another
  conclusion) with a rule edit of its conclusion. A rule edit contradicts the sentence it was
  made from, so the label holds as far as the first sentence supports the conclusion, which is
  what made the two an entailing pair.
""",
}

_LABELLED = """\
- `labelled:<set>` rows are pairs of labelled NLI sets (`build.labelled`) with the label their
  annotators gave (contradiction 1; entailment and neutral 0). They are not abstracts: their
  `pmid` is the set and its group (premise or document), and each keeps its own licence, which
  binds anyone who redistributes this build.
"""

_BASELINE = """\
A hypothesis-only baseline (TF-IDF logistic regression that sees only the generated sentence,
trained on train, scored on test) reaches ROC-AUC **{auc:.3f}**. The further above 0.5, the more
the label can be read off one sentence's wording (e.g. an inserted negation) without comparing
the pair; models trained on SciCon may learn such cues."""

_NO_BASELINE = """\
The hypothesis-only baseline was not computed for this build (disabled, or a split lacks a
label)."""

_LIMITATIONS = """\
- Labels are assigned by the generating procedure, not by annotators; with a small teacher
  model EvoNLI's acceptances are noisy.
{rule_forms}- Mutation types come from word lists; edits outside them are `other`.
- Licence: each row keeps its source's licence (the Licences section).

## Citation

The method: *Evolutionary Self-Supervised Contradiction Detection for Biomedical NLI* (EvoNLI and
SciCon; under double-blind review, its authors not public). This build: the SciCon repository
(its CITATION.cff)."""


def _split_table(metrics: dict) -> str:
    head = ("split", "examples", "contradictions", "non-contradictions", "contradiction share", "abstracts")
    rows = []
    for split in SPLITS:
        stats = metrics[split]
        rows.append(
            (
                split,
                stats["examples"],
                stats["contradictions"],
                stats["non_contradictions"],
                _percent(stats["contradiction_fraction"]),
                stats["abstracts"],
            )
        )
    return markdown_table(head, rows)


def _left_out(report: SourceReport) -> str:
    """Rows a source left out, by reason ("-" when none)."""
    reasons = [f"{reason}: {count}" for reason, count in (report.skipped or {}).items() if count]
    return ", ".join(reasons) or "-"


def _operator_table(metrics: dict) -> str:
    rows = [
        (generator, operator, *(counts[split] for split in SPLITS))
        for generator, operators in metrics["rows_per_operator"].items()
        for operator, counts in operators.items()
    ]
    return markdown_table(("generator", "operator", *SPLITS), rows) if rows else "(no rows)"


def _provenance(
    dataset: BuiltDataset, reports: Sequence[SourceReport], metrics: dict, params, thresholds
) -> str:
    examples = dataset.examples
    sources = markdown_table(
        ("source", "status", "rows read", "left out", "file"),
        [(r.name, r.status, r.rows, _left_out(r), r.path) for r in reports],
    )
    generator_rows = []
    for generator in sorted({e.generator for e in examples}):
        members = [e for e in examples if e.generator == generator]
        operators = sorted({e.operator for e in members if e.operator})
        contradictions = sum(e.label for e in members)
        generator_rows.append((generator, len(members), contradictions, ", ".join(operators[:6]) or "-"))
    settings = [
        f"- sources: {', '.join(s.value for s in params.sources)}",
        f"- split fractions (of abstracts): dev {params.dev_fraction}, test {params.test_fraction}"
        + (f"; held-out abstracts (test only): {params.held_out}" if params.held_out else ""),
        f"- seed: {params.seed}",
    ]
    if thresholds is not None:
        settings.append(
            f"- EvoNLI thresholds (paper Table 6): T_sim = {thresholds.sim}, "
            f"T_claim = {thresholds.claim}, T_conf = {thresholds.target}"
        )
    return "\n\n".join(
        [
            "## How it was made",
            sources,
            "A listed source with status `missing` or `empty` contributed nothing to this build.",
            markdown_table(("generator", "examples", "contradictions", "operators"), generator_rows),
            "Rows per generator and operator (EvoNLI recipe, rule operator, or pair kind), by split:",
            _operator_table(metrics),
            "Settings:\n\n" + "\n".join(settings),
        ]
    )


def _interval_text(figure: dict | None) -> str:
    if not figure or figure.get("share") is None:
        return "-"
    low, high = figure["interval"]
    return f"{figure['hits']}/{figure['of']} = {figure['share']:.2f} [{low:.2f}, {high:.2f}]"


def _gate(metrics: dict) -> str | None:
    """What the gate removed from each source, and what annotators read of the sources (None: no gate)."""
    gate = metrics.get("gate")
    if gate is None:
        return None
    settings = gate["settings"]
    checks = [
        f"source precision at least {settings['min_precision']} (reads: {settings['precision_reads']})"
        if settings["precision_reads"]
        else "no source precision gate",
        f"P(garbled) at most {settings['max_garbled']}"
        if settings["naturalness"]
        else "no naturalness check",
        f"verifier P(contradiction) at least {settings['min_verifier']}"
        if settings["verifier"]
        else "no verifier",
    ]
    rows = []
    for source, counts in gate["by_source"].items():
        rows.append(
            (
                source,
                counts.get("offered", 0),
                counts.get("below_precision", 0),
                counts.get("garbled", 0),
                counts.get("verifier_rejected", 0),
                counts.get("kept", 0),
                _interval_text(gate["read_precision"].get(source)),
                _interval_text(gate["kept_read_precision"].get(source)),
            )
        )
    return "\n\n".join(
        [
            "## The gate",
            "A generated contradiction became a label-1 row only when it passed every check, in this "
            "order: " + "; ".join(checks) + ". Per source, what each check removed, the share of the "
            "source's pairs that annotators (language-model readers with hidden gold controls, blind "
            "to how a pair was made) read as contradictions, and that share among the kept pairs "
            "they read (in sample where the verifier or the check learnt from those reads):",
            markdown_table(
                (
                    "source",
                    "offered",
                    "below precision",
                    "garbled",
                    "verifier rejected",
                    "kept",
                    "read precision",
                    "read precision, kept",
                ),
                rows,
            ),
        ]
    )


def _type_table(metrics: dict) -> str:
    rows = []
    for generator, distribution in metrics["mutation_types"].items():
        for kind in MUTATION_TYPES:
            if distribution.get(kind.name):
                rows.append((generator, kind.family, kind.name, _percent(distribution[kind.name])))
        if distribution.get("other"):
            rows.append((generator, "-", "other", _percent(distribution["other"])))
    return (
        markdown_table(("generator", "family", "type", "share"), rows)
        if rows
        else "(no generated contradictions)"
    )


def render_card(
    dataset: BuiltDataset,
    reports: Sequence[SourceReport],
    metrics: dict,
    params: BuildParams,
    thresholds: Thresholds | None,
) -> str:
    examples = dataset.examples
    instance = dataset.splits["train"][0] if dataset.splits["train"] else (examples[0] if examples else None)
    instance_text = (
        "```json\n" + instance.model_dump_json(indent=2) + "\n```" if instance else "(no examples)"
    )
    baseline = metrics.get("hypothesis_only_roc_auc")
    generators = {example.generator for example in examples}
    removed = dict(metrics["removed"], swapped=_percent(metrics["order_swapped_fraction"]))
    sections = [
        _header(dataset).rstrip("\n"),
        _INTRO,
        _composition(examples),
        *filter(None, [_both_labels(examples)]),
        _USES,
        _splits_text(dataset, metrics, params),
        _split_table(metrics),
        "## Data fields",
        markdown_table(("field", "type", "meaning"), _FIELDS),
        "## Data instance",
        instance_text,
        _provenance(dataset, reports, metrics, params, thresholds),
        *filter(None, [_gate(metrics)]),
        _REMOVED.format(**removed),
        _TYPES,
        _type_table(metrics),
        _licences(examples),
        "## Known limitations",
        _BASELINE.format(auc=baseline) if baseline is not None else _NO_BASELINE,
        _LIMITATIONS.format(
            rule_forms="".join(text for name, text in _RULE_FORMS.items() if name in generators)
            + (_LABELLED if any(name.startswith(LABELLED_PREFIX) for name in generators) else "")
        ),
    ]
    return "\n\n".join(sections) + "\n"
