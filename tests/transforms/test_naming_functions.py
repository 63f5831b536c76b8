"""Tests of ``rename-functions`` and ``rename-classes`` beyond the fixtures: exact small
rewrites, every refusal with its reason, options, the entry point written to the
program, and a CRUXEval sample checked in the sandbox."""

from __future__ import annotations

import pytest
from conftest import cruxeval_sample

from codemorph import Program, get_transform
from codemorph.engine.recipes import build_pipeline
from codemorph.transforms.naming import RenameClasses, RenameFunctions

HELPER = "def g(x):\n    return x + 1\n\n"


def rf(source: str, inputs=("1",), seed: int = 0, **options):
    options.setdefault("scheme", "obfuscated")
    return RenameFunctions(**options).apply(Program(source), seed, inputs=list(inputs), harness=True)


def rc(source: str, inputs=("1",), seed: int = 0, **options):
    options.setdefault("scheme", "obfuscated")
    return RenameClasses(**options).apply(Program(source), seed, inputs=list(inputs), harness=True)


# --------------------------------------------------------------------------------------
# rename-functions: rewrites
# --------------------------------------------------------------------------------------

def test_helper_and_calls_are_renamed_entry_point_kept() -> None:
    result = rf(HELPER + "def f(a):\n    return g(g(a))\n")
    assert result.source == "def fn0(x):\n    return x + 1\n\ndef f(a):\n    return fn0(fn0(a))\n"
    assert result.program.entry_point == "f"
    assert [(s.line, s.column, s.description) for s in result.sites] == [(1, 5, "g -> fn0")]


def test_entry_point_is_renamed_on_request_and_carried_by_the_program() -> None:
    result = rf("def f(n):\n    return 1 if n < 2 else n * f(n - 1)\n", entry_point=True)
    assert result.source == "def fn0(n):\n    return 1 if n < 2 else n * fn0(n - 1)\n"
    assert result.program.entry_point == "fn0"
    assert result.program.has_entry_point()


def test_entry_point_option_through_a_pipeline_spec() -> None:
    pipeline = build_pipeline({"seq": ["rename-locals", {"transform": "rename-functions",
                                                         "options": {"scheme": "natural", "entry_point": True}}]})
    res = pipeline.apply(Program("def f(text):\n    return text[::-1]\n"), 0, inputs=["'ab'"], harness=True)
    assert res.applied == ["rename-locals", "rename-functions"]
    assert res.program.entry_point in ("func", "fn")
    assert res.program.source.startswith(f"def {res.program.entry_point}(")


def test_attributes_keywords_and_shadowing_locals_keep_their_names() -> None:
    source = (HELPER + "def h(items):\n    g = len(items)\n    return g\n\n"
              "def f(obj):\n    return g(1), obj.g, dict(g=2), h([obj])\n")
    result = rf(source)
    assert result.source == ("def fn0(x):\n    return x + 1\n\n"
                             "def fn1(items):\n    g = len(items)\n    return g\n\n"
                             "def f(obj):\n    return fn0(1), obj.g, dict(g=2), fn1([obj])\n")


def test_function_passed_to_map_filter_and_key_is_renamed() -> None:
    source = HELPER + "def f(xs):\n    return list(map(g, xs)), sorted(xs, key=g), max(xs, key=g)\n"
    assert rf(source).source == ("def fn0(x):\n    return x + 1\n\n"
                                 "def f(xs):\n    return list(map(fn0, xs)), sorted(xs, key=fn0), max(xs, key=fn0)\n")


def test_shadowed_map_is_not_a_safe_sink() -> None:
    source = HELPER + "def map(fn, xs):\n    return fn\n\ndef f(xs):\n    return map(g, xs)\n"
    result = rf(source)
    assert not result.applied
    assert "function g is used as a value (line 8)" in result.reason
    assert "function map is spelled like a builtin" in result.reason


def test_mapping_renames_only_the_listed_function() -> None:
    source = HELPER + "def h(x):\n    return g(x)\n\ndef f(a):\n    return h(a)\n"
    result = RenameFunctions(mapping={"g": "increment"}).apply(Program(source), 0, inputs=["1"], harness=True)
    assert result.source == ("def increment(x):\n    return x + 1\n\ndef h(x):\n    return increment(x)\n\n"
                             "def f(a):\n    return h(a)\n")


def test_mapping_onto_an_existing_name_is_refused() -> None:
    source = HELPER + "def f(a):\n    x = 1\n    return g(a) + x\n"
    result = RenameFunctions(mapping={"g": "x"}).apply(Program(source), 0, inputs=["1"], harness=True)
    assert not result.applied
    assert result.reason == ("mapping 'g' -> 'x': 'x' is already used in the program (or passed by a harness "
                             "keyword); renaming would merge two names")


