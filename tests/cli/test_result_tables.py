"""The summary tables of generate, perturb, evaluate and analyze never cut a number: a
narrow console or pipe wraps headers, folds names, or prints the table wider than the
console; ``COLUMNS`` sets the width of piped output."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from rich.console import Console
from rich.table import Table

from codemorph.cli import common
from codemorph.cli.common import print_table, two_lines
from paths import SCORING_FIXTURES

FIX = SCORING_FIXTURES / "evaluate"


def _robustness_table() -> Table:
    t = Table(title="toy: robustness")
    t.add_column("group")
    for col in ("rows", "acc.", "originals", "drop [95% CI]", "rel. drop", "robust acc. (paired)",
                "flip rate (paired)"):
        t.add_column(col, justify="right")
    t.add_row("rename-locals+for-to-while", "4", "100.0", "75.0", "-25.0 [-100.0, 50.0]", "-33.3", "100.0", "75.0")
    return t


def _printed(table: Table, width: int) -> str:
    buf = io.StringIO()
    print_table(table, Console(file=buf, width=width, color_system=None))
    return buf.getvalue()


@pytest.mark.parametrize("width", [40, 80, 100, 200])
def test_numbers_and_names_of_a_table_are_whole_at_any_console_width(width):
    text = _printed(_robustness_table(), width)
    assert "…" not in text
    for number in ("100.0", "-25.0 [-100.0, 50.0]", "-33.3", "75.0"):
        assert number in text
    first = "".join(ln.split("│")[1].strip() for ln in text.splitlines() if ln.startswith("│"))
    assert first == "rename-locals+for-to-while"  # folded onto lines, not cut


def test_headers_wrap_onto_two_lines_only_when_the_table_does_not_fit():
    wide = _printed(_robustness_table(), 200)
    assert "robust acc. (paired)" in wide and "flip rate (paired)" in wide
    narrow = _printed(_robustness_table(), 100)
    assert "robust acc. (paired)" not in narrow
    lines = narrow.splitlines()
    head = next(i for i, ln in enumerate(lines) if "robust acc." in ln)
    assert "(paired)" in lines[head + 1] and max(len(ln) for ln in lines) <= 100


def test_a_table_too_wide_for_the_console_is_printed_wider_not_cut():
    lines = _printed(_robustness_table(), 40).splitlines()
    assert max(len(ln) for ln in lines) > 40
    assert any("rename-locals+for-to-while" in ln for ln in lines)  # names whole when wider anyway


def test_two_lines_splits_a_header_at_the_space_nearest_its_middle():
    assert two_lines("not applicable") == "not\napplicable"
    assert two_lines("median time to find (s)") == "median time\nto find (s)"
    assert two_lines("inconclusive") == "inconclusive"


def test_piped_output_is_120_columns_unless_COLUMNS_says(monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False, raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)
    assert common._piped_width() == 120
    monkeypatch.setenv("COLUMNS", "200")
    assert common._piped_width() is None  # rich reads COLUMNS itself


def test_evaluate_piped_with_a_narrow_COLUMNS_shows_every_accuracy_whole():
    res = subprocess.run([sys.executable, "-m", "codemorph.cli", "evaluate", str(FIX / "robustness_rows.jsonl"), "-p",
                          str(FIX / "robustness_predictions.jsonl"), "--match", "exact"],
                         capture_output=True, text=True, env={**__import__("os").environ, "COLUMNS": "60"})
    assert res.returncode == 0, res.stderr
    assert "…" not in res.stdout
    rows = [ln for ln in res.stdout.splitlines() if ln.startswith("│ perturbation")]
    assert rows and "100.0" in rows[0] and "-50.0 [-100.0, 0.0]" in rows[0]
