"""Packaging: the wheel installs `codemorph.transforms` and no top-level `transforms`, ships
the default data set, and declares the built-ins as entry points; installed (not editable) into a
fresh venv it runs every command from outside the checkout; a separately installed plugin shows up
in `list` and works in `apply` and `generate`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from paths import REPO


BIN = Path(sys.executable).parent


def _pip(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pip", *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    res = _pip("wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(REPO))
    assert res.returncode == 0, res.stderr
    (whl,) = out.glob("codemorph-*.whl")
    return whl


def test_wheel_layout(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.startswith("transforms/")]
    assert "codemorph/transforms/__init__.py" in names
    assert "codemorph/data/default.jsonl" in names
    eps = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(eps).decode()
    assert "[codemorph.transforms]" in text
    assert "rename-locals = codemorph.transforms.naming:RenameLocals" in text


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory):
    target = tmp_path_factory.mktemp("plugin")
    res = _pip("install", "--no-deps", "--no-build-isolation", "-q", "--target", str(target),
               str(REPO / "examples" / "custom_transform"))
    assert res.returncode == 0, res.stderr
    return target


def _cli(args, plugin_path, cwd):
    env = dict(os.environ, PYTHONPATH=str(plugin_path))
    return subprocess.run([str(BIN / "codemorph"), *args], cwd=cwd, env=env, capture_output=True, text=True)


def test_plugin_appears_in_list_and_works_in_apply_and_generate(plugin_path, tmp_path):
    listed = _cli(["list"], plugin_path, tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "double-negation" in listed.stdout and "codemorph-example-plugin" in listed.stdout

    prog = tmp_path / "p.py"
    prog.write_text("def f(x):\n    if x > 1:  # big\n        return 1\n    return 0\n")
    applied = _cli(["apply", str(prog), "-t", "double-negation"], plugin_path, tmp_path)
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout == "def f(x):\n    if not not (x > 1):  # big\n        return 1\n    return 0\n"

    rows = tmp_path / "in.jsonl"
    rows.write_text(json.dumps({"id": "a", "code": prog.read_text(), "input": "3", "output": "1"}) + "\n")
    gen = _cli(["generate", str(rows), "-o", str(tmp_path / "out.jsonl"), "-t", "double-negation",
                "--workers", "1"], plugin_path, tmp_path)
    assert gen.returncode == 0, gen.stderr + gen.stdout
    out = [json.loads(l) for l in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["id"] for r in out] == ["a", "a:double-negation"]
    assert "not not (x > 1)" in out[1]["code"] and out[1]["output"] == "1"
    assert out[1]["verification"]["status"] == "equivalent"


# ---------------------------------------------------------------------------------------
# the wheel installed into a fresh venv (not editable), used from outside the checkout

COMMANDS = ("generate", "list", "apply", "verify", "recipes", "perturb", "evaluate", "analyze")
#: two small programs a user could bring; their outputs are what CRUXEval's harness would
#: record (checked below against the written rows, not taken on trust)
TWO_ROWS = [
    {"id": "sum_evens", "code": "def f(xs):\n    total = 0\n    for x in xs:\n        if x % 2 == 0:\n"
                                "            total += x\n    return total\n", "input": "[1, 2, 3, 4]", "output": "6"},
    {"id": "pick", "code": "def f(items, k):\n    out = []\n    for i in range(k):\n        out.append(items[i])\n"
                           "    return out\n", "input": "['a', 'b', 'c'], 2", "output": "['a', 'b']"},
]


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """``(python, codemorph script)`` of a fresh venv holding the wheel (``--no-deps``).

    The venv is created without pip and without system site-packages; its dependencies
    come from this test venv's site-packages through a ``.pth`` file (no download).  The
    test venv's own codemorph is editable, activated by a ``.pth`` file there, and ``.pth``
    files of a directory added by a ``.pth`` line are not processed, so only the wheel's
    codemorph is importable (asserted by :func:`test_installed_wheel_is_imported_from_the_venv`)."""
    import sysconfig
    root = tmp_path_factory.mktemp("venv") / "v"
    res = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    python = root / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    assert not any(Path(d).resolve() == REPO.resolve() for d in deps)
    Path(site, "_codemorph_test_dependencies.pth").write_text("".join(f"{d}\n" for d in sorted(deps)))
    res = _pip("--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel))
    assert res.returncode == 0, res.stderr
    return python, root / "bin" / "codemorph"


def _outside(tmp_path_factory) -> Path:
    cwd = tmp_path_factory.mktemp("elsewhere")
    assert REPO.resolve() not in cwd.resolve().parents
    return cwd


def test_installed_wheel_is_imported_from_the_venv(installed, tmp_path_factory):
    python, _ = installed
    cwd = _outside(tmp_path_factory)
    res = subprocess.run([str(python), "-c", "import codemorph, codemorph.transforms.naming as n; "
                          "print(codemorph.__file__); print(n.__file__)"],
                         cwd=cwd, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=""))
    assert res.returncode == 0, res.stderr
    venv = python.parent.parent.resolve()
    for line in res.stdout.split():
        assert venv in Path(line).resolve().parents, line
        assert REPO.resolve() not in Path(line).resolve().parents, line


@pytest.mark.parametrize("command", COMMANDS)
def test_installed_command_help(installed, command, tmp_path_factory):
    _, codemorph = installed
    res = subprocess.run([str(codemorph), command, "--help"], cwd=_outside(tmp_path_factory),
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=""))
    assert res.returncode == 0, res.stderr
    assert f"Usage: codemorph {command}" in res.stdout


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _assert_rows_hold(sandbox, rows: list[dict]) -> None:
    """Each written row's ground truth is what executing its code on its input gives
    (run in this venv's sandbox): the returned value's repr, or the exception class."""
    from codemorph.sandbox.pool import ExecRequest
    outs = sandbox.run_batch([ExecRequest(r["code"], r.get("entry_point", "f"), r["input"]) for r in rows])
    for row, o in zip(rows, outs):
        if row.get("exception"):
            assert o.status == "raised" and o.exception.type == row["exception"]["type"], (row["id"], o)
        else:
            assert o.status == "returned" and o.value_repr == row["output"], (row["id"], o)


def test_installed_generate_writes_verified_rows(installed, tmp_path_factory, sandbox):
    _, codemorph = installed
    cwd = _outside(tmp_path_factory)
    (cwd / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in TWO_ROWS))
    res = subprocess.run([str(codemorph), "generate", "in.jsonl", "-o", "out.jsonl", "-t", "rename-locals",
                          "-t", "for-to-while", "--workers", "1"],
                         cwd=cwd, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=""))
    assert res.returncode == 0, res.stderr + res.stdout
    out = _rows(cwd / "out.jsonl")
    rejects = _rows(cwd / "out.rejects.jsonl") if (cwd / "out.rejects.jsonl").exists() else []
    # both programs have locals and a for loop, so both transforms apply to both: each input
    # row is written with its two variants, and nothing is rejected
    assert rejects == []
    assert [r["id"] for r in out] == [f"{r['id']}{v}" for r in TWO_ROWS for v in ("", ":rename-locals", ":for-to-while")]
    by_id = {r["id"]: r for r in TWO_ROWS}
    for row in out:
        source = by_id[row["id"].split(":")[0]]
        assert row["input"] == source["input"]
        if row["id"] != source["id"]:
            assert row["code"] != source["code"]
            assert row["verification"]["status"] == "equivalent"
    _assert_rows_hold(sandbox, out)


def test_installed_perturb_writes_rows_that_hold(installed, tmp_path_factory, sandbox):
    _, codemorph = installed
    cwd = _outside(tmp_path_factory)
    (cwd / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in TWO_ROWS))
    res = subprocess.run([str(codemorph), "perturb", "in.jsonl", "-o", "out.jsonl", "-e", "IndexError",
                          "-e", "TypeError", "--budget", "60", "--workers", "1"],
                         cwd=cwd, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=""))
    assert res.returncode == 0, res.stderr + res.stdout
    out = _rows(cwd / "out.jsonl")
    assert out
    by_id = {r["id"]: r for r in TWO_ROWS}
    for row in out:
        assert row["kind"] == "input-perturbation"
        assert row["code"] == by_id[row["original_id"]]["code"] and row["input"] != by_id[row["original_id"]]["input"]
    # pick(items, k) with k beyond the list raises IndexError: that finding is written
    assert any(r["original_id"] == "pick" and (r["exception"] or {}).get("type") == "IndexError" for r in out), out
    _assert_rows_hold(sandbox, out)
