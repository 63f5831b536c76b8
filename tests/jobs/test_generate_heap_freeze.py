"""``RowProcessor(freeze_heap=True)`` (what ``generate`` gives its workers) moves what the
first row left alive out of the collector's way and lets the youngest generation grow, and
puts both back when closed; the rows it writes are those of a processor without it."""

import gc

from codemorph.jobs.generate import GenerateConfig, RowProcessor
from codemorph.rows.dataset import SourceRow

ROWS = [SourceRow("a", "def f(xs):\n    out = []\n    for x in xs:\n        if x > 1:\n            out.append(x)\n"
                       "    return out\n", "[1, 2, 3]", "[2, 3]", "f", 1),
        SourceRow("b", "def f(s):\n    n = 0\n    for c in s:\n        n += c == 'a'\n    return n\n", "'banana'", "3",
                  "f", 2)]


def _rows(freeze: bool) -> tuple[list, list]:
    cfg = GenerateConfig.from_transforms(["rename-locals", "for-to-while", "invert-if"])
    p = RowProcessor(cfg, freeze_heap=freeze)
    seen = []
    try:
        rows = []
        for r in ROWS:
            rows += p.process(r).rows
            seen.append((gc.get_freeze_count() > 0, gc.get_threshold()[0]))
    finally:
        p.close()
    return rows, seen


def test_heap_frozen_after_first_row_and_restored_on_close():
    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    rows, seen = _rows(True)
    assert seen == [(True, max(before[0], 10_000))] * 2
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
    assert rows == _rows(False)[0]
    assert len(rows) >= 4  # the originals and some variants were written


def test_two_processors_of_one_process_restore_the_collector_when_the_last_closes():
    # Dask runs one processor per thread of a worker process
    before = gc.get_threshold()
    cfg = GenerateConfig.from_transforms(["invert-if"])
    a, b = RowProcessor(cfg, freeze_heap=True), RowProcessor(cfg, freeze_heap=True)
    try:
        a.process(ROWS[0])
        b.process(ROWS[1])
        assert gc.get_threshold()[0] == max(before[0], 10_000)
        a.close()
        assert gc.get_threshold()[0] == max(before[0], 10_000) and gc.get_freeze_count() > 0
    finally:
        a.close()
        b.close()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
