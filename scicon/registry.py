"""Registries of components: one per kind, each entry registered once, where it is defined.

A component — a transformation, a constraint, a goal, a search, a backend, a benchmark
loader, a rule operator — registers itself with a decorator in its own module::

    @TRANSFORMATIONS.register("rules", settings=RuleSettings, description="the rule operators")
    def rules(settings: RuleSettings, context: AssemblyContext) -> Transformation: ...

A registry knows the package its components live in and imports every module of that
package on its first lookup, so a new component is its module (and its test): no list
elsewhere names it. params.yaml refers to entries by name; an unknown name stops with the
known ones listed. An entry carries its factory, the pydantic model of its settings (its
block in params.yaml, the only place defaults live), whether it needs a backbone, and any
facts a caller checks combinations against (``requires``), and the facts of its kind
(``facts``: a loader's pair keys, an operator's label), an instance of the registry's ``facts``
model made when the component registers, so a misspelt or missing fact stops the import with
the registry, the component and the keyword named, and a caller reads each fact as an
attribute (``entry.facts.derived``), so a misspelt read fails too. A settings block is required
only of the component a run chooses; a block present for another is still validated, so a
misspelt key stops the run. A component without settings needs nothing in params.yaml.

Each registry is typed by its kind's factory signature, a :class:`typing.Protocol` beside
the kind's interface (e.g. :class:`scicon.transformations.base.TransformationFactory`).

Modules of a registry's package are code dependencies of every stage that uses the
registry; :mod:`scicon.codedeps.closure` knows this from the ``package=__name__`` argument.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from scicon.errors import ParamsError
from scicon.params import validate_section

F = TypeVar("F", bound=Callable[..., Any])  # the kind's factory signature


@dataclass(frozen=True)
class Entry(Generic[F]):
    """One registered component."""

    kind: str
    name: str
    factory: F
    settings: type[BaseModel] | None = None
    needs_backbone: bool = False
    description: str = ""
    # combinations it needs, e.g. {"transformation": ("llm",)} for the direct-prompt search
    requires: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # kind-specific facts a caller reads by attribute, e.g. a baseline's two_sided or an
    # operator's label: an instance of its registry's facts model (None: the kind states none)
    facts: BaseModel | None = None

    def validate_settings(self, values: object, key: str) -> BaseModel | None:
        """This entry's settings from ``values`` (its params.yaml block, None when absent);
        errors name ``key``. Call it for a chosen entry: one with settings needs its block."""
        if self.settings is None:
            if values not in (None, {}):
                raise ParamsError(f"{key}: {self.kind} {self.name!r} takes no settings (got {values!r})")
            return None
        if values is None:
            raise ParamsError(f"{key}: settings of {self.kind} {self.name!r} are missing from params.yaml")

        return validate_section(self.settings, values, f"{key}.")


class Registry(Generic[F]):
    """Components of one kind by name, discovered from ``package`` on first use."""

    def __init__(
        self, kind: str, package: str, facts: type[BaseModel] | None = None, base: Registry[F] | None = None
    ):
        self.kind = kind
        self.package = package
        self.facts = facts  # what each registration of this kind states beyond the common keywords
        # a registry this one extends: its entries are found here too, and a name stays unique
        # across both, so code that needs only the base never imports this package
        self.base = base
        self._entries: dict[str, Entry[F]] = {}
        self._discovered = False
        self._lock = threading.RLock()

    def register(
        self,
        name: str,
        *,
        settings: type[BaseModel] | None = None,
        needs_backbone: bool = False,
        description: str = "",
        requires: Mapping[str, tuple[str, ...]] | None = None,
        **extra: Any,
    ) -> Callable[[F], F]:
        facts = self._facts(name, extra)

        def decorate(factory: F) -> F:
            with self._lock:
                if name in self._entries and self._entries[name].factory is not factory:
                    raise ValueError(f"{self.kind} {name!r} is registered twice")
                self._entries[name] = Entry(
                    kind=self.kind,
                    name=name,
                    factory=factory,
                    settings=settings,
                    needs_backbone=needs_backbone,
                    description=description or (factory.__doc__ or "").strip().split("\n")[0],
                    requires=dict(requires or {}),
                    facts=facts,
                )
            return factory

        return decorate

    def _facts(self, name: str, given: dict[str, Any]) -> BaseModel | None:
        if self.facts is None:
            if given:
                raise TypeError(
                    f"{self.kind} {name!r}: unknown registration keyword(s) {', '.join(sorted(given))} "
                    f"(a {self.kind} states none)"
                )
            return None
        try:
            return self.facts.model_validate(given)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(map(str, item['loc'])) or '(all)'}: {item['msg']}" for item in error.errors()
            )
            known = ", ".join(self.facts.model_fields)
            raise TypeError(
                f"{self.kind} {name!r}: registration keyword {problems} (known: {known})"
            ) from None

    def _discover(self) -> None:
        with self._lock:
            if self._discovered:
                return
            module = importlib.import_module(self.package)
            for info in pkgutil.iter_modules(module.__path__):
                importlib.import_module(f"{self.package}.{info.name}")
            if self.base is not None:
                self.base._discover()
                twice = sorted(set(self._entries) & set(self.base._entries))
                if twice:
                    raise ValueError(
                        f"{self.kind} {', '.join(map(repr, twice))} registered in both {self.package} "
                        f"and the registry it extends, {self.base.package}"
                    )
            self._discovered = True

    def _all_entries(self) -> dict[str, Entry[F]]:
        self._discover()
        if self.base is None:
            return self._entries
        return {**self.base._all_entries(), **self._entries}

    def get(self, name: str, key: str | None = None) -> Entry[F]:
        """The entry ``name``; a ParamsError names the params ``key`` and the known entries."""
        entries = self._all_entries()
        if name not in entries:
            where = f"{key}: " if key else ""
            raise ParamsError(f"{where}unknown {self.kind} {name!r} (known: {', '.join(self.names())})")
        return entries[name]

    def __getitem__(self, name: str) -> Entry[F]:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._all_entries()

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._all_entries()))

    def __iter__(self) -> Iterator[Entry[F]]:
        entries = self._all_entries()
        return iter([entries[name] for name in sorted(entries)])
