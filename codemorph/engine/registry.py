"""Transform registry: built-ins and plugins, both found through the entry-point group
``codemorph.transforms`` (the built-ins are declared in codemorph's own
``pyproject.toml``, exactly as a plugin declares its own)."""

from __future__ import annotations

import difflib
import inspect
from importlib.metadata import entry_points
from typing import Any, Iterable

from codemorph.errors import CodemorphError, UnknownTransformError
from codemorph.engine.transform import Transform, record_distribution

__all__ = ["ENTRY_POINT_GROUP", "Registry", "default_registry", "get_transform", "list_transforms", "option_names"]

#: the entry-point group where built-in and third-party transforms register
ENTRY_POINT_GROUP = "codemorph.transforms"


class Registry:
    """A name -> :class:`Transform` subclass mapping.

    ``Registry.from_entry_points()`` loads every class registered in the
    ``codemorph.transforms`` group; ``register`` adds one by hand (useful in tests).
    Iteration is in sorted name order, so listings are deterministic.
    """

    def __init__(self, classes: Iterable[type[Transform]] = ()) -> None:
        self._classes: dict[str, type[Transform]] = {}
        self._origin: dict[str, str] = {}
        self._entry: dict[str, str] = {}  # name -> its entry point's ``module:Class``
        #: entry points that failed to load: name -> what went wrong (shown by ``codemorph list``)
        self.broken: dict[str, str] = {}
        for cls in classes:
            self.register(cls)

    @classmethod
    def from_entry_points(cls, group: str = ENTRY_POINT_GROUP) -> "Registry":
        """Load every transform class registered under ``group``.

        An entry point that does not load, is not a ``Transform`` subclass, or whose name
        differs from the class's ``name`` is recorded in :attr:`broken` (with the reason)
        instead of hiding every other transform; asking for it by name raises
        :class:`CodemorphError` with that reason.
        """
        reg = cls()
        names: dict[int, str] = {}  # a distribution's name, read once (each read parses its METADATA)
        for ep in sorted(entry_points(group=group), key=lambda e: e.name):
            dist = getattr(ep, "dist", None)
            origin = names.get(id(dist)) if dist is not None else None
            if origin is None:
                origin = getattr(dist, "name", None) or ""
                if dist is not None:
                    names[id(dist)] = origin
            try:
                obj = ep.load()
            except Exception as exc:  # a broken plugin must say which one, and not hide the others
                reg.broken[ep.name] = f"transform plugin {ep.name!r} ({ep.value}, from {origin or '?'}) " \
                                      f"failed to load: {type(exc).__name__}: {exc}"
                continue
            if not (isinstance(obj, type) and issubclass(obj, Transform)):
                reg.broken[ep.name] = f"entry point {ep.name!r} ({ep.value}) is not a codemorph Transform subclass"
                continue
            if obj.name != ep.name:
                reg.broken[ep.name] = (f"entry point {ep.name!r} ({ep.value}) loads a transform named "
                                       f"{obj.name!r}; the names must match")
                continue
            reg.register(obj, origin=origin)
            reg._entry[ep.name] = ep.value
        return reg

    def register(self, cls: type[Transform], origin: str = "") -> type[Transform]:
        """Add ``cls`` under ``cls.name``; usable as a class decorator.

        Raises:
            CodemorphError: when the name is empty or already registered to another class.
        """
        if not cls.name:
            raise CodemorphError(f"{cls.__qualname__} has no 'name'")
        old = self._classes.get(cls.name)
        if old is not None and old is not cls:
            raise CodemorphError(f"two transforms are named {cls.name!r}: {old.__module__}.{old.__qualname__} "
                                 f"and {cls.__module__}.{cls.__qualname__}")
        self._classes[cls.name] = cls
        self._origin[cls.name] = origin
        record_distribution(cls, origin)
        return cls

    def names(self) -> list[str]:
        """All registered names, sorted."""
        return sorted(self._classes)

    def __contains__(self, name: object) -> bool:
        return name in self._classes

    def __iter__(self):
        return iter(self.names())

    def cls(self, name: str) -> type[Transform]:
        """The class registered as ``name``.

        Raises:
            UnknownTransformError: with the closest registered names as suggestions.
            CodemorphError: when ``name`` is an installed plugin that failed to load.
        """
        if name in self.broken and name not in self._classes:
            raise CodemorphError(self.broken[name])
        try:
            return self._classes[name]
        except KeyError:
            close = difflib.get_close_matches(name, self.names(), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise UnknownTransformError(
                f"unknown transform {name!r}{hint} (known: {', '.join(self.names())}; "
                f"plugins register in the entry-point group {ENTRY_POINT_GROUP!r})") from None

    def origin(self, name: str) -> str:
        """The distribution that registered ``name`` (``"codemorph"`` for built-ins)."""
        return self._origin.get(name, "")

    def create(self, name: str, **options: Any) -> Transform:
        """An instance of the transform ``name`` with ``options`` (keyword arguments of its
        constructor, e.g. ``empty_branch=True``).

        Raises:
            UnknownTransformError: no transform is registered as ``name``.
            CodemorphError: ``name`` is an installed plugin that failed to load.
            TypeError: an option the transform does not take; the message names the
                unknown options, the closest accepted one and every option it accepts
                (e.g. ``unknown option 'empty_brnch' (did you mean 'empty_branch'?);
                invert-if takes: empty_branch``).
            ValueError: a bad option value (the transform's own message).
            CodemorphError: the constructor raised anything else, or raised ``TypeError`` /
                ``ValueError`` without options: the message names the transform, where it
                comes from (its entry point and distribution, or its class) and the
                exception, e.g. ``transform 'x' (entry point my_plugin:X, from my-plugin)
                failed when created: RuntimeError: boom``.
        """
        cls = self.cls(name)
        try:
            return cls(**options)
        except TypeError as exc:
            accepted = option_names(cls)
            unknown = sorted(k for k in options if k not in accepted)
            if not unknown:
                if not options:
                    raise self._creation_error(name, cls, exc) from exc
                raise
            words = ", ".join(repr(k) for k in unknown)
            close = difflib.get_close_matches(unknown[0], accepted, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close and len(unknown) == 1 else ""
            takes = f"{name} takes: {', '.join(accepted)}" if accepted else f"{name} takes no options"
            raise TypeError(f"unknown option{'s' if len(unknown) > 1 else ''} {words}{hint}; {takes}") from exc
        except ValueError as exc:
            if options:
                raise  # a bad option value, in the transform's own words
            raise self._creation_error(name, cls, exc) from exc
        except Exception as exc:  # a plugin's constructor that fails: say which plugin, and how
            raise self._creation_error(name, cls, exc) from exc

    def _creation_error(self, name: str, cls: type[Transform], exc: Exception) -> CodemorphError:
        """The error for a constructor of ``name`` that raised ``exc``."""
        entry = self._entry.get(name)
        origin = self._origin.get(name)
        where = f"entry point {entry}" if entry else f"class {cls.__module__}.{cls.__qualname__}"
        if origin:
            where += f", from {origin}"
        kind = type(exc)
        cls_name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
        text = str(exc)
        return CodemorphError(f"transform {name!r} ({where}) failed when created: {cls_name}"
                              + (f": {text}" if text else ""))


def option_names(cls: type[Transform]) -> list[str]:
    """The options (constructor keyword arguments) the transform class ``cls`` takes, in
    declaration order: the named parameters of its ``__init__`` and, while an ``__init__``
    passes ``**options`` on to its base class's, of those bases' up to :class:`Transform`
    (which takes none).  Positional-only and ``*args`` parameters are not options."""
    names: list[str] = []
    for klass in cls.__mro__:
        if klass is Transform or klass is object:
            break
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            params = list(inspect.signature(init).parameters.values())[1:]  # without self
        except (TypeError, ValueError):  # no signature (a builtin): nothing to list
            break
        names += [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in names]
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            break
    return names


_DEFAULT: Registry | None = None


def default_registry(refresh: bool = False) -> Registry:
    """The registry of every installed transform (loaded once per process)."""
    global _DEFAULT
    if _DEFAULT is None or refresh:
        _DEFAULT = Registry.from_entry_points()
    return _DEFAULT


def get_transform(name: str, **options: Any) -> Transform:
    """Instantiate the installed transform ``name`` (built-in or plugin).

    Raises:
        UnknownTransformError: when no installed transform has that name.
    """
    return default_registry().create(name, **options)


def list_transforms() -> list[type[Transform]]:
    """Every installed transform class, sorted by name."""
    reg = default_registry()
    return [reg.cls(n) for n in reg.names()]
