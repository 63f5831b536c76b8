"""Prompts of the harness tasks: CRUXEval's templates, verbatim, and the exception-answer protocol.

The four ``make_*_prompt`` functions below are copied unchanged from facebookresearch/cruxeval
(``prompts.py``, MIT licence, Copyright (c) Meta Platforms, Inc. and affiliates); they are the
prompts of CRUXEval's inference tasks (direct and chain-of-thought, output and input
prediction).  :func:`build_prompt` picks one for a row by its input kind (``call`` rows:
CRUXEval's template around the row's expression; ``stdin`` rows: the four ``make_*_std*_prompt``
templates of codemorph, in CRUXEval's layout) and, only when asked, adds the
exception-answer protocol.

Exception-answer protocol (``exceptions=`` option of the tasks)
------------------------------------------------------------------
CRUXEval asks for a literal; a call that raises has none.  With ``exceptions="off"`` the
prompts are CRUXEval's, byte for byte.  With ``"may-raise"`` one sentence is added to the
instruction paragraph (the first paragraph of the template), the same for every row of the
data set, saying that the call may raise and how to answer then::

    output prediction:  assert f(<input>) raises <ExceptionClass>      e.g. assert f([]) raises IndexError
    input prediction:   (rows whose call raises T are asked as ``assert f(??) raises T``)
                        assert f(<input>) raises T

``"class-list"`` adds a second sentence naming the classes to choose from (the classes the
data set's exception rows raise, plus :data:`COMMON_EXCEPTIONS`).  Chain-of-thought is the
separate ``cot`` option, so the remedies of the seed study (say that the call may raise;
chain of thought; list the classes) are one task option each.  ``"auto"`` is ``"may-raise"``
when the data set has exception rows and ``"off"`` otherwise.  The answer is read by
:func:`codemorph.scoring.predictions.extract_answer` (which also accepts ``raise T``,
``T(...)`` and tracebacks) and scored right exactly when it names the raised class.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from codemorph.errors import InputError
from codemorph.scoring.predictions import EvalRow, call_arguments

__all__ = [
    "make_cot_output_prompt",
    "make_direct_output_prompt",
    "make_direct_input_prompt",
    "make_cot_input_prompt",
    "make_direct_stdout_prompt",
    "make_cot_stdout_prompt",
    "make_direct_stdin_prompt",
    "make_cot_stdin_prompt",
    "build_prompt",
    "resolve_exceptions",
    "exception_classes",
    "COMMON_EXCEPTIONS",
    "EXCEPTION_OPTIONS",
    "STOP",
    "MAX_TOKENS",
]

#: CRUXEval's stop sequence (``openai_run.py``: ``stop=["[/ANSWER]"]``)
STOP = "[/ANSWER]"
#: CRUXEval's ``max_tokens`` (``openai_run.py``): 1000 with chain of thought, 100 without
MAX_TOKENS = {True: 1000, False: 100}
#: the values of the ``exceptions`` option
EXCEPTION_OPTIONS = ("auto", "off", "may-raise", "class-list")
#: classes always listed by ``exceptions="class-list"``
COMMON_EXCEPTIONS = ("AttributeError", "IndexError", "KeyError", "TypeError", "ValueError", "ZeroDivisionError")

# ---- CRUXEval's templates (verbatim) ------------------------------------------------------

def make_cot_output_prompt(s):
    code, input = s
    return f"""You are given a Python function and an assertion containing an input to the function. Complete the assertion with a literal (no unsimplified expressions, no function calls) containing the output when executing the provided code on the given input, even if the function is incorrect or incomplete. Do NOT output any extra information. Execute the program step by step before arriving at an answer, and provide the full assertion with the correct output in [ANSWER] and [/ANSWER] tags, following the examples.

[PYTHON]
def f(s):
    s = s + s
    return "b" + s + "a"
assert f("hi") == ??
[/PYTHON]
[THOUGHT]
Let's execute the code step by step:

1. The function f is defined, which takes a single argument s.
2. The function is called with the argument "hi", so within the function, s is initially "hi".
3. Inside the function, s is concatenated with itself, so s becomes "hihi".
4. The function then returns a new string that starts with "b", followed by the value of s (which is now "hihi"), and ends with "a".
5. The return value of the function is therefore "bhihia".
[/THOUGHT]
[ANSWER]
assert f("hi") == "bhihia"
[/ANSWER]

