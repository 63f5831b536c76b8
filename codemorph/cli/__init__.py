"""The ``codemorph`` command line (typer + rich): one module per command family, shared
helpers in :mod:`codemorph.cli.common`, the app in :mod:`codemorph.cli.main`."""

from codemorph.cli.main import app, main

__all__ = ["app", "main"]
