"""Tests of codemorph.determinism.nondeterminism_source: exact reasons for flagged
programs, ``None`` for deterministic ones (the test only parses code, nothing runs)."""

from __future__ import annotations

import json

import pytest

from codemorph.sandbox.determinism import nondeterminism_source
from paths import CRUXEVAL, shared


FLAGGED = [
    # programs that read the clock or random numbers
    ("import time\ndef f(x):\n    return x + int(time.time()) // 60 % 1000\n",
     "reads the clock (import time)"),
    ("import random\ndef f(x):\n    if x == 100:\n        return random.randint(0, 1)\n    return -x\n",
     "uses random numbers (import random)"),
    # seeding does not unflag random (a module-level seed is shared between calls)
    ("import random\nrandom.seed(0)\ndef f(x):\n    return random.random()\n", "uses random numbers (import random)"),
    ("from random import choice\ndef f(xs):\n    return choice(xs)\n",
     "uses random numbers (from random import ...)"),
    ("import uuid\ndef f(x):\n    return str(uuid.uuid4())\n", "uses random numbers or the host's address (import uuid)"),
    ("import secrets\ndef f(n):\n    return secrets.token_hex(n)\n", "uses random numbers (import secrets)"),
    ("import threading\ndef f(n):\n    return n\n", "runs threads (scheduling order) (import threading)"),
    ("import gc\ndef f(n):\n    return len(gc.get_objects()) + n\n",
     "reads the garbage collector's state (import gc)"),
    ("import os\ndef f(x):\n    return os.getpid() + x\n", "uses the process or its environment (os.getpid)"),
    ("import os\ndef f(x):\n    return os.environ.get(x)\n", "uses the process or its environment (os.environ.get)"),
    ("import os\ndef f(x):\n    return len(os.listdir('.')) + x\n",
     "uses the process or its environment (os.listdir)"),
    ("import os.path\ndef f(x):\n    return os.path.exists(x)\n",
     "uses the process or its environment (os.path.exists)"),
    ("import os.path as p\ndef f(x):\n    return p.getmtime(x)\n",
     "uses the process or its environment (os.path.getmtime)"),
    ("from os import urandom\ndef f(n):\n    return urandom(n)\n",
     "uses the process or its environment (os.urandom)"),
    ("from os import *\ndef f(x):\n    return x\n", "uses the process or its environment (from os import *)"),
    ("import sys\ndef f(x):\n    return len(sys.argv) + x\n", "reads the interpreter or its environment (sys.argv)"),
    ("import sys\ndef f(x):\n    return sys.version_info[1] + x\n",
     "reads the interpreter or its environment (sys.version_info)"),
    ("import sys\ndef f(x):\n    return sys.getrefcount(x)\n",
     "reads the interpreter or its environment (sys.getrefcount)"),
    ("import sys as s\ndef f(x):\n    return s\n", "reads the interpreter or its environment (sys)"),
    ("from datetime import datetime\ndef f(x):\n    return datetime.now().year + x\n",
     "reads the clock or the local time zone (datetime.now)"),
    ("import datetime\ndef f(x):\n    return datetime.date.today().year + x\n",
     "reads the clock or the local time zone (datetime.date.today)"),
    ("import datetime as dt\ndef f(x):\n    return dt.datetime.utcnow()\n",
     "reads the clock or the local time zone (dt.datetime.utcnow)"),
    ("def f(x):\n    return id(x) % 7\n", "reads memory addresses (id)"),
    ("def f(x):\n    return hash(x) % 2\n",
     "hashes values (an object's hash follows its address, a string's varies per process) (hash)"),
    ("def f(xs):\n    return sorted(xs, key=lambda o: o.__hash__())\n",
     "hashes values (an object's hash follows its address, a string's varies per process) (.__hash__)"),
    # SQL that reads the clock, random numbers or other database files; the library's version
    ("import sqlite3\ndef f():\n    return sqlite3.connect('t.db').execute(\"SELECT date('now')\").fetchone()\n",
     "runs SQL that may read the clock, random numbers, the library's version or other files ('now')"),
    ("import sqlite3\ndef f(n):\n    c = sqlite3.connect(':memory:')\n    return c.execute(f'SELECT random() % {n}')\n",
     "runs SQL that may read the clock, random numbers, the library's version or other files ('random(')"),
    ("import sqlite3\ndef f():\n    sqlite3.connect('t.db').execute(\"ATTACH DATABASE 'x.db' AS x\")\n",
     "runs SQL that may read the clock, random numbers, the library's version or other files ('ATTACH')"),
    ("import sqlite3\ndef f():\n    return sqlite3.sqlite_version\n",
     "reads the machine's SQLite library version (.sqlite_version)"),
    ("def f(x):\n    return __import__('time').time()\n", "reads the clock (__import__('time'))"),
    ("def f(m):\n    return __import__(m)\n", "runs code or imports a module chosen at run time (__import__)"),
    ("import importlib\ndef f(x):\n    return importlib.import_module('random').random()\n",
     "uses random numbers (importlib.import_module('random'))"),
    ("import importlib as il\ndef f(x):\n    return il.import_module('time').time()\n",
     "reads the clock (importlib.import_module('time'))"),
    ("from importlib import import_module\ndef f(x):\n    return import_module('math').floor(x)\n",
     "imports or reloads modules (importlib.import_module)"),
    ("import builtins\ndef f(x):\n    return builtins.id(x)\n",
     "reaches the builtins by name (id, hash, open...) (import builtins)"),
    ("def f(x):\n    return __builtins__.id(x)\n", "reaches the builtins by name (id, hash, open...) (__builtins__)"),
    ("import importlib\ndef f(x):\n    return importlib.reload(x)\n",
     "imports or reloads modules (importlib.reload)"),
    ("def f(x):\n    return eval(\"__import__('random').random()\")\n",
     "uses random numbers (__import__('random')), in eval"),
    ("def f(s):\n    return eval(s)\n", "runs code or imports a module chosen at run time (eval)"),
    # Python reads a fullwidth identifier as its NFKC form: this calls the builtin id
    ("def f(x):\n    return \uff49\uff44(x) % 7\n", "reads memory addresses (id)"),
    # the first source in source order is named
    ("import sys\nimport time\ndef f(x):\n    return time.time() + sys.getrefcount(x)\n",
     "reads the clock (import time)"),
    ("def f(x):\n    import time\n    return id(x)\n", "reads the clock (import time)"),
]