[PYTHON]
{code}
assert f({input}) == ??
[/PYTHON]
[THOUGHT]
"""

def make_direct_output_prompt(s):
    code, input = s
    return f"""You are given a Python function and an assertion containing an input to the function. Complete the assertion with a literal (no unsimplified expressions, no function calls) containing the output when executing the provided code on the given input, even if the function is incorrect or incomplete. Do NOT output any extra information. Provide the full assertion with the correct output in [ANSWER] and [/ANSWER] tags, following the examples.

[PYTHON]
def f(n):
    return n
assert f(17) == ??
[/PYTHON]
[ANSWER]
assert f(17) == 17
[/ANSWER]

[PYTHON]
def f(s):
    return s + "a"
assert f("x9j") == ??
[/PYTHON]
[ANSWER]
assert f("x9j") == "x9ja"
[/ANSWER]

[PYTHON]
{code}
assert f({input}) == ??
[/PYTHON]
[ANSWER]
"""

def make_direct_input_prompt(s):
    code, output = s
    return f"""You will be given a function f and an output in the form f(??) == output. Find any input such that executing f on the input leads to the given output. There may be multiple answers, but you should only output one. In [ANSWER] and [/ANSWER] tags, complete the assertion with one such input that will produce the output when executing the function.

[PYTHON]
def f(my_list):
    count = 0
    for i in my_list:
        if len(i) % 2 == 0:
            count += 1
    return count
assert f(??) == 3
[/PYTHON]
[ANSWER]
assert f(["mq", "px", "zy"]) == 3
[/ANSWER]

[PYTHON]
def f(s1, s2):
    return s1 + s2
assert f(??) == "banana"
[/PYTHON]
[ANSWER]
assert f("ba", "nana") == "banana"
[/ANSWER]

[PYTHON]
{code}
assert f(??) == {output}
[/PYTHON]
[ANSWER]
"""

def make_cot_input_prompt(s):
    code, output = s
    return f"""You will be given a function f and an output in the form f(??) == output. Your task is to find any input such that executing f on the input leads to the given output. There may be multiple answers, but only output one. First, think step by step. You MUST surround the answer with [ANSWER] and [/ANSWER] tags. Express your answer as a passing assertion containing the input and the given output.

[PYTHON]
def f(x):
    return x + 1
assert f(??) == 17
[/PYTHON]
[THOUGHT]
To find an input such that executing f on the input leads to the given output, we can work backwards from the given assertion. We know that f(??) == 17. 

Since the function f(x) returns x + 1, for f(??) to be equal to 17, the value of ?? should be 16. 
[/THOUGHT]
[ANSWER]
assert f(16) == 17
[/ANSWER]

[PYTHON]
{code}
assert f(??) == {output}
[/PYTHON]
[THOUGHT]
"""


# ---- codemorph: choosing and extending the prompt -------------------------------------------

_TEMPLATES = {
    ("output", False): make_direct_output_prompt,
    ("output", True): make_cot_output_prompt,
    ("input", False): make_direct_input_prompt,
    ("input", True): make_cot_input_prompt,
}

_MAY_RAISE = {
    "output": (" The call may raise an exception. If it does, complete the assertion with `raises` and the "
               "exception class instead of a value, as in `assert f([]) raises IndexError`."),
    "input": (" Some assertions instead read `assert f(??) raises T`: then find an input for which the call "
              "raises the exception class T, and answer with the assertion `assert f(<input>) raises T`."),
}


def exception_classes(rows: Iterable[EvalRow]) -> list[str]:
    """The classes ``exceptions="class-list"`` names: those raised by ``rows`` and
    :data:`COMMON_EXCEPTIONS`, sorted."""
    return sorted({r.exception_type for r in rows if r.exception_type} | set(COMMON_EXCEPTIONS))


def resolve_exceptions(option: str, rows: Sequence[EvalRow]) -> str:
    """``option`` with ``"auto"`` resolved (``"may-raise"`` when a row raises, else ``"off"``).

    Raises:
        ValueError: not one of :data:`EXCEPTION_OPTIONS`.
    """
    if option not in EXCEPTION_OPTIONS:
        raise ValueError(f"exceptions must be one of {', '.join(EXCEPTION_OPTIONS)}, got {option!r}")
    if option == "auto":
        return "may-raise" if any(r.exception_type for r in rows) else "off"
    return option


# ---- codemorph: prompts of stdin rows (CRUXEval's layout, a program and its standard streams) ----

def make_direct_stdout_prompt(s):
    code, stdin = s
    return f"""You are given a Python program and the text it reads from standard input. Write the exact text the program writes to standard output when it runs on that input, even if the program is incorrect or incomplete. Do NOT output any extra information. Provide the standard output in [ANSWER] and [/ANSWER] tags, following the example.

