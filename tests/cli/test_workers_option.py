"""``--workers 0`` (the default of every command) means :func:`codemorph.jobs.executors.default_workers`:
one more than the CPUs this process may use (affinity, capped by a cgroup CPU quota).

The jobs themselves are replaced by stand-ins that record the worker count they were given
and stop the command, so no program runs here.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import codemorph.jobs.executors as executors
from codemorph.cli.main import app
from codemorph.errors import InputError

ROW = '{"id": "r0", "code": "def f(x):\\n    return x\\n", "input": "1", "output": "1"}\n'


def test_usable_cpus_is_the_affinity_capped_by_the_cgroup_quota(monkeypatch):
    monkeypatch.setattr(executors.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3, 4, 5}, raising=False)
    monkeypatch.setattr(executors, "_cgroup_cpu_quota", lambda: None)
    assert executors.usable_cpus() == 6 and executors.default_workers() == 7
    monkeypatch.setattr(executors, "_cgroup_cpu_quota", lambda: 2)
    assert executors.usable_cpus() == 2 and executors.default_workers() == 3


@pytest.fixture
def seen(monkeypatch):
    """Worker counts the jobs were called with (default_workers() made to return 5)."""
    monkeypatch.setattr(executors, "default_workers", lambda: 5)
    got: dict[str, int] = {}

    def stop(name, workers):
        got[name] = workers
        raise InputError("stopped by the test")

    import codemorph.jobs.generate
    import codemorph.jobs.perturb
    import codemorph.scoring.analyze
    import codemorph.scoring.evaluate

    monkeypatch.setattr(codemorph.jobs.generate, "generate", lambda i, o, config, **kw: stop("generate", config.workers))
    monkeypatch.setattr(codemorph.jobs.perturb, "perturb_dataset",
                        lambda i, o, config, **kw: stop("perturb", config.workers))
    monkeypatch.setattr(codemorph.scoring.evaluate, "evaluate_paths", lambda *a, **kw: stop("evaluate", kw["workers"]))
    monkeypatch.setattr(codemorph.scoring.analyze, "analyze", lambda *a, **kw: stop("analyze", kw["workers"]))
    return got


@pytest.mark.parametrize("command", ["generate", "perturb", "evaluate", "analyze"])
def test_every_command_defaults_to_default_workers(tmp_path, seen, command):
    src = tmp_path / "in.jsonl"
    src.write_text(ROW)
    args = {"generate": ["generate", str(src), "-o", str(tmp_path / "out.jsonl"), "-t", "rename-locals"],
            "perturb": ["perturb", str(src), "-o", str(tmp_path / "out.jsonl")],
            "evaluate": ["evaluate", str(src), "-p", str(tmp_path / "preds.jsonl")],
            "analyze": ["analyze", str(src), "-r", str(tmp_path / "scores.jsonl"), "-o", str(tmp_path / "report")]}
    res = CliRunner().invoke(app, args[command])
    assert res.exit_code == 2 and "stopped by the test" in res.output, res.output
    assert seen == {command: 5}
    seen.clear()
    res = CliRunner().invoke(app, args[command] + ["--workers", "2"])
    assert res.exit_code == 2 and seen == {command: 2}


@pytest.mark.parametrize("command", ["generate", "perturb", "evaluate", "analyze"])
def test_the_help_says_what_the_default_is(command):
    res = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "400"})
    assert res.exit_code == 0
    assert executors.DEFAULT_WORKERS_HELP in " ".join(res.output.split())
