"""The branches transforms on the CRUXEval programs: every rewrite compiles, and behaves
as the original on the row's input in the sandbox (the ``generate`` job checks 49 more
inputs per row; this is the fast check).  Transforms that use runtime types get them
observed over the row's input.  Default: every 8th row from row 7; all 800 rows with
CODEMORPH_FULL=1."""

from __future__ import annotations

import ast

import pytest
from conftest import cruxeval_sample, run_pairs

from codemorph import Program, get_transform



def _self_branch(code: str) -> bool:
    """Whether ``code`` has ``x = a if c else x`` (a last branch giving the target itself)."""
    return any(isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
               and isinstance(n.value, ast.IfExp) and isinstance(n.value.orelse, ast.Name)
               and n.value.orelse.id == n.targets[0].id for n in ast.walk(ast.parse(code)))


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return cruxeval_sample(7)


def test_statement_transforms_on_cruxeval(rows, sandbox) -> None:
    """Applied on every row, executed on the row's input; and the round trips:
    nested-to-elif undoes elif-to-nested exactly (comments and blank lines included),
    if-to-ternary after ternary-to-if gives back the same AST."""
    pairs, applied = [], {}
    # every site needs an `else` or `elif`: rows without one are refused (checked on 40 of them)
    def candidate(code: str) -> bool:
        return "else" in code or "elif" in code

    with_else = [(row, Program(row["code"])) for row in rows if candidate(row["code"])]
    without = [(row, Program(row["code"])) for row in [r for r in rows if not candidate(r["code"])][:40]]
    for name in ("if-to-ternary", "ternary-to-if", "elif-to-nested", "nested-to-elif"):
        t = get_transform(name)
        assert not any(t.apply(program, 0).applied for _, program in without)
        n = 0
        for row, program in with_else:
            result = t.apply(program, 0, inputs=[row["input"]])
            if not result.applied:
                continue
            n += 1
            pairs.append((name, row, result.source))
            if name == "elif-to-nested":
                back = get_transform("nested-to-elif").apply(result.program, 0)
                assert back.applied and back.source == row["code"], row["id"]
            if name == "ternary-to-if" and _self_branch(row["code"]):
                # `x = -x if x < 0 else x` gives `if x < 0: x = -x` (no `else: x = x`), which
                # if-to-ternary does not take back; no statement stores a name into itself
                assert not any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Name)
                               and [ast.dump(t) for t in n.targets] == [ast.dump(ast.Name(n.value.id, ast.Store()))]
                               for n in ast.walk(ast.parse(result.source))), row["id"]
            elif name == "ternary-to-if":
                program = result.program
                if "elif" in result.source and "elif" not in row["code"]:
                    # a ternary that was a whole `else:` block became an `elif` (sample_151): nest it
                    # back first, then the ternary comes back
                    program = get_transform("elif-to-nested").apply(program, 0).program
                back = get_transform("if-to-ternary").apply(program, 0)
                if not back.applied and "bool literal" in back.reason:
                    continue  # `return True if c else False` (sample_641): if-to-ternary leaves it alone
                assert back.applied, row["id"]
                assert ast.dump(ast.parse(back.source)) == ast.dump(ast.parse(row["code"])), row["id"]
        applied[name] = n
    # each transform finds sites in the sample (the round trips above ran), except
    # nested-to-elif: CRUXEval has no `else:` block holding only an `if`, and elif-to-nested's
    # rewrites are exactly such blocks, which nested-to-elif takes back (checked above)
    assert all(applied[name] > 0 for name in ("if-to-ternary", "ternary-to-if", "elif-to-nested")), applied
    assert applied["nested-to-elif"] == 0
    run_pairs(sandbox, pairs)


def test_typed_transforms_on_a_sample(rows, sandbox) -> None:
    from codemorph.testing import observe_types
    pairs, simplified = [], 0
    for row in rows:
        program = Program(row["code"])
        obs = observe_types(program, [row["input"]], sandbox=sandbox)
        for name in ("mirror-comparison", "invert-if"):
            result = get_transform(name).apply(program, 0, inputs=[row["input"]], observations=obs)
            if result.applied:
                pairs.append((name, row, result.source))
                if name == "invert-if":
                    simplified += any(s.description.endswith(("(int))", "(str))", "(De Morgan)"))
                                      for s in result.sites)
    # 3 of the sampled rows (5 before comparisons with a literal on the right were left alone:
    # mirroring them wrote `0 == x`)
    assert sum(1 for p in pairs if p[0] == "mirror-comparison") >= 3
    assert simplified >= 5
    run_pairs(sandbox, pairs)
