"""Parameters and names are an API outside the harness contract (issue 13, part 1).

``generate`` applies transforms under the harness contract (only a harness calls the
program, only its entry point, positionally); ``codemorph apply FILE`` and a plain
``Transform.apply`` do not, so public names and the parameters of module-level functions
keep their spelling there.  Exact rewrites of whole programs live in the fixtures
(``tests/transforms/fixtures/rename-*/library_*``); these tests cover the options, the
refusals, the pipeline and the command line.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from codemorph import Pipeline, Program, get_transform
from codemorph.cli.main import app
from codemorph.transforms.naming.definitions import harness_keywords

LIBRARY = (
    "def shorten(text, width, **kwargs):\n"
    "    return text[:width] + kwargs.get('placeholder', '')\n"
)


def test_public_function_keeps_its_parameters_outside_the_harness_contract():
    result = get_transform("rename-locals").apply(Program(LIBRARY), 0)
    assert not result.applied
    assert result.reason == ("shorten is a module-level function, which code importing the module may call with "
                             "keyword arguments; its parameters keep their names (parameters=\"all\" renames them)")


def test_the_harness_contract_renames_the_entry_points_parameters():
    program = Program(LIBRARY, "shorten")
    result = get_transform("rename-locals", scheme="obfuscated").apply(program, 0, inputs=["'abc', 2"], harness=True)
    assert result.source == ("def shorten(v0, v1, **v2):\n"
                             "    return v0[:v1] + v2.get('placeholder', '')\n")


def test_a_keyword_passed_by_the_harness_input_keeps_its_name():
    program = Program(LIBRARY, "shorten")
    result = get_transform("rename-locals", scheme="obfuscated").apply(program, 0, inputs=["'abc', width=2"],
                                                                      harness=True)
    assert result.source == ("def shorten(v0, width, **v1):\n"
                             "    return v0[:width] + v1.get('placeholder', '')\n")


@pytest.mark.parametrize("text", ["*[1, 2]", "1, **{'b': 2}", "1, 2)(", "*xs"])
def test_an_unpacking_or_unparsable_input_trusts_no_parameter(text):
    assert harness_keywords([text]) is None


def test_positional_inputs_trust_every_parameter_but_the_keywords():
    assert harness_keywords(["1, 'a'", "[2], c=3"]) == {"c"}


def test_parameters_all_renames_public_parameters_on_request():
    result = get_transform("rename-locals", scheme="obfuscated", parameters="all").apply(Program(LIBRARY), 0)
    assert result.source.startswith("def shorten(v0, v1, **v2):\n")


def test_parameters_private_keeps_the_entry_point_even_under_the_harness_contract():
    program = Program("def f(a):\n    def g(b):\n        return b\n    return g(a)\n")
    result = get_transform("rename-locals", scheme="obfuscated", parameters="private").apply(
        program, 0, inputs=["1"], harness=True)
    assert result.source == "def f(a):\n    def g(v0):\n        return v0\n    return g(a)\n"


def test_parameters_none_renames_only_locals():
    program = Program("def f(a):\n    b = a\n    return b\n")
    result = get_transform("rename-locals", scheme="obfuscated", parameters="none").apply(
        program, 0, inputs=["1"], harness=True)
    assert result.source == "def f(a):\n    v0 = a\n    return v0\n"


def test_a_method_keeps_even_its_star_parameters_outside_the_harness_contract():
    source = "class C:\n    def m(self, *args):\n        return args\n"
    assert not get_transform("rename-locals").apply(Program(source), 0).applied
    inside = get_transform("rename-locals", scheme="obfuscated").apply(Program(source), 0, harness=True)
    assert inside.source == "class C:\n    def m(self, *v0):\n        return v0\n"


def test_a_nested_function_returned_as_a_value_keeps_its_parameters():
    source = "def make():\n    def inner(x):\n        return x\n    return inner\n"
    result = get_transform("rename-locals").apply(Program(source), 0, harness=True)
    assert not result.applied
    assert "inner is used as a value; its parameters keep their names" in result.reason


@pytest.mark.parametrize("options, error", [
    ({"parameters": "some"}, ValueError),
    ({"params": False, "parameters": "all"}, ValueError),
    ({"parameters": "none", "locals": False}, ValueError),
    ({"comments": "yes"}, TypeError),
])
def test_rename_locals_rejects_bad_options(options, error):
    with pytest.raises(error):
        get_transform("rename-locals", **options)


@pytest.mark.parametrize("name", ["rename-functions", "rename-classes"])
def test_module_names_must_be_a_known_policy(name):
    with pytest.raises(ValueError):
        get_transform(name, module_names="public")


def test_rename_functions_keeps_module_level_names_outside_the_harness_contract():
    source = "def _g(x):\n    return x\n\ndef f(x):\n    return _g(x)\n"
    kept = get_transform("rename-functions").apply(Program(source), 0)
    assert not kept.applied
    assert "function _g is a module-level name, which code importing the module may use (option " \
           "module_names=\"private\" renames it)" in kept.reason
    renamed = get_transform("rename-functions", scheme="obfuscated", module_names="private").apply(Program(source), 0)
    assert renamed.source == "def fn0(x):\n    return x\n\ndef f(x):\n    return fn0(x)\n"


def test_a_bare_module_name_read_does_not_stop_rename_functions():
    source = "def f(x):\n    def g(y):\n        return y\n    return g(x)\n\nif __name__ == '__main__':\n    f(1)\n"
    result = get_transform("rename-functions", scheme="obfuscated").apply(Program(source), 0)
    assert result.source.startswith("def f(x):\n    def fn0(y):\n        return y\n    return fn0(x)\n")
    dunder = source.replace("return g(x)", "return g.__name__")
    assert "(__name__)" in get_transform("rename-functions").apply(Program(dunder), 0).reason


def test_pipelines_pass_the_harness_contract_to_every_step():
    program = Program("def f(a):\n    return a\n")
    pipeline = Pipeline.of(get_transform("rename-locals", scheme="obfuscated"))
    assert pipeline.apply(program, 0, inputs=["1"], harness=True).program.source == "def f(v0):\n    return v0\n"
    assert not pipeline.apply(program, 0, inputs=["1"]).changed


def test_apply_keeps_public_parameters_and_takes_options(tmp_path):
    path = tmp_path / "lib.py"
    path.write_text(LIBRARY + "\ndef f(xs):\n    total = sum(xs)\n    return total\n")
    runner = CliRunner()
    kept = runner.invoke(app, ["apply", str(path), "-t", "rename-locals", "-O", "scheme='obfuscated'"])
    assert kept.exit_code == 0, kept.output
    assert kept.stdout.startswith(LIBRARY + "\ndef f(xs):\n    v0 = sum(xs)\n    return v0\n")
    asked = runner.invoke(app, ["apply", str(path), "-t", "rename-locals", "-O", "rename-locals.scheme=obfuscated",
                                "-O", "parameters=all"])
    assert asked.exit_code == 0, asked.output
    assert asked.stdout.startswith("def shorten(v0, v1, **v2):\n")


@pytest.mark.parametrize("option", ["parameters", "parameters=sometimes", "rename-functions.scheme=random"])
def test_apply_rejects_a_bad_option(tmp_path, option):
    path = tmp_path / "lib.py"
    path.write_text(LIBRARY)
    res = CliRunner().invoke(app, ["apply", str(path), "-t", "rename-locals", "-O", option])
    assert res.exit_code == 2