[PYTHON]
a, b = map(int, input().split())
print(a + b)
print(a * b)
[/PYTHON]
[STDIN]
2 3
[/STDIN]
[ANSWER]
5
6
[/ANSWER]

[PYTHON]
{code}
[/PYTHON]
[STDIN]
{stdin}
[/STDIN]
[ANSWER]
"""

def make_cot_stdout_prompt(s):
    code, stdin = s
    return f"""You are given a Python program and the text it reads from standard input. Write the exact text the program writes to standard output when it runs on that input, even if the program is incorrect or incomplete. Do NOT output any extra information. Execute the program step by step before arriving at an answer, and provide the standard output in [ANSWER] and [/ANSWER] tags, following the example.

[PYTHON]
a, b = map(int, input().split())
print(a + b)
print(a * b)
[/PYTHON]
[STDIN]
2 3
[/STDIN]
[THOUGHT]
1. The program reads the line "2 3", so a is 2 and b is 3.
2. It prints a + b, which is 5, then a * b, which is 6, each on its own line.
[/THOUGHT]
[ANSWER]
5
6
[/ANSWER]

[PYTHON]
{code}
[/PYTHON]
[STDIN]
{stdin}
[/STDIN]
[THOUGHT]
"""

def make_direct_stdin_prompt(s):
    code, stdout = s
    return f"""You will be given a Python program and the text it writes to standard output. Find any standard input such that running the program on it leads to the given output. There may be multiple answers, but you should only output one. In [ANSWER] and [/ANSWER] tags, write one such standard input, exactly as the program reads it.

[PYTHON]
a, b = map(int, input().split())
print(a + b)
[/PYTHON]
[STDOUT]
5
[/STDOUT]
[ANSWER]
2 3
[/ANSWER]

[PYTHON]
{code}
[/PYTHON]
[STDOUT]
{stdout}
[/STDOUT]
[ANSWER]
"""

def make_cot_stdin_prompt(s):
    code, stdout = s
    return f"""You will be given a Python program and the text it writes to standard output. Your task is to find any standard input such that running the program on it leads to the given output. There may be multiple answers, but only output one. First, think step by step. You MUST surround the answer with [ANSWER] and [/ANSWER] tags. Write the standard input exactly as the program reads it.

[PYTHON]
a, b = map(int, input().split())
print(a + b)
[/PYTHON]
[STDOUT]
5
[/STDOUT]
[THOUGHT]
The program prints the sum of the two numbers on its input line, so any two numbers that add up to 5 will do, such as 2 and 3.
[/THOUGHT]
[ANSWER]
2 3
[/ANSWER]

