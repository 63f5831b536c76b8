"""The sandbox worker's own modules (``codemorph/sandbox/_workerlib``, ``guard.py``, ``pool.py``)
are loaded under an unguessable package name: a program that imports ``protocol``,
``tracer``, ``guard``... by a plain name gets what a plain interpreter gives it (the
standard library module of that name, or ``ModuleNotFoundError``), never the worker's."""

from __future__ import annotations

import pytest

from codemorph.sandbox import ExecRequest, Limits, Sandbox

LIMITS = Limits(timeout=10)

#: module names of the worker's files that are no standard-library module
NOT_STDLIB = ["protocol", "fingerprint", "execution", "tracer", "child", "zygote", "common", "guard", "pool",
              "determinism", "_workerlib", "_worker"]


@pytest.fixture(scope="module")
def box():
    with Sandbox(LIMITS) as sandbox:
        yield sandbox


@pytest.mark.parametrize("name", NOT_STDLIB)
def test_a_program_cannot_import_a_worker_module_by_its_plain_name(box, name):
    code = (f"def f(x):\n    try:\n        import {name}\n    except ModuleNotFoundError as e:\n"
            f"        return 'missing ' + e.name\n    return 'found ' + {name}.__name__\n")
    out = box.run(ExecRequest(code=code, entry_point="f", args="0"))
    assert out.status == "returned", out
    assert out.value_repr == repr(f"missing {name}")


def test_a_program_importing_a_worker_name_that_is_a_stdlib_module_gets_the_stdlib_one(box):
    # ``codemorph/sandbox/_workerlib`` has no stdlib-named module, but ``sys.path`` must not
    # start with the sandbox's directory either: ``import json`` is the standard library's
    code = "import json\ndef f(x):\n    return json.dumps(x) + ' ' + str(hasattr(json, 'JSONDecoder'))\n"
    out = box.run(ExecRequest(code=code, entry_point="f", args="[1]"))
    assert out.status == "returned"
    assert out.value_repr == repr("[1] True")


def test_the_worker_modules_keep_the_names_a_program_saw_before_the_split(box):
    code = "import sys\ndef f(x):\n    t = type(sys.stdout)\n    return t.__module__ + '.' + t.__qualname__\n"
    out = box.run(ExecRequest(code=code, entry_point="f", args="0"))
    assert out.status == "returned"
    assert out.value_repr == repr("__main__._Capture")
