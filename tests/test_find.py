"""The finder: comparability, the claim filter, candidate routes, the flag, each claim's stance
per question, claims files, a whole run, the review loop and the page in a real headless browser."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scicon.classifier_folder import write_untrained
from scicon.errors import InputFormatError, NoWorkError, ParamsError
from scicon.find.checks import Comparability
from scicon.find.claims import read_claims_file, require_claims
from scicon.find.neighbours import SHARED_TERMS, candidate_pairs, shared_term_pairs
from scicon.find.page import render_page
from scicon.find.params import FindParams
from scicon.find.pipeline import finder_claim_settings, read_outputs, run_find, write_outputs, write_page
from scicon.find.review import export_review, read_review, read_reviewed
from scicon.find.run import (
    Candidate,
    candidates,
    claims_that_claim,
    comparable,
    find_contradictions,
    flag_threshold,
    grouped,
    on_same_topic,
    ranked,
    scored,
)
from scicon.find.stance import NEITHER, NO, YES, Edge, clusters, split_cluster, stance_groups
from scicon.fitted.claim_model import ClaimModelSettings
from scicon.fitted.topic_model import TopicModelSettings
from scicon.readers.sets import GoldSpec
from scicon.records.find import Claim, NotComparable, Stance, StanceGroupRecord
from tests.params_defaults import section, section_values
from tests.tiny_models import save_tiny_bert

ROOT = Path(__file__).parent.parent
LEVEL = section("gold", GoldSpec).confidence_level  # what `review-read` reports at
FIND = Path(__file__).parent / "fixtures" / "find"


def compare(first: str, second: str, min_shared_terms: int):
    return Comparability(_params(min_shared_terms=min_shared_terms)).compare(first, second)


def test_a_pair_is_not_comparable_where_population_dose_or_follow_up_differ_and_says_which():
    result = compare(
        "Drug X 10 mg reduced mortality in children with asthma at 12 weeks.",
        "Drug X 20 mg did not reduce mortality in adults with asthma at 1 year.",
        2,
    )
    # a reason is data: the check that saw it and what differs, in the order of the checks' names
    assert result.not_comparable == (
        NotComparable(kind="dose", detail="10 mg vs 20 mg"),
        NotComparable(kind="follow-up", detail="84 days vs 365 days"),
        NotComparable(kind="population", detail="children vs adults"),
    )
    assert str(result.not_comparable[2]) == "population: children vs adults"
    assert result.shared_terms == ("asthma", "drug", "mortality")
    # one population within the other, the same dose, 12 weeks against 3 months: comparable
    same = compare(
        "Cardiprazine 10 mg improved LVEF in older adults with HFrEF at 12 weeks.",
        "Cardiprazine 10 mg did not improve LVEF in adults with HFrEF at 3 months.",
        2,
    )
    assert same.comparable and same.shared_terms == ("10 mg", "HFREF", "LVEF", "cardiprazine")


def test_shared_terms_leave_out_what_every_trial_report_says():
    result = compare(
        "The treatment significantly reduced the risk in patients; larger trials are needed.",
        "Treatment did not significantly reduce the risk in patients; further research is warranted.",
        1,
    )
    assert result.shared_terms == ()
    assert result.not_comparable == (
        NotComparable(kind="shared terms", detail="0 (fewer than 1): no common intervention or outcome"),
    )


def test_each_step_runs_alone_and_counts_what_it_drops():
    texts = [
        "Drug alpha lowered blood pressure in adults with hypertension.",
        "Drug alpha did not lower blood pressure in adults with hypertension.",
        "Drug alpha lowered blood pressure in children with hypertension.",
        "drug alpha lowered blood pressure in adults  with hypertension.",
        "Vitamin D had no effect on fractures.",
        "Trial registration: NCT01234567.",
    ]
    claims = [Claim(claim_id=f"c{i}", text=text, group=f"s{i}") for i, text in enumerate(texts)]
    kept_claims, left_out = claims_that_claim(
        claims, lambda texts: [0.01 if "registration" in t else 0.9 for t in texts], _params(min_claim=0.015)
    )
    assert kept_claims == claims[:5] and left_out == [(claims[5], 0.01)]
    found = [Candidate(0, 1, 0.9), Candidate(0, 2, 0.8), Candidate(0, 3, 0.99), Candidate(0, 4, -0.9)]
    found.append(Candidate(1, 4, -0.5))
    topical, off_topic = on_same_topic(claims, found, lambda cosines: list(cosines), 0.5)
    assert [(c.first, c.second) for c in topical] == [(0, 1), (0, 2)]
    # cosines enter the calibration mapped to [0, 1] (-0.5 -> 0.25: off topic); the same
    # sentence in two studies (0, 3) is dropped as such
    assert off_topic == {"below_min_same_topic": 2, "identical_text": 1}
    kept, dropped = comparable(claims, topical, Comparability(_params(min_shared_terms=2)), "drop")
    assert [(c.first, c.second) for c in kept] == [(0, 1)] and dropped == {"not_comparable": 1}
    population = NotComparable(kind="population", detail="adults vs children")
    assert topical[1].comparison.not_comparable == (population,)
    marked, _ = comparable(claims, topical, Comparability(_params(min_shared_terms=2)), "mark")
    assert len(marked) == 2
    assert scored(claims, marked, lambda pairs: [0.8 if "not" in a else 0.6 for a, _ in pairs]) == 2
    assert marked[0].score == pytest.approx(0.7) and marked[1].score is None
    threshold = flag_threshold(marked, rate=1.0)
    assert threshold == pytest.approx(0.7) and flag_threshold(marked, rate=0.5) is None
    order = ranked(claims, list(reversed(marked)))
    assert [(c.first, c.second) for c in order] == [(0, 1), (0, 2)]
    # at the flag threshold a pair's weight is 0 (it says nothing either way): the stances are
    # read against a lower one, at which the flagged pair's 0.7 places its claims on two sides
    assert grouped(claims, order, threshold, _params()).groups[0].counts[NEITHER] == 2
    questions = grouped(claims, order, 0.5, _params())
    assert questions.of(order[0]) == "Q1" and questions.of(order[1]) == ""
    group = questions.groups[0]
    assert group.counts == {YES: 1, NO: 1, NEITHER: 0} and group.disagreeing == ("c0|c1",)


def test_the_flag_is_a_share_of_the_scored_pairs_ties_included():
    kept = [Candidate(0, i, 0.0, score_ab=s, score_ba=s) for i, s in enumerate([0.9, 0.8, 0.8, 0.3, 0.1], 1)]
    kept.append(Candidate(0, 9, 0.0))  # not scored: never counted, never flagged
    assert flag_threshold(kept, 0.2) == 0.9  # the best 1 of 5
    assert flag_threshold(kept, 0.4) == 0.8  # the best 2 of 5, and the pair tied with the second
    assert sum(c.flagged(flag_threshold(kept, 0.4)) for c in kept) == 3
    assert flag_threshold(kept, 0.19) is None  # under one pair in five: nothing flagged
    assert flag_threshold(kept, 1.0) == 0.1


def test_distinctive_shared_terms_route_pairs_the_embeddings_miss_within_a_question():
    terms = [
        frozenset({"mask", "spread", "covid"}),
        frozenset({"mask", "surgical", "spread", "covid"}),
        frozenset({"mask", "spread", "covid"}),  # the same study as the first
        frozenset({"vitamin", "covid"}),
        frozenset({"mask", "spread", "covid"}),  # another question
    ]
    groups = ["s1", "s2", "s1", "s3", "s4"]
    blocks = ["masks", "masks", "masks", "vitamin", None]
    # "covid" is in every claim: more than 3 claims use it, so it routes nothing
    assert shared_term_pairs(terms, groups, blocks, terms_needed=2, max_claims=3) == []
    assert shared_term_pairs(terms, groups, blocks, terms_needed=2, max_claims=4) == [(0, 1), (1, 2)]
    assert shared_term_pairs(terms, groups, [None] * 5, terms_needed=2, max_claims=4) == [
        (0, 1),
        (0, 4),
        (1, 2),
        (1, 4),
        (2, 4),
    ]
    texts = [
        "Masks prevent the spread of the virus.",
        "Hand washing removes the virus.",
        "Do surgical masks prevent its spread? No.",
        "Vitamin D supplements lower infection rates.",
    ]
    # the embeddings pair 0 with 1 and 2 with 3; 0 and 2 share "mask", "prevent" and "spread"
    vectors = np.asarray([[1, 0], [1, 0], [0, 1], [0, 1]], dtype=np.float32)
    claims = [Claim(claim_id=f"c{i}", text=text, group=f"s{i}") for i, text in enumerate(texts)]
    params = _params(neighbours=1, shared_term_route=2, distinctive_term_claims=4)
    found, _ = candidates(claims, vectors, params)
    assert {(c.first, c.second): c.route for c in found} == {
        (0, 1): "neighbours",
        (2, 3): "neighbours",
        (0, 2): SHARED_TERMS,
    }
    assert found[1].cosine == 0.0  # (0, 2): what the embeddings say, though they did not find it
    # the route off, or the two claims under different questions: the pair is not a candidate
    assert len(candidates(claims, vectors, params.model_copy(update={"shared_term_route": 0}))[0]) == 2
    asked = [claim.model_copy(update={"question": q}) for claim, q in zip(claims, "ABAB", strict=True)]
    assert {(c.first, c.second) for c in candidates(asked, vectors, params)[0]} == {(0, 2), (1, 3)}


def test_a_planted_check_module_shows_up_in_the_reasons_with_no_other_file_touched(tmp_path):
    """A new comparability check is one module: copy the package, add the module, run the finder."""
    shutil.copytree(ROOT / "scicon", tmp_path / "scicon", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "params.yaml", tmp_path / "params.yaml")
    (tmp_path / "scicon" / "find" / "checks" / "setting.py").write_text(
        "from scicon.find.checks import COMPARABILITY_CHECKS\n\n\n"
        '@COMPARABILITY_CHECKS.register("setting", description="in hospital against at home")\n'
        "def setting(params):\n"
        "    def differs(first, second):\n"
        '        if ("hospital" in first) != ("hospital" in second):\n'
        '            yield "in hospital vs not"\n\n'
        "    return differs\n",
        encoding="utf-8",
    )
    script = (
        "import json, numpy as np\n"
        "from scicon.find.params import FindParams\n"
        "from scicon.find.run import find_contradictions\n"
        "from scicon.params import load_section\n"
        "from scicon.records.find import Claim\n"
        "texts = ['Drug alpha lowered blood pressure in hospital.',\n"
        "         'Drug alpha lowered blood pressure at home.']\n"
        "claims = [Claim(claim_id=f'c{i}', text=t, group=f's{i}') for i, t in enumerate(texts)]\n"
        "result = find_contradictions(claims, load_section('params.yaml', 'find', FindParams),\n"
        "    lambda texts: np.eye(len(texts), 4, dtype=np.float32), list, lambda pairs: [0.9] * len(pairs),\n"
        "    lambda texts: [1.0] * len(texts))\n"
        "reason = str(result.pairs[0].not_comparable[0])\n"
        "print(json.dumps([result.report['not_comparable_reasons'], reason]))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    reasons, marked = json.loads(run.stdout.strip().splitlines()[-1])
    assert reasons == {"setting": 1} and marked == "setting: in hospital vs not"


def _two_questions() -> tuple[list[Edge], dict[int, int]]:
    """Question one: claims 0-4, sides {0, 1, 2} and {3, 4}; question two: claims 5-8, {5, 6} and
    {7, 8}; claim 9 joins question one by one pair the classifier cannot call. Pairs across a side
    score high, within a side low, and one wrong pair (0, 1) is flagged although 0 and 1 agree."""
    sides = {0: 1, 1: 1, 2: 1, 3: -1, 4: -1, 5: 1, 6: 1, 7: -1, 8: -1}
    edges = []
    for first, second in [(a, b) for a in range(9) for b in range(a + 1, 9)]:
        if (first < 5) != (second < 5):
            continue  # different questions: never a comparable pair
        score = 0.9 if sides[first] != sides[second] else 0.05
        edges.append(Edge(first, second, score, score >= 0.5))
    edges[0] = Edge(0, 1, 0.7, True)  # the wrong pair
    edges.append(Edge(2, 9, 0.5, True))
    return sorted(edges, key=lambda e: -e.score), sides


@pytest.mark.parametrize("exact_up_to", [18, 2])  # every split tried; the spectral start and local moves
def test_each_question_splits_in_two_and_a_wrong_pair_is_outweighed_not_mixed(exact_up_to):
    edges, sides = _two_questions()
    labels = clusters(11, edges)
    names, groups = stance_groups(labels, edges, 0.5, exact_up_to, 0.6)
    assert sorted(names.values()) == ["Q1", "Q2"] and labels[10] not in names
    assert len(groups) == 2  # one group per question, whatever the flagged pairs chain
    for group in groups:
        split = group.split
        reference_side = sides[split.reference]
        for claim, stance in group.stances.items():
            if claim == 9:
                assert stance == NEITHER  # its one pair says nothing either way
            else:
                assert stance == (YES if sides[claim] == reference_side else NO), (claim, group.stances)
    first = next(group for group in groups if 0 in group.split.members)
    assert first.split.reference in (0, 1, 2)  # the larger side holds the reference
    assert first.split.sides[0] == first.split.sides[1]  # the wrong pair is overruled
    assert first.split.confidence[0] < first.split.confidence[2]  # and costs its claims confidence
    assert 0.9 < first.split.agreement < 1.0
    assert split_cluster((5, 6, 7, 8), edges, 0.5, exact_up_to, 0.6).agreement == pytest.approx(1.0)


def test_nothing_flagged_no_stance_groups_and_given_questions_are_the_clusters():
    edges = [Edge(0, 1, 0.2, False), Edge(1, 2, 0.3, False)]
    names, groups = stance_groups(clusters(3, edges), edges, None, 14, 0.6)
    assert list(names.values()) == ["Q1"] and groups == []
    assert list(clusters(4, edges, ["masks", "vitamin D", "masks", None])) == [0, 1, 0, 5]


def test_candidates_are_the_nearest_claims_of_other_studies_and_reproducible():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(300, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    groups = [f"s{i // 3}" for i in range(300)]  # three claims per study
    found = candidate_pairs(vectors, groups, k=4, links=16, construction=64, search=64)
    assert found.pairs == candidate_pairs(vectors, groups, k=4, links=16, construction=64, search=64).pairs
    assert all(groups[i] != groups[j] and i < j for i, j, _ in found.pairs)
    # against exhaustive search: each claim's 4 nearest of other studies are among the pairs
    cosines = vectors @ vectors.T
    pairs = {(i, j) for i, j, _ in found.pairs}
    missed = 0
    for i in range(300):
        others = [j for j in np.argsort(-cosines[i]) if groups[j] != groups[i]][:4]
        missed += sum((min(i, j), max(i, j)) not in pairs for j in others)
    assert missed / 1200 < 0.02
    assert candidate_pairs(vectors[:1], groups[:1], 4, 16, 64, 64).pairs == []


def test_a_claims_file_reads_as_tsv_or_jsonl_with_studies_from_group_pmid_or_itself(tmp_path):
    claims = read_claims_file(FIND / "claims.tsv")
    assert [(c.claim_id, c.group, c.pmid) for c in claims] == [
        ("c1", "S1", "111"),
        ("c2", "S2", "222"),
        ("c3", "333", "333"),
        ("c4", "c4", None),
    ]
    as_jsonl = tmp_path / "claims.jsonl"
    as_jsonl.write_text(
        "".join(
            json.dumps({"id": c.claim_id, "text": c.text, "group": c.group, "pmid": c.pmid}) + "\n"
            for c in claims
        )
        + json.dumps(
            {
                "id": "c5",
                "text": "drug alpha lowered blood pressure in adults with hypertension.",
                "group": "S1",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    # c5 repeats c1 in the same study: kept once
    assert read_claims_file(as_jsonl) == claims


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"id\ttext\nc1\tFine.\nc2\t\n", "claims.tsv:3: field 'text' is missing or empty"),
        (b"id\ttext\nc1\tFine.\nc1\tAgain.\n", "claims.tsv:3: id 'c1' repeats line 2"),
        (b"id\ttext\tdose\nc1\tFine.\t5\n", "claims.tsv:2: unknown field 'dose'"),
        (b"id\ttext\nc1\tFine.\nc2\tCaf\xe9 au lait.\n", "claims.tsv:3: not UTF-8 text"),
        (b"ident\ttext\nc1\tFine.\n", "claims.tsv:1: the header names no 'id' column"),
        (b"id\ttext\nc1\tFine.\tmore\n", "claims.tsv:2: expected 2 tab-separated fields, found 3"),
    ],
)
def test_a_bad_claims_file_names_its_file_and_line(tmp_path, content, message):
    path = tmp_path / "claims.tsv"
    path.write_bytes(content)
    with pytest.raises(InputFormatError) as error:
        read_claims_file(path)
    assert message in str(error.value)


def test_a_claims_jsonl_field_that_is_not_text_names_its_line(tmp_path):
    path = tmp_path / "claims.jsonl"
    path.write_text('{"id": 7, "text": "Drug X helped."}\n{"id": "c2", "text": ["Drug X", "helped"]}\n')
    with pytest.raises(InputFormatError, match="claims.jsonl:2: field 'text' is not text or a number"):
        read_claims_file(path)


def test_no_claims_is_an_error_and_one_study_an_empty_result_that_says_why(tmp_path):
    path = tmp_path / "claims.tsv"
    path.write_text("id\ttext\n", encoding="utf-8")
    with pytest.raises(NoWorkError, match="no claims in"):
        require_claims(read_claims_file(path), str(path))
    one_study = [Claim(claim_id=f"c{i}", text=f"Drug {i} lowered pressure.", group="S") for i in range(3)]
    result = find_contradictions(
        one_study,
        _params(),
        lambda texts: np.eye(len(texts), 8, dtype=np.float32),
        lambda cosines: list(cosines),
        lambda pairs: [0.9] * len(pairs),
        lambda texts: [1.0] * len(texts),
    )
    assert result.pairs == [] and "all 3 claims come from one study" in result.report["empty_reason"]
    # the whole run: a corpus of one abstract loads no model and says why
    params = _params(classifier="/nonexistent")
    one = run_find(params, _topic(), _claim(params), [], one_study)
    assert one.pairs == [] and "come from one study" in one.report["empty_reason"]


def _params(**changes) -> FindParams:
    return section("find", FindParams, **changes)


def _untrained_verifier(root: Path) -> str:
    """A verifier folder as its stage leaves it with verifier.train false: the re-read is off."""
    write_untrained(root / "verifier", "verifier.train is false")
    return str(root / "verifier")


def _topic() -> TopicModelSettings:
    return TopicModelSettings.model_validate(section_values("filter_models")["topic_model"])


def _claim(params: FindParams) -> ClaimModelSettings:
    return finder_claim_settings(
        ClaimModelSettings.model_validate(section_values("filter_models")["claim_model"]), params
    )


def test_the_finder_claim_model_takes_its_changes_from_find_claim_model_and_names_a_bad_one():
    assert _claim(_params()).reporting_negatives is True
    assert _claim(_params(claim_model={})).reporting_negatives is False  # evolve's, unchanged
    with pytest.raises(ParamsError, match="find.claim_model.featurs: Extra inputs"):
        _claim(_params(claim_model={"featurs": "tfidf"}))


def test_registrations_on_the_demo_are_left_out_as_non_claims_and_the_conclusions_kept(
    demo_abstracts, tmp_path
):
    params = _params(
        classifier=str(save_tiny_bert(tmp_path / "classifier", {0: "no", 1: "contradiction"})),
        verifier=_untrained_verifier(tmp_path),
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCICON_CACHE_DIR", str(tmp_path / "cache"))
        result = run_find(params, _topic(), _claim(params), demo_abstracts)
    left_out = result.report["non_claims"]
    registrations = [
        s.text for a in demo_abstracts for s in a.sentences if s.text.startswith("Trial registration")
    ]
    assert len(registrations) == 3
    assert sorted(row["text"] for row in left_out["least_claim_like"]) == sorted(registrations)
    assert left_out["left_out"] == 3 and left_out["min_claim"] == params.min_claim
    assert not any("registration" in claim.text for claim in result.claims)
    conclusions = {s.text for a in demo_abstracts for s in a.sentences if s.role.value == "CONCLUSIONS"}
    assert len(result.claims) == len(conclusions) - 3  # every other conclusion is still a claim


def test_the_page_names_the_settings_it_ran_with_the_verifiers_among_them(tmp_path):
    params = _params(verifier="models/other-verifier", verifier_top=7, verifier_rank="mean")
    write_page([], [], {"flag": {"threshold": 0.6}}, params, tmp_path / "find.html")
    line = re.search(r"Settings: (.*)\.\n", html.unescape((tmp_path / "find.html").read_text()))
    settings = json.loads(line.group(1))
    assert settings["verifier"] == "models/other-verifier" and settings["flag_threshold"] == 0.6
    assert (settings["verifier_top"], settings["verifier_rank"]) == (7, "mean")
    assert settings["classifier"] == params.classifier


@pytest.fixture(scope="module")
def found(tmp_path_factory, demo_abstracts):
    """A real run on the claims fixture: MiniLM embeddings, the same-topic model fitted on the
    demo corpus, a tiny random classifier (scores are arbitrary, the bookkeeping is not)."""
    root = tmp_path_factory.mktemp("find")
    classifier = save_tiny_bert(root / "classifier", {0: "non_contradiction", 1: "contradiction"})
    params = _params(
        classifier=str(classifier),
        verifier=_untrained_verifier(root),
        min_same_topic=0.0,
        flag_rate=1.0,
        min_shared_terms=2,
        min_claim=0.0,
    )
    topic, claim = _topic(), _claim(params)
    claims = read_claims_file(FIND / "claims.tsv")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCICON_CACHE_DIR", str(root / "cache"))
        first = run_find(params, topic, claim, demo_abstracts, claims)
        second = run_find(params, topic, claim, demo_abstracts, claims)
    write_outputs(first, params, root / "out", root / "find.html")
    return root, params, first, second


def test_a_run_pairs_claims_of_different_studies_in_both_orders_ranks_and_reruns_the_same(found):
    root, params, first, second = found
    assert first.pairs == second.pairs and first.groups == second.groups
    pairs = {pair.pair_id: pair for pair in first.pairs}
    assert all(pair.a.group != pair.b.group for pair in first.pairs)
    assert [pair.rank for pair in first.pairs] == list(range(1, len(first.pairs) + 1))
    # comparable pairs first by score, then the rest (never scored) by P(same topic)
    keys = [
        (not pair.comparable, -(pair.score if pair.comparable else pair.same_topic)) for pair in first.pairs
    ]
    assert keys == sorted(keys)
    for pair in first.pairs:
        if pair.comparable:
            assert pair.score == pytest.approx((pair.score_ab + pair.score_ba) / 2, abs=1e-6)
        else:
            assert pair.score is None and pair.score_ab is None and pair.score_ba is None
        assert pair.flagged == pair.comparable  # flag rate 1: every scored pair is flagged
    assert first.report["scored"] == sum(pair.comparable for pair in first.pairs)
    assert pairs["c1|c3"].not_comparable == (NotComparable(kind="population", detail="adults vs children"),)
    assert pairs["c1|c2"].comparable and set(pairs["c1|c2"].shared_terms) >= {"alpha", "blood", "pressure"}
    # c1, c2 and c4 are not one question (c4 shares nothing), so c4 is in no stance group
    members = {stance.claim.claim_id for group in first.groups for stance in group.members}
    assert {"c1", "c2"} <= members and "c4" not in members
    pairs_read, groups_read = read_outputs(root / "out")
    assert pairs_read == first.pairs and groups_read == first.groups
    assert first.report["flagged"] == sum(pair.flagged for pair in first.pairs)


def test_the_review_loop_gives_precision_at_k_and_leaves_reserved_abstracts_out(tmp_path, found):
    _, params, result, _ = found
    folder = tmp_path / "review"
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "".join(
            json.dumps({"id": f"g{i}", "sentence1": f"A {i}.", "sentence2": f"B {i}.", "gold": label}) + "\n"
            for i, label in enumerate(["contradiction", "neutral", "entailment", "neutral"])
        ),
        encoding="utf-8",
    )
    manifest = export_review(
        result.pairs,
        folder,
        top=2,
        below=0,
        annotators=1,
        seed=3,
        gold=gold,
        controls_per_batch=3,
        reserved=frozenset({"333"}),
    )
    assert manifest["top"] == 2 and manifest["controls"] == 3
    assert manifest["reserved_left_out"] == sum("333" in (p.a.pmid, p.b.pmid) for p in result.pairs)
    batch = (folder / "blinded" / "annotator-1.txt").read_text(encoding="utf-8")
    assert "not comparable" in batch and "333" not in batch and "c1" not in batch
    key = [json.loads(line) for line in (folder / "key.jsonl").read_text().splitlines()]
    top = sorted((row for row in key if row["source"] == "top"), key=lambda row: row["rank"])
    answers = [f"{top[0]['item_id']}\tcontradiction\t0", f"{top[1]['item_id']}\tnot comparable\t0"]
    for row in key:
        if row["source"] == "control":
            answers.append(
                f"{row['item_id']}\t{'neutral' if row['gold'] == 'contradiction' else row['gold']}\t0"
            )
    (folder / "annotations" / "annotator-1.tsv").write_text("\n".join(answers) + "\n", encoding="utf-8")
    figures = read_review(folder, LEVEL, ks=(1, 2))
    assert figures["precision_at"]["1"]["share"] == 1.0
    assert figures["precision_at"]["2"]["share"] == 0.5
    assert figures["not_comparable"] == 1 and figures["missing"] == 0
    controls = figures["controls"]["annotator-1"]
    assert controls["of"] == 3 and controls["hits"] == 3 - sum(
        r["gold"] == "contradiction" for r in key if r["source"] == "control"
    )
    reviewed = read_reviewed(folder / "reviewed.jsonl")
    assert reviewed[top[0]["pair_id"]]["label"] == "contradiction"
    with pytest.raises(InputFormatError, match="already"):
        export_review(result.pairs, folder, top=1, below=0, annotators=1, seed=3)
    (folder / "annotations" / "annotator-1.tsv").write_text(
        f"{top[0]['item_id']}\tmaybe\t0\n", encoding="utf-8"
    )
    with pytest.raises(InputFormatError, match="annotator-1.tsv:1: label 'maybe'"):
        read_review(folder, LEVEL)


def _stance_group(question: str, asked: str | None, stances: dict[str, str]) -> StanceGroupRecord:
    members = tuple(
        Stance(
            claim=Claim(claim_id=cid, text=f"Claim {cid}.", group=cid, pmid=cid),
            stance=stance,
            confidence=0.9,
        )
        for cid, stance in stances.items()
    )
    counts = {name: sum(m.stance == name for m in members) for name in (YES, NO, NEITHER)}
    return StanceGroupRecord(
        question=question,
        asked=asked,
        reference=members[0].claim,
        members=members,
        counts=counts,
        agreement=1.0,
        disagreeing=(),
        overruled=(),
    )


def test_the_review_asks_claims_their_question_and_scores_the_finder_sides_against_the_readers(
    tmp_path, found
):
    _, _, result, _ = found
    groups = [
        _stance_group("q1", "Does A help?", {"a1": YES, "a2": YES, "a3": NO, "a4": NEITHER}),
        _stance_group("q2", "Does B harm?", {"b1": YES, "b2": NO, "b3": NO}),
    ]
    folder = tmp_path / "review"
    manifest = export_review(
        result.pairs,
        folder,
        top=1,
        below=0,
        annotators=2,
        seed=4,
        groups=groups,
        stances=7,
        reserved=frozenset({"b3"}),
    )
    assert manifest["stances"] == 6  # b3's abstract is reserved
    batches = "".join((folder / "blinded" / f"annotator-{n}.txt").read_text() for n in (1, 2))
    assert "Q: Does A help?" in batches and "C: Claim a3." in batches and "Claim b3." not in batches
    assert "yes, no or neither" in batches
    key = [json.loads(line) for line in (folder / "key.jsonl").read_text().splitlines()]
    # the readers: q1's a1 and a3 agree (the finder split them: wrong), a2 opposite a1 and
    # a3 (the finder: a2 with a1, wrong; a2 against a3, right); q2's b1 against b2 (right)
    readers = {"a1": "yes", "a2": "no", "a3": "yes", "a4": "yes", "b1": "no", "b2": "yes"}
    lines = {1: [], 2: []}
    for row in key:
        number = int(row["annotator"].rsplit("-", 1)[1])
        label = readers[row["claim_id"]] if row["source"] == "stance" else "neutral"
        lines[number].append(f"{row['item_id']}\t{label}\t0")
    for number, answered in lines.items():
        (folder / "annotations" / f"annotator-{number}.tsv").write_text("\n".join(answered) + "\n")
    stance = read_review(folder, LEVEL, ks=(1,))["stance"]
    # pairs the readers side: q1 has 6 (a4 is sided by the readers, not by the finder), q2 one
    assert stance["pairs_sided_by_readers"] == 7 and stance["sides_right"]["of"] == 4
    assert stance["sides_right"]["share"] == 0.5 and stance["claims"] == 6 and stance["questions"] == 2
    assert stance["finder_against_reader"]["neither/yes"] == 1
    rows = [json.loads(line) for line in (folder / "stances.jsonl").read_text().splitlines()]
    assert {row["claim_id"]: row["reader"] for row in rows} == readers
    assert not any(row["source"] == "stance" for row in read_reviewed(folder / "reviewed.jsonl").values())
    # a pair's label on a stance item stops with the file and line
    stance_item = next(row for row in key if row["source"] == "stance")
    path = folder / "annotations" / f"{stance_item['annotator']}.tsv"
    path.write_text(f"{stance_item['item_id']}\tcontradiction\t0\n")
    with pytest.raises(
        InputFormatError, match=r"\.tsv:1: label 'contradiction' is not one of yes, no, neither"
    ):
        read_review(folder, LEVEL)
    with pytest.raises(NoWorkError, match="question's text"):
        export_review(
            result.pairs,
            tmp_path / "other",
            top=1,
            below=0,
            annotators=1,
            seed=4,
            groups=[_stance_group("q1", None, {"a1": YES})],
            stances=1,
        )


def test_the_page_opens_in_headless_chromium_without_errors_and_shows_the_top_pair(found, tmp_path):
    root, params, result, _ = found
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    assert browser, "chromium is not installed: scripts/setup.sh --dev installs it (Debian package chromium)"
    reviews = {result.pairs[0].pair_id: {"label": "contradiction", "readers": 1}}
    page = tmp_path / "find.html"
    page.write_text(
        render_page(result.pairs, result.groups, result.report, {}, 50, reviews), encoding="utf-8"
    )
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000"]
    dom = subprocess.run(
        [*command, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert '<span id="script-status" class="meta">ready</span>' in dom
    assert '<p id="script-errors"></p>' in dom
    top = result.pairs[0]
    assert top.a.text in dom and top.b.text in dom and "Reviewed: contradiction" in dom
    # a stance meter per question: the claims on each side, counted
    group = result.groups[0]
    assert result.groups and dom.count('<span class="meter">') == len(result.groups)
    assert sum(group.counts.values()) == len(group.members) and group.reference.text in dom
    for stance, count in group.counts.items():
        assert (f'title="{stance.capitalize()}: {count}"' in dom) == (count > 0)
    shot = tmp_path / "find.png"
    subprocess.run(
        [*command, "--window-size=1200,900", f"--screenshot={shot}", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_study_links_to_pubmed_by_pmid_and_to_pubmed_central_by_pmcid():
    from scicon.find.page import _study
    from scicon.records.find import Claim

    pubmed = _study(Claim(claim_id="c1", text="A claim.", group="123", pmid="123"))
    central = _study(Claim(claim_id="c2", text="A claim.", group="PMC101395", pmid="PMC101395"))
    assert 'href="https://pubmed.ncbi.nlm.nih.gov/123/"' in pubmed
    assert (
        'href="https://www.ncbi.nlm.nih.gov/pmc/articles/PMC101395/"' in central and ">PMC101395<" in central
    )
    assert "href" not in _study(Claim(claim_id="c3", text="A claim.", group="my-file:3"))
