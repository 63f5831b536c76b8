"""Input perturbation search: inputs near a benchmark input that raise a chosen exception
class, raise anything, or change the output.

``search(program, seed_input, target, budget, seed) -> list[Perturbation]`` is the entry
point; :func:`search_many` serves several targets with one shared search; the job that runs it over
a data set is :mod:`codemorph.jobs.perturb`.  See :mod:`.search` for the
phases, :mod:`.guided` and :mod:`.symbolic` for the strategies,
:mod:`.shrink` for shrinking and :mod:`.distance` for the distance used to rank findings.
"""

from codemorph.perturb.distance import args_distance, value_distance
from codemorph.perturb.search import (ALL_STRATEGIES, ANY_EXCEPTION, DEFAULT_STRATEGIES, OUTPUT_CHANGE, Budget, Perturbation,
                     SearchReport, search, search_limits, search_many)



__all__ = ["search", "search_many", "Perturbation", "Budget", "SearchReport", "ANY_EXCEPTION", "OUTPUT_CHANGE",
           "DEFAULT_STRATEGIES", "ALL_STRATEGIES", "search_limits", "args_distance", "value_distance"]
