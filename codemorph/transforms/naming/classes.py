"""``rename-classes``: classes whose instances provably never reach the output.
"""

from __future__ import annotations

from typing import Mapping

import libcst as cst
from libcst.metadata import ClassScope

from codemorph.engine import NotApplicable, RewriteContext
from codemorph.transforms.naming.survey import is_dunder, names_in, resolve_binding
from codemorph.transforms.naming.scopes import Analysis
from codemorph.transforms.naming.definitions import (
    CLASS_OBSERVERS, Confinement, DefRenamer, NAME_OBSERVERS, is_generator, names_of_inputs,
)

__all__ = ["RenameClasses"]


class RenameClasses(DefRenamer):
    """Rename classes (``class`` statements at module level or in functions) and every use.

    Options:
        scheme (str): ``"random"`` (default; ``TokenStore``), ``"obfuscated"`` (``C0``,
            ``C1``, ...), ``"natural"`` (synonyms, CamelCase kept) or ``"misleading"``
            (unrelated class names, and exchanges between sibling classes).
        mapping (dict[str, str]): rename exactly these classes, old -> new.
        module_names (str): which module-level classes may be renamed: ``"all"``,
            ``"private"`` (leading underscore) or ``"none"``.  Default: ``"all"`` under the
            harness contract (``generate``), ``"none"`` otherwise (``codemorph apply
            FILE``: importers use the module's classes by name), so there only classes
            defined in functions are renamed.

    A class's name shows in the default ``repr``/``str`` of its instances
    (``<__main__.C object at ...>``), in ``type(x)``, in error messages and in the type
    fingerprint verification compares, so a class is renamed only when none of its
    instances, nor the class object, can reach the output, stdout or an exception
    message.  Conservatively, every one of these must hold:

    * the class has no decorator, no keyword (metaclass) and no base but ``object``, is
      not used as a base, and its body holds only methods (undecorated, or
      ``@staticmethod``/``@property``; not async, not generators; no escaping lambda or
      nested function), a docstring, ``pass`` and attributes bound to constants;
    * in every method, ``self`` (the first parameter) is used only as ``self.attr`` with a
      non-dunder ``attr`` (methods called at once), and ``super`` is not used;
    * every use of the class name is: an instantiation whose result is discarded,
      accessed at once (``C(...).attr``) or bound to a variable used only as
      ``v.attr``; ``isinstance``/``issubclass``; an annotation; ``C.attr`` (methods called
      at once); ``del``;
    * the name appears in no string, no ``global``/``nonlocal`` statement and no harness
      input, and no identifier spells its mangled prefix ``_C__``.

    Refused as a whole: introspection, ``eval``/``exec``/``globals``/``locals``/
    ``vars()``/``dir()``, reads of ``__name__``/``__qualname__``/``__class__``/
    ``__mro__``/``__bases__``/``mro`` (:data:`CLASS_OBSERVERS`), pickling and logging,
    and any inspected caught exception (``AttributeError`` and many others quote class
    names).

    Every rewrite is re-checked with :func:`check_renaming`.
    """

    name = "rename-classes"
    description = "Rename classes whose instances never reach output (repr shows the class name)."
    preconditions = (
        "no introspection, eval/exec/globals/locals, pickling or __name__/__class__ reads",
        "no inspected caught exception",
        "class has no bases, decorators or metaclass; self used only as self.attr",
        "instances used only through attributes (never printed, returned or passed)",
    )
    node_type = cst.ClassDef
    kind = "class"
    observers = NAME_OBSERVERS | CLASS_OBSERVERS

    def _rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        an = Analysis(module, ctx)
        if not an.survey.classes:
            raise NotApplicable("no class in the program")
        why = self._program_problem(an)
        if why is not None:
            raise NotApplicable(why + "; left unchanged")
        if an.survey.any_exception_objects or an.survey.exception_objects:
            first = (an.survey.any_exception_objects or an.survey.exception_objects)[0]
            raise NotApplicable(f"the program inspects caught exceptions ({first}), whose messages may quote "
                                f"class names; left unchanged")
        conf = Confinement(an)
        input_names = names_of_inputs(ctx.inputs)
        scheme = self._make_scheme(ctx)
        words = set(an.survey.all_names) | an.survey.string_words

        def problem(sc, name: str, asgs: list, defs: list) -> str | None:
            why = self._api_problem(an, sc, name) or self._common_problem(an, sc, name, asgs, defs, input_names)
            if why is not None:
                return why
            if len(defs) != 1:
                return f"class {name} is defined more than once"
            if any(f"_{name}__" in w for w in words):
                return f"class {name}: an identifier spells its mangled prefix _{name}__"
            cd = defs[0]
            why = self._class_body_problem(an, conf, cd)
            if why is not None:
                return why
            methods = _methods(cd)
            for use in an.uses.get((id(sc), name), []):
                why = self._class_use_problem(an, conf, use, methods)
                if why is not None:
                    return f"class {name}: {why}"
            return None

        bindings, skipped = self._collect(an, ctx, scheme, problem)
        if not bindings:
            default = "no class can be renamed"
            if self.mapping is not None:
                default = f"no renameable class is named {', '.join(sorted(self.mapping))}"
            raise self._nothing(skipped, default)
        new_value, back, _chosen = self._choose(an, bindings, scheme, set())
        return self._finish(module, new_value, back)

    # -- the class itself ----------------------------------------------------------
    def _class_body_problem(self, an: Analysis, conf: Confinement, cd: cst.ClassDef) -> str | None:
        name = cd.name.value
        if cd.decorators:
            return f"class {name} is decorated (e.g. a dataclass repr shows the class name)"
        if cd.keywords:
            return f"class {name} has a metaclass or class keywords"
        for base in cd.bases:
            if not (isinstance(base.value, cst.Name) and base.value.value == "object" and not base.star
                    and not an.shadowed("object")):
                return f"class {name} has a base other than object (inherited code may show the class name)"
        body = cd.body.body if isinstance(cd.body, cst.IndentedBlock) else [cd.body]
        methods = _methods(cd)
        if "super" in {n.value for n in names_in(cd.body)}:
            return f"class {name} uses super() (object's methods show the class name)"
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                why = self._method_problem(an, conf, name, stmt, methods)
                if why is not None:
                    return why
                continue
            smalls = stmt.body if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else None
            if smalls is None:
                return f"class {name}: its body holds a {type(stmt).__name__} statement"
            for small in smalls:
                if isinstance(small, cst.Pass):
                    continue
                if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                    continue
                if isinstance(small, cst.Assign) and all(isinstance(t.target, cst.Name) for t in small.targets) \
                        and _is_constant(small.value):
                    continue
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                        and (small.value is None or _is_constant(small.value)):
                    continue
                return f"class {name}: its body holds {type(small).__name__} other than constants and methods"
        return None

    def _method_problem(self, an: Analysis, conf: Confinement, cname: str, fn: cst.FunctionDef,
                        methods: Mapping[str, str]) -> str | None:
        where = f"{cname}.{fn.name.value}"
        kinds = []
        for d in fn.decorators:
            if not (isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "property")
                    and not an.shadowed(d.decorator.value)):
                return f"{where} has a decorator other than @staticmethod/@property"
            kinds.append(d.decorator.value)
        if fn.asynchronous is not None or is_generator(fn):
            return f"{where} is async or a generator (its objects carry the class name in __qualname__)"
        why = conf.nested_escape(fn, where)
        if why is not None:
            return why
        if "staticmethod" in kinds:
            return None
        ps = fn.params
        positional = [*ps.posonly_params, *ps.params]
        if not positional:
            if isinstance(ps.star_arg, cst.Param):
                return f"{where} receives the instance in *{ps.star_arg.name.value}"
            return None
        selfp = positional[0].name
        if selfp.value in an.survey.decl_names or selfp.value in an.survey.forbidden_anywhere:
            return f"{where}: {selfp.value} is named in a global/nonlocal/match/f-string"
        sc = an.scope_of_node.get(fn)
        if sc is None:
            return f"{where}: its scope is unknown"
        for use in an.uses.get((id(sc), selfp.value), []):
            why = self._attribute_only(an, use, methods)
            if why is not None:
                return f"{where}: {selfp.value} {why}"
        return None

    # -- uses of instances and of the class ------------------------------------------
    @staticmethod
    def _attribute_only(an: Analysis, use: cst.Name, methods: Mapping[str, str]) -> str | None:
        """``None`` when ``use`` (an instance) is the object of a safe attribute access."""
        parent = an.parents.get(use)
        if isinstance(parent, cst.Arg) and parent.value is use and not parent.star and parent.keyword is None:
            call = an.parents.get(parent)
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "isinstance" \
                    and not an.shadowed("isinstance") and len(call.args) == 2 and call.args[0] is parent:
                return None  # isinstance(v, ...) gives a bool
        if not (isinstance(parent, cst.Attribute) and parent.value is use):
            return f"is used other than as .attr (line {an.pos(use)[0]}), so the instance could be shown"
        return _RenameClassesAttr.check(an, parent, methods)

    def _class_use_problem(self, an: Analysis, conf: Confinement, use: cst.Name,
                           methods: Mapping[str, str]) -> str | None:
        parent = an.parents.get(use)
        line = an.pos(use)[0]
        if isinstance(parent, cst.Call) and parent.func is use:
            holder = an.parents.get(parent)
            if isinstance(holder, cst.Expr) and holder.value is parent:
                return None  # instance discarded
            if isinstance(holder, cst.Attribute) and holder.value is parent:
                return _RenameClassesAttr.check(an, holder, methods)
            target = None
            if isinstance(holder, cst.Assign) and holder.value is parent and len(holder.targets) == 1:
                target = holder.targets[0].target
            elif isinstance(holder, cst.AnnAssign) and holder.value is parent:
                target = holder.target
            if isinstance(target, cst.Name):
                return self._instance_variable_problem(an, target, methods)
            return f"an instance is created where it may escape (line {line})"
        if isinstance(parent, cst.Del):
            return None
        if _in_annotation(an, use):
            return None
        if isinstance(parent, cst.Arg) and parent.value is use and _is_type_check_arg(an, parent):
            return None
        if isinstance(parent, cst.Element) and parent.value is use:
            tup = an.parents.get(parent)
            arg = an.parents.get(tup) if isinstance(tup, cst.Tuple) else None
            if isinstance(arg, cst.Arg) and arg.value is tup and _is_type_check_arg(an, arg):
                return None
        if isinstance(parent, cst.Attribute) and parent.value is use:
            if parent.attr.value == "mro":
                return f"reads .mro (line {line})"
            return _RenameClassesAttr.check(an, parent, methods, on_class=True)
        return f"the class object is used as a value (line {line}), so its name could be shown"

    def _instance_variable_problem(self, an: Analysis, target: cst.Name, methods: Mapping[str, str]) -> str | None:
        v = target.value
        line = an.pos(target)[0]
        if is_dunder(v) or v in an.survey.decl_names or v in an.unscoped or v in an.survey.forbidden_anywhere:
            return f"an instance is bound to {v} (line {line}), which is reached other than by its scope"
        sc = an.scopes.get(target)
        owner = resolve_binding(sc, v, an.binds) if sc is not None else None
        if owner is None or isinstance(owner, ClassScope):
            return f"an instance is bound to {v} (line {line}), a class attribute or unresolved name"
        for use in an.uses.get((id(owner), v), []):
            parent = an.parents.get(use)
            if use is target or isinstance(parent, cst.Del):
                continue
            if isinstance(parent, cst.AssignTarget) and parent.target is use:
                continue
            if isinstance(parent, cst.AnnAssign) and parent.target is use:
                continue
            if isinstance(parent, cst.For) and parent.target is use:
                continue
            why = self._attribute_only(an, use, methods)
            if why is not None:
                return f"instance variable {v} {why}"
        return None


