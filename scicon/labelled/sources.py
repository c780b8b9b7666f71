"""The named labelled sources: where each file comes from, its SHA-256 and its licence.

Two kinds: sets the judges and students may learn from (``training``), and the evaluation
benchmarks HealthVer and NLI4CT (``evaluation``), which never train anything: download those
into ``data/benchmarks``, where `evaluate.benchmarks` looks for them by default.

Paths are relative to the labelled root and mirror the upstream repositories, so a
folder filled by hand from those repositories and one filled by ``download`` look the
same. Digests were taken from the copies this project was developed against; an
upstream file that changed is refused, never used silently.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceFile:
    path: str  # relative to the labelled root
    url: str
    sha256: str


@dataclass(frozen=True)
class LabelledSource:
    name: str
    description: str
    licence: str
    files: tuple[SourceFile, ...]
    purpose: str = "training"  # or "evaluation": a benchmark, never trained on


def _github(repository: str, branch: str, folder: str, local: str, files: dict[str, str]):
    base = "/".join(
        part for part in (f"https://raw.githubusercontent.com/{repository}/{branch}", folder) if part
    )
    return tuple(SourceFile(f"{local}/{name}", f"{base}/{name}", digest) for name, digest in files.items())


SOURCES: dict[str, LabelledSource] = {
    source.name: source
    for source in (
        LabelledSource(
            "check_covid",
            "Check-COVID: COVID-19 news claims against CORD-19 abstract sentences (SUPPORT/REFUTE/NEI)",
            "MIT",
            _github(
                "posuer/Check-COVID",
                "main",
                "Check-COVID",
                "check-covid/Check-COVID",
                {
                    "corpus.json": "2a56084b933f28ec02781a9e501082683ca4b9c4c1c6c8530190d6fb0002ce42",
                    "train/covidCheck_train_composed+extracted.json": (
                        "1af4b5e364129631b49a9132cadcd4f1b4937c90bef22ba0c08242be1630858b"
                    ),
                    "dev/covidCheck_dev_composed+extracted.json": (
                        "e64723a546c0ace6a6e1b022120664f36fe4c481e4a9f2d24e5dddc044bee717"
                    ),
                    "test/covidCheck_test_composed.json": (
                        "24e51eef9c9741c7766fd9df60d03faca7494eae695d59d99135067f9916b440"
                    ),
                    "test/covidCheck_test_extracted.json": (
                        "4e9a903d3e55d1d7121bdf1c82e28d1490bccbe64e4e06b2b8990b900a7b4985"
                    ),
                },
            )
            + _github(
                "posuer/Check-COVID",
                "main",
                "",
                "check-covid",
                {"LICENSE": "ead1a5b6c71fc912da18df21ba3a0a6b713da2b13939cbb2f02fb97c06fb99eb"},
            ),
        ),
        LabelledSource(
            "citation_integrity",
            "Citation-Integrity, SUPPORT/REFUTE relabelling with cited sentences (REFUTE merges "
            "contradict, not substantiated, oversimplify, misquote)",
            "MIT",
            _github(
                "jedick/MLE-capstone-project",
                "main",
                "data/citint",
                "citation-integrity-jedick",
                {
                    "claims_train.jsonl": "388acbcc79c1a3baa1e0e1f0314872c686f3f1e5f48272b77a87324356438ff7",
                    "claims_dev.jsonl": "fa2179d4c447c801862001f6cda3e2d7281d467757090a8633133ef47d8ef314",
                    "claims_test.jsonl": "256b76e0c67fd43122343e24962d15285ee0a5cdc69806f6f6b9c82e44f03c83",
                    "corpus.jsonl": "31b415d50a768e327ec094524c2c05734f911c2db5f99da7793a2fac4b11a97b",
                },
            ),
        ),
        LabelledSource(
            "mnli_snli",
            "MultiNLI dev (matched + mismatched) and SNLI dev as premise,hypothesis,label CSV",
            "MultiNLI: OANC / CC BY-SA parts; SNLI: CC BY-SA 4.0",
            _github(
                "felipessalvatore/NLI_datasets",
                "master",
                "nli_datasets",
                "nli-datasets",
                {
                    "mnli/dev.csv": "b1bc1a5b741446cdacfdd882b68709d14bac2ede39e4153b9a272f5028726255",
                    "snli/dev.csv": "af9cc200896596e96b04ceb752b7ee66200910ab22eda7daaa4fe70ebb44e8b3",
                },
            ),
        ),
        LabelledSource(
            "sick",
            "SICK, the official tab-separated file (SemEval_set names TRAIN / TRIAL / TEST)",
            "CC BY-NC-SA 3.0",
            _github(
                "kkalouli/SICK-processing",
                "master",
                "",
                "sick",
                {"SICK.txt": "1539c2d059809b5bd40694e26d8121cc85b6b496f91c7b40f2fc83bbd7dcd957"},
            ),
        ),
        LabelledSource(
            "anli_dev",
            "Adversarial NLI dev rounds 1-3 with annotations",
            "CC BY-NC 4.0",
            _github(
                "facebookresearch/anli",
                "main",
                "anlizinganli/anli_annot_v0.2",
                "anli-dev-annotated",
                {
                    "ANLI_analysis_r1_dev.csv": (
                        "5d8b94096aad2b7a067c41e07c02ea1350bf2c1ae9a1c7d444ffadd3bdc8e43e"
                    ),
                    "ANLI_analysis_r2_dev.csv": (
                        "da676b66bdb0ffab045aa6500425115efe20665355bff15dce16b05cf9819984"
                    ),
                    "ANLI_analysis_r3_dev.csv": (
                        "c3152a786c222c9cd8f4f6406c6f9f54bd66b45a8ff34efd174e4c691f652c4f"
                    ),
                },
            ),
        ),
        LabelledSource(
            "healthfc",
            "HealthFC: health claims (as questions) with systematic-review evidence",
            "CC BY-NC-ND 4.0",
            _github(
                "jvladika/HealthFC",
                "main",
                "",
                "healthfc",
                {"Datensatz.csv": "6b832bd2a73af47f7a8d9dcd3c307defa962cff3746c26b33866170a406721c8"},
            ),
        ),
        LabelledSource(
            "evidence_inference",
            "Evidence Inference 2.0: doctors' direction-of-effect answers (significantly increased / "
            "decreased / no significant difference) with the evidence they cited, and the prompts "
            "(intervention, comparator, outcome); the abstracts are the ingest source evidence-inference",
            "MIT",
            _github(
                "jayded/evidence-inference",
                "b9831b6c59b52ac2d277f757d413ececf0949a8d",
                "annotations",
                "evidence-inference/annotations",
                {
                    "prompts_merged.csv": "49899e124279be2b421ba0564bcddfe3d0b102c1ff5122caf4f66fa4499c5ca8",
                    "v2_annotations.csv": "39dbf2267794655fe76a933b54ad001e96efcccbca84e649e351bc36418c1e9b",
                },
            )
            + _github(
                "jayded/evidence-inference",
                "b9831b6c59b52ac2d277f757d413ececf0949a8d",
                "",
                "evidence-inference",
                {"LICENSE": "f76b1ceb8940c3717c3658d56d799af405355786b638683f68b9754a7fc77089"},
            ),
        ),
        LabelledSource(
            "healthver",
            "HealthVer dev: 1,917 (evidence, claim) pairs, Supports / Refutes / Neutral",
            "no licence file upstream; research use",
            _github(
                "sarrouti/HealthVer",
                "master",
                "data",
                "healthver",
                {"healthver_dev.csv": "6f8ea31cbcf2ea5a2d3c82d65587d66e96de4f70e72642bbf7f61fec6ef8a93a"},
            ),
            purpose="evaluation",
        ),
        LabelledSource(
            "nli4ct",
            "NLI4CT (SemEval-2024 task 2) training data: train and dev statements and the trial reports",
            "no licence file upstream; research use",
            _github(
                "ai-systems/Task-2-SemEval-2024",
                "main",
                "",
                "nli4ct",
                {"training_data.zip": "ed3d9819cfebd2d1d5d70fd786323c904b341470f8dc173af39946f70a0e5b9f"},
            ),
            purpose="evaluation",
        ),
    )
}
