"""Tests of codemorph.analyze (static and dynamic program properties) and codemorph.report.

Programs run only in codemorph's sandbox (dynamic properties); static properties come from libcst.
"""

from __future__ import annotations

import base64
import csv
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import networkx as nx
import pytest

from codemorph.scoring.analyze import (CONSTRUCTS, analyze, control_flow_graphs, cyclomatic_complexity, dynamic_properties,
                               output_type, program_properties, write_report)
from codemorph.errors import CodemorphError, ParseError
from codemorph.scoring.evaluate import evaluate_dataset, evaluate_many, write_scores
from codemorph.scoring.predictions import EvalRow, load_predictions, load_rows
from codemorph.engine.program import parse_source
from codemorph.sandbox.pool import Limits, Sandbox
from paths import SCORING_FIXTURES, SHARED_DATA, needs_shared

FIX = SCORING_FIXTURES / "evaluate"
SHARED = SHARED_DATA


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(Limits(timeout=2.0), workers=2) as sb:
        yield sb


# --------------------------------------------------------------------------- static

KITCHEN_SINK = '''\
def f(nums):
    # a comment line is not code
    output = []
    for n in nums:
        if n > 2:
            if n > 5:
                output.append(n)
        elif n < 0:
            continue
        else:
            break
    while True:
        x = [a for a in nums for b in nums if a]
        break
    try:
        g = lambda y: y
    except ValueError:
        pass
    return sorted(output)

def h(n):
    return k(n - 1) if n else 0

def k(n):
    return h(n)
'''


def test_program_properties_kitchen_sink():
    sp = program_properties(KITCHEN_SINK)
    assert sp.constructs == {"for": 1, "while": 1, "nested_loops": 1, "if": 5, "nested_if": 1, "try": 1,
                             "comprehension": 1, "lambda": 1, "recursion": 1, "with": 0, "match": 0,
                             "class": 0, "method": 0}
    assert sp.max_nesting == 3  # for > if > if
    assert sp.lines == 22
    assert sp.calls == 4  # append, sorted, k(...), h(...)
    assert sp.builtin_functions == ["sorted"]
    assert sp.builtin_methods == ["append"]
    assert sp.functions == 3
    # f: for, if, if, elif, try -> 5 decisions -> 6; h, k: 1 each
    assert sp.complexity == 8
    assert sp.loop_body_lines == [5, 13]


@pytest.mark.parametrize("src,nested", [
    # the iterable of a for statement and a comprehension's first iterable run once
    ("def f(s):\n    for c in [x for x in s]:\n        print(c)\n", 0),
    ("def f(s):\n    return [x for x in [y for y in s]]\n", 0),
    # a loop's else block runs once, after the loop
    ("def f(s):\n    for c in s:\n        pass\n    else:\n        for d in s:\n            pass\n", 0),
    # a lambda's body runs when it is called, as a def's does
    ("def f(s):\n    for c in s:\n        g = lambda: [x for x in c]\n", 0),
    # per iteration: a comprehension in a loop body, in a while test, in another's element
    ("def f(s):\n    for c in s:\n        t = [x for x in c]\n", 1),
    ("def f(s):\n    while any(c == 'a' for c in s):\n        s = s[1:]\n", 1),
    ("def f(s):\n    return [[y for y in x] for x in s]\n", 1),
    ("def f(s):\n    return [x for x in s if any(y for y in x)]\n", 1),
    ("def f(s):\n    return [(x, y) for x in s for y in x]\n", 1),
])
def test_nested_loops_count_loops_that_run_once_per_iteration_of_another(src, nested):
    assert program_properties(src).constructs["nested_loops"] == nested


def test_methods_of_nested_classes_and_under_an_if_count_in_complexity():
    src = ("class A:\n    def m(self, n):\n        if n:\n            return 1\n        return 0\n"
           "    class B:\n        def k(self):\n            for i in range(3):\n                pass\n"
           "    if True:\n        def j(self):\n            return 2\n")
    sp = program_properties(src)
    assert set(control_flow_graphs(parse_source(src))) == {"m", "k", "j"}
    assert sp.complexity == 2 + 2 + 1
    assert sp.constructs["class"] == 2 and sp.constructs["method"] == 3