def test_misleading_exchanges_sibling_functions() -> None:
    source = ("def inc(x):\n    return x + 1\n\ndef dec(x):\n    return x - 1\n\n"
              "def f(a):\n    return inc(a), dec(a)\n")
    result = rf(source, scheme="misleading")
    assert result.source == ("def dec(x):\n    return x + 1\n\ndef inc(x):\n    return x - 1\n\n"
                             "def f(a):\n    return dec(a), inc(a)\n")


def test_random_names_are_verb_noun_and_deterministic() -> None:
    source = HELPER + "def f(a):\n    return g(a)\n"
    a, b = rf(source, scheme="random", seed=5), rf(source, scheme="random", seed=5)
    assert a.source == b.source
    new = a.sites[0].description.split(" -> ")[1]
    verb, noun = new.split("_")
    from codemorph.transforms.naming.schemes import _NOUNS, _VERBS
    assert verb in _VERBS and noun in _NOUNS


# --------------------------------------------------------------------------------------
# rename-functions: refusals
# --------------------------------------------------------------------------------------

ENTRY = "f is the entry point (option entry_point=true renames it); "


@pytest.mark.parametrize("source, reason", [
    (HELPER + "def f(a):\n    return g(a), g.__name__\n",
     "the program may observe names of functions (__name__); left unchanged"),
    (HELPER + "def f(a):\n    return getattr(g, '__qualname__')\n",
     "the program may observe names of functions (__qualname__); left unchanged"),
    (HELPER + "def f(a):\n    return eval('g(a)')\n",
     "the program uses eval(), which can reach functions and classes by name; left unchanged"),
    (HELPER + "def f(a):\n    return globals()['g'](a)\n",
     "the program uses globals(), which can reach functions and classes by name; left unchanged"),
    ("import pickle\n\n" + HELPER + "def f(a):\n    return g(a)\n",
     "the program may observe names of functions (pickle); left unchanged"),
    (HELPER + "def f(a):\n    try:\n        return g()\n    except TypeError as e:\n        return str(e)\n",
     "the program inspects caught exceptions (except TypeError as e), whose messages may quote function "
     "names; left unchanged"),
    ("import inspect\n\n" + HELPER + "def f(a):\n    return g(a)\n",
     "the program may introspect names at run time (inspect); left unchanged"),
    (HELPER + "def f(a):\n    return g(a), 'use g'\n", ENTRY + "function g: the name appears in a string"),
    (HELPER + "def f(a):\n    return g\n",
     ENTRY + "function g is used as a value (line 5), so its name could be shown"),
    (HELPER + "def f(a):\n    print(g)\n    return a\n",
     ENTRY + "function g is used as a value (line 5), so its name could be shown"),
    (HELPER + "def f(a):\n    fs = {1: g}\n    return fs[1](a)\n",
     ENTRY + "function g is used as a value (line 5), so its name could be shown"),
    ("import functools\n\n@functools.cache\n" + HELPER + "def f(a):\n    return g(a)\n",
     ENTRY + "function g is decorated (the decorator receives the function object)"),
    ("def g(x):\n    yield x\n\ndef f(a):\n    return list(g(a))\n",
     ENTRY + "function g is async or a generator (its coroutines and generators carry its name)"),
    (HELPER + "def f(a):\n    global g\n    return g(a)\n", ENTRY + "function g is named in a global or nonlocal statement"),
    ("def g(x):\n    return lambda: x\n\ndef f(a):\n    return g(a)()\n",
     ENTRY + "g: a lambda (line 2) may escape; its __qualname__ includes g"),
    ("def g(x):\n    return (i for i in x)\n\ndef f(a):\n    return list(g(a))\n",
     ENTRY + "g: a generator expression (line 2) may escape; its __qualname__ includes g"),
    ("def g(x):\n    class K:\n        pass\n    return x\n\ndef f(a):\n    return g(a)\n",
     ENTRY + "g defines class K (line 2), whose __qualname__ includes g"),
    ("def g(x):\n    def h():\n        return x\n    return h\n\ndef f(a):\n    return g(a)()\n",
     ENTRY + "g: nested function h may escape (h is used as a value (line 4), so its name could be shown); "
             "its __qualname__ includes g; function h is used as a value (line 4), so its name could be shown"),
    ("def sum(x):\n    return 0\n\ndef f(a):\n    return sum(a)\n",
     ENTRY + "function sum is spelled like a builtin (before its definition runs, the name reads the builtin)"),
    (HELPER + "g = g\n\ndef f(a):\n    return g(a)\n",
     ENTRY + "function g is also bound other than by a def statement"),
    (HELPER + "def f(a):\n    class K:\n        g = g\n    return K.g(a)\n",
     ENTRY + "function g is also bound in a class body that reads the name"),
    (HELPER + "def f(a):\n    match a:\n        case g:\n            return g\n",
     ENTRY + "function g is bound by a match pattern"),
    ("def f(a):\n    return a\n", "f is the entry point (option entry_point=true renames it)"),
    ("class A:\n    def g(self):\n        return 1\n\ndef f(a):\n    return A().g()\n",
     "f is the entry point (option entry_point=true renames it)"),
])
def test_refusals(source: str, reason: str) -> None:
    result = rf(source)
    assert not result.applied
    assert result.reason == reason
    assert result.source == source


