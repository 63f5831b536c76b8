"""Verification: differential testing of a rewrite against its original in the sandbox,
with coverage of the changed region, hash-seed re-runs, Z3 proofs and CrossHair.

``verify(original, rewritten, entry, inputs) -> Verdict`` is the facade.
"""

from codemorph.verification.differential import *  # noqa: F401,F403
from codemorph.verification.differential import HASH_SEEDS, hash_stable, may_depend_on_hash
from codemorph.verification.differential import __all__ as _differential_all

__all__ = list(_differential_all) + ["HASH_SEEDS", "hash_stable", "may_depend_on_hash"]
