"""``while-to-for``: counting ``while`` loops as ``for ... in range`` (needs runtime type
observations).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.engine.transform import bound_names
from codemorph.authoring.facts import FunctionFacts, ProgramFacts
from codemorph.authoring.hazards import rebindable_builtins
from codemorph.authoring.sites import SiteChoice
from codemorph.transforms.loops.common import (
    BlockRewriter, Plan, block_statements, choose_loop_sites, comment_lines, find, int_literal,
    int_node, lazy_scopes, loop_jumps, name_nodes, owner_refusal, qualname, refuse_program,
    simple_line, statement_comments,
)

__all__ = ["WhileToFor"]


#: types whose ``len()`` cannot change while the object lives
_IMMUTABLE_SIZED = frozenset({"str", "tuple", "bytes", "frozenset", "range"})
_FLIP = {cst.LessThan: cst.GreaterThan, cst.LessThanEqual: cst.GreaterThanEqual,
         cst.GreaterThan: cst.LessThan, cst.GreaterThanEqual: cst.LessThanEqual}


@dataclass
class _Counting:
    """A counting ``while`` loop found by :class:`WhileToFor`."""

    loop: cst.While
    var: str
    bound: cst.BaseExpression
    op: type
    step: int  # signed
    increment: cst.BaseSmallStatement
    start: cst.BaseExpression  # range start (a literal or the variable itself)
    drop_init: cst.BaseStatement | None
    fixup: bool


def _increment_of(small: cst.BaseSmallStatement) -> tuple[str, int] | None:
    """``(name, signed step)`` of ``i += k`` / ``i -= k`` / ``i = i + k`` / ``i = i - k``
    with a positive int literal ``k``, else ``None``."""
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) \
            and isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
        k = int_literal(small.value)
        if isinstance(small.value, cst.Integer) and k is not None and k > 0:
            return small.target.value, k if isinstance(small.operator, cst.AddAssign) else -k
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        name = small.targets[0].target.value
        v = small.value
        if isinstance(v, cst.BinaryOperation) and isinstance(v.operator, (cst.Add, cst.Subtract)) \
                and isinstance(v.left, cst.Name) and v.left.value == name and isinstance(v.right, cst.Integer) \
                and not v.lpar:
            k = v.right.evaluated_value
            if k > 0:
                return name, k if isinstance(v.operator, cst.Add) else -k
    return None


class WhileToFor(SiteChoice, Transform):
    """Rewrite counting ``while`` loops as ``for`` loops over ``range``.

    ``i = A`` ... ``while i < B: BODY; i += k`` (also ``<=``, and ``i > B`` / ``i >= B``
    with ``i -= k``; ``i = i + k`` spellings; ``k`` a positive int literal) becomes
    ``for i in range(A, B, k): BODY``, when ``i`` is read nowhere but in the loop's test and
    body (a literal or adjacent ``i = A`` initialisation is then folded into ``range``).  A
    loop whose counter is read elsewhere (after the loop, in its ``else``, by a closure) is
    left alone: ``range`` leaves ``i`` one step short of the ``while`` loop's final value, and
    the fix-up that restores it (``if i < B: i += k`` after the loop, in its ``else`` when
    the body may ``break``) is no form people write.  ``fix_up=True`` writes that fix-up (the
    form of earlier versions).

    Preconditions (each refused with a reason when not established):

    * the increment is the body's last statement; the body has no ``continue`` (which
      would skip it) and binds ``i`` nowhere else; ``i`` is a true local (no ``global``,
      ``nonlocal``, ``del``, ``except ... as``);
    * ``B`` is a bound built only of int literals, local names, ``len(name)`` and
      ``+ - * // %`` / unary minus, none of its names rebound in the body, not mentioning
      ``i``; ``len(x)`` only when ``x`` was only ever seen holding an immutable sized type
      (``str``, ``tuple``, ``bytes``, ``frozenset``, ``range``), so its length is invariant;
    * ints: ``i`` is an int at the loop (an int-valued initialisation, or only ``int`` ever
      observed for it), and every name in ``B`` was only ever observed holding ``int``
      (or ``bool``), in ``RewriteContext.observations`` (``needs_runtime_types``);
    * ``range`` unshadowed; the function does not use ``eval``/``exec``/``locals``/
      ``globals``/``vars``/``dir()``; no frame or line introspection.

    Names in ``B`` are checked on the observed runs only: on an input where such a name
    holds a float, ``range`` would raise where the ``while`` loop ran.

    Args:
        which: ``"all"`` (default) or ``"one"`` (one eligible loop chosen with ``ctx.rng``).
        fix_up: ``False`` (default) leaves alone a loop whose counter is read outside it;
            ``True`` rewrites it with the fix-up after the loop.

    Raises:
        ValueError: on construction, when ``which`` is not ``"all"`` or ``"one"``, or
            ``fix_up`` is not a bool.
    """

    name = "while-to-for"
    family = "loops"
    description = "Rewrite counting while loops (i = a; while i < b: ...; i += 1) as for loops over range."
    preconditions = (
        "range is the builtin (not rebound anywhere, no builtins-module access)",
        "the loop counts: last statement i += k / i -= k (k a positive literal), no continue, i bound nowhere else",
        "i is read nowhere outside the loop's test and body (unless fix_up)",
        "i is a plain local (no global/nonlocal/del/except-as of it)",
        "the bound is built of int literals, local names, len(name), + - * // %; invariant in the body",
        "runtime types: i and the bound's names only ever held ints; len() only of immutable sized values",
        "the function does not use eval/exec/locals/globals/vars/dir(); no frame or line introspection",
    )
    needs_runtime_types = True

    def __init__(self, which: str = "all", fix_up: bool = False) -> None:
        SiteChoice.__init__(self, which)
        if not isinstance(fix_up, bool):
            raise ValueError(f"{self.name}: option fix_up must be true or false, got {fix_up!r}")
        self.fix_up = fix_up

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        if "while" not in ctx.program.source:
            raise NotApplicable("no while loop")
        facts = ProgramFacts.of(module)
        if not facts.whiles:
            raise NotApplicable("no while loop")
        loops = [(s, func, block) for func, ff in facts.functions.items() for block in ff.blocks
                 for s in block.body if isinstance(s, cst.While)]
        refuse_program(module, ctx, facts, frozenset(facts.names), emits=("range",), lifetime=False)
        from libcst.metadata import ParentNodeProvider, ScopeProvider
        parents = ctx.metadata(ParentNodeProvider)
        scopes = ctx.metadata(ScopeProvider)
        eligible: list[_Counting] = []
        reasons: list[str] = []
        for w, func, block in loops:
            why = owner_refusal(func, facts, "loop")
            found = None if why else self._analyse(w, func, block, facts, parents, scopes, ctx)
            if isinstance(found, _Counting):
                eligible.append(found)
            else:
                reasons.append(f"line {ctx.position(w)[0]}: {why or found}")
        if not loops:
            reasons.append("while loops only outside function bodies")
        chosen = choose_loop_sites(self.which, ctx, eligible, reasons, "counting while loop")
        plans: dict[cst.CSTNode, Plan] = {}
        for c in chosen:
            ctx.record(c.loop, f"while loop counting {c.var} -> for {c.var} in range(...)")
            plans[c.loop] = self._plan(c)
            if c.drop_init is not None:
                # the folded `i = 0` leaves its blank lines to the statement after it and its
                # comments to the loop, whose start they describe (not to that next statement)
                plans[c.drop_init] = lambda node: ([], [ln for ln in node.leading_lines if ln.comment is None])
        return module.visit(BlockRewriter(plans))

    # -- analysis ---------------------------------------------------------------------
    def _analyse(self, w: cst.While, func: cst.FunctionDef, block: cst.IndentedBlock, facts: ProgramFacts,
                 parents, scopes, ctx: RewriteContext) -> _Counting | str:
        test = w.test
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and type(test.comparisons[0].operator) in _FLIP):
            return "test is not a single <, <=, > or >= comparison"
        if isinstance(w.body, cst.IndentedBlock) and not isinstance(w.body.body[-1], cst.SimpleStatementLine):
            return "last statement of the body is not an increment"
        smalls = list(w.body.body[-1].body) if isinstance(w.body, cst.IndentedBlock) else list(w.body.body)
        inc = _increment_of(smalls[-1])
        if inc is None:
            return "last statement of the body is not an increment by an int literal"
        var, step = inc
        left, op, right = test.left, type(test.comparisons[0].operator), test.comparisons[0].comparator
        if isinstance(left, cst.Name) and left.value == var and not left.lpar:
            bound = right
        elif isinstance(right, cst.Name) and right.value == var and not right.lpar:
            bound, op = left, _FLIP[op]
        else:
            return f"test does not compare {var} with a bound"
        if (step > 0) != (op in (cst.LessThan, cst.LessThanEqual)):
            return f"{var} moves away from its bound"
        if "continue" in loop_jumps(w.body):
            return "body has continue (it would skip the increment)"
        ff = facts.functions[func]
        if var in ff.unbinders:
            return f"{var} may be global, nonlocal, deleted or bound by except-as"
        rest_bound: set[str] = set()
        body_stmts = list(w.body.body) if isinstance(w.body, cst.IndentedBlock) else []
        for s in body_stmts[:-1]:
            rest_bound |= bound_names(s)[0]
        for small in smalls[:-1]:
            rest_bound |= bound_names(small)[0]
        if var in rest_bound:
            return f"{var} is also bound inside the body"
        if rebindable_builtins(ctx, "len") and any(name_nodes(part, "len") for part in (test, *smalls)):
            return "builtin len may be rebound by the program"
        qual = qualname(func, parents)
        observed: dict[str, list[str]] = (ctx.observations or {}).get(qual, {})
        why = self._bound_ok(bound, var, func, ff, scopes, observed, rest_bound)
        if why:
            return why
        # i is an int when the loop starts
        init = None
        idx = next(k for k, s in enumerate(block.body) if s is w)
        for prev in reversed(block.body[:idx]):
            if isinstance(prev, cst.SimpleStatementLine) and len(prev.body) == 1 \
                    and isinstance(prev.body[0], cst.Assign) and len(prev.body[0].targets) == 1 \
                    and isinstance(prev.body[0].targets[0].target, cst.Name) \
                    and prev.body[0].targets[0].target.value == var:
                init = prev
                break
            if var in bound_names(prev)[0]:
                break
        init_value = init.body[0].value if init is not None else None
        if init_value is not None and name_nodes(init_value, "len") and rebindable_builtins(ctx, "len"):
            init_value = None  # len(...) is not known to give an int
        if not ((init_value is not None and self._int_expr(init_value, observed, allow_bool=False))
                or observed.get(var) == ["int"]):
            return f"{var} is not known to be an int (observed {observed.get(var, 'nothing')})"
        # is i read anywhere else (after the loop, in its else clause, by a closure)?
        inside = {id(n) for part in (w.test, w.body) for n in name_nodes(part, var)}
        if init is not None:
            inside |= {id(n) for n in name_nodes(init, var)}
        elsewhere = [n for n in name_nodes(func, var) if id(n) not in inside]
        lazy = any(name_nodes(s, var) for s in lazy_scopes(w))
        dead = not elsewhere and not lazy
        if not dead and not self.fix_up:
            # the counter ends one step past the last value range gives: exact only with a fix-up
            # after the loop (`if i < n: i += 1`), which nobody writes
            where = "a closure reads it" if lazy else f"line {ctx.position(elsewhere[0])[0]} reads it"
            return (f"{var} is read outside the loop ({where}): after `for {var} in range(...)` it would "
                    f"need a fix-up `if ...: {var} += ...`, not a form people write (option fix_up=true writes it)")
        start: cst.BaseExpression = cst.Name(var)
        drop_init = None
        if init is not None:
            literal = int_literal(init_value) is not None
            adjacent = idx > 0 and block.body[idx - 1] is init
            if dead and (literal or adjacent):
                start, drop_init = init_value, init
            elif literal:
                start = init_value
        return _Counting(w, var, bound, op, step, smalls[-1], start, drop_init, not dead)

    def _int_expr(self, e: cst.BaseExpression, observed: Mapping[str, list[str]], allow_bool: bool = True) -> bool:
        """Whether ``e`` always evaluates to an int: literals, ``len(...)``, arithmetic of
        ints, names only ever observed holding ints (or bools, with ``allow_bool``)."""
        if isinstance(e, cst.Integer):
            return True
        if isinstance(e, cst.Name):
            ok = {"int", "bool"} if allow_bool else {"int"}
            types = observed.get(e.value)
            return bool(types) and set(types) <= ok
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value == "len" \
                and len(e.args) == 1 and e.args[0].keyword is None and not e.args[0].star:
            return True
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
            return self._int_expr(e.expression, observed)
        if isinstance(e, cst.BinaryOperation) and isinstance(
                e.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)):
            return self._int_expr(e.left, observed) and self._int_expr(e.right, observed)
        return False

    def _bound_ok(self, bound: cst.BaseExpression, var: str, func: cst.FunctionDef, ff: FunctionFacts, scopes,
                  observed: Mapping[str, list[str]], body_bound: set[str]) -> str | None:
        """Why ``bound`` is not an invariant int bound, or ``None``."""
        if not self._int_expr(bound, observed):
            return "bound is not an int expression of literals, len() and names observed as int"
        for call in find(bound, cst.Call):
            arg = call.args[0].value
            if not isinstance(arg, cst.Name):
                return "len() of something other than a name"
            types = observed.get(arg.value)
            if not types or not set(types) <= _IMMUTABLE_SIZED:
                return f"len({arg.value}): {arg.value} may change size (observed {types or 'nothing'})"
        for n in name_nodes(bound):
            if any(n is c.func for c in find(bound, cst.Call)):
                continue
            if n.value == var:
                return f"bound depends on {var}"
            if n.value in body_bound or n.value in ff.unbinders:
                return f"bound's name {n.value} may change in the loop"
            scope = scopes.get(n)
            if scope is None or getattr(scope, "node", None) is not func \
                    or not any(a.scope is scope for a in scope[n.value]):
                return f"bound's name {n.value} is not a local of {func.name.value}()"
        return None

    # -- rewrite ----------------------------------------------------------------------
    @staticmethod
    def _plan(c: _Counting) -> Plan:
        def plan(node: cst.BaseStatement) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
            assert isinstance(node, cst.While)
            lit = int_literal(c.bound)
            adjust = {cst.LessThanEqual: 1, cst.GreaterThanEqual: -1}.get(c.op, 0)
            if not adjust:
                end = c.bound
            elif lit is not None:
                end = int_node(lit + adjust)
            else:
                end = cst.BinaryOperation(c.bound, cst.Add() if adjust > 0 else cst.Subtract(), cst.Integer("1"))
            args = [end]
            if not (int_literal(c.start) == 0 and c.step == 1):
                args.insert(0, c.start)
            if c.step != 1:
                args.append(int_node(c.step))
            rng = cst.Call(cst.Name("range"), [cst.Arg(a) for a in args])
            body = node.body
            if isinstance(body, cst.IndentedBlock):
                last = body.body[-1]
                assert isinstance(last, cst.SimpleStatementLine)
                if len(last.body) > 1:
                    kept = list(last.body[:-1])
                    kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                    stmts = [*body.body[:-1], last.with_changes(body=kept)]
                    footer = list(body.footer)
                else:
                    stmts = list(body.body[:-1])
                    footer = [*last.leading_lines, *comment_lines(last.trailing_whitespace), *body.footer]
                body = body.with_changes(body=stmts or [cst.SimpleStatementLine([cst.Pass()])], footer=footer)
            else:
                kept = list(body.body[:-1]) or [cst.Pass()]
                kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                body = body.with_changes(body=kept)
            after: list[cst.BaseStatement] = []
            orelse = node.orelse
            if c.fixup:
                inc = c.increment.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                fix = cst.If(test=node.test.deep_clone(), body=cst.IndentedBlock([simple_line(inc)]))
                if orelse is not None:
                    stmts, _ = block_statements(orelse.body)
                    orelse = orelse.with_changes(body=cst.IndentedBlock(
                        [fix, *stmts], header=orelse.body.header if isinstance(orelse.body, cst.IndentedBlock)
                        else orelse.body.trailing_whitespace,
                        footer=orelse.body.footer if isinstance(orelse.body, cst.IndentedBlock) else ()))
                elif "break" in loop_jumps(node.body):
                    orelse = cst.Else(cst.IndentedBlock([fix]))
                else:
                    after = [fix]
            init_comments: list[cst.EmptyLine] = []
            if c.drop_init is not None:
                init_comments = [*(ln for ln in c.drop_init.leading_lines if ln.comment is not None),
                                 *comment_lines(c.drop_init.trailing_whitespace)]
            loop = cst.For(target=cst.Name(c.var), iter=rng, body=body, orelse=orelse,
                           leading_lines=[*node.leading_lines, *init_comments, *statement_comments(node.test)])
            return [loop, *after], []
        return plan
