"""The build stage: sources, deduplication, PMID-grouped splits, order randomisation, card."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from scicon.classifier_folder import write_untrained
from scicon.dataset import assemble_scicon, write_scicon
from scicon.dataset.build import build_dataset, deduplicate, order_swaps
from scicon.dataset.params import BuildParams, BuildSource
from scicon.dataset.sources import SourcePaths, read_sources
from scicon.dataset.taxonomy import mutation_type
from scicon.errors import InputFormatError, InputNotFoundError, NoWorkError, ParamsError
from scicon.io import read_jsonl, write_jsonl
from scicon.params import load_section, read_params_file
from scicon.records.base import WordEdit
from scicon.records.corpus import Role
from scicon.records.dataset import Candidate, Example
from scicon.records.negatives import RuleNegative
from scicon.records.pairs import Pair, PairKind
from scicon.textdiff import word_diff
from tests.params_defaults import PARAMS_FILE, section, section_values
from tests.source_fixtures import mutated_pairs, rule_negatives

# every source read from the DAG's files (the source `labelled` reads build.labelled instead)
ALL_SOURCES = tuple(source for source in BuildSource if source is not BuildSource.LABELLED)


def params(**overrides) -> BuildParams:
    # the fixture's abstracts are none of the gold pairs' (params.yaml's held_out, a repository path)
    values = {"sources": ALL_SOURCES, "dev_fraction": 0.2, "test_fraction": 0.2, "seed": 3, "held_out": ()}
    values |= overrides
    return section("build", BuildParams, **values)


def make_pairs(abstracts: int = 30) -> list[Pair]:
    pairs = []
    for number in range(abstracts):
        pmid = str(1000 + number)
        for index in range(2):
            pairs.append(
                Pair(
                    pair_id=f"{pmid}-rc-{index}-9",
                    pmid=pmid,
                    kind=PairKind.RESULT_CONCLUSION,
                    sentence1=f"In trial {pmid}, arm {index} patients had increased survival at {number}m.",
                    sentence2=f"Drug {pmid}-{index} is effective and safe for these patients.",
                    role1=Role.RESULTS,
                    role2=Role.CONCLUSIONS,
                    index1=index,
                    index2=9,
                )
            )
    return pairs


@pytest.fixture
def sources(tmp_path) -> SourcePaths:
    pairs = make_pairs()
    paths = SourcePaths(
        pairs=tmp_path / "pairs.jsonl",
        evolve=tmp_path / "accepted.jsonl",
        negatives=tmp_path / "negatives.jsonl",
    )
    write_jsonl(paths.pairs, pairs)
    write_jsonl(paths.evolve, mutated_pairs(pairs, non_contradiction_every=3))
    write_jsonl(paths.negatives, rule_negatives(pairs))
    return paths


def test_no_abstract_crosses_splits(sources):
    build = assemble_scicon(sources, params())
    splits_of = defaultdict(set)
    for example in build.dataset.examples:
        splits_of[example.pmid].add(example.split)
    assert all(len(splits) == 1 for splits in splits_of.values())
    assert {split for splits in splits_of.values() for split in splits} == {"train", "dev", "test"}
    # every pair of an abstract (original, mutation, negative) went to the same split
    assert len(splits_of) == 30


def test_a_pmid_keeps_its_split_when_other_abstracts_change(sources, tmp_path):
    full = assemble_scicon(sources, params())
    fewer = make_pairs(20)
    write_jsonl(sources.pairs, fewer)
    write_jsonl(sources.evolve, mutated_pairs(fewer))
    write_jsonl(sources.negatives, rule_negatives(fewer))
    partial = assemble_scicon(sources, params())
    split_full = {e.pmid: e.split for e in full.dataset.examples}
    assert all(split_full[e.pmid] == e.split for e in partial.dataset.examples)


def test_sentence_order_is_seeded_and_exactly_balanced_per_split_and_label(sources):
    first = assemble_scicon(sources, params()).dataset
    again = assemble_scicon(sources, params()).dataset
    other = assemble_scicon(sources, params(seed=4)).dataset
    assert [e.model_dump() for e in first.examples] == [e.model_dump() for e in again.examples]

    def swapped(dataset):
        return {e.example_id for e in dataset.examples if e.sentence1 == dataset.hypotheses[e.example_id]}

    assert swapped(first) != swapped(other)
    groups = Counter((e.split, e.label) for e in first.examples)
    swaps = Counter((e.split, e.label) for e in first.examples if e.example_id in swapped(first))
    for group, size in groups.items():
        assert swaps[group] == size // 2, group


def test_order_swaps_are_half_and_deterministic():
    ids = [f"id-{i}" for i in range(101)]
    assert order_swaps(ids, 1, "g") == order_swaps(list(reversed(ids)), 1, "g")
    assert len(order_swaps(ids, 1, "g")) == 50


def test_duplicates_conflicts_and_identical_pairs_are_removed():
    def candidate(example_id, a, b, label):
        return Candidate(example_id, "1", a, b, label, "original")

    kept, removed = deduplicate(
        [
            candidate("a", "X improved pain.", "Y improved pain.", 0),
            candidate("b", "y improved  pain.", "X improved pain.", 0),  # same pair, other order and case
            candidate("c", "P was safe.", "Q was safe.", 0),
            candidate("d", "Q was safe.", "P was safe.", 1),  # same pair, other label
            candidate("e", "Same.", "same.", 1),
        ]
    )
    assert [c.example_id for c in kept] == ["a"]
    assert removed == {"duplicates": 2, "conflicting_labels": 1, "identical_sentences": 1}


def test_missing_and_empty_sources_are_reported_not_silently_zero(sources, tmp_path, caplog):
    write_jsonl(sources.evolve, [m for m in mutated_pairs(make_pairs()) if m.target_label == "contradiction"])
    sources.negatives.unlink()
    build = assemble_scicon(sources, params())
    assert build.metrics["sources"]["rules_self"] == {"status": "missing", "rows": 0}
    assert build.metrics["sources"]["rules_cross"]["status"] == "missing"
    assert build.metrics["sources"]["evonli_non_contradiction"] == {"status": "empty", "rows": 0}
    assert build.metrics["sources"]["evonli"]["status"] == "ok"
    assert build.metrics["sources_unavailable"] == 5  # four rule sources and the empty evolve target
    assert "does not exist" in caplog.text and "has no rows" in caplog.text
    assert "| rules_self | missing | 0 | - |" in build.card


def test_sources_without_contradictions_stop_the_build_naming_what_to_change(sources):
    with pytest.raises(NoWorkError, match=r"no contradictions.*original \(ok, \d+ rows\).*lower `target`"):
        assemble_scicon(sources, params(sources=(BuildSource.ORIGINAL, BuildSource.RULE_CONTROLS_SELF)))
    sources.evolve.write_text("")  # evolve searched and accepted nothing
    with pytest.raises(NoWorkError, match=r"evonli \(empty, 0 rows\)"):
        assemble_scicon(sources, params(sources=(BuildSource.EVONLI, BuildSource.ORIGINAL)))


def test_sources_without_non_contradictions_stop_the_build(sources):
    with pytest.raises(NoWorkError, match="no non-contradictions.*add original"):
        assemble_scicon(sources, params(sources=(BuildSource.EVONLI,)))


def test_provenance_labels_and_taxonomy(sources):
    build = assemble_scicon(sources, params())
    by_generator = defaultdict(set)
    for example in build.dataset.examples:
        by_generator[example.generator].add(example.label)
        assert (example.mutation_type is not None) == (example.label == 1)
    assert by_generator == {
        "evonli": {1},
        "evonli_non_contradiction": {0},
        "original": {0},
        "rules_self": {0, 1},
        "rules_cross": {0, 1},
    }
    distribution = build.metrics["mutation_types"]["evonli"]
    assert sum(distribution.values()) == pytest.approx(1.0, abs=1e-3)
    assert 0 < build.metrics["hypothesis_only_roc_auc"] <= 1


@pytest.mark.parametrize(
    ("original", "mutated", "expected"),
    [
        ("Aspirin reduces mortality.", "Aspirin does not reduce mortality.", "negation_polarity"),
        ("The drug was effective.", "The drug was ineffective.", "negation_polarity"),
        ("All patients improved.", "Some patients improved.", "quantifier"),
        ("Mortality fell by 12%.", "Mortality fell by 30%.", "numerical"),
        ("Statins must be continued.", "Statins might be continued.", "modality"),
        ("Exercise increases bone density.", "Exercise decreases bone density.", "causation"),
        ("Smoking leads to cancer.", "Smoking prevents cancer.", "causation"),
        ("Levels were higher in group A.", "Levels were lower in group A.", "scalar"),
        ("The procedure is safe.", "The procedure is dangerous.", "evaluative"),
        ("Effects appeared before dosing.", "Effects appeared after dosing.", "temporal"),
        ("Patients should stop the drug.", "Patients should start the drug.", "action"),
        ("Risk was associated with age.", "Risk was independent of age.", "relational"),
        ("Benefit was seen in men.", "Benefit was seen in women.", "categorical"),
        ("The result held in Paris.", "The result held in Lyon.", "other"),
    ],
)
def test_mutation_types_from_word_diff(original, mutated, expected):
    assert mutation_type(word_diff(original, mutated)) == expected


def test_a_negation_moved_to_another_clause_is_a_negation_flip():
    # Deleted in one place and inserted in another: two flips, whatever the words have in common.
    edits = [
        WordEdit(op="delete", position=3, original="not", replacement=""),
        WordEdit(op="insert", position=12, original="", replacement="not"),
    ]
    assert mutation_type(edits) == "negation_polarity"
    one_edit = [WordEdit(op="replace", position=2, original="did not reduce", replacement="did not lower")]
    assert mutation_type(one_edit) == "causation"


def test_written_splits_load_with_datasets_and_match_the_card(sources, tmp_path):
    from datasets import load_dataset

    build = assemble_scicon(sources, params())
    folder = tmp_path / "scicon"
    (folder).mkdir()
    (folder / "stale.parquet").write_text("old")
    write_scicon(build, folder)
    assert not (folder / "stale.parquet").exists()
    card = (folder / "README.md").read_text(encoding="utf-8")
    header = yaml.safe_load(card.split("---")[1])
    counts = {s["name"]: s["num_examples"] for s in header["dataset_info"]["splits"]}
    assert counts == {split: build.metrics[split]["examples"] for split in ("train", "dev", "test")}

    dataset = load_dataset(str(folder))
    assert {name: len(dataset[name]) for name in dataset} == counts
    assert dataset["train"].features["label"].names == ["non_contradiction", "contradiction"]
    jsonl = list(read_jsonl(folder / "train.jsonl", Example))
    assert [e.example_id for e in jsonl] == dataset["train"]["example_id"]
    as_json = load_dataset("json", data_files=str(folder / "test.jsonl"))["train"]
    assert len(as_json) == counts["test"]
    assert json.loads(json.dumps(build.metrics))["examples"] == sum(counts.values())


def test_the_card_says_where_its_rows_come_from_their_licences_and_the_held_out_split(sources, tmp_path):
    held_out = tmp_path / "held_out.txt"
    held_out.write_text("1000\n1001\n1002\n# three abstracts of the fixture\n")
    build = assemble_scicon(sources, params(held_out=str(held_out)))
    card, examples = build.card, build.dataset.examples
    assert {e.split for e in examples if e.pmid in {"1000", "1001", "1002"}} == {"test"}

    # where the contradictions come from, with their shares, and a generator of both labels
    contradictions = [e for e in examples if e.label == 1]
    rules = sum(e.generator == "rules_cross" for e in contradictions)
    controls = sum(e.generator == "rules_cross" and e.label == 0 for e in examples)
    assert rules and controls
    assert f"Its {len(contradictions)} contradictions:" in card
    share = f"{100 * rules / len(contradictions):.1f}%"
    assert f"| rule edits of sentence2 (cross form) (`rules_cross`) | {rules} | {share} |" in card
    assert f"| label-preserving synonym controls (`rules_cross`) | {controls} |" in card
    assert f"**`rules_cross` rows carry both labels**: {rules} contradictions and {controls} label-0" in card
    assert "Select on `label` and `operator`, not on `generator` alone." in card

    # the split as it is: the held-out abstracts in test, and the share test holds
    abstracts = len({e.pmid for e in examples})
    test = build.metrics["test"]["abstracts"]
    assert (
        f"3 of this build's abstracts are among them, so test holds\n{test} of the {abstracts} "
        f"abstracts ({100 * test / abstracts:.1f}%), not the 20.0% the hash draws alone." in card
    )

    # what the uses are, and each row's licence by the kind of id its pmid is
    assert "nor training data for a\ndeployable classifier" in card
    assert "Training and evaluating contradiction detectors" not in card
    header = yaml.safe_load(card.split("---")[1])
    assert header["license"] == "other" and header["license_name"] == "per-source"
    assert header["source_datasets"] == ["extended"]  # PubMed ids: text from another corpus
    assert f"| {len(examples)} | a PubMed id | PubMed abstracts" in card and "| MIT for PubMedQA" in card
    assert "The labels, the edits and the card are the SciCon project's" in card


def test_build_params_validation_names_the_key():
    with pytest.raises(ValueError, match="sum below 1"):
        params(dev_fraction=0.5, test_fraction=0.5)
    with pytest.raises(ValueError, match="more than once"):
        params(sources=(BuildSource.RULES_SELF, BuildSource.RULES_SELF))


def test_build_dataset_keeps_all_unique_candidates():
    candidates = [
        Candidate(f"id{i}", str(i % 7), f"Premise {i}.", f"Hypothesis {i}.", i % 2, "x") for i in range(40)
    ]
    split = params()
    dataset = build_dataset(
        candidates, dev_fraction=split.dev_fraction, test_fraction=split.test_fraction, seed=split.seed
    )
    assert len(dataset.examples) == 40


def test_renamed_rule_sources_say_what_they_are_called_now(tmp_path):
    with pytest.raises(ValueError, match="'rules' is now 'rules_self'.*'rules_cross' pairs sentence1"):
        params(sources=("original", "rules"))
    params_file = tmp_path / "params.yaml"
    params_file.write_text(
        yaml.safe_dump({"build": {**section_values("build"), "sources": ["rule_controls"]}})
    )
    with pytest.raises(ParamsError, match="build.sources.*'rule_controls' is now 'rule_controls_self'"):
        load_section(params_file, "build", BuildParams)


CROSS = (BuildSource.ORIGINAL, BuildSource.RULES_CROSS, BuildSource.RULE_CONTROLS_CROSS)


def test_cross_form_pairs_sentence1_with_the_edited_sentence2(sources):
    pairs = {p.pair_id: p for p in read_jsonl(sources.pairs, Pair)}
    negatives = {n.negative_id: n for n in read_jsonl(sources.negatives, RuleNegative)}
    build = assemble_scicon(sources, params(sources=CROSS))
    cross = [e for e in build.dataset.examples if e.generator == "rules_cross"]
    assert {e.label for e in cross} == {0, 1}
    for example in cross:
        negative = negatives[example.example_id.removesuffix("-rules_cross")]
        pair = pairs[negative.pair_id]
        assert negative.source == "sentence2" and negative.premise == pair.sentence2
        assert build.dataset.hypotheses[example.example_id] == negative.hypothesis
        assert {example.sentence1, example.sentence2} == {pair.sentence1, negative.hypothesis}
        assert example.operator == negative.operator
        assert example.label == (0 if negative.operator == "synonym_control" else 1)
    # every edit of a sentence2 is there once, in cross form; edits of sentence1 have none
    made_from_sentence2 = [n for n in negatives.values() if n.source == "sentence2"]
    assert len(cross) == len(made_from_sentence2)
    reports = build.metrics["sources"]
    left_out = sum(
        reports[s]["skipped"]["made_from_sentence1"] for s in ("rules_cross", "rule_controls_cross")
    )
    assert left_out == len(negatives) - len(made_from_sentence2) > 0


def test_self_and_cross_forms_are_told_apart(sources):
    build = assemble_scicon(
        sources, params(sources=(BuildSource.ORIGINAL, BuildSource.RULES_SELF, *CROSS[1:]))
    )
    by_generator = defaultdict(set)
    for example in build.dataset.examples:
        by_generator[example.generator].add(example.example_id.rsplit("-", 1)[1])
    assert by_generator == {
        "original": {"original"},
        "rules_self": {"rules_self"},
        "rules_cross": {"rules_cross"},
    }
    assert "`rules_self` rows pair a sentence with its own rule edit" in build.card
    assert "`rules_cross` rows pair a pair's first sentence" in build.card


def test_cross_form_leaves_out_negatives_whose_pair_is_missing_or_changed(sources, caplog):
    pairs = list(read_jsonl(sources.pairs, Pair))
    negatives = [n for n in read_jsonl(sources.negatives, RuleNegative) if n.source == "sentence2"]
    changed = pairs[0].model_copy(update={"sentence2": "A rewritten conclusion of the first trial."})
    write_jsonl(sources.pairs, [changed, *pairs[2:]])  # pairs[1] is gone
    build = assemble_scicon(sources, params(sources=CROSS))
    skipped = build.metrics["sources"]["rules_cross"]["skipped"]
    contradictions = {pair.pair_id: 0 for pair in pairs[:2]}
    for negative in negatives:
        if negative.pair_id in contradictions and negative.label == "contradiction":
            contradictions[negative.pair_id] += 1
    assert skipped["pair_changed"] == contradictions[pairs[0].pair_id] > 0
    assert skipped["pair_missing"] == contradictions[pairs[1].pair_id] > 0
    assert "their pair is not in the pairs file" in caplog.text
    assert "is not the sentence they were made from" in caplog.text
    assert "pair_missing: " in build.card


def test_rows_per_operator_count_every_row_by_generator_operator_and_split(sources):
    build = assemble_scicon(sources, params())
    counts = build.metrics["rows_per_operator"]
    assert set(counts) == {e.generator for e in build.dataset.examples}
    assert set(counts["rules_cross"]) == {"negation_insert", "synonym_control"}
    for split, examples in build.dataset.splits.items():
        expected = Counter((e.generator, e.operator) for e in examples)
        for generator, operators in counts.items():
            for operator, per_split in operators.items():
                assert per_split[split] == expected[(generator, operator)]
    assert "| rules_cross | negation_insert |" in build.card


def _labelled_set(tmp_path) -> dict:
    """A labelled NLI table of 40 premises, three hypotheses each (entailment, neutral, contradiction)."""
    rows = ["premise,hypothesis,label"]
    for number in range(40):
        premise = f"Patients in cohort {number} took drug {number} daily."
        rows += [
            f"{premise},Cohort {number} was treated.,entailment",
            f"{premise},Cohort {number} was in Ohio.,neutral",
            f"{premise},Cohort {number} never took drug {number}.,contradiction",
        ]
    (tmp_path / "toy.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    options = {"sentence1": "premise", "sentence2": "hypothesis", "label": "label", "group": "premise",
               "delimiter": ",", "where": None, "skip_labels": [],
               "labels": {name: name for name in ("entailment", "neutral", "contradiction")}}  # fmt: skip
    return {"toy": {"kind": "nli_table", "path": "toy.csv", "options": options, "weight": 2.0, "cap": 90}}


def test_the_labelled_source_adds_people_labelled_pairs_weighted_in_training_only(sources, tmp_path):
    labelled = _labelled_set(tmp_path)
    chosen = (BuildSource.ORIGINAL, BuildSource.RULES_CROSS, BuildSource.LABELLED)
    build = assemble_scicon(sources, params(sources=chosen, labelled=labelled), labelled_root=str(tmp_path))
    report = {r.name: r for r in build.reports}["labelled"]
    assert report.status == "ok" and report.rows == 90  # the cap: a seeded sample of the 120 rows
    rows = [e for e in build.dataset.examples if e.generator == "labelled:toy"]
    assert {e.operator for e in rows} == {None}
    assert all(e.label == int("never" in e.sentence1 + e.sentence2) for e in rows)
    by_split = {split: [e for e in examples if e.generator == "labelled:toy"]
                for split, examples in build.dataset.splits.items()}  # fmt: skip
    held_out = len(by_split["dev"]) + len(by_split["test"])
    assert held_out > 0 and all("#" not in e.example_id for e in by_split["dev"] + by_split["test"])
    assert len(by_split["train"]) == 2 * (90 - held_out)  # weight 2: every training row twice
    premises_in = {split: {e.pmid for e in examples} for split, examples in by_split.items()}
    assert not premises_in["train"] & (premises_in["dev"] | premises_in["test"])  # grouped by premise
    assert "labelled:toy" in build.card and "own licence" in build.card


def test_the_labelled_source_needs_its_sets_and_belongs_to_the_build_alone(sources, tmp_path):
    with pytest.raises(ValidationError, match="build.labelled names no labelled set"):
        params(sources=(BuildSource.ORIGINAL, BuildSource.LABELLED), labelled={})
    with pytest.raises(ParamsError, match="read by the build stage alone"):
        read_sources((BuildSource.LABELLED,), sources)
    with pytest.raises(InputNotFoundError, match="build.labelled.toy"):
        chosen = (BuildSource.ORIGINAL, BuildSource.RULES_CROSS, BuildSource.LABELLED)
        assemble_scicon(
            sources, params(sources=chosen, labelled=_labelled_set(tmp_path)), labelled_root="/nowhere"
        )


def _read_back_row(
    number: int, example: Example, *, contradicts: bool, garbled: int, swap: bool = False
) -> dict:
    first, second = (example.sentence2, example.sentence1) if swap else (example.sentence1, example.sentence2)
    return {
        "id": f"j-{number}",
        "pmid": example.pmid,
        "source": "evonli_accepted",
        "sentence1": first,
        "sentence2": second,
        "gold": "contradiction" if contradicts else "neutral",
        "contradiction": int(contradicts),
        "garbled": garbled,
    }


def _write_read_back(rows: list[dict]) -> str:
    path = Path("judgements/held_out/read.jsonl")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def _accepted(build) -> list[Example]:
    return [e for e in build.dataset.examples if e.generator == "evonli" and e.label == 1]


def test_the_blind_read_counts_the_accepted_pairs_it_covers(sources, tmp_path, monkeypatch):
    from scicon.dataset.quality import blind_read_figures

    build = assemble_scicon(sources, params())
    accepted = _accepted(build)  # the fixture's edits are negations: two become causation edits
    negation = accepted[:1]
    other = [e.model_copy(update={"mutation_type": "causation"}) for e in accepted[1:3]]
    examples = [e for e in build.dataset.examples if e not in other and e not in accepted[1:3]] + other
    assert negation[0].mutation_type == "negation_polarity" and len(other) == 2
    shouted = other[1].model_copy(update={"sentence1": "  " + other[1].sentence1.upper()})
    rows = [
        _read_back_row(1, negation[0], contradicts=True, garbled=1),
        _read_back_row(2, other[0], contradicts=True, garbled=0, swap=True),  # either order matches
        _read_back_row(3, shouted, contradicts=False, garbled=1),  # so do case and spacing
        _read_back_row(
            4,
            accepted[0].model_copy(update={"sentence2": "A sentence no build row has."}),
            contradicts=True,
            garbled=0,
        ),
    ]
    # an original pair, label 0, read as well: not one of EvoNLI's contradictions, counted nowhere
    original = next(e for e in build.dataset.examples if e.generator == "original")
    rows.append(_read_back_row(5, original, contradicts=True, garbled=0))
    monkeypatch.chdir(tmp_path)
    _write_read_back(rows)

    figures = blind_read_figures(examples, "judgements/held_out/read.jsonl")
    assert figures["accepted"] == len(accepted) and figures["read"] == 3
    assert figures["truly_contradict"]["hits"] == 2 and figures["truly_contradict"]["of"] == 3
    assert figures["truly_contradict"]["share"] == 0.6667
    low, high = figures["truly_contradict"]["interval"]
    assert low == pytest.approx(0.2077, abs=1e-4) and high == pytest.approx(0.9385, abs=1e-4)  # Wilson
    assert (figures["negations"]["hits"], figures["negations"]["of"]) == (1, 1)
    assert (figures["not_negations"]["hits"], figures["not_negations"]["of"]) == (1, 2)
    assert figures["garbled"] == 2
    assert sum(figures["by_split"].values()) == 3


def test_the_blind_read_measures_every_generated_source_and_operator(sources, tmp_path, monkeypatch):
    from scicon.dataset.quality import blind_read_figures, card_with_measures

    build = assemble_scicon(sources, params())
    rules = [e for e in build.dataset.examples if e.generator == "rules_cross" and e.label == 1]
    control = next(e for e in build.dataset.examples if e.generator == "rules_cross" and e.label == 0)
    evonli = _accepted(build)[0]
    assert len(rules) >= 2
    monkeypatch.chdir(tmp_path)
    _write_read_back(
        [
            _read_back_row(1, rules[0], contradicts=True, garbled=1),
            _read_back_row(2, rules[1], contradicts=False, garbled=0),
            _read_back_row(3, evonli, contradicts=True, garbled=0),
            _read_back_row(4, control, contradicts=True, garbled=0),  # label 0: measured nowhere
        ]
    )
    figures = blind_read_figures(build.dataset.examples, "judgements/held_out/read.jsonl")
    rules_read = figures["by_source"]["rules_cross"]
    assert rules_read["in_build"] == len(rules) and rules_read["read"] == 2
    assert (rules_read["truly_contradict"]["hits"], rules_read["garbled"]["hits"]) == (1, 1)
    assert figures["by_source"]["evonli"]["read"] == 1 and figures["read"] == 1
    operators = {name: f["read"] for name, f in figures["by_operator"].items()}
    assert sum(operators.values()) == 3
    assert sum(count for name, count in operators.items() if name.startswith("rules_cross: ")) == 2
    assert figures["garbled_share"]["of"] == 1
    card = card_with_measures(
        "# card\n\n## Known limitations\n\n- one\n",
        {"judge": {"status": "not_measured", "reason": "none"}, "blind_read": figures, "mutation_types": {}},
    )
    assert "| rules_cross | " + str(len(rules)) + " | 2 | 1 of 2, 0.500" in card


def test_a_malformed_read_back_stops_naming_file_and_line(sources, tmp_path, monkeypatch):
    from scicon.dataset.quality import blind_read_figures

    monkeypatch.chdir(tmp_path)
    build = assemble_scicon(sources, params())
    good = _read_back_row(1, _accepted(build)[0], contradicts=True, garbled=0)
    bad = dict(good, id="j-2", gold="contradiction", contradiction=0)
    _write_read_back([good, bad])
    with pytest.raises(InputFormatError, match=r"held_out/read\.jsonl:2: contradiction 0 disagrees"):
        blind_read_figures(build.dataset.examples, "judgements/held_out/read.jsonl")


def test_a_read_back_named_but_missing_stops_naming_the_key(sources, tmp_path, monkeypatch):
    from scicon.dataset.quality import blind_read_figures

    monkeypatch.chdir(tmp_path)
    examples = assemble_scicon(sources, params()).dataset.examples
    with pytest.raises(InputNotFoundError, match="card.blind_read: judgements/held_out/gone.jsonl"):
        blind_read_figures(examples, "judgements/held_out/gone.jsonl")


def test_a_read_back_outside_the_watched_folder_is_refused_naming_the_key():
    from scicon.dataset.quality import CardParams

    for outside in ("elsewhere/read.jsonl", "judgements/held_out_old/read.jsonl"):
        with pytest.raises(ValidationError, match="(?s)blind_read.*under judgements/held_out/"):
            CardParams(blind_read=outside)
    assert section("card", CardParams).blind_read is None  # the default measures nothing


def test_the_card_says_why_a_figure_is_not_measured(sources, tmp_path):
    from scicon.dataset.quality import CardParams, add_measures, judge_gold_figures
    from scicon.readers.sets import GoldSpec

    gold = section("gold", GoldSpec)
    assert gold.path is None  # a fresh clone has no gold file

    def never(judge, gold):
        raise AssertionError("a judge without a gold file or a folder is not scored")

    judge = judge_gold_figures(tmp_path / "judge", gold, never)
    assert judge == {
        "status": "not_measured",
        "reason": "gold.path is null: no gold pairs to score the judge on",
    }
    absent = judge_gold_figures(tmp_path / "judge", gold.model_copy(update={"path": "gold.jsonl"}), never)
    assert absent["reason"].endswith("no judge folder")
    assert judge_gold_figures(None, gold, never, "evolve.goal is 'llm'")["reason"] == "evolve.goal is 'llm'"

    build = assemble_scicon(sources, params())
    add_measures(build, judge, CardParams(blind_read=None))
    section_at = build.card.index("## Measured against blind annotators' labels")
    assert section_at < build.card.index("## Known limitations")
    assert "were not measured: gold.path is null" in build.card
    assert "No blind read of the accepted contradictions: card.blind_read is null" in build.card
    assert build.metrics["blind_read"]["status"] == "not_measured"
    # the one measured limitation without a read: the negation share of EvoNLI's contradictions
    negation = build.metrics["mutation_types"]["evonli"]["negation_polarity"]
    assert f"- {100 * negation:.1f}% of EvoNLI's contradictions are negation edits" in build.card


def test_the_build_stage_puts_the_judges_gold_figures_and_the_blind_read_in_the_card(
    sources, fixtures, tmp_path, monkeypatch
):
    from scicon.readers.sets import GoldSpec
    from scicon.teacher.gold import gold_figures
    from stages.build import main, parser
    from tests.tiny_models import save_tiny_bert, save_tiny_classifier

    monkeypatch.chdir(tmp_path)
    save_tiny_classifier(save_tiny_bert(tmp_path / "tiny-bert"), Path("models/judge"), seed=3)
    for check in ("naturalness", "verifier"):  # as their stages leave them with train: false
        write_untrained(Path("models") / check, f"{check}.train is false")
    accepted = _accepted(assemble_scicon(sources, params()))
    _write_read_back(
        [_read_back_row(n, e, contradicts=n % 2 == 0, garbled=0) for n, e in enumerate(accepted[:4])]
    )
    gold = section_values("gold") | {
        "path": str(fixtures / "labelled" / "gold" / "gold_dev.jsonl"),
        "bootstrap_resamples": 50,
    }
    build = section_values("build") | {"sources": [source.value for source in ALL_SOURCES], "held_out": []}
    values = {
        "build": build,
        "card": {"blind_read": "judgements/held_out/read.jsonl"},
        "gold": gold,
        "labelled_root": None,
        **{key: read_params_file(PARAMS_FILE)[key] for key in ("sim", "claim", "target")},
    }
    Path("params.yaml").write_text(yaml.safe_dump(values, sort_keys=False))
    arguments = [
        "--pairs",
        str(sources.pairs),
        "--evolve",
        str(sources.evolve),
        "--negatives",
        str(sources.negatives),
        "--out",
        "data/scicon",
        "--judge",
        "models/judge",
        "--goal",
        "classifier",
        "--metrics",
        "metrics/build.json",
        "--figures",
        "reports/build.json",
        "--taxonomy-plot",
        "plots/taxonomy.csv",
        "--gate-plot",
        "plots/gate.csv",
    ]
    main(parser().parse_args(arguments))

    report = json.loads(Path("reports/build.json").read_text())
    expected = gold_figures(Path("models/judge"), GoldSpec.model_validate(gold))
    assert report["judge"] == json.loads(json.dumps({"judge": "models/judge", **expected}))
    overall = report["judge"]["overall"]
    card = Path("data/scicon/README.md").read_text(encoding="utf-8")
    assert (
        f"**{overall['roc_auc']:.3f} [{overall['roc_auc_ci_low']:.3f}, {overall['roc_auc_ci_high']:.3f}]**"
        in card
    )
    assert report["blind_read"]["read"] == 4 and report["blind_read"]["truly_contradict"]["hits"] == 2
    assert "**2 of 4, 0.500 [" in card and "truly contradict sentence1" in card
    assert "50.0% truly contradict sentence1: the label-1 rows are training signal" in card

    # a search against the LLM judged with no classifier: the folder is not what it searched against
    main(parser().parse_args(["llm" if argument == "classifier" else argument for argument in arguments]))
    report = json.loads(Path("reports/build.json").read_text())
    assert report["judge"]["reason"] == "evolve.goal is 'llm': EvoNLI searched against no classifier"
