"""The perturbation search for ``stdin`` rows and for ``call`` rows that are not one call of a
plain name (:func:`search_kind`).

The inputs tried are those of the one mutation engine (:func:`codemorph.inputs.kind_mutants`:
standard inputs that keep their token structure, call expressions or harness methods with
other literals), in generations: the seed's mutants, then mutants of the inputs that ran to an
end, until the execution budget is spent or every target has what it wants.  A standard
input that raises (``ValueError`` from ``int()`` of a word, ``IndexError`` or an unpacking
``ValueError`` from a short line, ``EOFError`` from a missing line) is a finding of its class;
one that runs to an end with another standard output is an ``output-change``.  Findings are
ranked by :func:`kind_distance` (token edits), smallest first.
"""

from __future__ import annotations

import random
import time
from typing import Any, Sequence

from codemorph.engine.program import Program
from codemorph.inputs.kinds import parse_stdin, token_types_changed
from codemorph.inputs import kind_mutants
from codemorph.sandbox.kinds import request_for
from codemorph.sandbox.pool import Outcome, Sandbox

__all__ = ["search_kind", "kind_distance"]

#: CPU seconds per search execution (as the argument-list search's)
_CPU = 0.25
#: inputs run per sandbox batch
_BATCH = 64


def _tokens(kind: str, text: str) -> list[str]:
    if kind == "stdin":
        shape = parse_stdin(text)
        out: list[str] = []
        for line in shape.lines:
            out += [repr(t) for t in line] + ["\n"]
        return out
    return text.split()


def kind_distance(kind: str, a: str, b: str) -> int:
    """Edit distance between two inputs of ``kind``: Levenshtein distance over tokens (a
    ``stdin`` input's typed tokens, line ends counting as tokens; a ``call`` input's
    whitespace-separated words), plus 1 when the texts differ but the tokens do not."""
    x, y = _tokens(kind, a), _tokens(kind, b)
    prev = list(range(len(y) + 1))
    for i, s in enumerate(x, 1):
        cur = [i]
        for j, t in enumerate(y, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s != t)))
        prev = cur
    d = prev[-1]
    return d if d or a == b else 1


def _output(kind: str, o: Outcome) -> str | None:
    """What a row records of a returned run: the standard output, or the value's repr."""
    return o.stdout if kind == "stdin" else o.value_repr


def _hit(kind: str, target: str, seed: Outcome, o: Outcome) -> bool:
    if target == "output-change":
        return o.status == "returned" and seed.status == "returned" and _output(kind, o) is not None \
            and _output(kind, o) != _output(kind, seed) and (kind == "stdin" or o.literal_ok)
    if o.status != "raised" or o.exception is None:
        return False
    if target == "any-exception":
        return seed.status != "raised" or seed.exception is None or o.exception.type != seed.exception.type
    return o.exception.type == target


def search_kind(program: Program, kind: str, seed_input: str, targets: Sequence[str], budget: Any, seed: int, *,
                want: dict[str, int], max_results: int, sandbox: Sandbox, literals: Sequence[Any] = (),
                allow_type_change: bool = False) -> Any:
    """Search inputs of ``kind`` (``"stdin"`` or ``"call"``) near ``seed_input`` that reach
    each of ``targets``; arguments as for :func:`codemorph.perturb.search_many` (``budget`` a
    :class:`~codemorph.perturb.Budget`: its ``executions`` and ``seconds`` bound the search;
    ``allow_type_change``: a standard input's tokens may change type, such findings are
    labelled ``type_changing``).

    Returns:
        A :class:`~codemorph.perturb.SearchReport`: per target up to ``max_results``
        :class:`~codemorph.perturb.Perturbation` s (strategy ``"mutation"``), closest first;
        ``skipped`` says why nothing was searched (the seed does not run to an end).
    """
    from codemorph.perturb.search import Perturbation, SearchReport

    start = time.perf_counter()
    report = SearchReport(found={t: [] for t in targets})

    def req(text: str):
        return request_for(program.source, program.entry_point, kind, text, cpu_timeout=_CPU)

    seed_o = sandbox.run(req(seed_input))
    executions = 1
    report.seed_outcome = seed_o
    if seed_o.status not in ("returned", "raised"):
        report.skipped = f"the seed input does not run to an end (status {seed_o.status})"
        report.executions = executions
        return report
    found: dict[str, dict[str, Perturbation]] = {t: {} for t in targets}
    tried = {seed_input}
    frontier = [seed_input]
    generation = 0
    rng = random.Random(f"{seed}:perturb-{kind}")
    while executions < budget.executions and time.perf_counter() - start < budget.seconds and frontier:
        if all(len(found[t]) >= want.get(t, max_results) for t in targets):
            break
        room = budget.executions - executions
        per = max(4, min(room, 4 * _BATCH) // len(frontier))
        cands: list[str] = []
        for text in frontier:
            for m in kind_mutants(program, [text], per, seed * 1000 + generation, kind, literals,
                                  allow_type_change):
                if m not in tried:
                    tried.add(m)
                    cands.append(m)
        cands = cands[:room]
        if not cands:
            break
        nxt: list[str] = []
        for k in range(0, len(cands), _BATCH):
            chunk = cands[k:k + _BATCH]
            outs = sandbox.run_batch([req(c) for c in chunk])
            executions += len(chunk)
            for c, o in zip(chunk, outs):
                if o.status == "returned":
                    nxt.append(c)
                for t in targets:
                    if _hit(kind, t, seed_o, o) and c not in found[t]:
                        found[t][c] = Perturbation(
                            c, t, o.status, o.exception if o.status == "raised" else None,
                            _output(kind, o) if o.status == "returned" else None, kind_distance(kind, seed_input, c),
                            "mutation", kind == "stdin" and token_types_changed(seed_input, c),
                            executions=executions, seconds=time.perf_counter() - start)
        generation += 1
        rng.shuffle(nxt)
        frontier = nxt[:8]
    report.found = {t: sorted(found[t].values(), key=lambda p: (p.distance, len(p.input), p.input))[:max_results]
                    for t in targets}
    report.executions = executions
    report.seconds = time.perf_counter() - start
    return report
