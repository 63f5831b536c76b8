"""An original row's ``output`` is the repr of its re-executed result, as its variants'
is: the recorded text only had to compare equal (``1`` for ``True``, ``2.0``
for ``2``, a dict in another key order, an expression), so originals and variants recorded
different texts for one value, and a harness compares the text.  Programs run in the
sandbox only."""

from __future__ import annotations

import json

from codemorph.jobs.generate import GenerateConfig, generate

ROWS = [
    # (id, code, input, recorded output, output written)
    ("eq_float", "def f(x):\n    return x * 2\n", "1", "2.0", "2"),
    ("eq_bool", "def f(x):\n    return x > 0\n", "1", "1", "True"),
    ("eq_negzero", "def f(x):\n    return x * -0.0\n", "1", "0.0", "-0.0"),
    ("eq_dict", "def f(x):\n    d = {'b': 1}\n    d['a'] = x\n    return d\n", "2", "{'a': 2, 'b': 1}",
     "{'b': 1, 'a': 2}"),
    ("eq_expr", "def f(x):\n    return x + 1\n", "1", "1 + 1", "2"),
    ("eq_name", "K = 2\ndef f(x):\n    return K\n", "1", "K", "2"),
    # a result whose repr is no literal keeps the recorded text (checked equal)
    ("inf", "def f(x):\n    return float('inf') * x\n", "1", "float('inf')", "float('inf')"),
    ("same", "def f(s):\n    return s.upper()\n", "'ab'", "'AB'", "'AB'"),
]


def test_original_output_is_the_results_repr(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": i, "code": c, "input": x, "output": o}) + "\n" for i, c, x, o, _ in ROWS))
    out = tmp_path / "out.jsonl"
    generate(src, out, GenerateConfig.from_transforms(["rename-locals"], seed=0, workers=1))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    originals = {r["id"]: r["output"] for r in rows if r["kind"] == "original"}
    assert originals == {i: want for i, _, _, _, want in ROWS}
    variants = [r for r in rows if r["kind"] == "code-transform"]
    assert variants and all(r["output"] == originals[r["original_id"]] for r in variants)


def test_original_whose_output_shows_the_sandbox_is_rejected(tmp_path):
    """A program that prints a warning (with the sandbox's file name) on its own input."""
    code = "import warnings\ndef f(x):\n    warnings.warn('careful')\n    return x\n"
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "w", "code": code, "input": "1", "output": "1"}) + "\n")
    out = tmp_path / "out.jsonl"
    summary = generate(src, out, GenerateConfig.from_transforms(["rename-locals"], seed=0, workers=1))
    assert out.read_text() == "" and summary.rows_rejected == 1
    reject = json.loads((tmp_path / "out.rejects.jsonl").read_text().splitlines()[0])
    assert reject["reason"] == (
        "row 'w' (line 1): the program's outcome on its input shows codemorph's sandbox, not the program: its output "
        "shows the sandbox's file name ('<program>'): the outcome depends on the harness that runs the program "
        "(the program returned), so it is not a ground truth")


def test_a_recorded_output_that_is_no_expression_is_named_so_not_a_mismatch(tmp_path):
    rows = [{"id": "bad", "code": "def f(x):\n    return x\n", "input": "1", "output": "not a literal ("},
            {"id": "wrong", "code": "def f(x):\n    return x\n", "input": "1", "output": "2"}]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    generate(src, out, GenerateConfig.from_transforms(["rename-locals"], seed=0, workers=1, extra_inputs=4))
    reasons = [json.loads(line)["reason"] for line in (tmp_path / "out.rejects.jsonl").read_text().splitlines()]
    assert reasons == [
        "row 'bad' (line 1): recorded output 'not a literal (' is not a Python literal or expression ('(' was never "
        "closed), so it cannot be compared with the result; execution returned 1",
        "row 'wrong' (line 2): recorded output '2' does not match execution, which returned 1"]
