"""``ExecRequest`` has its own ``__init__`` (faster than the frozen dataclass's): it takes
exactly the dataclass's fields, in order, with their defaults, and builds the same request."""

import dataclasses
import inspect

import pytest

from codemorph.sandbox.pool import ExecRequest


def test_init_takes_the_fields_in_order_with_their_defaults():
    params = list(inspect.signature(ExecRequest.__init__).parameters.values())[1:]
    fields = dataclasses.fields(ExecRequest)
    assert [p.name for p in params] == [f.name for f in fields]
    assert [p.default for p in params] == [f.default if f.default is not dataclasses.MISSING
                                           else inspect.Parameter.empty for f in fields]


def test_request_is_built_replaced_compared_and_frozen_like_a_dataclass():
    r = ExecRequest("def f(x):\n    return x\n", "f", "1", None, True, 1.0, 0.25, 50_000)
    assert dataclasses.asdict(r) == {
        "code": "def f(x):\n    return x\n", "entry_point": "f", "args": "1", "expected_output": None,
        "trace": True, "timeout": 1.0, "cpu_timeout": 0.25, "max_lines": 50_000, "types": True,
        "recursion_limit": None, "counts": False, "input_kind": "args", "stdin": None, "python_tracer": False}
    s = dataclasses.replace(r, args="2", stdin="x")
    assert (s.args, s.stdin, s.max_lines, s.code) == ("2", "x", 50_000, r.code)
    assert r == ExecRequest(code=r.code, args="1", trace=True, timeout=1.0, cpu_timeout=0.25, max_lines=50_000)
    assert hash(r) == hash(dataclasses.replace(r))
    assert r != s
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.args = "3"
    assert repr(ExecRequest("x")) == ("ExecRequest(code='x', entry_point='f', args='', expected_output=None, "
                                      "trace=False, timeout=None, cpu_timeout=None, max_lines=None, types=True, "
                                      "recursion_limit=None, counts=False, input_kind='args', stdin=None, "
                                      "python_tracer=False)")
