"""A read-only traversal of libcst trees that does not rebuild them.

libcst's :meth:`CSTNode.visit` rebuilds every node it passes, even for a
:class:`~libcst.CSTVisitor`, whose result is the tree it was given: each node's
``_visit_and_replace_children`` constructs a copy (a frozen dataclass, validated) from its
visited children, and the copy is thrown away.  codemorph makes some twenty read-only
passes over every program (its own visitors and libcst's metadata providers), and that
construction was most of their cost.

:func:`install` makes :meth:`CSTNode.visit` walk the tree without copying when the visitor
is a :class:`~libcst.CSTVisitor` (a :class:`~libcst.CSTTransformer` still gets libcst's
own traversal).  The visitor sees exactly the calls libcst's traversal makes, in the same
order -- ``on_visit``, then for each child field in libcst's visiting order
``on_visit_attribute``, the children, ``on_leave_attribute``, then ``on_leave`` -- and the
result is the node itself, as with libcst.  The visiting order of each node class is read
from libcst's own ``_visit_and_replace_children`` (its keyword arguments are the child
fields in the order they are visited); a class whose method is not that plain form, or
whose source cannot be read, is visited by libcst's method (whose children come back
here).  Hooks that libcst marks as no-ops (``mark_no_op``) and attribute hooks a visitor
does not define are skipped, as calling them would do nothing.  Performance only: a test
compares the calls a recording visitor receives from both traversals on many programs.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from typing import Any, Callable

import libcst as cst
from libcst import CSTNode, CSTVisitor, MaybeSentinel

try:  # libcst's visitor of a batched metadata pass (private: absent in another version, it is a custom visitor)
    from libcst._batched_visitor import _BatchedCSTVisitor
except ImportError:  # pragma: no cover
    _BatchedCSTVisitor = None

__all__ = ["install", "fast_visit", "children", "visit_plan", "libcst_visit", "libcst_children"]

#: libcst's own ``CSTNode.visit`` (kept for transformers and for comparison in tests)
libcst_visit: Callable[[CSTNode, Any], Any] = CSTNode.visit

# field kinds of a visit plan
_REQUIRED, _OPTIONAL, _SEQUENCE = 0, 1, 2
_HELPERS = {"visit_required": _REQUIRED, "visit_optional": _OPTIONAL, "visit_sentinel": _OPTIONAL,
            "visit_sequence": _SEQUENCE, "visit_body_sequence": _SEQUENCE, "visit_iterable": _SEQUENCE,
            "visit_body_iterable": _SEQUENCE}

_plans: dict[type, tuple[tuple[str, int], ...] | None] = {}


def _read_plan(cls: type) -> tuple[tuple[str, int], ...] | None:
    owner = next((k for k in cls.__mro__ if "_visit_and_replace_children" in k.__dict__), None)
    if owner is None or owner is CSTNode:
        return None
    try:
        source = textwrap.dedent(inspect.getsource(owner.__dict__["_visit_and_replace_children"]))
        fn = ast.parse(source).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not isinstance(fn, ast.FunctionDef) or len(fn.args.args) != 2:
        return None
    self_name, visitor_name = fn.args.args[0].arg, fn.args.args[1].arg
    if len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Name) \
            and body[0].value.id == self_name:
        return ()  # a leaf: ``return self``
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call) \
            or body[0].value.args:
        return None
    plan = []
    for kw in body[0].value.keywords:
        v = kw.value
        if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == self_name:
            continue  # a field copied as it is (a string, a flag): not visited
        if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in _HELPERS
                and len(v.args) == 4 and not v.keywords):
            return None
        parent, name, value, visitor = v.args
        if not (isinstance(parent, ast.Name) and parent.id == self_name and isinstance(name, ast.Constant)
                and name.value == kw.arg and isinstance(value, ast.Attribute) and value.attr == kw.arg
                and isinstance(value.value, ast.Name) and value.value.id == self_name
                and isinstance(visitor, ast.Name) and visitor.id == visitor_name):
            return None
        plan.append((kw.arg, _HELPERS[v.func.id]))
    return tuple(plan)


def visit_plan(cls: type) -> tuple[tuple[str, int], ...] | None:
    """The child fields libcst visits on a node of class ``cls``, in order, as ``(field,
    kind)`` pairs (kind 0: a node, 1: a node or ``None``/``MaybeSentinel``, 2: a sequence
    of nodes); ``None`` when the class's ``_visit_and_replace_children`` is not the plain
    form (libcst's method is used for it)."""
    try:
        return _plans[cls]
    except KeyError:
        plan = _plans[cls] = _read_plan(cls)
        return plan


_NOT_LOOKED_UP = object()


class _Dispatch:
    """Per visitor class: the hook functions (unbound) of each node class, ``None`` where
    libcst's default hook would do nothing.  Kept on the class itself (a visitor class
    defined inside a function is a new class at every call, and goes with its instances)."""

    __slots__ = ("visit", "leave", "attributes")

    def __init__(self, vtype: type) -> None:
        self.visit: dict[type, Any] = {}
        self.leave: dict[type, Any] = {}
        # the class's attribute hooks do something: keep calling on_visit_attribute/on_leave_attribute
        self.attributes = (vtype.on_visit_attribute is not CSTVisitor.on_visit_attribute
                           or vtype.on_leave_attribute is not CSTVisitor.on_leave_attribute
                           or any(_attribute_hook(k, n) for k in vtype.__mro__ if k not in _STUB_CLASSES
                                  for n in list(vars(k))))


#: libcst's classes of no-op hook stubs (every ``visit_<Node>_<field>`` is one)
_STUB_CLASSES = frozenset({cst.CSTVisitor, *cst.CSTVisitor.__mro__[1:]})


def _attribute_hook(owner: type, name: str) -> bool:
    """Whether ``name`` in the class dict of ``owner`` is a ``visit_<Node>_<field>`` /
    ``leave_<Node>_<field>`` hook that is not one of libcst's no-op stubs."""
    prefix, _, rest = name.partition("_")
    if prefix not in ("visit", "leave") or "_" not in rest:
        return False
    return not getattr(vars(owner)[name], "_is_no_op", False)


def _hook(vtype: type, name: str) -> Any:
    """The hook ``name`` of the visitor class ``vtype`` as a function of (visitor, node);
    ``None`` when there is none or it is one of libcst's no-op stubs."""
    fn = getattr(vtype, name, None)
    if fn is None or getattr(fn, "_is_no_op", False):
        return None
    if type(inspect.getattr_static(vtype, name)) is not types.FunctionType:
        return lambda visitor, node: getattr(visitor, name)(node)  # a static/class method, a callable object
    return fn


def _dispatch_of(vtype: type) -> _Dispatch:
    d = vtype.__dict__.get("_codemorph_visit_dispatch")
    if d is None:
        d = _Dispatch(vtype)
        setattr(vtype, "_codemorph_visit_dispatch", d)
    return d


def _walk_default(node: CSTNode, visitor: CSTVisitor, d: _Dispatch) -> None:
    """The traversal of a visitor that uses :class:`CSTVisitor`'s own ``on_visit`` /
    ``on_leave`` (hooks found by name on its class)."""
    t = type(node)
    fn = d.visit.get(t, _NOT_LOOKED_UP)
    if fn is _NOT_LOOKED_UP:
        fn = d.visit[t] = _hook(type(visitor), "visit_" + t.__name__)
    if fn is None or fn(visitor, node) is not False:
        plan = _plans.get(t, _NOT_LOOKED_UP)
        if plan is _NOT_LOOKED_UP:
            plan = visit_plan(t)
        if plan is None:
            node._visit_and_replace_children(visitor)  # its children come back through CSTNode.visit
        elif d.attributes:
            for name, kind in plan:
                value = getattr(node, name)
                visitor.on_visit_attribute(node, name)
                if kind == _SEQUENCE:
                    for child in value:
                        _walk_default(child, visitor, d)
                elif kind == _REQUIRED or (value is not None and not isinstance(value, MaybeSentinel)):
                    _walk_default(value, visitor, d)
                visitor.on_leave_attribute(node, name)
        else:
            for name, kind in plan:
                value = getattr(node, name)
                if kind == _SEQUENCE:
                    for child in value:
                        _walk_default(child, visitor, d)
                elif kind == _REQUIRED or (value is not None and not isinstance(value, MaybeSentinel)):
                    _walk_default(value, visitor, d)
    fn = d.leave.get(t, _NOT_LOOKED_UP)
    if fn is _NOT_LOOKED_UP:
        fn = d.leave[t] = _hook(type(visitor), "leave_" + t.__name__)
    if fn is not None:
        fn(visitor, node)


def _walk_custom(node: CSTNode, visitor: CSTVisitor, attributes: bool) -> None:
    """The traversal of a visitor with its own ``on_visit``/``on_leave`` (or hooks set on the
    instance): every call goes through the visitor's methods (the attribute hooks only
    when ``attributes``: without it they would do nothing)."""
    if visitor.on_visit(node):
        t = type(node)
        plan = _plans.get(t, _NOT_LOOKED_UP)
        if plan is _NOT_LOOKED_UP:
            plan = visit_plan(t)
        if plan is None:
            node._visit_and_replace_children(visitor)
        elif attributes:
            for name, kind in plan:
                value = getattr(node, name)
                visitor.on_visit_attribute(node, name)
                if kind == _SEQUENCE:
                    for child in value:
                        _walk_custom(child, visitor, attributes)
                elif kind == _REQUIRED or (value is not None and not isinstance(value, MaybeSentinel)):
                    _walk_custom(value, visitor, attributes)
                visitor.on_leave_attribute(node, name)
        else:
            for name, kind in plan:
                value = getattr(node, name)
                if kind == _SEQUENCE:
                    for child in value:
                        _walk_custom(child, visitor, attributes)
                elif kind == _REQUIRED or (value is not None and not isinstance(value, MaybeSentinel)):
                    _walk_custom(value, visitor, attributes)
    visitor.on_leave(node)


def _batched_attributes(visitor: Any) -> bool:
    """For libcst's batched visitor (the metadata providers' shared pass): whether any of
    the batched visitors has an attribute hook (``visit_<Node>_<field>``); without one its
    ``on_visit_attribute``/``on_leave_attribute`` find nothing to call."""
    methods = getattr(visitor, "visitor_methods", None)
    if not isinstance(methods, dict):
        return True
    return any("_" in name.partition("_")[2] for name in methods)


def fast_visit(self: CSTNode, visitor: Any) -> Any:
    """:meth:`CSTNode.visit` as installed by :func:`install`: a :class:`~libcst.CSTVisitor`
    is walked over ``self`` without copying (returns ``self``); any other visitor (a
    transformer) goes to libcst's own traversal (returns the new tree)."""
    if not isinstance(visitor, CSTVisitor):
        return libcst_visit(self, visitor)
    vtype = type(visitor)
    own = getattr(visitor, "__dict__", None)
    own_hooks = bool(own) and any(k.startswith(("visit_", "leave_")) for k in own)
    if vtype.on_visit is CSTVisitor.on_visit and vtype.on_leave is CSTVisitor.on_leave and not own_hooks:
        _walk_default(self, visitor, _dispatch_of(vtype))
    elif vtype is _BatchedCSTVisitor:
        _walk_custom(self, visitor, _batched_attributes(visitor))
    else:
        _walk_custom(self, visitor, own_hooks or _dispatch_of(vtype).attributes)
    return self


#: libcst's own ``CSTNode.children`` property
libcst_children = CSTNode.children


def children(node: CSTNode) -> list[CSTNode]:
    """``node.children`` (the nodes a visitor would visit directly under ``node``, in
    order) read from the visit plan of its class instead of rebuilding ``node``; libcst's
    own property for a class without a plan."""
    plan = _plans.get(type(node), _NOT_LOOKED_UP)
    if plan is _NOT_LOOKED_UP:
        plan = visit_plan(type(node))
    if plan is None:
        return libcst_children.fget(node)
    out: list[CSTNode] = []
    for name, kind in plan:
        value = getattr(node, name)
        if kind == _SEQUENCE:
            out.extend(value)
        elif kind == _REQUIRED or (value is not None and not isinstance(value, MaybeSentinel)):
            out.append(value)
    return out


_children_property = property(children, doc=libcst_children.__doc__)


def install() -> None:
    """Make :meth:`CSTNode.visit` use this traversal for :class:`~libcst.CSTVisitor`
    visitors, and ``CSTNode.children`` read the same plans (idempotent)."""
    if CSTNode.visit is not fast_visit:
        CSTNode.visit = fast_visit  # type: ignore[method-assign]
    if CSTNode.__dict__["children"] is not _children_property:
        CSTNode.children = _children_property  # type: ignore[method-assign]
