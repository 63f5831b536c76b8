"""Inputs: argument-list literals, the type-preserving mutation engine, edge cases and
coverage-guided input search used by verification and the perturbation search.
"""

from codemorph.inputs.core import *  # noqa: F401,F403
from codemorph.inputs.core import __all__  # noqa: F401
