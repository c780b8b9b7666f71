"""The audit sample and its blinded files: strata, stable ids, spread over abstracts, blinding."""

from __future__ import annotations

import csv
import json
import re
import xml.etree.ElementTree as ElementTree
from collections import Counter

import pytest

from scicon.audit.blinded import CONFIG_FILE, INSTRUCTIONS_FILE, blinded_items, write_blinded
from scicon.audit.question import QUESTION, Answer
from scicon.audit.sample import ITEM_ID_PATTERN, draw_sample, item_id, stratum_of
from scicon.sampling import apportion
from tests.audit_fixtures import KINDS, audit_params, build_rows


def allocate(populations: dict[str, int], size: int, minimum: int) -> dict[str, int]:
    """Items per stratum, as draw_sample shares out audit.size."""
    return apportion(populations, size, minimum=minimum, caps=populations)


def test_allocation_is_proportional_with_a_floor_and_sums_to_the_size():
    populations = {"big": 700, "mid": 290, "rare": 10}
    assert allocate(populations, 100, minimum=0) == {"big": 70, "mid": 29, "rare": 1}
    assert allocate(populations, 50, minimum=0) == {"big": 35, "mid": 15, "rare": 0}
    assert allocate(populations, 50, minimum=3) == {"big": 33, "mid": 14, "rare": 3}
    # floors that exceed the size go to the largest strata first
    assert allocate({"a": 5, "b": 4, "c": 3}, 4, minimum=2) == {"a": 2, "b": 2, "c": 0}
    # a stratum never gets more than it has; a sample never more than the build
    assert allocate({"a": 2, "b": 100}, 50, minimum=10) == {"a": 2, "b": 48}
    assert allocate({"a": 2, "b": 3}, 50, minimum=0) == {"a": 2, "b": 3}


def test_the_sample_is_stratified_seeded_and_spread_over_abstracts():
    rows = build_rows(abstracts=40)
    params = audit_params(size=30, min_per_stratum=1)
    sample = draw_sample(rows, params)
    assert len(sample.items) == 30
    assert sample.items == draw_sample(list(reversed(rows)), params).items  # order of the build is irrelevant
    strata = Counter(item.stratum for item in sample.items)
    assert set(strata) == {stratum_of(row, params.strata) for row in rows}  # every kind of row is there
    # the label-0 rule controls are a stratum of their own, apart from the rule contradictions
    assert strata["rules/non_contradiction/none"] > 0 and strata["rules/contradiction/causation"] > 0
    assert max(Counter(item.example.pmid for item in sample.items).values()) == 1  # 40 abstracts for 30 items
    for item in sample.items:
        assert item.weight == pytest.approx(sample.strata[item.stratum].population / strata[item.stratum])
    assert draw_sample(rows, audit_params(size=30, seed=99)).items != sample.items


def test_item_ids_are_stable_blind_and_survive_a_changed_build():
    rows = build_rows(abstracts=60)
    params = audit_params(size=40)
    before = {item.item_id for item in draw_sample(rows, params).items}
    for item in draw_sample(rows, params).items:
        assert item.item_id == item_id(params.seed, item.example.example_id)
        assert item.example.generator not in item.item_id and item.example.pmid not in item.item_id
    # the build gains five abstracts: most of the sample stays, so most judgments stay usable
    grown = rows + build_rows(abstracts=5, first=5000)
    after = {item.item_id for item in draw_sample(grown, params).items}
    assert len(before & after) >= 30


def test_splits_limit_the_rows_sampled():
    sample = draw_sample(build_rows(), audit_params(size=20, only={"split": ["test"]}))
    assert {item.example.split for item in sample.items} == {"test"}


def test_a_small_build_gives_all_its_rows():
    rows = build_rows(abstracts=2, per_abstract=3)
    assert len(draw_sample(rows, audit_params(size=100)).items) == 6


