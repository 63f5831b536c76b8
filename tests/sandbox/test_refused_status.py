"""An execution in which the sandbox's guard refused something has status ``"refused"``.

A plain interpreter would have let the socket / process / file write through, so neither
the ``PermissionError`` the guard raised nor what the program did after catching it is a
behaviour of the program: such an outcome is never completed, compared or written as a
ground truth.
"""

from __future__ import annotations

import pytest

from codemorph.sandbox.pool import COMPLETED_STATUSES, STATUSES, ExecRequest, Limits, Sandbox

SOCKET = "def f(n):\n    if n > 5:\n        import socket\n        s = socket.socket()\n        s.close()\n    return n\n"
CATCHES = ("def f(n):\n    try:\n        import socket\n        socket.socket()\n    except PermissionError:\n"
           "        return -n\n    return n\n")
RAISES_OTHER = ("def f(n):\n    try:\n        open('/etc/codemorph-test', 'w')\n    except OSError:\n"
                "        raise ValueError('no')\n    return n\n")
FORK_TWICE = ("import os\n\ndef f():\n    for _ in range(2):\n        try:\n            os.fork()\n"
              "        except PermissionError:\n            pass\n    return 1\n")
REPR_SOCKET = ("class R:\n    def __repr__(self):\n        import socket\n        try:\n            socket.socket()\n"
               "        except OSError:\n            pass\n        return 'R()'\n\ndef f():\n    return R()\n")
NETWORK = "the sandbox refused network access (socket.__new__)"


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(timeout=5.0, memory=512 * 1024**2)) as sb:
        yield sb


def test_refused_is_a_status_that_never_completes():
    assert "refused" in STATUSES and "refused" not in COMPLETED_STATUSES


def test_socket_refused_on_one_input_only(box):
    six, three = box.run_batch([ExecRequest(SOCKET, "f", "6"), ExecRequest(SOCKET, "f", "3")])
    assert six.status == "refused" and not six.completed and not six.comparable
    assert six.note == f"{NETWORK}; the program then raised PermissionError"
    assert (six.exception, six.value_repr, six.fingerprint, six.args_fingerprint) == (None, None, None, None)
    assert (three.status, three.value_repr, three.note) == ("returned", "3", None)


def test_a_program_that_catches_the_refusal_and_returns_is_still_refused(box):
    o = box.run(ExecRequest(CATCHES, "f", "4", expected_output="-4"))
    assert o.status == "refused" and o.value_repr is None and not o.output_matches
    assert o.note == f"{NETWORK}; the program then returned normally"


def test_a_program_that_raises_something_else_afterwards_is_refused(box):
    o = box.run(ExecRequest(RAISES_OTHER, "f", "1"))
    assert o.status == "refused" and o.exception is None
    assert o.note == ("the sandbox refused writing '/etc/codemorph-test' outside the sandbox's temporary "
                      "directory (open); the program then raised ValueError")


def test_several_refusals_name_the_first_and_count_the_rest(box):
    o = box.run(ExecRequest(FORK_TWICE, "f", ""))
    assert o.note == ("the sandbox refused starting a process (os.fork); 1 more refusal(s); "
                      "the program then returned normally")


def test_a_refusal_while_the_result_is_represented_is_refused(box):
    o = box.run(ExecRequest(REPR_SOCKET, "f", ""))
    assert o.status == "refused" and o.value_repr is None
    assert o.note == (f"{NETWORK} after the program returned, while its result was printed or compared with the "
                      "expected output")


def test_a_refusal_while_the_expected_output_is_evaluated_names_that_step_not_the_program(box):
    o = box.run(ExecRequest("def f(x):\n    return x + 1\n", "f", "1",
                            expected_output="__import__('os').system('true')"))
    assert o.status == "refused" and o.value_repr is None
    assert o.note == ("the sandbox refused starting a process (os.system) after the program returned, while its "
                      "result was printed or compared with the expected output")


def test_the_count_is_per_request(box):
    # the same child runs all four: a refusal does not carry over to the next request
    outs = box.run_batch([ExecRequest(SOCKET, "f", a) for a in ("6", "1", "7", "2")])
    assert [(o.status, o.value_repr) for o in outs] == [("refused", None), ("returned", "1"),
                                                        ("refused", None), ("returned", "2")]


def test_script_mode_refusal(box):
    o = box.run(ExecRequest("import socket\ntry:\n    socket.socket()\nexcept OSError:\n    pass\n", "f", None))
    assert o.status == "refused" and o.note == f"{NETWORK}; the program then returned normally"


def test_starting_a_thread_is_refused():
    # Python 3.11 raises no audit event for a new thread: the child replaces the entry points
    code = ("import threading\ndef f(n):\n    r = []\n    if n > 5:\n"
            "        t = threading.Thread(target=r.append, args=(1,))\n        t.start()\n        t.join()\n"
            "    return n + len(r)\n")
    raw = "import _thread\ndef f(n):\n    _thread.start_new_thread(print, ())\n    return n\n"
    with Sandbox(Limits(timeout=5.0)) as box:
        six, three, low = box.run_batch([ExecRequest(code, "f", "6"), ExecRequest(code, "f", "3"),
                                         ExecRequest(raw, "f", "1")])
    assert (six.status, six.value_repr) == ("refused", None)
    assert six.note.startswith("the sandbox refused starting a thread (_thread.start_new_thread)")
    assert (three.status, three.value_repr) == ("returned", "3")
    assert low.status == "refused"


def test_a_local_socket_pair_is_allowed_but_connecting_is_not():
    # asyncio's event loop makes an AF_UNIX socket pair for itself: no network access
    aio = ("import asyncio\nasync def g(n):\n    await asyncio.sleep(0)\n    return n * 2\n"
           "def f(n):\n    return asyncio.run(g(n))\n")
    unix = "import socket\ndef f(n):\n    s = socket.socket(socket.AF_UNIX)\n    s.connect('/var/run/x.sock')\n    return n\n"
    inet = "import socket\ndef f(n):\n    socket.socket()\n    return n\n"
    with Sandbox(Limits(timeout=5.0)) as box:
        a, u, i = box.run_batch([ExecRequest(aio, "f", "3"), ExecRequest(unix, "f", "1"), ExecRequest(inet, "f", "1")])
    assert (a.status, a.value_repr) == ("returned", "6")
    assert u.status == "refused" and u.note.startswith("the sandbox refused network access (socket.connect)")
    assert i.status == "refused" and i.note.startswith("the sandbox refused network access (socket.__new__)")
