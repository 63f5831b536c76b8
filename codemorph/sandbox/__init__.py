"""The sandbox: worker processes that run untrusted programs under limits, and the
determinism tests that decide which programs can have a ground truth at all.

:class:`Sandbox` is the pool; ``_worker.py`` is the stdlib-only child it starts.
"""

from codemorph.sandbox.pool import *  # noqa: F401,F403
from codemorph.sandbox.pool import __all__  # noqa: F401
