"""Recipes: named, versioned pipelines written in TOML.

A recipe lists *variants*; ``generate --recipe`` writes one row per input row and variant.
Each variant is a pipeline spec::

    [recipe]
    name = "restructure"
    version = "1"
    description = "loops and branches rewritten together, then locals renamed"

    [[variant]]
    name = "loops-branches-names"
    pipeline = { seq = ["for-to-while", "invert-if", { transform = "rename-locals", options = { scheme = "obfuscated" } }] }

Pipeline specs: a transform name (string); ``{transform = NAME, options = {...}}``;
``{seq = [spec, ...]}``; ``{one_of = [spec, ...]}``; ``{some_of = [spec, ...], k = N}``;
``{repeat = spec, times = N}``.  Built-in recipes live in ``codemorph/data/recipes/``
and are found by name (``codemorph generate --recipe loops``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from codemorph.errors import InputError
from codemorph.engine.pipeline import OneOf, Pipeline, Repeat, Sequence_, SomeOf
from codemorph.engine.registry import Registry, default_registry
from codemorph.engine.transform import Transform

__all__ = ["Recipe", "Variant", "build_pipeline", "parse_recipe", "load_recipe", "builtin_recipe_names",
           "spec_transforms"]


@dataclass(frozen=True)
class Variant:
    """One variant of a recipe: ``name`` (used in row ids) and its pipeline ``spec`` (plain data)."""

    name: str
    spec: Any


@dataclass(frozen=True)
class Recipe:
    """A named, versioned list of variants (see the module docstring for the TOML format)."""

    name: str
    version: str
    description: str
    variants: tuple[Variant, ...]
    source: str = "<recipe>"


def _err(source: str, msg: str) -> InputError:
    return InputError(f"recipe {source}: {msg}")


def parse_recipe(text: str, source: str = "<recipe>", registry: Registry | None = None) -> Recipe:
    """Parse and validate a recipe from TOML text.

    Raises:
        InputError: TOML syntax errors (with line), missing ``[recipe]`` name/version, no
            variants, duplicate variant names, malformed pipeline specs, unknown transforms.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _err(source, f"not valid TOML: {exc}") from None
    head = data.get("recipe")
    if not isinstance(head, dict) or not isinstance(head.get("name"), str) or "version" not in head:
        raise _err(source, "needs a [recipe] table with string 'name' and 'version'")
    variants = data.get("variant")
    if not isinstance(variants, list) or not variants:
        raise _err(source, "needs at least one [[variant]] with 'name' and 'pipeline'")
    out, seen = [], set()
    for i, v in enumerate(variants, 1):
        if not isinstance(v, dict) or not isinstance(v.get("name"), str) or "pipeline" not in v:
            raise _err(source, f"variant {i} needs a string 'name' and a 'pipeline'")
        if v["name"] in seen:
            raise _err(source, f"two variants are named {v['name']!r}")
        seen.add(v["name"])
        build_pipeline(v["pipeline"], registry, where=f"{source}, variant {v['name']!r}")  # validate now
        out.append(Variant(v["name"], v["pipeline"]))
    return Recipe(head["name"], str(head["version"]), str(head.get("description", "")), tuple(out), source)


def builtin_recipe_names() -> list[str]:
    """Names of the recipes shipped with codemorph."""
    folder = resources.files("codemorph.data").joinpath("recipes")
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def load_recipe(name_or_path: str, registry: Registry | None = None) -> Recipe:
    """Load a recipe file, or a built-in recipe by name.

    Raises:
        InputError: neither a readable file nor a built-in name; or the recipe is invalid.
    """
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists():
        if not p.is_file():
            raise InputError(f"recipe {name_or_path}: no such file (built-in recipes: "
                             f"{', '.join(builtin_recipe_names())})")
        return parse_recipe(p.read_text(encoding="utf-8"), str(p), registry)
    res = resources.files("codemorph.data").joinpath("recipes", f"{name_or_path}.toml")
    if not res.is_file():
        raise InputError(f"unknown recipe {name_or_path!r}: not a file and not a built-in recipe "
                         f"({', '.join(builtin_recipe_names())})")
    return parse_recipe(res.read_text(encoding="utf-8"), f"built-in:{name_or_path}", registry)


def build_pipeline(spec: Any, registry: Registry | None = None, where: str = "recipe") -> Pipeline:
    """Turn a pipeline spec (plain data, see module docstring) into a :class:`Pipeline`.

    Raises:
        InputError: the spec is malformed or names an unknown transform.
    """
    reg = registry or default_registry()

    def step(s: Any):
        if isinstance(s, str):
            return make(s, {})
        if isinstance(s, dict):
            keys = set(s)
            if "transform" in s:
                if not keys <= {"transform", "options"}:
                    raise InputError(f"{where}: unexpected keys {sorted(keys - {'transform', 'options'})}")
                opts = s.get("options", {})
                if not isinstance(opts, dict):
                    raise InputError(f"{where}: 'options' of {s['transform']!r} must be a table")
                return make(s["transform"], opts)
            if keys == {"seq"}:
                return Sequence_(*[step(x) for x in _list(s["seq"], "seq")])
            if keys == {"one_of"}:
                return OneOf(*[step(x) for x in _list(s["one_of"], "one_of")])
            if keys == {"some_of", "k"}:
                items = _list(s["some_of"], "some_of")
                if not isinstance(s["k"], int) or not 0 <= s["k"] <= len(items):
                    raise InputError(f"{where}: some_of needs an integer k between 0 and {len(items)}")
                return SomeOf(s["k"], *[step(x) for x in items])
            if keys == {"repeat", "times"}:
                if not isinstance(s["times"], int) or s["times"] < 0:
                    raise InputError(f"{where}: repeat needs a non-negative integer 'times'")
                return Repeat(step(s["repeat"]), s["times"])
        raise InputError(f"{where}: cannot read pipeline spec {s!r}; expected a transform name, "
                         f"{{transform, options}}, {{seq}}, {{one_of}}, {{some_of, k}} or {{repeat, times}}")

    def _list(x, key):
        if not isinstance(x, list) or not x:
            raise InputError(f"{where}: {key} needs a non-empty list")
        return x

    def make(name: str, opts: dict) -> Transform:
        try:
            return reg.create(name, **opts)
        except TypeError as exc:
            raise InputError(f"{where}: bad options for {name!r}: {exc}") from None
        except Exception as exc:  # UnknownTransformError, broken plugin, ValueError from options
            raise InputError(f"{where}: {exc}") from None

    p = step(spec)
    return p if isinstance(p, Pipeline) else Sequence_(p)


def spec_transforms(spec: Any) -> list[str]:
    """Transform names mentioned in a pipeline spec, in order (duplicates kept)."""
    if isinstance(spec, str):
        return [spec]
    if isinstance(spec, dict):
        if "transform" in spec:
            return [spec["transform"]]
        out = []
        for v in spec.values():
            if isinstance(v, (list, dict, str)) and v is not spec.get("k") and v is not spec.get("times"):
                items = v if isinstance(v, list) else [v]
                for it in items:
                    out += spec_transforms(it)
        return out
    return []
