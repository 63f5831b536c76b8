"""The naming family: transforms that change identifiers and nothing else.

* ``rename-locals`` (:class:`RenameLocals`): local variables of every function, and the
  parameters no caller outside the program can bind by name (option ``parameters``:
  ``all``/``entry-point``/``private``/``none``; ``locals=false`` renames only
  parameters), with the comments and docstrings that name them (``comments``);
* ``rename-functions`` (:class:`RenameFunctions`): ``def`` names and their calls, the
  entry point on request (``entry_point=true``; the new name becomes the program's, and
  the generated row's, ``entry_point``);
* ``rename-classes`` (:class:`RenameClasses`): classes whose instances provably never
  reach the output.

Public names are an API: under the harness contract (``ctx.harness``, set by ``generate``:
only a harness calls the program, only its entry point, positionally) every module-level
name may be renamed; otherwise (``codemorph apply FILE``) module-level functions and classes
keep their names and module-level functions and methods their parameters (options
``module_names`` and ``parameters`` widen this on request).

Each rewrite is proved twice: once by construction (libcst's
:class:`~libcst.metadata.ScopeProvider` plus Python's own name-resolution rules, applied
conservatively, in a shared :class:`_Analysis`) and once after the fact, by comparing the
symbol tables (:mod:`symtable`) and the ASTs of the original and rewritten programs
(:func:`check_renaming`).

New identifiers come from a :class:`NamingScheme` (option ``scheme``): ``random``,
``obfuscated``, ``natural`` (synonyms from the vocabulary shipped in
``codemorph/data/synonyms.json``), ``misleading`` (names of another role, and exchanges of
existing names), or the user's ``mapping``.  A scheme *proposes* a name for an old
identifier; the transform claims it with :meth:`~codemorph.RewriteContext.reserve` and
falls back to :meth:`~codemorph.RewriteContext.fresh_name` when the proposal is taken, so a
new name is never spelled anywhere in the program, never a builtin and never a keyword --
except the exchanges of the misleading scheme, which swap names whose every occurrence is
renamed.

One transform per module (as LibCST keeps one codemod per file): :mod:`.locals`,
:mod:`.functions`, :mod:`.classes`; their shared parts in :mod:`.schemes`, :mod:`.check`,
:mod:`.survey`, :mod:`.scopes` and :mod:`.definitions`.
"""

from codemorph.transforms.naming.schemes import (
    KINDS, NamingScheme, RandomScheme, ObfuscatedScheme, load_vocabulary, split_identifier,
    join_identifier, NaturalScheme, MisleadingScheme, MappingScheme, SCHEMES, make_scheme,
    validate_mapping,
)
from codemorph.transforms.naming.check import RenamingMismatch, check_renaming
from codemorph.transforms.naming.locals import RenameLocals
from codemorph.transforms.naming.definitions import NAME_OBSERVERS, CLASS_OBSERVERS
from codemorph.transforms.naming.functions import RenameFunctions
from codemorph.transforms.naming.classes import RenameClasses

__all__ = [
    "NamingScheme", "RandomScheme", "ObfuscatedScheme", "SCHEMES", "make_scheme", "NaturalScheme",
    "MisleadingScheme", "MappingScheme", "KINDS", "load_vocabulary", "split_identifier",
    "join_identifier", "validate_mapping", "RenameLocals", "RenameFunctions", "RenameClasses",
    "NAME_OBSERVERS", "CLASS_OBSERVERS", "check_renaming", "RenamingMismatch",
]