def test_blinded_files_hide_the_label_and_differ_in_order_per_annotator(tmp_path):
    sample = draw_sample(build_rows(), audit_params(size=25))
    folder = tmp_path / "blinded"
    names = write_blinded(sample.items, annotators=3, seed=41, folder=folder)
    assert names == ["annotator-1", "annotator-2", "annotator-3"]
    # what must not reach an annotator: example ids (they end in the generator), operators, generators
    secrets = {text for item in sample.items for text in (item.example.example_id, item.example.operator)}
    secrets |= {kind[0] for kind in KINDS}
    orders = []
    for name in names:
        with open(folder / f"{name}.csv", encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.DictReader(handle))
        assert list(rows[0]) == ["item_id", "sentence_a", "sentence_b", "answer", "comment"]
        assert all(row["answer"] == "" for row in rows)
        orders.append([row["item_id"] for row in rows])
        text = (folder / f"{name}.csv").read_text(encoding="utf-8-sig")
        text += (folder / f"{name}.labelstudio.json").read_text(encoding="utf-8")
        assert not [secret for secret in secrets if secret in text]
        tasks = json.loads((folder / f"{name}.labelstudio.json").read_text(encoding="utf-8"))
        assert [task["data"]["item_id"] for task in tasks] == orders[-1]
        assert set(tasks[0]["data"]) == {"item_id", "sentence_a", "sentence_b"}
    assert sorted(orders[0]) == sorted(orders[1]) == sorted(item.item_id for item in sample.items)
    assert orders[0] != orders[1] != orders[2]
    # the two sentences come in either order, independently per annotator
    first = {item.item_id: item.sentence_a for item in blinded_items(sample.items, 41, "annotator-1")}
    second = {item.item_id: item.sentence_a for item in blinded_items(sample.items, 41, "annotator-2")}
    assert 0 < sum(first[i] != second[i] for i in first) < len(first)
    assert QUESTION in (folder / INSTRUCTIONS_FILE).read_text(encoding="utf-8")
    assert all(re.fullmatch(ITEM_ID_PATTERN, row_id) for row_id in orders[0])


def test_the_labeling_config_asks_the_question_over_the_task_fields(tmp_path):
    sample = draw_sample(build_rows(), audit_params(size=5))
    write_blinded(sample.items, annotators=1, seed=41, folder=tmp_path)
    config = ElementTree.fromstring((tmp_path / CONFIG_FILE).read_text(encoding="utf-8"))
    assert config.tag == "View"
    assert [h.get("value") for h in config.iter("Header")][0] == QUESTION
    assert {t.get("value") for t in config.iter("Text")} >= {"$sentence_a", "$sentence_b"}
    (choices,) = config.iter("Choices")
    assert choices.get("name") == "answer" and choices.get("choice") == "single"
    assert [c.get("value") for c in choices.iter("Choice")] == [answer.value for answer in Answer]
    assert [t.get("name") for t in config.iter("TextArea")] == ["comment"]


def test_writing_again_replaces_the_folder(tmp_path):
    sample = draw_sample(build_rows(), audit_params(size=5))
    write_blinded(sample.items, annotators=4, seed=41, folder=tmp_path / "b")
    write_blinded(sample.items, annotators=2, seed=41, folder=tmp_path / "b")
    assert sorted(p.name for p in (tmp_path / "b").glob("*.csv")) == ["annotator-1.csv", "annotator-2.csv"]


def test_only_restricts_the_rows_for_an_audit_of_generated_contradictions():
    params = audit_params(size=20, only={"label": ["contradiction"], "generator": ["rules", "evonli"]})
    sample = draw_sample(build_rows(), params)
    assert {item.example.label for item in sample.items} == {1}
    assert {item.example.generator for item in sample.items} == {"rules", "evonli"}
    with pytest.raises(ValueError, match="label: values are contradiction, non_contradiction"):
        audit_params(only={"label": ["1"]})
