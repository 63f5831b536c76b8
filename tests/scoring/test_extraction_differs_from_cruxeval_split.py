"""Answer extraction takes the sides of the parsed comparison, where CRUXEval's post-processing
cuts the text at ``==`` (the README's table of the differences)."""

from __future__ import annotations

import pytest

from codemorph.scoring.predictions import extract_answer


def cruxeval_split(generation: str, mode: str) -> str:
    """CRUXEval's rule as its inference scripts apply it."""
    if mode == "output":
        return generation.split("==")[1].strip()
    return generation.split("==")[0].replace("assert", "").strip()


@pytest.mark.parametrize("generation,mode,ours,theirs", [
    ("assert f(17) == 'a == b'", "output", "'a == b'", "'a"),
    ("assert f('a==b') == 'x'", "input", "f('a==b')", "f('a"),
    ("'a == b'", "output", "'a == b'", "b'"),
    ("assert f(1) == 2 == 2", "output", "2 == 2", "2"),
    ("assert f(17) == 'ab'", "output", "'ab'", "'ab'"),  # no == inside the value: the same answer
])
def test_answers_holding_eq_are_cut_by_the_parse_not_at_the_first_eq(generation, mode, ours, theirs):
    assert extract_answer(generation, mode).text == ours
    assert cruxeval_split(generation, mode) == theirs
