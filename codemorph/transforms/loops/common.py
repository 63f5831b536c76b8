"""Helpers of the loop transforms (unroll-loop, peel-loop, while-to-for,
loop-to-comprehension, comprehension-to-loop): loop jumps, statement and comment
handling, definite binding, refusal of unsafe programs and owners, block rewriting,
site choice.
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping, Sequence

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext
from codemorph.authoring.facts import ProgramFacts, finalisation_hazard
from codemorph.authoring.hazards import (BUILTINS_HAZARDS, FRAME_HAZARDS, LINE_HAZARDS, builtin_rebinding_refusal,
                                         hazard_identifiers)
from codemorph.authoring.sites import choose_sites
from codemorph.authoring.syntax import LoopBodyScope, loop_jumps

__all__ = [
    "loop_jumps", "find", "name_nodes", "lazy_scopes", "block_statements", "prepend_lines",
    "comment_lines", "statement_comments", "simple_line", "assign", "int_literal", "int_node",
    "qualname", "definitely_bound", "function_of", "refuse_program", "owner_refusal", "Plan",
    "BlockRewriter", "LoopBodyScope", "for_sites", "for_loop_facts", "choose_loop_sites", "target_names",
]


class _Finder(cst.CSTVisitor):
    """Collects nodes of the given classes (all depths, nested scopes included)."""

    def __init__(self, classes: tuple[type, ...]) -> None:
        self.classes = classes
        self.found: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, self.classes):
            self.found.append(node)
        return True


def find(node: cst.CSTNode, *classes: type) -> list[cst.CSTNode]:
    """Every node of the given ``classes`` inside ``node`` (``node`` included), in source order."""
    v = _Finder(classes)
    node.visit(v)
    return v.found


def name_nodes(node: cst.CSTNode, value: str | None = None) -> list[cst.Name]:
    """Every ``Name`` node in ``node`` (spelled ``value`` when given), any scope, including
    attribute names and keyword names (an over-approximation of the variable uses)."""
    return [n for n in find(node, cst.Name) if value is None or n.value == value]  # type: ignore[misc]


def lazy_scopes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Code in ``node`` that may run later than where it is written: lambdas, nested
    ``def``/``class``, and the parts of generator expressions after their first iterable
    (which is evaluated at once)."""
    out: list[cst.CSTNode] = []
    for n in find(node, cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.GeneratorExp):
        if isinstance(n, cst.GeneratorExp):
            out += [n.elt, *n.for_in.ifs]
            if n.for_in.inner_for_in is not None:
                out.append(n.for_in.inner_for_in)
            out.append(n.for_in.target)
        else:
            out.append(n)
    return out


def block_statements(suite: cst.BaseSuite) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
    """The statements of a suite as block statements, and the comment lines that follow
    them at the end of the block (its footer)."""
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body), list(suite.footer)
    assert isinstance(suite, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(body=list(suite.body), trailing_whitespace=suite.trailing_whitespace)], []


def prepend_lines(stmt: cst.BaseStatement, lines: Sequence[cst.EmptyLine]) -> cst.BaseStatement:
    """``stmt`` with ``lines`` (comments, blank lines) before its own leading lines."""
    if not lines:
        return stmt
    return stmt.with_changes(leading_lines=[*lines, *stmt.leading_lines])


def comment_lines(ws: cst.TrailingWhitespace | None) -> list[cst.EmptyLine]:
    """A trailing comment (``x = 1  # note``) as a comment line of its own."""
    if ws is None or ws.comment is None:
        return []
    return [cst.EmptyLine(comment=ws.comment)]


def statement_comments(stmt: cst.CSTNode, exclude: frozenset[int] | set[int] = frozenset()) -> list[cst.EmptyLine]:
    """Every comment in ``stmt`` (leading lines, trailing comments, block headers and
    footers), as comment lines, in source order; nodes whose ``id`` is in ``exclude``
    (comments inside code that is kept) are skipped."""
    out: list[cst.EmptyLine] = []
    for n in find(stmt, cst.EmptyLine, cst.TrailingWhitespace):
        if n.comment is not None and id(n) not in exclude:
            out.append(n if isinstance(n, cst.EmptyLine) else cst.EmptyLine(comment=n.comment))
    return out


def simple_line(*small: cst.BaseSmallStatement, leading: Sequence[cst.EmptyLine] = (),
                 trailing: cst.TrailingWhitespace | None = None) -> cst.SimpleStatementLine:
    """A statement line holding ``small``, with ``leading`` lines and ``trailing`` whitespace."""
    kw = {"trailing_whitespace": trailing} if trailing is not None else {}
    return cst.SimpleStatementLine(body=list(small), leading_lines=list(leading), **kw)


def assign(target: cst.BaseAssignTargetExpression, value: cst.BaseExpression) -> cst.Assign:
    """The statement ``target = value``."""
    return cst.Assign([cst.AssignTarget(target)], value)


def int_literal(node: cst.BaseExpression) -> int | None:
    """The value of an int literal (``3``, ``-3``, ``0x10``), else ``None``."""
    if isinstance(node, cst.Integer) and not node.lpar:
        return node.evaluated_value
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer) and not node.expression.lpar:
        return -node.expression.evaluated_value
    return None


