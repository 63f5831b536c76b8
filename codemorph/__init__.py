"""codemorph: semantics-preserving rewrites of Python programs, checked by differential
execution in a sandbox, for benchmarks of how well models understand execution.

The names below are loaded on first use (:pep:`562`): ``import codemorph`` alone imports
nothing heavy, so the ``codemorph`` command can install its Ctrl-C handling before libcst and
the rest load (:func:`codemorph.cli.main`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    **{n: "codemorph.errors" for n in ("CodemorphError", "InputError", "NotApplicable", "ParseError",
                                       "UnknownTransformError")},
    "Program": "codemorph.engine.program",
    **{n: "codemorph.engine.transform" for n in ("Claim", "RewriteContext", "Site", "Transform", "TransformResult")},
    **{n: "codemorph.engine.registry" for n in ("Registry", "default_registry", "get_transform", "list_transforms")},
    **{n: "codemorph.engine.pipeline" for n in ("OneOf", "Pipeline", "PipelineResult", "Repeat", "Sequence_",
                                                "SomeOf")},
    # verification pulls in the sandbox
    **{n: "codemorph.verification" for n in ("verify", "Verdict")},
}

if TYPE_CHECKING:  # what type checkers and IDEs see
    from codemorph.errors import CodemorphError, InputError, NotApplicable, ParseError, UnknownTransformError
    from codemorph.engine.program import Program
    from codemorph.engine.transform import Claim, RewriteContext, Site, Transform, TransformResult
    from codemorph.engine.registry import Registry, default_registry, get_transform, list_transforms
    from codemorph.engine.pipeline import OneOf, Pipeline, PipelineResult, Repeat, Sequence_, SomeOf
    from codemorph.verification import Verdict, verify


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'codemorph' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "CodemorphError", "InputError", "NotApplicable", "ParseError", "UnknownTransformError",
    "Claim", "Program", "RewriteContext", "Site", "Transform", "TransformResult",
    "Registry", "default_registry", "get_transform", "list_transforms",
    "Pipeline", "PipelineResult", "Sequence_", "OneOf", "SomeOf", "Repeat",
    "verify", "Verdict", "__version__",
]
