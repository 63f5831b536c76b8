"""Tests of the naming schemes (``random``, ``obfuscated``, ``natural``, ``misleading``,
user mappings), the shipped vocabulary, the ``params``/``locals`` options of
``rename-locals``, and :func:`check_renaming` on exchanges of existing names."""

from __future__ import annotations

import keyword
import random
import re

import pytest
from conftest import cruxeval_rows, cruxeval_sample

from codemorph import NotApplicable, Program, RewriteContext
from codemorph.engine.recipes import load_recipe
from codemorph.engine.transform import BUILTIN_NAMES
from codemorph.transforms.naming import (
    SCHEMES,
    MappingScheme,
    MisleadingScheme,
    NaturalScheme,
    RenameLocals,
    RenamingMismatch,
    check_renaming,
    join_identifier,
    load_vocabulary,
    split_identifier,
    validate_mapping,
)


def ctx_for(source: str, seed: int = 0, observations=None) -> RewriteContext:
    return RewriteContext(Program(source), random.Random(seed), (), observations)


def rename(source: str, seed: int = 0, inputs=(), **options):
    return RenameLocals(**options).apply(Program(source), seed, inputs=list(inputs), harness=True)


# --------------------------------------------------------------------------------------
# identifiers and the vocabulary
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, parts", [
    ("new_text", ("", ["new", "text"], "", "snake")),
    ("maxCount", ("", ["max", "count"], "", "camel")),
    ("HTTPServer", ("", ["http", "server"], "", "pascal")),
    ("_s1", ("_", ["s", "1"], "", "snake")),
    ("sum_", ("", ["sum"], "_", "snake")),
    ("__x__", ("__", ["x"], "__", "snake")),
    ("_", ("_", [], "", "snake")),
])
def test_split_identifier(name: str, parts: tuple) -> None:
    assert split_identifier(name) == parts


def test_join_identifier_styles_and_reserved_words() -> None:
    assert join_identifier("", ["fresh", "string"], "", "snake") == "fresh_string"
    assert join_identifier("", ["maximum", "sum_total"], "", "camel") == "maximumSumTotal"
    assert join_identifier("", ["token", "store"], "", "pascal") == "TokenStore"
    assert join_identifier("", ["max"], "", "snake") == "max_"       # a builtin
    assert join_identifier("", ["class"], "", "snake") == "class_"   # a keyword
    assert join_identifier("", ["1", "x"], "", "snake") == "_1_x"


def test_vocabulary_is_well_formed() -> None:
    v = load_vocabulary()
    for table in ("synonyms", "antonyms"):
        for word, options in v[table].items():
            assert word == word.lower() and re.fullmatch(r"[a-z0-9_]+", word), word
            assert options and all(o.isidentifier() for o in options), word
            assert word not in options, word
    for role, names in v["misleading_names"].items():
        assert role in v["categories"] and role in v["misleading_of"]
        for n in names:
            assert n.isidentifier() and n not in BUILTIN_NAMES and not keyword.iskeyword(n), n
    for role, others in v["misleading_of"].items():
        assert role not in others and set(others) <= set(v["misleading_names"])
    for n in v["misleading_functions"] + v["misleading_classes"]:
        assert n.isidentifier() and n not in BUILTIN_NAMES, n


