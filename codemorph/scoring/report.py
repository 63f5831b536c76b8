"""Writing an analysis :class:`~codemorph.analyze.Report`: CSV and JSON tables, PNG plots
(matplotlib, Agg backend) and one self-contained HTML page (plots embedded as base64).

matplotlib is an optional dependency (``pip install 'codemorph[analysis]'``); it is
imported only when plots are drawn.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
import os
from pathlib import Path
from typing import Any, Sequence

from codemorph.errors import CodemorphError, InputError
from codemorph.scoring.tables import BINS, CONSTRUCTS, OUTPUT_TYPES, TABLES, Report, report_tables

__all__ = ["write_report", "render_plots", "render_html", "PLOTS", "TABLES", "require_matplotlib"]

#: plot file names (without .png) and titles
PLOTS = {
    "constructs": "Accuracy by code construct (Wilson 95% intervals)",
    "complexity": "Accuracy against cyclomatic complexity",
    "loop_length": "Accuracy against loop length (executions of the most executed line)",
    "output_type": "Accuracy by output type",
    "transform_drop": "Accuracy drop per transform / perturbation (bootstrap 95% intervals)",
}


#: why a plot can be empty (it is then not drawn)
_NOTHING_TO_PLOT = {
    "transform_drop": "no transformed or perturbed rows in the scored results",
    "loop_length": "no dynamic properties measured (--no-dynamic, or no traced run finished)",
}


def require_matplotlib():
    """Import matplotlib with the Agg backend and return ``matplotlib.pyplot``.

    Raises:
        CodemorphError: matplotlib is not installed.
    """
    try:
        import matplotlib
    except ImportError:
        raise CodemorphError("plots need matplotlib, which is not installed: "
                             "pip install 'codemorph[analysis]' (or run analyze with --no-plots)") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, (list, tuple)):
        return " ".join("" if x is None else (f"{x:.6g}" if isinstance(x, float) else str(x)) for x in v)
    return v


def _write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for r in rows:
            w.writerow([_csv_value(r.get(c)) for c in cols])


# --------------------------------------------------------------------------- plots

def _fig_bytes(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


def _err(acc: float, lo: float, hi: float) -> tuple[float, float]:
    return max(0.0, acc - lo), max(0.0, hi - acc)


def _n_label(label: str, ns: list[int | None]) -> str:
    """A bar group's tick label with the rows behind its bars: one ``n`` when every model's
    is the same, else each model's in legend order (models scored on different rows; ``-``
    for a model without rows there)."""
    shown = [str(n) if n is not None else "-" for n in ns]
    if all(n is None for n in ns):
        return label
    return f"{label} (n={shown[0] if len(set(shown)) == 1 else ' / '.join(shown)})"


def _percent_axis(ax, label: str = "accuracy (% of predictions correct)") -> None:
    """A y axis of accuracies (fractions) shown in percent, 0 to 100."""
    from matplotlib.ticker import PercentFormatter

    ax.set_ylim(0, 1.05)
    ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=0))
    ax.set_ylabel(label)


def _rotated_ticks(ax, labels: list[str], fontsize: int = 8) -> None:
    """Category tick labels rotated 30 degrees and anchored at their end, so that long
    labels of neighbouring categories do not run into each other."""
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30, ha="right", rotation_mode="anchor", fontsize=fontsize)


def _bar_plot(plt, report: "Report", categories: list[tuple[str, str, str]], title: str, xlabel: str):
    """Grouped bars: categories are (property, value, label); one bar per model."""
    if not categories:
        return None
    models = report.models
    table = {(r["model"], r["property"], r["value"]): r for r in report.property_accuracy}
    fig, ax = plt.subplots(figsize=(min(13.0, max(6.4, 0.35 * len(categories) * max(1, len(models)) + 2)), 4.2))
    width = 0.8 / max(1, len(models))
    for i, m in enumerate(models):
        xs, ys, lo, hi = [], [], [], []
        for j, (prop, val, _) in enumerate(categories):
            r = table.get((m, prop, val))
            if r is None:
                continue
            xs.append(j - 0.4 + width * (i + 0.5))
            ys.append(r["accuracy"])
            e = _err(r["accuracy"], r["ci_low"], r["ci_high"])
            lo.append(e[0])
            hi.append(e[1])
        ax.bar(xs, ys, width=width, label=m, yerr=[lo, hi], capsize=2)
    _rotated_ticks(ax, [_n_label(lab, [table[(m, prop, val)]["rows"] if (m, prop, val) in table else None
                                       for m in models]) for prop, val, lab in categories])
    _percent_axis(ax)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    if len(models) > 1:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", alpha=0.3)
    return fig


def _line_plot(plt, report: "Report", prop: str, title: str, xlabel: str):
    """Accuracy per bin of ``prop`` (bins no model has rows in are left out), one line per
    model; each tick gives the rows behind it, the legend each model's Spearman rho."""
    table = {(r["model"], r["property"], r["value"]): r for r in report.property_accuracy}
    labels = [lab for lab in BINS[prop][1] if any((m, prop, lab) in table for m in report.models)]
    if not labels:
        return None
    ticks = [_n_label(lab, [table[(m, prop, lab)]["rows"] if (m, prop, lab) in table else None
                            for m in report.models]).replace(" (n=", "\n(n=", 1) for lab in labels]
    # room for the longest tick label (two lines: the bin, then the rows behind it)
    widest = max(len(t.split("\n")[-1]) for t in ticks)
    fig, ax = plt.subplots(figsize=(max(6.4, len(labels) * max(1.0, 0.075 * widest) + 1.5), 4.2))
    rho = {c["model"]: c for c in report.correlations if c["property"] == prop and c["rho"] is not None}
    for i, m in enumerate(report.models):
        xs, ys, lo, hi = [], [], [], []
        for j, lab in enumerate(labels):
            r = table.get((m, prop, lab))
            if r is None:
                continue
            xs.append(j + (i - (len(report.models) - 1) / 2) * 0.06)
            ys.append(r["accuracy"])
            e = _err(r["accuracy"], r["ci_low"], r["ci_high"])
            lo.append(e[0])
            hi.append(e[1])
        c = rho.get(m)
        label = m if c is None else f"{m}: ρ = {c['rho']:.3f} (p = {c['p_value']:.2g}, n = {c['n']})"
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=label)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(ticks, fontsize=8)
    _percent_axis(ax)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0.0, -0.22), ncol=1,
              title="model (Spearman correlation of the property with success)", title_fontsize=8,
              frameon=False)
    ax.grid(alpha=0.3)
    return fig


