"""What a program can observe of codemorph's sandbox is never taken for its behaviour:
the sandbox's module name and file name in a result's repr, an
output or an exception message; a MemoryError caught at the sandbox's address-space limit;
and a request can run with the stack of CPython's default recursion limit.  Programs run in
the sandbox only; ``_may_catch_memory`` only parses code."""

from __future__ import annotations

import pytest

from codemorph.sandbox import _worker
from codemorph.sandbox.pool import COMPLETED_STATUSES, STATUSES, ExecRequest, Limits, Sandbox

CLASS_REPR = "def f(x):\n    class C:\n        pass\n    return str(C) if x > 3 else 'small'\n"
WARNS = "import warnings\ndef f(x):\n    if x > 3:\n        warnings.warn('big')\n    return x\n"
RAISES_CLASS = "class C:\n    pass\ndef f(x):\n    raise ValueError(C)\n"
PICKLES = "import pickle\nclass C:\n    pass\ndef f(x):\n    return pickle.dumps(C())\n"
MAIN_BLOCK = "def f(x):\n    return x + 1\n\nif __name__ == '__main__':\n    raise SystemExit('ran')\n"
MEMCATCH = ("def f(n):\n    try:\n        b = bytearray(max(n, 1) * 2 ** 27)\n    except {handler}:\n"
            "        return 'no memory'\n    return 'ok'\n")
DEPTH = "def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\n"
MEMORY_NOTE = ("a MemoryError was raised during the run (the sandbox's memory limit) and the program then "
               "returned")


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(timeout=5.0, memory=512 * 1024**2)) as sb:
        yield sb


def test_environment_is_a_status_that_never_completes():
    assert "environment" in STATUSES and "environment" not in COMPLETED_STATUSES


@pytest.mark.parametrize("trace", [False, True])
def test_class_repr_with_the_sandbox_module_name_is_not_kept(box, trace):
    big, small = box.run_batch([ExecRequest(CLASS_REPR, "f", "5", trace=trace),
                                ExecRequest(CLASS_REPR, "f", "1", trace=trace)])
    # before: value_repr "<class 'C'>" (a harness shows "<class '__main__.f.<locals>.C'>")
    assert big.status == "returned" and big.value_repr is None and big.literal_ok is False
    assert big.repr_error == ("repr shows the sandbox's module name ('__codemorph_program__'), which depends "
                              "on the harness that runs the program, so it is not a ground truth")
    assert big.fingerprint == ["str", "<class '__codemorph_program__.f.<locals>.C'>"]  # still compared
    assert small.status == "returned" and small.value_repr == "'small'" and small.literal_ok


def test_warning_printed_with_the_sandbox_file_name_is_environment(box):
    o = box.run(ExecRequest(WARNS, "f", "5"))
    assert o.status == "environment" and not o.completed and o.value_repr is None and o.fingerprint is None
    assert o.note == ("its output shows the sandbox's file name ('<program>'): the outcome depends on the harness "
                      "that runs the program (the program returned), so it is not a ground truth")
    assert box.run(ExecRequest(WARNS, "f", "1")).value_repr == "1"


def test_exception_message_with_the_sandbox_module_name_is_environment(box):
    o = box.run(ExecRequest(RAISES_CLASS, "f", "1"))
    # a plain interpreter says "<class '__main__.C'>", the checker "<class '__check__.C'>"
    assert o.status == "environment" and o.exception is None
    assert o.note == ("its exception message shows the sandbox's module name ('__codemorph_program__'): "
                      "the outcome depends on the harness that runs the program (the program raised ValueError), "
                      "so it is not a ground truth")


def test_pickle_of_a_program_class_works_but_is_not_kept(box):
    # the module is registered (as __main__ is in a plain run), so pickling works; the
    # bytes name the module, so the repr is not kept
    o = box.run(ExecRequest(PICKLES, "f", "1"))
    assert o.status == "returned" and o.value_repr is None and "sandbox's module name" in o.repr_error