class _RenameClassesAttr:
    @staticmethod
    def check(an: Analysis, attr: cst.Attribute, methods: Mapping[str, str], on_class: bool = False) -> str | None:
        """An attribute of an instance (or of the class) is safe when it is no dunder and a
        method attribute is called at once (a bound method's repr shows the class)."""
        name = attr.attr.value
        line = an.pos(attr)[0]
        if name.startswith("__") and name.endswith("__"):
            return f"reads the special attribute .{name} (line {line})"
        kind = methods.get(name)
        if kind is not None and (kind != "property" or on_class):
            holder = an.parents.get(attr)
            if not (isinstance(holder, cst.Call) and holder.func is attr):
                return f"takes the method .{name} as a value (line {line})"
        return None


def _methods(cd: cst.ClassDef) -> dict[str, str]:
    """Defs in a class body: name -> ``"method"``, ``"staticmethod"`` or ``"property"``."""
    out: dict[str, str] = {}
    body = cd.body.body if isinstance(cd.body, cst.IndentedBlock) else []
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef):
            kinds = [d.decorator.value for d in stmt.decorators if isinstance(d.decorator, cst.Name)]
            out[stmt.name.value] = "property" if "property" in kinds else (
                "staticmethod" if "staticmethod" in kinds else "method")
    return out


