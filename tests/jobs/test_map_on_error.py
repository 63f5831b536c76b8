"""``map_rows(..., on_error=...)``: a row whose function raises gets ``on_error(row, exc)``
as its result, computed where the row ran (a worker process or thread), and the map goes on
in input order; without ``on_error`` the exception reaches the caller at that row."""

from __future__ import annotations

import pytest

from codemorph.jobs.executors import map_rows


def inverse(state, x: int) -> float:
    return 1 / x


def as_text(x: int, exc: Exception) -> str:
    return f"row {x}: {type(exc).__name__}"


@pytest.mark.parametrize("workers,local", [(1, "processes"), (2, "threads"), (2, "processes")])
def test_a_failing_row_gets_the_on_error_result_and_the_map_goes_on(workers, local):
    out = list(map_rows(inverse, [2, 0, 4, 0, 5], workers=workers, local=local, on_error=as_text))
    assert out == [(2, 0.5), (0, "row 0: ZeroDivisionError"), (4, 0.25), (0, "row 0: ZeroDivisionError"), (5, 0.2)]


def test_without_on_error_the_exception_reaches_the_caller_at_its_row():
    it = map_rows(inverse, [2, 0, 4], workers=2, local="threads")
    assert next(it) == (2, 0.5)
    with pytest.raises(ZeroDivisionError):
        next(it)
