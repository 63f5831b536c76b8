"""The authoring kit: what every transform, built-in or plugin, uses besides the engine —
site choice, hazards, program facts, scope facts, syntax helpers and the Z3 term translator.

Built-in families import only :mod:`codemorph.engine` and this package, never each other,
so a plugin author has exactly what the built-ins have.

* :mod:`~codemorph.authoring.sites` -- the ``which`` option (:class:`SiteChoice`,
  :func:`choose_sites`, :func:`check_which`);
* :mod:`~codemorph.authoring.hazards` -- identifiers that make an edit observable
  (:data:`FRAME_HAZARDS`, :data:`LINE_HAZARDS`, :data:`STRICT_LINE_HAZARDS`,
  :data:`LIFETIME_HAZARDS`, :data:`BUILTINS_HAZARDS`, :func:`hazard_identifiers`,
  :func:`dynamic_scope_uses`; :func:`rebindable_builtins` and
  :func:`builtin_rebinding_refusal`: may the program rebind a builtin you emit or rely on,
  visibly or not, :data:`BUILTIN_REBINDING_HAZARDS`);
* :mod:`~codemorph.authoring.facts` -- one pass of per-function facts
  (:class:`ProgramFacts`, :class:`FunctionFacts`, :func:`finalisation_hazard`,
  :func:`is_generator_function`, :func:`function_nodes`);
* :mod:`~codemorph.authoring.scopes` -- :class:`FunctionIndex` (qualnames, dynamic
  scopes, libcst scopes, observed types of locals);
* :mod:`~codemorph.authoring.exprtypes` -- :class:`ExpressionTypes` (the types an
  expression's value may have: literals, observed locals, builtins such as ``len``,
  arithmetic, ``str`` slices and methods);
* :mod:`~codemorph.authoring.syntax` -- :func:`code_of`, :func:`literal_type`,
  :func:`parenthesize_if_bare_tuple`;
* :mod:`~codemorph.authoring.z3terms` -- :class:`Z3Terms`, the one libcst-to-Z3
  translator, with Python's floor semantics for ``//`` and ``%`` (:func:`floor_div`,
  :func:`floor_mod`); :func:`load_z3` imports ``z3`` quietly (:class:`Z3Unavailable`).
"""

from codemorph.authoring.facts import FunctionFacts, ProgramFacts, finalisation_hazard, function_nodes, is_generator_function
from codemorph.authoring.hazards import (BUILTIN_REBINDING_HAZARDS, BUILTINS_HAZARDS, FRAME_HAZARDS,
                                         LIFETIME_HAZARDS, LINE_HAZARDS, STRICT_LINE_HAZARDS,
                                         builtin_rebinding_refusal, dynamic_scope_uses, hazard_identifiers,
                                         rebindable_builtins)
from codemorph.authoring.scopes import FunctionIndex
from codemorph.authoring.exprtypes import ExpressionTypes
from codemorph.authoring.sites import WHICH, SiteChoice, check_which, choose_sites
from codemorph.authoring.syntax import code_of, literal_type, parenthesize_if_bare_tuple
from codemorph.authoring.z3terms import (Untranslatable, Z3Terms, Z3Unavailable, floor_div, floor_mod, int_literal,
                                         load_z3)

__all__ = [
    "WHICH", "check_which", "choose_sites", "SiteChoice",
    "FRAME_HAZARDS", "LINE_HAZARDS", "STRICT_LINE_HAZARDS", "LIFETIME_HAZARDS", "BUILTINS_HAZARDS",
    "hazard_identifiers", "dynamic_scope_uses", "rebindable_builtins", "builtin_rebinding_refusal",
    "FunctionFacts", "ProgramFacts", "finalisation_hazard", "function_nodes", "is_generator_function",
    "FunctionIndex", "ExpressionTypes", "BUILTIN_REBINDING_HAZARDS",
    "code_of", "literal_type", "parenthesize_if_bare_tuple",
    "Z3Terms", "Untranslatable", "floor_div", "floor_mod", "int_literal", "load_z3", "Z3Unavailable",
]