def test_lines_of_a_multiline_string_starting_with_a_hash_are_code_lines():
    src = 'def f():\n    # comment\n\n    """doc\n    # not a comment\n    """\n    return 1\n'
    assert program_properties(src).lines == 5


def test_flags_and_shadowed_builtins():
    sp = program_properties("def f(x):\n    len = 3\n    with open('a') as fh:\n        return len + abs(x)\n")
    assert sp.flags()["with"] is True and sp.flags()["for"] is False
    assert sp.builtin_functions == ["abs", "open"]  # len is rebound by the program


def test_match_statement_and_elif_chain_are_not_nesting():
    src = ("def f(x):\n    match x:\n        case 1:\n            return 'a'\n        case [y, *_]:\n"
           "            return y\n        case _:\n            return None\n")
    sp = program_properties(src)
    assert sp.constructs["match"] == 1 and sp.max_nesting == 1
    assert sp.complexity == 3  # three cases, the last irrefutable
    chain = ("def f(x):\n    if x == 1:\n        return 1\n    elif x == 2:\n        return 2\n"
             "    elif x == 3:\n        return 3\n    return 0\n")
    sp = program_properties(chain)
    assert sp.constructs["nested_if"] == 0 and sp.max_nesting == 1 and sp.complexity == 4


@pytest.mark.parametrize("src,cc", [
    ("def f(x):\n    return x\n", 1),
    ("def f(x):\n    if x:\n        x += 1\n    return x\n", 2),
    ("def f(x):\n    if x:\n        return 1\n    else:\n        return 2\n", 2),
    ("def f(x):\n    for i in x:\n        if i:\n            break\n    else:\n        return 0\n    return 1\n", 3),
    ("def f(x):\n    while True:\n        if x:\n            break\n    return 1\n", 2),
    ("def f(x):\n    try:\n        return 1 / x\n    except ZeroDivisionError:\n        return 0\n"
     "    except TypeError:\n        return -1\n", 3),
    ("def f(x):\n    return x and x > 2 or not x\n", 1),  # boolean operators are not CFG branches
    ("def f(x):\n    def g(y):\n        if y:\n            return 1\n        return 0\n    return g(x)\n", 3),
])
def test_cyclomatic_complexity(src, cc):
    assert cyclomatic_complexity(src) == cc


@pytest.mark.parametrize("src,cc", [
    # CRUXEval sample_121's and sample_196's one-line ``if``: a decision like any other
    ("def f(s):\n    if s == '': return 'none'\n    return s\n", 2),
    ("def f(text):\n    if text.istitle(): return 'correct'\n    text = text.lower()\n    return 'mixed'\n", 2),
    # sample_134: a one-line if/else inside a loop, the else a one-line break
    ("def f(n):\n    t = 0\n    for d in n:\n        if d == 0: t += 1\n        else: break\n    return t\n", 3),
    ("def f(x):\n    while x: x -= 1\n    return x\n", 2),
    ("def f(x):\n    try: return 1 / x\n    except ZeroDivisionError: return 0\n", 2),
    ("def f(x):\n    if x: return 1\n    elif x is None: return 2\n    else: return 3\n", 3),
])
def test_cyclomatic_complexity_counts_one_line_bodies(src, cc):
    assert cyclomatic_complexity(src) == cc


def test_cfg_is_a_connected_networkx_graph_from_entry_to_exit():
    graphs = control_flow_graphs(parse_source(KITCHEN_SINK))
    assert sorted(graphs) == ["f", "h", "k"]
    g = graphs["f"]
    assert isinstance(g, nx.DiGraph)
    labels = nx.get_node_attributes(g, "label")
    entry = next(n for n, lab in labels.items() if lab == "entry")
    exit_ = next(n for n, lab in labels.items() if lab == "exit")
    assert all(nx.has_path(g, entry, n) for n in g.nodes)
    assert all(nx.has_path(g, n, exit_) for n in g.nodes)


def test_parse_error_is_reported():
    with pytest.raises(ParseError):
        program_properties("def f(:\n")


