"""The CrossHair search process runs untrusted programs outside the sandbox: it refuses
what the sandbox refuses (but ctypes), and flagged programs are never handed to it."""

from __future__ import annotations

import json

import pytest

from codemorph.verification.crosshair import crosshair_diff
from codemorph.engine.program import Program
from codemorph.sandbox.pool import Sandbox


@pytest.fixture(scope="module")
def sb():
    with Sandbox() as s:
        yield s


def test_a_flagged_program_is_not_handed_to_crosshair(sb, tmp_path):
    target = tmp_path / "written.txt"
    src = f"import os\ndef f(x):\n    if x == 7:\n        os.system('echo hi > {target}')\n    return x + 1\n"
    r = crosshair_diff(sb, Program(src), Program(src.replace("x + 1", "1 + x")), "1", seconds=10)
    assert r.status == "unavailable"
    assert r.reason == ("CrossHair is not run on a program that uses the process or its environment "
                        "(os.system): its search process has fewer guards than the sandbox")
    assert not target.exists()


def test_a_program_that_may_read_files_is_not_handed_to_crosshair(sb):
    # the sandbox refuses reading files outside a run's directory; the search process does not
    src = "def f(x):\n    if x == 7:\n        return open('/etc/hostname').read()\n    return x + 1\n"
    r = crosshair_diff(sb, Program(src), Program(src.replace("x + 1", "1 + x")), "1", seconds=10)
    assert r.status == "unavailable"
    assert r.reason == ("CrossHair is not run on a program that may read files (open): its search process "
                        "has fewer guards than the sandbox")


def test_the_search_process_refuses_writes_outside_its_directory(tmp_path):
    pytest.importorskip("crosshair")
    from codemorph.verification import crosshair as cb
    target = tmp_path / "written.txt"
    # the search process itself, on a program the static test would flag (crosshair_diff never
    # hands it over): its audit hook stands between the symbolic search (which picks x == 7)
    # and the user's files
    src = (f"import codecs\ndef f(x: int) -> int:\n    if x == 7:\n"
           f"        codecs.open({str(target)!r}, 'w').write('outside')\n    return x + 1\n")
    driver = cb._DRIVER % {"mark": cb._MARK, "original": src, "rewritten": src.replace("x + 1", "1 + x"),
                           "entry": "f", "anns": {"x": "int"}, "budget": 10.0, "iterations": 50,
                           "policy": "SAME_TYPE"}
    out, status = cb._run_subprocess(driver, 20.0, 4 << 30)
    assert not target.exists()
    assert status == "finished"
    marked = [line.split(cb._MARK, 1)[1] for line in out.split("\n") if cb._MARK in line]
    assert marked == [json.dumps({"error": f"the programs tried writing {str(target)!r} outside the search's "
                                          "temporary directory (open), which the search process refuses; "
                                          "the search's result is not used"})]


def test_the_guarded_search_still_finds_a_difference(sb):
    pytest.importorskip("crosshair")
    a = "def f(x):\n    if x == 12345:\n        return 0\n    return x + 1\n"
    b = "def f(x):\n    return x + 1\n"
    r = crosshair_diff(sb, Program(a), Program(b), "1", seconds=20)
    assert r.status == "differs"
    assert r.candidates == ("12345",)
