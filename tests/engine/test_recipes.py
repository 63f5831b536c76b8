"""Recipes: TOML pipelines, validation errors, built-ins, and recipe stamps on generated rows."""

from __future__ import annotations

import json

import pytest

from codemorph import InputError, Program
from codemorph.engine.pipeline import OneOf, Repeat, Sequence_, SomeOf
from codemorph.engine.recipes import build_pipeline, builtin_recipe_names, load_recipe, parse_recipe

PROG = Program("def f(xs):\n    out = []\n    for x in xs:\n        if x > 1:\n            out.append(x)\n    return out\n")
#: PROG with a test whose negation needs no runtime type (``not x % 2``): without
#: observations, invert-if leaves ``x > 1`` alone rather than write ``not x > 1``
ODD = Program(PROG.source.replace("if x > 1:", "if x % 2:"))


def test_every_builtin_recipe_loads_and_names_installed_transforms():
    names = builtin_recipe_names()
    for family in ("naming", "loops", "branches", "dead-code", "restructure"):
        assert family in names
    for name in names:
        r = load_recipe(name)
        assert r.name and r.version and r.variants


def test_pipeline_specs_build_the_right_nodes():
    p = build_pipeline({"seq": ["invert-if", {"one_of": ["dead-code", "for-to-while"]},
                                {"some_of": ["invert-if", "dead-code"], "k": 1},
                                {"repeat": "dead-code", "times": 2}]})
    assert isinstance(p, Sequence_)
    kinds = [type(s) for s in p.steps]
    assert kinds[1:] == [OneOf, SomeOf, Repeat]
    assert [t.name for t in p.transforms()] == ["invert-if", "dead-code", "for-to-while", "invert-if",
                                                 "dead-code", "dead-code"]


def test_composed_recipe_is_deterministic_and_applies_all_steps():
    r = load_recipe("restructure")
    spec = next(v.spec for v in r.variants if v.name == "restructure")
    # dead-code needs a value just computed (n = len(xs)) for its natural check
    prog = Program(ODD.source.replace("    out = []\n", "    out = []\n    n = len(xs)\n").replace(
        "return out", "return out, n"))
    a = build_pipeline(spec).apply(prog, 3)
    b = build_pipeline(spec).apply(prog, 3)
    assert a.program.source == b.program.source
    assert a.applied == ["for-to-while", "invert-if", "rename-locals", "dead-code"]


def test_restructure_messages_name_the_renamed_variables():
    """sample_2 kept ``raise TypeError('new_text must be a list')`` after ``new_text`` was
    renamed ``v1``: the recipe renames first, so a message names the variable it checks;
    ``two-of-four`` (any order) writes messages that name no variable."""
    import re
    r = load_recipe("restructure")
    spec = {v.name: v.spec for v in r.variants}
    src = Program("def f(text):\n    new_text = list(text)\n    new_text.remove('+')\n    return ''.join(new_text)\n")
    raised = plain = 0
    for seed in range(40):
        out = build_pipeline(spec["restructure"]).apply(src, seed).program.source
        assert "new_text" not in out
        for var, name in re.findall(r"if (?:not isinstance\()?(\w+).*:\n\s+raise \w+\('(\w+) must", out):
            assert var == name
            raised += 1
        out = build_pipeline(spec["two-of-four"]).apply(src, seed).program.source
        assert not re.search(r"raise \w+\('\w+ must", out), out
        plain += "raise TypeError('expected a list')" in out or "raise ValueError('unexpected None')" in out
    assert raised and plain


