"""A perturbation row records the exception's class, message and line: a finding whose
message changes under another PYTHONHASHSEED (it shows a set of strings) is a ground truth
for one hash seed only and is not written; the same program with a hash-independent
message is."""

from __future__ import annotations

import json

import pytest

from codemorph.jobs import PerturbConfig, perturb_dataset
from codemorph.perturb import Budget

SET_MESSAGE = ("def f(x):\n    if x > 5:\n        raise ValueError(str({'apple', 'banana', 'cherry'}))\n"
               "    return x\n")
SORTED_MESSAGE = ("def f(x):\n    if x > 5:\n        raise ValueError(str(sorted({'apple', 'banana', 'cherry'})))\n"
                  "    return x\n")
CONFIG = PerturbConfig(exceptions=("ValueError",), output_changes=0, budget=Budget(executions=200), seed=0)


@pytest.mark.parametrize("code,message", [(SET_MESSAGE, None),
                                          (SORTED_MESSAGE, "['apple', 'banana', 'cherry']")])
def test_a_message_that_depends_on_the_hash_seed_is_no_ground_truth(tmp_path, code, message):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "m", "code": code, "input": "1", "output": "1"}) + "\n")
    out = tmp_path / "out.jsonl"
    summary = perturb_dataset(src, out, CONFIG)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary.programs_searched == 1 and summary.rows_rejected == 0
    # the search reaches ValueError either way (x = 6 is one step from 1; the second case
    # shows it): only the re-check tells the two apart
    if message is None:
        assert rows == [] and summary.per_target["ValueError"].programs == 0
    else:
        assert [(r["exception"]["type"], r["exception"]["message"], r["exception"]["line"]) for r in rows] == \
            [("ValueError", message, 3)]


def test_a_set_of_strings_is_the_same_result_under_every_hash_seed_and_a_list_of_it_is_not():
    from codemorph.jobs import perturb_row
    from codemorph.rows.dataset import SourceRow

    pert = PerturbConfig(exceptions=(), output_changes=5, budget=Budget(executions=300), seed=0)
    words = SourceRow("words", "def f(s):\n    return set(s.split())\n", "'ab cd ef'", "{'ab', 'cd', 'ef'}", "f", 1)
    # seed 0's reprs; a harness compares them with == (the same set under every seed)
    assert [(r["input"], r["output"]) for r in perturb_row(words, pert)] == [
        ("'a cd ef'", "{'a', 'ef', 'cd'}"), ("'ab c ef'", "{'ab', 'c', 'ef'}"), ("'ab cd e'", "{'e', 'ab', 'cd'}"),
        ("'ab cd f'", "{'ab', 'f', 'cd'}"), ("'ab cdef'", "{'ab', 'cdef'}")]
    listed = SourceRow("listed", "def f(s):\n    return list(set(s.split()))\n", "'ab cd ef'", "['ab', 'cd', 'ef']",
                       "f", 1)
    assert perturb_row(listed, pert) == []  # a list's order is the hash seed's
