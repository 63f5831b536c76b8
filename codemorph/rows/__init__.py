"""Rows and literals: the one row schema, and the readers and writers of data sets.

The lowest layer: it imports nothing of codemorph but :mod:`codemorph.errors`.
"""

from codemorph.rows.dataset import *  # noqa: F401,F403
from codemorph.rows.dataset import __all__  # noqa: F401
