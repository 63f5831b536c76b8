"""The child skips comparing the builtins dict with its snapshot while the dict's PEP 509
version tag shows it unchanged (``_Child.restore_builtins``): a builtin a program rebinds,
adds or deletes, even to an equal value, is still undone before the next execution."""

from __future__ import annotations

import builtins
import sys

import pytest

from codemorph.sandbox._workerlib import child
from codemorph.sandbox.pool import ExecRequest, Sandbox


@pytest.mark.skipif(sys.implementation.name != "cpython" or not (3, 10) <= sys.version_info[:2] <= (3, 13),
                    reason="the version tag is read on CPython 3.10-3.13 only")
def test_version_tag_of_builtins_changes_with_every_change():
    tag = child._BUILTINS_TAG
    assert tag is not None
    seen = [tag.value]
    builtins.cm_probe = 1
    seen.append(tag.value)
    builtins.cm_probe = 2
    seen.append(tag.value)
    del builtins.cm_probe
    seen.append(tag.value)
    assert len(set(seen)) == 4


def test_version_tag_refuses_a_view_it_cannot_confirm(monkeypatch):
    monkeypatch.setattr(child.sys, "version_info", (3, 14, 0))
    assert child._version_tag({}) is None


REBIND = '''import builtins

def f(how):
    seen = (len("abc"), hasattr(builtins, "cm_added"), abs(-2))
    if how == "rebind":
        builtins.len = lambda x: 42
    elif how == "add":
        builtins.cm_added = 1
    elif how == "delete":
        del builtins.abs
    elif how == "equal":
        builtins.cm_big = 10 ** 30
        builtins.cm_big = 10 ** 30 + 0
        del builtins.cm_big
    return seen
'''

SIMPLE = "def f(x):\n    return (len(x), abs(-2))\n"


@pytest.mark.parametrize("how", ["rebind", "add", "delete", "equal"])
def test_builtin_changed_by_a_program_is_undone_for_the_next_request(how):
    with Sandbox() as sb:
        out = sb.run_batch([ExecRequest(code=REBIND, args=repr(how)),
                            ExecRequest(code=REBIND, args="'none'"),
                            ExecRequest(code=SIMPLE, args="'abcd'")])
    assert [o.status for o in out] == ["returned"] * 3
    assert out[0].value_repr == "(3, False, 2)"
    assert out[1].value_repr == "(3, False, 2)"
    assert out[2].value_repr == "(4, 2)"

