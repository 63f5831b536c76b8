"""Input perturbation search: inputs near a benchmark input that raise a chosen exception
class, raise anything, or change the output.

``search(program, seed_input, target, budget, seed) -> list[Perturbation]`` is the entry
point; :func:`search_many` serves several targets with one shared search,
:func:`perturb_dataset` runs it over a JSON Lines data set and :func:`perturb_row` over one
source row (for jobs that go row by row, such as ``generate --perturb-inputs``).  See :mod:`.search` for the
phases, :mod:`.mutation`, :mod:`.guided` and :mod:`.symbolic` for the strategies,
:mod:`.shrink` for shrinking and :mod:`.distance` for the distance used to rank findings.
"""

from .distance import args_distance, value_distance
from .search import (ALL_STRATEGIES, ANY_EXCEPTION, DEFAULT_STRATEGIES, OUTPUT_CHANGE, Budget, Perturbation,
                     SearchReport, search, search_limits, search_many)


def __getattr__(name):  # the dataset job pulls in multiprocessing and the dataset module
    if name in ("perturb_dataset", "perturb_row", "search_row", "RowResult", "PerturbConfig", "PerturbSummary",
                "DEFAULT_EXCEPTIONS"):
        from . import job
        return getattr(job, name)
    raise AttributeError(f"module 'codemorph.perturb' has no attribute {name!r}")


__all__ = ["search", "search_many", "Perturbation", "Budget", "SearchReport", "ANY_EXCEPTION", "OUTPUT_CHANGE",
           "DEFAULT_STRATEGIES", "ALL_STRATEGIES", "search_limits", "args_distance", "value_distance",
           "perturb_dataset", "perturb_row", "search_row", "RowResult", "PerturbConfig", "PerturbSummary",
           "DEFAULT_EXCEPTIONS"]
