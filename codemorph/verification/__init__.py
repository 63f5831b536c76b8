"""Verification: is a rewritten program equivalent to its original?

The package's modules, one concern each (lowest first):

* :mod:`~codemorph.verification.coverage` -- the changed region of a rewrite and how much of
  it the inputs executed (:func:`changed_region`, :func:`region_coverage`);
* :mod:`~codemorph.verification.hashseed` -- whether a result could depend on string hashing
  and whether it survives other ``PYTHONHASHSEED`` values (:func:`may_depend_on_hash`,
  :func:`hash_stable`);
* :mod:`~codemorph.verification.differential` -- differential testing in the sandbox
  (:func:`make_baseline`, :func:`check`, :func:`judge`, :class:`Verdict`);
* :mod:`~codemorph.verification.proof` -- Z3 proofs of the changed region (:func:`prove_verdict`);
* :mod:`~codemorph.verification.crosshair` -- the guarded CrossHair search process
  (behaviour diffing and path cover).

``verify(original, rewritten, entry, inputs) -> Verdict`` (below) is the facade over them.
"""

from __future__ import annotations

from typing import Sequence

from codemorph.engine.program import Program
from codemorph.errors import ParseError
from codemorph.sandbox.pool import Limits, Sandbox
from codemorph.verification.coverage import *  # noqa: F401,F403
from codemorph.verification.crosshair import check_crosshair
from codemorph.verification.differential import *  # noqa: F401,F403
from codemorph.verification.differential import DEFAULT_INPUTS, Verdict, check, make_baseline
from codemorph.verification.differential import __all__ as _differential_all
from codemorph.verification.hashseed import HASH_SEEDS, hash_stable, may_depend_on_hash

__all__ = list(_differential_all) + ["HASH_SEEDS", "hash_stable", "may_depend_on_hash"]


def verify(original: Program | str, rewritten: Program | str, entry: str = "f", inputs: Sequence[str] = ("",),
           *, extra_inputs: int = DEFAULT_INPUTS - 1, seed: int = 0, sandbox: Sandbox | None = None,
           limits: Limits | None = None, exception_policy: str = "same-class", prove: bool = False,
           backend: str = "sandbox", crosshair_seconds: float = 10.0, input_kind: str = "args") -> Verdict:
    """Verify a rewrite: differential testing in the sandbox (a baseline of the original
    on ``inputs`` plus mutants, then :func:`check`, with coverage of the changed region and
    hash-seed re-runs), optionally a Z3 proof (``prove``) and a CrossHair search
    (``backend="crosshair"``) -- the one entry over the package's concerns.

    Args:
        original, rewritten: programs, or source texts (then ``entry`` is their entry point).
        entry: entry point for source texts.
        inputs: seed argument literals.
        extra_inputs, seed: see :func:`make_baseline`.
        sandbox: a sandbox to reuse; by default a temporary one (with ``limits``) is
            started and closed.
        limits: limits of the temporary sandbox (ignored when ``sandbox`` is given).
        exception_policy: see :func:`judge`.
        prove: try to prove the changed region equivalent with Z3 (:func:`prove_verdict`).
        backend: ``"sandbox"`` (differential testing only) or ``"crosshair"``: when testing
            finds no difference, CrossHair's behaviour diffing searches for one
            (:func:`codemorph.verification.crosshair.check_crosshair`, ``crosshair_seconds`` of
            wall-clock time; needs ``codemorph[crosshair]``; ``args`` inputs only).
        input_kind: what ``inputs`` are (:data:`~codemorph.rows.INPUT_KINDS`): argument
            lists of ``entry`` (default), call expressions (``call``) or standard inputs
            (``stdin``: the programs run as scripts, their standard outputs are compared).

    Raises:
        ValueError: unknown ``backend`` or ``exception_policy``.

    Returns:
        A :class:`Verdict`.  A rewritten source that does not parse ``differs``.

    Raises:
        ParseError: when the original source does not parse.
    """
    if not isinstance(original, Program):
        original = Program(original, entry, script=input_kind == "stdin")
    if not isinstance(rewritten, Program):
        try:
            rewritten = Program(rewritten, entry, script=input_kind == "stdin")
        except ParseError as exc:
            return Verdict("differs", 0, reason=f"rewritten program does not parse: {exc}")
    own = sandbox is None
    sb = Sandbox(limits or Limits()) if own else sandbox
    try:
        if backend == "crosshair" and input_kind != "args":
            raise ValueError(f"backend 'crosshair' checks argument lists only, not {input_kind} inputs")
        if backend == "crosshair":
            return check_crosshair(sb, original, rewritten, list(inputs), seconds=crosshair_seconds,
                                   exception_policy=exception_policy, prove=prove, extra_inputs=extra_inputs,
                                   seed=seed)
        if backend != "sandbox":
            raise ValueError(f"backend must be 'sandbox' or 'crosshair', got {backend!r}")
        base = make_baseline(sb, original, list(inputs), extra_inputs=extra_inputs, seed=seed, types=False,
                             input_kind=input_kind)
        return check(sb, base, rewritten, exception_policy=exception_policy, prove=prove)
    finally:
        if own:
            sb.close()
