"""A program may create, read and write files (and sqlite3 databases) inside its run's own
fresh work directory, and no file outside it.

Every run starts in an empty directory, so a database file one run leaves never changes the
next run: reruns give the same outcome and the determinism checks hold.  Reading or writing
a file outside the directory, a database outside it (a path or a ``file:`` URI), or the
standard streams by descriptor is refused (status ``"refused"``, never written).
"""

from __future__ import annotations

import json

import pytest

from codemorph.jobs.generate import GenerateConfig, generate
from codemorph.sandbox import request_for
from codemorph.sandbox.guard import MAX_WRITTEN_FILES, is_program_code, sqlite_paths
from codemorph.sandbox.pool import Limits, Sandbox

# a ClassEval-like row: the harness creates a database in its working directory and reads
# back the row it inserted, which has id 1 only in a fresh database
BOOKS = '''import unittest
import sqlite3


class BookDB:
    def __init__(self, db_name):
        self.connection = sqlite3.connect(db_name)
        self.cursor = self.connection.cursor()
        self.cursor.execute("CREATE TABLE IF NOT EXISTS books (id INTEGER PRIMARY KEY, title TEXT)")
        self.connection.commit()

    def add_book(self, title):
        values = (title,)
        self.cursor.execute("INSERT INTO books (title) VALUES (?)", values)
        self.connection.commit()


class Test(unittest.TestCase):
    def test(self):
        db = BookDB("test.db")
        db.add_book("Dune")
        count = 0
        for row in db.cursor.execute("SELECT id, title FROM books"):
            if row[0] >= 1:
                count += 1
        return db.cursor.execute("SELECT id, title FROM books WHERE id = 1").fetchone(), count
'''
BOOKS_OUTPUT = "((1, 'Dune'), 1)"

# a file written and read back in the work directory
NOTES = ("def f(text):\n    with open('notes.txt', 'a') as fh:\n        fh.write(text)\n"
         "    with open('notes.txt') as fh:\n        return fh.read()\n")


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(timeout=5.0, memory=512 * 1024**2)) as sb:
        yield sb


def test_a_sqlite_database_in_the_work_directory_starts_empty_on_every_run(box):
    req = request_for(BOOKS, "f", "call", "Test().test()")
    first, second = box.run_batch([req, req])  # one batch: the same child, one after the other
    third = box.run(req)  # another batch
    assert [(o.status, o.value_repr) for o in (first, second, third)] == [("returned", BOOKS_OUTPUT)] * 3


def test_a_file_appended_to_in_the_work_directory_is_new_on_every_run(box):
    outs = box.run_batch([request_for(NOTES, "f", "args", "'ab'")] * 3)
    assert [(o.status, o.value_repr) for o in outs] == [("returned", "'ab'")] * 3


def test_a_sqlite_program_behind_a_harness_is_written_with_its_variants(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "books", "code": BOOKS, "input": "Test().test()", "output": BOOKS_OUTPUT,
                               "input_kind": "call"}) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    # dead-store: the program computes no value a dead-code check would guard (count = 0 is a literal);
    # rename-locals renames add_book's local: the harness class Test is read-only
    generate(src, out, GenerateConfig.from_transforms(("rename-locals", "dead-store")))
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["output"]) for r in written] == [
        ("books", BOOKS_OUTPUT), ("books:rename-locals", BOOKS_OUTPUT), ("books:dead-store", BOOKS_OUTPUT)]
    assert out.with_name("out.rejects.jsonl").read_text(encoding="utf-8") == ""


