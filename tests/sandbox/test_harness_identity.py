"""Programs whose outcome depends on the harness that runs them (its module name, file name,
frames): flagged statically by :func:`codemorph.determinism.nondeterminism_source`, so no row
of them is written (reads of ``co_filename``, ``traceback``, ``__module__``,
``__name__``).  Only parses code; nothing runs here."""

from __future__ import annotations

import json

import pytest

from codemorph.sandbox.determinism import nondeterminism_source
from paths import CRUXEVAL, shared


FLAGGED = [
    ("def f(x):\n    return f.__code__.co_filename\n",
     "reads a code object (its file name is the harness's) (.co_filename)"),
    ("import traceback\ndef f(x):\n    try:\n        1 / x\n    except ZeroDivisionError:\n"
     "        return traceback.format_exc().splitlines()[1]\n",
     "reads the harness's frames and file names (import traceback)"),
    ("def f(x):\n    class C:\n        pass\n    return C.__module__\n",
     "reads a module name, which the harness chooses (.__module__)"),
    ("def f(x):\n    return repr(f.__module__)\n", "reads a module name, which the harness chooses (.__module__)"),
    ("def f(x):\n    return __name__\n", "reads its module's name, which the harness chooses (__name__)"),
    ("def f(x):\n    return __file__\n", "reads its file name, which the harness chooses (__file__)"),
    ("def f(x):\n    return __spec__ is None\n",
     "reads its module's import spec, which the harness chooses (__spec__)"),
    ("def f(x):\n    return __doc__\n",
     "reads its module's docstring global, which the harness may leave unset (__doc__)"),
    ("def f(x):\n    return len(globals())\n",
     "reads its module's globals, which the harness sets (__name__, __file__, __builtins__...) (globals)"),
    ("def f(x):\n    return f.__globals__['__name__']\n",
     "reads a function's globals, which the harness sets (__name__, __file__, __builtins__...) (.__globals__)"),
    ("NAMES = dir()\ndef f(x):\n    return NAMES\n",
     "lists its module's globals, which the harness sets (__name__, __file__...) (dir())"),
    ("import sys\ndef f(x):\n    return sys._getframe().f_back is None\n",
     "reads the interpreter's frames (file names, line numbers and callers of the harness) (.f_back)"),
    ("def f(x):\n    try:\n        1 / x\n    except ZeroDivisionError as e:\n        return e.__traceback__.tb_lineno\n",
     "reads the interpreter's frames (file names, line numbers and callers of the harness) (.tb_lineno)"),
    ("def f(x):\n    g = (i for i in x)\n    return g.gi_frame.f_lineno\n",
     "reads the interpreter's frames (file names, line numbers and callers of the harness) (.f_lineno)"),
    ("import linecache\ndef f(x):\n    return x\n",
     "reads source files by the harness's file names (import linecache)"),
    ("import __main__\ndef f(x):\n    return x\n", "reads the harness's main module (import __main__)"),
    ("from inspect import currentframe\ndef f(x):\n    return x\n",
     "reads the interpreter's frames and source files (from inspect import ...)"),
    ("import sysconfig\ndef f(x):\n    return sysconfig.get_paths()['purelib'][-40:]\n",
     "reads the interpreter's installation paths (import sysconfig)"),
    ("import site\ndef f(x):\n    return site.ENABLE_USER_SITE\n",
     "reads the interpreter's installation and user site paths (import site)"),
    ("def f(x):\n    try:\n        import libcst\n        return 'libcst available'\n    except ImportError:\n"
     "        return 'no libcst'\n",
     "imports a module outside the standard library, which another harness may lack or have in another version "
     "(import libcst)"),
    ("from numpy import array\ndef f(x):\n    return list(array(x))\n",
     "imports a module outside the standard library, which another harness may lack or have in another version "
     "(from numpy import ...)"),
    ("def f(x):\n    return __import__('yaml') is None\n",
     "imports a module outside the standard library, which another harness may lack or have in another version "
     "(__import__('yaml'))"),
    ("import logging\ndef f(x):\n    logging.warning(x)\n    return x\n",
     "writes log records (the clock, process and thread ids, the harness's file names) (import logging)"),
    # a main block that binds a global: it runs under a harness that names the module __main__
    ("def f(x):\n    return x + Y\nif __name__ == '__main__':\n    Y = 1\n",
     "reads its module's name, which the harness chooses (__name__)"),
]

