"""The ``codemorph list`` and ``codemorph recipes`` commands: what is installed."""

from __future__ import annotations

from rich.table import Table

from codemorph.cli.common import err_console, fail, out_console
from codemorph.errors import CodemorphError

__all__ = ["list_cmd", "recipes"]


def list_cmd() -> None:
    """List the installed transforms (built-in and plugins) with family and description."""
    from codemorph.engine.registry import default_registry

    try:
        reg = default_registry()
    except CodemorphError as exc:
        fail(str(exc))
    table = Table(title="codemorph transforms")
    table.add_column("name", style="bold")
    table.add_column("family")
    table.add_column("description")
    table.add_column("from")
    for name in reg.names():
        cls = reg.cls(name)
        table.add_row(name, cls.family, cls.description, reg.origin(name) or "-")
    out_console.print(table)
    for name, why in sorted(reg.broken.items()):
        err_console.print(f"[bold yellow]warning:[/] {why}", highlight=False)


def recipes() -> None:
    """List the built-in recipes (named, versioned pipelines for `generate --recipe`)."""
    from codemorph.engine.recipes import builtin_recipe_names, load_recipe

    table = Table(title="built-in recipes")
    for col in ("name", "version", "variants", "description"):
        table.add_column(col)
    for name in builtin_recipe_names():
        r = load_recipe(name)
        table.add_row(r.name, r.version, ", ".join(v.name for v in r.variants), r.description)
    out_console.print(table)
