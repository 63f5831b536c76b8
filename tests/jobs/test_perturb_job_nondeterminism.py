"""``codemorph perturb`` writes no ground truth a later run could contradict.

Programs run only in the sandbox.  Rows are programs
that read the clock or random numbers (rejected before the search, the reason naming the
source), and programs whose found inputs return memory addresses or identity-ordered sets
(found by the search, dropped by the re-check: each finding runs twice in one batch, at
another heap state, then in another interpreter process).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemorph.rows.dataset import SourceRow
from codemorph.perturb import Budget, search_many
from codemorph.jobs.perturb import PerturbConfig, _recheck, perturb_dataset, search_row
from codemorph.perturb.search import OUTPUT_CHANGE, Perturbation, search_limits
from codemorph.sandbox.pool import ExecRequest, Sandbox

BUDGET = Budget(executions=150, seconds=60)
CONFIG = PerturbConfig(output_changes=2, budget=BUDGET, workers=1)

#: found inputs return addresses or identity order; the seed input returns a constant
ADDRESSES = [
    {"id": "paddr", "code": "def f(s):\n    if len(s) >= 3:\n        return 'ok'\n    return str(object())[-4:-1]\n",
     "input": "'abc'", "output": "'ok'"},
    {"id": "paddr2", "code": "def f(n):\n    if n >= 3:\n        return 0\n    return repr(f).split()[-1][-3:-1]\n",
     "input": "3", "output": "0"},
    {"id": "pinst", "code": "class A:\n    def __init__(self, v):\n        self.v = v\ndef f(n):\n    if n >= 3:\n"
     "        return 0\n    objs = [A(i) for i in range(8)]\n    return [a.v for a in {*objs}]\n",
     "input": "3", "output": "0"},
    {"id": "pinst2", "code": "class A:\n    def __init__(self, v):\n        self.v = v\ndef f(n):\n    if n >= 3:\n"
     "        return 0\n    return [a.v for a in frozenset(A(i) for i in range(8))]\n", "input": "3", "output": "0"},
    # a nested function's address: two runs in one forked child repeat it
    {"id": "funcrepr", "code": "def f(x):\n    def g():\n        return x\n    return str(g)\n",
     "input": "3", "output": "'<function f.<locals>.g at 0x7ff684cfc400>'"},
]

CLOCK_AND_RANDOM = [
    {"id": "ptime", "code": "import time\ndef f(n):\n    if n >= 3:\n        return 0\n"
     "    return int(time.time()) // 60 % 1000\n", "input": "3", "output": "0"},
    {"id": "prand", "code": "import random\ndef f(n):\n    if n >= 3:\n        return 0\n"
     "    return random.randint(1, 2)\n", "input": "3", "output": "0"},
    {"id": "dt", "code": "from datetime import datetime\ndef f(x):\n    return x + datetime.now().minute\n",
     "input": "0", "output": "7"},
]

DETERMINISTIC = {"id": "det", "code": "def f(xs, k):\n    if k > 2:\n        return xs[k] * 2\n    return xs[0] + k\n",
                 "input": "[1, 2, 3, 4], 3", "output": "8"}


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(search_limits()) as sb:
        yield sb


def _row(d: dict, line: int = 1) -> SourceRow:
    return SourceRow(d["id"], d["code"], d["input"], d["output"], "f", line)


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_clock_and_random_rows_are_rejected_with_the_source(tmp_path: Path) -> None:
    src = _write(tmp_path / "in.jsonl", CLOCK_AND_RANDOM)
    out = tmp_path / "out.jsonl"
    summary = perturb_dataset(src, out, CONFIG)
    assert out.read_text() == ""
    rejects = [json.loads(line) for line in (tmp_path / "out.rejects.jsonl").read_text().splitlines()]
    assert [(r["id"], r["stage"], r["reason"]) for r in rejects] == [
        ("ptime", "execute", "row 'ptime' (line 1): the program may be nondeterministic: it reads the clock "
                             "(import time), found in its code, so no row of it is written"),
        ("prand", "execute", "row 'prand' (line 2): the program may be nondeterministic: it uses random numbers "
                             "(import random), found in its code, so no row of it is written"),
        ("dt", "execute", "row 'dt' (line 3): the program may be nondeterministic: it reads the clock or the local "
                          "time zone (datetime.now), found in its code, so no row of it is written"),
    ]
    assert (summary.rows_rejected, summary.programs_searched, summary.executions) == (3, 0, 0)


#: an input of each address program whose run returns an address, not the seed's output
ADDRESS_INPUTS = {"paddr": "'ab'", "paddr2": "1", "funcrepr": "4"}


def test_address_findings_are_dropped(sandbox: Sandbox) -> None:
    """Inputs near the seed return addresses (so the test can fail: a search keeping one
    would write it; whether the search's own confirmation run already drops it depends on
    where the address falls, and so does finding the identity-ordered sets); no row is
    written for any of these programs."""
    for d in ADDRESSES:
        row = _row(d)
        res = search_row(row, CONFIG, sandbox)
        assert res.searched and res.rejects == [], d["id"]
        assert res.rows == [], (d["id"], res.rows)
    for name, text in ADDRESS_INPUTS.items():
        d = next(a for a in ADDRESSES if a["id"] == name)
        o = sandbox.run(ExecRequest(d["code"], "f", text))
        assert o.status == "returned" and o.value_repr != d["output"], (name, o.status, o.value_repr)
    # the one whose address is that of the module's function: whether the search's own
    # confirmation already drops it depends on where the address falls (the child's memory
    # layout); whatever the search found, the job's recheck keeps none of it
    row = _row(ADDRESSES[1])
    report = search_many(row.code, row.input, [OUTPUT_CHANGE], BUDGET, _derive(CONFIG, row), want=2,
                         max_results=2, sandbox=sandbox)
    found = {OUTPUT_CHANGE: list(report.found[OUTPUT_CHANGE])}
    kept, _ = _recheck(sandbox, row, found, [p.input for p in found[OUTPUT_CHANGE]], 0)
    assert kept == {OUTPUT_CHANGE: []}


def test_recheck_keeps_reproducible_findings_and_drops_the_rest(sandbox: Sandbox) -> None:
    det = _row(DETERMINISTIC)
    ok = Perturbation("[1, 2, 3, 4], 1", OUTPUT_CHANGE, "returned", None, "2", 1, "mutation")
    wrong = Perturbation("[1, 2, 3, 4], 2", OUTPUT_CHANGE, "returned", None, "5", 1, "mutation")  # really 3
    kept, executions = _recheck(sandbox, det, {OUTPUT_CHANGE: [ok, wrong]}, [ok.input, wrong.input], 10)
    assert kept == {OUTPUT_CHANGE: [ok]}
    # [seed, c1, c2] twice, then c1 under one other hash seed, then c1 with the default stack
    assert executions == 10 + 2 * 3 + 1 + 1
    # a finding recorded from the search's own run of a nested function's address
    fr = _row(ADDRESSES[-1])
    first = sandbox.run_batch([ExecRequest(fr.code, "f", "2")])[0]
    p = Perturbation("2", OUTPUT_CHANGE, "returned", None, first.value_repr, 1, "mutation")
    kept, _ = _recheck(sandbox, fr, {OUTPUT_CHANGE: [p]}, ["2"], 0)
    assert kept == {OUTPUT_CHANGE: []}


def test_deterministic_rows_are_the_search_findings(sandbox: Sandbox) -> None:
    """For a deterministic program the re-check drops nothing: the rows are the search's
    findings, and each row's outcome is what a fresh sandbox run gives."""
    config = PerturbConfig(exceptions=("IndexError", "TypeError"), output_changes=2, budget=BUDGET, workers=1)
    row = _row(DETERMINISTIC)
    res = search_row(row, config, sandbox)
    report = search_many(row.code, row.input, config.targets(), BUDGET, _derive(config, row),
                         want={"IndexError": 1, "TypeError": 1, OUTPUT_CHANGE: 2}, max_results=2, sandbox=sandbox)
    expected = [(t, p.input, p.output) for t in config.targets() for p in report.found[t][: 2 if t == OUTPUT_CHANGE else 1]]
    assert [(r["target"], r["input"], r["output"]) for r in res.rows] == expected
    assert [t for t, _, _ in expected] == ["IndexError", OUTPUT_CHANGE, OUTPUT_CHANGE]
    outs = sandbox.run_batch([ExecRequest(row.code, "f", r["input"]) for r in res.rows])
    for r, o in zip(res.rows, outs):
        assert o.value_repr == r["output"]
        assert (o.exception.type if o.exception else None) == (r["exception"] or {}).get("type")


def _derive(config: PerturbConfig, row: SourceRow) -> int:
    from codemorph.engine.transform import derive_seed
    return derive_seed(config.seed, row.id)


def test_same_command_twice_gives_identical_files(tmp_path: Path) -> None:
    src = _write(tmp_path / "in.jsonl", [DETERMINISTIC, ADDRESSES[0], ADDRESSES[3], CLOCK_AND_RANDOM[1]])
    texts = []
    for k in range(2):
        out = tmp_path / f"out{k}.jsonl"
        perturb_dataset(src, out, CONFIG)
        texts.append((out.read_bytes(), (tmp_path / f"out{k}.rejects.jsonl").read_bytes()))
    assert texts[0] == texts[1]
    ids = [json.loads(line)["id"] for line in texts[0][0].decode().splitlines()]
    assert ids and all(i.startswith("det:") for i in ids)