def test_function_named_by_a_harness_input_is_kept() -> None:
    source = HELPER + "def f(a):\n    return a\n"
    result = rf(source, inputs=["g(2)"])
    assert result.reason == ENTRY + "function g is named by a harness input (inputs run in the program's globals)"
    assert rf(source, inputs=["[1, 2]"]).applied


def test_entry_point_in_a_string_is_kept_even_when_requested() -> None:
    result = rf("def f(x):\n    return '%f' % x\n", entry_point=True)
    assert result.reason == "function f: the name appears in a string"


def test_options_are_validated() -> None:
    with pytest.raises(ValueError, match="unknown scheme 'pretty'"):
        RenameFunctions(scheme="pretty")
    with pytest.raises(TypeError, match="entry_point must be a bool"):
        RenameFunctions(entry_point="yes")
    with pytest.raises(ValueError, match="either scheme or mapping"):
        RenameFunctions(scheme="random", mapping={"a": "b"})
    with pytest.raises(TypeError):
        RenameClasses(entry_point=True)
    assert isinstance(get_transform("rename-functions"), RenameFunctions)
    assert isinstance(get_transform("rename-classes"), RenameClasses)
    assert get_transform("rename-classes").family == get_transform("rename-functions").family == "naming"


# --------------------------------------------------------------------------------------
# rename-classes
# --------------------------------------------------------------------------------------

POINT = ("class Point:\n    def __init__(self, x):\n        self.x = x\n\n"
         "    def norm(self):\n        return abs(self.x)\n\n")


def test_class_with_confined_instances_is_renamed() -> None:
    result = rc(POINT + "def f(a):\n    p = Point(a)\n    return p.norm(), isinstance(p, Point)\n")
    assert result.source == ("class C0:\n    def __init__(self, x):\n        self.x = x\n\n"
                             "    def norm(self):\n        return abs(self.x)\n\n"
                             "def f(a):\n    p = C0(a)\n    return p.norm(), isinstance(p, C0)\n")
    assert [(s.line, s.column, s.description) for s in result.sites] == [(1, 7, "Point -> C0")]


def test_natural_class_names_keep_camel_case() -> None:
    result = rc(POINT + "def f(a):\n    return Point(a).norm()\n", scheme="natural")
    assert result.sites[0].description in ("Point -> Position", "Point -> Coord")


@pytest.mark.parametrize("body, reason", [
    ("    return Point(a)\n", "class Point: an instance is created where it may escape (line 9)"),
    ("    p = Point(a)\n    return p\n",
     "class Point: instance variable p is used other than as .attr (line 10), so the instance could be shown"),
    ("    p = Point(a)\n    print(p)\n    return 1\n",
     "class Point: instance variable p is used other than as .attr (line 10), so the instance could be shown"),
    ("    p = Point(a)\n    return f'{p}'\n",
     "class Point: instance variable p is used other than as .attr (line 10), so the instance could be shown"),
    ("    return [Point(a)]\n", "class Point: an instance is created where it may escape (line 9)"),
    ("    p = Point(a)\n    m = p.norm\n    return m()\n",
     "class Point: instance variable p takes the method .norm as a value (line 10)"),
    ("    return Point\n", "class Point: the class object is used as a value (line 9), so its name could be shown"),
    ("    return list(Point.__dict__)\n", "class Point: reads the special attribute .__dict__ (line 9)"),
    ("    return Point(a).__repr__()\n", "class Point: reads the special attribute .__repr__ (line 9)"),
    ("    return type(Point(a)).__name__\n", "the program may observe names of classes (__name__); left unchanged"),
    ("    return Point(a).__class__\n", "the program may observe names of classes (__class__); left unchanged"),
    ("    return Point.mro()\n", "the program may observe names of classes (mro); left unchanged"),
    ("    return 'Point'\n", "class Point: the name appears in a string"),
    ("    try:\n        return Point(a).y\n    except AttributeError as e:\n        return str(e)\n",
     "the program inspects caught exceptions (except AttributeError as e), whose messages may quote class names; "
     "left unchanged"),
])
def test_class_refusals_at_use_sites(body: str, reason: str) -> None:
    source = POINT + "def f(a):\n" + body
    result = rc(source)
    assert not result.applied
    assert result.reason == reason


