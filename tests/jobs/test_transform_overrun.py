"""A transform that the time limit's ``SIGALRM`` cannot stop -- one looping inside C code
(``sum(itertools.count())``) or one catching ``BaseException`` in its loop -- costs its row
when the rows run in worker processes: the parent kills the worker once the transform is
``kill_grace(limit)`` seconds past the limit, rejects the row (stage ``worker``, exception
``WorkerOverran``, naming the transform and the limit), starts a new worker and goes on; the
other rows are written as usual.

The plugins are installed as a real distribution (a ``.dist-info`` with entry points in the
``codemorph.transforms`` group) on ``sys.path`` of the test and of the spawned workers.  They
get stuck only on programs with a ``for`` loop (row ``a`` of ``ROWS``), and find no site on
the others.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from typer.testing import CliRunner

import codemorph.engine.transform as transform_module
from codemorph.cli.main import app
from codemorph.engine.registry import default_registry
from codemorph.jobs.executors import LocalExecutor, kill_grace, map_rows
from plugins import ROWS, install_plugin, read_rows

PLUGIN = textwrap.dedent('''
    import itertools
    import os
    import time

    from codemorph.engine.program import Program
    from codemorph.engine.registry import get_transform
    from codemorph.engine.transform import Transform, set_time_limit


    class CLoop(Transform):
        name = "c-loop"
        family = "test"
        description = "loops inside C code (no signal handler runs) on a program with a for loop"

        def rewrite(self, module, ctx):
            if "for " in ctx.program.source:
                sum(itertools.count())
            return None


    class Swallower(Transform):
        name = "swallower"
        family = "test"
        description = "catches every exception in its loop on a program with a for loop"

        def rewrite(self, module, ctx):
            if "for " in ctx.program.source:
                while True:
                    try:
                        time.sleep(0.01)
                    except BaseException:
                        pass
            return None


    def setup():
        set_time_limit(1)


    def apply_named(state, name):
        """A map_rows row function: the transform ``name`` applied to row a's program;
        ``exit`` ends the worker process instead."""
        if name == "exit":
            os._exit(3)
        return get_transform(name).apply(Program(%r), 0).applied


    def describe(row, exc):
        return f"{row}: {type(exc).__name__}: {exc}"
''' % ROWS[0]["code"])


@pytest.fixture
def stuck_plugins(tmp_path_factory, monkeypatch):
    """The ``c-loop`` and ``swallower`` plugins (distribution ``codemorph-stuck-plugin``,
    module ``codemorph_stuck_plugin``) installed for this test."""
    site = tmp_path_factory.mktemp("site")
    install_plugin(site, monkeypatch, "codemorph-stuck-plugin", "codemorph_stuck_plugin", PLUGIN,
                   {"c-loop": "CLoop", "swallower": "Swallower"})
    default_registry(refresh=True)
    yield
    monkeypatch.undo()
    transform_module.set_time_limit(transform_module.DEFAULT_TIME_LIMIT)
    default_registry(refresh=True)


def overran(transform: str, limit: str = "1", grace: str = "2") -> str:
    return (f"transform {transform!r} was still running {grace} s after its time limit of {limit} s (it was expected "
            "to return, or to be stopped at the limit; a loop inside C code, or a transform that catches the time "
            "limit's exception, cannot be stopped inside its worker): its worker process was killed and a new one "
            "started; the run went on (--transform-time-limit SECONDS changes the limit)")


def test_the_kill_grace_is_the_limit_between_2_and_10_seconds():
    assert [kill_grace(x) for x in (0.5, 1, 4, 60)] == [2.0, 2.0, 4.0, 10.0]


@pytest.mark.parametrize("plugin", ["c-loop", "swallower"])
def test_generate_with_2_workers_kills_the_worker_stuck_past_the_time_limit_and_writes_the_other_rows(
        tmp_path, stuck_plugins, plugin):
    src = tmp_path / "rows.jsonl"
    rows = ROWS + [dict(r, id=r["id"] + "2") for r in ROWS]  # a, b, a2, b2: two stuck rows
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(out), "-t", plugin, "-t", "rename-locals",
                                   "--workers", "2", "--extra-inputs", "2", "--transform-time-limit", "1"])
    assert res.exit_code == 0, res.output
    assert [r["id"] for r in read_rows(out)] == ["b", "b:rename-locals", "b2", "b2:rename-locals"]
    rejects = read_rows(tmp_path / "out.rejects.jsonl")
    assert [(r["id"], r["file"], r["line"], r["stage"], r["exception"], r["transform"], r["time_limit"])
            for r in rejects] == [("a", str(src), 1, "worker", "WorkerOverran", plugin, 1.0),
                                  ("a2", str(src), 3, "worker", "WorkerOverran", plugin, 1.0)]
    assert rejects[0]["reason"] == f"row 'a' (line 1): {overran(plugin)}"
    assert rejects[1]["reason"] == f"row 'a2' (line 3): {overran(plugin)}"


def test_a_stuck_row_in_a_task_of_several_rows_costs_that_row_only(stuck_plugins):
    from codemorph_stuck_plugin import apply_named, describe, setup

    names = ["rename-locals", "c-loop", "rename-locals", "for-to-while", "swallower", "rename-locals"]
    got = list(map_rows(apply_named, names, LocalExecutor(rows_per_task=3), setup=setup, workers=2,
                        on_error=describe))
    assert got == [("rename-locals", True), ("c-loop", f"c-loop: WorkerOverran: {overran('c-loop')}"),
                   ("rename-locals", True), ("for-to-while", True),
                   ("swallower", f"swallower: WorkerOverran: {overran('swallower')}"), ("rename-locals", True)]


def test_a_row_run_alone_after_a_worker_died_is_still_killed_past_the_time_limit(stuck_plugins):
    # the task [exit, c-loop] kills its worker: it is run alone, then each row alone, in a
    # single-worker pool, where c-loop gets stuck: that pool's worker is watched too
    from codemorph_stuck_plugin import apply_named, describe, setup

    got = list(map_rows(apply_named, ["exit", "c-loop", "rename-locals", "rename-locals"],
                        LocalExecutor(rows_per_task=2), setup=setup, workers=2, on_error=describe))
    assert got[1:] == [("c-loop", f"c-loop: WorkerOverran: {overran('c-loop')}"), ("rename-locals", True),
                       ("rename-locals", True)]
    assert got[0][0] == "exit" and got[0][1].startswith("exit: WorkerDied: the worker process processing this row "
                                                         "died (exited with code 3")


def test_without_an_on_error_the_overrun_is_raised_at_its_rows_turn(stuck_plugins):
    from codemorph_stuck_plugin import apply_named, setup
    from codemorph.jobs.executors import WorkerOverran

    it = map_rows(apply_named, ["rename-locals", "c-loop", "rename-locals"], setup=setup, workers=2)
    assert next(it) == ("rename-locals", True)
    with pytest.raises(WorkerOverran) as info:
        next(it)
    assert (info.value.transform, info.value.limit, info.value.grace) == ("c-loop", 1.0, 2.0)
    it.close()
