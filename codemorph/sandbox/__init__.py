"""The sandbox: worker processes that run untrusted programs under limits, and the
determinism tests that decide which programs can have a ground truth at all.

:class:`Sandbox` is the pool; ``_worker.py`` is the stdlib-only worker script it starts (its modules are in
``_workerlib``); :mod:`codemorph.sandbox.guard` is the audit-hook guard the worker and the CrossHair
search process share.
"""

from codemorph.sandbox.pool import *  # noqa: F401,F403
from codemorph.sandbox.pool import __all__ as _pool_all
from codemorph.sandbox.kinds import INPUT_KINDS, RunView, output_of, plain_call, request_for, row_request, run_view  # noqa: F401

__all__ = [*_pool_all, "request_for", "row_request", "output_of", "plain_call", "RunView", "run_view", "INPUT_KINDS"]
