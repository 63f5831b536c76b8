"""The time limit of a rewrite's run on an input the original ran to an end: one rule, shared
by :func:`codemorph.verification.differential.check_requests` (the differential check) and
:func:`codemorph.verification.claims.claim_requests` (a distractor's claims on such inputs)."""

from __future__ import annotations

__all__ = ["SLOWDOWN", "MIN_TIMEOUT", "check_timeout"]

#: how many times the original's duration a rewrite may take on the same input
SLOWDOWN = 10.0
#: seconds a rewrite gets at least, however fast the original was
MIN_TIMEOUT = 0.5


def check_timeout(duration: float, cap: float, *, slowdown: float = SLOWDOWN, min_timeout: float = MIN_TIMEOUT) -> float:
    """Wall-clock seconds a rewrite's run gets on an input the original ran in ``duration``
    seconds: ``max(min_timeout, slowdown * duration)``, capped by ``cap``.

    Args:
        duration: the original's run on the input (:attr:`Outcome.duration
            <codemorph.sandbox.Outcome.duration>`), seconds.
        cap: the sandbox's time limit (``Limits.timeout``), seconds.
        slowdown: the factor over ``duration``.
        min_timeout: the floor, seconds (a run of microseconds still gets a scheduling slice).

    Returns:
        Seconds, at most ``cap``."""
    return min(cap, max(min_timeout, slowdown * duration))
