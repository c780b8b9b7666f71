"""A component's settings block is needed only when a run chooses it.

Adding a transformation is its module and its test: one without settings needs nothing in
params.yaml, one with settings needs its block only in a run that chooses it, and a block
present for a component nobody chose is still validated (a typo stops the run).
"""

from __future__ import annotations

import ast
import re

import pytest
from pydantic import Field

from scicon.assembly_context import AssemblyContext
from scicon.errors import ParamsError
from scicon.evolve.assembly import validated_settings
from scicon.params import Section, Thresholds
from scicon.transformations import TRANSFORMATIONS
from scicon.transformations.base import MutationRequest
from tests.evolve_helpers import assemble, evolve_params, shared
from tests.scripted_backend import ScriptedBackend

THRESHOLDS = Thresholds(sim=0.5, claim=0.9, target=0.4)
LLM_PARTS = dict(search="evolutionary", similarity="llm", claim="llm", goal="llm")


class Reverse:
    """Reverses sentence2's words: a transformation registered by this test only."""

    name = "reverse"

    def __init__(self, copies: int = 1):
        self.copies = copies

    def propose(self, requests):
        return [[" ".join(reversed(r.sentence2.split()))] * r.count for r in requests]


class ReverseSettings(Section):
    copies: int = Field(gt=0)


@pytest.fixture
def built(monkeypatch) -> list[Reverse]:
    """Registers ``reverse`` (no settings) and ``reverse_n`` (with settings) for one test."""
    # the registry is process-wide: the test's entries go with it, so no other test sees them
    TRANSFORMATIONS.names()  # discovered first, so that the copy holds every module's entries
    monkeypatch.setattr(TRANSFORMATIONS, "_entries", dict(TRANSFORMATIONS._entries))
    made: list[Reverse] = []

    @TRANSFORMATIONS.register("reverse", description="reverses the words")
    def reverse(settings: None, context: AssemblyContext) -> Reverse:
        made.append(Reverse())
        return made[-1]

    @TRANSFORMATIONS.register("reverse_n", settings=ReverseSettings, description="reverses, n times")
    def reverse_n(settings: ReverseSettings, context: AssemblyContext) -> Reverse:
        made.append(Reverse(settings.copies))
        return made[-1]

    return made


def test_a_transformation_without_settings_needs_nothing_in_params_yaml(built):
    params = evolve_params(transformation="reverse", **LLM_PARTS)
    assert "reverse" not in params.settings["transformation"]  # params.yaml is unchanged
    searches, _ = assemble(params, THRESHOLDS, ScriptedBackend())
    assert searches and len(built) == 1
    request = MutationRequest(sentence1="x", sentence2="a b c", count=2)
    assert built[0].propose([request]) == [["c b a", "c b a"]]


def test_a_transformation_with_settings_needs_its_block_only_when_chosen(built):
    assemble(evolve_params(transformation="reverse", **LLM_PARTS), THRESHOLDS, ScriptedBackend())
    with pytest.raises(ParamsError, match=r"evolve.settings.transformation.reverse_n: .* missing"):
        assemble(evolve_params(transformation="reverse_n", **LLM_PARTS), THRESHOLDS, ScriptedBackend())
    chosen = evolve_params(
        transformation="reverse_n", settings={"transformation": {"reverse_n": {"copies": 3}}}, **LLM_PARTS
    )
    assemble(chosen, THRESHOLDS, ScriptedBackend())
    assert built[-1].copies == 3


def test_a_block_present_for_an_unchosen_component_is_still_validated(built):
    misspelt = evolve_params(settings={"transformation": {"reverse_n": {"copis": 3}}}, **LLM_PARTS)
    with pytest.raises(ParamsError, match=r"evolve.settings.transformation.reverse_n.copis"):
        validated_settings(misspelt, shared(THRESHOLDS))


def test_an_unchosen_component_may_have_no_block():
    params = evolve_params(transformation="rules", **LLM_PARTS)
    settings = {part: dict(blocks) for part, blocks in params.settings.items()}
    del settings["transformation"]["random"], settings["transformation"]["mlm"]
    validated = validated_settings(params.model_copy(update={"settings": settings}), shared(THRESHOLDS))
    assert ("transformation", "rules") in validated and ("transformation", "random") not in validated
    settings["transformation"].pop("rules")
    with pytest.raises(ParamsError, match=r"evolve.settings.transformation.rules: .* missing"):
        validated_settings(params.model_copy(update={"settings": settings}), shared(THRESHOLDS))