def _is_constant(node: cst.BaseExpression) -> bool:
    """Literals only: numbers, strings, True/False/None, and tuples/lists/sets/dicts of them."""
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
        return True
    if isinstance(node, cst.ConcatenatedString):
        return _is_constant(node.left) and _is_constant(node.right)
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return _is_constant(node.expression)
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return all(isinstance(e, cst.Element) and _is_constant(e.value) for e in node.elements)
    if isinstance(node, cst.Dict):
        return all(isinstance(e, cst.DictElement) and _is_constant(e.key) and _is_constant(e.value)
                   for e in node.elements)
    return False


def _in_annotation(an: Analysis, node: cst.CSTNode) -> bool:
    cur = an.parents.get(node)
    while cur is not None and not isinstance(cur, (cst.BaseStatement, cst.BaseSmallStatement)):
        if isinstance(cur, cst.Annotation):
            return True
        cur = an.parents.get(cur)
    return False


def _is_type_check_arg(an: Analysis, arg: cst.Arg) -> bool:
    """``arg`` is the second positional argument of the builtin ``isinstance``/``issubclass``."""
    call = an.parents.get(arg)
    return (isinstance(call, cst.Call) and isinstance(call.func, cst.Name)
            and call.func.value in ("isinstance", "issubclass") and not an.shadowed(call.func.value)
            and len(call.args) == 2 and call.args[1] is arg and arg.keyword is None and not arg.star)