NOT_FLAGGED = [
    "def f(x):\n    return type(x).__name__\n",
    "def f(x):\n    return f.__name__ + x.__class__.__name__\n",
    "def f(x):\n    class C:\n        pass\n    return C.__qualname__\n",
    # the main-block idiom that only prints: not run in the sandbox nor in the checker
    "def f(x):\n    return x\n\nif __name__ == '__main__':\n    print(f(3))\n",
    "def f(x):\n    return dir(x)[:3]\n",
    "def f(x):\n    return sorted(vars())\n",  # a function's locals
    "def f(__name__):\n    return __name__\n",  # a parameter, not the global
    "__doc__ = 'mine'\ndef f(x):\n    return __doc__\n",  # bound by the program itself
    "from __future__ import annotations\nimport collections, heapq\nfrom typing import List\n"
    "def f(x: List[int]):\n    return heapq.nsmallest(1, collections.Counter(x))\n",
]


@pytest.mark.parametrize("code,reason", FLAGGED)
def test_harness_identity_flagged(code: str, reason: str) -> None:
    assert nondeterminism_source(code) == reason


@pytest.mark.parametrize("code", NOT_FLAGGED)
def test_common_dunder_uses_not_flagged(code: str) -> None:
    assert nondeterminism_source(code) is None


def test_cruxeval_none_flagged() -> None:
    """No CRUXEval program reads the harness's identity (the full-catalogue generate keeps
    its 0 rejects)."""
    shared("cruxeval", "cruxeval.jsonl")
    rows = [json.loads(line) for line in CRUXEVAL.read_text().splitlines() if line.strip()]
    assert len(rows) == 800  # CRUXEval has 800 programs (Gu et al. 2024): a documented property of the data set
    assert [r["id"] for r in rows if nondeterminism_source(r["code"]) is not None] == []


UNKNOWN = "imports a module that may read the clock, files, the process or the machine"


@pytest.mark.parametrize("code,reason", [
    # the clock read through a module that reads it for its caller
    ("import email.utils\ndef f(x):\n    return email.utils.formatdate()[17:22]\n", f"{UNKNOWN} (import email.utils)"),
    ("from http.cookiejar import time2isoz\ndef f(x):\n    return time2isoz()\n",
     f"{UNKNOWN} (from http.cookiejar import ...)"),
    ("import gzip\ndef f(x):\n    return gzip.compress(x.encode())[4:8]\n", f"{UNKNOWN} (import gzip)"),
    ("import codecs\ndef f(p):\n    return codecs.open(p).read()\n", f"{UNKNOWN} (import codecs)"),
    ("import filecmp\ndef f(a, b):\n    return filecmp.cmp(a, b)\n", f"{UNKNOWN} (import filecmp)"),
    ("import urllib.request\ndef f(x):\n    return x\n", f"{UNKNOWN} (import urllib.request)"),
    ("def f(x):\n    return __import__('wsgiref.handlers') is None\n", f"{UNKNOWN} (__import__('wsgiref.handlers'))"),
    ("import timeit\ndef f(x):\n    return int(timeit.default_timer()) % 2\n", "reads the clock (import timeit)"),
    ("import logging\ndef f(x):\n    return x + int(logging.makeLogRecord({}).created) // 60 % 1000\n",
     "writes log records (the clock, process and thread ids, the harness's file names) (import logging)"),
])
def test_modules_outside_the_allow_list_are_flagged(code: str, reason: str) -> None:
    assert nondeterminism_source(code) == reason


@pytest.mark.parametrize("code", [
    "import math, re, string, itertools, functools, operator, heapq, bisect\ndef f(x):\n    return x\n",
    "from collections.abc import Iterable\nfrom typing import List\ndef f(x):\n    return x\n",
    "from urllib import parse\nimport urllib.parse\ndef f(x):\n    return parse.quote(x)\n",
    "import json, statistics, fractions, decimal\ndef f(x):\n    return json.dumps(x)\n",
])
def test_allow_listed_modules_are_not_flagged(code: str) -> None:
    assert nondeterminism_source(code) is None
