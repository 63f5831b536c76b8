"""Canonical fingerprints of values (:func:`fingerprint`) and type names (:func:`type_name`).
Standard library only (see ``codemorph/sandbox/_worker.py``).
"""

import builtins
import collections
import types as _types

from .common import MODULE_NAME, json_dumps, sha256_new


_BUILTIN_TAGS = {
    int: "int", bool: "bool", float: "float", complex: "complex", str: "str", bytes: "bytes",
    bytearray: "bytearray", list: "list", tuple: "tuple", dict: "dict", set: "set",
    frozenset: "frozenset", type(None): "NoneType", range: "range", slice: "slice",
    type(Ellipsis): "ellipsis", type(NotImplemented): "NotImplementedType", object: "object",
    type: "type", memoryview: "memoryview",
}

_ORIGINAL_BUILTINS = dict(builtins.__dict__)

_FUNCTION_TYPES = (_types.FunctionType, _types.BuiltinFunctionType, _types.MethodType,
                   _types.BuiltinMethodType, _types.MethodWrapperType, _types.WrapperDescriptorType,
                   _types.MethodDescriptorType, _types.ClassMethodDescriptorType)


def type_name(t):
    """Exact name of a type: builtins by bare name (``"int"``), others as
    ``module.qualname`` (a class defined by a program is ``"builtins.Foo"``)."""
    tag = _BUILTIN_TAGS.get(t)
    if tag is not None:
        return tag
    try:
        mod = type.__getattribute__(t, "__module__")
    except Exception:
        mod = "?"
    try:
        qn = type.__getattribute__(t, "__qualname__")
    except Exception:
        qn = getattr(t, "__name__", "?")
    if mod == MODULE_NAME:
        mod = "builtins"  # the program's module (named so since it has a __name__; stable names)
    if mod == "builtins" and _ORIGINAL_BUILTINS.get(qn) is t:
        return qn  # e.g. "ValueError"; a program's own class ValueError is "builtins.ValueError"
    return f"{mod}.{qn}"


def _canon(enc):
    return json_dumps(enc, ensure_ascii=False, separators=(",", ":"))


def _digest(enc):
    return sha256_new(_canon(enc).encode("utf-8", "surrogatepass")).hexdigest()


def _float_text(x):
    x = float.__float__(x) if type(x) is not float else x
    if x != x:
        return "nan"
    if x == 0.0:
        return "0.0"
    return float.__repr__(x)


_FAST_INT = 10 ** 18
_FAST_CONTAINERS = frozenset({list, tuple, dict, set, frozenset})


class TooLarge(Exception):
    """The value has more nodes than the fingerprint budget allows."""


