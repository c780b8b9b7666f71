"""The released SciCon read without DVC, as the README shows: the splits with `datasets`, the
judge with a `transformers` pipeline that names its labels."""

from __future__ import annotations

from tests.dvc_project import REPO
from tests.release_project import documented


def test_the_readme_reads_the_release_without_dvc(tmp_path, monkeypatch, capsys):
    """The README's Python block, run as written on a release folder laid out as `dvc pull`
    leaves it: splits written by the build's own writer, a judge saved with its label names
    (a tiny BERT standing in for the released MiniLM)."""
    from scicon.dataset.export import write_split
    from scicon.readers.rows import NLI_LABELS
    from scicon.records.dataset import Example
    from tests.tiny_models import save_tiny_bert

    release_folder = tmp_path / "release"
    for split in ("train", "dev", "test"):
        examples = [
            Example(
                example_id=f"{split}-{index}",
                pmid=str(index),
                sentence1="drug lowered pressure in adults",
                sentence2="drug did not reduce pressure" if index % 2 else "drug improved pain",
                label=index % 2,
                generator="original",
                split=split,
            )
            for index in range(3)
        ]
        write_split(release_folder / "scicon", split, examples)
    save_tiny_bert(release_folder / "judge", id2label=dict(enumerate(NLI_LABELS)))

    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(documented(REPO / "README.md", "python"), namespace)
    printed = capsys.readouterr().out
    scicon, judge = namespace["scicon"], namespace["judge"]
    assert {split: scicon[split].num_rows for split in scicon} == {"train": 3, "dev": 3, "test": 3}
    assert (
        scicon["test"][1]["label"] == 1 and scicon["test"][1]["sentence2"] == "drug did not reduce pressure"
    )
    assert judge.model.config.id2label == {0: "entailment", 1: "neutral", 2: "contradiction"}
    scores = namespace["judge"](
        {"text": "drug lowered pressure", "text_pair": "drug did not reduce pressure"}
    )
    assert sorted(score["label"] for score in scores) == ["contradiction", "entailment", "neutral"]
    assert "'contradiction'" in printed and "'score'" in printed
