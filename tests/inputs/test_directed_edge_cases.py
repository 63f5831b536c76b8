"""Program-directed and related edge cases of codemorph.inputs: characters of the classes a
program's calls test (``directed``), arguments one step from another argument
(``relate``), boundary indices (``index``), and edge cases of edge cases for short seeds
(``second``).  Each operator: its exact values for a seed, and a wrong rewrite that the
default verifier rejects with it and accepts without it (programs run only in the sandbox)."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

import codemorph.inputs.edges as inputs_module
from codemorph.inputs import EDGE_FILL, edge_cases, mutate_args
from codemorph.engine.program import Program
from codemorph.sandbox.pool import Limits, Sandbox
from codemorph.verification.differential import program_calls, verify

LIM = Limits(timeout=5.0, grace=0.3, memory=512 * 1024**2)


# ------------------------------------------------------------------------- generation
def test_program_calls_names_functions_and_methods():
    prog = Program("def f(text, n):\n    x = text.strip().isdecimal()\n    return len(text) + int(n)\n", "f")
    assert program_calls(prog) == frozenset({"strip", "isdecimal", "len", "int"})


def test_directed_characters_for_each_class():
    # a digit where the program tests isdecimal and the seed has none; nothing without hints
    assert edge_cases("'ab'", (), ["isdecimal"])["directed"] == ["'5ab'", "'a5b'", "'ab5'"]
    assert "directed" not in edge_cases("'ab'") and "directed" not in edge_cases("'a1'", (), ["isdigit"])
    # a letter of the other case: the first two cased characters, swapped
    assert edge_cases("'ru'", (), ["lower"])["directed"] == ["'Rru'", "'rRu'", "'ruR'", "'Uru'", "'rUu'", "'ruU'"]
    # no cased character: 'a' and 'A' (the middle of '..' is between the dots)
    assert edge_cases("'..'", (), ["upper"])["directed"] == ["'a..'", "'.a.'", "'..a'", "'A..'", "'.A.'", "'..A'"]
    # split/strip: a newline (the seed has a space already; a space at either end is a 'space' edge)
    assert edge_cases("'a b'", (), ["split"])["directed"] == ["'\\na b'", "'a\\n b'", "'a b\\n'"]
    # isalpha: a symbol and an underscore; isascii: a non-ASCII letter; bytes keep ASCII only
    assert edge_cases("'ab'", (), ["isalpha"])["directed"] == ["'!ab'", "'a!b'", "'ab!'", "'_ab'", "'a_b'",
                                                                 "'ab_'"]
    assert edge_cases("'ab'", (), ["isascii"])["directed"] == ["'éab'", "'aéb'", "'abé'"]
    assert edge_cases("b'ab'", (), ["isascii", "isdigit"])["directed"] == ["b'5ab'", "b'a5b'", "b'ab5'"]


def test_relation_and_index_edges():
    edges = edge_cases("'hello there', 'he'")
    # the other argument, with its last character doubled or its first appended ('h' and 'e',
    # the other argument without its last or first character, are listed under 'empty'); the
    # other way round does not fit: x ('he') grows by MAX_GROWTH characters at most
    assert edges["relate"] == ["'he', 'he'", "'hee', 'he'", "'heh', 'he'"]
    assert {"'h', 'he'", "'e', 'he'"} <= set(edges["empty"])
    ints = edge_cases("[1, 2, 3], 11, 4")
    # ranked: len - 1 for both int arguments first, then len, len + 1, -len... (the values
    # already listed under 'int', such as 11, 3 = 4 - 1, are left out here)
    assert ints["index"] == ["[1, 2, 3], 2, 4", "[1, 2, 3], 11, 2", "[1, 2, 3], 3, 4", "[1, 2, 3], 4, 4",
                             "[1, 2, 3], -3, 4", "[1, 2, 3], 11, -3", "[1, 2, 3], -4, 4", "[1, 2, 3], 11, -4"]
    assert ints["relate"] == ["[1, 2, 3], 11, 11", "[1, 2, 3], 11, 10", "[1, 2, 3], 5, 4", "[1, 2, 3], 11, 12"]


def test_second_generation_tops_up_short_seeds_only():
    edges = edge_cases("'a'", (), (), EDGE_FILL)
    first = [t for c, ts in edges.items() if c != "second" for t in ts]
    assert len(first) + len(edges["second"]) == EDGE_FILL
    # edges of 'A' (the case edge), then of 'aa' (repeat)...: round-robin over the categories
    assert edges["second"][:8] == ["'AA'", "'AAA'", "'A '", "' A'", "' A '", "'Aa'", "'aa '", "' aa'"]
    assert "second" not in edge_cases("'a'")  # no fill requested
    assert "second" not in edge_cases("'hello there', 'he'", (), (), EDGE_FILL)  # enough first-generation
    # mutate_args asks for at most EDGE_FILL: a large request gets no more second-generation values
    big = mutate_args("'a'", 200, random.Random(0))
    assert set(edges["second"]) <= set(big)
    assert len(set(big) & set(edge_cases("'a'", (), (), 140)["second"])) == len(edges["second"])


def test_inputs_with_hints_do_not_depend_on_hash_seed():
    # the verifier's inputs (program literals and call names as hints; a short seed, so the
    # second generation too) are the same under every PYTHONHASHSEED; the program is parsed,
    # never run, in the subprocess
    code = ("from codemorph.engine.program import Program; from codemorph.verification.differential import _mutants; "
            "p = Program('def f(a, b):\\n    return a.lower().split() + [b.isdecimal(), b.strip()]\\n', 'f'); "
            "print(_mutants(p, [\"'ru', 'x'\"], 49, 0))")
    outs = set()
    for hs in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=hs)
        outs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                check=True).stdout)
    assert len(outs) == 1 and len(eval_list(outs.pop())) == 49


def eval_list(text: str) -> list:
    import ast

    return ast.literal_eval(text)


# ------------------------------------------------------------------ effect on verification
# (name, operator switched off in the control run, original, wrong rewrite, seed input,
#  counterexample the default verifier reports)
CASES = [
    ("digit between letters of a text without one", "_directed_edges",
     "def f(text):\n    k = 0\n    for i, ch in enumerate(text):\n        if ch.isdecimal() and text[:i].isalpha()"
     "and text[i + 1:].isalpha():\n"
     "            k = i\n    return text[k:]\n",
     "def f(text):\n    k = 0\n    for i, ch in enumerate(text):\n        if ch.isdecimal() and text[:i].isalpha()"
     "and text[i + 1:].isalpha():\n"
     "            k = i\n    return text[k + 1:] if k else text\n",
     "'helloworld'", "'hello5world'"),
    ("capital after its own lower case", "_directed_edges",
     "def f(text):\n    n = 0\n    for i, ch in enumerate(text):\n        if ch.isupper() and ch.lower() in text[:i]:\n"
     "            n += 1\n    return n\n",
     "def f(text):\n    n = 0\n    for i, ch in enumerate(text):\n        if ch.isupper() and ch.lower() in text[1:i]:\n"
     "            n += 1\n    return n\n",
     "'xy'", "'xyX'"),
    ("one character more than the other argument", "_relation_edges",
     "def f(s, x):\n    while s.startswith(x) and len(s) > len(x):\n        s = s[len(x):]\n    return s\n",
     "def f(s, x):\n    while s.startswith(x) and len(s) > len(x) + 1:\n        s = s[len(x):]\n    return s\n",
     "'hello there', 'he'", "'hee', 'he'"),
    ("short seed: edge case of an edge case", "_second_generation",
     "def f(text):\n    return text.count(' ') == 2 and text.strip() == text\n",
     "def f(text):\n    return text.count(' ') == 2 and len(text) > 3\n",
     "'a'", "' aa '"),
]


@pytest.fixture(scope="module")
def sb():
    with Sandbox(LIM) as box:
        yield box


@pytest.mark.parametrize("name,operator,original,wrong,seed,counterexample", CASES, ids=[c[0] for c in CASES])
def test_operator_exposes_a_wrong_rewrite(sb, monkeypatch, name, operator, original, wrong, seed, counterexample):
    verdict = verify(original, wrong, inputs=(seed,), sandbox=sb)
    assert verdict.status == "differs"
    assert verdict.counterexample.args == counterexample
    # the same budget without the operator (the rest of the inputs as before) accepts it
    monkeypatch.setattr(inputs_module, operator, lambda *a, **k: [])
    assert verify(original, wrong, inputs=(seed,), sandbox=sb).status == "equivalent"
