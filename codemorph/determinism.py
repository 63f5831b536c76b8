"""Compatibility path of :mod:`codemorph.sandbox.determinism`
(``codemorph.determinism.nondeterminism_source`` keeps working)."""

from codemorph.sandbox.determinism import *  # noqa: F401,F403
from codemorph.sandbox.determinism import __all__  # noqa: F401
