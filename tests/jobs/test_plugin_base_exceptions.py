"""A plugin transform that raises a ``BaseException`` that is not an ``Exception`` (a class of
its own deriving from ``BaseException``, ``KeyboardInterrupt``, ``GeneratorExit``) costs its
variant, as one raising an ``Exception`` does: ``applied=False`` with an error record, a
reject of stage ``transform``, exit 0; with 1 and 2 workers and in ``codemorph apply``.  The
user's own Ctrl-C (recorded by the command line's signal handler) still interrupts.

The plugin is installed as a real distribution (a ``.dist-info`` with entry points in the
``codemorph.transforms`` group) on ``sys.path`` of the test, of the spawned workers and of
the ``codemorph`` processes started here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import codemorph.errors
from codemorph.cli.main import app
from codemorph.engine.program import Program
from codemorph.engine.registry import default_registry, get_transform
from plugins import ROWS, install_plugin, read_rows as _read

REPO = Path(__file__).resolve().parents[2]
#: the ``codemorph`` command as its console script runs it (the signal handler installed)
CLI = [sys.executable, "-c", "from codemorph.cli import main; main()"]

PLUGIN = textwrap.dedent('''
    from codemorph.engine.transform import Transform


    class Doom(BaseException):
        """A plugin's own exception class, outside ``Exception``."""


    class RaisesDoom(Transform):
        name = "raises-doom"
        family = "test"
        description = "raises a BaseException subclass of its own"

        def rewrite(self, module, ctx):
            raise Doom("doom: outside Exception on purpose")


    class RaisesKeyboardInterrupt(Transform):
        name = "raises-keyboard-interrupt"
        family = "test"
        description = "raises KeyboardInterrupt although nobody pressed Ctrl-C"

        def rewrite(self, module, ctx):
            raise KeyboardInterrupt("not the user's")


    class RaisesGeneratorExit(Transform):
        name = "raises-generator-exit"
        family = "test"
        description = "raises GeneratorExit"

        def rewrite(self, module, ctx):
            raise GeneratorExit("closed")
''')

NAMES = {"raises-doom": ("Doom", "doom: outside Exception on purpose"),
         "raises-keyboard-interrupt": ("KeyboardInterrupt", "not the user's"),
         "raises-generator-exit": ("GeneratorExit", "closed")}



@pytest.fixture
def plugin_site(tmp_path_factory, monkeypatch):
    """The plugin (distribution ``codemorph-base-exception-plugin``) installed for this test;
    yields the folder to put on ``PYTHONPATH``."""
    site = tmp_path_factory.mktemp("site")
    install_plugin(site, monkeypatch, "codemorph-base-exception-plugin", "codemorph_base_plugin", PLUGIN,
                   {"raises-doom": "RaisesDoom", "raises-keyboard-interrupt": "RaisesKeyboardInterrupt",
                    "raises-generator-exit": "RaisesGeneratorExit"})
    # as under the command line: interruptions are tracked, and nobody interrupted
    monkeypatch.setattr(codemorph.errors, "_interruptions_tracked", True)
    monkeypatch.setattr(codemorph.errors, "_user_interrupted", False)
    default_registry(refresh=True)
    yield site
    monkeypatch.undo()
    default_registry(refresh=True)


def _rows(tmp_path: Path) -> Path:
    src = tmp_path / "rows.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return src


@pytest.mark.parametrize("name", sorted(NAMES))
def test_apply_turns_a_base_exception_of_rewrite_into_an_error_record(plugin_site, name):
    program = Program(ROWS[0]["code"])
    res = get_transform(name).apply(program, 0)
    assert res.applied is False and res.program is program
    exception, message = NAMES[name]
    assert (res.error.transform, res.error.distribution, res.error.exception, res.error.message) == \
        (name, "codemorph-base-exception-plugin", exception, message)
    assert res.reason == f"raised {exception}: {message}"


def test_the_users_interruption_still_propagates_from_a_transform(plugin_site, monkeypatch):
    monkeypatch.setattr(codemorph.errors, "_user_interrupted", True)  # as the signal handler records Ctrl-C
    with pytest.raises(KeyboardInterrupt):
        get_transform("raises-keyboard-interrupt").apply(Program(ROWS[0]["code"]), 0)


def test_a_keyboard_interrupt_propagates_where_interruptions_are_not_tracked(plugin_site, monkeypatch):
    monkeypatch.setattr(codemorph.errors, "_interruptions_tracked", False)  # a library caller's Ctrl-C
    with pytest.raises(KeyboardInterrupt):
        get_transform("raises-keyboard-interrupt").apply(Program(ROWS[0]["code"]), 0)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_generate_with_a_plugin_raising_base_exceptions_writes_every_other_variant_and_exits_0(
        tmp_path, plugin_site, workers):
    src = _rows(tmp_path)
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(out), "-t", "raises-doom",
                                   "-t", "raises-keyboard-interrupt", "-t", "raises-generator-exit",
                                   "-t", "rename-locals", "--workers", workers, "--extra-inputs", "2"])
    assert res.exit_code == 0, res.output
    rows = _read(out)
    assert [r["id"] for r in rows if r["kind"] == "code-transform"] == ["a:rename-locals", "b:rename-locals"]
    rejects = _read(tmp_path / "out.rejects.jsonl")
    assert sorted((r["id"], r["stage"], r["exception"], r["message"]) for r in rejects) == sorted(
        (f"{i}:{name}", "transform", exc, msg) for i in ("a", "b") for name, (exc, msg) in NAMES.items())


def test_codemorph_command_with_a_plugin_keyboard_interrupt_is_not_interrupted(tmp_path, plugin_site):
    """The real command (its signal handler installed): the plugin's KeyboardInterrupt is no
    interruption; the run ends normally, exit 0."""
    src = _rows(tmp_path)
    out = tmp_path / "out.jsonl"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(plugin_site), str(REPO)]))
    for workers in ("1", "2"):
        proc = subprocess.run(CLI + ["generate", str(src), "-o", str(out),
                               "-t", "raises-keyboard-interrupt", "-t", "rename-locals", "--workers", workers,
                               "--extra-inputs", "2"], env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert "interrupted" not in proc.stderr
        assert [r["id"] for r in _read(out) if r["kind"] == "code-transform"] == ["a:rename-locals",
                                                                                   "b:rename-locals"]
        assert [(r["id"], r["exception"]) for r in _read(tmp_path / "out.rejects.jsonl")] == [
            ("a:raises-keyboard-interrupt", "KeyboardInterrupt"), ("b:raises-keyboard-interrupt", "KeyboardInterrupt")]
    prog = tmp_path / "p.py"
    prog.write_text(ROWS[0]["code"], encoding="utf-8")
    proc = subprocess.run(CLI + ["apply", str(prog), "-t", "raises-keyboard-interrupt",
                           "-t", "raises-doom", "-t", "rename-locals"], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ("def f(nums):\n    in_limit = 0\n    for end_record in nums:\n"
                           "        in_limit += end_record\n    return in_limit\n")
    assert proc.stderr.splitlines() == [
        "raises-keyboard-interrupt: not applied: raised KeyboardInterrupt: not the user's",
        "raises-doom: not applied: raised Doom: doom: outside Exception on purpose"]
