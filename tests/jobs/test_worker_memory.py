"""Each worker process of ``generate`` and ``perturb`` has a cap on its address space
(``--worker-memory``, ``RLIMIT_AS``): a row that makes the host allocate beyond it costs that
row (or that variant), with a reason naming the cap and the option, and the other rows are
written; a row that kills its worker process costs that row only; the 4,546-line program of
``benchmarks/make_large_program.py`` goes through two transforms under the default cap."""

from __future__ import annotations

import importlib.util
import json
import os
import textwrap
from functools import partial
from pathlib import Path

import pytest
from paths import CRUXEVAL, REPO
from plugins import install_plugin
from typer.testing import CliRunner

from codemorph.cli.common import WORKER_MEMORY_MIB
from codemorph.cli.main import app
from codemorph.engine.registry import default_registry
from codemorph.jobs.executors import map_rows, memory_cap, memory_cap_reason
from codemorph.jobs.generate import GenerateConfig, generate

MiB = 1024**2


# -- map_rows with a memory cap (module-level functions: picklable by reference) -------------------
def vm_size() -> int:
    """This process's address space now, in bytes (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmSize")


def allocate_for(hog: int, state, x: int) -> tuple[int, int | None]:
    """``x * x`` and the cap; row ``hog`` first allocates 400 MiB more than this worker has
    left under its cap."""
    if x == hog:
        cap = memory_cap()
        assert cap is not None
        block = bytearray(cap - vm_size() + 400 * MiB)
        return len(block), cap
    return x * x, memory_cap()


def memory_reject(x: int, exc: Exception) -> str:
    return f"reject {x}: {type(exc).__name__}: {memory_cap_reason()}"


def baseline(state, x: int) -> int:
    return vm_size()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_a_row_that_allocates_beyond_the_worker_cap_is_rejected_naming_the_cap():
    # the cap: 300 MiB above what a worker process of this map takes before any row
    base = max(r for _, r in map_rows(baseline, range(2), workers=2))
    cap = (base // MiB + 300) * MiB
    out = list(map_rows(partial(allocate_for, 4), range(10), workers=2, memory=cap, on_error=memory_reject))
    assert [x for x, _ in out] == list(range(10))
    assert [r for x, r in out if x != 4] == [(x * x, cap) for x in range(10) if x != 4]
    assert dict(out)[4] == (f"reject 4: MemoryError: the worker's host process reached its memory cap of "
                            f"{cap // MiB} MiB of address space (--worker-memory MiB raises it)")


# -- generate, with plugin transforms that hog memory or kill their worker --------------------------
PLUGIN = textwrap.dedent('''
    import os
    import signal

    from codemorph.engine.transform import Transform


    class Hog(Transform):
        """Allocates 8 GiB for a program that names ``hog_me`` (a plugin with a memory bug)."""

        name = "hog"
        family = "test"
        description = "allocates 8 GiB on programs naming hog_me"

        def rewrite(self, module, ctx):
            if "hog_me" in module.code:
                block = bytearray(8 * 1024**3)
                block[-1] = 1
            return module


    class Crash(Transform):
        """Kills its own process on a program that names ``crash_me`` (as a native crash would)."""

        name = "crash"
        family = "test"
        description = "SIGKILLs its process on programs naming crash_me"

        def rewrite(self, module, ctx):
            if "crash_me" in module.code:
                os.kill(os.getpid(), signal.SIGKILL)
            return module
''')


@pytest.fixture
def test_plugins(tmp_path_factory, monkeypatch):
    """Install the ``hog`` and ``crash`` transforms (distribution ``codemorph-test-hazards``)."""
    site = tmp_path_factory.mktemp("site")
    install_plugin(site, monkeypatch, "codemorph-test-hazards", "codemorph_test_hazards", PLUGIN,
                   {"hog": "Hog", "crash": "Crash"})
    default_registry(refresh=True)
    yield
    monkeypatch.undo()
    default_registry(refresh=True)


def _rows(tmp_path: Path, names: list[str]) -> Path:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": name, "code": f"def f(x):\n    {name} = x + 1\n    return {name}\n",
                                       "input": "1", "output": "2"}) + "\n" for name in names))
    return src


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_generate_rejects_the_variant_whose_transform_exceeds_the_worker_cap(tmp_path, test_plugins):
    src = _rows(tmp_path, ["a", "hog_me", "b", "c"])
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(out), "-t", "hog", "-t", "rename-locals",
                                   "--workers", "2", "--worker-memory", "1024", "--extra-inputs", "3",
                                   "--min-inputs", "1"])
    assert res.exit_code == 0, res.output
    ids = [r["id"] for r in _read(out)]
    assert ids == ["a", "a:rename-locals", "hog_me", "hog_me:rename-locals", "b", "b:rename-locals",
                   "c", "c:rename-locals"]
    (reject,) = _read(tmp_path / "out.rejects.jsonl")
    assert reject["id"] == "hog_me:hog"
    assert ("transform 'hog' (from codemorph-test-hazards) raised MemoryError: the worker's host process reached "
            "its memory cap of 1024 MiB of address space (--worker-memory MiB raises it); the variant is not "
            "written") in reject["reason"]


def test_generate_rejects_the_row_that_kills_its_worker_and_writes_the_others(tmp_path, test_plugins):
    src = _rows(tmp_path, ["a", "b", "crash_me", "c", "d"])
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(out), "-t", "rename-locals", "-t", "crash",
                                   "--workers", "2", "--extra-inputs", "3", "--min-inputs", "1"])
    assert res.exit_code == 0, res.output
    assert [r["id"] for r in _read(out)] == ["a", "a:rename-locals", "b", "b:rename-locals", "c",
                                              "c:rename-locals", "d", "d:rename-locals"]
    (reject,) = _read(tmp_path / "out.rejects.jsonl")
    assert (reject["id"], reject["stage"], reject["exitcode"], reject["line"]) == ("crash_me", "worker", -9, 3)
    assert reject["file"] == str(src)
    assert reject["reason"] == ("row 'crash_me' (line 3): the worker process processing this row died (killed "
                                "by signal 9 (SIGKILL): out of memory or killed from outside); the row was run "
                                "alone to confirm")


# -- the 4,546-line program under the default cap ------------------------------------------------
def _large_row() -> dict:
    if not CRUXEVAL.exists():
        pytest.skip(f"shared data not available: {CRUXEVAL} (expected at <repo>/../shared/data)")
    spec = importlib.util.spec_from_file_location("make_large_program", REPO / "benchmarks" / "make_large_program.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = [json.loads(line) for line in CRUXEVAL.read_text().splitlines() if line.strip()]
    return module.build(rows, 4500, 40)


def test_the_4546_line_program_goes_through_two_transforms_under_the_default_worker_cap(tmp_path):
    row = _large_row()
    assert row["code"].count("\n") == 4546
    src = tmp_path / "large.jsonl"
    src.write_text(json.dumps(row) + "\n")
    out = tmp_path / "out.jsonl"
    # two workers: the rows go to capped worker processes, not to this one
    summary = generate(src, out, GenerateConfig.from_transforms(("rename-locals", "dead-code"), workers=2,
                                                                worker_memory=WORKER_MEMORY_MIB * MiB))
    assert summary.rows_rejected == 0 and summary.variants_rejected == 0
    assert [r["id"] for r in _read(out)] == ["large_0", "large_0:rename-locals", "large_0:dead-code"]
    (worker,) = summary.memory.values()
    assert worker.worker != os.getpid() and 0 < worker.host < WORKER_MEMORY_MIB * MiB


@pytest.mark.parametrize("command", ["generate", "perturb"])
def test_a_worker_memory_cap_too_small_for_python_is_a_usage_error(tmp_path, command):
    res = CliRunner().invoke(app, [command, "-o", str(tmp_path / "out.jsonl"), "--worker-memory", "100"])
    assert res.exit_code == 2
    assert "--worker-memory must be 0 (no cap) or at least 256 MiB, got 100" in " ".join(res.output.split())
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("command", ["generate", "perturb"])
def test_a_worker_memory_cap_beyond_what_setrlimit_takes_is_a_usage_error(tmp_path, command):
    # 2**63 bytes and more: every worker would die on setrlimit, every row rejected
    res = CliRunner().invoke(app, [command, "-o", str(tmp_path / "out.jsonl"), "--worker-memory",
                                   "99999999999999999999"])
    assert res.exit_code == 2
    assert ("--worker-memory must be at most 8796093022207 MiB (the largest address-space limit the system "
            "takes), or 0 for no cap, got 99999999999999999999") in " ".join(res.output.split())
    assert not (tmp_path / "out.jsonl").exists()
