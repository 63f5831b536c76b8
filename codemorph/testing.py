"""Test helpers for transform authors (built-in and plugin): does my transform preserve
behaviour, and does it refuse where it must?

Typical use in a plugin's own pytest suite::

    from codemorph.testing import assert_preserves, assert_refuses

    def test_my_transform_on_lists():
        assert_preserves(MyTransform(), "def f(xs):\\n    return xs + [1]\\n", ["[1, 2]", "[]"])

    def test_my_transform_refuses_floats():
        assert_refuses(MyTransform(), "def f(x):\\n    return x + 0.5\\n", "float", inputs=["1.5"])

Programs are executed only inside :class:`codemorph.sandbox.Sandbox` worker processes,
never in the test process.  Each helper starts a temporary sandbox unless one is passed
(``sandbox=``); pass one shared sandbox (e.g. from a session-scoped fixture) to save the
worker start-up time (about 50 ms) per call.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any, Iterator, Mapping, Sequence

from codemorph.engine.program import Program
from codemorph.sandbox.observations import merge_observations  # re-exported: the test kit's public name
from codemorph.sandbox.pool import ExecRequest, Limits, Outcome, Sandbox
from codemorph.sandbox.kinds import request_for
from codemorph.engine.transform import Transform, TransformResult

__all__ = ["observe_types", "merge_observations", "assert_preserves", "assert_refuses", "describe_outcome"]


@contextlib.contextmanager
def _sandbox(sandbox: Sandbox | None, limits: Limits | None) -> Iterator[Sandbox]:
    if sandbox is not None:
        yield sandbox
        return
    sb = Sandbox(limits or Limits())
    try:
        yield sb
    finally:
        sb.close()


def observe_types(code: str | Program, inputs: Sequence[str], entry: str = "f", *,
                  sandbox: Sandbox | None = None, limits: Limits | None = None,
                  input_kind: str = "args") -> dict[str, dict[str, list[str]]]:
    """Runtime type observations of ``code``, as transforms receive them in
    ``RewriteContext.observations``.

    Runs ``entry(<input>)`` for every argument-list literal in ``inputs`` in the sandbox with
    tracing on (``ExecRequest(trace=True)``) and merges what was seen, exactly as the
    ``generate`` job does.

    Args:
        code: module source text (or a :class:`~codemorph.program.Program`, whose
            ``entry_point`` then wins over ``entry``).
        inputs: argument-list literals, e.g. ``["'abc', 3", "'', 0"]``.
        entry: name of the function to call.
        sandbox: a sandbox to reuse (default: a temporary one).
        limits: limits of the temporary sandbox (seconds, bytes per execution).
        input_kind: how ``inputs`` are run (``"args"``, ``"call"`` or ``"stdin"``: each
            input is then a script's standard input).

    Returns:
        ``{function qualname: {local name: sorted type names}}`` -- e.g.
        ``{"f": {"x": ["int"], "s": ["str"]}, "f.<locals>.<listcomp>": {...}}``; a script's
        (``stdin``) module-level names under ``"<module>"``.  Builtin
        types are named bare (``"int"``), others ``module.qualname``.  Executions that time
        out or crash contribute what they observed before stopping, if anything.
    """
    if isinstance(code, Program):
        code, entry = code.source, code.entry_point
    reqs = [request_for(code, entry, input_kind, a, trace=True) for a in inputs]
    with _sandbox(sandbox, limits) as sb:
        outs = sb.run_batch(reqs)
        # a run past the tracer's sample of types (Outcome.types_partial) runs again with
        # the Python tracer on every line event: the test kit's observations are complete
        again = [k for k, o in enumerate(outs) if o.types_partial]
        if again:
            for k, o in zip(again, sb.run_batch([dataclasses.replace(reqs[k], python_tracer=True) for k in again])):
                outs[k] = o
        return merge_observations(outs)


def describe_outcome(o: Outcome) -> str:
    """One readable line for an :class:`~codemorph.sandbox.Outcome`: the returned value's
    repr, or the exception class and message, plus stdout and the argument state when
    relevant."""
    if o.status == "returned":
        text = f"returned {o.value_repr if o.value_repr is not None else '<repr unavailable>'}"
    elif o.exception is not None:
        where = f" (line {o.exception.line})" if o.exception.line else ""
        text = f"{o.status}: {o.exception.type}: {o.exception.message}{where}"
    else:
        text = o.status + (f" ({o.note})" if o.note else "")
    if o.stdout:
        out = o.stdout if len(o.stdout) <= 200 else o.stdout[:200] + "..."
        text += f"; stdout {out!r}"
    return text


def _numbered(code: str) -> str:
    return "\n".join(f"    {i:3d} | {line}" for i, line in enumerate(code.splitlines(), 1))


def _apply(transform: Transform, program: Program, seed: int, inputs: Sequence[str],
           observations: Any, harness: bool) -> TransformResult:
    return transform.apply(program, seed, inputs=list(inputs), observations=observations, harness=harness)


def assert_preserves(transform: Transform, code: str, inputs: Sequence[str], *, seed: int = 0, entry: str = "f",
                     extra_inputs: int = 20, must_apply: bool = True, observations: Mapping | None = None,
                     sandbox: Sandbox | None = None, limits: Limits | None = None,
                     harness: bool = True, min_inputs: int = 1) -> TransformResult:
    """Assert that ``transform`` rewrites ``code`` without changing its behaviour.

    Steps: build the baseline of the original program in the sandbox on ``inputs`` plus
    ``extra_inputs`` type-preserving mutants of them (:func:`codemorph.verification.make_baseline`);
    collect runtime type observations over those same inputs when the transform
    :attr:`~codemorph.Transform.needs_runtime_types` (and ``observations`` is not given);
    apply the transform with ``seed``; run the rewrite on every input and compare return
    value (type-exact), exception class, final argument state and stdout
    (:func:`codemorph.verification.check`; stdout may gain the lines the rewrite declared,
    :attr:`~codemorph.TransformResult.stdout_lines`), and run every
    :attr:`~codemorph.TransformResult.claims` entry, which must come out false
    (:func:`codemorph.verification.claims.refutation`).  Only an ``equivalent`` (or ``proved``) verdict
    passes: ``inconclusive`` fails too -- e.g. when no input executes the changed code, the
    message says so, and the fix is an input that reaches it.

    Args:
        transform: the transform instance under test.
        code: module source text of the program.
        inputs: argument-list literals for ``entry`` (at least one), e.g. ``["[1, 2], 3"]``.
        seed: seed of the transform's rng and of the input mutation.
        entry: entry-point function name.
        extra_inputs: number of mutated inputs added to ``inputs`` (executions).
        must_apply: when true (default), a refusal fails the assertion; when false, a
            refusal returns the (unapplied) result silently.
        observations: runtime observations to use instead of collecting them.
        sandbox: a sandbox to reuse (default: a temporary one); ``limits`` for a temporary one.
        harness: apply under the harness contract, as ``generate`` does (default ``True``:
            only a harness calls ``entry``, with ``inputs``); ``False`` as ``codemorph
            apply`` does (public names and parameters are an API and are kept).
        min_inputs: fewest distinct inputs compared for a pass (default 1: a test chooses
            its own inputs; ``codemorph.verification.MIN_INPUTS``, 20, is what ``generate``
            requires of an ``equivalent`` variant, and a check on fewer is ``weak``, which
            fails).

    Returns:
        The :class:`~codemorph.TransformResult` (its ``source`` is the rewritten code).

    Raises:
        AssertionError: the transform refused (with ``must_apply``); the original program
            is nondeterministic; or verification found a difference or could not decide --
            the message shows the rewritten code, the counterexample input and both
            outcomes; or a declared claim was not shown false.
        ParseError: ``code`` is not valid Python.
    """
    from codemorph.verification.differential import check, make_baseline

    if not inputs:
        raise ValueError("assert_preserves needs at least one input")
    program = Program(code, entry)
    with _sandbox(sandbox, limits) as sb:
        baseline = make_baseline(sb, program, list(inputs), extra_inputs=extra_inputs, seed=seed)
        if baseline.nondeterministic:
            raise AssertionError(
                "the original program is nondeterministic (two runs on the same input differ), so no rewrite "
                "of it can be verified; make the test program deterministic")
        if observations is None and transform.needs_runtime_types:
            observations = observe_types(program, baseline.inputs, sandbox=sb)
        result = _apply(transform, program, seed, inputs, observations, harness)
        if not result.applied:
            if must_apply:
                raise AssertionError(f"{transform.name} did not apply: {result.reason}\n"
                                     f"(pass must_apply=False if refusing is acceptable here)\n"
                                     f"program:\n{_numbered(code)}")
            return result
        verdict = check(sb, baseline, result.program, stdout_lines=result.stdout_lines, min_inputs=min_inputs)
        held = None
        if verdict.status in ("equivalent", "proved") and result.claims:
            from codemorph.verification.claims import claim_requests, refutation

            outs = sb.run_batch(claim_requests(result.claims, sb.limits.timeout, baseline=baseline))
            held = next((why for c, o in zip(result.claims, outs) if (why := refutation(c, o))), None)
    if held is not None:
        raise AssertionError(f"{transform.name} wrote a claim that execution did not show false: {held}\n"
                             f"rewritten code:\n{_numbered(result.source)}")
    if verdict.status in ("equivalent", "proved"):
        return result
    lines = [f"{transform.name} changed behaviour: verification says {verdict.status}"
             + (f" ({verdict.reason})" if verdict.reason else ""),
             f"rewritten code (sites: {', '.join(f'{s.line}:{s.column} {s.description}' for s in result.sites)}):",
             _numbered(result.source)]
    cex = verdict.counterexample
    if cex is not None:
        lines += [f"counterexample: {result.program.entry_point}({cex.args})",
                  f"  original:  {describe_outcome(cex.original)}",
                  f"  rewritten: {describe_outcome(cex.rewritten)}"]
        if cex.original.args_fingerprint != cex.rewritten.args_fingerprint:
            lines.append("  (the arguments were left in different states: an in-place mutation differs)")
    if transform.needs_runtime_types:
        lines.append(f"runtime observations used: {observations}")
    lines.append("A sound transform must refuse (raise NotApplicable with the reason) whenever it cannot prove "
                 "that its rewrite preserves behaviour for every input.")
    raise AssertionError("\n".join(lines))


def assert_refuses(transform: Transform, code: str, reason_contains: str | None = None, *,
                   inputs: Sequence[str] = (), entry: str = "f", seed: int = 0,
                   observations: Mapping | None = None, sandbox: Sandbox | None = None,
                   limits: Limits | None = None, harness: bool = True) -> TransformResult:
    """Assert that ``transform`` does not rewrite ``code`` (``applied=False``).

    When the transform needs runtime types and ``observations`` is not given, they are
    collected in the sandbox over ``inputs`` (no inputs: the transform sees empty
    observations ``{}``).

    Args:
        transform: the transform instance under test.
        code: module source text.
        reason_contains: a substring the refusal reason must contain (case-sensitive);
            ``None`` accepts any reason.
        inputs: argument-list literals used to observe types.
        entry: entry-point function name.
        seed: seed of the transform's rng.
        observations: runtime observations to use instead of collecting them.
        sandbox, limits, harness: as for :func:`assert_preserves`.

    Returns:
        The unapplied :class:`~codemorph.TransformResult` (its ``reason`` is set).

    Raises:
        AssertionError: the transform applied (the message shows the rewrite), or the
            reason lacks ``reason_contains``.
    """
    program = Program(code, entry)
    if observations is None and transform.needs_runtime_types:
        observations = observe_types(program, inputs, sandbox=sandbox, limits=limits) if inputs else {}
    result = _apply(transform, program, seed, inputs, observations, harness)
    if result.applied:
        raise AssertionError(f"{transform.name} applied but was expected to refuse"
                             + (f" ({reason_contains!r})" if reason_contains else "") + ":\n"
                             + _numbered(result.source))
    if reason_contains is not None and reason_contains not in (result.reason or ""):
        raise AssertionError(f"{transform.name} refused, but its reason {result.reason!r} does not contain "
                             f"{reason_contains!r}")
    return result