def test_a_mixed_transformation_asks_for_the_settings_of_its_parts(built):
    mixed = {"transformation": {"mixed": {"parts": {"reverse": 0.5, "reverse_n": 0.5}}}}
    params = evolve_params(transformation="mixed", settings=mixed, **LLM_PARTS)
    with pytest.raises(ParamsError, match=r"evolve.settings.transformation.reverse_n: .* missing"):
        assemble(params, THRESHOLDS, ScriptedBackend())


def test_every_setting_a_part_reads_outside_its_block_is_one_the_evolve_stage_declares():
    from scicon.assembly_context import settings_read
    from scicon.codedeps.params_read import expected_params
    from scicon.constraints import CONSTRAINTS
    from scicon.goal import GOALS

    declared = expected_params("stages/evolve.py")
    given = shared(THRESHOLDS)
    reads = [
        (entry, setting, source)
        for registry in (TRANSFORMATIONS, CONSTRAINTS, GOALS)
        for entry in registry
        for setting, source in settings_read(entry.facts).items()
    ]
    assert {source for _, _, source in reads} >= {"sim", "claim", "filter_models.topic_model"}
    for entry, setting, source in reads:
        assert setting in entry.settings.model_fields, f"{entry.name} reads {source} into no setting"
        assert source in given, f"{entry.name} reads {source}, which the evolve stage does not pass"
        assert any(key == source or key.startswith(f"{source}.") for key in declared), (
            f"{entry.name} reads {source}, which the evolve stage does not declare in dvc.yaml"
        )


def test_a_misspelt_or_missing_registration_fact_stops_the_registration_naming_it():
    from scicon.readers import LoaderFacts
    from scicon.registry import Registry

    loaders = Registry("benchmark loader", package="scicon.readers", facts=LoaderFacts)
    with pytest.raises(TypeError, match=r"benchmark loader 'tsv': registration keyword reads_folder: Extra"):
        loaders.register("tsv", keys="line", groups="premise", reads_folder=True)
    with pytest.raises(
        TypeError, match=r"benchmark loader 'tsv': registration keyword groups: Field required"
    ):
        loaders.register("tsv", keys="line")
    plain = Registry("search", package="scicon.search")
    with pytest.raises(TypeError, match=r"search 'beam': unknown registration keyword\(s\) width"):
        plain.register("beam", width=3)
    loaders.register("tsv", keys="line", groups="premise")(lambda source, options: [])
    facts = loaders["tsv"].facts
    assert facts == LoaderFacts(keys="line", groups="premise", derived=False, reads_folders=False)
    assert (facts.keys, facts.derived) == ("line", False)
    with pytest.raises(AttributeError, match="reads_folder"):
        facts.reads_folder  # noqa: B018 (a misspelt fact fails where it is read)


def string_key_fact_reads(source: str) -> list[str]:
    """Reads of a registration fact by string key in ``source``: ``entry.facts["derived"]``,
    ``entry.facts.get("derived")``, ``getattr(entry.facts, "derived")``, or the same on ``entry.extra``,
    where entries kept their facts as a mapping."""

    def holds_facts(node: ast.expr) -> bool:
        return isinstance(node, ast.Attribute) and node.attr in ("facts", "extra")

    found = []
    for node in ast.walk(ast.parse(source)):
        by_key = isinstance(node, ast.Subscript) and holds_facts(node.value)
        by_get = (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and holds_facts(node.func.value)
        )
        by_getattr = (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and bool(node.args)
            and holds_facts(node.args[0])
        )
        if by_key or by_get or by_getattr:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_registration_fact_is_read_by_string_key():
    """Facts are read as attributes of the registry's facts model (``entry.facts.derived``), so a
    misspelt read fails where it is written; docs' commands included."""
    from scicon.codedeps.closure import ROOT

    found = []
    for folder in ("scicon", "stages", "tests", "perf"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            lines = string_key_fact_reads(path.read_text(encoding="utf-8"))
            found += [f"{path.relative_to(ROOT)}:{line}" for line in lines]
    for path in sorted((ROOT / "docs").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(ROOT)}: {m}" for m in re.findall(r"\.(?:facts|extra)\[[^]]*\]", text)]
    assert not found, "read these facts as attributes (entry.facts.name):\n" + "\n".join(found)


