"""Process state one execution changes does not leak into the next execution of the same
sandbox child: the same program run three times in one batch sees the same state each time,
as three fresh interpreters would (environment, files in the working directory, umask,
garbage collector, warnings filters, int digit limit, ``sys`` attributes, ...).
"""

from __future__ import annotations

import ast

import pytest

from codemorph.sandbox.pool import ExecRequest, Limits, Sandbox

# Reads the state, then changes all of it.  No module attribute is rebound and nothing is
# registered, so the child is not replaced: the child itself must undo the changes (the
# program reports its pid to show that the three runs share one process).
STATE = '''import gc, os, sys, warnings

def f():
    old_umask = os.umask(0o777)
    seen = {
        "pid": os.getpid(),
        "int digits": sys.get_int_max_str_digits(),
        "environ": os.environ.get("CM_LEAK", ""),
        "cwd entries": sorted(os.listdir(".")),
        "umask": old_umask,
        "cwd mode": oct(os.stat(".").st_mode & 0o777),
        "gc enabled": gc.isenabled(),
        "gc threshold": gc.get_threshold(),
        "gc debug": gc.get_debug(),
        "gc callbacks": len(gc.callbacks),
        "warnings filters": [w[0] for w in warnings.filters],
        "sys attribute": getattr(sys, "cm_leak", None),
        "profile": sys.getprofile() is None,
        "switch interval": sys.getswitchinterval(),
        "meta path": len(sys.meta_path),
        "dont_write_bytecode": sys.dont_write_bytecode,
    }
    sys.set_int_max_str_digits(sys.get_int_max_str_digits() + 1)
    os.environ["CM_LEAK"] = os.environ.get("CM_LEAK", "") + "a"
    open("file%d" % len(os.listdir(".")), "w").close()
    os.makedirs("sub/deeper", exist_ok=True)
    open("sub/deeper/x", "w").close()
    os.chmod("sub/deeper", 0o500)
    os.chmod(".", 0o755)
    gc.disable()
    gc.set_threshold(5, 5, 5)
    gc.callbacks.append(lambda *a: None)
    warnings.simplefilter("error")
    sys.cm_leak = len(os.environ["CM_LEAK"])
    sys.dont_write_bytecode = not sys.dont_write_bytecode
    sys.setprofile(lambda *a: None)
    sys.setswitchinterval(0.5)
    sys.meta_path.append(object())
    return seen
'''

# Changes the child cannot undo: it is replaced before the next request.
CODECS = '''import codecs

def _search(name):
    return codecs.lookup("utf-8") if name == "cmleak" else None

def f():
    try:
        codecs.lookup("cmleak")
        known = True
    except LookupError:
        known = False
    codecs.register(_search)
    return known
'''
DECIMAL = '''import decimal

def f():
    r = str(decimal.Decimal(1) / decimal.Decimal(3))
    decimal.getcontext().prec = 3
    return r
'''
# a warning is printed (to the captured output) unless an earlier program's filter hides it
WARNS = '''import warnings

def f():
    warnings.warn("careful")
    warnings.simplefilter("ignore")
    return 1
'''
# no module at all: files only (the builtin open)
FILES = '''def f(n):
    seen = []
    for name in ("a.txt", "b.txt"):
        try:
            with open(name) as fh:
                seen.append(fh.read())
        except FileNotFoundError:
            seen.append(None)
    with open("a.txt", "w") as fh:
        fh.write(str(n))
    return seen
'''


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(timeout=5.0, memory=512 * 1024**2), workers=1) as sb:
        yield sb


def three_runs(box, code, args=""):
    outs = box.run_batch([ExecRequest(code, "f", args)] * 3)
    assert all(o.status == "returned" for o in outs), outs
    return [ast.literal_eval(o.value_repr) for o in outs]


def test_state_is_restored_between_executions_of_one_child(box):
    runs = three_runs(box, STATE)
    assert len({r.pop("pid") for r in runs}) == 1  # one child: restored, not replaced
    first = runs[0]
    # what a fresh child sees (the umask and thresholds are the interpreter's defaults)
    assert first["int digits"] == 4300 and first["environ"] == "" and first["cwd entries"] == []
    assert first["cwd mode"] == "0o700" and first["gc enabled"] is True and first["gc callbacks"] == 0
    assert first["sys attribute"] is None and first["profile"] is True and first["switch interval"] == 0.005
    assert first["warnings filters"][0] != "error"
    for key in first:
        assert [r[key] for r in runs] == [first[key]] * 3, key


def test_codec_search_functions_cannot_be_unregistered_so_the_child_is_replaced(box):
    assert three_runs(box, CODECS) == [False, False, False]


def test_decimal_context_does_not_leak(box):
    # the decimal modules a program imported are dropped after it: the next import starts afresh
    assert three_runs(box, DECIMAL) == ["0.3333333333333333333333333333"] * 3


def test_a_warnings_filter_does_not_hide_the_next_runs_warning(box):
    outs = box.run_batch([ExecRequest(WARNS, "f", "")] * 3)
    assert [o.stdout for o in outs] == ["<program>:4: UserWarning: careful\n"] * 3


def test_files_written_by_one_execution_are_gone_for_the_next(box):
    outs = box.run_batch([ExecRequest(FILES, "f", str(n)) for n in range(3)])
    assert [o.value_repr for o in outs] == ["[None, None]"] * 3


def test_restoring_does_not_touch_programs_that_change_nothing(box):
    # the same child serves a whole batch of plain programs (no replacement, no leak)
    code = "def f(x):\n    return x * 2\n"
    outs = box.run_batch([ExecRequest(code, "f", str(i)) for i in range(50)])
    assert [o.value_repr for o in outs] == [str(2 * i) for i in range(50)]


def test_a_symlink_out_of_the_work_directory_is_removed(box):
    # the guard would refuse removing it by its resolved path: the next child removes it
    code = "import os\ndef f():\n    seen = sorted(os.listdir('.'))\n    os.symlink('/', 'root')\n    return seen\n"
    assert three_runs(box, code) == [[], [], []]
