"""Plugin transforms installed for one test: a module and its distribution's ``.dist-info``
(``METADATA`` and ``entry_points.txt`` in the ``codemorph.transforms`` group) written into a
folder that is put on ``sys.path``, as ``pip install`` of a plugin package would leave them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


#: two rows every plugin is tried on: a loop over a list, and a str method
ROWS = [{"id": "a", "code": "def f(nums):\n    total = 0\n    for n in nums:\n        total += n\n    return total\n",
         "input": "[1, 2]", "output": "3"},
        {"id": "b", "code": "def f(s):\n    out = s.upper()\n    return out\n", "input": "'ab'", "output": "'AB'"}]


def read_rows(path: Path) -> list[dict]:
    """The JSON objects of a JSON Lines file (blank lines skipped)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def install_plugin(site: Path, monkeypatch: pytest.MonkeyPatch, distribution: str, module: str, source: str,
                   entry_points: dict[str, str]) -> None:
    """Write the plugin into ``site`` and prepend ``site`` to ``sys.path`` (spawned worker
    processes start with that ``sys.path`` too).

    Args:
        site: an empty folder (``tmp_path_factory.mktemp("site")``).
        monkeypatch: the test's monkeypatch, which undoes the ``sys.path`` change.
        distribution: the distribution's name, e.g. ``"codemorph-boom-plugin"`` (the registry
            reports it as the transform's origin).
        module: the plugin module's name, e.g. ``"codemorph_boom_plugin"``.
        source: the module's source text.
        entry_points: transform name -> class name in ``module``.
    """
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    info = site / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[codemorph.transforms]\n" + "".join(f"{name} = {module}:{cls}\n" for name, cls in entry_points.items()))
    monkeypatch.syspath_prepend(str(site))
