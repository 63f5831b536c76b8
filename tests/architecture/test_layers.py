"""The package's layers: each module imports only modules of its own layer or the layers
below, no import cycle exists (function-local imports included), no module imports another
module's private (``_name``) definitions, and each transform family imports the engine and
the authoring kit only — never another family.

The layers, lowest first, are listed in :data:`LAYERS`; README's "Architecture" section
describes them.  A new module must fall under one of the prefixes, or this test fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "codemorph"

#: (layer name, module prefixes), lowest first.  A module may import its own layer and below.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("rows", ("codemorph.errors", "codemorph.rows", "codemorph.data")),
    ("engine", ("codemorph.engine", "codemorph.transform", "codemorph.naturalness")),
    ("authoring", ("codemorph.authoring",)),
    ("transforms", ("codemorph.transforms",)),
    ("sandbox", ("codemorph.sandbox", "codemorph.determinism")),
    ("inputs", ("codemorph.inputs",)),
    ("verification", ("codemorph.verification", "codemorph.testing")),
    ("perturbation", ("codemorph.perturb",)),
    ("jobs", ("codemorph.jobs",)),
    ("scoring", ("codemorph.scoring",)),
    ("harness", ("codemorph.harness",)),
    ("cli", ("codemorph.cli",)),
]
#: The package facade may import any layer (it is the public entry, never imported inside).
FACADE = "codemorph"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (i, len(prefix))
    if best is None:
        raise AssertionError(f"module {module} is in no layer of tests/architecture/test_layers.py: add its prefix")
    return best[0]


def imports(module: str, path: Path, known: set[str]) -> list[tuple[int, str, list[str]]]:
    """``(line, imported module, imported names)`` for every import of a codemorph module,
    function-local ones included; ``from pkg import submodule`` counts as importing the
    submodule."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "codemorph":
                    out.append((node.lineno, alias.name, []))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_pkg else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "codemorph":
                continue
            names = []
            for alias in node.names:
                if f"{target}.{alias.name}" in known:
                    out.append((node.lineno, f"{target}.{alias.name}", []))
                else:
                    names.append(alias.name)
            if names:
                out.append((node.lineno, target, names))
    return out


def _graph():
    mods = modules()
    known = set(mods)
    edges = []
    for mod, path in mods.items():
        for line, target, names in imports(mod, path, known):
            edges.append((mod, path, line, target, names))
    return mods, edges


def test_every_module_is_in_a_layer():
    for mod in modules():
        if mod != FACADE:
            layer_of(mod)


def test_no_module_imports_a_higher_layer():
    _, edges = _graph()
    bad = []
    for mod, path, line, target, _ in edges:
        if mod == FACADE:
            continue
        if target == FACADE:
            bad.append(f"{path.name}:{line}: {mod} imports the facade 'codemorph' (import from its layer instead)")
        elif layer_of(target) > layer_of(mod):
            bad.append(f"{mod}:{line} ({LAYERS[layer_of(mod)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_no_import_cycle():
    _, edges = _graph()
    g = nx.DiGraph()
    for mod, _, _, target, _ in edges:
        # a package's __init__ re-exporting its own submodules is not a cycle of design
        if target.startswith(mod + "."):
            continue
        g.add_edge(mod, target)
    cycles = list(nx.simple_cycles(g))
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c + [c[0]]) for c in cycles)


def _private_segment(module: str) -> str | None:
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def test_no_module_imports_private_definitions_of_another():
    _, edges = _graph()
    bad = []
    for mod, path, line, target, names in edges:
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        if private and target != mod:
            bad.append(f"{mod}:{line} imports {', '.join(private)} from {target}")
        owner = _private_segment(target)
        if owner is not None and not (mod == owner or mod.startswith(owner + ".")):
            bad.append(f"{mod}:{line} imports the private module {target}")
    assert not bad, "private imports:\n" + "\n".join(bad)


def test_transform_families_import_only_the_engine_and_the_kit():
    _, edges = _graph()
    bad = []
    for mod, path, line, target, _ in edges:
        if not mod.startswith("codemorph.transforms."):
            continue
        family = mod.split(".")[2]
        if target.startswith("codemorph.transforms."):
            if target.split(".")[2] != family:
                bad.append(f"{mod}:{line} imports another family: {target}")
        elif target != "codemorph.transforms" and layer_of(target) >= layer_of("codemorph.transforms"):
            bad.append(f"{mod}:{line} imports {target}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("module", ["codemorph.sandbox._worker", "codemorph.sandbox.guard"]
                         + sorted(m for m in modules() if m.startswith("codemorph.sandbox._workerlib")))
def test_the_sandbox_worker_imports_only_the_standard_library(module):
    path = modules()[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    import sys
    assert names <= set(sys.stdlib_module_names), sorted(names - set(sys.stdlib_module_names))
