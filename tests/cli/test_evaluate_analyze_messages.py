"""Messages of ``evaluate`` and ``analyze`` that a user acts on: predictions whose ids match no
row are an error naming both files (exit 2); a missing matplotlib names ``--no-plots``; an
interrupted ``analyze`` says so in one line (exit 130)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import descendants

from codemorph.errors import CodemorphError

CLI = Path(sys.executable).parent / "codemorph"
ROW = {"id": "a", "code": "def f(x):\n    return x + 1\n", "input": "1", "output": "2"}


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("missing", ["skip", "wrong"])
def test_evaluate_fails_when_no_prediction_names_a_row(tmp_path, missing):
    (tmp_path / "d.jsonl").write_text(json.dumps(ROW) + "\n")
    (tmp_path / "p.jsonl").write_text('{"id": "sample_0", "prediction": "2"}\n')
    res = run("evaluate", "d.jsonl", "-p", "p.jsonl", "--missing", missing, "-o", "s.jsonl", cwd=tmp_path)
    assert res.returncode == 2
    assert " ".join(res.stderr.split()) == (
        "error: no prediction in p.jsonl names a row of d.jsonl: the predictions' ids are e.g. 'sample_0', the "
        "rows' ids e.g. 'a'; expected predictions keyed by the data set's row ids (a CodeMind layout with "
        "several benches: <bench>/<id>, or give --bench)")
    assert not (tmp_path / "s.jsonl").exists()


def test_evaluate_with_one_matching_prediction_still_scores_and_warns_about_the_others(tmp_path):
    (tmp_path / "d.jsonl").write_text(json.dumps(ROW) + "\n")
    (tmp_path / "p.jsonl").write_text('{"id": "a", "prediction": "2"}\n{"id": "zz", "prediction": "2"}\n')
    res = run("evaluate", "d.jsonl", "-p", "p.jsonl", "--k", "1", "--workers", "1", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "p: 1 predictions have no row in the data set (ignored), e.g. ['zz']" in " ".join(res.stderr.split())


def test_missing_matplotlib_names_the_no_plots_option(monkeypatch):
    from codemorph.scoring.report import require_matplotlib

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    with pytest.raises(CodemorphError) as err:
        require_matplotlib()
    assert str(err.value) == ("plots need matplotlib, which is not installed: pip install 'codemorph[analysis]' "
                              "(or run analyze with --no-plots)")


def test_interrupted_analyze_says_so_and_exits_130(tmp_path):
    slow = {"id": "s", "code": "import time\ndef f(x):\n    time.sleep(x)\n    return x\n", "input": "100",
            "output": "100"}
    (tmp_path / "d.jsonl").write_text(json.dumps(slow) + "\n")
    (tmp_path / "s.jsonl").write_text(json.dumps({"id": "s", "model": "m", "correct": [True], "status": ["pass"],
                                                  "original_id": "s", "kind": "original", "group": "original",
                                                  "transforms": [], "exception_type": None}) + "\n")
    p = subprocess.Popen([str(CLI), "analyze", "d.jsonl", "--results", "s.jsonl", "-o", "r", "--no-plots",
                          "--timeout", "120", "--workers", "1"], cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not descendants(p.pid) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)  # the sandbox process exists: the traced run has started
        assert p.poll() is None, "analyze ended before it could be interrupted"
        p.send_signal(signal.SIGINT)
        _, stderr = p.communicate(timeout=60)
    finally:
        p.kill()
    assert (p.returncode, stderr) == (130, "error: analyze interrupted; no report was written\n")
    assert not (tmp_path / "r").exists()
