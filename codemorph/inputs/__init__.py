"""Inputs: argument-list literals, the input-mutation engine, edge cases and the
coverage-guided input search, used by verification and the perturbation search.

Modules, by concern:

* :mod:`codemorph.inputs.literals`: :func:`parse_args`, :func:`format_args`,
  :func:`format_value` (argument-list text <-> ``(args, kwargs)``);
* :mod:`codemorph.inputs.values`: the type rules and size limits every mutant keeps
  (:func:`type_paths`, :func:`type_signature`, :func:`is_type_changing`, :data:`MAX_GROWTH`)
  and the constants mutants draw from;
* :mod:`codemorph.inputs.mutation`: the one mutation engine, :class:`MutationSpace`
  (verification mutants and the perturbation search's steps and neighbours) and
  :func:`mutate_args`;
* :mod:`codemorph.inputs.kinds`: the inputs of ``call`` and ``stdin`` rows
  (:func:`kind_mutants`: standard inputs that keep their token structure, call expressions
  and harness methods with other literals), through :class:`MutationSpace`;
* :mod:`codemorph.inputs.edges`: systematic edge cases (:func:`edge_cases`);
* :mod:`codemorph.inputs.guided`: coverage-guided additions run in the sandbox
  (:func:`coverage_additions`);
* :mod:`codemorph.inputs.seeds`: seeds mutation alone cannot vary (empty containers, call
  inputs, only ``None``) made variable with the sandbox's help (:func:`plan_seeds`,
  :class:`SeedPlan`, :func:`element_evidence`).
"""

from codemorph.inputs.edges import CLASS_CALLS, EDGE_FILL, EDGE_MIN_REQUEST, EDGE_SHARE, RANKED, edge_cases
from codemorph.inputs.kinds import call_mutants, harness_method, kind_mutants, parse_stdin, stdin_mutants
from codemorph.inputs.guided import GUIDED_EXECUTIONS, GUIDED_MAX, GuidedResult, coverage_additions
from codemorph.inputs.literals import format_args, format_value, parse_args
from codemorph.inputs.mutation import (BIG_INTS, CROSS_SHARE, MAX_RESIZE_GROWTH, NESTED_FILL, MutationSpace,
                                       mutate_args)
from codemorph.inputs.seeds import (FALLBACK_TYPES, SeedPlan, cross_shape, element_evidence, filled_shapes, needs_plan,
                                    plan_seed, plan_seeds)
from codemorph.inputs.values import MAX_GROWTH, is_type_changing, type_paths, type_signature

__all__ = ["kind_mutants", "stdin_mutants", "call_mutants", "parse_stdin", "harness_method", "parse_args", "format_args", "format_value", "mutate_args", "type_paths", "MAX_GROWTH", "CROSS_SHARE",
           "coverage_additions", "GuidedResult", "GUIDED_MAX", "GUIDED_EXECUTIONS", "edge_cases", "EDGE_SHARE",
           "EDGE_MIN_REQUEST", "EDGE_FILL", "CLASS_CALLS", "RANKED", "MutationSpace", "is_type_changing",
           "type_signature", "MAX_RESIZE_GROWTH", "BIG_INTS", "NESTED_FILL", "SeedPlan", "plan_seed", "plan_seeds",
           "needs_plan", "element_evidence", "FALLBACK_TYPES", "filled_shapes", "cross_shape"]
