"""One exception policy: running a transform never raises, and a failure costs one variant or
one row, never the run.

* A plugin transform that raises on every program (installed for the test as a real
  distribution: a ``.dist-info`` with an entry point in the ``codemorph.transforms`` group,
  on ``sys.path`` of the test and of the spawned workers) next to ``rename-locals``:
  ``codemorph generate`` exits 0, writes every rename-locals variant and names the failing
  transform, its distribution and its error in the rejects file and in the summary.
* A row whose processing raises (a function of the row path monkeypatched to raise for one
  row id) is that row's ``internal`` reject; the other rows are written; exit 0, or 1 with
  ``--fail-on-error``.
"""

from __future__ import annotations

import json
import random
import textwrap
from pathlib import Path

import pytest
from plugins import install_plugin
from typer.testing import CliRunner

import codemorph.jobs.generate
import codemorph.jobs.perturb
from codemorph.cli.main import app
from codemorph.engine.program import Program
from codemorph.engine.registry import Registry, default_registry
from codemorph.engine.transform import Transform

REPO = Path(__file__).resolve().parents[2]
CRUXEVAL = REPO / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"
BUNDLED = REPO / "codemorph" / "data" / "default.jsonl"

PLUGIN = textwrap.dedent('''
    from codemorph.engine.transform import Transform


    class Boom(Transform):
        """Raises on every program (a plugin with a bug)."""

        name = "boom"
        family = "test"
        description = "raises RuntimeError on every program"

        def rewrite(self, module, ctx):
            raise RuntimeError("boom: the plugin failed on purpose")
''')


def _six_rows(tmp_path: Path) -> Path:
    """The first six CRUXEval rows (the bundled data set's when CRUXEval is absent)."""
    src = CRUXEVAL if CRUXEVAL.exists() else BUNDLED
    lines = src.read_text(encoding="utf-8").splitlines()[:6]
    path = tmp_path / "six.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _flat(text: str) -> str:
    """Console text with rich's line wrapping undone."""
    return " ".join(text.split())


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture
def boom_plugin(tmp_path_factory, monkeypatch):
    """Install the ``boom`` plugin (distribution ``codemorph-boom-plugin``) for this test."""
    site = tmp_path_factory.mktemp("site")
    install_plugin(site, monkeypatch, "codemorph-boom-plugin", "codemorph_boom_plugin", PLUGIN, {"boom": "Boom"})
    default_registry(refresh=True)
    assert default_registry().origin("boom") == "codemorph-boom-plugin"
    yield "boom"
    monkeypatch.undo()
    default_registry(refresh=True)


class _Raises(Transform):
    name = "raises-key-error"
    family = "test"

    def rewrite(self, module, ctx):
        return {}["missing"]


def test_apply_turns_an_exception_of_rewrite_into_a_result_with_an_error_record():
    program = Program("def f(x):\n    return x + 1\n")
    Registry([_Raises])  # registered by hand: no distribution is known
    res = _Raises().apply(program, random.Random(0))
    assert res.applied is False and res.program is program
    assert res.reason == "raised KeyError: 'missing'"
    assert (res.error.transform, res.error.distribution, res.error.exception, res.error.message) == \
        ("raises-key-error", "", "KeyError", "'missing'")


def test_a_pipeline_goes_on_after_a_transform_that_raised(boom_plugin):
    from codemorph.engine.pipeline import Sequence_
    from codemorph.engine.registry import get_transform

    program = Program("def f(nums):\n    total = 0\n    for n in nums:\n        total += n\n    return total\n")
    res = Sequence_(get_transform("boom"), get_transform("rename-locals")).apply(program, 0)
    assert [(e.transform, e.distribution, e.exception) for e in res.errors] == \
        [("boom", "codemorph-boom-plugin", "RuntimeError")]
    assert res.applied == ["rename-locals"] and "total" not in res.program.source


