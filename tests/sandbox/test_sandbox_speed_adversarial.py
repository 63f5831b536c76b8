"""The sandbox child's shortcuts (issue #17) tried against programs and values built to break
them: a request that changes builtins, ``sys``, the current directory or the output without
spelling a word of ``_REACH_WORDS``, followed by a request of the same batch (one child) that
looks; results the literal check decides without evaluating their repr; argument lists the
zygote compiles before it forks.  Every outcome is the one a fresh interpreter gives (the
unchanged sandbox gave the same)."""

from __future__ import annotations

import pytest

from codemorph.sandbox import ExecRequest, Limits, Sandbox
from codemorph.sandbox._workerlib import child as child_module


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(timeout=20)) as sandbox:
        yield sandbox


LEN = "def f(x):\n    return len(x)\n"
RET = "def f(x):\n    return x\n"

# reaches the builtins dict (a frame's f_builtins) and through it any module, spelling no
# word of _REACH_WORDS but "_frame"
FRAME_BUILTINS = ("def f(x):\n"
                  "    def g():\n"
                  "        yield 1\n"
                  "    return g().gi_frame.f_builtins\n")


def _through_frame(body):
    """A program that gets ``__import__`` from a generator frame's builtins and runs ``body``
    (``m`` is ``__import__``, ``b`` the builtins dict)."""
    return ("def f(x):\n"
            "    def g():\n"
            "        yield 1\n"
            "    b = g().gi_frame.f_builtins\n"
            "    m = b['_' + '_imp' + 'ort_' + '_']\n"
            + "".join(f"    {line}\n" for line in body.splitlines())
            + "    return 0\n")


def test_builtins_changed_through_a_generator_frame_do_not_reach_the_next_request(box):
    patch = _through_frame("b['len'] = lambda s: 42")
    first, second = box.run_batch([ExecRequest(patch, args="1"), ExecRequest(LEN, args="[1, 2]")])
    assert (first.status, first.value_repr) == ("returned", "0")
    assert (second.status, second.value_repr, second.fingerprint) == ("returned", "2", ["int", "2"])


def test_working_directory_changed_through_frame_builtins_is_restored(box):
    chdir = _through_frame("m('os').chdir('/')")
    write = "def f(x):\n    with open('x.txt', 'w') as fh:\n        return fh.write('abc')\n"
    first, second = box.run_batch([ExecRequest(chdir, args="1"), ExecRequest(write, args="1")])
    assert first.status == "returned"
    assert (second.status, second.value_repr, second.note) == ("returned", "3", None)


def test_sys_path_argv_and_displayhook_changed_through_frame_builtins_are_restored(box):
    change = _through_frame("s = m('s' + 'ys')\ns.path.append('/nowhere')\ns.argv.append('extra')\n"
                            "s.displayhook = print")
    look = _through_frame("s = m('s' + 'ys')\nprint(s.path[-1] == '/nowhere', len(s.argv), s.displayhook is print)")
    first, second = box.run_batch([ExecRequest(change, args="1"), ExecRequest(look, args="1")])
    assert first.status == "returned"
    assert (second.status, second.stdout) == ("returned", "False 1 False\n")


def test_output_written_to_file_descriptor_one_through_frame_builtins_is_captured(box):
    write = _through_frame("m('os').write(1, b'direct')")
    first, second = box.run_batch([ExecRequest(write, args="1"), ExecRequest(RET, args="2")])
    assert (first.status, first.stdout) == ("returned", "direct")
    assert (second.status, second.stdout, second.value_repr) == ("returned", "", "2")


def test_fullwidth_exec_is_exec_for_the_reach_check(box):
    # Python folds identifiers to NFKC: ｅｘｅｃ is exec, and the string builds "__builtins__"
    patch = ("def f(x):\n"
             "    ｅｘｅｃ(chr(95) * 2 + 'builtins' + chr(95) * 2 + '[\"len\"] = lambda s: 7')\n"
             "    return 0\n")
    first, second = box.run_batch([ExecRequest(patch, args="1"), ExecRequest(LEN, args="[1, 2]")])
    assert (first.status, first.value_repr) == ("returned", "0")
    assert (second.status, second.value_repr) == ("returned", "2")


