"""Recompute analyze's static properties independently (stdlib ast, tokenize, ast.literal_eval) and
print every disagreement with codemorph.scoring.analyze, then the counts per property.

Usage: .venv/bin/python benchmarks/check_analyze_properties.py DATASET [DATASET ...]
(a JSON Lines data set or a CodeMind layout bench folder)."""
import ast
import sys
import io
import tokenize
from collections import Counter

from codemorph.scoring.analyze import program_properties, output_type
from codemorph.scoring.predictions import load_rows

LOOPS = (ast.For, ast.AsyncFor, ast.While)
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ())


def nested_loops(tree):
    """loops executed repeatedly inside another loop of the same function."""
    count = 0

    def walk(node, depth):
        nonlocal count
        if isinstance(node, FUNCS + (ast.Lambda,)):
            for c in ast.iter_child_nodes(node):
                walk(c, 0)
            return
        if isinstance(node, (ast.For, ast.AsyncFor)):
            if depth:
                count += 1
            walk(node.target, depth)
            walk(node.iter, depth)  # evaluated once
            for s in node.body:
                walk(s, depth + 1)
            for s in node.orelse:
                walk(s, depth)
            return
        if isinstance(node, ast.While):
            if depth:
                count += 1
            walk(node.test, depth + 1)  # evaluated every iteration
            for s in node.body:
                walk(s, depth + 1)
            for s in node.orelse:
                walk(s, depth)
            return
        if isinstance(node, COMPS):
            gens = node.generators
            if depth or len(gens) >= 2:
                count += 1
            walk(gens[0].iter, depth)  # evaluated once, in the enclosing scope
            walk(gens[0].target, depth + 1)
            for i in gens[0].ifs:
                walk(i, depth + 1)
            for g in gens[1:]:
                walk(g.iter, depth + 1)
                walk(g.target, depth + 1)
                for i in g.ifs:
                    walk(i, depth + 1)
            if isinstance(node, ast.DictComp):
                walk(node.key, depth + 1)
                walk(node.value, depth + 1)
            else:
                walk(node.elt, depth + 1)
            return
        for c in ast.iter_child_nodes(node):
            walk(c, depth)

    walk(tree, 0)
    return count


def nested_if(tree):
    count = 0

    def walk(node, depth):
        nonlocal count
        if isinstance(node, FUNCS + (ast.Lambda,)):
            for c in ast.iter_child_nodes(node):
                walk(c, 0)
            return
        if isinstance(node, ast.If):
            if depth:
                count += 1
            walk(node.test, depth)
            for s in node.body:
                walk(s, depth + 1)
            # elif: same level as the chain
            if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and _is_elif(node.orelse[0]):
                walk_elif(node.orelse[0], depth)
            else:
                for s in node.orelse:
                    walk(s, depth + 1)
            return
        for c in ast.iter_child_nodes(node):
            walk(c, depth)

    def walk_elif(node, depth):
        walk(node.test, depth)
        for s in node.body:
            walk(s, depth + 1)
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and _is_elif(node.orelse[0]):
            walk_elif(node.orelse[0], depth)
        else:
            for s in node.orelse:
                walk(s, depth + 1)

    walk(tree, 0)
    return count


_SRC = None


def _is_elif(node):
    line = _SRC.splitlines()[node.lineno - 1]
    return line[node.col_offset:].startswith("elif")


def max_nesting(tree):
    def depth_of(stmts, d):
        best = d
        for s in stmts:
            if isinstance(s, FUNCS + (ast.ClassDef,)):
                best = max(best, depth_of(s.body, 0))
            elif isinstance(s, COMPOUND):
                best = max(best, compound(s, d + 1))
        return best

    def compound(s, d):
        best = d
        if isinstance(s, ast.If):
            best = max(best, depth_of(s.body, d))
            if len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If) and _is_elif(s.orelse[0]):
                best = max(best, compound(s.orelse[0], d))
            else:
                best = max(best, depth_of(s.orelse, d))
        elif isinstance(s, ast.Match):
            for c in s.cases:
                best = max(best, depth_of(c.body, d))
        else:
            for blk in ("body", "orelse", "finalbody"):
                best = max(best, depth_of(getattr(s, blk, []), d))
            for h in getattr(s, "handlers", []):
                best = max(best, depth_of(h.body, d))
        return best

    return depth_of(tree.body, 0)


def always_true(t):
    return isinstance(t, ast.Constant) and bool(t.value) and not isinstance(t.value, str) or (
        isinstance(t, ast.Constant) and t.value is True)


def decisions(stmts):
    n = 0
    for s in stmts:
        if isinstance(s, FUNCS + (ast.ClassDef,)):
            continue
        if isinstance(s, ast.If):
            n += 1
        elif isinstance(s, ast.While):
            n += 0 if (isinstance(s.test, ast.Constant) and s.test.value is True) or (
                isinstance(s.test, ast.Constant) and type(s.test.value) is int and s.test.value != 0) else 1
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            n += 1
        elif isinstance(s, (ast.Try,) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())):
            n += len(s.handlers)
        elif isinstance(s, ast.Match):
            exhaustive = any(isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None and c.guard is None
                             for c in s.cases)
            n += len(s.cases) - (1 if exhaustive else 0)
        for fld in ("body", "orelse", "finalbody"):
            v = getattr(s, fld, None)
            if isinstance(v, list) and s.__class__ not in FUNCS:
                n += decisions(v)
        for h in getattr(s, "handlers", []):
            n += decisions(h.body)
        if isinstance(s, ast.Match):
            for c in s.cases:
                n += decisions(c.body)
    return n


