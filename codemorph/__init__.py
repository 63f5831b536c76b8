"""codemorph: semantics-preserving rewrites of Python programs, checked by differential
execution in a sandbox, for benchmarks of how well models understand execution."""

from codemorph.errors import CodemorphError, InputError, NotApplicable, ParseError, UnknownTransformError
from codemorph.engine.program import Program
from codemorph.engine.transform import Claim, RewriteContext, Site, Transform, TransformResult
from codemorph.engine.registry import Registry, default_registry, get_transform, list_transforms
from codemorph.engine.pipeline import OneOf, Pipeline, PipelineResult, Repeat, Sequence_, SomeOf

__version__ = "0.1.0"


def __getattr__(name):  # lazy: verification pulls in the sandbox
    if name in ("verify", "Verdict"):
        from codemorph import verification as _v
        return getattr(_v, name)
    raise AttributeError(f"module 'codemorph' has no attribute {name!r}")


__all__ = [
    "CodemorphError", "InputError", "NotApplicable", "ParseError", "UnknownTransformError",
    "Claim", "Program", "RewriteContext", "Site", "Transform", "TransformResult",
    "Registry", "default_registry", "get_transform", "list_transforms",
    "Pipeline", "PipelineResult", "Sequence_", "OneOf", "SomeOf", "Repeat",
    "verify", "Verdict", "__version__",
]