@pytest.mark.parametrize("text, message", [
    ("[recipe\nname='x'", "not valid TOML"),
    ("[recipe]\nversion = '1'\n[[variant]]\nname='a'\npipeline='dead-code'", "string 'name' and 'version'"),
    ("[recipe]\nname='x'\nversion='1'", "at least one [[variant]]"),
    ("[recipe]\nname='x'\nversion='1'\n[[variant]]\nname='a'\npipeline='no-such-thing'", "unknown transform"),
    ("[recipe]\nname='x'\nversion='1'\n[[variant]]\nname='a'\npipeline={transform='invert-if', options={colour=1}}",
     "bad options for 'invert-if': unknown option 'colour'; invert-if takes: which, simplify, empty_branch"),
    ("[recipe]\nname='x'\nversion='1'\n[[variant]]\nname='a'\npipeline={transform='rename-locals', "
     "options={shceme='natural'}}",
     "bad options for 'rename-locals': unknown option 'shceme' (did you mean 'scheme'?); rename-locals takes: "
     "scheme, params, mapping, parameters, comments"),
    ("[recipe]\nname='x'\nversion='1'\n[[variant]]\nname='a'\npipeline={transform='mirror-comparison', "
     "options={which='all', colour=1, size=2}}",
     "bad options for 'mirror-comparison': unknown options 'colour', 'size'; mirror-comparison takes: which"),
    ("[recipe]\nname='x'\nversion='1'\n[[variant]]\nname='a'\npipeline={transform='invert-if', options={empty_branch='yes'}}",
     "invert-if: option empty_branch must be true or false, got 'yes'"),
    ("[recipe]\nname='x'\nversion='1'\n[[variant]]\nname='a'\npipeline={transform='dead-code', options={messages='loud'}}",
     "dead-code: option messages must be 'named' or 'plain', got 'loud'"),
    ("[recipe]\nname='x'\nversion='1'\n[[variant]]\nname='a'\npipeline={some_of=['dead-code'], k=3}",
     "some_of needs an integer k"),
    ("[recipe]\nname='x'\nversion='1'\n[[variant]]\nname='a'\npipeline='dead-code'\n"
     "[[variant]]\nname='a'\npipeline='invert-if'", "two variants are named 'a'"),
])
def test_bad_recipes_say_what_is_wrong(text, message):
    with pytest.raises(InputError) as info:
        parse_recipe(text, "my.toml")
    assert message in str(info.value)
    assert "my.toml" in str(info.value)


def test_unknown_recipe_name_lists_builtins():
    with pytest.raises(InputError, match="unknown recipe 'nope'.*restructure"):
        load_recipe("nope")


def test_generate_with_recipe_stamps_name_and_version(tmp_path):
    from codemorph.jobs.generate import GenerateConfig, generate

    recipe = tmp_path / "r.toml"
    recipe.write_text("[recipe]\nname = 'mine'\nversion = '7'\n[[variant]]\nname = 'both'\n"
                      "pipeline = { seq = ['invert-if', 'for-to-while'] }\n"
                      "[[variant]]\nname = 'empty-branch'\n"
                      "pipeline = { seq = [{ transform = 'invert-if', options = { empty_branch = true } }, "
                      "'for-to-while'] }\n")
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "a", "code": PROG.source, "input": "[0, 2, 3]", "output": "[2, 3]"}) + "\n")
    out = tmp_path / "out.jsonl"
    summary = generate(src, out, GenerateConfig.from_recipe(load_recipe(str(recipe))))
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["a", "a:both", "a:empty-branch"]
    assert all(r["recipe"] == {"name": "mine", "version": "7"} for r in rows)
    assert rows[1]["transforms"] == ["invert-if", "for-to-while"]
    assert rows[1]["output"] == "[2, 3]"
    # both steps: the if ending the loop body a guard clause, the loop an index loop (stepped before continue)
    assert rows[1]["code"] == ("def f(xs):\n    out = []\n    i = 0\n    while i < len(xs):\n        x = xs[i]\n"
                               "        if x <= 1:\n            i += 1\n            continue\n        out.append(x)\n"
                               "        i += 1\n    return out\n")
    assert summary.per_transform["both"]["written"] == 1
    # the option reaches the transform from the TOML: the empty-branch form of earlier versions
    assert rows[2]["output"] == "[2, 3]"
    assert rows[2]["code"] == ("def f(xs):\n    out = []\n    i = 0\n    while i < len(xs):\n        x = xs[i]\n"
                               "        if x <= 1:\n            pass\n        else:\n            out.append(x)\n"
                               "        i += 1\n    return out\n")
