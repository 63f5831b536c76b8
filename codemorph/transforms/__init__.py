"""codemorph's built-in transform catalogue, one module per family.

Installed as ``codemorph.transforms``.  Every transform here registers through the
``codemorph.transforms`` entry-point group in codemorph's ``pyproject.toml`` and uses only
the public API a plugin author has (``codemorph.Transform``, ``codemorph.RewriteContext``).
"""
