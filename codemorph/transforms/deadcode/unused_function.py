"""``unused-function``: a helper function that is never called.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import identifiers_in
from codemorph.authoring.hazards import (
    BUILTINS_HAZARDS, FRAME_HAZARDS, LIFETIME_HAZARDS, LINE_HAZARDS, hazard_identifiers,
)

__all__ = ["HelperTemplate", "HELPER_TEMPLATES", "GLOBALS_HAZARDS", "UnusedFunction"]


@dataclass(frozen=True)
class HelperTemplate:
    """A plausible module-level helper: ``hint`` for its (fresh) name and its source with
    ``{name}`` for the name.  Its parameters and locals are its own; it reads only
    builtins (never called, so what they are bound to does not matter)."""

    hint: str
    source: str


#: The helpers ``unused-function`` may insert.
HELPER_TEMPLATES: tuple[HelperTemplate, ...] = (
    HelperTemplate("dedupe", "def {name}(items):\n    seen = []\n    for item in items:\n"
                             "        if item not in seen:\n            seen.append(item)\n    return seen\n"),
    HelperTemplate("count_matches", "def {name}(items, target):\n    count = 0\n    for item in items:\n"
                                    "        if item == target:\n            count += 1\n    return count\n"),
    HelperTemplate("normalize", "def {name}(text):\n    return text.strip().lower()\n"),
    HelperTemplate("clamp", "def {name}(value, low=0, high=100):\n    return max(low, min(value, high))\n"),
    HelperTemplate("index_items", "def {name}(items):\n    table = {{}}\n    for pos, item in enumerate(items):\n"
                                  "        table[item] = pos\n    return table\n"),
    HelperTemplate("split_fields", "def {name}(text, sep=','):\n"
                                   "    return [part.strip() for part in text.split(sep) if part]\n"),
    HelperTemplate("is_sorted", "def {name}(items):\n    for i in range(1, len(items)):\n"
                                "        if items[i - 1] > items[i]:\n            return False\n    return True\n"),
)

#: Identifiers of code that can enumerate or look up module globals by name (a new
#: global function would be visible to it).
GLOBALS_HAZARDS: frozenset[str] = frozenset({
    "globals", "vars", "dir", "locals", "eval", "exec", "__dict__", "modules", "__main__", "__globals__",
    "f_globals", "getmembers", "getattr", "hasattr", "__getattr__", "__dir__",
})


def _after_header(body: list) -> int:
    """The index of the first statement of ``body`` after the module docstring and the
    import statements that open the module."""
    at = 0
    for i, stmt in enumerate(body):
        small = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else []
        if small and all(isinstance(x, (cst.Import, cst.ImportFrom)) for x in small):
            at = i + 1
        elif i == 0 and small and isinstance(small[0], cst.Expr) \
                and isinstance(small[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            at = 1
        else:
            break
    return at


class UnusedFunction(Transform):
    """Insert a plausible module-level helper function that is never called.

    The helper (:data:`HELPER_TEMPLATES`, e.g. ``def dedupe(items): ...``) gets a fresh
    name (spelled nowhere in the program) and goes before a top-level ``def``/``class``
    or at the end of the module when a ``def``/``class`` ends it (position chosen with
    ``ctx.rng``); never after module code (a script's statements, a main guard) nor next to a
    read-only harness (``class Test``): a module without another place gets it after its
    docstring and imports, before its code.  Defining it only binds
    that new global: it has no decorators, and its defaults are literals.

    Refused when the program could see the new global: it spells any of
    :data:`GLOBALS_HAZARDS` (``globals()``, ``vars()``, ``dir()``, ``eval``,
    ``sys.modules``, ``__dict__``, ``getattr``...), reaches builtins/imports dynamically,
    inspects frames or line numbers (lines below the helper move), or uses ``gc``/``weakref``.

    Outside the harness contract (``ctx.harness`` false, as in ``codemorph apply FILE``) the
    helper's name starts with ``_``, so a library module's public API (``from module import
    *``, the names checks of test suites compare with ``__all__``) does not grow.

    Takes no options.  Deterministic for a given rng.
    """

    name = "unused-function"
    family = "dead-code"
    description = "Insert a plausible module-level helper function that is never called."
    preconditions = (
        "the helper's name is fresh (spelled nowhere in the program)",
        "the program cannot enumerate or look up globals by name (globals, vars, dir, eval, __dict__, "
        "sys.modules, getattr)",
        "no frame/line introspection, no gc/weakref",
    )

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        names = identifiers_in(module)
        found = hazard_identifiers(module, GLOBALS_HAZARDS, BUILTINS_HAZARDS, FRAME_HAZARDS, LINE_HAZARDS,
                                   LIFETIME_HAZARDS, names=names)
        if found:
            raise NotApplicable(f"program may observe a new global or its line numbers ({', '.join(found)})")
        body = list(module.body)
        defs = [isinstance(s, (cst.FunctionDef, cst.ClassDef)) for s in body]
        # never next to a read-only harness (``class Test`` is put back as written, blank
        # lines included, and a helper after the tests reads as part of them)
        harness = [d and s.name.value in ctx.read_only for d, s in zip(defs, body)]
        positions = [i for i, d in enumerate(defs) if d and not harness[i]]
        # the end of the module only right after a def or class: never after module code (a
        # script's reading and printing, a main guard), where no person puts a helper
        if not body or (defs[-1] and not harness[-1]):
            positions.append(len(body))
        if not positions:  # a script without a def: before its code, after its docstring and imports
            positions.append(_after_header(body))
        index = ctx.rng.choice(positions)
        template = ctx.rng.choice(HELPER_TEMPLATES)
        # outside the harness contract the module may be imported: a private name stays out
        # of its API (``from module import *``, ``support.check__all__``-style checks)
        fname = ctx.fresh_name(template.hint if ctx.harness else "_" + template.hint)
        helper = cst.parse_statement(template.source.format(name=fname))
        two = [cst.EmptyLine(indent=False), cst.EmptyLine(indent=False)]
        if index > 0:
            helper = helper.with_changes(leading_lines=two)
        new_body = [*body[:index], helper]
        if index < len(body):
            following = body[index]
            lines = list(following.leading_lines)
            blank = 0
            while blank < len(lines) and lines[blank].comment is None:
                blank += 1
            if blank < 2:
                following = following.with_changes(leading_lines=[*two[:2 - blank], *lines])
            new_body.append(following)
            new_body += body[index + 1:]
            anchor: cst.CSTNode = body[index]
            following_name = getattr(body[index], "name", None)
            where = f"before {following_name.value}" if isinstance(following_name, cst.Name) \
                else "before the module's code"
        else:
            anchor = body[-1] if body else module
            where = "at the end of the module"
        ctx.record(anchor if body else None, f"unused helper {fname}() inserted {where}")
        return module.with_changes(body=new_body)
