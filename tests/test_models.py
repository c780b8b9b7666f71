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


def test_a_model_in_chunk_packages_is_assembled_once_and_checked(tmp_path, monkeypatch, cache_dir):
    import hashlib

    from scicon.errors import ChecksumMismatchError
    from scicon.models import ChunkedFile

    chunks = [b"GGUF-first-", b"second-", b"third"]
    for n, chunk in enumerate(chunks, start=1):
        package = tmp_path / f"chunky_part{n}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{n:02d}.bin").write_bytes(chunk)
    monkeypatch.syspath_prepend(str(tmp_path))
    whole = b"".join(chunks)
    model = ChunkedFile("tiny.gguf", "chunky_part", 3, hashlib.sha256(whole).hexdigest(), len(whole))
    path = model.assemble()
    assert path.read_bytes() == whole and path.is_relative_to(cache_dir)
    assert model.assemble() == path  # verified once, then reused
    wrong = ChunkedFile("other.gguf", "chunky_part", 3, "0" * 64, len(whole))
    with pytest.raises(ChecksumMismatchError, match="chunky_part1..3 give sha256"):
        wrong.assemble()
    assert not (path.parent / "other.gguf").exists()  # nothing half-written left behind
