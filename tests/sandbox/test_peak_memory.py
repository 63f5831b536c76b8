"""The sandbox reports the peak resident memory of the processes that ran programs, and an
execution cannot grow past its address-space limit."""

from __future__ import annotations

from codemorph.sandbox.pool import ExecRequest, Limits, Sandbox

MIB = 1024 * 1024


def R(code, args=""):
    return ExecRequest(code=code, entry_point="f", args=args)


def test_peak_memory_shows_a_programs_allocation():
    with Sandbox(Limits(timeout=10, memory=1024 * MIB)) as box:
        assert box.peak_memory == 0  # no batch yet
        small = box.run_batch([R("def f():\n    return 1\n")])
        assert small[0].status == "returned"
        before = box.peak_memory
        assert 0 < before < 200 * MIB
        # 300 MiB written (a bytes repetition touches every page)
        outs = box.run_batch([R("def f():\n    data = b'x' * (300 * 1024 * 1024)\n    return len(data)\n")])
        assert outs[0].status == "returned" and outs[0].value_repr == str(300 * MIB)
        assert box.peak_memory >= 300 * MIB


def test_program_over_the_limit_is_stopped_below_it():
    with Sandbox(Limits(timeout=10, memory=256 * MIB)) as box:
        outs = box.run_batch([R("def f():\n    data = b'x' * (600 * 1024 * 1024)\n    return len(data)\n"),
                              R("def f():\n    xs = []\n    while True:\n        xs.append(b'y' * 10**7)\n")])
        assert [o.status for o in outs] == ["memory", "memory"]
        assert 0 < box.peak_memory <= 256 * MIB


def test_peak_memory_is_kept_after_close():
    with Sandbox(Limits(timeout=10, memory=1024 * MIB)) as box:
        box.run_batch([R("def f():\n    data = b'x' * (200 * 1024 * 1024)\n    return len(data)\n")])
        peak = box.peak_memory
        assert peak >= 200 * MIB
    assert box.peak_memory == peak  # the workers are gone, their peak is not
