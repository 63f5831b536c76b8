"""Verification inputs of ``call`` and ``stdin`` rows (:func:`kind_mutants`), made with the
one mutation engine :class:`~codemorph.inputs.mutation.MutationSpace`."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

__all__ = ["kind_mutants"]


def kind_mutants(program: Any, seeds: Sequence[str], extra: int, seed: int, kind: str,
                 literals: Iterable[Any] | None = None) -> list[str]:
    """Up to ``extra`` distinct mutants of the ``kind`` inputs ``seeds`` of ``program``."""
    return []
