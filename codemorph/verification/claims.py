"""Verification rules of distractors: false claims shown false by execution, and stdout that
may gain exactly the lines a distractor prints.

A distractor (``codemorph.transforms.distractors``) writes text that misleads a reader: a
comment stating a wrong input/output pair, a comment or a printed line stating a wrong value.
Two rules make such a variant safe to write:

* every :class:`~codemorph.engine.transform.Claim` it declares is run in the sandbox
  (:func:`claim_requests`) and must come out false (:func:`refutation`): a claim that turns
  out true (the stated output *is* the output; the value *is* 4 there) is not written;
* a variant that prints declared lines (:attr:`TransformResult.stdout_lines
  <codemorph.engine.transform.TransformResult.stdout_lines>`) may differ from its original
  on stdout only by those lines (:func:`stdout_gains`); return value, exception and the final
  state of the arguments are compared as for every other rewrite
  (:func:`codemorph.verification.differential.judge`).
"""

from __future__ import annotations

from typing import Protocol, Sequence

from codemorph.engine.transform import Claim
from codemorph.sandbox.pool import ExecRequest, Outcome
from codemorph.verification.timeouts import MIN_TIMEOUT, SLOWDOWN, check_timeout

__all__ = ["claim_requests", "refutation", "stdout_gains"]


class _Ran(Protocol):
    """What :func:`claim_requests` reads of a :class:`~codemorph.verification.Baseline`
    (differential imports this module, so it is not imported here)."""

    inputs: Sequence[str]
    outcomes: Sequence[Outcome]


def claim_requests(claims: Sequence[Claim], timeout: float, *, baseline: _Ran | None = None,
                   slowdown: float = SLOWDOWN, min_timeout: float = MIN_TIMEOUT, stated_timeout: float = 1.0,
                   stated_cpu_timeout: float | None = 0.25) -> list[ExecRequest]:
    """One sandbox execution per claim: ``claim.entry(claim.args)`` of ``claim.code``, with
    ``claim.expected`` as the expected output when given, untraced.

    Args:
        claims: the variant's claims (:attr:`TransformResult.claims
            <codemorph.engine.transform.TransformResult.claims>`).
        timeout: the sandbox's time limit in seconds, the cap of every limit below.
        baseline: the original's baseline (:func:`~codemorph.verification.make_baseline`), or
            ``None``: every claim then gets ``timeout`` seconds.  With it, a claim whose
            input the original ran to an end in the baseline gets the time a check of a
            rewrite on that input gets, ``max(min_timeout, slowdown * the original's
            seconds)`` capped by ``timeout`` (:func:`~codemorph.verification.timeouts.check_timeout`,
            as :func:`~codemorph.verification.check_requests`); a claim on another
            input (a stated input such as ``misleading-io-comment``'s, on which the program
            may never end) gets the limits of a mutant input, ``stated_timeout`` wall seconds
            and ``stated_cpu_timeout`` CPU seconds (:func:`make_baseline
            <codemorph.verification.make_baseline>`'s ``mutant_timeout`` and
            ``mutant_cpu_timeout``).  A claim whose run ends in a timeout is not shown false
            (:func:`refutation`), so its variant is not written: a shorter limit can only
            refuse a variant, never write a true claim.

    Returns:
        One :class:`~codemorph.sandbox.ExecRequest` per claim, in order."""
    known = {}
    if baseline is not None:
        for text, o in zip(baseline.inputs, baseline.outcomes):
            if o.completed:
                known.setdefault(text, o.duration)
    out = []
    for c in claims:
        wall, cpu = timeout, None
        if baseline is not None:
            if c.args in known:
                wall = check_timeout(known[c.args], timeout, slowdown=slowdown, min_timeout=min_timeout)
            else:
                wall, cpu = min(timeout, stated_timeout), stated_cpu_timeout
        out.append(ExecRequest(c.code, c.entry, c.args, expected_output=c.expected, timeout=wall, cpu_timeout=cpu))
    return out


def refutation(claim: Claim, outcome: Outcome) -> str | None:
    """``None`` when ``outcome`` (the run of :func:`claim_requests` for ``claim``) shows the
    claim false, else why it does not: the run raised (a probe's ``AssertionError``: the
    stated value occurred; or any other failure), or it returned the stated output.

    A claim with an ``expected`` literal is false when the call returns a value not equal to
    it (``output_matches`` false); one without is false when the probe returns at all."""
    if outcome.status != "returned":
        what = f"{outcome.exception.type}" if outcome.exception is not None else outcome.status
        if claim.expected is None and outcome.exception is not None and outcome.exception.type == "AssertionError":
            return f"the claim {claim.text!r} holds on input {claim.args[:80]!r} (the probe reached the stated value)"
        return f"the claim {claim.text!r} could not be shown false: its run on {claim.args[:80]!r} ended with {what}"
    if claim.expected is None:
        return None
    if outcome.output_matches is False:
        return None
    if outcome.output_matches is True:
        return f"the claim {claim.text!r} is true: the call returns the stated output"
    return f"the claim {claim.text!r} could not be shown false: the stated output could not be compared"


def stdout_gains(original: str, rewritten: str, lines: Sequence[str]) -> str | None:
    """``None`` when ``rewritten`` is ``original`` with only whole lines from ``lines``
    inserted (each printed as ``line + "\\n"``), else what differs.

    The original must print none of ``lines`` itself (otherwise an extra line could not be
    told from one of the program's own) -- such a pair is reported as differing."""
    allowed = {line + "\n" for line in lines}
    own = original.splitlines(keepends=True)
    shared = sorted(allowed.intersection(own))
    if shared:
        return f"stdout: the original itself prints {shared[0]!r}, a line the rewrite adds"
    kept = [line for line in rewritten.splitlines(keepends=True) if line not in allowed]
    if "".join(kept) != original:
        return (f"stdout: the rewritten program's output, without the added lines, is {''.join(kept)[:80]!r}, "
                f"the original's {original[:80]!r}")
    return None
