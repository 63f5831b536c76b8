"""``rename-functions``: ``def`` names and their calls, the entry point on request.
"""

from __future__ import annotations

from typing import Mapping

import libcst as cst
from libcst.metadata import GlobalScope

from codemorph.engine import NotApplicable, RewriteContext
from codemorph.transforms.naming.scopes import Analysis
from codemorph.transforms.naming.definitions import Confinement, DefRenamer, is_generator, names_of_inputs

__all__ = ["RenameFunctions"]


class RenameFunctions(DefRenamer):
    """Rename functions (``def``, at module level or nested in functions) and every call.

    Options:
        scheme (str): ``"random"`` (default; ``merge_token``), ``"obfuscated"``
            (``fn0``, ``fn1``, ...), ``"natural"`` (synonyms: ``get_max`` ->
            ``fetch_maximum``) or ``"misleading"`` (antonyms, unrelated task names, and
            exchanges of the names of sibling functions).  See :data:`SCHEMES`.
        mapping (dict[str, str]): rename exactly these functions, old -> new.
        entry_point (bool): also rename the entry point (default ``False``).  The new name
            is set as ``ctx.new_entry_point``, so the rewritten :class:`~codemorph.Program`
            and the ``entry_point`` field of generated rows carry it.
        module_names (str): which other module-level functions may be renamed:
            ``"all"``, ``"private"`` (leading underscore) or ``"none"``.  Default:
            ``"all"`` under the harness contract (``generate``: the harness calls only the
            entry point), ``"none"`` otherwise (``codemorph apply FILE``: importers call
            the module's functions by name, private ones too), so there only functions
            nested in functions are renamed.

    What is renamed: the ``def`` statement's name and every variable-role use of it
    (recursive calls, calls from other functions, ``del``), resolved with libcst's scopes
    and Python's rules.  Methods (defs in class bodies) are never renamed: they are
    reached through attributes.

    A function is skipped (with the reason) when its name could be observed or reached
    other than through the renamed sites: it is decorated, async or a generator (the
    decorator sees the object; coroutines and generators carry the name); its name is used
    as a value other than a call, a ``map``/``filter`` function or a ``key=`` (so its
    ``repr`` and ``__name__`` could not reach the output); a nested def, lambda, generator
    expression or class inside it may escape (their ``__qualname__`` contains its name);
    the name appears in any string (``getattr``, ``globals()[...]``-style lookups), in a
    ``global``/``nonlocal`` statement, in a harness input, or is also bound other than
    by ``def``; at module level, the name is spelled like a builtin.

    Refused as a whole: introspection (:data:`INTROSPECTION_NAMES`), any
    ``eval``/``exec``/``globals``/``locals``/``vars()``/``dir()``, a read of
    ``__name__``/``__qualname__`` as an attribute or in a string, pickling, logging and
    profilers (:data:`NAME_OBSERVERS`), and an inspected caught exception that may be a
    ``TypeError``/``NameError`` (their messages quote function names).

    Every rewrite is re-checked with :func:`check_renaming`.
    """

    name = "rename-functions"
    description = "Rename functions and their calls (entry point optional, written to entry_point)."
    preconditions = (
        "no introspection, eval/exec/globals/locals, pickling or __name__/__qualname__ reads",
        "function used only by calls (or as map/filter/key= function)",
        "name in no string, global/nonlocal statement or harness input",
        "no escaping nested function, lambda, generator expression or class",
    )

    def __init__(self, scheme: str | None = None, mapping: Mapping[str, str] | None = None,
                 entry_point: bool = False, module_names: str | None = None, **options) -> None:
        super().__init__(scheme, mapping, module_names, **options)
        if not isinstance(entry_point, bool):
            raise TypeError(f"rename-functions: entry_point must be a bool, got {type(entry_point).__name__}")
        self.entry_point = entry_point

    def _rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        an = Analysis(module, ctx)
        why = self._program_problem(an)
        if why is not None:
            raise NotApplicable(why + "; left unchanged")
        if an.survey.exception_objects:
            raise NotApplicable("the program inspects caught exceptions (" + an.survey.exception_objects[0]
                                + "), whose messages may quote function names; left unchanged")
        conf = Confinement(an)
        input_names = names_of_inputs(ctx.inputs)
        scheme = self._make_scheme(ctx)

        def problem(sc, name: str, asgs: list, defs: list) -> str | None:
            if isinstance(sc, GlobalScope) and name == ctx.entry_point and not self.entry_point:
                return f"{name} is the entry point (option entry_point=true renames it)"
            if not (isinstance(sc, GlobalScope) and name == ctx.entry_point):
                why = self._api_problem(an, sc, name)
                if why is not None:
                    return why
            why = self._common_problem(an, sc, name, asgs, defs, input_names)
            if why is not None:
                return why
            for d in defs:
                if d.decorators:
                    return f"function {name} is decorated (the decorator receives the function object)"
                if d.asynchronous is not None or is_generator(d):
                    return f"function {name} is async or a generator (its coroutines and generators carry its name)"
                why = conf.nested_escape(d)
                if why is not None:
                    return why
            for use in an.uses.get((id(sc), name), []):
                why = conf.function_use(use)
                if why is not None:
                    return f"function {why}"
            return None

        bindings, skipped = self._collect(an, ctx, scheme, problem)
        if not bindings:
            default = "no function to rename" if not an.survey.functions else "no function can be renamed"
            if self.mapping is not None:
                default = f"no renameable function is named {', '.join(sorted(self.mapping))}"
            raise self._nothing(skipped, default)
        # the entry point never takes part in an exchange of names: no other function may
        # end up called by the entry point's old name (a harness that ignores the row's
        # entry_point would silently call the wrong function)
        new_value, back, chosen = self._choose(an, bindings, scheme, {ctx.entry_point})
        for b in bindings:
            if isinstance(b.scope, GlobalScope) and b.name == ctx.entry_point:
                ctx.new_entry_point = chosen[id(b)]
        return self._finish(module, new_value, back)
