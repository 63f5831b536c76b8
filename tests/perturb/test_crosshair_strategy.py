"""The perturbation's CrossHair strategy runs in codemorph's one guarded CrossHair process
(:func:`codemorph.verification.crosshair.crosshair_inputs`), outside the sandbox, so it finds
inputs the sandbox's guard would have kept it from finding (Z3 needs ctypes).  Needs
``crosshair-tool``; skipped without it."""

from __future__ import annotations

import pytest

from codemorph.engine.program import Program
from codemorph.perturb.symbolic import crosshair_candidates, crosshair_problem
from codemorph.sandbox.pool import Limits, Sandbox

RAISES_AT = "def f(x):\n    if x == 12345:\n        raise ValueError('found')\n    return x + 1\n"


@pytest.fixture(scope="module")
def sb():
    with Sandbox(Limits(timeout=10)) as box:
        yield box


def test_the_crosshair_strategy_finds_the_one_raising_input(sb):
    pytest.importorskip("crosshair")
    assert crosshair_problem(sb) is None
    cands = crosshair_candidates(sb, Program(RAISES_AT), ([1], {}), seconds=30)
    assert ([12345], {}) in cands


def test_the_crosshair_strategy_is_not_given_a_program_that_reads_the_clock(sb):
    pytest.importorskip("crosshair")
    src = "import time\ndef f(x):\n    if x == 12345:\n        raise ValueError(time.time())\n    return x\n"
    assert crosshair_candidates(sb, Program(src), ([1], {}), seconds=30) == []


def test_the_path_cover_search_process_refuses_writes_outside_its_directory(tmp_path):
    pytest.importorskip("crosshair")
    import json

    from codemorph.verification import crosshair as cb

    target = tmp_path / "written.txt"
    # driven directly: crosshair_inputs never hands a codecs program over (the static test
    # flags it); the process's own guard stands between the search (which picks x == 7) and
    # the user's files
    src = (f"import codecs\ndef f(x: int) -> int:\n    if x == 7:\n"
           f"        codecs.open({str(target)!r}, 'w').write('outside')\n    return x + 1\n")
    driver = cb._COVER_DRIVER % {"mark": cb._MARK, "source": src, "entry": "f", "anns": {"x": "int"}, "budget": 10.0}
    out, status = cb._run_subprocess(driver, 20.0, 4 << 30)
    assert not target.exists()
    assert status == "finished"
    marked = [json.loads(line.split(cb._MARK, 1)[1]) for line in out.split("\n") if cb._MARK in line]
    assert marked[-1] == {"error": f"the program tried writing {str(target)!r} outside the search's temporary "
                                   "directory (open), which the search process refuses; the search's result is not used"}