def _drop_plot(plt, report: "Report"):
    data = {m: rob.groups for m, rob in report.robustness.items() if rob is not None and rob.groups}
    if not data:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    groups = sorted({g.group for gs in data.values() for g in gs})
    width = 0.8 / len(data)
    for i, (m, gs) in enumerate(data.items()):
        by = {g.group: g for g in gs}
        xs, ys, lo, hi = [], [], [], []
        for j, name in enumerate(groups):
            g = by.get(name)
            if g is None:
                continue
            xs.append(j - 0.4 + width * (i + 0.5))
            ys.append(g.abs_drop * 100)
            ci = g.abs_drop_ci or (g.abs_drop, g.abs_drop)
            lo.append(max(0.0, (g.abs_drop - ci[0]) * 100))
            hi.append(max(0.0, (ci[1] - g.abs_drop) * 100))
        ax.bar(xs, ys, width=width, yerr=[lo, hi], capsize=2, label=m)
    ax.axhline(0, color="black", linewidth=0.8)
    rows_of = {m: {g.group: g.rows for g in gs} for m, gs in data.items()}
    _rotated_ticks(ax, [_n_label(name, [rows_of[m].get(name) for m in data]) for name in groups])
    ax.set_ylabel("accuracy drop vs. originals\n(percentage points)")
    ax.set_xlabel("transform / perturbation (n = variant rows)")
    ax.set_title(PLOTS["transform_drop"])
    if len(data) > 1:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", alpha=0.3)
    return fig