@pytest.mark.parametrize("out,exc,expected", [
    ("True", None, "bool"), ("-3", None, "int"), ("2.5", None, "float"), ("float('nan')", None, "float"),
    ("'a'", None, "str"), ("[1]", None, "list"), ("(1,)", None, "tuple"), ("{1: 2}", None, "dict"),
    ("{1, 2}", None, "set"), ("set()", None, "set"), ("None", None, "None"), (None, "KeyError", "exception"),
    ("b'x'", None, "other"),
])
def test_output_type(out, exc, expected):
    assert output_type(out, exc) == expected


@pytest.mark.parametrize("stdout,expected", [
    # Avatar's standard outputs (atcoder_ABC124_A, codeforces_49_A, atcoder_ABC164_A,
    # atcoder_ABC108_B, codeforces_242_A): text; a literal of a listed type reads as one, as
    # ExeRScope's analysis/match_type.py types them; any other text is a str, never "other"
    ("12\n", "int"), ("[1, 2]\n", "list"), ("True\n", "bool"), ("NO\n", "str"), ("unsafe\n", "str"), ("3 10 -1 7\n", "str"), ("6\n3 2\n4 2\n", "str"),
    ("b'x'\n", "str"), ("None\n", "str"), ("2.5\n", "float"), ("", "str"),
])
def test_output_type_of_a_standard_output_is_str_unless_it_reads_as_a_literal(stdout, expected):
    assert output_type(stdout, None, "stdin") == expected


# --------------------------------------------------------------------------- dynamic

def test_dynamic_properties_in_the_sandbox(sandbox):
    rows = [
        EvalRow("loop", "def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s", "7", "21"),
        EvalRow("rec", "def f(n):\n    return 1 if n <= 0 else n * f(n - 1)", "5", "120"),
        EvalRow("print", "def f(x):\n    print('@@codemorph-trace@@ not json')\n    return x", "1", "1"),
        EvalRow("raises", "def f(x):\n    y = 1\n    return x[5]", "[]", None, exception_type="IndexError"),
        EvalRow("hang", "def f(x):\n    while True:\n        pass", "1", "None"),
    ]
    lines = {r.id: program_properties(r.code).loop_body_lines for r in rows}
    d = dynamic_properties(rows, sandbox, loop_lines=lines)
    # the for header runs n + 1 times (the last test ends the loop), its body n times
    assert d["loop"] == {"loop_length": 8, "distinct_lines": 4, "line_executions": 17, "max_call_depth": 1,
                         "max_loop_iterations": 7, "run_status": "returned", "run_exception": None}
    assert d["rec"]["max_call_depth"] == 6 and d["rec"]["loop_length"] == 6
    assert d["print"]["distinct_lines"] == 2  # the program's own output does not confuse the parser
    assert d["raises"]["run_status"] == "raised" and d["raises"]["run_exception"] == "IndexError"
    assert d["raises"]["line_executions"] == 2
    assert d["hang"] is None


# --------------------------------------------------------------------------- report

