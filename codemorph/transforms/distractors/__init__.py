"""The ``distractors`` family: text that misleads a reader but not the interpreter.

* ``misleading-comment`` (:class:`MisleadingComment`): end-of-line comments stating
  plausible but wrong facts (a wrong starting value, a loop described as running backwards,
  a condition described by its negation, ``append`` described as inserting at the front);
* ``misleading-docstring`` (:class:`MisleadingDocstring`): a wrong docstring for the entry
  function;
* ``misleading-io-comment`` (:class:`MisleadingIOComment`): a wrong output for an input
  near the row's (never the row's own), in a comment on the ``def`` line;
* ``misleading-value-comment`` (:class:`MisleadingValueComment`): a wrong value of a local
  in an end-of-line comment;
* ``misleading-print`` (:class:`MisleadingPrint`): ``print`` statements stating a wrong value.

Every claim is declared as a :class:`~codemorph.engine.transform.Claim` and must be shown
false by execution on the row's input in the sandbox before the variant is written
(:mod:`codemorph.verification.claims`); ``misleading-print`` also declares the lines it
prints, the only difference its stdout may show.  The claims of ``misleading-comment`` and
``misleading-docstring`` come from the syntax (``range(n)`` never starts at 1,
``xs.append(v)`` never inserts at the front), but some are true of particular data (an
empty list, a palindrome, a line never run): each comes with a
:class:`~codemorph.transforms.distractors.claims.Check` that execution must satisfy at least
once (:func:`~codemorph.transforms.distractors.misleading_comment.claim_check`), and a
claim no execution can show false is not made.  The value claims of the last three are shown
false by the same kind of probe, on a line the row's input reaches.  No claim states the
value of a literal on its own line (``count = 0``, ``return True``) or restates the line
with its operator changed (``count += 1  # count goes down by 1``): the line would give the
lie away.  These transforms measure whether a model reads the code or trusts the prose
around it.

Soundness is checked, not assumed: after rewriting, ``misleading-comment`` requires
``ast.dump(..., include_attributes=True)`` of the new module to equal the original's
(same tree *and* same line/column of every node: comments are added at line ends, so no
line moves), and ``misleading-docstring`` requires the two trees to be equal once the entry
function's docstring is removed from both.

One transform per module: :mod:`.misleading_comment`, :mod:`.misleading_docstring`,
:mod:`.io_comment`, :mod:`.value_comment`, :mod:`.misleading_print`; shared parts in
:mod:`.claims` and :mod:`.values`.
"""

from codemorph.transforms.distractors.claims import SOURCE_HAZARDS, DOC_HAZARDS, CLAIM_BUILTINS
from codemorph.transforms.distractors.misleading_comment import MisleadingComment
from codemorph.transforms.distractors.misleading_docstring import MisleadingDocstring
from codemorph.transforms.distractors.io_comment import MisleadingIOComment
from codemorph.transforms.distractors.value_comment import MisleadingValueComment
from codemorph.transforms.distractors.misleading_print import STDOUT_HAZARDS, MisleadingPrint

__all__ = ["MisleadingComment", "MisleadingDocstring", "MisleadingIOComment", "MisleadingValueComment",
           "MisleadingPrint", "SOURCE_HAZARDS", "DOC_HAZARDS", "CLAIM_BUILTINS", "STDOUT_HAZARDS"]
