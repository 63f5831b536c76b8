"""Hostile programs (tests/sandbox/hostile/*.py) are contained by the sandbox and reported.

Each program runs in one sandbox batch followed by a probe program, which must see a clean
interpreter.  Files the programs attack are bait the test creates in its own temporary
directory; the only network target is a listening socket on 127.0.0.1 opened by the test.
The fork bomb is bounded in its own source (32 processes at most, each exiting at once), and
the sandbox refuses ``fork`` before it runs.  Finally a ``generate`` run over a corpus made
of all of them writes the good rows and rejects every hostile row with its reason.
"""

from __future__ import annotations

import json
import os
import socket

import pytest

from codemorph.sandbox.pool import ExecRequest, Limits, Sandbox
from paths import HOSTILE

LIMITS = Limits(timeout=1.0, memory=256 * 1024**2, output=1 << 20, grace=0.5)
# seconds: filling 256 MB page by page takes a while on a loaded machine
SLOW = {"memory_bomb": 10.0}

# a program that depends on what hostile programs try to break; its expected result
PROBE = '''import json
import math
import sys
import collections


def f():
    out = []
    print("probe")
    out.append(len("abc"))
    out.append(sorted([3, 1, 2]))
    out.append(math.sqrt(16.0))
    out.append(json.dumps([1]))
    out.append(sys.modules["json"] is json and sys.modules["collections"] is collections)
    out.append(print.__module__)
    return out
'''
PROBE_RESULT = "[3, [1, 2, 3], 4.0, '[1]', True, 'builtins']"


def source(name: str) -> str:
    return (HOSTILE / f"{name}.py").read_text()


@pytest.fixture(scope="module")
def box():
    with Sandbox(LIMITS) as sb:
        yield sb


@pytest.fixture
def bait(tmp_path):
    """A file and a directory with a file in it, outside the sandbox; yields (file, dir)."""
    f = tmp_path / "bait.txt"
    f.write_text("bait")
    d = tmp_path / "bait-dir"
    d.mkdir()
    (d / "inner.txt").write_text("inner")
    yield f, d
    # the host's files are untouched
    assert f.read_text() == "bait"
    assert (d / "inner.txt").read_text() == "inner"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bait-dir", "bait.txt"]
    assert sorted(p.name for p in d.iterdir()) == ["inner.txt"]


def run_with_probe(box, name: str, args: str = ""):
    outs = box.run_batch([ExecRequest(source(name), "f", args, timeout=SLOW.get(name)), ExecRequest(PROBE, "f", "")])
    probe = outs[1]
    assert (probe.status, probe.value_repr, probe.stdout) == ("returned", PROBE_RESULT, "probe\n"), \
        f"the program after {name} did not see a clean interpreter: {probe}"
    return outs[0]


# (program, expected status, expected exception type or None; for "refused": what the guard refused)
SIMPLE = [
    ("infinite_loop", "timeout", None),
    ("deep_recursion", "raised", "RecursionError"),
    ("memory_bomb", "memory", "MemoryError"),
    ("fork_bomb", "refused", "starting a process (os.fork)"),
    ("sys_exit", "raised", "SystemExit"),
    ("os_exit", "crashed", None),
    ("signal_handlers", "timeout", None),
    ("threads_left_running", "refused", "starting a thread (_thread.start_new_thread)"),
    ("monkeypatch_builtins", "returned", None),
    ("monkeypatch_modules", "returned", None),
    ("huge_output", "output-limit", None),
    ("huge_raw_output", "output-limit", "OSError"),  # RLIMIT_FSIZE: "File too large"
    ("keyboard_interrupt", "raised", "KeyboardInterrupt"),
    ("raise_system_exit", "raised", "SystemExit"),
    ("raise_rlimit", "refused", "changing resource limits (resource.setrlimit)"),
    ("ctypes_escape", "refused", "loading or calling native code with ctypes (ctypes.dlopen)"),
    ("del_raises", "returned", None),
    ("del_hangs", "timeout", None),
]


@pytest.mark.parametrize("name,status,exc", SIMPLE, ids=[s[0] for s in SIMPLE])
def test_contained(box, name, status, exc):
    o = run_with_probe(box, name)
    assert o.status == status, o
    if status == "refused":
        assert_refused(o, exc)
    else:
        assert (o.exception.type if o.exception else None) == exc


