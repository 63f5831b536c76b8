"""A plugin transform that never returns (``while True: pass`` in its ``rewrite``, even one
that catches ``Exception`` in its loop) is stopped at the transform time limit: its variant
becomes a reject of stage ``transform`` (exception ``TransformTimeout``, naming the
transform and the limit), the row's other variants are written and the run exits 0, with
1 and 2 workers.

The plugin is installed as a real distribution (a ``.dist-info`` with entry points in the
``codemorph.transforms`` group) on ``sys.path`` of the test and of the spawned workers.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import codemorph.engine.transform as transform_module
from codemorph.cli.main import app
from codemorph.engine.program import Program
from codemorph.engine.registry import default_registry, get_transform
from plugins import ROWS, install_plugin, read_rows as _read

PLUGIN = textwrap.dedent('''
    from codemorph.engine.transform import Transform


    class Hanger(Transform):
        name = "hanger"
        family = "test"
        description = "never returns"

        def rewrite(self, module, ctx):
            while True:
                try:
                    pass
                except Exception:  # does not catch the time limit's exception
                    pass
''')



@pytest.fixture
def hanger_plugin(tmp_path_factory, monkeypatch):
    """The ``hanger`` plugin (distribution ``codemorph-hanger-plugin``) installed for this test."""
    site = tmp_path_factory.mktemp("site")
    install_plugin(site, monkeypatch, "codemorph-hanger-plugin", "codemorph_hanger_plugin", PLUGIN,
                   {"hanger": "Hanger"})
    default_registry(refresh=True)
    yield "hanger"
    monkeypatch.undo()
    transform_module.set_time_limit(transform_module.DEFAULT_TIME_LIMIT)
    default_registry(refresh=True)


def test_apply_stops_a_transform_at_the_time_limit_with_an_error_record(hanger_plugin):
    program = Program(ROWS[0]["code"])
    transform_module.set_time_limit(0.5)
    res = get_transform("hanger").apply(program, 0)
    assert res.applied is False and res.program is program
    assert (res.error.transform, res.error.distribution, res.error.exception) == \
        ("hanger", "codemorph-hanger-plugin", "TransformTimeout")
    assert res.error.message == ("transform 'hanger' did not finish within the time limit of 0.5 s and was stopped "
                                 "(--transform-time-limit SECONDS changes it)")
    # the timer is disarmed afterwards: the next transform runs to its end
    assert get_transform("rename-locals").apply(program, 0).applied is True


def test_a_negative_time_limit_is_refused():
    with pytest.raises(ValueError, match="must be >= 0 seconds"):
        transform_module.set_time_limit(-1)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_generate_with_a_transform_that_never_returns_writes_every_other_variant_and_exits_0(
        tmp_path, hanger_plugin, workers):
    src = tmp_path / "rows.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(out), "-t", "hanger", "-t", "rename-locals",
                                   "--workers", workers, "--extra-inputs", "2", "--transform-time-limit", "1"])
    assert res.exit_code == 0, res.output
    assert [r["id"] for r in _read(out) if r["kind"] == "code-transform"] == ["a:rename-locals", "b:rename-locals"]
    rejects = _read(tmp_path / "out.rejects.jsonl")
    assert [(r["id"], r["original_id"], r["line"], r["stage"], r["transform"], r["exception"]) for r in rejects] == [
        ("a:hanger", "a", 1, "transform", "hanger", "TransformTimeout"),
        ("b:hanger", "b", 2, "transform", "hanger", "TransformTimeout")]
    assert rejects[0]["message"] == ("transform 'hanger' did not finish within the time limit of 1 s and was "
                                     "stopped (--transform-time-limit SECONDS changes it)")


def test_generate_refuses_a_negative_transform_time_limit(tmp_path):
    res = CliRunner().invoke(app, ["generate", "-o", str(tmp_path / "o.jsonl"), "--transform-time-limit", "-1"])
    assert res.exit_code == 2
    assert "--transform-time-limit must be >= 0 seconds, got -1.0" in " ".join(res.output.split())


def test_apply_command_reports_a_transform_stopped_at_the_time_limit_and_runs_the_next(tmp_path, hanger_plugin):
    prog = tmp_path / "p.py"
    prog.write_text(ROWS[1]["code"], encoding="utf-8")
    res = CliRunner().invoke(app, ["apply", str(prog), "-t", "hanger", "-t", "rename-locals",
                                   "--transform-time-limit", "0.5"])
    assert res.exit_code == 0, res.output
    assert res.stdout == "def f(s):\n    base_mark = s.upper()\n    return base_mark\n"
    assert " ".join(res.stderr.split()) == (
        "hanger: not applied: raised TransformTimeout: transform 'hanger' did not finish within the time limit of "
        "0.5 s and was stopped (--transform-time-limit SECONDS changes it)")


def test_a_callers_running_sigalrm_timer_and_handler_are_left_as_they_are():
    import signal

    def mine(signum, frame):  # pragma: no cover - never fires: cancelled below
        raise AssertionError("the caller's timer fired")

    previous = signal.signal(signal.SIGALRM, mine)
    try:
        signal.setitimer(signal.ITIMER_REAL, 100.0)
        res = get_transform("rename-locals").apply(Program(ROWS[1]["code"]), 0)
        remaining = signal.getitimer(signal.ITIMER_REAL)[0]
        handler = signal.getsignal(signal.SIGALRM)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert res.applied is True
    assert 0 < remaining <= 100.0 and handler is mine


def _in_thread(fn):
    """``fn()`` run in a thread of its own (not the main thread): its result, or its exception raised."""
    import threading

    box = {}

    def run():
        try:
            box["result"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


def test_apply_outside_the_main_thread_stops_a_transform_at_the_time_limit(hanger_plugin):
    program = Program(ROWS[0]["code"])
    transform_module.set_time_limit(0.5)
    res, after = _in_thread(lambda: (get_transform("hanger").apply(program, 0),
                                     get_transform("rename-locals").apply(program, 0)))
    assert (res.applied, res.error.exception) == (False, "TransformTimeout")
    assert res.error.message == ("transform 'hanger' did not finish within the time limit of 0.5 s and was stopped "
                                 "(--transform-time-limit SECONDS changes it)")
    assert after.applied is True  # nothing is raised into the thread after its application


def test_a_transform_is_stopped_at_the_time_limit_beside_a_callers_running_sigalrm_timer(hanger_plugin):
    import signal

    def mine(signum, frame):  # pragma: no cover - never fires: cancelled below
        raise AssertionError("the caller's timer fired")

    transform_module.set_time_limit(0.5)
    previous = signal.signal(signal.SIGALRM, mine)
    try:
        signal.setitimer(signal.ITIMER_REAL, 100.0)
        res = get_transform("hanger").apply(Program(ROWS[1]["code"]), 0)
        remaining = signal.getitimer(signal.ITIMER_REAL)[0]
        handler = signal.getsignal(signal.SIGALRM)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert (res.applied, res.error.exception) == (False, "TransformTimeout")
    assert 0 < remaining <= 100.0 and handler is mine


def _hanger_rejects(out: Path) -> list[tuple]:
    return [(r["id"], r["stage"], r["transform"], r["exception"]) for r in _read(out.with_name("out.rejects.jsonl"))]


@pytest.mark.parametrize("workers", [1, 2])
def test_generate_called_outside_the_main_thread_stops_a_transform_at_the_time_limit(tmp_path, hanger_plugin,
                                                                                       workers):
    from codemorph.jobs.generate import GenerateConfig, generate

    src = tmp_path / "rows.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    config = GenerateConfig.from_transforms(["hanger", "rename-locals"], workers=workers, extra_inputs=2,
                                            transform_time_limit=1)
    summary = _in_thread(lambda: generate(src, out, config))
    assert (summary.rows_read, summary.variants_written, summary.variants_rejected) == (2, 2, 2)
    assert [r["id"] for r in _read(out) if r["kind"] == "code-transform"] == ["a:rename-locals", "b:rename-locals"]
    assert _hanger_rejects(out) == [("a:hanger", "transform", "hanger", "TransformTimeout"),
                                    ("b:hanger", "transform", "hanger", "TransformTimeout")]


def test_generate_on_dask_worker_threads_stops_a_transform_at_the_time_limit(tmp_path, hanger_plugin):
    distributed = pytest.importorskip("distributed")
    from codemorph.jobs.executors import DaskExecutor
    from codemorph.jobs.generate import GenerateConfig, generate

    src = tmp_path / "rows.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    config = GenerateConfig.from_transforms(["hanger", "rename-locals"], extra_inputs=2, transform_time_limit=1)
    # worker threads in this process (processes=False), where the plugin is on sys.path
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as client:
        generate(src, out, config, executor=DaskExecutor(client, rows_per_task=1))
    assert [r["id"] for r in _read(out) if r["kind"] == "code-transform"] == ["a:rename-locals", "b:rename-locals"]
    assert _hanger_rejects(out) == [("a:hanger", "transform", "hanger", "TransformTimeout"),
                                    ("b:hanger", "transform", "hanger", "TransformTimeout")]