def test_a_planted_string_key_fact_read_is_found():
    source = (
        "derived = entry.facts.derived\n"
        "folders = entry.extra['reads_folders']\n"
        "two = entry.facts.get('two_sided')\n"
        "label = getattr(entry.facts, 'label')\n"
        "given = args.extra\n"
    )
    assert string_key_fact_reads(source) == [
        "2: entry.extra['reads_folders']",
        "3: entry.facts.get('two_sided')",
        "4: getattr(entry.facts, 'label')",
    ]


def test_the_choices_params_yaml_lists_beside_each_part_are_the_registered_ones():
    """The `# a | b | c` comment after a chosen part names every component it may choose."""
    from scicon.backbones import BACKENDS
    from scicon.evolve.assembly import SLOTS
    from tests.params_defaults import PARAMS_FILE

    lines = PARAMS_FILE.read_text(encoding="utf-8").splitlines()

    def listed(section_indent: str, key: str) -> set[str]:
        pattern = re.compile(rf"^{section_indent}{key}: \S+\s+# (.*)$")
        (comment,) = [match.group(1) for line in lines if (match := pattern.match(line))]
        return {choice.split("(")[0].strip() for choice in comment.split("|")}

    for slot in SLOTS:
        if slot.key == "fluency":
            continue  # its choices are in the comment above it, with the reason
        names = {slot.short_name(entry) for entry in slot.entries()} | ({"off"} if slot.can_be_off else set())
        assert listed("  ", slot.key) == names, f"evolve.{slot.key}"
    assert listed("  ", "backend") == set(BACKENDS.names())


def test_a_registry_that_extends_another_finds_both_and_refuses_a_name_in_both():
    from scicon.readers import LoaderFacts
    from scicon.registry import Registry

    def reads(source, options):
        return []

    def derives(source, options):
        return []

    base = Registry("benchmark loader", package="scicon.readers", facts=LoaderFacts)
    extended = Registry("benchmark loader", package="scicon.evaluate.loaders", facts=LoaderFacts, base=base)
    base.register("tsv", keys="line", groups="premise")(reads)
    extended.register("shuffled", keys="as its base", groups="as its base", derived=True)(derives)
    assert extended.names() == ("shuffled", "tsv") and extended["tsv"].factory is reads
    assert "shuffled" not in base and base.names() == ("tsv",)
    with pytest.raises(ParamsError, match=r"unknown benchmark loader 'shuffled' \(known: tsv\)"):
        base.get("shuffled")

    twice = Registry("benchmark loader", package="scicon.evaluate.loaders", facts=LoaderFacts, base=base)
    twice.register("tsv", keys="line", groups="premise")(derives)
    with pytest.raises(
        ValueError, match=r"'tsv' registered in both scicon.evaluate.loaders and .* scicon.readers"
    ):
        twice.names()


def test_the_judges_and_the_build_read_with_the_readers_and_only_evaluation_has_its_own_loaders(tmp_path):
    from scicon.evaluate.loaders import BENCHMARK_LOADERS
    from scicon.labelled.candidates import labelled_candidates
    from scicon.readers import LOADERS
    from scicon.teacher.params import TeacherParams
    from tests.params_defaults import section

    evaluation_only = set(BENCHMARK_LOADERS.names()) - set(LOADERS.names())
    assert evaluation_only == {"hard", "scicon"}
    assert all(
        BENCHMARK_LOADERS[name].factory.__module__.startswith("scicon.evaluate.loaders.")
        for name in evaluation_only
    )
    assert all(entry.factory.__module__.startswith("scicon.readers.") for entry in LOADERS)

    split = tmp_path / "test.jsonl"
    split.write_text("", encoding="utf-8")
    ours = {"kind": "scicon", "path": str(split), "options": {}, "weight": 1.0, "cap": None}
    params = section("teacher", TeacherParams, labelled={"ours": ours})
    with pytest.raises(ParamsError, match=r"teacher.labelled.ours.kind: unknown benchmark loader 'scicon'"):
        labelled_candidates(params, None)
