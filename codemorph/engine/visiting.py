"""libcst traversals that do not rebuild what they do not change.

libcst's :meth:`CSTNode.visit` rebuilds every node it passes, even for a
:class:`~libcst.CSTVisitor`, whose result is the tree it was given: each node's
``_visit_and_replace_children`` constructs a copy (a frozen dataclass, validated) from its
visited children, and the copy is thrown away.  codemorph makes some twenty read-only
passes over every program (its own visitors and libcst's metadata providers), and that
construction was most of their cost.

:func:`install` makes :meth:`CSTNode.visit` walk the tree without copying when the visitor
is a :class:`~libcst.CSTVisitor`.  The visitor sees exactly the calls libcst's traversal
makes, in the same order -- ``on_visit``, then for each child field in libcst's visiting
order ``on_visit_attribute``, the children, ``on_leave_attribute``, then ``on_leave`` --
and the result is the node itself, as with libcst.  The visiting order of each node class
is read from libcst's own ``_visit_and_replace_children`` (its keyword arguments are the
child fields in the order they are visited); a class whose method is not that plain form,
or whose source cannot be read, is visited by libcst's method (whose children come back
here).  Hooks that libcst marks as no-ops (``mark_no_op``) and attribute hooks a visitor
does not define are skipped, as calling them would do nothing.  A visitor class's hooks
are looked up once, at its first traversal, and kept on the class (libcst looks them up by
name at every call: a hook patched onto a class after it has visited a tree is not seen).
``CSTNode.children`` is read from the same plans.

A :class:`~libcst.CSTTransformer` gets libcst's own traversal, unless its class sets
``reuse_unchanged_nodes = True`` (:data:`REUSE_UNCHANGED`): then it gets the same calls
and the same resulting tree, but a node none of whose children changed is not rebuilt
(``updated_node`` is ``original_node`` itself, where libcst passes an equal copy), so a
transformer may set it only when it never relies on ``updated_node`` being a new object.

Performance only: tests/engine/test_visiting.py compares the calls recording visitors and
transformers receive from both traversals, and the resulting trees and metadata.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import operator
import textwrap
import types
from typing import Any, Callable

import libcst as cst
from libcst import CSTNode, CSTTransformer, CSTValidationError, CSTVisitor, FlattenSentinel, MaybeSentinel, RemovalSentinel
from libcst._nodes import internal as _internal

try:  # libcst's visitor of a batched metadata pass (private: absent in another version, it is a custom visitor)
    from libcst._batched_visitor import _BatchedCSTVisitor
except ImportError:  # pragma: no cover
    _BatchedCSTVisitor = None

__all__ = ["install", "fast_visit", "REUSE_UNCHANGED", "children", "visit_plan", "libcst_visit", "libcst_children"]

#: libcst's own ``CSTNode.visit`` (kept for transformers and for comparison in tests)
libcst_visit: Callable[[CSTNode, Any], Any] = CSTNode.visit

# field kinds of a visit plan
_REQUIRED, _OPTIONAL, _SEQUENCE = 0, 1, 2
_HELPERS = {"visit_required": _REQUIRED, "visit_optional": _OPTIONAL, "visit_sentinel": _OPTIONAL,
            "visit_sequence": _SEQUENCE, "visit_body_sequence": _SEQUENCE, "visit_iterable": _SEQUENCE,
            "visit_body_iterable": _SEQUENCE}

#: libcst's helpers a rebuild plan may name (each visits one field of a node and returns its new value)
_REBUILD_HELPERS = frozenset(h for h in (getattr(_internal, n, None) for n in (
    "visit_required", "visit_optional", "visit_sentinel", "visit_sequence", "visit_body_sequence")) if h is not None)

_VISIT_REQUIRED = getattr(_internal, "visit_required", None)
_VISIT_OPTIONAL = getattr(_internal, "visit_optional", None)
_VISIT_SENTINEL = getattr(_internal, "visit_sentinel", None)
_VISIT_SEQUENCE = getattr(_internal, "visit_sequence", None)

_plans: dict[type, tuple[tuple[str, int], ...] | None] = {}
# per class, for transformers that reuse unchanged nodes: the visited fields with libcst's
# helper that visits each, when libcst's method rebuilds the class from exactly its fields
_rebuild_plans: dict[type, tuple[tuple[str, Callable[..., Any]], ...] | None] = {}


def _read_plan(cls: type) -> tuple[tuple[str, int], ...] | None:
    plan, rebuild = _read_plans(cls)
    _rebuild_plans[cls] = rebuild
    return plan


def _read_plans(cls: type) -> tuple[tuple[tuple[str, int], ...] | None, tuple | None]:
    """(:func:`visit_plan`, the rebuild plan) of ``cls``."""
    owner = next((k for k in cls.__mro__ if "_visit_and_replace_children" in k.__dict__), None)
    if owner is None or owner is CSTNode:
        return None, None
    try:
        source = textwrap.dedent(inspect.getsource(owner.__dict__["_visit_and_replace_children"]))
        fn = ast.parse(source).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None, None
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not isinstance(fn, ast.FunctionDef) or len(fn.args.args) != 2:
        return None, None
    self_name, visitor_name = fn.args.args[0].arg, fn.args.args[1].arg
    if len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Name) \
            and body[0].value.id == self_name:
        return (), ()  # a leaf: ``return self``
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call) \
            or body[0].value.args:
        return None, None
    call = body[0].value
    plan, rebuild, copied = [], [], []
    for kw in call.keywords:
        v = kw.value
        if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == self_name \
                and v.attr == kw.arg:
            copied.append(kw.arg)  # a field copied as it is (a string, a flag): not visited
            continue
        if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in _HELPERS
                and len(v.args) == 4 and not v.keywords):
            return None, None
        parent, name, value, visitor = v.args
        if not (isinstance(parent, ast.Name) and parent.id == self_name and isinstance(name, ast.Constant)
                and name.value == kw.arg and isinstance(value, ast.Attribute) and value.attr == kw.arg
                and isinstance(value.value, ast.Name) and value.value.id == self_name
                and isinstance(visitor, ast.Name) and visitor.id == visitor_name):
            return None, None
        plan.append((kw.arg, _HELPERS[v.func.id]))
        rebuild.append((kw.arg, getattr(_internal, v.func.id, None)))
    init_fields = {f.name for f in dataclasses.fields(cls) if f.init} if dataclasses.is_dataclass(cls) else None
    # the node is rebuilt as ``ClassName(...)`` by its own class's method, or ``self.__class__(...)``
    own_class = (owner is cls and isinstance(call.func, ast.Name) and call.func.id == cls.__name__) or (
        isinstance(call.func, ast.Attribute) and call.func.attr == "__class__"
        and isinstance(call.func.value, ast.Name) and call.func.value.id == self_name)
    complete = (own_class
                and init_fields == {kw.arg for kw in call.keywords} and len(call.keywords) == len(init_fields)
                and all(h in _REBUILD_HELPERS for _, h in rebuild))
    return tuple(plan), (tuple(rebuild) if complete else None)


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
#: the only member of libcst's ``MaybeSentinel`` (an optional field's "absent" value)
_DEFAULT = MaybeSentinel.DEFAULT


class _Dispatch:
    """Per visitor class: the hook functions (unbound) of each node class, ``None`` where
    libcst's default hook would do nothing.  Kept on the class itself (a visitor class
    defined inside a function is a new class at every call, and goes with its instances)."""

    __slots__ = ("visit", "leave", "table", "attributes")

    def __init__(self, vtype: type) -> None:
        self.visit: dict[type, Any] = {}
        self.leave: dict[type, Any] = {}
        #: node class -> (visit hook, visit plan or ``None``, leave hook), for :func:`_walk_default`
        self.table: dict[type, tuple[Any, Any, Any]] = {}
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
    entry = d.table.get(t)
    if entry is None:
        vtype = type(visitor)
        entry = d.table[t] = (_hook(vtype, "visit_" + t.__name__), visit_plan(t), _hook(vtype, "leave_" + t.__name__))
    fn, plan, leave = entry
    if fn is None or fn(visitor, node) is not False:
        if plan is None:
            node._visit_and_replace_children(visitor)  # its children come back through CSTNode.visit
        elif d.attributes:
            for name, kind in plan:
                value = getattr(node, name)
                visitor.on_visit_attribute(node, name)
                if kind == _SEQUENCE:
                    for child in value:
                        _walk_default(child, visitor, d)
                elif kind == _REQUIRED or (value is not None and value is not _DEFAULT):
                    _walk_default(value, visitor, d)
                visitor.on_leave_attribute(node, name)
        else:
            for name, kind in plan:
                value = getattr(node, name)
                if kind == _SEQUENCE:
                    for child in value:
                        _walk_default(child, visitor, d)
                elif kind == _REQUIRED or (value is not None and value is not _DEFAULT):
                    _walk_default(value, visitor, d)
    if leave is not None:
        leave(visitor, node)


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


def _walk_leave_custom(node: CSTNode, visitor: CSTVisitor, d: _Dispatch) -> None:
    """The traversal of a visitor that keeps :class:`CSTVisitor`'s ``on_visit`` (hooks found
    by name on its class) but has its own ``on_leave`` (as libcst's parent-node provider)."""
    t = type(node)
    fn = d.visit.get(t, _NOT_LOOKED_UP)
    if fn is _NOT_LOOKED_UP:
        fn = d.visit[t] = _hook(type(visitor), "visit_" + t.__name__)
    if fn is None or fn(visitor, node) is not False:
        plan = _plans.get(t, _NOT_LOOKED_UP)
        if plan is _NOT_LOOKED_UP:
            plan = visit_plan(t)
        if plan is None:
            node._visit_and_replace_children(visitor)
        else:
            attributes = d.attributes
            for name, kind in plan:
                value = getattr(node, name)
                if attributes:
                    visitor.on_visit_attribute(node, name)
                if kind == _SEQUENCE:
                    for child in value:
                        _walk_leave_custom(child, visitor, d)
                elif kind == _REQUIRED or (value is not None and not isinstance(value, MaybeSentinel)):
                    _walk_leave_custom(value, visitor, d)
                if attributes:
                    visitor.on_leave_attribute(node, name)
    visitor.on_leave(node)


def _walk_batched(node: CSTNode, visitor: Any, visits: dict, leaves: dict, attributes: bool) -> None:
    """The traversal of libcst's batched visitor (one pass of several metadata providers):
    its ``on_visit``/``on_leave`` -- ``before_visit``, the providers' ``visit_<Node>``
    functions; their ``leave_<Node>`` functions, ``after_leave`` -- with the functions of
    each node class looked up once per traversal (``visits``/``leaves``)."""
    t = type(node)
    before = visitor.before_visit
    if before is not None:
        before(node)
    fns = visits.get(t)
    if fns is None:
        fns = visits[t] = tuple(visitor.visitor_methods.get(f"visit_{t.__name__}", ()))
    for fn in fns:
        fn(node)
    plan = _plans.get(t, _NOT_LOOKED_UP)
    if plan is _NOT_LOOKED_UP:
        plan = visit_plan(t)
    if plan is None:
        node._visit_and_replace_children(visitor)
    else:
        for name, kind in plan:
            value = getattr(node, name)
            if attributes:
                visitor.on_visit_attribute(node, name)
            if kind == _SEQUENCE:
                for child in value:
                    _walk_batched(child, visitor, visits, leaves, attributes)
            elif kind == _REQUIRED or (value is not None and not isinstance(value, MaybeSentinel)):
                _walk_batched(value, visitor, visits, leaves, attributes)
            if attributes:
                visitor.on_leave_attribute(node, name)
    fns = leaves.get(t)
    if fns is None:
        fns = leaves[t] = tuple(visitor.visitor_methods.get(f"leave_{t.__name__}", ()))
    for fn in fns:
        fn(node)
    after = visitor.after_leave
    if after is not None:
        after(node)


def _batched_attributes(visitor: Any) -> bool:
    """For libcst's batched visitor (the metadata providers' shared pass): whether any of
    the batched visitors has an attribute hook (``visit_<Node>_<field>``); without one its
    ``on_visit_attribute``/``on_leave_attribute`` find nothing to call."""
    methods = getattr(visitor, "visitor_methods", None)
    if not isinstance(methods, dict):
        return True
    return any("_" in name.partition("_")[2] for name in methods)


_init_fields: dict[type, tuple[str, ...]] = {}


def _rebuilt(node: CSTNode, changes: dict[str, Any]) -> CSTNode:
    """A new node of ``node``'s class with ``changes`` (field -> value), the other fields
    as they are: what libcst's ``_visit_and_replace_children`` constructs."""
    t = type(node)
    names = _init_fields.get(t)
    if names is None:
        names = _init_fields[t] = tuple(f.name for f in dataclasses.fields(t) if f.init)
    kwargs = {n: getattr(node, n) for n in names}
    kwargs.update(changes)
    return t(**kwargs)


def _removal_error(node: CSTNode) -> TypeError:
    return TypeError(f"We got a RemovalSentinel while visiting a {type(node).__name__}. This "
                     + "node's parent does not allow it to be removed.")


def _flatten_error(node: CSTNode) -> TypeError:
    return TypeError(f"We got a FlattenSentinel while visiting a {type(node).__name__}. This "
                     + "node's parent does not allow for it to be it to be replaced with a "
                     + "sequence.")


def _by_type(classes: Any) -> Any:
    """``lambda x: isinstance(x, classes)``, answered once per type of ``x``: libcst's node,
    sentinel and visitor classes are ABCs, whose ``isinstance`` goes through the Python-level
    ``ABCMeta.__instancecheck__`` each time a type is not the class itself (nothing
    registers virtual subclasses of them, so the answer depends on the type alone)."""
    known: dict[type, bool] = {}

    def check(x: Any) -> bool:
        t = type(x)
        found = known.get(t)
        if found is None:
            if len(known) >= 4096:  # classes made at run time must not pile up
                known.clear()
            found = known[t] = isinstance(x, classes)
        return found

    return check


_is_flatten = _by_type(FlattenSentinel)
_is_result = _by_type((CSTNode, RemovalSentinel, FlattenSentinel))
_is_visitor = _by_type(CSTVisitor)


def _visit_field(node: CSTNode, name: str, value: Any, helper: Any, transformer: Any) -> Any:
    """What libcst's ``helper`` (``visit_required``, ``visit_optional``...) returns for the
    field ``name`` of ``node``, for a transformer without attribute hooks (children
    visited by :func:`_transform`)."""
    if helper is _VISIT_REQUIRED:
        result = _transform(value, transformer, False)
        if isinstance(result, RemovalSentinel):
            raise _removal_error(value)
        if _is_flatten(result):
            raise _flatten_error(value)
        return result
    if helper is _VISIT_OPTIONAL or helper is _VISIT_SENTINEL:
        empty = None if helper is _VISIT_OPTIONAL else MaybeSentinel.DEFAULT
        if value is None if helper is _VISIT_OPTIONAL else isinstance(value, MaybeSentinel):
            return empty
        result = _transform(value, transformer, False)
        if _is_flatten(result):
            raise _flatten_error(value)
        return empty if isinstance(result, RemovalSentinel) else result
    out = []
    if helper is _VISIT_SEQUENCE:
        for child in value:
            result = _transform(child, transformer, False)
            if _is_flatten(result):
                out.extend(result)
            elif not isinstance(result, RemovalSentinel):
                out.append(result)
        return tuple(out)
    for child in value:  # visit_body_sequence: a statement emptied by removals is dropped
        result = _transform(child, transformer, False)
        if isinstance(result, RemovalSentinel):
            continue
        if _is_flatten(result):
            for child_ in result:
                if (not child._is_removable()) and child_._is_removable():
                    continue
                out.append(child_)
        else:
            if (not child._is_removable()) and result._is_removable():
                continue
            out.append(result)
    return tuple(out)


def _transform(node: CSTNode, transformer: Any, attributes: bool | None = None) -> Any:
    """libcst's ``CSTNode.visit`` for a transformer that sets :data:`REUSE_UNCHANGED`: the
    same calls in the same order, but a node none of whose fields changed is not rebuilt
    (``updated_node`` is the node itself).  A transformer with attribute hooks has its
    fields visited by libcst's own helpers; one without, by :func:`_visit_field`."""
    if attributes is None:
        attributes = _transformer_attributes(transformer)
    if transformer.on_visit(node):
        t = type(node)
        rebuild = _rebuild_plans.get(t, _NOT_LOOKED_UP)
        if rebuild is _NOT_LOOKED_UP:
            visit_plan(t)
            rebuild = _rebuild_plans.get(t)
        if rebuild is None:
            updated = node._visit_and_replace_children(transformer)  # children come back through CSTNode.visit
        else:
            changes = None
            for name, helper in rebuild:
                value = getattr(node, name)
                if attributes:
                    new = helper(node, name, value, transformer)
                else:
                    new = _visit_field(node, name, value, helper, transformer)
                if new is not value and not (type(value) is tuple and type(new) is tuple and len(new) == len(value)
                                             and all(map(operator.is_, new, value))):
                    if changes is None:
                        changes = {}
                    changes[name] = new
            updated = node if changes is None else _rebuilt(node, changes)
    else:
        updated = node
    result = transformer.on_leave(node, updated)
    if not _is_result(result):
        raise CSTValidationError("Expected a node of type CSTNode or a RemovalSentinel, "
                                 + f"but got a return value of {type(result).__name__}")
    return result


def _transformer_attributes(transformer: Any) -> bool:
    """Whether a transformer's attribute hooks may do something (its class or instance
    defines one, or it overrides ``on_visit_attribute``/``on_leave_attribute``)."""
    vtype = type(transformer)
    own = getattr(transformer, "__dict__", None)
    if own and any(k.startswith(("visit_", "leave_")) for k in own):
        return True
    flag = vtype.__dict__.get("_codemorph_transform_attributes")
    if flag is None:
        flag = (vtype.on_visit_attribute is not CSTTransformer.on_visit_attribute
                or vtype.on_leave_attribute is not CSTTransformer.on_leave_attribute
                or any(_attribute_hook(k, n) for k in vtype.__mro__ if k not in _TRANSFORMER_STUB_CLASSES
                       for n in list(vars(k))))
        setattr(vtype, "_codemorph_transform_attributes", flag)
    return flag


#: libcst's classes of no-op transformer hook stubs
_TRANSFORMER_STUB_CLASSES = frozenset({cst.CSTTransformer, *cst.CSTTransformer.__mro__[1:]})


#: the class attribute a :class:`~libcst.CSTTransformer` sets to ``True`` to be visited by
#: :func:`_transform`: it must never rely on ``updated_node`` being another object than
#: ``original_node`` (it looks nodes up by ``original_node`` only)
REUSE_UNCHANGED = "reuse_unchanged_nodes"


def fast_visit(self: CSTNode, visitor: Any) -> Any:
    """:meth:`CSTNode.visit` as installed by :func:`install`: a :class:`~libcst.CSTVisitor`
    is walked over ``self`` without copying (returns ``self``); a transformer whose class
    sets ``reuse_unchanged_nodes = True`` gets libcst's calls without the rebuilding of
    unchanged nodes; any other visitor goes to libcst's own traversal."""
    if not _is_visitor(visitor):
        if getattr(type(visitor), REUSE_UNCHANGED, False) is True and isinstance(visitor, CSTTransformer):
            return _transform(self, visitor, _transformer_attributes(visitor))
        return libcst_visit(self, visitor)
    vtype = type(visitor)
    own = getattr(visitor, "__dict__", None)
    own_hooks = bool(own) and any(k.startswith(("visit_", "leave_")) for k in own)
    if vtype.on_visit is CSTVisitor.on_visit and vtype.on_leave is CSTVisitor.on_leave and not own_hooks:
        _walk_default(self, visitor, _dispatch_of(vtype))
    elif vtype is _BatchedCSTVisitor and isinstance(getattr(visitor, "visitor_methods", None), dict):
        _walk_batched(self, visitor, {}, {}, _batched_attributes(visitor))
    elif vtype.on_visit is CSTVisitor.on_visit and not own_hooks:
        _walk_leave_custom(self, visitor, _dispatch_of(vtype))
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
