"""The host reads an outcome's JSON bytes exactly as ``json.loads`` does (same value, same
type, same error), though a faster decoder does most of the work: the bytes come from a child
that ran an untrusted program, which may have written anything on the channel."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemorph.sandbox.pool import _loads_outcome


def _result(loads, raw):
    try:
        value = loads(raw)
    except RecursionError:
        return ("recursion",)
    except ValueError as exc:
        return ("error", type(exc).__name__)
    # repr tells int from float, -0.0 from 0.0, and shows a NaN; key order is kept
    return ("value", repr(value), type(value).__name__)


@pytest.mark.parametrize("raw", [
    b'{"status":"returned","duration":NaN}',
    b'[Infinity,-Infinity]',
    b'1e400', b'-1e400', b'1e-400',
    b'123456789012345678901234567890', b'-9223372036854775809', b'18446744073709551616',
    b'{"a":1,"b":2,"a":3}',
    b'"\\ud800"', b'"\xed\xa0\x80"', b'"\\ud83d\\ude00"',
    b'\xef\xbb\xbf{"status":"returned"}',
    b'1' + b'0' * 5000,
    b'[' * 5000 + b']' * 5000,
    b'-0', b'-0.0', b'9007199254740993.0', b'4.9e-324',
    b' \t\r\n{"a" : [1 , 2]}\n',
    b'{"status":"returned"', b'{"status":"returned"}x', b'[1,2,]', b'01', b'"\x01"', b'\xff', b'',
])
def test_outcome_bytes_read_as_json_loads_reads_them(raw):
    assert _result(_loads_outcome, raw) == _result(json.loads, raw)


def test_nan_from_the_child_stays_a_float_nan():
    value = _loads_outcome(b'{"duration":NaN,"n":1}')
    assert math.isnan(value["duration"]) and value["n"] == 1 and type(value["n"]) is int


def test_large_integer_stays_exact():
    assert _loads_outcome(b'[123456789012345678901234567890]') == [123456789012345678901234567890]


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(_json_values, st.booleans())
def test_any_json_the_child_writes_reads_the_same(value, ascii_only):
    raw = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    assert _result(_loads_outcome, raw) == _result(json.loads, raw)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_any_bytes_read_or_refused_as_json_loads_does(raw):
    assert _result(_loads_outcome, raw) == _result(json.loads, raw)
