"""A star import of a standard-library module binds the names that module exports, read from
its source without running the program; any other star import may bind anything."""

from __future__ import annotations

import libcst as cst

from codemorph.engine import Program, bound_names
from codemorph.engine.stdlib import star_import_names
from codemorph.engine.transform import RewriteContext


def test_typing_exports_its_names_and_no_builtin():
    names = star_import_names("typing")
    import typing  # the running Python's own module: its __all__ is the truth the source gives

    assert names == frozenset(typing.__all__)
    assert not names & {"iter", "next", "object", "type", "len"}


def test_modules_without_a_literal_all_use_their_public_names_or_are_unknown():
    import heapq
    import math

    assert star_import_names("heapq") == frozenset(heapq.__all__)
    assert star_import_names("math") == frozenset(n for n in vars(math) if not n.startswith("_"))
    assert star_import_names("os") is None  # __all__ is computed at import time
    assert star_import_names("numpy") is None  # not the standard library
    assert star_import_names("codemorph") is None


def test_bound_names_take_the_stdlib_star_import_and_distrust_the_others():
    names, star = bound_names(cst.parse_module("from typing import *\nx = 1\n"))
    assert not star and {"List", "Optional", "x"} <= names
    assert bound_names(cst.parse_module("from helpers import *\n"))[1] is True
    assert bound_names(cst.parse_module("from . import *\n"))[1] is True


def test_shadowed_builtins_under_a_typing_star_import():
    ctx = RewriteContext(Program("from typing import *\ndef f(xs):\n    return xs\n"), None)
    assert ctx.shadowed("iter", "next", "object") == []
    ctx = RewriteContext(Program("from string import *\ndef f(xs):\n    return xs\n"), None)
    assert ctx.shadowed("iter", "capwords") == ["capwords"]