def assert_refused(o, what: str) -> None:
    """``o`` is a refusal of ``what`` (the guard's refusal is never the program's exception)."""
    assert o.status == "refused" and not o.completed, o
    assert o.note.startswith(f"the sandbox refused {what}"), o.note
    assert (o.exception, o.value_repr, o.fingerprint) == (None, None, None)


def test_monkeypatching_is_seen_by_the_program_itself(box):
    assert run_with_probe(box, "monkeypatch_builtins").value_repr == "42"
    assert run_with_probe(box, "monkeypatch_modules").value_repr == "-1.0"


def test_output_is_bounded(box):
    for name in ("huge_output", "huge_raw_output"):
        o = run_with_probe(box, name)
        assert o.output_truncated and len(o.stdout.encode()) == LIMITS.output


def test_del_that_raises_is_reported_in_the_note(box):
    # finalizer warnings are GC-timed and carry addresses: kept out of stdout, counted in the note
    o = run_with_probe(box, "del_raises")
    assert o.value_repr == "1" and "RuntimeError" not in o.stdout
    assert o.note == "1 exception(s) ignored in finalizers (RuntimeError); left out of the output"


def test_enormous_and_unrepresentable_results(box):
    big = run_with_probe(box, "enormous_return")
    assert big.status == "returned" and big.value_repr is None and "over the limit" in big.repr_error
    assert not big.literal_ok
    bad = run_with_probe(box, "repr_raises")
    assert bad.status == "returned" and bad.value_repr is None
    assert bad.repr_error == "ValueError: no repr for you"
    slow = run_with_probe(box, "repr_hangs")
    assert slow.value_repr is None and slow.repr_error == "repr timed out"


#: what the guard refuses first for each program attacking the bait file ``{f}``
REFUSED_HOST_FILE = {
    "os_system": "starting a process (os.system)",
    "subprocess_run": "starting a process (subprocess.Popen)",
    "write_outside": "writing {f!r} outside the sandbox's temporary directory (open)",
    "append_outside": "writing {f!r} outside the sandbox's temporary directory (open)",
    "delete_outside": "changing {f!r} outside the sandbox's temporary directory (os.remove)",
    "rename_outside": "changing {f!r} outside the sandbox's temporary directory (os.rename)",
    "chdir_escape": "writing 'bait.txt' outside the sandbox's temporary directory (open)",
    "symlink_escape": "writing 'link.txt' outside the sandbox's temporary directory (open)",
    "read_outside": "reading {f!r} outside the sandbox's temporary directory (open)",
    "sqlite_outside": "opening the database {f!r} outside the sandbox's temporary directory (sqlite3.connect)",
}


@pytest.mark.parametrize("name", sorted(REFUSED_HOST_FILE))
def test_host_file_untouched(box, bait, name):
    f, _ = bait
    o = run_with_probe(box, name, repr(str(f)))
    assert_refused(o, REFUSED_HOST_FILE[name].format(f=str(f)))


@pytest.mark.parametrize("name", ["create_outside", "rmtree_outside"])
def test_host_directory_untouched(box, bait, name):
    _, d = bait
    o = run_with_probe(box, name, repr(str(d)))
    what = {"create_outside": f"writing {str(d / 'new-file.txt')!r} outside the sandbox's temporary directory (open)",
            "rmtree_outside": f"changing {str(d)!r} outside the sandbox's temporary directory (shutil.rmtree)"}
    assert_refused(o, what[name])


def test_files_inside_the_sandbox_directory_are_allowed(box):
    o = run_with_probe(box, "local_files")
    assert (o.status, o.value_repr) == ("returned", "'hello'")
    o = run_with_probe(box, "tempfile_user")
    assert (o.status, o.value_repr) == ("returned", "'ok'")
    o = run_with_probe(box, "sqlite_local")  # a fresh directory: one row, however often it runs
    assert (o.status, o.value_repr) == ("returned", "1")


def test_no_connection_leaves_the_sandbox(box):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.settimeout(0.2)
        o = run_with_probe(box, "network_connect", str(server.getsockname()[1]))
        assert_refused(o, "network access (socket.getaddrinfo)")
        with pytest.raises(socket.timeout):
            server.accept()


