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


def test_a_stdin_counterexample_shows_what_each_program_printed(tmp_path):
    o, w, z = (tmp_path / n for n in ("o.py", "w.py", "z.py"))
    o.write_text("a, b = map(int, input().split())\nprint(a + b)\n")
    w.write_text("a, b = map(int, input().split())\nprint(a * b)\n")
    z.write_text("a, b = map(int, input().split())\nprint(a + b)\nprint(1 // (a - 2))\n")
    runner = CliRunner()
    diff = runner.invoke(app, ["verify", str(o), str(w), "--input-kind", "stdin", "-i", "2 3\n"])
    assert diff.exit_code == 3
    assert "counterexample: standard input '2 3\\n'\n  original:  printed '5\\n'\n  rewritten: printed '6\\n'\n" \
        in diff.output and "returned" not in diff.output
    raised = runner.invoke(app, ["verify", str(o), str(z), "--input-kind", "stdin", "-i", "2 3\n"])
    assert raised.exit_code == 3
    assert ("  original:  printed '5\\n'\n  rewritten: raised ZeroDivisionError: integer division or modulo by zero "
            "after it printed '5\\n'\n") in raised.output


def test_a_stdin_reason_names_the_standard_input_and_output(tmp_path):
    o, w = tmp_path / "o.py", tmp_path / "w.py"
    o.write_text("n = int(input())\nprint(n * 2)\n")
    w.write_text("n = int(input())\nprint(n * 2 + (n > 3))\n")
    res = CliRunner().invoke(app, ["verify", str(o), str(w), "--input-kind", "stdin", "-i", "3\n"])
    assert res.exit_code == 3
    reason = next(line for line in res.output.splitlines() if line.startswith("reason:"))
    # a mutant above 3 shows the difference; the reason quotes that input and says what differs
    assert reason.startswith("reason: on standard input '") and "': standard output: original '" in reason
    assert "return value" not in res.output and "on input" not in res.output