def test_a_file_written_through_fullwidth_open_is_gone_for_the_next_request(box):
    write = "def f(x):\n    ｏｐｅｎ('f.txt', 'w').write('hi')\n    return 0\n"
    read = "def f(x):\n    return ｏｐｅｎ('f.txt').read()\n"
    first, second = box.run_batch([ExecRequest(write, args="1"), ExecRequest(read, args="1")])
    assert (first.status, first.value_repr) == ("returned", "0")
    assert second.status == "raised"
    assert second.exception.type == "FileNotFoundError"


def test_fullwidth_words_are_searched_in_their_nfkc_form():
    mentions = child_module._mentions
    assert mentions({"code": "ｅｘｅｃ('1')"}, child_module._REACH_WORDS)
    assert mentions({"args": "ｇｅｔａｔｔｒ(x, 'y')"}, child_module._REACH_WORDS)
    assert mentions({"code": "x = 1", "expected_output": "ｏｐｅｎ('f')"}, ("open",))
    assert not mentions({"code": "def f(x):\n    return 'é' + x\n", "args": "'ü'"}, child_module._REACH_WORDS)


def test_reach_and_write_are_told_by_one_search_as_by_each_word_list():
    # _reach_and_open searches arguments and expected output once for a word of either
    # list; its answers are those of _mentions with each list
    reqs = [{"code": RET, "args": "1"}, {"code": RET, "args": "'open'"}, {"code": RET, "args": "'__x'"},
            {"code": RET, "args": "1", "expected_output": "'ｅｖａｌ'"},
            {"code": RET, "args": "'ｏｐｅｎ'", "expected_output": "'open'"},
            {"code": "def f(x):\n    return open\n", "args": "1"},
            {"code": "def f(x):\n    return open\n", "args": "'sys'"},
            {"code": "import os\ndef f(x):\n    return x\n", "args": "1"},
            {"code": "", "args": "'getattr'"}, {"code": RET, "args": None, "expected_output": None}]
    got = [child_module._reach_and_open(r) for r in reqs]
    want = [(child_module._mentions(r, child_module._REACH_WORDS),
             child_module._mentions(r, child_module._REACH_WORDS) or child_module._mentions(r, ("open",)))
            for r in reqs]
    assert got == want
    assert got == [(False, False), (False, True), (True, True), (True, True), (False, True), (False, True),
                   (True, True), (True, True), (True, True), (False, False)]


def test_exit_then_input_reads_a_fresh_empty_standard_input(box):
    leave = "def f(x):\n    exit()\n"
    ask = "def f(x):\n    return input('prompt')\n"
    outs = box.run_batch([ExecRequest(leave, args="1"), ExecRequest(ask, args="1"), ExecRequest(ask, args="1")])
    assert (outs[0].status, outs[0].exception.type) == ("raised", "SystemExit")
    for out in outs[1:]:
        assert (out.status, out.exception.type, out.exception.message, out.stdout) == \
            ("raised", "EOFError", "EOF when reading a line", "prompt")


# value (argument literal) -> (value_repr, literal_ok) as eval(repr) decides it
LITERALS = [
    ("[-0.0, 0.0]", "[-0.0, 0.0]", True),
    ("{1, True}", "{1}", True),
    ("{True, 1}", "{True}", True),
    ("{1: 'a', 1.0: 'b', True: 'c'}", "{1: 'c'}", True),
    ("[float('nan')]", "[nan]", False),
    ("{1: float('inf')}", "{1: inf}", False),
    ("['\\ud800', '\\x00\\x7f\\x80', '\\u2028']", "['\\ud800', '\\x00\\x7f\\x80', '\\u2028']", True),
    ("[1e-320, 5e-324, 1.7976931348623157e308]", "[1e-320, 5e-324, 1.7976931348623157e+308]", True),
    ("[" * 21 + "1" + "]" * 21, "[" * 21 + "1" + "]" * 21, True),  # 22 levels: evaluated
    ("(lambda l: (l.append(l), l)[1])([])", "[[...]]", False),
    ("type('F', (float,), {})(1.5)", "1.5", False),
    ("[type('S', (str,), {})('x')]", "['x']", True),  # eval(repr) compares the outer type only
    ("frozenset()", "frozenset()", True),
    ("[set(), {}, (), frozenset({(1, 2)})]", "[set(), {}, (), frozenset({(1, 2)})]", True),
    ("[1+2j]", "[(1+2j)]", True),
    ("[b'x', ...]", "[b'x', Ellipsis]", True),
]