DETERMINISTIC = [
    # addresses and identity order: a second run at another heap state reveals them
    "def f(s):\n    if len(s) >= 3:\n        return 'ok'\n    return str(object())[-4:-1]\n",
    "class A:\n    pass\ndef f(n):\n    objs = [A() for _ in range(n)]\n    return [objs.index(o) for o in {*objs}]\n",
    # defining __hash__ is not reading one
    "class K:\n    def __hash__(self):\n        return 1\ndef f(x):\n    return len({K(), K()}) + x\n",
    "import math\ndef f(x):\n    return math.sqrt(x)\n",
    "import os\ndef f(a, b):\n    return os.path.join(a, b) + os.sep\n",
    "import os.path as p\ndef f(x):\n    return p.splitext(x)[1]\n",
    "from os.path import basename\ndef f(x):\n    return basename(x)\n",
    "import sys\ndef f(x):\n    return min(x, sys.maxsize)\n",
    "from datetime import date, timedelta\ndef f(d):\n    return (date(2020, 1, d) + timedelta(days=1)).isoformat()\n",
    "import importlib\ndef f(x):\n    return importlib.import_module('math').floor(x)\n",
    "import importlib as il\ndef f(x):\n    return il.import_module('math').floor(x)\n",
    # a local called id, a method called now: not the builtin, not datetime
    "def f(id):\n    return id + 1\n",
    "def f(items):\n    id = len(items)\n    return [id for _ in items]\n",
    "class C:\n    def now(self):\n        return 1\ndef f(x):\n    return C().now() + x\n",
    "def f(x):\n    return eval('1 + 2') + x\n",
    # files in the run's own fresh work directory: the sandbox refuses any file outside it
    "def f(name):\n    with open(name) as fh:\n        return fh.read()\n",
    ("import sqlite3\nclass DB:\n    def __init__(self, name):\n        self.c = sqlite3.connect(name)\n"
     "def f():\n    db = DB('test.db')\n    db.c.execute('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, now_x TEXT)')\n"
     "    return db.c.execute('SELECT * FROM t').fetchall()\n"),
    "import io\ndef f(s):\n    return io.StringIO(s).readline()\n",
    # a harmless standard-library module: cmd's constants
    "from cmd import IDENTCHARS\ndef f(s):\n    return all(c in IDENTCHARS for c in s)\n",
    # code that does not parse is left to the parse stage
    "def f(x):\n    return (\n",
]