def test_main_block_does_not_run(box):
    o = box.run(ExecRequest(MAIN_BLOCK, "f", "2"))
    assert (o.status, o.value_repr) == ("returned", "3")


@pytest.mark.parametrize("handler", ["MemoryError", "Exception", "BaseException", "(ValueError, MemoryError)"])
@pytest.mark.parametrize("trace", [False, True])
def test_caught_memory_error_is_memory(box, handler, trace):
    code = MEMCATCH.format(handler=handler)
    big, small = box.run_batch([ExecRequest(code, "f", "8", trace=trace), ExecRequest(code, "f", "1", trace=trace)])
    # before: returned 'no memory' (a plain interpreter allocates the 1 GiB and returns 'ok')
    assert big.status == "memory" and big.value_repr is None and big.note == MEMORY_NOTE
    assert big.exception is not None and big.exception.type == "MemoryError"
    assert (small.status, small.value_repr) == ("returned", "'ok'")


def test_bare_except_catching_memory_error_is_memory(box):
    code = "def f(n):\n    try:\n        return len(bytearray(n * 2 ** 27))\n    except:\n        return -1\n"
    assert box.run(ExecRequest(code, "f", "8")).status == "memory"
    assert box.run(ExecRequest(code, "f", "1")).value_repr == str(2 ** 27)


@pytest.mark.parametrize("code,expected", [
    ("def f(x):\n    return x\n", False),
    ("def f(x):\n    try:\n        return x[0]\n    except (IndexError, KeyError):\n        return None\n", False),
    ("def f(x):\n    try:\n        return x[0]\n    except ValueError as e:\n        return None\n", False),
    ("def f(x):\n    try:\n        return x[0]\n    except:\n        return None\n", True),
    ("def f(x):\n    try:\n        return x[0]\n    except Exception:\n        return None\n", True),
    ("def f(x):\n    try:\n        return x[0]\n    except (IndexError, MemoryError):\n        return None\n", True),
    ("E = Exception\ndef f(x):\n    try:\n        return x[0]\n    except E:\n        return None\n", True),
    ("def f(x):\n    for i in x:\n        try:\n            x.append(i)\n        finally:\n            break\n", True),
    ("def f(x):\n    try:\n        return x\n    finally:\n        print(x)\n", False),
    ("from contextlib import suppress\ndef f(x):\n    with suppress(Exception):\n        return x[0]\n", True),
    ("class Q:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n        return True\n"
     "def f(x):\n    with Q():\n        return x[0]\n", True),
])
def test_may_catch_memory(code, expected):
    assert _worker._may_catch_memory(code) is expected


def test_request_recursion_limit_counts_frames_as_a_plain_run(box):
    # `python -c` with sys.setrecursionlimit(1000): f(998) returns, f(999) raises
    outs = box.run_batch([ExecRequest(DEPTH, "f", n, recursion_limit=1000) for n in ("998", "999")]
                         + [ExecRequest(DEPTH, "f", "5000")])
    assert (outs[0].status, outs[0].value_repr) == ("returned", "998")
    assert outs[1].status == "raised" and outs[1].exception.type == "RecursionError"
    assert (outs[2].status, outs[2].value_repr) == ("returned", "5000")  # the sandbox's own limit (10,000)


@pytest.mark.parametrize("bad", [0, 10, 1.5, "1000"])
def test_request_recursion_limit_is_checked(bad):
    with pytest.raises(ValueError, match="recursion_limit must be an int >= 50"):
        ExecRequest(DEPTH, "f", "1", recursion_limit=bad).to_wire()


def test_result_repr_uses_the_default_int_digit_limit(box):
    """A program that lifts the int-to-str digit limit returned a 5,001-digit
    output; ``<code>\\nassert f(5000) == <output>`` fails to compile in a harness (the literal
    is parsed at the default limit, before ``f`` runs), so the repr is not kept."""
    code = "import sys\ndef f(n):\n    sys.set_int_max_str_digits(0)\n    return 10 ** n\n"
    big, small = box.run_batch([ExecRequest(code, "f", "5000"), ExecRequest(code, "f", "3")])
    assert big.status == "returned" and big.value_repr is None and big.literal_ok is False
    assert big.repr_error.startswith("ValueError: Exceeds the limit (4300 digits) for integer string conversion")
    assert big.fingerprint is not None and big.comparable
    assert small.value_repr == "1000" and small.literal_ok