[PYTHON]
{code}
[/PYTHON]
[STDOUT]
{stdout}
[/STDOUT]
[THOUGHT]
"""


_STDIN_TEMPLATES = {
    ("output", False): make_direct_stdout_prompt,
    ("output", True): make_cot_stdout_prompt,
    ("input", False): make_direct_stdin_prompt,
    ("input", True): make_cot_stdin_prompt,
}

_STDIN_MAY_RAISE = {
    "output": (" The program may end with an uncaught exception. If it does, answer with `raises` and the "
               "exception class instead of its output, as in `raises IndexError`."),
    "input": (" Some programs are instead shown as ending with an uncaught exception class T: then find a "
              "standard input on which the program raises T."),
}


def _stream_text(text: str) -> str:
    """A standard stream's text as shown between its tags: one final line end dropped (the
    closing tag starts the next line)."""
    return text[:-1] if text.endswith("\n") else text


def _stdin_prompt(row: EvalRow, mode: str, cot: bool, raising: bool) -> str:
    if mode == "output":
        return _STDIN_TEMPLATES[(mode, cot)]((row.code, _stream_text(row.input)))
    prompt = _STDIN_TEMPLATES[(mode, cot)]((row.code, "\x00" if raising else _stream_text(row.output or "")))
    if raising:  # the output block says what the program ends with
        prompt = prompt.replace("[STDOUT]\n\x00\n[/STDOUT]", f"[STDOUT]\n(the program raises {row.exception_type})\n[/STDOUT]")
    return prompt


def _call_prompt(row: EvalRow, mode: str, cot: bool, raising: bool) -> str:
    """A ``call`` row: output mode asks ``assert <input> == ??``; input mode asks
    ``assert <entry_point>(??) == <output>`` when the input is one call of the entry point,
    else ``assert ?? == <output>``."""
    template = _TEMPLATES[(mode, cot)]
    if mode == "output":
        prompt = template((row.code, "\x00"))
        last = prompt.rindex("assert f(\x00) == ??")
        return prompt[:last] + f"assert {row.input} == ??" + prompt[last + len("assert f(\x00) == ??"):]
    prompt = template((row.code, "\x00" if raising else row.output))
    try:
        call_arguments(row.input, row.entry_point)
        head = f"assert {row.entry_point}(??)"
    except InputError:
        head = "assert ??"
    last = prompt.rindex("assert f(??) == ")
    tail = prompt[last + len("assert f(??) == "):]
    if raising:
        tail = tail.replace("\x00", "", 1)
        return prompt[:last] + f"{head} raises {row.exception_type}" + tail
    return prompt[:last] + f"{head} == " + tail


def build_prompt(row: EvalRow, mode: str, cot: bool = False, exceptions: str = "off",
                 classes: Sequence[str] = ()) -> str:
    """The prompt of ``row``, by its input kind (:attr:`EvalRow.input_kind`), extended by the
    exception-answer protocol (module docstring).

    * ``args`` rows: CRUXEval's template for ``mode`` and ``cot``, byte for byte when
      ``exceptions == "off"`` and the entry point is ``f`` (else ``f`` of the asked
      assertion is the entry point);
    * ``call`` rows: CRUXEval's template around the row's expression: output mode
      ``assert <input> == ??``; input mode ``assert <entry_point>(??) == <output>`` (an input
      that is not one call of the entry point, such as ``Test().test()``: ``assert ?? == <output>``);
    * ``stdin`` rows: the program in ``[PYTHON]`` and its standard input (output mode) or
      standard output (input mode) in ``[STDIN]`` / ``[STDOUT]`` tags; the answer is the
      other stream's text in ``[ANSWER]`` tags (:func:`make_direct_stdout_prompt` and the
      three others of that section).

    Args:
        row: the data-set row (its code and input, or its output / exception class).
        mode: ``"output"`` or ``"input"``.
        cot: chain-of-thought template.
        exceptions: ``"off"``, ``"may-raise"`` or ``"class-list"`` (resolve ``"auto"`` first
            with :func:`resolve_exceptions`).
        classes: for ``"class-list"``: the classes to list (:func:`exception_classes`).

    Raises:
        ValueError: unknown ``mode`` or ``exceptions``; an exception row with
            ``exceptions="off"`` in input mode (there is no output to show).
    """
    if mode not in ("output", "input"):
        raise ValueError(f"mode must be 'output' or 'input', got {mode!r}")
    if exceptions not in ("off", "may-raise", "class-list"):
        raise ValueError(f"exceptions must be off, may-raise or class-list here, got {exceptions!r}")
    raising = mode == "input" and row.output is None
    if raising and exceptions == "off":
        raise ValueError(f"row {row.id!r} raises {row.exception_type}: input prediction needs exceptions=may-raise "
                         f"or class-list")
    if row.input_kind == "stdin":
        prompt = _stdin_prompt(row, mode, bool(cot), raising)
    elif row.input_kind == "call":
        prompt = _call_prompt(row, mode, bool(cot), raising)
    else:
        template = _TEMPLATES[(mode, bool(cot))]
        prompt = template((row.code, row.input if mode == "output" else (row.output if not raising else "\x00")))
        if raising:  # "assert f(??) == <NUL>" -> "assert f(??) raises T"
            prompt = prompt.replace("assert f(??) == \x00", f"assert f(??) raises {row.exception_type}")
        if row.entry_point != "f":
            last = prompt.rfind("assert f(")
            prompt = prompt[:last] + f"assert {row.entry_point}(" + prompt[last + len("assert f("):]
    if exceptions != "off":
        hint = (_STDIN_MAY_RAISE if row.input_kind == "stdin" else _MAY_RAISE)[mode]
        if exceptions == "class-list":
            hint += f" The exception classes to choose from are: {', '.join(classes or COMMON_EXCEPTIONS)}."
        cut = prompt.index("\n\n")
        prompt = prompt[:cut] + hint + prompt[cut:]
    return prompt
