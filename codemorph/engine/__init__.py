"""The transform engine: :class:`Program`, :class:`Transform`, the registry, pipelines and
recipes.

Every transform, built-in or plugin, is written against this layer and the authoring kit
(:mod:`codemorph.authoring`); nothing here runs a program.
"""

from codemorph.errors import NotApplicable
from codemorph.engine.program import Program, parse_source
from codemorph.engine.transform import (BUILTIN_NAMES, Claim, DYNAMIC_SCOPE_BUILTINS, RewriteContext, Site, Transform,
                                        TransformResult, bound_names, derive_rng, derive_seed, identifiers_in,
                                        module_code)
from codemorph.engine.registry import ENTRY_POINT_GROUP, Registry, default_registry, get_transform, list_transforms
from codemorph.engine.pipeline import OneOf, Pipeline, PipelineResult, Repeat, Sequence_, SomeOf

__all__ = ["NotApplicable", "Claim", "Program", "parse_source", "RewriteContext", "Site", "Transform", "TransformResult", "BUILTIN_NAMES",
           "DYNAMIC_SCOPE_BUILTINS", "bound_names", "derive_rng", "derive_seed", "identifiers_in", "module_code",
           "ENTRY_POINT_GROUP", "Registry", "default_registry", "get_transform", "list_transforms",
           "OneOf", "Pipeline", "PipelineResult", "Repeat", "Sequence_", "SomeOf"]