DEL_ORDER = ("log = []\nclass A:\n    def __init__(self, n):\n        self.n = n\n    def __del__(self):\n"
             "        log.append(self.n)\ndef f(x):\n    a = A(1)\n    b = A(2)\n    a = None; b = None; return list(log)\n")


@pytest.mark.parametrize("types", [True, False])
def test_traced_run_does_not_keep_dropped_objects_alive(box, types):
    """The types-of-locals tracer read ``f_locals``, whose dict kept ``a`` and
    ``b`` alive until the next line event, so the traced run returned ``[]`` where a plain
    interpreter returns ``[1, 2]``.  A program with ``__del__`` gets no types."""
    o = box.run(ExecRequest(DEL_ORDER, "f", "1", trace=True, types=types))
    assert (o.status, o.value_repr, o.types) == ("returned", "[1, 2]", {})
    assert _worker._observes_lifetimes(DEL_ORDER) and not _worker._observes_lifetimes("def f(x):\n    return x\n")


def test_dataclasses_with_string_annotations_run(box):
    """dataclasses look a class's module up in sys.modules for string annotations: the
    program's module is registered there, as ``__main__`` is in a plain run."""
    code = ("from __future__ import annotations\nfrom dataclasses import dataclass\nfrom typing import ClassVar\n"
            "@dataclass\nclass P:\n    x: int\n    y: ClassVar[int] = 3\n"
            "def f(a):\n    return (P(a).x, P.y, repr(P(a)))\n")
    o = box.run(ExecRequest(code, "f", "1"))
    assert (o.status, o.value_repr) == ("returned", "(1, 3, 'P(x=1)')")


@pytest.mark.parametrize("code,expected", [
    ("import collections\ndef f(x):\n    if x == 7:\n        collections.Counter.most_common = lambda self, n=None: 'p'\n"
     "    return collections.Counter('abca').most_common(1)\n", "[('a', 2)]"),
    ("import json\ndef f(x):\n    if x == 7:\n        json.JSONEncoder.item_separator = ';'\n    return json.dumps([1, x])\n",
     "'[1, 1]'"),
    ("from json import JSONEncoder, dumps\ndef f(x):\n    if x == 7:\n        setattr(JSONEncoder, 'item_separator', ';')\n"
     "    return dumps([1, x])\n", "'[1, 1]'"),
])
def test_patched_class_of_a_loaded_module_does_not_leak(box, code, expected):
    """Input 7 patches a class of an already-loaded module; the next request
    of the batch (input 1) saw the patch, so a deterministic row was rejected."""
    seven, one = box.run_batch([ExecRequest(code, "f", "7"), ExecRequest(code, "f", "1")])
    assert seven.status == "returned" and (one.status, one.value_repr) == ("returned", expected)


def test_patch_detection():
    assert _worker._patches_loaded_objects("import json\ndef f(x):\n    json.JSONEncoder.sep = 1\n")
    assert not _worker._patches_loaded_objects("import json\ndef f(x):\n    y = json.loads(x)\n    y.a = 1\n")
    assert not _worker._patches_loaded_objects("def f(x):\n    x.a = 1\n")
    # a module's own names and os.environ are restored in the child: no fresh child needed
    assert not _worker._patches_loaded_objects("import sys, os\ndef f(x):\n    sys.x = 1\n    os.environ['A'] = x\n")
    assert _worker._patches_loaded_objects("from collections import Counter\ndef f(x):\n    Counter.y = 1\n")
    assert not _worker._patches_loaded_objects("import sys\ndef f(x):\n    setattr(sys, 'x', 1)\n")
    assert _worker._patches_loaded_objects("import json\ndef f(x):\n    setattr(json.JSONEncoder, 'x', 1)\n")
