"""codemorph verify --input-kind: standard inputs and call expressions, not only argument lists."""

from __future__ import annotations

from typer.testing import CliRunner

from codemorph.cli.main import app


def test_verify_compares_standard_outputs_of_scripts(tmp_path):
    o, r, w = (tmp_path / n for n in ("o.py", "r.py", "w.py"))
    o.write_text("a, b = map(int, input().split())\nprint(a + b)\n")
    r.write_text("a, b = map(int, input().split())\nprint(b + a)\n")
    w.write_text("a, b = map(int, input().split())\nprint(a * b)\n")
    runner = CliRunner()
    same = runner.invoke(app, ["verify", str(o), str(r), "--input-kind", "stdin", "-i", "2 3\n"])
    assert same.exit_code == 0 and "equivalent" in same.output
    diff = runner.invoke(app, ["verify", str(o), str(w), "--input-kind", "stdin", "-i", "2 3\n"])
    assert diff.exit_code == 3 and "counterexample: standard input" in diff.output


def test_verify_runs_call_expressions(tmp_path):
    o, w = tmp_path / "o.py", tmp_path / "w.py"
    o.write_text("def shout(s):\n    return s.upper()\n")
    w.write_text("def shout(s):\n    return s.upper()[:2]\n")
    res = CliRunner().invoke(app, ["verify", str(o), str(w), "--input-kind", "call", "-i", "shout('ab' + 'c')"])
    assert res.exit_code == 3 and "counterexample: shout(" in res.output
    bad = CliRunner().invoke(app, ["verify", str(o), str(w), "--input-kind", "argv", "-i", "1"])
    assert bad.exit_code == 2 and "--input-kind must be args, call or stdin" in bad.output
