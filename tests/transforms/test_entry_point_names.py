"""No renaming gives another function the entry point's old name: a harness that ignores a
row's `entry_point` and calls `f` would otherwise silently run a different function."""

from __future__ import annotations

import pytest

from codemorph import Program
from codemorph.engine.registry import default_registry

CODE = "def helper(x):\n    return x * 2\ndef f(a):\n    b = helper(a)\n    return b + 1\n"
THREE = ("def helper(x):\n    return x * 2\ndef other(y):\n    return y - 1\n"
         "def f(a):\n    return other(helper(a))\n")


@pytest.mark.parametrize("scheme", ["misleading", "natural", "random", "obfuscated"])
@pytest.mark.parametrize("code", [CODE, THREE])
def test_entry_point_name_is_never_given_to_another_function(scheme, code):
    t = default_registry().create("rename-functions", scheme=scheme, entry_point=True)
    for seed in range(20):
        res = t.apply(Program(code), seed, harness=True)
        assert res.applied
        new_entry = res.program.entry_point
        assert new_entry != "f"
        assert "def f(" not in res.source, res.source
        assert f"def {new_entry}(a):" in res.source


def test_misleading_exchange_still_happens_between_helpers():
    t = default_registry().create("rename-functions", scheme="misleading", entry_point=True)
    res = t.apply(Program(THREE), 0, harness=True)
    # the two helpers exchange names; the entry point gets a fresh, unrelated one
    assert res.source == ("def other(x):\n    return x * 2\ndef helper(y):\n    return y - 1\n"
                          "def sum_digits(a):\n    return helper(other(a))\n")
    assert res.program.entry_point == "sum_digits"


def test_rename_locals_refuses_when_an_unbound_local_message_is_returned():
    code = ("def f(x):\n    if x > 0:\n        val = x\n    try:\n        return val\n"
            "    except UnboundLocalError as e:\n        return str(e)\n")
    res = default_registry().create("rename-locals").apply(Program(code), 0, inputs=["-1"], harness=True)
    assert not res.applied
    assert "inspects caught exceptions (except UnboundLocalError as e)" in res.reason
