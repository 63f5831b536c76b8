"""Pipelines compose transforms: in sequence, choose one, choose k, repeat.

All randomness comes from one :class:`random.Random` derived from the seed, and every
choice is made over lists in a fixed order, so the same program, pipeline and seed give
byte-identical output on every run and machine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Collection, Sequence, Union

from codemorph.engine.program import Program
from codemorph.engine.transform import Transform, TransformError, TransformResult, derive_rng

__all__ = ["Pipeline", "Sequence_", "OneOf", "SomeOf", "Repeat", "PipelineResult", "as_step", "renames_bindings"]

Step = Union[Transform, "Pipeline"]


@dataclass(frozen=True)
class PipelineResult:
    """Outcome of a pipeline.

    Attributes:
        program: the final program.
        results: every transform application attempted, in order.
    """

    program: Program
    results: tuple[TransformResult, ...]

    @property
    def applied(self) -> list[str]:
        """Names of the transforms that changed the program, in order."""
        return [r.transform for r in self.results if r.applied]

    @property
    def errors(self) -> list[TransformError]:
        """The :class:`~codemorph.engine.transform.TransformError` of every step whose
        transform raised (:meth:`Transform.apply` caught it; the pipeline went on with the
        program as it was before that step), in order."""
        return [r.error for r in self.results if r.error is not None]

    @property
    def claims(self) -> tuple:
        """Every :class:`~codemorph.engine.transform.Claim` of the applied steps, in order."""
        return tuple(c for r in self.results if r.applied for c in r.claims)

    @property
    def stdout_lines(self) -> tuple[str, ...]:
        """Every line the applied steps allowed the program to print in addition, in order."""
        return tuple(dict.fromkeys(line for r in self.results if r.applied for line in r.stdout_lines))

    @property
    def changed(self) -> bool:
        return any(r.applied for r in self.results)

    @property
    def reason(self) -> str | None:
        """Why nothing changed (the reasons of the attempts), or ``None`` when changed."""
        if self.changed:
            return None
        return "; ".join(f"{r.transform}: {r.reason}" for r in self.results) or "empty pipeline"


class Pipeline:
    """Base class of pipeline nodes.  Use :class:`Sequence_`, :class:`OneOf`,
    :class:`SomeOf` and :class:`Repeat`, or ``Pipeline.of(t1, t2, ...)`` for a sequence."""

    @staticmethod
    def of(*steps: Step) -> "Sequence_":
        return Sequence_(*steps)

    def run(self, program: Program, rng: random.Random, inputs: Sequence[str],
            observations: Any, outputs: Sequence[str] = (), harness: bool = False,
            keep_claims: Collection[str] | None = None) -> list[TransformResult]:
        raise NotImplementedError

    def apply(self, program: Program, rng: random.Random | int | None = None, *,
              inputs: Sequence[str] = (), observations: Any = None, outputs: Sequence[str] = (),
              harness: bool = False, keep_claims: Collection[str] | None = None) -> PipelineResult:
        """Run the pipeline on ``program``.

        Args:
            program: the input program.
            rng: a :class:`random.Random` or an int seed (``None`` means 0).
            inputs: argument literals of the entry point (passed to each transform).
            observations: runtime observations (passed to each transform).
            outputs: the recorded result literal of the entry point on each of ``inputs``
                (passed to each transform, see :attr:`RewriteContext.outputs`).
            harness: the harness contract (passed to each transform; see
                :meth:`Transform.apply <codemorph.Transform.apply>`).
            keep_claims: the only claims a distractor may make (passed to each transform;
                :attr:`RewriteContext.keep_claims <codemorph.engine.transform.RewriteContext.keep_claims>`).
        """
        if not isinstance(rng, random.Random):
            rng = derive_rng(0 if rng is None else int(rng), "pipeline", self.describe())
        results = self.run(program, rng, inputs, observations, outputs, harness, keep_claims)
        final = program
        for r in results:
            if r.applied:
                final = r.program
        return PipelineResult(final, tuple(results))

    def transforms(self) -> list[Transform]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


def _run_step(step: Step, program: Program, rng: random.Random, inputs, observations,
              outputs: Sequence[str] = (), harness: bool = False,
              keep_claims: Collection[str] | None = None) -> list[TransformResult]:
    if isinstance(step, Transform):
        return [step.apply(program, random.Random(rng.getrandbits(64)), inputs=inputs, observations=observations,
                           outputs=outputs, harness=harness, keep_claims=keep_claims)]
    return step.run(program, rng, inputs, observations, outputs, harness, keep_claims)


def renames_bindings(transform: Transform) -> bool:
    """Whether ``transform`` may give existing bindings other names: its ``renames``
    attribute when it sets one, else ``family == "naming"``."""
    flag = getattr(transform, "renames", None)
    return bool(flag) if flag is not None else transform.family == "naming"


def _observations_after(observations: Any, results: list[TransformResult], renaming: frozenset[str]) -> Any:
    """Runtime observations are keyed by the names in the program they were observed on.
    After a step that renamed bindings (the ``misleading`` scheme even swaps names between
    variables) they describe other variables, so later steps get none: a transform that
    needs runtime types then refuses, one that only uses them stays conservative."""
    if observations is not None and any(r.applied and r.transform in renaming for r in results):
        return None
    return observations


def _renaming(pipeline: "Pipeline") -> frozenset[str]:
    return frozenset(t.name for t in pipeline.transforms() if renames_bindings(t))


def _last_program(program: Program, results: list[TransformResult]) -> Program:
    for r in reversed(results):
        if r.applied:
            return r.program
    return program


def as_step(step: Step) -> Step:
    if not isinstance(step, (Transform, Pipeline)):
        raise TypeError(f"a pipeline step must be a Transform or a Pipeline, got {type(step).__name__}")
    return step


class Sequence_(Pipeline):
    """Apply every step in order, each to the previous step's result."""

    def __init__(self, *steps: Step) -> None:
        self.steps = tuple(as_step(s) for s in steps)

    def run(self, program, rng, inputs, observations, outputs=(), harness=False, keep_claims=None):
        out: list[TransformResult] = []
        renaming = _renaming(self)
        for step in self.steps:
            out += _run_step(step, _last_program(program, out), rng, inputs,
                             _observations_after(observations, out, renaming), outputs, harness, keep_claims)
        return out

    def transforms(self):
        return [t for s in self.steps for t in ([s] if isinstance(s, Transform) else s.transforms())]

    def describe(self) -> str:
        return "seq(" + ", ".join(_describe(s) for s in self.steps) + ")"


