"""The analysis report's model: what :func:`codemorph.scoring.analyze.analyze` computes
(:class:`Report`), the categories and bins it uses, and the tables made of it
(:func:`report_tables`).  :mod:`codemorph.scoring.report` renders it (CSV, JSON, plots,
HTML); :mod:`codemorph.scoring.analyze` fills it.  Neither of them is imported here."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from codemorph.scoring.evaluate import Robustness

__all__ = ["CONSTRUCTS", "OUTPUT_TYPES", "BINS", "CORRELATED", "TABLES", "Report", "robustness_rows", "report_tables"]

#: construct flags reported per program, in display order
CONSTRUCTS = ("for", "while", "nested_loops", "if", "nested_if", "try", "comprehension", "lambda",
              "recursion", "with", "match", "class", "method")
#: output type categories, in display order
OUTPUT_TYPES = ("bool", "int", "float", "str", "list", "tuple", "dict", "set", "None", "exception", "other")
#: table file names (without extension)
TABLES = ("programs", "model_summary", "model_comparison", "property_accuracy", "correlations", "robustness",
          "exceptions", "naturalness")


@dataclass
class Report:
    """Everything :func:`codemorph.scoring.report.write_report` writes (the report model).

    Attributes:
        programs: one dict per analysed row: ``id``, ``original_id``, ``kind``, ``group``,
            ``output_type``, the construct flags, ``max_nesting``, ``lines``, ``calls``,
            ``complexity``, ``builtin_functions``, ``builtin_methods`` (space-separated),
            and the dynamic properties (``None`` when not measured).
        scores: model -> row id -> row score (fraction of correct generations).
        models: model names, in input order.
        model_summary: per model: rows, accuracy, Wilson 95% interval.
        property_accuracy: rows ``{model, property, value, rows, accuracy, ci_low, ci_high}``
            for construct flags, output types and binned numeric properties.  ``accuracy`` is
            the mean over the bucket's rows of each row's fraction of correct generations
            (the row's pass@1); ``ci_low``/``ci_high`` the Wilson 95% interval of it with the
            rows as trials (for rows of several generations, whose scores vary less than
            0/1 ones, a conservative interval).  When the model has rows of ``k`` or more
            generations (``k`` in 5, 10), ``pass@k`` is the mean unbiased pass@k (Chen et al.
            2021) over the bucket's rows with ``n >= k``, and ``pass@k_rows`` their number.
        correlations: rows ``{model, property, rho, p_value, n}`` (Spearman of the property
            with the row score).
        robustness: model -> :class:`~codemorph.evaluate.Robustness` (``None`` when the
            results hold originals only).
        model_comparison: one row per pair of models on the rows both scored:
            ``{model_a, model_b, rows, accuracy_a, accuracy_b, difference, only_a, only_b,
            mcnemar_p}``; ``only_a``/``only_b`` count rows one model got right and the other
            wrong (expected counts when rows have several generations), ``mcnemar_p`` is the
            exact McNemar p-value (``None`` unless every score is 0 or 1).
        naturalness: per transform (the robustness group of code-transform rows): ``{group,
            variants, mean, median, min, max}`` of the variants' ``naturalness_delta`` (bits
            per token over the original; the row's field, or computed with
            :func:`codemorph.naturalness.naturalness_delta` when a row lacks it and its
            original is in the data set); empty when the data set has no variants.
        notes: warnings (rows that could not be parsed or traced, unknown ids).
        dataset: where the rows came from.
    """

    programs: list[dict[str, Any]]
    scores: dict[str, dict[str, float]]
    models: list[str]
    model_summary: list[dict[str, Any]]
    property_accuracy: list[dict[str, Any]]
    correlations: list[dict[str, Any]]
    robustness: dict[str, Robustness | None]
    notes: list[str] = field(default_factory=list)
    dataset: str = ""
    model_comparison: list[dict[str, Any]] = field(default_factory=list)
    naturalness: list[dict[str, Any]] = field(default_factory=list)


#: numeric properties binned for the accuracy tables: name -> (bin upper bounds, labels)
BINS: dict[str, tuple[tuple[float, ...], tuple[str, ...]]] = {
    "complexity": ((1, 2, 3, 4, 5, math.inf), ("1", "2", "3", "4", "5", "6+")),
    "loop_length": ((1, 2, 5, 20, 100, math.inf), ("1", "2", "3-5", "6-20", "21-100", "101+")),
    "max_nesting": ((0, 1, 2, 3, math.inf), ("0", "1", "2", "3", "4+")),
    "lines": ((5, 8, 12, 20, math.inf), ("1-5", "6-8", "9-12", "13-20", "21+")),
    "max_call_depth": ((1, 2, 5, math.inf), ("1", "2", "3-5", "6+")),
}
#: numeric properties correlated with success
CORRELATED = ("complexity", "loop_length", "max_nesting", "lines", "calls", "distinct_lines",
              "line_executions", "max_call_depth", "max_loop_iterations")


def robustness_rows(report: Report) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The robustness table rows of ``report``: ``(per model and group rows, per model and
    exception class rows)``, as written to ``robustness`` and ``exceptions``."""
    groups, excs = [], []
    for m, rob in report.robustness.items():
        if rob is None:
            continue
        if rob.original_accuracy is not None:
            groups.append({"model": m, "group": "original", "rows": rob.original_rows, "originals": rob.original_rows,
                           "accuracy": rob.original_accuracy, "original_accuracy": rob.original_accuracy,
                           "abs_drop": 0.0, "rel_drop": 0.0, "robust_accuracy": None, "flip_rate": None,
                           "accuracy_ci": rob.original_ci, "abs_drop_ci": None, "robust_ci": None, "flip_ci": None})
        for g in rob.groups:
            groups.append({"model": m, **g.to_json()})
        if rob.robust_accuracy is not None:
            groups.append({"model": m, "group": "all variants", "rows": None, "originals": rob.robust_originals,
                           "accuracy": None, "original_accuracy": None, "abs_drop": None, "rel_drop": None,
                           "robust_accuracy": rob.robust_accuracy, "flip_rate": None, "accuracy_ci": None,
                           "abs_drop_ci": None, "robust_ci": rob.robust_ci, "flip_ci": None})
        for e in rob.exceptions:
            excs.append({"model": m, **e.to_json()})
    return groups, excs


def report_tables(report: Report) -> dict[str, list[dict[str, Any]]]:
    """Every table of ``report`` by name (:data:`TABLES`): lists of row dicts, with the
    programs table holding one ``score:<model>`` column per model."""
    groups, excs = robustness_rows(report)
    programs = []
    for p in report.programs:
        row = dict(p)
        for m in report.models:
            row[f"score:{m}"] = report.scores[m].get(p["id"])
        programs.append(row)
    return {"programs": programs, "model_summary": report.model_summary,
            "model_comparison": report.model_comparison, "property_accuracy": report.property_accuracy,
            "correlations": report.correlations, "robustness": groups, "exceptions": excs,
            "naturalness": report.naturalness}
