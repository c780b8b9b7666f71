"""NLI4CT (SemEval-2024 task 2, "Safe Biomedical Natural Language Inference for Clinical Trials").

The release (``training_data.zip``, or the folder it unpacks to) holds the statement
files ``train.json`` and ``dev.json`` and one report per clinical trial,
``CT json/NCT........json``, whose sections (Intervention, Eligibility, Results,
Adverse Events) are lists of lines. A statement names its ``Type`` (Single or
Comparison), the ``Section_id`` it is about, the ``Primary_id`` trial and, for a
Comparison, the ``Secondary_id`` trial, and its ``Label`` (Entailment or
Contradiction).

The pair is (premise, statement). The premise is the named section of the primary
trial, prefixed "Primary trial:", and for a Comparison also that section of the
secondary trial, prefixed "Secondary trial:" — the words the statements themselves
use ("the primary trial", "the secondary trial"), so a reader of the pair knows which
is which. Lines are stripped of their indentation and joined with spaces. Keys are
``<split>:<statement id>``; pairs are grouped by primary trial. Archive debris
(``__MACOSX/``, ``.DS_Store``) is ignored.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path, PurePosixPath

from pydantic import Field

from scicon.errors import InputFormatError
from scicon.readers import LOADERS, LoaderOptions
from scicon.records.benchmark import BenchmarkPair

LABELS = {"Contradiction": 1, "Entailment": 0}
TYPES = ("Single", "Comparison")
SECTIONS = ("Intervention", "Eligibility", "Results", "Adverse Events")
TRIALS_FOLDER = "CT json"


class Nli4ctOptions(LoaderOptions):
    split: str = Field(
        min_length=1, description="statements file of the release: train or dev (test has no labels)"
    )


def _is_debris(parts: tuple[str, ...]) -> bool:
    return "__MACOSX" in parts or parts[-1].startswith(".")


class _Release:
    """The files of an NLI4CT release, from its zip archive or its unpacked folder."""

    def __init__(self, path: Path):
        self.path = path
        try:
            self._zip = zipfile.ZipFile(path) if path.is_file() else None
        except zipfile.BadZipFile as error:
            raise InputFormatError(str(path), "neither a zip archive nor a folder of the release") from error
        if self._zip is not None:
            names = [n for n in self._zip.namelist() if not n.endswith("/")]
        else:
            names = [p.relative_to(path).as_posix() for p in sorted(path.rglob("*")) if p.is_file()]
        self.members = [n for n in names if not _is_debris(PurePosixPath(n).parts)]
        self.trials = {
            PurePosixPath(n).stem: n
            for n in self.members
            if PurePosixPath(n).parent.name == TRIALS_FOLDER and n.endswith(".json")
        }

    def origin(self, member: str) -> str:
        return f"{self.path}/{member}"

    def statements_member(self, split: str) -> str:
        wanted = f"{split}.json"
        found = [n for n in self.members if PurePosixPath(n).name == wanted and n not in self.trials.values()]
        if not found:
            available = sorted(
                PurePosixPath(n).stem
                for n in self.members
                if n.endswith(".json") and n not in self.trials.values()
            )
            raise InputFormatError(
                str(self.path), f"no statements file {wanted} (found: {', '.join(available) or 'none'})"
            )
        return min(found, key=lambda n: len(PurePosixPath(n).parts))

    def read_json(self, member: str) -> object:
        try:
            if self._zip is not None:
                data = self._zip.read(member)
            else:
                data = (self.path / member).read_bytes()
            return json.loads(data.decode("utf-8"))
        except json.JSONDecodeError as error:
            raise InputFormatError(
                self.origin(member), f"not valid JSON: {error.msg}", error.lineno
            ) from error

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()


class _Trials:
    """Trial reports read once each, with errors that name the statement asking for them."""

    def __init__(self, release: _Release):
        self.release = release
        self._cache: dict[str, dict] = {}

    def section(self, trial_id: str, section: str, where: str, statement_id: str) -> str:
        if trial_id not in self._cache:
            member = self.release.trials.get(trial_id)
            if member is None:
                raise InputFormatError(
                    where,
                    f"statement {statement_id}: trial {trial_id} has no report "
                    f"'{TRIALS_FOLDER}/{trial_id}.json'",
                )
            report = self.release.read_json(member)
            if not isinstance(report, dict):
                raise InputFormatError(self.release.origin(member), "expected a JSON object")
            self._cache[trial_id] = report
        lines = self._cache[trial_id].get(section)
        member = self.release.trials[trial_id]
        if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
            raise InputFormatError(
                self.release.origin(member),
                f"section {section!r} (statement {statement_id}) is not a list of lines",
            )
        text = " ".join(line.strip() for line in lines if line.strip())
        if not text:
            raise InputFormatError(self.release.origin(member), f"section {section!r} is empty")
        return text


def _field(statement: dict, name: str, where: str, statement_id: str, allowed=None) -> str:
    value = statement.get(name)
    if not isinstance(value, str) or not value.strip():
        hint = " (NLI4CT's test split has no labels)" if name == "Label" else ""
        raise InputFormatError(where, f"statement {statement_id} has no {name}{hint}")
    value = value.strip()
    if allowed is not None and value not in allowed:
        raise InputFormatError(
            where, f"statement {statement_id}: {name} {value!r} is not one of {', '.join(allowed)}"
        )
    return value


@LOADERS.register(
    "nli4ct",
    keys="`<split>:<statement id>`",
    groups="primary trial",
    settings=Nli4ctOptions,
    reads_folders=True,
    description=(
        "NLI4CT release (zip or folder): statement vs the named section of the primary trial "
        "(and the secondary trial for Comparison statements); Contradiction vs Entailment"
    ),
)
def load_nli4ct(path: Path, options: Nli4ctOptions) -> list[BenchmarkPair]:
    release = _Release(path)
    try:
        member = release.statements_member(options.split)
        where = release.origin(member)
        statements = release.read_json(member)
        if not isinstance(statements, dict):
            raise InputFormatError(where, "expected a JSON object of statements by id")
        trials = _Trials(release)
        pairs = []
        for statement_id, statement in statements.items():
            if not isinstance(statement, dict):
                raise InputFormatError(where, f"statement {statement_id} is not a JSON object")
            kind = _field(statement, "Type", where, statement_id, TYPES)
            section = _field(statement, "Section_id", where, statement_id, SECTIONS)
            primary = _field(statement, "Primary_id", where, statement_id)
            premise = "Primary trial: " + trials.section(primary, section, where, statement_id)
            if kind == "Comparison":
                secondary = _field(statement, "Secondary_id", where, statement_id)
                premise += " Secondary trial: " + trials.section(secondary, section, where, statement_id)
            pairs.append(
                BenchmarkPair(
                    sentence1=premise,
                    sentence2=_field(statement, "Statement", where, statement_id),
                    label=LABELS[_field(statement, "Label", where, statement_id, tuple(LABELS))],
                    key=f"{options.split}:{statement_id}",
                    group=primary,
                )
            )
        return pairs
    finally:
        release.close()
