"""Rows and literals: the one row schema (:mod:`codemorph.rows.schema`), and the readers
and writers of data sets (:mod:`codemorph.rows.dataset`), and the lock a run holds on its
output (:mod:`codemorph.rows.lock`).

The lowest layer: it imports nothing of codemorph but :mod:`codemorph.errors`.
"""

from codemorph.rows.dataset import *  # noqa: F401,F403
from codemorph.rows.dataset import __all__ as _dataset_all
from codemorph.rows.lock import OutputBusyError, lock_path, output_lock  # noqa: F401
from codemorph.rows.schema import (OriginalRow, PerturbationRow, TransformReject, VariantReject, VariantRow,  # noqa: F401
                                   internal_reject, row_reject)

__all__ = [*_dataset_all, "OriginalRow", "VariantRow", "PerturbationRow", "VariantReject", "TransformReject",
           "row_reject", "internal_reject", "OutputBusyError", "lock_path", "output_lock"]