class _Fingerprinter:
    """Canonical JSON-able encoding of a value (see :func:`fingerprint`)."""

    def __init__(self, max_nodes=2_000_000, compress_at=2000, compress_height=48, str_max=1024):
        self.max_nodes = max_nodes
        self.compress_at = compress_at
        self.compress_height = compress_height
        self.str_max = str_max
        self.nodes = 0
        self.path = {}

    def enc(self, x):
        return self._fp(x, 0)[0]

    def _scalar_str(self, tag, s):
        if len(s) <= self.str_max:
            return [tag, s]
        return [tag + "#", len(s), sha256_new(s.encode("utf-8", "surrogatepass")).hexdigest()]

    def _fp(self, x, depth):
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise TooLarge()
        t = type(x)
        # fast paths for exact builtin types (the common case)
        if t is str:
            if len(x) <= self.str_max:
                return ["str", x], 1, 1
        elif t is int:
            if -_FAST_INT < x < _FAST_INT:
                return ["int", int.__repr__(x)], 1, 1
        elif t is list or t is tuple:
            # _container_entry and _container of an exact list or tuple, inline
            path = self.path
            key = id(x)
            seen = path.get(key)
            if seen is not None:
                return ["cycle", depth - seen], 1, 1
            path[key] = depth
            try:
                enc, size, height = self._children(list(x), depth)
            finally:
                del path[key]
            tag = "list" if t is list else "tuple"
            enc = [tag, enc]
            if size > self.compress_at or height > self.compress_height:
                return ["#", tag, _digest(enc)], 1, 1
            return enc, size, height
        elif t in _FAST_CONTAINERS:
            return self._container_entry(x, t, _BUILTIN_TAGS[t], depth)
        tag = _BUILTIN_TAGS.get(t)
        if tag is None:
            tag = type_name(t)
        # scalars
        if x is None:
            return ["NoneType", None], 1, 1
        if isinstance(x, bool):
            return [tag, "True" if x else "False"], 1, 1
        if isinstance(x, int):
            n = int.__index__(x)
            if n.bit_length() <= 12000:
                return [tag, int.__repr__(n)], 1, 1
            h = hex(n)
            if len(h) <= self.str_max:
                return [tag, h], 1, 1
            return [tag + "#", n.bit_length(), sha256_new(h.encode()).hexdigest()], 1, 1
        if isinstance(x, float):
            return [tag, _float_text(x)], 1, 1
        if isinstance(x, complex):
            return [tag, [_float_text(x.real), _float_text(x.imag)]], 1, 1
        if isinstance(x, str):
            return self._scalar_str(tag, str.__str__(x)), 1, 1
        if isinstance(x, (bytes, bytearray)):
            return self._scalar_str(tag, bytes(x).hex()), 1, 1
        if isinstance(x, type):
            return ["type", type_name(x)], 1, 1
        if isinstance(x, _FUNCTION_TYPES):
            return ["function", str(getattr(x, "__qualname__", getattr(x, "__name__", "?")))], 1, 1
        if isinstance(x, _types.ModuleType):
            return ["module", str(getattr(x, "__name__", "?"))], 1, 1
        if x is Ellipsis or x is NotImplemented:
            return [tag, None], 1, 1
        if isinstance(x, range):
            return [tag, [str(x.start), str(x.stop), str(x.step)]], 1, 1
        return self._container_entry(x, t, tag, depth)

    def _container_entry(self, x, t, tag, depth):
        # containers and objects: cycle detection on the current path
        key = id(x)
        seen = self.path.get(key)
        if seen is not None:
            return ["cycle", depth - seen], 1, 1
        self.path[key] = depth
        try:
            enc, size, height = self._container(x, t, tag, depth)
        finally:
            del self.path[key]
        if size > self.compress_at or height > self.compress_height:
            # Merkle-style summary: a deterministic function of the subtree's encoding,
            # which keeps fingerprints small and at most ~compress_height levels deep
            return ["#", tag, _digest(enc)], 1, 1
        return enc, size, height

    def _children(self, items, depth):
        # the leaves of _fp's fast paths (short str, small int) inline: most items are
        # such leaves, and a call per item is most of the cost; nodes are counted as _fp does
        out, size, height = [], 1, 0
        append = out.append
        str_max, max_nodes, fp = self.str_max, self.max_nodes, self._fp
        for item in items:
            t = type(item)
            if t is str and len(item) <= str_max or t is int and -_FAST_INT < item < _FAST_INT:
                self.nodes += 1
                if self.nodes > max_nodes:
                    raise TooLarge()
                append(["str", item] if t is str else ["int", int.__repr__(item)])
                size += 1
                if not height:
                    height = 1
                continue
            e, s, h = fp(item, depth + 1)
            append(e)
            size += s
            if h > height:
                height = h
        return out, size, height + 1

    def _pairs(self, items, depth):
        out, size, height = [], 1, 0
        append = out.append
        str_max, max_nodes, fp = self.str_max, self.max_nodes, self._fp
        for k, v in items:
            t = type(k)
            if t is str and len(k) <= str_max or t is int and -_FAST_INT < k < _FAST_INT:
                self.nodes += 1
                if self.nodes > max_nodes:
                    raise TooLarge()
                ke, ks, kh = ["str", k] if t is str else ["int", int.__repr__(k)], 1, 1
            else:
                ke, ks, kh = fp(k, depth + 1)
            t = type(v)
            if t is str and len(v) <= str_max or t is int and -_FAST_INT < v < _FAST_INT:
                self.nodes += 1
                if self.nodes > max_nodes:
                    raise TooLarge()
                ve, vs, vh = ["str", v] if t is str else ["int", int.__repr__(v)], 1, 1
            else:
                ve, vs, vh = fp(v, depth + 1)
            append([ke, ve])
            size += ks + vs
            if kh > height:
                height = kh
            if vh > height:
                height = vh
        return out, size, height + 1

    def _extra_state(self, x, depth):
        try:
            d = object.__getattribute__(x, "__dict__")
        except Exception:
            return None, 0, 0
        if not isinstance(d, dict) or not d:
            return None, 0, 0
        return self._pairs(list(dict.items(d)), depth)

    def _container(self, x, t, tag, depth):
        if t is list or t is tuple:  # the common case first: an exact list or tuple
            enc, size, height = self._children(list(x), depth)
            return [tag, enc], size, height
        if t is dict:
            enc, size, height = self._pairs(list(dict.items(x)), depth)
            return [tag, enc], size, height
        if isinstance(x, (list, tuple)):
            items = list.__iter__(x) if isinstance(x, list) else tuple.__iter__(x)
            enc, size, height = self._children(list(items), depth)
            result = [tag, enc]
        elif isinstance(x, dict):
            enc, size, height = self._pairs(list(dict.items(x)), depth)
            result = [tag, enc]
            if isinstance(x, collections.defaultdict):
                f = x.default_factory
                result.append(None if f is None else self._fp(f, depth + 1)[0])
        elif isinstance(x, (set, frozenset)):
            enc, size, height = self._children(
                list(set.__iter__(x) if isinstance(x, set) else frozenset.__iter__(x)), depth)
            enc.sort(key=_canon)
            result = [tag, enc]
        elif isinstance(x, collections.deque):
            enc, size, height = self._children(list(x), depth)
            result = [tag, enc, x.maxlen]
        elif isinstance(x, slice):
            enc, size, height = self._children([x.start, x.stop, x.step], depth)
            result = [tag, enc]
        elif isinstance(x, BaseException):
            enc, size, height = self._fp(x.args, depth + 1)
            return ["exception", tag, enc], size + 1, height + 1
        else:
            state, size, height = self._object_state(x, t, depth)
            return ["object", tag, state], size + 1, height + 1
        if t not in _BUILTIN_TAGS:
            extra, esize, eheight = self._extra_state(x, depth)
            if extra is not None:
                result.append(["dict", extra])
                size += esize
                height = max(height, eheight)
        return result, size, height

    def _object_state(self, x, t, depth):
        size = height = 0
        parts = []
        d, ds, dh = self._extra_state(x, depth)
        if d is not None:
            parts.append(["dict", d])
            size += ds
            height = dh
        slots = []
        for klass in getattr(t, "__mro__", ()):
            s = klass.__dict__.get("__slots__") if isinstance(getattr(klass, "__dict__", None),
                                                               _types.MappingProxyType) else None
            if isinstance(s, str):
                s = (s,)
            for name in s or ():
                if name in ("__dict__", "__weakref__"):
                    continue
                try:
                    v = object.__getattribute__(x, name)
                except AttributeError:
                    continue
                e, vs, vh = self._fp(v, depth + 1)
                slots.append([name, e])
                size += vs
                height = max(height, vh + 1)
        if slots:
            parts.append(["slots", slots])
        return (parts or None), size, height + 1


