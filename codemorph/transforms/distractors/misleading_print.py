"""``misleading-print``: ``print`` statements that state a wrong intermediate value.
"""

from __future__ import annotations

import libcst as cst

from codemorph.engine import NotApplicable, RewriteContext, Transform
from codemorph.authoring.hazards import STRICT_LINE_HAZARDS
from codemorph.transforms.distractors.claims import check_hazards
from codemorph.transforms.distractors.values import insert_after, site_claim, value_sites

__all__ = ["MisleadingPrint", "STDOUT_HAZARDS"]

#: identifiers of code that could see or redirect what ``print`` writes
STDOUT_HAZARDS: frozenset[str] = frozenset({
    "sys", "stdout", "__stdout__", "redirect_stdout", "contextlib", "builtins", "__builtins__",
})


class MisleadingPrint(Transform):
    """Insert ``print`` statements that state a wrong value of a local right after it is
    assigned: ``n = len(nums)`` followed by ``print('n = 4')``, ``words = text.split()`` by
    ``print('len(words) = 3')``.

    The misleading print statements of CodeCrash (Lam et al., "CodeCrash: Stress Testing LLM
    Reasoning under Structural and Semantic Perturbations", 2025), which cut models'
    output-prediction accuracy more than most perturbations.  The printed text is a literal
    string: the statement calls nothing of the program and takes no repr of its objects.

    Verification rule (its own, declared on the result): the variant's stdout may gain
    exactly the inserted lines (:attr:`~codemorph.engine.transform.TransformResult.stdout_lines`)
    and differ in nothing else; return value, exception and the arguments' final state are
    compared as for every rewrite.  Each printed value is a
    :class:`~codemorph.engine.transform.Claim` checked false by execution on the row's input
    (the probe program; see :mod:`codemorph.transforms.distractors.values`): a value that
    turns out right is not written.  Rows of this transform change stdout on purpose; a
    harness that compares return values (CRUXEval's) is unaffected.

    Sites: assignments in the entry function outside loops (a print in a loop repeats), to
    a local observed as one ``int`` (its value) or ``str``/``list``/``tuple``/``dict`` (its
    length), of a value computed from the program's variables
    (:func:`~codemorph.transforms.distractors.values.computed_value`): never ``count = 0``
    followed by ``print('count = 2')`` nor ``out = []`` by ``print('len(out) = 1')``.  Refused when the program may see or redirect stdout (:data:`STDOUT_HAZARDS`,
    ``print`` rebound) or observe line numbers (lines move), and wherever
    :func:`~codemorph.transforms.distractors.values.value_sites` refuses.

    Options:
        count: at most this many print statements (int >= 1, default 1).
    """

    needs_runtime_types = True
    name = "misleading-print"
    family = "distractors"
    description = "Insert print statements stating a wrong intermediate value (stdout gains only those lines)."
    preconditions = ("the program never sees or redirects stdout", "observed types of the locals",
                     "each printed value shown wrong by execution")

    def __init__(self, count: int = 1) -> None:
        super().__init__()
        if not isinstance(count, int) or count < 1:
            raise ValueError(f"count must be an int >= 1, got {count!r}")
        self.count = count

    def rewrite(self, module: cst.Module, ctx: RewriteContext) -> cst.Module:
        check_hazards(module, STDOUT_HAZARDS, "see or redirect what print writes")
        check_hazards(module, STRICT_LINE_HAZARDS, "observe line numbers")
        if ctx.shadowed("print"):
            raise NotApplicable("the program may rebind print")
        sites = value_sites(module, ctx, loops=False)
        sites = [s for s in sites if not s.in_loop]
        if not sites:
            raise NotApplicable("no assignment outside loops of a value computed from the program's variables to a "
                                "local observed as one int, str, list, tuple or dict")
        if len(sites) > self.count:
            sites = [sites[i] for i in sorted(ctx.rng.sample(range(len(sites)), self.count))]
        extra = {}
        for site in sites:
            text = f"{site.name} = {site.wrong}" if site.kind == "value" else f"len({site.name}) = {site.wrong}"
            extra[id(site.node)] = [cst.parse_statement(f"print({text!r})\n")]
            ctx.allow_stdout(text)
            ctx.claim(site_claim(module, ctx, site, text))
            ctx.record(site.node, f"print: {text}")
        return insert_after(module, extra)