def test_cannot_signal_the_host(box):
    o = run_with_probe(box, "kill_host", str(os.getpid()))
    assert_refused(o, "signalling another process (os.kill)")


def test_worker_memory_stays_bounded(box):
    o = run_with_probe(box, "memory_bomb")
    assert o.status == "memory"
    # the program could not raise its own limit either
    assert run_with_probe(box, "raise_rlimit").status == "refused"


def test_generate_rejects_every_hostile_row_and_keeps_going(tmp_path, bait):
    """End to end: one row per hostile program between good rows; good rows are written,
    each hostile row is rejected with a reason, and nothing is lost."""
    from codemorph.jobs.generate import GenerateConfig, generate

    f, _ = bait
    rows = []
    good = "def f(x):\n    return x + 1\n"
    names = ["infinite_loop", "fork_bomb", "write_outside", "delete_outside", "network_connect", "os_exit",
             "monkeypatch_modules", "huge_output", "keyboard_interrupt"]
    args = {"write_outside": repr(str(f)), "delete_outside": repr(str(f)),
            "network_connect": "9"}
    for i, name in enumerate(names):
        rows.append({"id": f"good{i}", "code": good, "input": str(i), "output": str(i + 1)})
        rows.append({"id": name, "code": source(name), "input": args.get(name, ""), "output": "0"})
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    config = GenerateConfig.from_transforms(["rename-locals"], extra_inputs=1, limits=LIMITS)
    summary = generate(inp, out, config)
    written = [json.loads(x) for x in out.read_text().splitlines()]
    rejected = [json.loads(x) for x in (tmp_path / "out.rejects.jsonl").read_text().splitlines()]
    assert sorted({r["original_id"] for r in written}) == sorted(f"good{i}" for i in range(len(names)))
    row_rejects = {r["id"]: r for r in rejected if r.get("kind") != "variant"}
    assert sorted(row_rejects) == sorted(names)
    assert all(r["stage"] == "execute" and r["reason"] for r in row_rejects.values())
    assert "timeout" in row_rejects["infinite_loop"]["reason"]
    # the guard's refusal is no behaviour of the program: the row is rejected as not finishing
    assert "refused" in row_rejects["fork_bomb"]["reason"]
    assert "refused" in row_rejects["write_outside"]["reason"]
    assert "output-limit" in row_rejects["huge_output"]["reason"]
    assert summary.rows_read == len(rows)
    for p in (out, tmp_path / "out.rejects.jsonl", tmp_path / "out.progress.jsonl"):
        p.unlink()
    (tmp_path / "in.jsonl").unlink()


# a program that spells none of the child's reach words (no import) writes outcome frames, in
# the form the child writes them, for itself and the next two requests of its batch (the first
# batch of a sandbox has id 1) to every descriptor it can open by number
FORGE_FRAMES = r'''def f(n):
    p = b'{"status":"returned","value_repr":"0","fingerprint":["int","0"],"literal_ok":true}'
    msg = b""
    for i in range(n, n + 3):
        msg += (len(p) + 9).to_bytes(4, "big") + b"R" + (1).to_bytes(4, "big") + i.to_bytes(4, "big") + p
    written = 0
    for fd in range(3, 64):
        try:
            with open(fd, "wb", closefd=False) as fh:
                fh.write(msg)
            written += 1
        except Exception:
            pass
    return written
'''


def test_a_program_cannot_open_the_result_pipe_to_forge_outcomes():
    # the result pipe is a descriptor the child holds: open(fd) of it (and of the child's
    # other descriptors) is refused, so the forged frames never reach the zygote, and the
    # requests after the program get their own outcomes (they got the forged "0" before)
    plain = "def f(n):\n    return n + 1\n"
    with Sandbox(LIMITS) as sb:
        outs = sb.run_batch([ExecRequest(plain, "f", "0"), ExecRequest(FORGE_FRAMES, "f", "1")]
                            + [ExecRequest(plain, "f", str(n)) for n in (2, 3, 4)])
    assert [o.value_repr for o in outs[2:]] == ["3", "4", "5"]
    assert outs[0].value_repr == "1"
    assert outs[1].status == "refused" and "own file descriptor" in outs[1].note