def test_natural_scheme_renames_most_cruxeval_names() -> None:
    """Two thirds of the benchmark's variable names have a word with a synonym that suits
    the name's role; the natural scheme keeps the rest (``zq``, ``j``, ``_``)."""
    import ast
    scheme = NaturalScheme(ctx_for("x = 1\n"))
    names: set[str] = set()
    for row in cruxeval_rows():
        tree = ast.parse(row["code"])
        names.update(n.arg for n in ast.walk(tree) if isinstance(n, ast.arg))
        names.update(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    wanted = {n for n in names if scheme.wants(n)}
    assert len(wanted) / len(names) >= 0.65, sorted(names - wanted)
    assert {"_", "j", "N", "t1", "c", "i"}.isdisjoint(wanted) and {"text", "nums", "x"} <= wanted


# --------------------------------------------------------------------------------------
# schemes
# --------------------------------------------------------------------------------------

def test_natural_maps_words_to_synonyms_deterministically() -> None:
    ctx = ctx_for("def f(nums):\n    return nums\n", seed=3)
    scheme = NaturalScheme(ctx)
    syn = load_vocabulary()["synonyms"]
    out = scheme.propose("nums", "param")
    assert out in syn["nums"]
    camel = NaturalScheme(ctx_for("x = 1\n", seed=3)).propose("maxCount", "local")
    assert re.fullmatch(r"[a-z]+[A-Z][A-Za-z]+", camel) and camel != "maxCount"
    assert NaturalScheme(ctx_for("x = 1\n", seed=3)).propose("maxCount", "local") == camel


def test_natural_keeps_names_without_a_fitting_synonym() -> None:
    scheme = NaturalScheme(ctx_for("x = 1\n"))
    assert not scheme.wants("zq") and not scheme.wants("_") and not scheme.wants("N")
    assert scheme.why_not("zq") == "has no synonym in the vocabulary that suits its role (natural scheme), kept"
    assert scheme.why_not("_") == "is the throwaway name, kept as people write it"
    with pytest.raises(NotApplicable, match="zq has no synonym"):
        scheme.propose("zq", "local")


def test_natural_head_word_synonyms_suit_the_observed_role() -> None:
    ints = NaturalScheme(ctx_for("x = 1\n", observations={"f": {"c": ["int"], "w": ["str"]}}))
    assert not ints.wants("c")  # ch and char name strings
    assert {ints.propose("w", "local") for _ in range(20)} == {"word"}  # never width
    chars = NaturalScheme(ctx_for("x = 1\n", observations={"f": {"c": ["str"]}}))
    assert {chars.propose("c", "local") for _ in range(20)} == {"ch", "char"}
    # without observations a one-letter name's role is a guess (c is as often a count): kept,
    # and only synonyms that suggest no role are used (x -> val or item)
    plain = NaturalScheme(ctx_for("x = 1\n"))
    assert not plain.wants("c") and not plain.wants("i")
    assert {plain.propose("x", "local") for _ in range(20)} == {"val", "item"}


def test_renaming_with_a_role_based_scheme_asks_generate_for_runtime_types() -> None:
    assert RenameLocals(scheme="natural").uses_runtime_types and RenameLocals(scheme="misleading").uses_runtime_types
    assert not RenameLocals(scheme="random").uses_runtime_types and not RenameLocals().uses_runtime_types


def test_natural_one_letter_words_and_whole_name_entries() -> None:
    scheme = NaturalScheme(ctx_for("x = 1\n", seed=1))
    assert scheme.propose("string_a", "local") in {"text_a", "content_a"}
    assert scheme.propose("s1", "local") == "first_str"
    assert scheme.propose("arr2", "local") == "second_array"


def test_natural_rename_locals_names_what_it_keeps() -> None:
    result = rename("def f(zq):\n    _ = 0\n    for _ in range(zq):\n        pass\n    return zq\n", scheme="natural")
    assert not result.applied
    assert result.reason == ("f: _ is the throwaway name, kept as people write it; "
                             "f: zq has no synonym in the vocabulary that suits its role (natural scheme), kept")


def test_natural_rename_locals_example() -> None:
    result = rename("def f(text, nums):\n    count = len(nums)\n    return text * count\n", scheme="natural")
    syn = load_vocabulary()["synonyms"]
    pairs = [s.description.split(" -> ") for s in result.sites]
    assert [old for old, _ in pairs] == ["text", "nums", "count"]
    for old, new in pairs:
        assert new in syn[old] or new.rstrip("_") in syn[old] or re.fullmatch(rf"({'|'.join(syn[old])})_\d+", new)


@pytest.mark.parametrize("old, role", [("count", "number"), ("text", "string"), ("nums", "list"),
                                       ("dic", "dict"), ("found", "bool")])
def test_misleading_names_suggest_another_role(old: str, role: str) -> None:
    v = load_vocabulary()
    for seed in range(5):
        new = MisleadingScheme(ctx_for("x = 1\n", seed=seed)).propose(old, "local")
        suggested = {r for r, names in v["misleading_names"].items() if new in names}
        assert suggested and role not in suggested, (old, new)


def test_misleading_uses_observed_types_over_words() -> None:
    # 'count' holds strings here: it is renamed like a number or list, never like a string
    ctx = ctx_for("x = 1\n", observations={"f": {"count": ["str"]}})
    scheme = MisleadingScheme(ctx)
    assert scheme.role("count") == "string"
    new = scheme.propose("count", "local")
    assert new not in load_vocabulary()["misleading_names"]["string"]


def test_misleading_functions_use_antonyms() -> None:
    assert MisleadingScheme(ctx_for("x = 1\n")).propose("get_max", "function") in ("set_min", "put_min")
    unrelated = MisleadingScheme(ctx_for("x = 1\n")).propose("helper", "function")
    assert unrelated in load_vocabulary()["misleading_functions"]


def test_misleading_permutation_has_no_fixed_point() -> None:
    scheme = MisleadingScheme(ctx_for("x = 1\n", seed=9))
    groups = [["a", "b"], ["c"], ["d", "e", "f", "g", "h"]]
    out = scheme.permute(groups)
    assert out[0] == {"a": "b", "b": "a"} and out[1] == {}
    assert sorted(out[2]) == sorted(out[2].values()) == groups[2]
    assert all(k != v for k, v in out[2].items())


def test_misleading_rename_locals_exchanges_names_of_one_function() -> None:
    source = "def f(text, count):\n    size = len(text)\n    return text * count, size\n"
    result = rename(source, scheme="misleading", seed=0)
    new_names = {s.description.split(" -> ")[0]: s.description.split(" -> ")[1] for s in result.sites}
    assert sorted(new_names) == sorted(new_names.values()) == ["count", "size", "text"]
    assert all(k != v for k, v in new_names.items())


def test_misleading_does_not_exchange_names_used_elsewhere() -> None:
    # `text` also names a keyword argument and `n` a global: neither takes part in a swap
    source = "n = 5\n\ndef f(text, k):\n    m = dict(text=1)\n    return text, k, m, n\n"
    result = rename(source, scheme="misleading")
    assert result.source == "n = 5\n\ndef f(registry, m):\n    k = dict(text=1)\n    return registry, m, k, n\n"


def test_misleading_never_swaps_with_a_harness_keyword() -> None:
    # the harness passes x=2 into **kw: no parameter may be named x afterwards
    source = "def f(a, **kw):\n    x = a\n    return x, kw\n"
    result = rename(source, scheme="misleading", inputs=["1, x=2"])
    assert result.source == "def f(kw, **a):\n    words = kw\n    return words, a\n"


def test_mapping_scheme_reuses_the_name_and_refuses_collisions() -> None:
    ctx = ctx_for("def f(a):\n    b = a\n    return b\n")
    scheme = MappingScheme(ctx, {"a": "alpha", "b": "a"})
    assert scheme.wants("a") and not scheme.wants("c")
    assert scheme.new_name("a", "param") == scheme.new_name("a", "local") == "alpha"
    with pytest.raises(NotApplicable, match="'a' is already used in the program"):
        scheme.new_name("b", "local")


@pytest.mark.parametrize("mapping, error, message", [
    ({}, ValueError, "mapping is empty"),
    ([("a", "b")], TypeError, "table of old name -> new name"),
    ({"a": 1}, TypeError, "table of old name -> new name"),
    ({"a b": "c"}, ValueError, "is not an identifier"),
    ({"a": "class"}, ValueError, "not a keyword or builtin"),
    ({"a": "len"}, ValueError, "not a keyword or builtin"),
    ({"a": "x-y"}, ValueError, "not a keyword or builtin"),
    ({"a": "__x"}, ValueError, "mangled or special"),
    ({"a": "a"}, ValueError, "maps 'a' to itself"),
    ({"a": "z", "b": "z"}, ValueError, "collision"),
    ({"a": "b", "b": "a"}, ValueError, "chains and swaps"),
])
def test_validate_mapping(mapping, error, message) -> None:
    with pytest.raises(error, match=message):
        validate_mapping("rename-locals", mapping)
    with pytest.raises(error, match=message):
        RenameLocals(mapping=mapping)


def test_mapping_renames_every_function_consistently() -> None:
    source = "def g(text):\n    return text\n\ndef f(text):\n    return g(text=text)\n"
    result = rename(source, mapping={"text": "message"})
    assert result.source == "def g(message):\n    return message\n\ndef f(message):\n    return g(message=message)\n"


def test_mapping_that_matches_nothing_says_so() -> None:
    result = rename("def f(a):\n    return a\n", mapping={"zzz": "yyy"})
    assert result.reason == "no renameable local variable or parameter is named zzz"


def test_mapping_onto_a_harness_keyword_is_refused() -> None:
    result = rename("def f(a, **kw):\n    return a, kw\n", inputs=["1, b=2"], mapping={"a": "b"})
    assert not result.applied and "'b' is already used" in result.reason


def test_scheme_table() -> None:
    assert sorted(SCHEMES) == ["misleading", "natural", "obfuscated", "random"]
    assert all(cls.name == key for key, cls in SCHEMES.items())


# --------------------------------------------------------------------------------------
# rename-locals: params / locals options
# --------------------------------------------------------------------------------------

SRC = "def g(p, q=1):\n    r = p + q\n    return r\n\ndef f(a):\n    b = g(a, q=2)\n    return b\n"


def test_locals_false_renames_only_parameters_and_their_keyword_sites() -> None:
    result = rename(SRC, scheme="obfuscated", locals=False)
    assert result.source == ("def g(v0, v1=1):\n    r = v0 + v1\n    return r\n\n"
                             "def f(v2):\n    b = g(v2, v1=2)\n    return b\n")


def test_params_false_keeps_parameters() -> None:
    result = rename(SRC, scheme="obfuscated", params=False)
    assert result.source == ("def g(p, q=1):\n    v0 = p + q\n    return v0\n\n"
                             "def f(a):\n    v1 = g(a, q=2)\n    return v1\n")


def test_parameters_passed_through_double_star_keep_their_names() -> None:
    source = "def g(p):\n    return p\n\ndef f(a):\n    return g(**{'p': a})\n"
    result = rename(source, scheme="obfuscated", locals=False)
    assert result.source == "def g(p):\n    return p\n\ndef f(v0):\n    return g(**{'p': v0})\n"


def test_locals_false_with_no_parameters_says_why() -> None:
    result = rename("def f():\n    d = 1\n    return d\n", locals=False)
    assert result.reason == "f: d is not a parameter (locals=False)"


def test_params_and_locals_both_false_is_an_error() -> None:
    with pytest.raises(ValueError, match="leave nothing to rename"):
        RenameLocals(params=False, locals=False)
    with pytest.raises(TypeError, match="locals must be a bool"):
        RenameLocals(locals="no")


def test_builtin_naming_recipe_loads() -> None:
    recipe = load_recipe("naming")
    names = [v.name for v in recipe.variants]
    assert recipe.version == "2"
    assert {"rename-natural", "rename-misleading", "rename-params-only", "rename-functions-natural",
            "rename-functions-misleading", "rename-classes"} <= set(names)


# --------------------------------------------------------------------------------------
# check_renaming with exchanges of names
# --------------------------------------------------------------------------------------

OLD = "def f(a, b):\n    c = a - b\n    return c\n"


def test_check_renaming_accepts_a_permutation() -> None:
    check_renaming(OLD, "def f(b, c):\n    a = b - c\n    return a\n", {"b": "a", "c": "b", "a": "c"})


@pytest.mark.parametrize("old, new, back, message", [
    # a swap that missed one occurrence
    (OLD, "def f(b, a):\n    c = b - b\n    return c\n", {"b": "a", "a": "b"}, "differ in more than"),
    # `b` is also a parameter of another function, which was not renamed
    (OLD + "\ndef g(b):\n    return b\n", "def f(b, a):\n    c = b - a\n    return c\n\ndef g(b):\n    return b\n",
     {"b": "a", "a": "b"}, "differ in more than"),
    # a new name that is an old name nobody renamed away
    (OLD, "def f(c, b):\n    c = c - b\n    return c\n", {"c": "a"}, "already occurs"),
    # a module-level function spelled like a builtin may fall back to the builtin
    ("def len(x):\n    return 0\n\ndef f(a):\n    return len(a)\n",
     "def fn0(x):\n    return 0\n\ndef f(a):\n    return fn0(a)\n", {"fn0": "len"}, "may resolve to the builtin"),
])
def test_check_renaming_rejects_bad_exchanges(old, new, back, message) -> None:
    with pytest.raises(RenamingMismatch, match=message):
        check_renaming(old, new, back)


def test_check_renaming_accepts_renamed_defs_and_classes() -> None:
    check_renaming("class A:\n    pass\n\ndef g():\n    return A()\n", "class B:\n    pass\n\ndef h():\n    return B()\n",
                   {"B": "A", "h": "g"})


# --------------------------------------------------------------------------------------
# CRUXEval sample: natural and misleading names behave
# --------------------------------------------------------------------------------------

def test_cruxeval_sample_natural_and_misleading_behave(sandbox) -> None:
    from codemorph.sandbox.observations import merge_observations
    from codemorph.verification.differential import check, make_baseline

    rows = cruxeval_sample(7, step=50)  # 16 rows; all 800 with CODEMORPH_FULL=1
    for i, row in enumerate(rows):
        program = Program(row["code"], "f", row["id"])
        base = make_baseline(sandbox, program, [row["input"]], extra_inputs=2, check_hash_seed=False, types=True)
        result = RenameLocals(scheme=("natural", "misleading")[i % 2]).apply(
            program, 0, inputs=[row["input"]], harness=True, observations=merge_observations(base.outcomes))
        if not result.applied and i % 2 == 0:  # natural: sample_407's s holds a list, no "text" for it
            assert "has no synonym in the vocabulary that suits its role" in result.reason, (row["id"], result.reason)
            continue
        assert result.applied, (row["id"], result.reason)
        verdict = check(sandbox, base, result.program, min_inputs=1)  # few inputs: differences only
        assert verdict.status == "equivalent", (row["id"], verdict.reason)