def fingerprint(x):
    """Canonical JSON-able encoding of ``x``: two values get equal fingerprints exactly when
    they are equal *and* of the same types (what differential testing compares).

    Every node is tagged with its exact type name (builtins bare, others
    ``module.qualname``; a class defined by a program is ``builtins.Name``):

    * ``["NoneType", None]``, ``["bool", "True"]`` (distinct from ``["int", "1"]``),
      ``["int", "5"]`` (decimal text; hex beyond ~3600 digits), ``["float", "1.5"]`` with
      ``"nan"`` for every NaN and ``"0.0"`` for both zeros (as ``==``),
      ``["complex", [re, im]]``, ``["str", s]``, ``["bytes", hex]``;
    * ``["list"|"tuple", [items]]``; ``["dict", [[k, v], ...]]`` in insertion order (order
      matters: it shows in the ``repr`` a benchmark row records); ``["set"|"frozenset",
      [items]]`` sorted by their canonical JSON (order ignored); defaultdict/deque add their
      factory / maxlen; subclasses of builtin containers add ``["dict", attributes]``;
    * ``["type", name]``, ``["function", qualname]``, ``["module", name]``,
      ``["exception", type, args]``, ``["object", type, [["dict", attributes],
      ["slots", [[name, value], ...]]] or None]`` -- never an ``id()``-based ``repr``;
    * ``["cycle", k]`` for a reference to the container ``k`` levels up;
    * strings/bytes/ints longer than 1024 characters become ``[tag + "#", length,
      sha256]``, and a container whose encoding has more than 2000 nodes or is more than 48
      levels deep becomes ``["#", tag, sha256 of its canonical JSON]`` (Merkle-style: still
      a deterministic function of the value, so equality is kept);
    * more than 2 million nodes visited: ``["too-large", type]``, which the host treats
      as not comparable.
    """
    try:
        return _plain(x, [_PLAIN_NODES], 0)
    except _NotPlain:
        pass
    fp = _Fingerprinter()
    try:
        return fp.enc(x)
    except TooLarge:
        return ["too-large", type_name(type(x))]