@pytest.mark.parametrize("arg,shown,literal_ok", LITERALS, ids=[a[:30] for a, _, _ in LITERALS])
def test_literal_check_agrees_with_evaluating_the_repr(box, arg, shown, literal_ok):
    out = box.run_batch([ExecRequest(RET, args=arg)])[0]
    assert (out.status, out.value_repr, out.literal_ok) == ("returned", shown, literal_ok)


def test_literal_check_at_the_value_budget(box):
    code = "def f(n):\n    return list(range(n))\n"
    outs = box.run_batch([ExecRequest(code, args=str(n)) for n in (1999, 2000, 2001, 5000)])
    assert [(o.status, o.literal_ok, o.value_repr[-6:]) for o in outs] == \
        [("returned", True, " 1998]"), ("returned", True, " 1999]"), ("returned", True, " 2000]"),
         ("returned", True, " 4999]")]


def test_int_over_the_digit_limit_has_no_repr_inside_a_container(box):
    out = box.run_batch([ExecRequest(RET, args="[10**4300]")])[0]
    assert (out.status, out.value_repr, out.literal_ok) == ("returned", None, False)
    assert out.repr_error.startswith("ValueError: Exceeds the limit (4300 digits)")


@pytest.mark.parametrize("args,status,error", [
    ("1\x00", "bad-input", "SyntaxError"),
    ("'\ud800'", "bad-input", "UnicodeEncodeError"),
    ("(" * 250 + "1" + ")" * 250, "bad-input", "SyntaxError"),
    ("'x' is 'x'", "returned", None),
])
def test_argument_lists_the_zygote_cannot_compile_fail_in_the_child(box, args, status, error):
    out = box.run_batch([ExecRequest(LEN.replace("len(x)", "1"), args=args), ExecRequest(LEN, args="[1]")])
    assert out[0].status == status
    assert (out[0].exception.type if out[0].exception else None) == error
    assert (out[1].status, out[1].value_repr) == ("returned", "1")


def test_an_argument_list_that_runs_a_command_runs_only_in_the_guarded_child(box):
    out = box.run_batch([ExecRequest(RET, args="__import__('os').system('true')")])[0]
    assert out.status == "refused"
    assert "os.system" in out.note


def _folding_args(k):
    """An argument list under 10,000 characters whose constants fold to about 3.4 MB."""
    parts, n, i = [], 0, 0
    while True:
        s = f"{k}_{i}"
        p = f"'{s}'*{4096 // len(s)}"
        if n + len(p) + 1 > 9990:
            return ",".join(parts)
        parts.append(p)
        n, i = n + len(p) + 1, i + 1


def test_the_zygote_keeps_no_argument_list_whose_constants_fold_to_megabytes(monkeypatch):
    monkeypatch.setattr(child_module, "ZYGOTE_ARG_CODES", {})
    monkeypatch.setattr(child_module, "_zygote_arg_bytes", [0])
    big, small = _folding_args(0), "[1, 2], 'a'"
    assert child_module.precompile_args([{"args": big}, {"args": small}])
    assert list(child_module.ZYGOTE_ARG_CODES) == [small]


def test_the_zygote_drops_the_oldest_argument_lists_past_its_byte_budget(monkeypatch):
    monkeypatch.setattr(child_module, "ZYGOTE_ARG_CODES", {})
    monkeypatch.setattr(child_module, "_zygote_arg_bytes", [0])
    monkeypatch.setattr(child_module, "_ZYGOTE_ARG_BYTES_MAX", 2000)
    lists = [f"[{i}, 'x']" for i in range(20)]
    child_module.precompile_args([{"args": a} for a in lists])
    kept = list(child_module.ZYGOTE_ARG_CODES)
    assert 0 < len(kept) < 20 and kept == lists[20 - len(kept):]
    assert child_module._zygote_arg_bytes[0] == sum(s for _, s in child_module.ZYGOTE_ARG_CODES.values()) <= 2000


