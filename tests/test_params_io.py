"""params.yaml validation, JSON Lines records and atomic writes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from scicon.corpus.params import IngestParams
from scicon.errors import InputFormatError, ParamsError
from scicon.evolve.params import EvolveParams
from scicon.io import atomic_open, read_jsonl, write_jsonl
from scicon.pairing.params import PairsParams
from scicon.params import Section, load_section, load_thresholds, lookup, read_params_file
from scicon.records.corpus import Abstract, Role, Sentence
from scicon.search.evolutionary import EvolutionarySettings

REPO = Path(__file__).resolve().parent.parent


def test_the_shipped_params_file_survives_dvc_rewriting_it(tmp_path):
    """`dvc exp run -S` rewrites params.yaml with DVC's own YAML writer, and every later DVC
    command reads it back with the C parser, which refuses some values the writer leaves bare
    (a colon inside {...}); the shipped file must come back as it went in."""
    from dvc.utils.serialize import load_yaml, modify_yaml

    copy = tmp_path / "params.yaml"
    copy.write_text((REPO / "params.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    with modify_yaml(str(copy)) as params:
        params["sim"] = 0.7
    expected = yaml.safe_load((REPO / "params.yaml").read_text(encoding="utf-8")) | {"sim": 0.7}
    assert load_yaml(str(copy)) == expected


def test_the_shipped_params_file_is_valid_and_carries_the_paper_search_settings():
    thresholds = load_thresholds(REPO / "params.yaml")
    # claim is the offline claim model's operating point; the paper's 0.9 lives in profiles/paper.yaml
    assert (thresholds.sim, thresholds.target) == (0.5, 0.4)
    assert 0.0 < thresholds.claim < 1.0
    paper = yaml.safe_load((REPO / "profiles" / "paper.yaml").read_text(encoding="utf-8"))["set"]
    assert paper["claim"] == 0.9 and "sim" not in paper and "target" not in paper  # Table 6's are the default
    load_section(REPO / "params.yaml", "evolve", EvolveParams)
    search = load_section(REPO / "params.yaml", "evolve.settings.search.evolutionary", EvolutionarySettings)
    assert (search.population_size, search.candidates_per_mutation, search.max_iterations) == (4, 5, 4)
    load_section(REPO / "params.yaml", "ingest", IngestParams)
    load_section(REPO / "params.yaml", "pairs", PairsParams)


def write_params(tmp_path, data) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (
            {"source": "x", "max_abstracts": -3},
            "ingest.max_abstracts: Input should be greater than 0 (got -3)",
        ),
        ({"source": "x", "detokenise": "auto"}, "ingest.detokenise: Extra inputs are not permitted"),
        ({"source": "x", "sha256": "abc"}, "ingest.sha256: Value error, String should match pattern"),
        ({"split": "train"}, "ingest.source: Field required"),
    ],
)
def test_bad_ingest_params_name_the_key_and_value(tmp_path, section, message):
    path = write_params(tmp_path, {"ingest": section})
    with pytest.raises(ParamsError) as caught:
        load_section(path, "ingest", IngestParams)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


class _Block(Section):
    moved_keys = {"size": "sizes.first"}

    sizes: dict[str, int]


class _Moving(Section):
    moved_keys = {"old": "new", "older": "block.sizes.second"}

    new: int
    block: _Block


def test_a_moved_key_stops_naming_the_key_that_replaced_it_in_a_section_and_its_blocks(tmp_path):
    current = {"new": 1, "block": {"sizes": {"first": 2}}}
    path = write_params(tmp_path, {"moving": current})
    assert load_section(path, "moving", _Moving).block.sizes == {"first": 2}
    path = write_params(tmp_path, {"moving": {**current, "older": 3, "block": {"sizes": {}, "size": 2}}})
    with pytest.raises(ParamsError) as caught:
        load_section(path, "moving", _Moving)
    assert str(caught.value) == (
        f"{path}: moving.older has moved to moving.block.sizes.second: set it there; "
        "moving.block.size has moved to moving.block.sizes.first: set it there"
    )


def test_the_evolutionary_search_sizes_moved_into_its_block_and_an_old_key_says_where(tmp_path):
    params = read_params_file(REPO / "params.yaml")
    for old, new in EvolveParams.moved_keys.items():
        assert old not in params["evolve"] and lookup(params["evolve"], new) is not None
    path = write_params(tmp_path, {"evolve": {**params["evolve"], "max_iterations": 4}})
    with pytest.raises(
        ParamsError,
        match=r"evolve.max_iterations has moved to evolve.settings.search.evolutionary.max_iterations",
    ):
        load_section(path, "evolve", EvolveParams)


def test_thresholds_must_be_probabilities(tmp_path):
    path = write_params(tmp_path, {"sim": 1.5, "claim": 0.9, "target": 0.4})
    with pytest.raises(ParamsError, match=r"sim: Input should be less than or equal to 1 \(got 1.5\)"):
        load_thresholds(path)


def test_missing_section_and_invalid_yaml(tmp_path):
    path = write_params(tmp_path, {"pairs": {}})
    with pytest.raises(ParamsError, match="section 'ingest' is missing"):
        load_section(path, "ingest", IngestParams)
    path.write_text("ingest: [unclosed", encoding="utf-8")
    with pytest.raises(ParamsError, match="not valid YAML"):
        load_section(path, "ingest", IngestParams)


def test_params_are_read_as_dvc_reads_them_so_an_unquoted_off_stays_a_string(tmp_path):
    # `dvc exp run -S evolve.fluency=off` writes the value unquoted; YAML 1.1 would read False
    path = tmp_path / "params.yaml"
    path.write_text("evolve:\n  fluency: off\n  rate: 1e-3\n", encoding="utf-8")
    assert read_params_file(path)["evolve"] == {"fluency": "off", "rate": 0.001}


def test_repeated_pair_kind_is_rejected(tmp_path):
    path = write_params(tmp_path, {"pairs": {"kinds": ["result_conclusion", "result_conclusion"]}})
    with pytest.raises(ParamsError, match="pairs.kinds: Value error, pair kinds are listed more than once"):
        load_section(path, "pairs", PairsParams)


def test_records_round_trip_and_bad_lines_name_file_and_line(tmp_path):
    record = Abstract(pmid="1", sentences=(Sentence(role=Role.RESULTS, text="A finding."),), origin="f:1")
    path = tmp_path / "abstracts.jsonl"
    assert write_jsonl(path, [record, record]) == 2
    assert list(read_jsonl(path, Abstract)) == [record, record]

    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"pmid": "2", "sentences": [{"role": "FINDINGS", "text": "x"}], "origin": "f:9"}\n')
    with pytest.raises(
        InputFormatError, match=r"abstracts.jsonl:3: not a valid Abstract record: sentences.0.role"
    ):
        list(read_jsonl(path, Abstract))


def test_atomic_open_leaves_the_old_file_when_writing_fails(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("previous complete output", encoding="utf-8")
    with pytest.raises(RuntimeError):
        with atomic_open(path) as handle:
            handle.write("half of the new")
            raise RuntimeError("interrupted")
    assert path.read_text(encoding="utf-8") == "previous complete output"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
