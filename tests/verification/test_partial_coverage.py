"""Coverage of the changed region from a run whose tracing stopped at the time limit
(``Outcome.coverage_partial``): the figures are lower bounds and say so."""

from __future__ import annotations

from codemorph.sandbox.pool import Outcome
from codemorph.verification.coverage import Region, region_coverage


REGION = Region(lines=(3, 4), branch_lines=(3,))


def test_a_partial_trace_makes_the_coverage_partial():
    full = Outcome("returned", lines=(1, 2, 3, 4), arcs=((2, 3), (3, 4), (3, 5)))
    part = Outcome("returned", lines=(1, 2, 3), arcs=((2, 3),), coverage_partial=True)
    cov = region_coverage(REGION, [full, part])
    assert (cov.lines_hit, cov.lines_total, cov.branches_hit, cov.branches_total) == (2, 2, 2, 2)
    assert cov.partial
    assert cov.to_json() == {"lines": [2, 2], "branches": [2, 2], "partial": True}


def test_complete_traces_keep_the_coverage_record_as_it_was():
    cov = region_coverage(REGION, [Outcome("returned", lines=(1, 2, 3), arcs=((2, 3), (3, 5)))])
    assert not cov.partial
    assert cov.to_json() == {"lines": [1, 2], "branches": [1, 2]}
