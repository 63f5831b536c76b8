"""The ``distractors`` family: text that misleads a reader but not the interpreter.

* ``misleading-comment`` (:class:`MisleadingComment`): end-of-line comments stating
  plausible but wrong facts (a wrong starting value, a loop described as running backwards,
  a condition described by its negation, ``append`` described as inserting at the front);
* ``misleading-docstring`` (:class:`MisleadingDocstring`): a wrong docstring for the entry
  function.

Every claim is *certainly* wrong as a description of the code it is attached to: it is
derived from the syntax (``range(n)`` never starts at 1, ``xs.append(v)`` never inserts at
the front, ``n = 3`` never starts ``n`` at 4), not guessed from values.  These transforms
measure whether a model reads the code or trusts the prose around it.

Soundness is checked, not assumed: after rewriting, ``misleading-comment`` requires
``ast.dump(..., include_attributes=True)`` of the new module to equal the original's
(same tree *and* same line/column of every node: comments are added at line ends, so no
line moves), and ``misleading-docstring`` requires the two trees to be equal once the entry
function's docstring is removed from both.

One transform per module: :mod:`.misleading_comment`, :mod:`.misleading_docstring`;
shared parts in :mod:`.claims`.
"""

from codemorph.transforms.distractors.claims import SOURCE_HAZARDS, DOC_HAZARDS, CLAIM_BUILTINS
from codemorph.transforms.distractors.misleading_comment import MisleadingComment
from codemorph.transforms.distractors.misleading_docstring import MisleadingDocstring

__all__ = ["MisleadingComment", "MisleadingDocstring", "SOURCE_HAZARDS", "DOC_HAZARDS", "CLAIM_BUILTINS"]
