"""Perturbation rows hold under a standard harness, not only inside codemorph's sandbox
(its module and file names, CPython's default recursion limit): a finding whose outcome changes at
CPython's default recursion limit is dropped, a MemoryError caught at the sandbox's memory
limit is never an output, and programs that read the harness's identity are rejected.
Programs run in the sandbox only."""

from __future__ import annotations

import json

import pytest

from codemorph.jobs import PerturbConfig, perturb_dataset
from codemorph.perturb import Budget
from codemorph.jobs.perturb import HARNESS_RECURSION_LIMIT

# recursion as deep as the string is long
DEPTH = "def f(s):\n    if not s:\n        return 0\n    return 1 + f(s[1:])\n"
OUTPUT = PerturbConfig(exceptions=(), output_changes=1, budget=Budget(executions=120), seed=0)


def _run(tmp_path, rows, config):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    summary = perturb_dataset(src, out, config)
    return summary, [json.loads(line) for line in out.read_text().splitlines()]


@pytest.mark.parametrize("length,written", [(2000, []), (500, [("'" + "a" * 499 + "'", "499")])])
def test_output_that_needs_more_than_the_default_stack_is_not_written(tmp_path, length, written):
    """At 2,000 frames deep the program returns under the search's limit (10,000) and raises
    RecursionError under CPython's default (CRUXEval's harness): before, the row
    ``'a' * 1999 -> 1999`` was written.  At 500 deep the finding holds under both."""
    assert HARNESS_RECURSION_LIMIT == 950
    summary, rows = _run(tmp_path, [{"id": "d", "code": DEPTH, "input": repr("a" * length), "output": str(length)}],
                         OUTPUT)
    assert summary.programs_searched == 1 and summary.rows_rejected == 0
    assert [(r["input"], r["output"]) for r in rows] == written


def test_infinite_recursion_is_still_a_finding(tmp_path):
    code = "def f(n):\n    def g(k):\n        return 0 if k == 0 else 1 + g(k - 1)\n    return g(n)\n"
    config = PerturbConfig(exceptions=("RecursionError",), output_changes=0, budget=Budget(executions=120), seed=0)
    _, rows = _run(tmp_path, [{"id": "r", "code": code, "input": "3", "output": "3"}], config)
    assert [(r["input"], r["exception"]["type"], r["exception"]["line"]) for r in rows] == \
        [("-1", "RecursionError", 3)]


def test_caught_memory_error_is_never_an_output(tmp_path):
    """Before: inputs 4 and 5 were written with output 'no memory' (the search's 1 GiB
    address-space limit); any plain interpreter returns 'ok'."""
    code = ("def f(n):\n    try:\n        b = bytearray(max(n, 1) * 2 ** 28)\n    except MemoryError:\n"
            "        return 'no memory'\n    return 'ok'\n")
    config = PerturbConfig(exceptions=(), output_changes=2, budget=Budget(executions=60), seed=0)
    _, rows = _run(tmp_path, [{"id": "m", "code": code, "input": "1", "output": "'ok'"}], config)
    assert [r["output"] for r in rows if r["output"] == "'no memory'"] == []


def test_programs_reading_the_harness_are_rejected(tmp_path):
    code = "def f(x):\n    return f.__code__.co_filename if x > 3 else 'small'\n"
    summary, rows = _run(tmp_path, [{"id": "c", "code": code, "input": "1", "output": "'small'"}], OUTPUT)
    assert rows == [] and summary.rows_rejected == 1
    reason = json.loads((tmp_path / "out.rejects.jsonl").read_text())["reason"]
    assert reason == ("row 'c' (line 1): the program may be nondeterministic: it reads a code object (its file "
                      "name is the harness's) (.co_filename), found in its code, so no row of it is written")


def test_program_exception_named_like_a_builtin_is_not_a_finding(tmp_path):
    """``class IndexError(Exception)`` raised by the program was written (and
    counted) as the built-in IndexError; a real IndexError of the same program still is."""
    fake = "class IndexError(Exception):\n    pass\ndef f(x):\n    if x > 3:\n        raise IndexError('fake')\n    return x\n"
    real = "def f(x):\n    if x > 3:\n        raise IndexError('real')\n    return x\n"
    config = PerturbConfig(exceptions=("IndexError",), output_changes=0, budget=Budget(executions=60), seed=0)
    summary, rows = _run(tmp_path, [{"id": "fake", "code": fake, "input": "1", "output": "1"},
                                    {"id": "real", "code": real, "input": "1", "output": "1"}], config)
    assert [(r["id"], r["exception"]["message"]) for r in rows] == [("real:perturb:IndexError:0", "real")]
    assert summary.per_target["IndexError"].programs == 1
