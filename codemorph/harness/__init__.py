"""Harness integrations: codemorph data sets as Inspect AI tasks and lm-evaluation-harness
task folders, with CRUXEval's prompts and codemorph's sandboxed scorer.

* :mod:`codemorph.harness.prompts` -- CRUXEval's prompt templates, the prompts of ``call`` and
  ``stdin`` rows, and the exception-answer protocol.
* :mod:`codemorph.harness.inspect_task` -- the Inspect AI task ``codemorph/execution_prediction``
  (needs ``codemorph[inspect]``).
* :mod:`codemorph.harness.lm_eval_tasks` -- ``codemorph harness lm-eval``: task folders for
  lm-evaluation-harness (needs ``codemorph[lm-eval]`` to run them).
"""
