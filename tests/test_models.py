import pytest

from scicon.errors import ParamsError
from scicon.models import resolve_model


def test_unknown_embedded_model_names_the_known_ones():
    with pytest.raises(ParamsError, match="unknown embedded model 'llama'.*smollm2-135m-instruct"):
        resolve_model("embedded:llama")


def test_existing_paths_resolve_and_other_references_pass_through(tmp_path):
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    assert resolve_model(str(model)) == str(model.resolve())
    assert resolve_model("meta-llama/Llama-3.1-8B-Instruct") == "meta-llama/Llama-3.1-8B-Instruct"