@pytest.mark.parametrize("code, refused", [
    ("def f():\n    with open('/etc/passwd') as fh:\n        return len(fh.read()) > 0\n",
     "reading '/etc/passwd' outside the sandbox's temporary directory (open)"),
    ("def f():\n    return open('../../outside.txt', 'w') is None\n",
     "writing '../../outside.txt' outside the sandbox's temporary directory (open)"),
    ("def f():\n    exec(\"open('/etc/hostname').read()\")\n    return 1\n",
     "reading '/etc/hostname' outside the sandbox's temporary directory (open)"),
    ("import sqlite3\ndef f():\n    return sqlite3.connect('/tmp/codemorph-outside.db') is None\n",
     "opening the database '/tmp/codemorph-outside.db' outside the sandbox's temporary directory (sqlite3.connect)"),
    ("import sqlite3\ndef f():\n    return sqlite3.connect('file:///tmp/codemorph-outside.db?mode=ro', uri=True)\n",
     "opening the database '/tmp/codemorph-outside.db' outside the sandbox's temporary directory (sqlite3.connect)"),
    ("def f():\n    return open(0).read()\n", "opening the standard stream of file descriptor 0 (open)"),
])
def test_a_file_outside_the_work_directory_is_refused(box, code, refused):
    o = box.run(request_for(code, "f", "args", ""))
    assert o.status == "refused" and o.value_repr is None
    assert o.note.startswith(f"the sandbox refused {refused}; the program then ")


def test_imports_still_read_the_installation(box):
    code = "import csv, io, sqlite3, json, cmd\ndef f():\n    return json.dumps([1]), cmd.IDENTCHARS[:3]\n"
    o = box.run(request_for(code, "f", "args", ""))
    assert (o.status, o.value_repr) == ("returned", "('[1]', 'abc')")


def test_a_file_that_reaches_the_file_size_limit_is_no_outcome(box):
    code = ("def f():\n    try:\n        with open('big.txt', 'w') as fh:\n            fh.write('x' * 3_000_000)\n"
            "    except OSError:\n        return 'failed'\n    return 'written'\n")
    o = box.run(request_for(code, "f", "args", ""))  # a plain run returns 'written'
    assert o.status == "output-limit" and not o.comparable
    assert o.note == "a file the program wrote reached the sandbox's file-size limit"


@pytest.mark.parametrize("database, paths", [
    (":memory:", []), ("", []), ("test.db", ["test.db"]), (b"t.db", ["t.db"]),
    ("file:data.db?mode=rwc", ["file:data.db?mode=rwc", "data.db"]),
    ("file:///tmp/x.db", ["file:///tmp/x.db", "/tmp/x.db"]),
    ("file://localhost/etc/x.db#frag", ["file://localhost/etc/x.db#frag", "/etc/x.db"]),
    ("file::memory:?cache=shared", ["file::memory:?cache=shared"]),
])
def test_sqlite_paths_are_the_files_a_connect_may_open(database, paths):
    assert sqlite_paths(database) == paths


def test_program_code_is_code_compiled_from_text():
    assert is_program_code("<program>") and is_program_code("<string>")
    assert not is_program_code("<frozen importlib._bootstrap_external>")
    assert not is_program_code("/usr/lib/python3.11/csv.py")


MANY_FILES = ("def f(n):\n    for i in range(n):\n        with open(f'part{i}.txt', 'w') as fh:\n"
              "            fh.write('x' * 1000)\n    with open('part0.txt', 'a') as fh:\n        fh.write('y')\n"
              "    return n\n")


def test_a_run_may_write_up_to_the_file_cap_and_each_run_starts_the_count_afresh(box):
    outs = box.run_batch([request_for(MANY_FILES, "f", "args", str(MAX_WRITTEN_FILES))] * 2)
    assert [(o.status, o.value_repr) for o in outs] == [("returned", str(MAX_WRITTEN_FILES))] * 2


def test_a_run_writing_more_files_than_the_cap_is_refused_so_it_cannot_fill_the_disk(box):
    o = box.run(request_for(MANY_FILES, "f", "args", str(MAX_WRITTEN_FILES + 1)))
    assert o.status == "refused" and o.value_repr is None
    assert f"writing more than {MAX_WRITTEN_FILES} files" in o.note