@pytest.mark.parametrize("source, reason", [
    ("class C:\n    def me(self):\n        return self\n\ndef f(a):\n    return C().me().x\n",
     "C.me: self is used other than as .attr (line 3), so the instance could be shown"),
    ("class C:\n    def r(self):\n        return super().__repr__()\n\ndef f(a):\n    return C().r()[:9]\n",
     "class C uses super() (object's methods show the class name)"),
    ("from dataclasses import dataclass\n\n@dataclass\nclass C:\n    x: int = 0\n\n"
     "def f(a):\n    return C(a).x\n", "class C is decorated (e.g. a dataclass repr shows the class name)"),
    ("class C(Exception):\n    pass\n\ndef f(a):\n    return C().args\n",
     "class C has a base other than object (inherited code may show the class name)"),
    ("class C:\n    x = len('ab')\n\ndef f(a):\n    return C.x\n",
     "class C: its body holds Assign other than constants and methods"),
    ("class C:\n    def __init__(self):\n        self.cb = lambda: 1\n\ndef f(a):\n    return C().cb\n",
     "C.__init__: a lambda (line 3) may escape; its __qualname__ includes C.__init__"),
    ("class C:\n    def __init__(self):\n        self.__x = 1\n\ndef f(a):\n    return C()._C__x\n",
     "class C: an identifier spells its mangled prefix _C__"),
    ("class C:\n    def items(self):\n        yield 1\n\ndef f(a):\n    return list(C().items())\n",
     "C.items is async or a generator (its objects carry the class name in __qualname__)"),
    ("class C:\n    pass\n\nclass D(C):\n    pass\n\ndef f(a):\n    D()\n    return a\n",
     "class C: the class object is used as a value (line 4), so its name could be shown; "
     "class D has a base other than object (inherited code may show the class name)"),
    ("def f(a):\n    return a\n", "no class in the program"),
    ("import inspect\n\nclass C:\n    pass\n\ndef f(a):\n    C()\n    return a\n",
     "the program may introspect names at run time (inspect); left unchanged"),
])
def test_class_refusals_at_the_class(source: str, reason: str) -> None:
    result = rc(source)
    assert not result.applied
    assert result.reason == reason


def test_private_attributes_inside_the_class_are_fine() -> None:
    source = ("class C:\n    def __init__(self):\n        self.__x = 1\n\n    def get(self):\n"
              "        return self.__x\n\ndef f(a):\n    c = C()\n    return c.get() + a\n")
    assert rc(source).source == source.replace("class C:", "class C0:").replace("c = C()", "c = C0()")


def test_misleading_exchanges_classes_and_mapping_renames_one() -> None:
    source = ("class Stack:\n    pass\n\nclass Queue:\n    pass\n\n"
              "def f(a):\n    Stack()\n    Queue()\n    return a\n")
    assert rc(source, scheme="misleading").source == source.replace("Stack", "@").replace(
        "Queue", "Stack").replace("@", "Queue")
    mapped = RenameClasses(mapping={"Queue": "Fifo"}).apply(Program(source), 0, harness=True)
    assert mapped.source == source.replace("Queue", "Fifo")


# --------------------------------------------------------------------------------------
# CRUXEval: the entry point renamed, checked in the sandbox
# --------------------------------------------------------------------------------------

def test_cruxeval_sample_entry_point_renamed_behaves(sandbox) -> None:
    from codemorph.verification.differential import check, make_baseline

    rows = cruxeval_sample(0, step=40)  # 20 programs; all 800 with CODEMORPH_FULL=1
    for i, row in enumerate(rows):
        scheme = ("misleading", "natural", "obfuscated", "random")[i % 4]
        program = Program(row["code"], "f", row["id"])
        result = RenameFunctions(scheme=scheme, entry_point=True).apply(program, 0, inputs=[row["input"]], harness=True)
        if not result.applied:
            assert "appears in a string" in result.reason, (row["id"], result.reason)
            continue
        assert result.program.entry_point != "f"
        base = make_baseline(sandbox, program, [row["input"]], extra_inputs=2, check_hash_seed=False)
        verdict = check(sandbox, base, result.program, min_inputs=1)  # few inputs: differences only
        assert verdict.status == "equivalent", (row["id"], verdict.reason)