def render_plots(report: "Report") -> dict[str, bytes]:
    """Draw the plots of :data:`PLOTS` that have something to show; returns name -> PNG
    bytes (a plot without data, e.g. ``transform_drop`` for results without variants or a
    dynamic property not measured, is left out rather than drawn empty).

    Raises:
        CodemorphError: matplotlib is not installed.
    """

    plt = require_matplotlib()
    out: dict[str, bytes] = {}
    present = {(r["property"], r["value"]) for r in report.property_accuracy}
    figs = {
        "constructs": lambda: _bar_plot(plt, report, [(c, "yes", c.replace("_", " ")) for c in CONSTRUCTS
                                                      if (c, "yes") in present],
                                        PLOTS["constructs"], "programs containing"),
        "complexity": lambda: _line_plot(plt, report, "complexity", PLOTS["complexity"],
                                         "cyclomatic complexity (CFG)"),
        "loop_length": lambda: _line_plot(plt, report, "loop_length", PLOTS["loop_length"],
                                          "executions of the most executed line"),
        "output_type": lambda: _bar_plot(plt, report, [("output_type", t, t) for t in OUTPUT_TYPES
                                                       if ("output_type", t) in present],
                                         PLOTS["output_type"], "type of the expected output"),
        "transform_drop": lambda: _drop_plot(plt, report),
    }
    for name, make in figs.items():
        fig = make()
        if fig is None:  # nothing to plot: no empty figure
            continue
        try:
            out[name] = _fig_bytes(fig)
        finally:
            plt.close(fig)
    return out


# --------------------------------------------------------------------------- HTML

def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return f"{v:.4f}" if abs(v) < 1000 else f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


def _html_table(rows: Sequence[dict[str, Any]], cols: Sequence[str] | None = None, table_id: str = "",
                limit: int | None = None) -> str:
    if not rows:
        return "<p class='empty'>(no rows)</p>"
    if cols is None:
        cols = []
        for r in rows:
            for k in r:
                if k not in cols:
                    cols.append(k)
    shown = rows if limit is None else rows[:limit]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(r.get(c)))}</td>" for c in cols) + "</tr>"
                   for r in shown)
    more = "" if limit is None or len(rows) <= limit else \
        f"<p class='more'>first {limit} of {len(rows)} rows; all rows are in the CSV/JSON files</p>"
    ident = f" id='{html.escape(table_id)}'" if table_id else ""
    return f"<table{ident}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{font-size:1.6em} h2{margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:0.85em;margin:0.6em 0}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:right} th{background:#f3f3f3}