@pytest.mark.parametrize("code, reason", FLAGGED)
def test_flagged_programs_name_their_source(code: str, reason: str) -> None:
    assert nondeterminism_source(code) == reason


@pytest.mark.parametrize("code", DETERMINISTIC)
def test_deterministic_programs_are_not_flagged(code: str) -> None:
    assert nondeterminism_source(code) is None


def test_no_cruxeval_program_is_flagged() -> None:
    """The benchmark's own programs import nothing and call no flagged builtin: the test
    rejects none of them (an over-approximation that still keeps the data set whole)."""
    shared("cruxeval", "cruxeval.jsonl")
    rows = [json.loads(line) for line in CRUXEVAL.read_text().splitlines()]
    assert len(rows) == 800  # CRUXEval has 800 programs (Gu et al. 2024): a documented property of the data set
    flagged = {r["id"]: nondeterminism_source(r["code"]) for r in rows}
    assert {k: v for k, v in flagged.items() if v is not None} == {}


CHANGES_PROCESS = [
    ("import builtins\nbuiltins.len = lambda x: 7\ndef f(x):\n    return len(x)\n", "rebinds a builtin (builtins.len)"),
    ("import builtins as b\ndef f(x):\n    b.len, b.max = 1, 2\n    return x\n", "rebinds a builtin (builtins.len)"),
    ("def f(x):\n    __builtins__['len'] = 3\n    return x\n", "rebinds a builtin (__builtins__['len'])"),
    ("import builtins\ndef f(x):\n    setattr(builtins, 'len', 3)\n    return x\n",
     "rebinds a builtin (setattr(builtins, 'len'))"),
    ("import signal\nsignal.signal(signal.SIGALRM, lambda *a: None)\ndef f(x):\n    return x\n",
     "installs a signal handler or timer (signal.signal)"),
    ("import signal as s\ndef f(x):\n    s.alarm(1)\n    return x\n", "installs a signal handler or timer (signal.alarm)"),
    ("import os\ndef f(x):\n    os.chdir('/')\n    return x\n", "changes the working directory (os.chdir)"),
    ("from os import chdir\ndef f(x):\n    chdir('/')\n    return x\n", "changes the working directory (os.chdir)"),
    ("import os.path\ndef f(x):\n    os.chdir('/')\n    return x\n", "changes the working directory (os.chdir)"),
    # named first even after an import flagged for another reason
    ("import time, sys\ndef f(x):\n    sys.settrace(None)\n    return x\n",
     "installs a trace or profile function (sys.settrace)"),
]


@pytest.mark.parametrize("code,start", CHANGES_PROCESS)
def test_programs_that_change_the_harness_process_are_named_for_what_they_do(code, start):
    from codemorph.sandbox.determinism import process_change
    assert process_change(code).startswith(start + ", which ")
    assert nondeterminism_source(code) == process_change(code)


def test_reading_a_builtin_by_name_is_not_a_process_change():
    from codemorph.sandbox.determinism import process_change
    code = "import builtins\ndef f(x):\n    return builtins.id(x)\n"
    assert process_change(code) is None
    assert nondeterminism_source(code) == "reaches the builtins by name (id, hash, open...) (import builtins)"


def test_a_dotted_os_import_still_flags_the_process_members():
    # `import os.path` binds `os` too: os.getpid was not flagged through it
    assert nondeterminism_source("import os.path\ndef f():\n    return os.getpid()\n") == \
        "uses the process or its environment (os.getpid)"
    assert nondeterminism_source("import os.path\ndef f(a):\n    return os.path.join(a, a)\n") is None