class _NotPlain(Exception):
    """:func:`_plain` cannot encode the value (:func:`fingerprint` then takes the general path)."""


#: nodes and levels of a value :func:`_plain` encodes at most: within them no container
#: reaches the general path's compression thresholds (more than 2,000 nodes in a subtree, or
#: more than 48 levels), so no subtree is summarized and the encoding is the general one
_PLAIN_NODES = 2000
_PLAIN_DEPTH = 40


def _plain(x, budget, depth):
    """The fingerprint of ``x`` as :class:`_Fingerprinter` encodes it, when ``x`` is a str,
    int, bool, ``None`` or float, or an exact list, tuple, dict, set or frozenset of such
    values, with at most :data:`_PLAIN_NODES` nodes and :data:`_PLAIN_DEPTH` levels (a
    cyclic value is deeper); raises :class:`_NotPlain` otherwise.  The common results and
    argument lists of benchmark programs are such values: one call per container, no
    ``(encoding, size, height)`` tuples, no cycle bookkeeping, and no code of the program
    runs (exact builtin types only)."""
    budget[0] -= 1
    if budget[0] < 0 or depth > _PLAIN_DEPTH:
        raise _NotPlain()
    t = type(x)
    if t is str:
        if len(x) <= 1024:
            return ["str", x]
        return ["str#", len(x), sha256_new(x.encode("utf-8", "surrogatepass")).hexdigest()]
    if t is int:
        if -_FAST_INT < x < _FAST_INT:
            return ["int", int.__repr__(x)]
        raise _NotPlain()
    if t is list or t is tuple or t is set or t is frozenset:
        if len(x) > budget[0]:  # more items than nodes left: not walked (a huge list costs nothing here)
            raise _NotPlain()
        out = []
        append = out.append
        depth += 1
        for item in x:
            ti = type(item)
            if ti is str and len(item) <= 1024:
                budget[0] -= 1
                append(["str", item])
            elif ti is int and -_FAST_INT < item < _FAST_INT:
                budget[0] -= 1
                append(["int", int.__repr__(item)])
            else:
                append(_plain(item, budget, depth))
        if budget[0] < 0:
            raise _NotPlain()
        if t is list:
            return ["list", out]
        if t is tuple:
            return ["tuple", out]
        out.sort(key=_canon)
        return ["set" if t is set else "frozenset", out]
    if t is dict:
        if 2 * len(x) > budget[0]:
            raise _NotPlain()
        out = []
        append = out.append
        depth += 1
        for k, v in dict.items(x):
            append([_plain(k, budget, depth), _plain(v, budget, depth)])
        return ["dict", out]
    if x is None:
        return ["NoneType", None]
    if t is bool:
        return ["bool", "True" if x else "False"]
    if t is float:
        return ["float", _float_text(x)]
    raise _NotPlain()