class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.tables, self.figures = [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        elif tag == "table":
            self.tables.append(a.get("id"))
        elif tag == "figure":
            self.figures.append(a.get("id"))


ALL_PLOTS = ("constructs", "complexity", "loop_length", "output_type", "transform_drop")


def _check_html(path: Path, tables: list[str], plots: tuple[str, ...] = ALL_PLOTS):
    text = path.read_text(encoding="utf-8")
    p = _Collect()
    p.feed(text)
    assert p.figures == [f"plot-{name}" for name in plots]
    assert len(p.imgs) == len(plots)
    for src in p.imgs:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    for t in tables:
        assert t in p.tables
    assert not re.search(r"(src|href)=['\"](?!data:)", text)  # self-contained: no external resources
    return text


def test_analyze_fixture_two_models_and_report(tmp_path, sandbox):
    rows = load_rows(FIX / "robustness_rows.jsonl")
    [ps] = load_predictions(FIX / "robustness_predictions.jsonl")
    good = evaluate_dataset(rows, ps, match="exact", n_resamples=50)
    ps.model = "perfect"
    ps.predictions = {r.id: [r.output if r.output is not None else r.exception_type] for r in rows}
    perfect = evaluate_dataset(rows, ps, match="exact", n_resamples=50)
    write_scores([good], tmp_path / "toy.jsonl")
    report = analyze(FIX / "robustness_rows.jsonl", [tmp_path / "toy.jsonl", perfect], sandbox=sandbox,
                     n_resamples=50)
    assert report.models == ["toy", "perfect"]
    assert [m["accuracy"] for m in report.model_summary] == [0.7, 1.0]
    by = {(r["model"], r["property"], r["value"]): r for r in report.property_accuracy}
    # o4 and its two variants have a for loop; toy gets o4:rename-locals and o4:perturb:0 right
    assert by[("toy", "for", "yes")]["rows"] == 3
    assert by[("toy", "for", "yes")]["accuracy"] == pytest.approx(2 / 3)
    assert by[("toy", "output_type", "exception")]["accuracy"] == 0.5
    assert by[("perfect", "all", "all")]["ci_high"] == 1.0
    progs = {p["id"]: p for p in report.programs}
    assert progs["o4"]["loop_length"] == 5 and progs["o4:perturb:0"]["max_loop_iterations"] == 3
    assert report.robustness["toy"].robust_accuracy == 0.25
    # toy is right on 7 rows, perfect on all 10: 3 discordant rows, all for perfect
    [cmp] = report.model_comparison
    assert (cmp["model_a"], cmp["model_b"], cmp["rows"], cmp["only_a"], cmp["only_b"]) == ("toy", "perfect", 10, 0, 3)
    assert cmp["difference"] == pytest.approx(-0.3) and cmp["mcnemar_p"] == pytest.approx(0.25)

    files = write_report(report, tmp_path / "report")
    for name in ("constructs", "complexity", "loop_length", "output_type", "transform_drop"):
        assert files[f"{name}.png"].read_bytes()[:4] == b"\x89PNG"
    with open(files["property_accuracy.csv"], newline="") as fh:
        table = list(csv.DictReader(fh))
    row = next(r for r in table if (r["model"], r["property"], r["value"]) == ("toy", "for", "yes"))
    assert float(row["accuracy"]) == pytest.approx(2 / 3) and row["rows"] == "3"
    rob = json.loads(files["robustness.json"].read_text())
    assert {(r["model"], r["group"]) for r in rob} >= {("toy", "rename-locals"), ("toy", "perturbation")}
    html_text = _check_html(files["report.html"], ["model_summary", "model_comparison", "property_accuracy",
                                                   "correlations", "robustness", "exceptions", "programs"])
    assert "rename-locals" in html_text and "IndexError" in html_text


def test_report_without_matplotlib_says_how_to_install(monkeypatch, tmp_path):
    rows = load_rows(FIX / "robustness_rows.jsonl")
    [ps] = load_predictions(FIX / "robustness_predictions.jsonl")
    res = evaluate_dataset(rows, ps, match="exact", n_resamples=10)
    report = analyze(rows, [res], dynamic=False, n_resamples=10)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(CodemorphError, match=r"codemorph\[analysis\]"):
        write_report(report, tmp_path / "r")
    files = write_report(report, tmp_path / "r", plots=False)  # tables and HTML still work
    assert "report.html" in files and not any(k.endswith(".png") for k in files)


def test_cli_analyze(tmp_path):
    from typer.testing import CliRunner

    from codemorph.cli.main import app

    scores = tmp_path / "s.jsonl"
    r = CliRunner().invoke(app, ["evaluate", str(FIX / "robustness_rows.jsonl"), "-p",
                                 str(FIX / "robustness_predictions.jsonl"), "--match", "exact", "-o", str(scores),
                                 "--bootstrap", "20"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["analyze", str(FIX / "robustness_rows.jsonl"), "-r", str(scores), "-o",
                                 str(tmp_path / "rep"), "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "rep" / "report.html").is_file() and (tmp_path / "rep" / "programs.csv").is_file()


@needs_shared("codemind-layout")
def test_analyze_codemind_results_report(tmp_path, sandbox):
    layout = SHARED / "codemind-layout"
    rows = [r for r in load_rows(layout / "dataset" / "cruxeval") if int(r.id.split("_")[1]) < 80]
    results = evaluate_many(rows, load_predictions(layout, bench="cruxeval"), sandbox=sandbox)
    write_scores(results, tmp_path / "scores.jsonl")
    report = analyze(rows, [tmp_path / "scores.jsonl"], sandbox=sandbox, n_resamples=50)
    assert report.models == ["deepseek-coder-33b-instruct", "gemini-1.5-pro", "semcoder_s", "starcoder2-15b"]
    assert {c["property"] for c in report.correlations} >= {"complexity", "loop_length"}
    assert all(p["loop_length"] is not None for p in report.programs)
    files = write_report(report, tmp_path / "report")
    # no variants: no drop plot, and a line says why instead of an empty figure
    text = _check_html(files["report.html"], ["model_summary", "property_accuracy", "correlations", "programs"],
                       plots=ALL_PLOTS[:4])
    assert "transform_drop.png" not in files
    assert "nothing to plot (no transformed or perturbed rows in the scored results)" in text
    for m in report.models:
        assert m in text
    assert set(CONSTRUCTS) <= set(json.loads(files["programs.json"].read_text())[0])


def test_bar_plot_labels_give_each_models_rows_when_models_were_scored_on_different_rows():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from codemorph.scoring.report import _bar_plot, _drop_plot

    rows = load_rows(FIX / "robustness_rows.jsonl")
    [ps] = load_predictions(FIX / "robustness_predictions.jsonl")
    full = evaluate_dataset(rows, ps, match="exact", n_resamples=10)
    ps.model = "part"
    ps.predictions = {r.id: [r.output or ""] for r in rows if r.id != "o4"}
    part = evaluate_dataset(rows, ps, match="exact", n_resamples=10)
    report = analyze(rows, [full, part], dynamic=False, n_resamples=10)
    by = {(r["model"], r["property"], r["value"]): r["rows"] for r in report.property_accuracy}
    assert (by[(full.model, "for", "yes")], by[("part", "for", "yes")]) == (3, 2)
    fig = _bar_plot(plt, report, [("for", "yes", "for"), ("all", "all", "all")], "t", "x")
    try:
        # the rows behind each model's bar, not the first model's alone
        assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["for (n=3 / 2)", "all (n=10 / 9)"]
    finally:
        plt.close(fig)
    groups = {m: {g.group: g.rows for g in rob.groups} for m, rob in report.robustness.items()}
    fig = _drop_plot(plt, report)
    try:
        want = [f"{g} (n={groups[full.model][g]}" + ("" if groups[full.model][g] == groups["part"].get(g) else
                                                      f" / {groups['part'].get(g, '-')}") + ")"
                for g in sorted(groups[full.model])]
        assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == want
        assert any(" / " in w for w in want)  # o4's variants are not in "part"'s rows
    finally:
        plt.close(fig)


def test_analyze_reports_a_too_deeply_nested_program_as_unknown_and_analyses_the_rest(tmp_path):
    from typer.testing import CliRunner

    from codemorph.cli.main import app

    deep = "def f(x): return " + " + ".join(["x"] * 999)
    rows = [{"id": "deep", "code": deep, "input": "1", "output": "999", "kind": "original",
             "original_id": "deep", "transforms": []},
            {"id": "deep:rename-locals", "code": deep.replace("x", "v0"), "input": "1", "output": "999",
             "kind": "code-transform", "original_id": "deep", "transforms": ["rename-locals"]},
            {"id": "ok", "code": "def f(x):\n    for i in x:\n        pass\n    return 2", "input": "[1]",
             "output": "2", "kind": "original", "original_id": "ok", "transforms": []}]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(json.dumps({"id": r["id"], "prediction": r["output"], "model": "m"}) + "\n"
                             for r in rows))
    scores = tmp_path / "s.jsonl"
    r = CliRunner().invoke(app, ["evaluate", str(data), "-p", str(preds), "--match", "exact", "-o", str(scores)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["analyze", str(data), "-r", str(scores), "-o", str(tmp_path / "rep"),
                                 "--no-dynamic", "--no-plots"])
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert ("note: deep: not analysed statically (nested too deeply to measure: RecursionError); its static "
            "properties are unknown and it is left out of their break-downs") in text
    programs = {p["id"]: p for p in json.loads((tmp_path / "rep" / "programs.json").read_text())}
    assert set(programs) == {"deep", "deep:rename-locals", "ok"}
    assert "for" not in programs["deep"] and "complexity" not in programs["deep"]
    assert programs["ok"]["for"] == 1 and programs["ok"]["complexity"] == 2
    assert isinstance(programs["deep:rename-locals"]["naturalness_delta"], float)  # token-based: measured
    acc = json.loads((tmp_path / "rep" / "property_accuracy.json").read_text())
    by = {(a["property"], a["value"]): a["rows"] for a in acc}
    assert by[("all", "all")] == 3 and by[("for", "yes")] == 1 and ("for", "no") not in by


def test_analyze_on_a_full_disk_says_one_line_and_refuses_a_timeout_that_is_not_positive(tmp_path, monkeypatch):
    import errno

    from typer.testing import CliRunner

    from codemorph.cli.main import app

    scores = tmp_path / "scores.jsonl"
    r = CliRunner().invoke(app, ["evaluate", str(FIX / "robustness_rows.jsonl"), "-p",
                                 str(FIX / "robustness_predictions.jsonl"), "--match", "exact", "-o", str(scores),
                                 "--bootstrap", "20"])
    assert r.exit_code == 0, r.output
    args = ["analyze", str(FIX / "robustness_rows.jsonl"), "-r", str(scores), "-o", str(tmp_path / "rep"),
            "--no-dynamic", "--no-plots"]
    bad = CliRunner().invoke(app, [*args, "--timeout", "0"])
    assert bad.exit_code == 2 and "--timeout must be > 0 seconds, got 0" in " ".join(bad.output.split())

    real_open = open

    def full_disk_open(path, mode="r", *a, **kw):  # the report folder's files: a full disk
        if "w" in mode and str(tmp_path / "rep") in str(path):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real_open(path, mode, *a, **kw)

    monkeypatch.setattr("builtins.open", full_disk_open)
    full = CliRunner().invoke(app, args)
    monkeypatch.undo()
    said = " ".join(full.output.split())
    assert full.exit_code == 2, full.output
    assert said.startswith(f"error: cannot write {tmp_path / 'rep'}")
    assert f"No space left on device; the report in {tmp_path / 'rep'} is incomplete" in said
    assert "Traceback" not in full.output



def test_line_plot_leaves_out_empty_bins_and_gives_the_rows_and_rho_of_each_model():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from codemorph.scoring.report import _line_plot

    rows = [EvalRow("a", "def f(x):\n    return x", "1", "1"),
            EvalRow("b", "def f(x):\n    if x:\n        return 1\n    return x", "1", "1"),
            EvalRow("c", "def f(x):\n    if x:\n        return 1\n    return x", "2", "1")]
    scores = {"m1": [_row_score("a", [True]), _row_score("b", [False]), _row_score("c", [True, False])],
              "m2": [_row_score("a", [True]), _row_score("b", [True])]}
    report = analyze(rows, [scores], dynamic=False)
    fig = _line_plot(plt, report, "complexity", "t", "x")
    try:
        ax = fig.axes[0]
        # complexity 1 and 2 only: bins 3..6+ have no row and no tick
        assert [t.get_text() for t in ax.get_xticklabels()] == ["1\n(n=1)", "2\n(n=2 / 1)"]
        assert [t.get_text() for t in ax.get_legend().get_texts()] == [
            "m1: ρ = -0.866 (p = 0.33, n = 3)", "m2"]  # ranks (1, 2.5, 2.5) vs (3, 1, 2); two rows: no rho for m2
        assert ax.yaxis.get_major_formatter()(0.5, 0) == "50%"
    finally:
        plt.close(fig)
    # nothing measured: no figure rather than an empty one
    assert _line_plot(plt, report, "loop_length", "t", "x") is None


def _row_score(rid: str, correct: list[bool]):
    from codemorph.scoring.evaluate import RowScore

    return RowScore(rid, rid, "original", "original", (), None, "", correct, [""] * len(correct))


def _score_line(rid: str, correct, **extra) -> str:
    return json.dumps({"id": rid, "model": "m", "correct": correct, **extra}) + "\n"


def test_a_scores_line_whose_verdicts_are_not_booleans_costs_that_line_with_a_note(tmp_path):
    rows = [EvalRow(f"r{i}", "def f(x):\n    return x", str(i), str(i)) for i in range(5)]
    scores = tmp_path / "s.jsonl"
    scores.write_text(_score_line("r0", [True, False]) + _score_line("r1", [False, False])
                      # NaN and the string "false" were read as correct (bool() of them is True)
                      + _score_line("r2", [float("nan")]) + _score_line("r3", "false")
                      # n/c that disagree with the verdicts: the line is not what evaluate wrote
                      + _score_line("r4", [True], n=2, c=1) + "not json\n")
    report = analyze(rows, [scores], dynamic=False)
    assert report.scores == {"m": {"r0": 0.5, "r1": 0.0}}
    assert report.model_summary[0]["rows"] == 2 and report.model_summary[0]["accuracy"] == 0.25
    assert any(n.startswith("4 lines of ") and "s.jsonl:3: not a scored row" in n for n in report.notes)
    assert any("scored on 2 of the 5 rows" in n for n in report.notes)


def test_a_scores_file_of_another_data_set_is_one_clear_error_in_the_cli(tmp_path):
    from typer.testing import CliRunner

    from codemorph.cli.main import app

    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps({"id": "a", "code": "def f(x):\n    return x", "input": "1", "output": "1"}) + "\n")
    scores = tmp_path / "s.jsonl"
    scores.write_text(_score_line("sample_0", [True]))
    res = CliRunner().invoke(app, ["analyze", str(data), "-r", str(scores), "-o", str(tmp_path / "rep"),
                                   "--no-dynamic", "--no-plots"])
    assert res.exit_code == 2
    assert "no scored row matches a row of the data set" in res.output
    assert "Traceback" not in res.output


def test_property_table_gives_pass_at_k_per_bucket_over_the_rows_with_k_generations():
    rows = [EvalRow("a", "def f(x):\n    return x", "1", "1"),
            EvalRow("b", "def f(x):\n    for i in x:\n        pass\n    return x", "[]", "[]"),
            EvalRow("c", "def f(x):\n    for i in x:\n        pass\n    return x", "[1]", "[1]"),
            EvalRow("d", "def f(x):\n    for i in x:\n        pass\n    return x", "[2]", "[2]")]
    ten = [True] * 2 + [False] * 8
    scores = {"m": [_row_score("a", [True] * 10), _row_score("b", ten), _row_score("c", [False] * 10),
                    _row_score("d", [True, False])]}
    report = analyze(rows, [scores], dynamic=False)
    by = {(r["property"], r["value"]): r for r in report.property_accuracy}
    loop = by[("for", "yes")]
    # accuracy = mean row pass@1: (0.2 + 0 + 0.5) / 3
    assert loop["rows"] == 3 and loop["accuracy"] == pytest.approx(0.7 / 3)
    # pass@5 of b: 1 - C(8,5)/C(10,5) = 1 - 56/252; c: 0; d has 2 generations: left out
    assert loop["pass@5"] == pytest.approx((1 - 56 / 252) / 2) and loop["pass@5_rows"] == 2
    # pass@10: 1 for b, 0 for c
    assert loop["pass@10"] == pytest.approx(0.5) and loop["pass@10_rows"] == 2
    assert by[("for", "no")]["pass@5"] == 1.0 and by[("for", "no")]["pass@5_rows"] == 1


@pytest.mark.parametrize("src,recursive", [
    # a method calling the module function of its own name is no recursion
    ("def m(x):\n    return x\nclass A:\n    def m(self, x):\n        return m(x)\n", 0),
    # self.run in two classes: each reaches its own class's method, no cycle across them
    ("class A:\n    def run(self):\n        return self.step()\n    def step(self):\n        return 1\n"
     "class B:\n    def step(self):\n        return self.run()\n    def run(self):\n        return 2\n", 0),
    ("class A:\n    def run(self, n):\n        return self.run(n - 1) if n else 0\n", 1),
    ("class A:\n    def a(self, n):\n        return self.b(n)\n    def b(self, n):\n"
     "        def inner():\n            return self.a(n - 1)\n        return inner() if n else 0\n", 1),
    ("def f(n):\n    return f(n - 1) if n else 0\n", 1),
])
def test_recursion_follows_plain_calls_to_functions_and_self_calls_to_the_own_class(src, recursive):
    assert program_properties(src).constructs["recursion"] == recursive
