"""codemorph's built-in transform catalogue, one subpackage per family (naming, loops,
branches, deadcode, expressions, distractors), one transform per module.

Installed as ``codemorph.transforms``.  Every transform here registers through the
``codemorph.transforms`` entry-point group in codemorph's ``pyproject.toml`` and uses only
the public API a plugin author has: the engine (``codemorph.Transform``,
``codemorph.RewriteContext``) and the authoring kit (:mod:`codemorph.authoring`).  A family
never imports another family.
"""
