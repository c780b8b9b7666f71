"""Reading params.yaml: one validated model per section, each kept beside the code that reads it.

Stages read only their own section (plus the top-level EvoNLI thresholds) so a
typo or out-of-range value fails at start-up with the key and value named,
instead of deep inside a long run. The section models live with their stage's
library code (``scicon.corpus.params``, ``scicon.evolve.params``, ...), so a new knob
for one stage changes no other stage's code dependencies.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, TypeVar, overload

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from scicon.errors import ParamsError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


class Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # Keys the section once had, each with the key (relative to the section) that holds its
    # value now: an old params.yaml, profile or ``-S`` override then stops naming both,
    # where "extra inputs are not permitted" would leave the user to find the new place.
    moved_keys: ClassVar[Mapping[str, str]] = {}


Probability = Field(ge=0.0, le=1.0)


def Operational(**constraints) -> Any:  # noqa: N802 (used like pydantic's Field)
    """A field that changes how fast or how a run talks to a server, never its results.

    Operational keys are left out of the params a stage declares in dvc.yaml (so
    `dvc exp run -S evolve.workers=4` reruns nothing) and out of resume digests.
    """
    return Field(json_schema_extra={"operational": True}, **constraints)


def is_operational(field: FieldInfo) -> bool:
    extra = field.json_schema_extra
    return isinstance(extra, dict) and bool(extra.get("operational"))


def nested_section(field: FieldInfo) -> type[Section] | None:
    """The section model of a field that is a block of its own (``backbone.openai``)."""
    kind = field.annotation
    return kind if isinstance(kind, type) and issubclass(kind, Section) else None


def result_settings(section: Section) -> dict:
    """``section`` as JSON values without its operational keys, nested blocks included:
    what a digest of "the settings that decide the results" should cover."""
    values = {}
    for name, field in type(section).model_fields.items():
        if is_operational(field):
            continue
        value = getattr(section, name)
        values[name] = result_settings(value) if nested_section(field) else _json_value(field, value)
    return values


def _json_value(field: FieldInfo, value: Any) -> Any:
    return TypeAdapter(field.annotation).dump_python(value, mode="json")


class Thresholds(Section):
    """EvoNLI filter thresholds (paper Table 6), top-level keys so `dvc exp run -S sim=0.7` works."""

    sim: float = Probability
    claim: float = Probability
    target: float = Probability


@overload
def meets_threshold(score: float, threshold: float) -> bool: ...
@overload
def meets_threshold(score: NDArray[np.floating], threshold: float) -> NDArray[np.bool_]: ...
def meets_threshold(score, threshold):
    """Whether a probability (or each of an array of them) passes its threshold: at or above it.

    The one rule for every probability threshold of the project (``sim``, ``claim``, ``target``,
    the finder's ``threshold``, every ``min_*`` probability): a score equal to the threshold
    passes, as in Algorithm 1 of "Evolutionary Self-Supervised Contradiction Detection for
    Biomedical NLI", which keeps the candidates with SIMSCORE >= T_sim and CLAIMSCORE >= T_claim
    and stops when the best one's confidence >= T_conf. ``tests/test_threshold_rule.py`` fails
    on a comparison against a threshold written anywhere else."""
    return score >= threshold


class TopLevel(Thresholds):
    """Single top-level keys a stage may read one at a time (``load_key``), so that it declares
    only the keys it uses: a stage that needs ``target`` does not rerun when ``sim`` changes."""

    labelled_root: str | None = Field(description="folder of labelled NLI sets; relative paths resolve in it")
    threads: int | None = Operational(
        gt=0, description="CPU threads of each stage's models (null: the cores the process may use)"
    )


SectionT = TypeVar("SectionT", bound=Section)


def parse_params_text(text: str) -> Any:
    """params.yaml's text read as DVC reads it: YAML 1.2, where ``off`` and ``yes`` are strings.

    ``dvc exp run -S evolve.fluency=off`` writes ``fluency: off`` unquoted; a YAML 1.1 reader
    (PyYAML) would hand the stage ``False`` while DVC records the string."""
    return YAML(typ="safe", pure=True).load(text)


def read_params_file(path: str | os.PathLike = "params.yaml") -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            data = parse_params_text(handle.read())
    except FileNotFoundError as error:
        raise ParamsError(f"{path}: parameters file not found") from error
    except YAMLError as error:
        raise ParamsError(f"{path}: not valid YAML: {error}") from error
    if not isinstance(data, dict):
        raise ParamsError(f"{path}: expected a mapping of sections at the top level")
    return data


def load_section(path: str | os.PathLike, name: str, model: type[SectionT]) -> SectionT:
    """Validate section ``name`` of the params file against ``model``; a dotted name
    (``filter_models.topic_model``) is a block inside a section."""
    value = lookup(read_params_file(path), name)
    if value is None:
        raise ParamsError(f"{path}: section '{name}' is missing")
    return validate_section(model, value, f"{name}.", origin=path)


def lookup(data: object, dotted: str) -> Any:
    """``data["a"]["b"]`` for ``"a.b"`` (params, a stage's report, any nested mapping); None
    where a level is missing."""
    value: Any = data
    for key in dotted.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def load_thresholds(path: str | os.PathLike = "params.yaml") -> Thresholds:
    data = read_params_file(path)
    return validate_section(
        Thresholds, {key: data.get(key) for key in Thresholds.model_fields}, "", origin=path
    )


def validate_key(name: str, value: object, origin: str | os.PathLike = "params.yaml") -> Any:
    """``value`` as top-level key ``name`` (a field of :class:`TopLevel`)."""
    if name not in TopLevel.model_fields:
        raise ParamsError(f"{name!r} is not a top-level key ({', '.join(TopLevel.model_fields)})")
    field = TopLevel.model_fields[name]
    kind = Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
    try:
        return TypeAdapter(kind).validate_python(value)
    except ValidationError as error:
        raise ParamsError(f"{origin}: {name}={value!r}: {error.errors()[0]['msg']}") from error


def load_key(path: str | os.PathLike, name: str) -> Any:
    """One top-level key, validated; a missing key is an error (params.yaml holds every default)."""
    data = read_params_file(path)
    if name not in data:
        raise ParamsError(f"{path}: top-level key '{name}' is missing")
    return validate_key(name, data[name], path)


def validate_section(
    model: type[SectionT], value: object, prefix: str, origin: str | os.PathLike = "params.yaml"
) -> SectionT:
    """``value`` as ``model``; a ParamsError names every bad key (with ``prefix``) and its value,
    and every moved key with the key that replaced it."""
    moved = moved_keys_in(model, value, prefix)
    if moved:
        raise ParamsError(
            f"{origin}: " + "; ".join(f"{old} has moved to {new}: set it there" for old, new in moved)
        )
    try:
        return model.model_validate(value)
    except ValidationError as error:
        problems = []
        for item in error.errors():
            key = prefix + ".".join(str(part) for part in item["loc"])
            given = item.get("input")
            problems.append(f"{key.rstrip('.')}: {item['msg']} (got {given!r})")
        raise ParamsError(f"{origin}: " + "; ".join(problems)) from error


def moved_keys_in(model: type[Section], value: object, prefix: str) -> list[tuple[str, str]]:
    """(old key, new key), each with ``prefix``, of the moved keys ``value`` still sets, in
    ``model`` and in its nested blocks."""
    if not isinstance(value, Mapping):
        return []
    moved = [(prefix + old, prefix + new) for old, new in model.moved_keys.items() if old in value]
    for name, field in model.model_fields.items():
        block = nested_section(field)
        if block is not None:
            moved += moved_keys_in(block, value.get(name), f"{prefix}{name}.")
    return moved
