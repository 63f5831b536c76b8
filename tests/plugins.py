"""Plugin transforms installed for one test: a module and its distribution's ``.dist-info``
(``METADATA`` and ``entry_points.txt`` in the ``codemorph.transforms`` group) written into a
folder that is put on ``sys.path``, as ``pip install`` of a plugin package would leave them."""

from __future__ import annotations

from pathlib import Path

import pytest


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
