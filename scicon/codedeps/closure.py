"""The files a stage script runs or reads, found by reading the source (AST, nothing is
imported), and their digest.

A stage's result depends on every module of ``scicon`` its script imports, directly or
not, and on the data files those modules read. The first stage, ``code``, writes
``code/<script>.txt`` for each stage script: the path and SHA-256 of every such file, one a
line, sorted; each stage depends on its digest file instead of a list of modules, so DVC
reruns exactly the stages whose code changed.

Three things beyond plain imports count: importing ``a.b.c`` runs the ``__init__`` of
``a`` and ``a.b``; a package that creates a :class:`scicon.registry.Registry` with
``package=__name__`` imports every module in it (a registry that extends another counts
its own package only: the other is imported where it is named); a module that sets
``__data__ = ("folder", ...)`` reads those paths (relative to its own folder).
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("scicon",)
SCRIPTS = "stages"  # one script per stage
CODE = "code"  # the digest files, one per stage script: the code stage's output


def module_file(module: str, root: Path) -> Path | None:
    base = root.joinpath(*module.split("."))
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _package_inits(module: str, root: Path) -> list[Path]:
    parts = module.split(".")
    inits = []
    for end in range(1, len(parts)):
        init = root.joinpath(*parts[:end], "__init__.py")
        if init.is_file():
            inits.append(init)
    return inits


def module_name(path: Path, root: Path) -> str:
    relative = path.relative_to(root).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


def _is_registry_package(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Registry"
            and any(
                k.arg == "package" and isinstance(k.value, ast.Name) and k.value.id == "__name__"
                for k in node.keywords
            )
        ):
            return True
    return False


def _declared_data(tree: ast.Module, folder: Path) -> list[Path]:
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__data__" for t in node.targets)
            and isinstance(node.value, ast.Tuple | ast.List)
        ):
            return [
                folder / element.value for element in node.value.elts if isinstance(element, ast.Constant)
            ]
    return []


def import_statements(
    tree: ast.Module, current: str, is_package: bool
) -> Iterable[tuple[str, tuple[str, ...], int]]:
    """Each import statement of ``tree`` (module ``current``), inside functions too: the absolute
    name of the module it names, the names it takes from it (none for ``import a.b``), its line."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, (), node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = current.split(".") if is_package else current.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            yield module, tuple(alias.name for alias in node.names), node.lineno


def imported_modules(tree: ast.Module, current: str, is_package: bool) -> Iterable[tuple[str, int]]:
    """Every name an import statement of ``tree`` (module ``current``) may load, with its line:
    imports inside functions too, and ``from a import b`` as both ``a`` and ``a.b``."""
    for module, names, line in import_statements(tree, current, is_package):
        yield module, line
        for name in names:
            yield f"{module}.{name}", line  # a submodule, when one of that name exists


def import_closure(entry: Path, root: Path = ROOT) -> list[Path]:
    """Every file of :data:`PACKAGES` the script ``entry`` runs or reads, sorted; ``entry`` first."""
    entry = entry.resolve()
    seen: set[Path] = set()
    data: set[Path] = set()
    queue = [entry]
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        current = module_name(path, root) if path.is_relative_to(root) else path.stem
        data.update(_declared_data(tree, path.parent))
        found: list[Path] = []
        for module, _ in imported_modules(tree, current, is_package):
            if module.split(".")[0] not in PACKAGES:
                continue
            target = module_file(module, root)
            if target is not None:
                found += [target, *_package_inits(module, root)]
        if is_package and _is_registry_package(tree):
            found += sorted(p for p in path.parent.glob("*.py"))
            found += sorted(p for p in path.parent.glob("*/__init__.py"))
        queue += [p for p in found if p not in seen]
    files = {p.resolve() for p in seen} | {
        f.resolve() for d in data for f in ([d] if d.is_file() else d.rglob("*")) if f.is_file()
    }
    files.discard(entry)
    return [entry, *sorted(files)]


def code_digest(files: Iterable[Path], root: Path = ROOT) -> str:
    """SHA-256 over the files' repository paths and bytes: changes when any of them does."""
    digest = hashlib.sha256()
    for path in sorted(Path(f).resolve() for f in files):
        digest.update(f"{path.relative_to(root)}\0".encode())
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def stage_code_digest(script: str | Path, root: Path = ROOT) -> str:
    """The digest of everything the stage script ``script`` imports or reads."""
    return code_digest(import_closure(root / script, root), root)


def code_listing(script: str | Path, root: Path = ROOT) -> str:
    """``path sha256`` of every file the stage script ``script`` imports or reads, one a line,
    sorted by path: the content of its digest file, which changes exactly when its code does."""
    files = sorted((path.relative_to(root).as_posix(), path) for path in import_closure(root / script, root))
    return "".join(f"{name} {hashlib.sha256(path.read_bytes()).hexdigest()}\n" for name, path in files)


def stage_scripts(root: Path = ROOT) -> list[str]:
    """Every stage script, ``stages/<name>.py``."""
    return sorted(
        p.relative_to(root).as_posix() for p in (root / SCRIPTS).glob("*.py") if p.stem != "__init__"
    )


def digest_file(script: str) -> str:
    """The digest file of a stage script: ``code/<name>.txt``, shared by every stage running it."""
    return f"{CODE}/{Path(script).stem}.txt"


def write_digests(out: Path, root: Path = ROOT) -> list[Path]:
    """Write every stage script's digest file into ``out``, removing any other ``.txt`` there."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for script in stage_scripts(root):
        target = out / Path(digest_file(script)).name
        target.write_text(code_listing(script, root), encoding="utf-8")
        written.append(target)
    for stale in set(out.glob("*.txt")) - set(written):
        stale.unlink()
    return written