@pytest.mark.parametrize("workers", ["1", "2"])
def test_generate_with_a_raising_plugin_writes_every_other_variant_and_exits_0(tmp_path, boom_plugin, workers):
    src = _six_rows(tmp_path)
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(out), "-t", "boom", "-t", "rename-locals",
                                   "--workers", workers, "--extra-inputs", "3"])
    assert res.exit_code == 0, res.output
    rows = _read(out)
    ids = [json.loads(line)["id"] for line in src.read_text().splitlines()]
    assert [r["id"] for r in rows if r["kind"] == "code-transform"] == [f"{i}:rename-locals" for i in ids]
    assert [r["id"] for r in rows if r["kind"] == "original"] == ids
    rejects = _read(tmp_path / "out.rejects.jsonl")
    assert [r["id"] for r in rejects] == [f"{i}:boom" for i in ids]
    first = rejects[0]
    assert {k: first[k] for k in ("original_id", "line", "file", "stage", "transform", "distribution", "exception",
                                  "message", "kind")} == {
        "original_id": ids[0], "line": 1, "file": str(src), "stage": "transform", "transform": "boom",
        "distribution": "codemorph-boom-plugin", "exception": "RuntimeError",
        "message": "boom: the plugin failed on purpose", "kind": "variant"}
    assert "transform 'boom' (from codemorph-boom-plugin) raised RuntimeError" in first["reason"]
    # the summary: an errors column with 6 for boom, 0 for rename-locals, and the total
    table = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
             for line in res.stdout.splitlines() if line.startswith("│")}
    # columns: applied, unreached, weak, not applicable, differs, inconclusive, failed, withheld, errors
    assert table["boom"][:9] == ["0", "0", "0", "0", "0", "0", "0", "0", "6"]
    assert table["rename-locals"][0] == "6" and table["rename-locals"][8] == "0"
    assert "6 errors (unexpected exceptions, in the rejects file)" in _flat(res.stdout)
    assert "boom: a transform raised on 6 rows" in _flat(res.stderr)


def test_generate_fail_on_error_exits_1_after_writing_the_same_files(tmp_path, boom_plugin):
    src = _six_rows(tmp_path)
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(out), "-t", "boom", "-t", "rename-locals",
                                   "--workers", "1", "--extra-inputs", "3", "--fail-on-error"])
    assert res.exit_code == 1, res.output
    assert len([r for r in _read(out) if r["kind"] == "code-transform"]) == 6
    assert "6 unexpected exception(s)" in _flat(res.stderr)


def _raise_for(row_id: str, real):
    def patched(*args, **kwargs):
        program = next(a for a in args if isinstance(a, Program))
        if program.filename == row_id:
            raise ZeroDivisionError("injected for one row")
        return real(*args, **kwargs)
    return patched


@pytest.mark.parametrize("fail_on_error", [False, True])
def test_generate_a_row_that_raises_is_an_internal_reject_and_the_run_goes_on(tmp_path, monkeypatch, fail_on_error):
    src = _six_rows(tmp_path)
    ids = [json.loads(line)["id"] for line in src.read_text().splitlines()]
    monkeypatch.setattr(codemorph.jobs.generate, "make_baseline",
                        _raise_for(ids[2], codemorph.jobs.generate.make_baseline))
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["generate", str(src), "-o", str(out), "-t", "rename-locals", "--workers", "1",
                                   "--extra-inputs", "3"] + (["--fail-on-error"] if fail_on_error else []))
    assert res.exit_code == (1 if fail_on_error else 0), res.output
    assert [r["id"] for r in _read(out) if r["kind"] == "original"] == ids[:2] + ids[3:]
    (rej,) = _read(tmp_path / "out.rejects.jsonl")
    assert (rej["id"], rej["line"], rej["stage"], rej["exception"], rej["message"]) == \
        (ids[2], 3, "internal", "ZeroDivisionError", "injected for one row")
    assert "test_exception_policy.py:" in rej["where"] and rej["where"].endswith(" in patched")
    assert rej["row"]["id"] == ids[2]
    assert "1 errors (unexpected exceptions" in _flat(res.stdout)


def test_perturb_a_row_that_raises_is_an_internal_reject_and_the_run_goes_on(tmp_path, monkeypatch):
    src = _six_rows(tmp_path)
    lines = src.read_text().splitlines()[:3]
    src.write_text("\n".join(lines) + "\n")
    ids = [json.loads(line)["id"] for line in lines]
    monkeypatch.setattr(codemorph.jobs.perturb, "search_many",
                        _raise_for(ids[1], codemorph.jobs.perturb.search_many))
    out = tmp_path / "p.jsonl"
    args = ["perturb", str(src), "-o", str(out), "-e", "IndexError", "--budget", "60", "--workers", "1"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    (rej,) = _read(tmp_path / "p.rejects.jsonl")
    assert (rej["id"], rej["stage"], rej["exception"], rej["message"]) == \
        (ids[1], "internal", "ZeroDivisionError", "injected for one row")
    assert {r["original_id"] for r in _read(out)} <= {ids[0], ids[2]}
    assert "3 rows read, 2 searched" in _flat(res.stdout)
    assert "1 errors (unexpected exceptions" in _flat(res.stdout)
    res = CliRunner().invoke(app, args + ["--fail-on-error"])
    assert res.exit_code == 1, res.output
