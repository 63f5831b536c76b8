"""Input ids that would collide with derived ids (``x:<variant>``, ``x:perturb:...``) are
rejected with a reason naming both rows; every other row passes through in order."""

from __future__ import annotations

from codemorph.rows.dataset import Reject, SourceRow, guard_derived_ids


def _row(rid: str, line: int) -> SourceRow:
    return SourceRow(rid, "def f(x):\n    return x\n", "1", "1", "f", line)


def _ids(items):
    return [(i.id, isinstance(i, Reject)) for i in items]


def test_variant_id_after_its_row_is_rejected():
    out = list(guard_derived_ids([_row("x", 1), _row("x:rename-locals", 2), _row("y", 3)], ["rename-locals"]))
    assert _ids(out) == [("x", False), ("x:rename-locals", True), ("y", False)]
    assert out[1].stage == "read" and out[1].line == 2
    assert "id 'x:rename-locals' is the id of variant 'rename-locals' of row 'x'" in out[1].reason
    assert out[1].row["code"] == "def f(x):\n    return x\n"


def test_row_after_a_row_holding_its_variant_id_is_rejected():
    out = list(guard_derived_ids([_row("x:dead-code", 1), _row("x", 2)], ["dead-code", "rename-locals"]))
    assert _ids(out) == [("x:dead-code", False), ("x", True)]
    assert "its variant 'dead-code' would get the id x:dead-code" in out[1].reason


def test_colons_that_collide_with_nothing_pass():
    rows = [_row("a:b", 1), _row("a", 2), _row("x:rename-locals", 3), _row("c:dead-code:rename-locals", 4)]
    assert _ids(guard_derived_ids(rows, ["dead-code"])) == [(r.id, False) for r in rows]


def test_perturbation_ids_are_guarded():
    out = list(guard_derived_ids([_row("s1", 1), _row("s1:perturb:IndexError:0", 2)], []))
    assert _ids(out) == [("s1", False), ("s1:perturb:IndexError:0", True)]
    assert "has the form of a perturb row derived from row 's1'" in out[1].reason


def test_rejects_from_reading_pass_through():
    bad = Reject(None, 1, "read", "line 1: not JSON", "{")
    out = list(guard_derived_ids([bad, _row("x", 2)], ["v"]))
    assert out[0] is bad and _ids(out[1:]) == [("x", False)]


def test_row_after_a_row_holding_one_of_its_perturbation_ids_is_rejected():
    out = list(guard_derived_ids([_row("dk:perturb:KeyError:0", 1), _row("dk", 2)], ["rename-locals"]))
    assert _ids(out) == [("dk:perturb:KeyError:0", False), ("dk", True)]
    assert "has the form of a row derived from this one" in out[1].reason