class OneOf(Pipeline):
    """Apply one step chosen uniformly at random; when it does not apply, try the others
    in random order until one does (so a choice is never wasted on an inapplicable step)."""

    def __init__(self, *steps: Step) -> None:
        if not steps:
            raise ValueError("OneOf needs at least one step")
        self.steps = tuple(as_step(s) for s in steps)

    def run(self, program, rng, inputs, observations, outputs=(), harness=False, keep_claims=None):
        order = list(range(len(self.steps)))
        rng.shuffle(order)
        tried: list[TransformResult] = []
        for i in order:
            res = _run_step(self.steps[i], program, rng, inputs, observations, outputs, harness, keep_claims)
            tried += res
            if any(r.applied for r in res):
                return tried
        return tried

    def transforms(self):
        return [t for s in self.steps for t in ([s] if isinstance(s, Transform) else s.transforms())]

    def describe(self) -> str:
        return "one-of(" + ", ".join(_describe(s) for s in self.steps) + ")"


class SomeOf(Pipeline):
    """Apply ``k`` distinct steps chosen at random, in the order chosen."""

    def __init__(self, k: int, *steps: Step) -> None:
        if not 0 <= k <= len(steps):
            raise ValueError(f"SomeOf: k={k} must be between 0 and the number of steps ({len(steps)})")
        self.k = k
        self.steps = tuple(as_step(s) for s in steps)

    def run(self, program, rng, inputs, observations, outputs=(), harness=False, keep_claims=None):
        chosen = rng.sample(range(len(self.steps)), self.k)
        out: list[TransformResult] = []
        renaming = _renaming(self)
        for i in chosen:
            out += _run_step(self.steps[i], _last_program(program, out), rng, inputs,
                             _observations_after(observations, out, renaming), outputs, harness, keep_claims)
        return out

    def transforms(self):
        return [t for s in self.steps for t in ([s] if isinstance(s, Transform) else s.transforms())]

    def describe(self) -> str:
        return f"some-of({self.k}; " + ", ".join(_describe(s) for s in self.steps) + ")"


class Repeat(Pipeline):
    """Apply ``step`` ``times`` times, each to the previous result."""

    def __init__(self, step: Step, times: int) -> None:
        if times < 0:
            raise ValueError("Repeat: times must be >= 0")
        self.step = as_step(step)
        self.times = times

    def run(self, program, rng, inputs, observations, outputs=(), harness=False, keep_claims=None):
        out: list[TransformResult] = []
        renaming = _renaming(self)
        for _ in range(self.times):
            out += _run_step(self.step, _last_program(program, out), rng, inputs,
                             _observations_after(observations, out, renaming), outputs, harness, keep_claims)
        return out

    def transforms(self):
        return [self.step] if isinstance(self.step, Transform) else self.step.transforms()

    def describe(self) -> str:
        return f"repeat({_describe(self.step)}, {self.times})"


def _describe(step: Step) -> str:
    return step.name if isinstance(step, Transform) else step.describe()
