"""Write a large CRUXEval-style row: one module of about 4,500 lines (about 76 KB) whose
entry point ``f`` calls many helper functions.

The helpers are CRUXEval's own programs (``def f`` of each row renamed ``f_<n>``); the
entry point ``f(x)`` returns a tuple of ``f_0(x)`` and of a few dozen other helpers called
on their rows' recorded inputs, so the row's recorded output is the tuple of their recorded
outputs.  Used to measure the time and memory ``codemorph generate`` takes on one large
program (README, "Sandbox and security": memory per row).

Usage::

    python benchmarks/make_large_program.py [--lines 4500] [--calls 40] -o large.jsonl
    codemorph generate large.jsonl -o out.jsonl -t rename-locals,dead-code --workers 1
"""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "cruxeval" / "cruxeval.jsonl"


class _Rename(ast.NodeTransformer):
    """``f`` -> ``f_<n>`` (the definition and recursive calls)."""

    def __init__(self, new: str) -> None:
        self.new = new

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        if node.name == "f":
            node.name = self.new
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == "f":
            node.id = self.new
        return node


def _renamed(code: str, new: str) -> str | None:
    """The row's code with ``f`` renamed ``new``; ``None`` for code that imports or
    defines more than functions at module level (kept out, so helpers cannot clash)."""
    tree = ast.parse(code)
    if not all(isinstance(s, ast.FunctionDef) for s in tree.body):
        return None
    names = [s.name for s in tree.body]
    if names != ["f"]:
        return None
    return ast.unparse(_Rename(new).visit(tree))


def build(rows: list[dict], lines: int, calls: int) -> dict:
    """The large row (a dict with ``id``, ``code``, ``input``, ``output``) from CRUXEval
    ``rows``: helpers are added until the module has at least ``lines`` lines."""
    helpers: list[tuple[str, dict]] = []
    total = 0
    for n, row in enumerate(rows):
        code = _renamed(row["code"], f"f_{n}")
        if code is None:
            continue
        helpers.append((code, row))
        total += code.count("\n") + 3
        if total >= lines:
            break
    first = helpers[0][1]
    called = helpers[1:1 + calls]
    body = [f"    return (", f"        {_name(helpers[0][0])}(*x),"]
    body += [f"        {_name(code)}({row['input']})," for code, row in called]
    body += ["    )"]
    code = "\n\n\n".join(code for code, _ in helpers) + "\n\n\ndef f(*x):\n" + "\n".join(body) + "\n"
    output = "(" + ", ".join([first["output"]] + [row["output"] for _, row in called]) + ",)"
    return {"id": "large_0", "code": code, "input": first["input"], "output": output}


def _name(code: str) -> str:
    return code.split("(", 1)[0].removeprefix("def ")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--lines", type=int, default=4500)
    ap.add_argument("--calls", type=int, default=40, help="helpers the entry point calls besides the first")
    ap.add_argument("-o", "--out", type=Path, required=True)
    args = ap.parse_args()
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    row = build(rows, args.lines, args.calls)
    args.out.write_text(json.dumps(row) + "\n", encoding="utf-8")
    print(f"{args.out}: {row['code'].count(chr(10))} lines, {len(row['code'].encode()):,} bytes")


if __name__ == "__main__":
    main()
