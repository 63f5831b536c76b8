"""Packaging: the wheel installs `codemorph.transforms` (from transforms/) and no top-level
`transforms`, ships the default data set, and declares the built-ins as entry points; a
separately installed plugin shows up in `list` and works in `apply` and `generate`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from paths import REPO

ROOT = REPO
BIN = Path(sys.executable).parent


def _pip(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pip", *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    res = _pip("wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT))
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
               str(ROOT / "examples" / "custom_transform"))
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
