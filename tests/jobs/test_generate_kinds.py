"""generate and perturb on call and stdin rows: every row is written or rejected, every
written output is what the program gives under the row's own way of running it, the kind is
carried, and the four foundation transforms apply to functions behind calls, harness classes
and module-level script code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemorph.jobs.generate import GenerateConfig, generate
from codemorph.jobs.perturb import PerturbConfig, perturb_dataset
from codemorph.rows import SourceRow
from codemorph.sandbox import output_of, row_request

FIXTURE = Path(__file__).parent / "fixtures" / "kinds.jsonl"
FOUR = ("rename-locals", "dead-code", "for-to-while", "invert-if")


def _lines(p: Path) -> list[dict]:
    return [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()]


def _as_row(d: dict) -> SourceRow:
    return SourceRow(d["id"], d["code"], d["input"], d["output"] or "", d.get("entry_point", "f"), 1,
                     input_kind=d.get("input_kind", "args"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("kinds") / "out.jsonl"
    generate(FIXTURE, out, GenerateConfig.from_transforms(FOUR))
    return _lines(FIXTURE), _lines(out), _lines(out.with_name("out.rejects.jsonl"))


def test_every_row_is_written_or_rejected(generated):
    rows, written, rejects = generated
    originals = {r["id"] for r in written if r["kind"] == "original"}
    rejected = {r["id"] for r in rejects if r.get("kind") != "variant"}
    assert originals | rejected == {r["id"] for r in rows} and not originals & rejected
    assert rejected == {"wrong"}
    (wrong,) = [r for r in rejects if r["id"] == "wrong"]
    assert "is not the standard output, '3\\n'" in wrong["reason"] and wrong["row"]["input_kind"] == "stdin"


def test_written_outputs_are_what_each_kind_of_run_gives(generated, sandbox):
    rows, written, _ = generated
    kinds = {r["id"]: r["input_kind"] for r in rows}
    for r in written:
        assert r["input_kind"] == kinds[r["original_id"]]
    outs = sandbox.run_batch([row_request(_as_row(r), check_output=False) for r in written])
    for r, o in zip(written, outs):
        assert output_of(o, r["input_kind"]) == r["output"], r["id"]


def test_the_four_transforms_apply_to_every_kind(generated):
    rows, written, _ = generated
    made = {(r["original_id"], r["transforms"][0]) for r in written if r["kind"] == "code-transform"}
    for rid in ("evens", "shout", "counter", "positives", "divide", "reverse"):
        assert (rid, "rename-locals") in made, rid
    # dead-code wherever a value is computed right before (size = len(xs), n = int(input())):
    # a function behind a call, a harness class's method, a script's module level
    for rid in ("evens", "counter", "positives"):
        assert (rid, "dead-code") in made, rid
    for rid in ("shout", "divide", "reverse"):  # out = '' and a, b = ... guard nothing
        assert (rid, "dead-code") not in made, rid
    # every row with a for loop: in a function, or at a script's module level
    for rid in ("evens", "shout", "counter", "reverse", "positives"):
        assert (rid, "for-to-while") in made, rid
    for rid in ("evens", "shout"):  # every row with an invert-if site
        assert (rid, "invert-if") in made, rid
    # positives' site is `if x > 0:` over a script's module-level name, which has no observed
    # type at the test: its guard would read `if not x > 0: continue`, so it is left alone
    assert ("positives", "invert-if") not in made
    # counter's only if is followed by `return 0`: no else, not the last statement of its
    # function, so inverting it would need an empty branch (`if not c: pass`)
    assert ("counter", "invert-if") not in made


def test_harness_and_called_names_are_kept(generated):
    _, written, _ = generated
    for r in written:
        if r["original_id"] == "counter":
            assert "class Test(unittest.TestCase):" in r["code"] and "class Counter:" in r["code"]
            assert r["input"] == "Test().test()"
        if r["original_id"] == "evens":
            assert "def count_evens(" in r["code"] and r["input"] == "count_evens([1, 2, 4])"


def test_perturb_finds_raising_stdin_that_replays(tmp_path, sandbox):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in _lines(FIXTURE) if r["input_kind"] == "stdin"
                           and r["id"] != "wrong"), encoding="utf-8")
    out = tmp_path / "p.jsonl"
    perturb_dataset(src, out, PerturbConfig(exceptions=("ValueError", "ZeroDivisionError"), output_changes=1))
    found = _lines(out)
    assert {(r["original_id"], r["target"]) for r in found} >= {("divide", "ZeroDivisionError"),
                                                                  ("divide", "ValueError")}
    outs = sandbox.run_batch([row_request(_as_row(r), check_output=False) for r in found])
    for r, o in zip(found, outs):
        assert r["input_kind"] == "stdin" and r["seed_input"] != r["input"]
        if r["exception"] is None:
            assert (o.status, o.stdout) == ("returned", r["output"])
        else:
            assert o.status == "raised" and o.exception.type == r["exception"]["type"]
            assert o.exception.line == r["exception"]["line"]


def test_a_renamed_called_function_renames_the_call(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(_lines(FIXTURE)[0]) + "\n", encoding="utf-8")
    from codemorph.engine.recipes import Variant

    out = tmp_path / "out.jsonl"
    cfg = GenerateConfig(variants=(Variant("rn", {"transform": "rename-functions", "options": {"entry_point": True}}),))
    generate(src, out, cfg)
    (orig, var) = _lines(out)
    assert var["kind"] == "code-transform" and var["entry_point"] == orig["entry_point"] == "f"
    name = var["input"].split("(")[0]
    assert name != "count_evens" and f"def {name}(" in var["code"] and var["input"] == f"{name}([1, 2, 4])"
    assert var["output"] == "2"


def test_no_variant_changes_the_harness_class(generated):
    """The harness a ``call`` row's input instantiates (``Test`` in ``Test().test()``) is
    read-only: every variant of such a row keeps it byte for byte and changes the class under test."""
    rows, written, _ = generated

    def harness(code: str) -> str:
        return code[code.index("class Test("):]

    (counter,) = [r for r in rows if r["id"] == "counter"]
    variants = [r for r in written if r["original_id"] == "counter" and r["kind"] == "code-transform"]
    assert variants
    for r in variants:
        assert harness(r["code"]) == harness(counter["code"]), r["id"]
        assert r["code"][:r["code"].index("class Test(")] != counter["code"][:counter["code"].index("class Test(")]
