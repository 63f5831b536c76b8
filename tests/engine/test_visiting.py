"""The copy-free read-only traversal (:mod:`codemorph.engine.visiting`) makes exactly the
calls libcst's own ``CSTNode.visit`` makes, in the same order, and returns the node itself."""

from __future__ import annotations

import json
from importlib import resources

import libcst as cst
import pytest
from libcst.metadata import ExpressionContextProvider, MetadataWrapper, ParentNodeProvider, ScopeProvider

from codemorph.engine import visiting

RICH = '''\
"""Module docstring."""
from __future__ import annotations
import os.path as osp, re
from collections import (OrderedDict as OD, deque)
from typing import *

X: int = 1  # a comment

@decorator(arg=1)
class C(Base, metaclass=Meta):
    """Doc."""
    attr = [i ** 2 for i in range(3) if i]

    def m(self, a, /, b=2, *args, c: "str" = "x", **kw) -> dict[str, int]:
        global X
        nonlocal_free = lambda q, *r, s=1: (q, r, s)
        try:
            with open(a) as fh, other() as (p, q):
                pass
        except (ValueError, TypeError) as exc:
            raise RuntimeError("x") from exc
        else:
            del a[0], b
        finally:
            assert b, f"b={b!r:>{10}} {c=}"
        return {k: v for k, v in kw.items()}


async def g(xs):
    try:
        pass
    except* OSError:
        pass
    async for x in xs:
        await x
    async with lock:
        yield (y := 3)
    yield from range(2)
    return [*xs, *{1, 2}], {**{}}


def h(v):
    match v:
        case [1, 2, *rest] if rest:
            return rest
        case {"k": value, **others}:
            return value
        case Point(x=0, y=yy) | None:
            return yy
        case str() as s:
            return s
        case _:
            pass
    while v > 0:
        v -= 1
        if v % 2:
            continue
        elif v == 7:
            break
    else:
        v = -v if v else +v
    for i, (j, k) in enumerate(zip(a, b)):
        print(i, j, k, sep="", end="\\n"); x = a[1:2:3], a[::], b @ c
    return not v and v or v is not None, v in a, ~v, v << 1, 1 < v <= 2, b"raw" rb"\\d"
'''


def _corpus() -> list[str]:
    rows = resources.files("codemorph.data").joinpath("default.jsonl").read_text(encoding="utf-8").splitlines()
    return [RICH] + [json.loads(r)["code"] for r in rows if r.strip()]


class Recorder(cst.CSTVisitor):
    """Records every call libcst makes to a visitor; skips the children of lambdas."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def on_visit(self, node):
        self.events.append(("visit", type(node).__name__, id(node)))
        return not isinstance(node, cst.Lambda)

    def on_leave(self, node):
        self.events.append(("leave", id(node)))

    def on_visit_attribute(self, node, attribute):
        self.events.append(("visit-attr", id(node), attribute))

    def on_leave_attribute(self, node, attribute):
        self.events.append(("leave-attr", id(node), attribute))


class Hooks(cst.CSTVisitor):
    """A visitor with plain hooks: by node, by attribute, one returning False, static ones."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def visit_Name(self, node):
        self.events.append(("name", node.value))

    def visit_Call(self, node):
        self.events.append(("call", id(node)))
        return len(self.events) % 3 != 0  # some calls' arguments are skipped

    def leave_If(self, node):
        self.events.append(("/if", id(node)))

    def visit_Param_name(self, node):
        self.events.append(("param-name", id(node)))

    def leave_FunctionDef_body(self, node):
        self.events.append(("/body", node.name.value))

    @staticmethod
    def visit_Integer(node):
        EVENTS.append(node.value)


EVENTS: list[str] = []


