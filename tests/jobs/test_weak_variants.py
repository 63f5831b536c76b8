"""``generate`` labels a variant ``weak`` when it was compared on fewer distinct inputs than
``min_inputs``, and never calls one ``equivalent`` or ``proved`` on fewer."""

from __future__ import annotations

import json

from codemorph.jobs.generate import GenerateConfig, generate
from paths import CRUXEVAL, needs_shared

# CRUXEval rows whose seeds mutation alone cannot vary: an empty list, an empty dict, a call,
# a lambda argument, no arguments at all; and an ordinary row
IDS = ("sample_7", "sample_120", "sample_152", "sample_344", "sample_135", "sample_0")


@needs_shared("cruxeval", "cruxeval.jsonl")
def test_every_equivalent_variant_was_compared_on_at_least_min_inputs(tmp_path):
    rows = [r for r in map(json.loads, CRUXEVAL.open()) if r["id"] in IDS]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    summary = generate(src, out, GenerateConfig.from_transforms(("rename-locals", "dead-code")))
    variants = [json.loads(line) for line in out.read_text().splitlines()]
    variants = [r for r in variants if r["kind"] == "code-transform"]
    assert {r["original_id"] for r in variants} == set(IDS)
    for r in variants:
        v = r["verification"]
        if v["status"] in ("equivalent", "proved"):
            assert v["inputs"] >= 20, r["id"]
        if v["status"] == "weak":
            assert v["inputs"] < 20 and v["reason"], r["id"]
    by_id = {r["id"]: r["verification"] for r in variants}
    # no arguments: one input is all there is
    assert by_id["sample_135:rename-locals"]["status"] == "weak"
    assert "called with no arguments" in by_id["sample_135:rename-locals"]["reason"]
    # [] and {} get element types, a call is evaluated, a lambda is kept while the list varies
    for pid in ("sample_7", "sample_120", "sample_152", "sample_344"):
        assert by_id[f"{pid}:rename-locals"]["status"] == "equivalent", by_id[f"{pid}:rename-locals"]
        assert by_id[f"{pid}:rename-locals"]["inputs"] >= 20
    assert summary.per_transform["rename-locals"]["written-weak"] == 1


def test_a_weak_reason_names_the_line_budget_when_mutants_ran_out_of_it(tmp_path):
    # the seed runs 600,000 iterations untraced; the mutants, traced, stop at 50,000 lines
    rows = [{"id": "loop", "code": "def f(n):\n    i = 0\n    while i < n * 200000:\n        i += 1\n    return i\n",
             "input": "3", "output": "600000"}]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    generate(src, out, GenerateConfig.from_transforms(("rename-locals",)))
    (variant,) = [r for r in map(json.loads, out.read_text().splitlines()) if r["kind"] == "code-transform"]
    v = variant["verification"]
    assert v["status"] == "weak"
    assert v["reason"] == (
        f"compared on {v['inputs']} distinct inputs that ran both programs to the end, fewer than the 20 an "
        f"equivalent verdict needs: 50 inputs made; {50 - v['inputs']} of them did not run the original to the end "
        f"({50 - v['inputs']} stopped at the 50,000-line budget)")
