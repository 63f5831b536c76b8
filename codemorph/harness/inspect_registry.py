"""Inspect AI's entry point for codemorph (``[project.entry-points.inspect_ai]``): importing
it registers the task ``codemorph/execution_prediction``."""

from codemorph.harness.inspect_task import execution_prediction  # noqa: F401

__all__ = ["execution_prediction"]
