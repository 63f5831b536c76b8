"""Count the unnatural forms of the dead-code family in a ``codemorph generate`` output.

Usage::

    codemorph generate IN.jsonl -o OUT.jsonl -t dead-code -t dead-loop -t dead-store
    python benchmarks/dead_code_patterns.py OUT.jsonl

For each of ``dead-code``, ``dead-loop`` and ``dead-store``: the variants written and how
many show each form no person writes, found from the inserted lines (a line diff against
the original row):

* ``fresh literal``: a local assigned an invented literal just for the check or loop
  (``limit = 6`` / ``if limit < 0:``, ``rest = []`` / ``for elem in rest:``);
* ``after literal``: a check or loop over a variable whose previous line assigns it a
  literal (``output = []`` / ``if output is None:``);
* ``loop counter``: a check or loop over the target of the ``for`` on the previous line
  (``for i in range(n):`` / ``if i < 0:``);
* ``opaque``: an opaque predicate (``(k * k + k) % 2 == 1``, ``type(x) is int and ...``);
* ``unreachable``: the variant has a statement after one that always exits (``return``,
  ``raise``, ``break``, ``continue``, an ``if``/``else`` whose branches all exit) where the
  original has none (found with :mod:`ast`, independently of the transforms' own analysis);
* ``unrelated return``: a dead block returns a name its function never returns
  (``if length < 0: return part`` in a function returning a count);
* ``display check``: a check of a value the line above builds as a display
  (``items = a, b, c`` / ``if not isinstance(items, tuple):``);
* ``arithmetic store`` (``dead-store``): an arithmetic value other than ``next_i = i + 1``
  after a loop counter or ``last_index = n - 1`` (``size = index + index``, ``bound = -n``,
  ``offset = n + 1``); ``reads _``: a store reading ``_``; ``empty tuple``: ``state = ()``.
"""

from __future__ import annotations

import ast
import collections
import difflib
import json
import re
import sys

LITERAL = r"(\[\]|\{\}|\(\)|''|\"\"|-?\d+|set\(\)|dict\(\)|list\(\)|'[^']*'|\"[^\"]*\")"


def _exits(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        return True
    if isinstance(stmt, ast.If):
        return bool(stmt.orelse) and _block_exits(stmt.body) and _block_exits(stmt.orelse)
    return False


def _block_exits(body: list[ast.stmt]) -> bool:
    return any(_exits(s) for s in body)


def unreachable_statements(code: str) -> int:
    """Statements that follow, in their block, a statement that always exits."""
    count = 0
    for node in ast.walk(ast.parse(code)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                for i, stmt in enumerate(block[:-1]):
                    if _exits(stmt):
                        count += len(block) - i - 1
                        break
    return count


def classify(original: str, variant: str) -> set[str]:
    """The unnatural forms of one variant (see the module docstring)."""
    found: set[str] = set()
    if unreachable_statements(variant) > unreachable_statements(original):
        found.add("unreachable")
    ol, vl = original.splitlines(), variant.splitlines()
    ops = [op for op in difflib.SequenceMatcher(a=ol, b=vl, autojunk=False).get_opcodes()
           if op[0] in ("insert", "replace")]
    if not ops:
        return found
    _tag, _i1, _i2, j1, j2 = ops[0]
    added = [line.strip() for line in vl[j1:j2]]
    prev = vl[j1 - 1].strip() if j1 > 0 else ""
    first = added[0]
    if re.match(r"\w+ = " + LITERAL + "$", first) and len(added) > 1 and re.match(r"(if|while|for) ", added[1]):
        found.add("fresh literal")
    if "% 2 ==" in variant and "% 2 ==" not in original or re.search(r"type\(\w+\) is \w+ and", first) \
            or re.search(r"\w+ \* \w+ < 0", first) or first.startswith("for ") and first.endswith(" in ():"):
        found.add("opaque")
    m = re.match(r"(?:if|while) (?:not isinstance\()?(\w+)", first) or re.match(r"for \w+ in (\w+):", first)
    if m:
        var = m.group(1)
        if re.match(re.escape(var) + r" = " + LITERAL + "$", prev):
            found.add("after literal")
        if re.match(r"for (.*\b)?" + re.escape(var) + r"\b.* in ", prev):
            found.add("loop counter")
    return found


def _function_returns(code: str) -> set[str]:
    """Names some ``return NAME`` of the code returns (any function)."""
    return {n.value.id for n in ast.walk(ast.parse(code))
            if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}


_DISPLAY = r"\w+ = (\[.*\]|\{.*\}|\(.*\)|[\w.]+(, [\w.]+)+,?)$"


def classify_more(original: str, variant: str) -> set[str]:
    """The forms of the module docstring's second list, from the inserted lines."""
    found: set[str] = set()
    ol, vl = original.splitlines(), variant.splitlines()
    returned = _function_returns(original)
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(a=ol, b=vl, autojunk=False).get_opcodes():
        if tag not in ("insert", "replace"):
            continue
        prev = vl[j1 - 1].strip() if j1 > 0 else ""
        for k in range(j1, j2):
            line = vl[k].strip()
            m = re.fullmatch(r"return (\w+)", line)
            if m and m.group(1) not in returned and m.group(1) not in ("None", "True", "False"):
                found.add("unrelated return")
            if k == j1 and re.match(r"if (not isinstance\(|)\w+", line) and re.match(_DISPLAY, prev) \
                    and not re.search(r"\bfor\b", prev):
                var = re.match(r"if (?:not isinstance\()?(\w+)", line).group(1)
                if prev.startswith(var + " = "):
                    found.add("display check")
            m = re.fullmatch(r"(\w+) = (.+)", line)
            if m and j2 - j1 == 1:
                target, value = m.groups()
                if value == "()":
                    found.add("empty tuple")
                if re.search(r"\b_\b", value):
                    found.add("reads _")
                natural = re.fullmatch(r"next_\w+ = (\w+) \+ 1|last_index(_\d+)? = (\w+) - 1", line)
                if re.search(r"[-+*]", value) and not re.fullmatch(r"-1|'[^']*'", value) and not natural:
                    found.add("arithmetic store")
    return found


def main(path: str) -> None:
    rows = [json.loads(line) for line in open(path)]
    originals = {r["id"]: r for r in rows if r.get("kind") == "original"}
    for name in ("dead-code", "dead-loop", "dead-store"):
        counts: collections.Counter[str] = collections.Counter()
        examples: dict[str, str] = {}
        total = 0
        for r in rows:
            if r.get("transforms") != [name]:
                continue
            total += 1
            orig = originals[r["original_id"]]["code"]
            for form in classify(orig, r["code"]) | classify_more(orig, r["code"]):
                counts[form] += 1
                examples.setdefault(form, r["id"])
        bad = sum(1 for r in rows if r.get("transforms") == [name]
                  and (classify(originals[r["original_id"]]["code"], r["code"])
                       | classify_more(originals[r["original_id"]]["code"], r["code"])))
        print(f"{name}: {total} variants, {bad} with an unnatural form")
        for form in ("fresh literal", "after literal", "loop counter", "opaque", "unreachable", "unrelated return",
                     "display check", "arithmetic store", "reads _", "empty tuple"):
            print(f"  {form:14s} {counts[form]:4d}  {examples.get(form, '')}")


if __name__ == "__main__":
    main(sys.argv[1])
