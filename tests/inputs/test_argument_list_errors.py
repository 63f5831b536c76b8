"""The message of an argument list that does not parse speaks of the user's own text: the
call ``f(...)`` it is parsed in must not make the parser speak of a parenthesis the user never
wrote."""

from __future__ import annotations

import pytest

from codemorph.errors import InputError
from codemorph.inputs import parse_args


@pytest.mark.parametrize("text, message", [
    ("[1,", "not a valid argument list: '[1,' ('[' was never closed)"),
    ("[1,,", "not a valid argument list: '[1,,' ('[' was never closed)"),
    ("{1: 2", "not a valid argument list: '{1: 2' ('{' was never closed)"),
    ("a=[1,", "not a valid argument list: 'a=[1,' ('[' was never closed)"),
    ("1, (2, [3", "not a valid argument list: '1, (2, [3' ('[' was never closed)"),
    ("1,\n[2,", "not a valid argument list: '1,\\n[2,' ('[' was never closed on line 2)"),
    # a mismatch inside the text itself: the parser's own words about it
    ("[1)", "not a valid argument list: '[1)' (closing parenthesis ')' does not match opening parenthesis '[')"),
    ("(1", "not a valid argument list: '(1' ('(' was never closed)"),
    ("x=1, 2", "not a valid argument list: 'x=1, 2' (positional argument follows keyword argument)"),
])
def test_a_bad_argument_list_is_quoted_with_the_parsers_words_about_it(text, message):
    with pytest.raises(InputError) as info:
        parse_args(text)
    assert str(info.value) == message
