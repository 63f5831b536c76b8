"""What line and arc tracing could cost with ``sys.monitoring`` (PEP 669, CPython 3.12+), on
the million-iteration loop of ``bench_tracing.py``, side by side with a plain run in the same
interpreter.

codemorph's sandbox runs on the interpreter it is installed with (3.11 here, which has no
``sys.monitoring``); this script answers whether a newer interpreter would reach issue #17's
targets.  For each interpreter given (default: ``python3.12`` and ``python3.13`` when on the
PATH or under pyenv), it runs, in a fresh process, the loop plain and under four tool set-ups,
each the best of ``--rounds`` runs:

* ``lines``: a ``LINE`` callback that records the line and returns ``DISABLE`` (lines only:
  each location calls back once);
* ``lines + arcs, callback per line``: a ``LINE`` callback on every event that records
  ``(previous line, line)`` (what the Python tracer does);
* ``lines + arcs, branch events``: ``LINE`` and ``JUMP`` disabled after their first event,
  ``BRANCH`` on every event, the arcs then derived from jumps and branches: before 3.14 a
  ``BRANCH`` event can only be disabled for both of its directions at once, so a ``for``
  loop's branch calls back on every iteration until the loop's exit has been seen;
* and, for reference, the ``sys.settrace`` floor (a global trace function returning
  ``None``) and, when that interpreter has coverage.py installed, coverage.py's C tracer with
  arcs (as the sandbox uses it).

Usage::

    python benchmarks/bench_monitoring.py [--python /path/to/python3.12 ...] [--n 1000000] [--rounds 5]

Prints one line per interpreter: the plain time and each set-up's ratio to it.
"""

from __future__ import annotations

import argparse
import glob
import json
import shutil
import subprocess

_SNIPPET = r"""
import json, sys, time
n, rounds = json.loads(sys.argv[1])

def f(n):
    total = 0
    for i in range(n):
        if i % 3:
            total += i
        else:
            total -= 1
    return total

def best():
    out = 1e9
    for _ in range(rounds):
        t0 = time.perf_counter()
        f(n)
        out = min(out, time.perf_counter() - t0)
    return out

res = {"version": sys.version.split()[0], "plain": best()}
sys.settrace(lambda frame, event, arg: None)
res["settrace floor"] = best()
sys.settrace(None)
M = getattr(sys, "monitoring", None)
if M is not None:
    E, TOOL, code = M.events, 3, f.__code__
    M.use_tool_id(TOOL, "codemorph-bench")
    lines, arcs, prev = set(), set(), [None]

    def line_once(c, line):
        lines.add(line)
        return M.DISABLE

    def line_arc(c, line):
        arcs.add((prev[0], line))
        prev[0] = line

    def branch(c, src, dst):
        arcs.add((src, dst))

    def jump_once(c, src, dst):
        arcs.add((src, dst))
        return M.DISABLE

    def run(events, callbacks):
        for ev, cb in callbacks:
            M.register_callback(TOOL, ev, cb)
        M.set_local_events(TOOL, code, events)
        try:
            return best()
        finally:
            M.set_local_events(TOOL, code, 0)
            for ev, _ in callbacks:
                M.register_callback(TOOL, ev, None)
            M.restart_events()

    res["lines"] = run(E.LINE, [(E.LINE, line_once)])
    res["lines + arcs, callback per line"] = run(E.LINE, [(E.LINE, line_arc)])
    res["lines + arcs, branch events"] = run(E.LINE | E.BRANCH | E.JUMP,
                                             [(E.LINE, line_once), (E.BRANCH, branch), (E.JUMP, jump_once)])
try:  # coverage.py's C tracer, when this interpreter has coverage installed
    from coverage.tracer import CTracer, CFileDisposition
except ImportError:
    CTracer = None
if CTracer is not None:
    def disposition(filename, frame):
        d = CFileDisposition()
        d.original_filename = d.canonical_filename = d.source_filename = filename
        d.trace, d.reason, d.file_tracer, d.has_dynamic_filename = True, "", None, False
        return d
    t = CTracer()
    t.data, t.trace_arcs, t.should_trace, t.should_trace_cache = {}, True, disposition, {}
    t.warn = t.lock_data = t.unlock_data = lambda *a, **k: None
    t.concur_id_func = t.should_start_context = t.switch_context = t.check_include = t.disable_plugin = None
    t.file_tracers = {}
    out = 1e9
    for _ in range(rounds):
        t.start()
        t0 = time.perf_counter()
        f(n)
        out = min(out, time.perf_counter() - t0)
        t.stop()
    res["coverage.py C tracer, lines + arcs"] = out
print(json.dumps(res))
"""


def _default_pythons() -> list[str]:
    found = []
    for name in ("python3.12", "python3.13", "python3.14"):
        path = shutil.which(name)
        if path is None:
            hits = sorted(glob.glob(f"/root/.pyenv/versions/{name[6:]}*/bin/{name}"))
            path = hits[-1] if hits else None
        if path is not None:
            try:  # a pyenv shim for a version that is not selected fails here
                subprocess.run([path, "-c", "pass"], check=True, capture_output=True)
            except (OSError, subprocess.CalledProcessError):
                hits = sorted(glob.glob(f"/root/.pyenv/versions/{name[6:]}*/bin/{name}"))
                path = hits[-1] if hits else None
        if path is not None:
            found.append(path)
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python", action="append", help="an interpreter to measure (repeatable)")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    pythons = args.python or _default_pythons()
    if not pythons:
        raise SystemExit("no interpreter with sys.monitoring found; pass --python")
    for py in pythons:
        out = subprocess.run([py, "-I", "-c", _SNIPPET, json.dumps([args.n, args.rounds])],
                             capture_output=True, text=True, check=True)
        res = json.loads(out.stdout)
        plain = res.pop("plain")
        version = res.pop("version")
        print(f"{version}: plain {plain * 1e3:.1f} ms; " +
              "; ".join(f"{k} {v / plain:.2f}x" for k, v in res.items()))


if __name__ == "__main__":
    main()
