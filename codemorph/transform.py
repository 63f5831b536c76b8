"""Compatibility path of :mod:`codemorph.engine.transform` (documented names such as
``codemorph.transform.DYNAMIC_SCOPE_BUILTINS`` keep working)."""

from codemorph.engine.transform import *  # noqa: F401,F403
from codemorph.engine.transform import __all__  # noqa: F401
