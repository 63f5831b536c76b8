"""What traced executions observed, merged across runs: the local-variable types that
transforms receive as ``RewriteContext.observations`` (the ``generate`` job's baseline runs,
:func:`codemorph.testing.observe_types`)."""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from codemorph.sandbox.pool import Outcome

__all__ = ["merge_observations"]


def merge_observations(outcomes: Sequence[Outcome]) -> dict[str, dict[str, list[str]]]:
    """Union of the local-variable types seen in traced executions (``Outcome.types`` of
    ``ExecRequest(trace=True)`` runs), in the shape transforms receive as
    ``RewriteContext.observations``: ``{function qualname: {local name: sorted type
    names}}``, keys sorted.  Outcomes without types (untraced, crashed early) add nothing."""
    merged: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for o in outcomes:
        for fn, names in (o.types or {}).items():
            for name, types in names.items():
                merged[fn][name].update(types)
    return {fn: {n: sorted(ts) for n, ts in sorted(v.items())} for fn, v in sorted(merged.items())}