def int_node(value: int) -> cst.BaseExpression:
    """An integer literal of ``value`` (``-n`` as a unary minus)."""
    if value < 0:
        return cst.UnaryOperation(cst.Minus(), cst.Integer(str(-value)))
    return cst.Integer(str(value))


def qualname(func: cst.FunctionDef, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> str:
    """``__qualname__`` of ``func`` (``f``, ``f.<locals>.g``, ``C.m``), as the sandbox's
    runtime observations name functions."""
    parts = [func.name.value]
    node = parents.get(func)
    while node is not None:
        if isinstance(node, cst.FunctionDef):
            parts += ["<locals>", node.name.value]
        elif isinstance(node, cst.ClassDef):
            parts.append(node.name.value)
        elif isinstance(node, cst.Lambda):
            parts += ["<locals>", "<lambda>"]
        node = parents.get(node)
    return ".".join(reversed(parts))


def _param_names(func: cst.FunctionDef) -> set[str]:
    p = func.params
    names = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
    if isinstance(p.star_arg, cst.Param):
        names.add(p.star_arg.name.value)
    if p.star_kwarg is not None:
        names.add(p.star_kwarg.name.value)
    return names


def _binds_unconditionally(stmt: cst.BaseStatement, name: str) -> bool:
    """Whether completing ``stmt`` normally always leaves ``name`` bound (simple
    statements only: assignments, annotated assignments with a value, augmented
    assignments, imports; ``def`` / ``class``)."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return stmt.name.value == name
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        targets: list[cst.BaseExpression] = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            targets = [small.target]
        elif isinstance(small, cst.AugAssign):
            targets = [small.target]
        elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                if alias.evaluated_alias == name or (alias.asname is None and
                                                     alias.evaluated_name.split(".")[0] == name):
                    return True
        while targets:
            t = targets.pop()
            if isinstance(t, cst.Name) and t.value == name:
                return True
            if isinstance(t, (cst.Tuple, cst.List)):
                targets += [el.value for el in t.elements]
            elif isinstance(t, cst.StarredElement):
                targets.append(t.value)
    return False


def definitely_bound(name: str, stmt: cst.CSTNode, func: cst.FunctionDef,
                      parents: Mapping[cst.CSTNode, cst.CSTNode]) -> bool:
    """Whether the local ``name`` of ``func`` is surely bound when ``stmt`` (a statement
    of ``func``'s own blocks) starts: a parameter, or bound by a simple statement that
    precedes ``stmt`` in its block or precedes an enclosing statement in an enclosing
    block, or the target of an enclosing ``for`` / ``with ... as`` whose body holds
    ``stmt``.  The caller must separately exclude ``del`` / ``except ... as`` / ``global`` /
    ``nonlocal`` of ``name`` (:attr:`FunctionFacts.unbinders`)."""
    if name in _param_names(func):
        return True
    node: cst.CSTNode = stmt
    while node is not func:
        parent = parents.get(node)
        if parent is None:
            return False
        if isinstance(parent, (cst.IndentedBlock, cst.Module)):
            for prev in parent.body:
                if prev is node:
                    break
                if _binds_unconditionally(prev, name):
                    return True
        elif isinstance(parent, cst.For) and node is parent.body and name in (target_names(parent.target) or ()):
            return True  # inside the loop body, after the target was assigned
        elif isinstance(parent, cst.With) and node is parent.body and any(
                item.asname is not None and name in (target_names(item.asname.name) or ()) for item in parent.items):
            return True
        node = parent
    return False


def function_of(node: cst.CSTNode, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> cst.CSTNode | None:
    """The nearest enclosing ``def``, ``class`` or ``lambda`` of ``node`` (``None`` at
    module level)."""
    p = parents.get(node)
    while p is not None and not isinstance(p, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        p = parents.get(p)
    return p


def refuse_program(module: cst.Module, ctx: RewriteContext, facts: ProgramFacts, names: frozenset[str],
                    emits: Sequence[str] = (), lifetime: bool = True) -> None:
    """Program-wide refusals shared by the loop transforms: builtins the rewrite emits (or
    relies on) may be rebound, visibly or not
    (:func:`~codemorph.authoring.hazards.builtin_rebinding_refusal`); builtins may be
    rebound through the ``builtins`` module; object lifetimes are observable
    (``lifetime``); frames, code objects or line numbers are inspected."""
    refusal = builtin_rebinding_refusal(ctx, *emits) if emits else None
    if refusal:
        raise NotApplicable(refusal)
    found = hazard_identifiers(module, BUILTINS_HAZARDS, names=names)
    if found:
        raise NotApplicable(f"program may rebind builtins through {', '.join(found)}")
    if lifetime:
        hazard = finalisation_hazard(module, names=names, facts=facts)
        if hazard:
            raise NotApplicable(hazard)
    found = hazard_identifiers(module, FRAME_HAZARDS, LINE_HAZARDS, names=names)
    if found:
        raise NotApplicable(f"program inspects frames, code or line numbers ({', '.join(found)})")


def owner_refusal(owner: cst.CSTNode | None, facts: ProgramFacts, what: str) -> str | None:
    """Why a site owned by ``owner`` cannot be rewritten (module level, class body,
    dynamic-scope function), or ``None``."""
    if owner is None:
        return f"{what} at module level"
    if isinstance(owner, cst.ClassDef):
        return f"{what} in a class body"
    if isinstance(owner, cst.Lambda):
        return f"{what} in a lambda"
    ff = facts.functions[owner]
    if ff.dynamic:
        return f"{owner.name.value}() uses {', '.join(sorted(ff.dynamic))}"
    return None


Plan = Callable[[cst.BaseStatement], tuple[list[cst.BaseStatement], list[cst.EmptyLine]]]


class BlockRewriter(cst.CSTTransformer):
    """Replaces chosen statements of indented blocks (and of the module body) by lists of
    statements.

    ``plans`` maps an original statement to a function of its updated node returning the
    replacement statements and comment lines left over (a flattened block's footer);
    statements in ``drop`` are removed.  Left-over and dropped comment lines are moved to
    the next statement of the block, or to the block's footer."""

    def __init__(self, plans: dict[cst.CSTNode, Plan], drop: Iterable[cst.CSTNode] = ()) -> None:
        super().__init__()
        self.plans = {id(k): v for k, v in plans.items()}
        self.drop = {id(n) for n in drop}

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock,
                            updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        return self._block(original_node, updated_node)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return self._block(original_node, updated_node)

    def _block(self, original_node, updated_node):
        """An indented block or the module body, with the plans applied to its statements."""
        if not any(id(s) in self.plans or id(s) in self.drop for s in original_node.body):
            return updated_node
        out: list[cst.BaseStatement] = []
        pending: list[cst.EmptyLine] = []
        for orig, new in zip(original_node.body, updated_node.body):
            if id(orig) in self.drop:
                pending += list(new.leading_lines)
                if isinstance(new, cst.SimpleStatementLine):
                    pending += comment_lines(new.trailing_whitespace)
                continue
            stmts, left = self.plans[id(orig)](new) if id(orig) in self.plans else ([new], [])
            if stmts:
                stmts[0] = prepend_lines(stmts[0], pending)
                pending = []
            out += stmts
            pending += left
        if not out:
            out = [cst.SimpleStatementLine([cst.Pass()])]
        return updated_node.with_changes(body=out, footer=[*pending, *updated_node.footer])


def for_sites(ctx: RewriteContext, facts: ProgramFacts, what: str,
               check: Callable[[cst.For], str | None],
               module_level: Callable[[], str | None] | None = None) -> tuple[list[cst.For], list[str]]:
    """The ``for`` loops in function bodies that pass ``check`` (a reason or ``None``),
    and the reasons of the others (``"line N: ..."``).  With ``module_level`` (a function
    giving why module-level loops cannot be rewritten, or ``None`` when they can), loops at
    module level are sites too, when it gives ``None``."""
    eligible: list[cst.For] = []
    reasons: list[str] = []
    for loop, owner in facts.loops:
        line = ctx.position(loop)[0]
        if loop.asynchronous is not None:
            why = "async for"
        elif owner is None and module_level is not None:
            why = module_level()
        else:
            why = owner_refusal(owner, facts, what)
        if why is None:
            why = check(loop)
        if why is None:
            eligible.append(loop)
        else:
            reasons.append(f"line {line}: {why}")
    return eligible, reasons


def for_loop_facts(module: cst.Module, ctx: RewriteContext) -> ProgramFacts:
    """:class:`ProgramFacts` of a program that has a ``for`` loop (checked on the source
    text first, the cheap common refusal); ``NotApplicable("no for loop")`` otherwise."""
    if "for" not in ctx.program.source:
        raise NotApplicable("no for loop")
    facts = ProgramFacts.of(module)
    if not facts.loops:
        raise NotApplicable("no for loop")
    return facts


def choose_loop_sites(which: str, ctx: RewriteContext, eligible: list, reasons: list[str], what: str) -> list:
    """The sites to rewrite (:func:`choose_sites`); ``NotApplicable`` naming ``what`` and
    the ``reasons`` sites were refused when none is eligible."""
    if not eligible:
        raise NotApplicable(f"no eligible {what}" + (" (" + "; ".join(reasons) + ")" if reasons else ""))
    return choose_sites(ctx, eligible, which)


def target_names(t: cst.BaseExpression) -> list[str] | None:
    """Names bound by a ``for`` / comprehension target made only of names (``x``,
    ``a, b``, ``(a, *rest)``), else ``None`` (attributes, subscripts)."""
    if isinstance(t, cst.Name):
        return [t.value]
    if isinstance(t, (cst.Tuple, cst.List)):
        out: list[str] = []
        for el in t.elements:
            sub = target_names(el.value)
            if sub is None:
                return None
            out += sub
        return out
    if isinstance(t, cst.StarredElement):
        return target_names(t.value)
    return None