class NoAttributeHooks(cst.CSTVisitor):
    """Only node hooks (the attribute hooks are skipped: they would do nothing)."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def visit_SimpleString(self, node):
        self.events.append(("str", node.value))

    def visit_Attribute(self, node):
        self.events.append(("attr", node.attr.value))
        return False

    def leave_Comment(self, node):
        self.events.append(("comment", node.value))


class OwnLeave(cst.CSTVisitor):
    """Its own ``on_leave`` (as libcst's parent-node provider), libcst's ``on_visit``."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def visit_ClassDef(self, node):
        self.events.append(("class", node.name.value))
        return False

    def on_leave(self, original_node):
        self.events.append(("leave", type(original_node).__name__, len(original_node.children)))
        super().on_leave(original_node)

    def leave_Return(self, node):
        self.events.append(("/return", id(node)))


class OwnVisitWithAttributeHook(OwnLeave):
    def on_visit(self, node):
        self.events.append(("visit", type(node).__name__))
        return super().on_visit(node)

    def leave_Arg_keyword(self, node):
        self.events.append(("/keyword", id(node)))


class InstanceHook(cst.CSTVisitor):
    """A hook set on the instance, not the class."""

    def __init__(self) -> None:
        self.events: list[tuple] = []
        self.visit_Name = lambda node: self.events.append(("name", node.value))


def _events(visit, visitor_class, module):
    """(result, calls seen) of ``module.visit(visitor_class())`` with ``visit`` as
    ``CSTNode.visit`` (children included)."""
    visitor = visitor_class()
    EVENTS.clear()
    installed = cst.CSTNode.visit
    cst.CSTNode.visit = visit
    try:
        result = module.visit(visitor)
    finally:
        cst.CSTNode.visit = installed
    return result, visitor.events + [("static", v) for v in EVENTS]


@pytest.mark.parametrize("visitor_class", [Recorder, Hooks, NoAttributeHooks, OwnLeave, OwnVisitWithAttributeHook,
                                           InstanceHook])
def test_copy_free_traversal_makes_libcsts_calls_in_libcsts_order(visitor_class):
    seen = 0
    for code in _corpus():
        module = cst.parse_module(code)
        expected_result, expected = _events(visiting.libcst_visit, visitor_class, module)
        result, got = _events(visiting.fast_visit, visitor_class, module)
        assert got == expected
        assert result is module and expected_result is module
        seen += len(got)
    assert seen > 40


def test_node_classes_of_the_corpus_have_a_visit_plan():
    classes = set()

    class Classes(cst.CSTVisitor):
        def on_visit(self, node):
            classes.add(type(node))
            return True

    for code in _corpus():
        cst.parse_module(code).visit(Classes())
    plans = {cls.__name__: visiting.visit_plan(cls) for cls in classes}
    assert len(plans) > 90
    # every class met is walked without copying, but f-string expressions and from-imports (libcst's method)
    assert {name for name, plan in plans.items() if plan is None} == {"FormattedStringExpression", "ImportFrom"}
    assert plans["If"] == (("leading_lines", 2), ("whitespace_before_test", 0), ("test", 0),
                           ("whitespace_after_test", 0), ("body", 0), ("orelse", 1))
    assert plans["Name"] == (("lpar", 2), ("rpar", 2))


def test_children_are_libcsts_children():
    for code in _corpus():
        nodes = []

        class All(cst.CSTVisitor):
            def on_visit(self, node):
                nodes.append(node)
                return True

        cst.parse_module(code).visit(All())
        for node in nodes:
            assert visiting.children(node) == visiting.libcst_children.fget(node)
            assert list(node.children) == visiting.libcst_children.fget(node)


def _metadata(module):
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    parents = wrapper.resolve(ParentNodeProvider)
    contexts = wrapper.resolve(ExpressionContextProvider)
    scopes = wrapper.resolve(ScopeProvider)
    seen = {}
    for node, scope in scopes.items():
        if scope is not None and id(scope) not in seen:
            seen[id(scope)] = (type(scope).__name__,
                               sorted((a.name, type(a.node).__name__) for a in scope.assignments),
                               sorted((a.node.value, len(a.referents)) for a in scope.accesses))
    return ({id(k): id(v) for k, v in parents.items()},
            {id(k): str(v) for k, v in contexts.items()},
            {id(k): id(v) for k, v in scopes.items() if v is not None}, list(seen.values()))


def test_metadata_of_libcsts_providers_is_the_same():
    for code in _corpus():
        module = cst.parse_module(code)
        installed = cst.CSTNode.visit, cst.CSTNode.__dict__["children"]
        cst.CSTNode.visit, cst.CSTNode.children = visiting.libcst_visit, visiting.libcst_children
        try:
            expected = _metadata(module)
        finally:
            cst.CSTNode.visit, cst.CSTNode.children = installed
        parents, contexts, scopes, scope_facts = _metadata(module)
        assert (parents, contexts) == expected[:2]
        assert len(scopes) == len(expected[2]) and scope_facts == expected[3]
        assert len(parents) > 10 and scope_facts


class Rewrites(cst.CSTTransformer):
    """Renames ``a``, drops ``pass`` lines and annotations and the second argument of calls,
    doubles expression statements (a flattening), and records every call it gets."""

    reuse_unchanged_nodes = True

    def __init__(self) -> None:
        self.events: list[tuple] = []
        self.assignments = 0  # inside an annotated assignment (its annotation is required)

    def on_visit(self, node):
        self.events.append(("visit", type(node).__name__, id(node)))
        return not isinstance(node, cst.Lambda) and super().on_visit(node)

    def visit_AnnAssign(self, node):
        self.assignments += 1

    def leave_AnnAssign(self, original_node, updated_node):
        self.assignments -= 1
        return updated_node

    def on_leave(self, original_node, updated_node):
        self.events.append(("leave", id(original_node), updated_node.deep_equals(original_node)))
        return super().on_leave(original_node, updated_node)

    def leave_Name(self, original_node, updated_node):
        return updated_node.with_changes(value="A") if updated_node.value == "a" else updated_node

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if len(updated_node.body) == 1 and isinstance(updated_node.body[0], cst.Pass):
            return cst.RemovalSentinel.REMOVE
        if len(updated_node.body) == 1 and isinstance(updated_node.body[0], cst.Expr):
            return cst.FlattenSentinel([updated_node, updated_node])
        return updated_node

    def leave_Annotation(self, original_node, updated_node):
        return updated_node if self.assignments else cst.RemovalSentinel.REMOVE

    def leave_Arg(self, original_node, updated_node):
        return cst.RemovalSentinel.REMOVE if updated_node.keyword is not None else updated_node


class RewritesWithAttributeHook(Rewrites):
    def visit_Call_args(self, node):
        self.events.append(("args", id(node)))


class PlainRewrites(Rewrites):
    reuse_unchanged_nodes = False


@pytest.mark.parametrize("transformer_class", [Rewrites, RewritesWithAttributeHook])
def test_transformer_reusing_unchanged_nodes_gets_libcsts_calls_and_result(transformer_class):
    changed = 0
    for code in _corpus():
        module = cst.parse_module(code)
        expected_result, expected = _events(visiting.libcst_visit, transformer_class, module)
        result, got = _events(visiting.fast_visit, transformer_class, module)
        assert got == expected
        assert result.code == expected_result.code and result.deep_equals(expected_result)
        changed += result.code != code
    assert changed > 5


def test_removing_a_required_node_raises_libcsts_error():
    class RemoveTests(cst.CSTTransformer):
        reuse_unchanged_nodes = True

        def leave_Comparison(self, original_node, updated_node):
            return cst.RemovalSentinel.REMOVE

    module = cst.parse_module("def f(x):\n    if x < 1:\n        return 0\n")
    with pytest.raises(TypeError) as libcsts:
        _events(visiting.libcst_visit, RemoveTests, module)
    with pytest.raises(TypeError) as ours:
        module.visit(RemoveTests())
    assert str(ours.value) == str(libcsts.value) == (
        "We got a RemovalSentinel while visiting a Comparison. This node's parent does not allow it to be removed.")


def test_unchanged_subtrees_are_shared_only_with_reuse_unchanged_nodes():
    module = cst.parse_module("def f(a, b):\n    x = b + 1\n    return a\n")
    reused, rebuilt = module.visit(Rewrites()), module.visit(PlainRewrites())
    assert reused.code == rebuilt.code == "def f(A, b):\n    x = b + 1\n    return A\n"
    assert reused.body[0].body.body[0] is module.body[0].body.body[0]  # ``x = b + 1`` is not rebuilt
    assert rebuilt.body[0].body.body[0] is not module.body[0].body.body[0]


def test_transformer_still_rebuilds_the_tree():
    class Upper(cst.CSTTransformer):
        def leave_Name(self, original_node, updated_node):
            return updated_node.with_changes(value=updated_node.value.upper())

    module = cst.parse_module("def f(a):\n    return a + b\n")
    assert module.visit(Upper()).code == "def F(A):\n    return A + B\n"


def test_traversal_is_installed_by_the_engine():
    import codemorph.engine  # noqa: F401 - importing the engine installs it

    assert cst.CSTNode.visit is visiting.fast_visit
