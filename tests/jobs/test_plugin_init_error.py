"""A plugin transform whose constructor raises is named with where it comes from (its entry
point and distribution) and the exception's class, in the library and on the command line."""

from __future__ import annotations

import textwrap

import pytest
from typer.testing import CliRunner

from codemorph.cli.main import app
from codemorph.engine.registry import default_registry, get_transform
from codemorph.errors import CodemorphError
from plugins import ROWS, install_plugin

PLUGIN = textwrap.dedent('''
    from codemorph.engine.transform import Transform


    class InitBoom(Exception):
        """The plugin's own exception class."""


    class RaisesInit(Transform):
        name = "raises-init"
        family = "test"
        description = "fails in its constructor"

        def __init__(self):
            super().__init__()
            raise RuntimeError("init boom")

        def rewrite(self, module, ctx):
            return module


    class RaisesOwn(Transform):
        name = "raises-own"
        family = "test"
        description = "fails in its constructor with its own exception class"

        def __init__(self):
            raise InitBoom("own boom")

        def rewrite(self, module, ctx):
            return module
''')


@pytest.fixture
def plugin_site(tmp_path_factory, monkeypatch):
    site = tmp_path_factory.mktemp("site")
    install_plugin(site, monkeypatch, "codemorph-init-plugin", "codemorph_init_plugin", PLUGIN,
                   {"raises-init": "RaisesInit", "raises-own": "RaisesOwn"})
    default_registry(refresh=True)
    yield site
    monkeypatch.undo()
    default_registry(refresh=True)


@pytest.mark.parametrize("name, message", [
    ("raises-init", "transform 'raises-init' (entry point codemorph_init_plugin:RaisesInit, from codemorph-init-plugin) "
                    "failed when created: RuntimeError: init boom"),
    ("raises-own", "transform 'raises-own' (entry point codemorph_init_plugin:RaisesOwn, from codemorph-init-plugin) "
                   "failed when created: codemorph_init_plugin.InitBoom: own boom"),
])
def test_a_constructor_that_raises_is_named_with_its_entry_point_and_exception_class(plugin_site, name, message):
    with pytest.raises(CodemorphError) as info:
        get_transform(name)
    assert str(info.value) == message


def test_generate_names_the_plugin_whose_constructor_raises(tmp_path, plugin_site):
    src = tmp_path / "rows.jsonl"
    src.write_text("".join(__import__("json").dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(tmp_path / "out.jsonl"), "-t", "raises-init",
                                   "--workers", "1"])
    assert res.exit_code == 2
    assert " ".join(res.output.split()) == (
        "error: variant 'raises-init': transform 'raises-init' (entry point codemorph_init_plugin:RaisesInit, "
        "from codemorph-init-plugin) failed when created: RuntimeError: init boom")