td:first-child,th:first-child{text-align:left}
figure{margin:1em 0} figcaption{font-size:0.9em;color:#555}
img{max-width:100%} .notes li{color:#a33} .empty,.more{color:#777;font-size:0.85em}
"""


def render_html(report: "Report", images: dict[str, bytes]) -> str:
    """One self-contained HTML page: summary, plots (``data:image/png;base64``) and tables."""
    tables = report_tables(report)
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
             "<title>codemorph analysis report</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>codemorph analysis report</h1>",
             f"<p>Data set: <code>{html.escape(str(report.dataset))}</code>; "
             f"{len(report.programs)} programs; models: {html.escape(', '.join(report.models))}.</p>"]
    if report.notes:
        parts.append("<ul class='notes'>" + "".join(f"<li>{html.escape(n)}</li>" for n in report.notes) + "</ul>")
    parts.append("<h2>Models</h2>")
    parts.append(_html_table(report.model_summary, table_id="model_summary"))
    if report.model_comparison:
        parts.append("<h3>Pairwise comparison</h3><p>Rows both models scored; only_a / only_b: rows one "
                     "model got right and the other wrong; exact McNemar test.</p>")
        parts.append(_html_table(report.model_comparison, table_id="model_comparison"))
    parts.append("<h2>Plots</h2>")
    for name, title in PLOTS.items():
        if name in images:
            b64 = base64.b64encode(images[name]).decode("ascii")
            parts.append(f"<figure id='plot-{name}'><img alt='{html.escape(title)}' "
                         f"src='data:image/png;base64,{b64}'><figcaption>{html.escape(title)}</figcaption></figure>")
        elif images:
            parts.append(f"<p class='empty' id='plot-{name}-empty'>{html.escape(title)}: nothing to plot "
                         f"({html.escape(_NOTHING_TO_PLOT.get(name, 'no rows'))}).</p>")
    parts.append("<h2>Accuracy by property</h2>")
    parts.append("<p>Accuracy is the mean over a bucket's programs of each program's fraction of correct "
                 "predictions (its pass@1); intervals are Wilson 95% score intervals over programs. "
                 "pass@5 / pass@10 (when a model has that many generations) are the mean unbiased pass@k "
                 "over the bucket's programs with at least k generations (pass@k_rows).</p>")
    parts.append(_html_table(tables["property_accuracy"], table_id="property_accuracy"))
    parts.append("<h2>Spearman correlations with success</h2>")
    parts.append(_html_table(tables["correlations"], table_id="correlations"))
    parts.append("<h2>Robustness per transform and perturbation</h2>")
    parts.append("<p>Drops are in fraction points against the paired originals; intervals are bootstrap "
                 "95% intervals resampling original programs.</p>")
    parts.append(_html_table(tables["robustness"], table_id="robustness"))
    if tables["naturalness"]:
        parts.append("<h2>Naturalness per transform</h2>")
        parts.append("<p>Cross-entropy of each variant minus its original's under the 4-gram model of "
                     "<code>codemorph.naturalness</code>, in bits per token (positive: less natural).</p>")
        parts.append(_html_table(tables["naturalness"], table_id="naturalness"))
    parts.append("<h2>Accuracy per exception class</h2>")
    parts.append(_html_table(tables["exceptions"], table_id="exceptions"))
    parts.append("<h2>Programs</h2>")
    parts.append(_html_table(tables["programs"], table_id="programs", limit=200))
    parts.append("</body></html>\n")
    return "".join(parts)


def write_report(report: "Report", out_dir: str | os.PathLike[str], *, plots: bool = True) -> dict[str, Path]:
    """Write ``report`` into ``out_dir`` (created if missing, parent must exist).

    Files: ``<table>.csv`` and ``<table>.json`` for each of :data:`TABLES`,
    ``<plot>.png`` for each of :data:`PLOTS` (when ``plots``), and ``report.html``.

    Returns:
        name -> path of every file written (tables as ``<name>.csv``/``<name>.json``).

    Raises:
        InputError: the parent folder of ``out_dir`` does not exist.
        CodemorphError: plots requested and matplotlib is missing.
    """
    out = Path(out_dir)
    if not out.parent.exists():
        raise InputError(f"{out.parent}: folder does not exist")
    images = render_plots(report) if plots else {}
    out.mkdir(exist_ok=True)
    written: dict[str, Path] = {}
    for name, rows in report_tables(report).items():
        _write_csv(out / f"{name}.csv", rows)
        (out / f"{name}.json").write_text(json.dumps(rows, indent=1, default=str) + "\n", encoding="utf-8")
        written[f"{name}.csv"] = out / f"{name}.csv"
        written[f"{name}.json"] = out / f"{name}.json"
    for name, png in images.items():
        (out / f"{name}.png").write_bytes(png)
        written[f"{name}.png"] = out / f"{name}.png"
    (out / "report.html").write_text(render_html(report, images), encoding="utf-8")
    written["report.html"] = out / "report.html"
    return written
