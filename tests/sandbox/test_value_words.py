"""How a returned value is named in messages (:meth:`codemorph.sandbox.Outcome.value_words`)
when its repr raised, timed out or was too long -- never ``returned None`` -- on outcomes of
real executions in the sandbox: generate's reject reasons and ``codemorph verify``'s
counterexample use it."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from codemorph.cli.main import app
from codemorph.jobs.generate import _run_words
from codemorph.sandbox.pool import ExecRequest, Limits, Sandbox

BIG = "def f(n):\n    return 10 ** n\n"
BAD_REPR = "class A:\n    def __repr__(self):\n        raise KeyError('no repr')\n\ndef f():\n    return A()\n"
SLOW_REPR = "class A:\n    def __repr__(self):\n        while True:\n            pass\n\ndef f():\n    return A()\n"


@pytest.fixture(scope="module")
def outcomes():
    with Sandbox(Limits(timeout=1.0, repr_limit=100)) as sb:
        return sb.run_batch([ExecRequest(BIG, "f", "5000"), ExecRequest(BAD_REPR, "f", ""),
                             ExecRequest("def f():\n    return 'x' * 500\n", "f", ""),
                             ExecRequest(SLOW_REPR, "f", ""), ExecRequest(BIG, "f", "60"),
                             ExecRequest("def f():\n    raise KeyError(1)\n", "f", "")])


def test_value_words_name_what_happened_to_the_repr(outcomes):
    big, bad, long, slow, small, raised = outcomes
    assert [o.status for o in outcomes] == ["returned"] * 5 + ["raised"]
    assert big.value_repr is None
    assert big.value_words() == ("a value whose repr raised ValueError (Exceeds the limit (4300 digits) for integer "
                                 "string conversion; use sys.set_in...)")
    assert big.value_words(None).endswith("use sys.set_int_max_str_digits() to increase the limit)")
    assert bad.value_words() == "a value whose repr raised KeyError ('no repr')"
    assert long.value_words() == "a value whose repr is 502 characters, over the limit"
    assert slow.value_words() == "a value whose repr timed out"
    assert small.value_words(20) == "1" + "0" * 16 + "..." and small.value_words(None) == small.value_repr == "1" + "0" * 60
    assert raised.value_words() == ""


def test_generate_says_the_repr_raised_rather_than_returned_none(outcomes):
    assert _run_words(outcomes[1]) == "returned a value whose repr raised KeyError ('no repr'), not the recorded output"


def test_verify_shows_the_counterexample_without_returned_none(tmp_path):
    (tmp_path / "a.py").write_text(BIG)
    (tmp_path / "b.py").write_text("def f(n):\n    return 0\n")
    res = CliRunner().invoke(app, ["verify", str(tmp_path / "a.py"), str(tmp_path / "b.py"), "-i", "5000",
                                   "--extra-inputs", "0"], env={"COLUMNS": "400"})
    assert res.exit_code == 3, res.output
    out = " ".join(res.output.split())  # the console wraps long lines
    assert "original: returned a value whose repr raised ValueError (Exceeds the limit (4300 digits) for " \
           "integer string conversion; use sys.set_int_max_str_digits() to increase the limit) rewritten: returned 0" \
        in out
