"""Jobs over whole data sets: executors (local processes or Dask), ``generate`` and
``perturb``.  Each job reads rows, processes each row in a worker and writes rows and
rejects; a row's failure is that row's reject, never the run's.

The job functions live in their modules (``codemorph.jobs.generate.generate``); the package
does not re-export a name equal to a submodule's, which would shadow the module.
"""

from codemorph.jobs.generate import GenerateConfig, GenerateSummary
from codemorph.jobs.perturb import (DEFAULT_EXCEPTIONS, PerturbConfig, PerturbSummary, RowResult, perturb_dataset,
                                    perturb_row, search_row)

__all__ = ["GenerateConfig", "GenerateSummary", "DEFAULT_EXCEPTIONS", "PerturbConfig", "PerturbSummary",
           "RowResult", "perturb_dataset", "perturb_row", "search_row"]