def test_the_word_search_loads_no_module_a_program_could_see(box):
    look = "import sys\ndef f(x):\n    return 'unicodedata' in sys.modules\n"
    outs = box.run_batch([ExecRequest("def f(x):\n    return 'é'\n", args="'ü'"), ExecRequest(look, args="1")])
    assert [(o.status, o.value_repr) for o in outs] == [("returned", "'é'"), ("returned", "False")]


def test_an_argument_list_too_deep_for_the_requests_recursion_limit_fails_to_compile(box):
    # Python's compiler may nest 3 levels per frame left below the recursion limit: the
    # zygote's compilation (more room) must not stand in for the child's
    deep = "1" + "+1" * 300
    outs = box.run_batch([ExecRequest(LEN.replace("len(x)", "x"), args=deep, recursion_limit=100),
                          ExecRequest(LEN.replace("len(x)", "x"), args=deep)])
    assert (outs[0].status, outs[0].exception.type, outs[0].exception.message) == \
        ("bad-input", "RecursionError", "maximum recursion depth exceeded during compilation")
    assert (outs[1].status, outs[1].value_repr) == ("returned", "301")


def test_the_zygote_compiles_with_no_more_room_than_a_child_has(monkeypatch):
    monkeypatch.setattr(child_module, "ZYGOTE_ARG_CODES", {})
    monkeypatch.setattr(child_module, "_zygote_arg_bytes", [0])
    shallow, deep = "1" + "+1" * 50, "1" + "+1" * 200
    child_module.precompile_args([{"args": shallow}, {"args": deep}])
    assert list(child_module.ZYGOTE_ARG_CODES) == [shallow]


def test_builtins_reached_through_a_replaced_code_object_do_not_reach_the_next_request(box):
    # co_names rebound to "__import__" by a string built at run time: no word of the
    # program spells a module
    patch = ("def f(x):\n"
             "    def g():\n"
             "        yield y\n"
             "    c = g().gi_code.replace(co_names=('_' + '_imp' + 'ort_' + '_',))\n"
             "    imp = next(type(lambda: 0)(c, {})())\n"
             "    imp('built' + 'ins').len = lambda s: 42\n"
             "    return 0\n")
    first, second = box.run_batch([ExecRequest(patch, args="1"), ExecRequest(LEN, args="[1, 2]")])
    assert (first.status, first.value_repr) == ("returned", "0")
    assert (second.status, second.value_repr) == ("returned", "2")



SEE_COUNTER = "from collections import Counter\ndef f(x):\n    return Counter('aab').most_common()\n"


@pytest.mark.parametrize("patch", [
    "def f(x):\n    __import__('collections').Counter.most_common = lambda self, n=None: 'patched'\n    return 0\n",
    "def f(x):\n    c = __import__('collections')\n    c.Counter.most_common = lambda self, n=None: 'patched'\n    return 0\n",
    "import collections as c\ndef f(x):\n    k = c.Counter\n    k.most_common = lambda self, n=None: 'patched'\n    return 0\n",
], ids=["import call", "module alias", "member alias"])
def test_a_class_patched_through_an_import_call_or_alias_is_not_seen_by_the_next_request(box, patch):
    first, second = box.run_batch([ExecRequest(patch, args="1"), ExecRequest(SEE_COUNTER, args="1")])
    assert (first.status, first.value_repr) == ("returned", "0")
    assert (second.status, second.value_repr) == ("returned", "[('a', 2), ('b', 1)]")


def test_names_bound_to_new_objects_of_a_module_are_not_patches():
    find = child_module._find_patch
    assert not find("import datetime\ndef f(x):\n    d = datetime.date(2020, 1, 1)\n    d.x = 1\n")
    assert not find("import collections\nclass A:\n    def __init__(self):\n        self.c = collections.Counter()\n")
    assert find("import importlib\nm = importlib.import_module('json')\nm.JSONDecoder.decode = None\n")
