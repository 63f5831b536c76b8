"""A program whose own run fits the time limit is written by ``generate`` under the default
limits however much tracing slows it down (README, "Time limits and tracing")."""

from __future__ import annotations

import json

from codemorph.jobs.generate import GenerateConfig, generate

# three million iterations: 0.31 s in a plain interpreter on the development machine; the
# original's run traced with the types of locals takes several times the 5 s limit
# (a literal bound: without observed types, here too slow to trace, ``range(n)`` has no
# proved counter form and for-to-while leaves the loop alone)
LOOP = "def f(k):\n    total = 0\n    for i in range(3000000):\n        total += i % k\n    return total\n"


def test_a_three_million_iteration_loop_is_written_not_rejected(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "heavy", "code": LOOP, "input": "7", "output": "8999994"}) + "\n")
    out = tmp_path / "out.jsonl"
    summary = generate(src, out, GenerateConfig.from_transforms(("for-to-while",), extra_inputs=3, min_inputs=1))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary.rows_rejected == 0
    assert [r["kind"] for r in rows] == ["original", "code-transform"]
    original, variant = rows
    assert original["id"] == "heavy" and original["output"] == "8999994"
    assert variant["id"] == "heavy:for-to-while" and variant["output"] == "8999994"
    assert "while i" in variant["code"] or "while " in variant["code"]


# ``total + i`` -> ``i + total`` needs both observed as int (swap-operands needs runtime types)
SUM = "def f(n):\n    total = 0\n    for i in range(n):\n        total = total + i\n    return total\n"


def test_a_row_whose_run_outlasts_the_type_sample_gets_no_type_dependent_rewrite(tmp_path):
    src = tmp_path / "in.jsonl"
    rows_in = [{"id": "long", "code": SUM, "input": "30000", "output": "449985000"},  # 60,000 line events
               {"id": "short", "code": SUM, "input": "10", "output": "45"}]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows_in))
    out = tmp_path / "out.jsonl"
    generate(src, out, GenerateConfig.from_transforms(("swap-operands",), extra_inputs=3, min_inputs=1))
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    # the short row's types were seen on every line event: the swap is written
    assert rows["short:swap-operands"]["code"] == SUM.replace("total + i", "i + total")
    # the long row's baseline runs went past the first 20,000 line events: its types are a
    # sample, so no observations reach the transforms and the type-dependent swap is not made
    assert "long" in rows and "long:swap-operands" not in rows


# swallows the sandbox's timeout (a BaseException) forever: only the watchdog ends a run
SWALLOWS = ("def f(x):\n    while True:\n        try:\n            while True:\n                x += 1\n"
            "        except BaseException:\n            pass\n")


def test_a_row_whose_program_swallows_its_timeout_costs_one_run(tmp_path, monkeypatch):
    from codemorph.sandbox import Limits
    from codemorph.sandbox.pool import Sandbox

    runs = []
    real = Sandbox.run_batch

    def counting(self, requests, **kw):
        runs.extend(r.code for r in requests)
        return real(self, requests, **kw)

    monkeypatch.setattr(Sandbox, "run_batch", counting)
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "hangs", "code": SWALLOWS, "input": "0", "output": "0"}) + "\n"
                   + json.dumps({"id": "fine", "code": SUM, "input": "4", "output": "6"}) + "\n")
    out = tmp_path / "out.jsonl"
    summary = generate(src, out, GenerateConfig.from_transforms(("rename-locals",), extra_inputs=3, min_inputs=1,
                                                                limits=Limits(timeout=0.5)))
    rejects = [json.loads(line) for line in (tmp_path / "out.rejects.jsonl").read_text().splitlines()]
    assert summary.rows_rejected == 1 and [r["id"] for r in rejects] == ["hangs"]
    assert "did not finish on its input within the time limit" in rejects[0]["reason"]
    # its first run did not complete: no mutants, no second run, no variant checks
    assert runs.count(SWALLOWS) == 1
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["fine", "fine:rename-locals"]