def _methods(stmts):
    """defs in a class body, also under its if/try statements, not inside functions or
    nested classes (those count for their own class)."""
    n = 0
    for st in stmts:
        if isinstance(st, FUNCS):
            n += 1
        elif not isinstance(st, ast.ClassDef):
            for fld in ("body", "orelse", "finalbody"):
                v = getattr(st, fld, None)
                if isinstance(v, list):
                    n += _methods(v)
            for h in getattr(st, "handlers", []):
                n += _methods(h.body)
    return n


def all_functions(tree):
    return [n for n in ast.walk(tree) if isinstance(n, FUNCS)]


def is_definition(s):
    if isinstance(s, FUNCS + (ast.ClassDef, ast.Import, ast.ImportFrom, ast.Pass)):
        return True
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
        return True
    return False


def complexity(tree):
    total = sum(1 + decisions(f.body) for f in all_functions(tree))
    if any(not is_definition(s) for s in tree.body):
        total += 1 + decisions(tree.body)
    return total if total else 1


def code_lines(src):
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                        tokenize.ENDMARKER):
            continue
        for ln in range(tok.start[0], tok.end[0] + 1):
            lines.add(ln)
    src_lines = src.splitlines()
    return sum(1 for ln in lines if ln <= len(src_lines) and src_lines[ln - 1].strip())


def recursion(tree):
    """cycles of the call graph: plain-name calls reach functions (not methods), self.<x>
    calls in a method (or a function nested in one) reach method x of that class."""
    import networkx as nx
    g = nx.DiGraph()
    defined = set()

    def visit(node, owner, self_cls, cls_path, in_class_body):
        if isinstance(node, ast.ClassDef):
            for c in node.body:
                visit(c, owner, self_cls, cls_path + [node.name], True)
            return
        if isinstance(node, FUNCS):
            if in_class_body:
                key, self_cls = ".".join(cls_path) + "." + node.name, ".".join(cls_path)
            else:
                key = node.name
            defined.add(key)
            g.add_node(key)
            for c in ast.iter_child_nodes(node):
                visit(c, key, self_cls, cls_path, False)
            return
        if isinstance(node, ast.Call) and owner:
            f = node.func
            if isinstance(f, ast.Name):
                g.add_edge(owner, f.id)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" and self_cls:
                g.add_edge(owner, self_cls + "." + f.attr)
        for c in ast.iter_child_nodes(node):
            visit(c, owner, self_cls, cls_path, in_class_body and isinstance(node, (ast.If, ast.Try)))

    visit(tree, None, None, [], False)
    sub = g.subgraph(defined)
    return sum(1 for comp in nx.strongly_connected_components(sub)
               if len(comp) > 1 or any(sub.has_edge(n, n) for n in comp))


def otype(output, exc, kind):
    if output is None:
        return "exception" if exc else "other"
    try:
        v = ast.literal_eval(output.strip())
    except Exception:
        try:
            node = ast.parse(output.strip(), mode="eval").body
        except Exception:
            return "str" if kind == "stdin" else "other"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "float"):
            return node.func.id
        return "str" if kind == "stdin" else "other"
    if v is None:
        return "str" if kind == "stdin" else "None"
    for t in (bool, int, float, str, list, tuple, dict, set):
        if type(v) is t:
            return t.__name__
    return "str" if kind == "stdin" else "other"


def independent(src):
    global _SRC
    _SRC = src
    tree = ast.parse(src)
    c = Counter()
    for n in ast.walk(tree):
        if isinstance(n, (ast.For, ast.AsyncFor)):
            c["for"] += 1
        elif isinstance(n, ast.While):
            c["while"] += 1
        elif isinstance(n, (ast.If, ast.IfExp)):
            c["if"] += 1
        elif isinstance(n, ast.comprehension):
            c["if"] += len(n.ifs)
        elif isinstance(n, (ast.Try,) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())):
            c["try"] += 1
        elif isinstance(n, (ast.With, ast.AsyncWith)):
            c["with"] += 1
        elif isinstance(n, ast.Match):
            c["match"] += 1
        elif isinstance(n, ast.Lambda):
            c["lambda"] += 1
        elif isinstance(n, ast.ClassDef):
            c["class"] += 1
            c["method"] += _methods(n.body)
        if isinstance(n, COMPS):
            c["comprehension"] += 1
    c["nested_loops"] = nested_loops(tree)
    c["nested_if"] = nested_if(tree)
    c["recursion"] = recursion(tree)
    return {
        "constructs": dict(c),
        "max_nesting": max_nesting(tree),
        "complexity": complexity(tree),
        "lines": code_lines(src),
        "calls": sum(isinstance(n, ast.Call) for n in ast.walk(tree)),
        "functions": len(all_functions(tree)),
    }


def main(paths):
    diffs = Counter()
    for p in paths:
        for r in load_rows(p):
            sp = program_properties(r.code)
            ind = independent(r.code)
            mine = {"max_nesting": sp.max_nesting, "complexity": sp.complexity, "lines": sp.lines,
                    "calls": sp.calls, "functions": sp.functions}
            for k, v in mine.items():
                if v != ind[k]:
                    diffs[k] += 1
                    print(f"{r.id}: {k} analyze={v} independent={ind[k]}")
            for k in set(sp.constructs) | set(ind["constructs"]):
                a, b = sp.constructs.get(k, 0), ind["constructs"].get(k, 0)
                if a != b:
                    diffs[k] += 1
                    print(f"{r.id}: {k} analyze={a} independent={b}")
            ot = output_type(r.output, r.exception_type, r.input_kind)
            oi = otype(r.output, r.exception_type, r.input_kind)
            if ot != oi:
                diffs["output_type"] += 1
                print(f"{r.id}: output_type analyze={ot} independent={oi} ({r.output!r:.60})")
    print("DIFFS", dict(diffs))


if __name__ == "__main__":
    main(sys.argv[1:])
