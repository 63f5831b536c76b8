"""Compatibility module: the names ``codemorph.inputs.core`` held before the inputs package
was split by concern (:mod:`codemorph.inputs.literals`, :mod:`~codemorph.inputs.mutation`,
:mod:`~codemorph.inputs.edges`, :mod:`~codemorph.inputs.guided`).  Import from
:mod:`codemorph.inputs` instead."""

from codemorph.inputs import *  # noqa: F401,F403
from codemorph.inputs import __all__  # noqa: F401
