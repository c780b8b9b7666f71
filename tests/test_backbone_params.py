"""The backbone section: registered backends with their own settings blocks, merged
overrides for components that name their own model, shared loads, closing."""

from __future__ import annotations

import pytest

from perf.simulated_server import SimulatedServer
from scicon.backbones import BACKENDS, BackboneParams, build_backend, load_backbone, merged_backbone_params
from scicon.codedeps.params_read import rerun_keys
from scicon.errors import ParamsError
from scicon.params import nested_section, result_settings
from tests.params_defaults import section


def test_every_registered_backend_has_its_settings_block():
    params = section("backbone", BackboneParams)
    assert BACKENDS.names() == ("llama_cpp", "openai", "transformers")
    blocks = {name for name, field in BackboneParams.model_fields.items() if nested_section(field)}
    assert blocks == set(BACKENDS.names())  # what BackboneParams accepts as its backend
    for entry in BACKENDS:
        assert BackboneParams.model_fields[entry.name].annotation is entry.settings
        assert isinstance(getattr(params, entry.name), entry.settings)


def test_unknown_backend_and_bad_block_keys_are_named():
    with pytest.raises(ParamsError) as caught:
        merged_backbone_params(
            section("backbone", BackboneParams),
            {"backend": "vllm", "openai": {"max_concurrency": 0}},
            key="evolve.goal.backbone",
        )
    message = str(caught.value)
    assert (
        "evolve.goal.backbone.backend: Value error, unknown backend 'vllm' (known: llama_cpp, openai"
        in message
    )
    assert "evolve.goal.backbone.openai.max_concurrency: Input should be greater than 0" in message
    with pytest.raises(ParamsError, match="backbone.openai.threads: Extra inputs"):
        merged_backbone_params(section("backbone", BackboneParams), {"openai": {"threads": 2}})


def test_a_partial_override_is_merged_key_by_key():
    base = section("backbone", BackboneParams)
    merged = merged_backbone_params(
        base, {"backend": "openai", "openai": {"base_url": ["http://a:8000/v1", "http://b:8000/v1"]}}
    )
    assert merged.openai.endpoints == ("http://a:8000/v1", "http://b:8000/v1")
    assert merged.openai.top_logprobs == base.openai.top_logprobs  # untouched keys stay
    assert merged.model == base.model
    assert merged_backbone_params(base, None) is base
    with pytest.raises(ParamsError, match="listed more than once"):
        merged_backbone_params(base, {"openai": {"base_url": ["http://a/v1", "http://a/v1"]}})


def test_operational_keys_rerun_nothing_and_stay_out_of_result_digests():
    keys = rerun_keys(BackboneParams, "backbone")
    assert "backbone.openai.top_logprobs" in keys and "backbone.transformers.batch_size" in keys
    for operational in ("base_url", "max_concurrency", "timeout_seconds", "max_retries", "api_key_env"):
        assert f"backbone.openai.{operational}" not in keys
    assert "backbone.llama_cpp.threads" not in keys
    settings = result_settings(section("backbone", BackboneParams))
    assert settings["openai"] == {"api": "chat", "top_logprobs": 20} and settings["llama_cpp"] == {}


def test_openai_without_a_url_names_the_key():
    params = merged_backbone_params(section("backbone", BackboneParams), {"backend": "openai"})
    with pytest.raises(ParamsError, match="backbone.openai.base_url"):
        build_backend(params)


def test_identical_configurations_share_one_backend_until_the_last_handle_closes(tmp_path):
    with SimulatedServer(latency=0.0) as server:
        params = merged_backbone_params(
            section("backbone", BackboneParams),
            {
                "backend": "openai",
                "model": "simulated-llm",
                "openai": {"base_url": server.url, "api_key_env": None},
            },
        )
        other = merged_backbone_params(params, {"openai": {"top_logprobs": 5}})
        with load_backbone(params, tmp_path / "c.sqlite") as first:
            with load_backbone(params, tmp_path / "c.sqlite") as second:
                distinct = load_backbone(other, tmp_path / "c.sqlite")
                assert second.backend is first.backend and distinct.backend is not first.backend
                second.yes_no(["Is it? Answer:"])
                distinct.close()
            assert second.stats.as_metrics()["calls_requested"] == 1
            assert first.stats.as_metrics()["calls_requested"] == 0  # each handle counts its own calls
            first.yes_no(["Still open? Answer:"])  # the shared backend outlives the second handle
        with load_backbone(params, tmp_path / "c.sqlite") as third:
            assert third.backend is not first.backend  # the last close released it
