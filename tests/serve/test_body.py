"""Reading a body: strict JSON, content types, caps while streaming, refused bodies drained."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forecast.models.baselines import Naive
from forecast.serve.body import BodyLimits, check_content_type, parse_json
from forecast.serve.payload import PayloadError
from tests.conftest import make_series
from tests.serve.asgi import app_for, post


@pytest.fixture(scope="module")
def app():
    return app_for(Naive().fit(make_series(48, tz="Europe/Berlin")), BodyLimits(1000, 4, 20))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"load": NaN}', "holds NaN, which is not JSON: send null for a missing value"),
        ('{"load": Infinity}', "holds Infinity, which is not JSON: send a finite number"),
        ('{"load": [-Infinity]}', "holds -Infinity, which is not JSON"),
        ('{"load": ' + "9" * 401 + "}", "an integer of 401 digits; numbers have at most 400"),
        ('{"load": -' + "9" * 5000 + "}", "an integer of 5,000 digits"),
        ('{"history": [], "history": []}', "the key 'history' twice in one object"),
        ('{"a": [{"x": 1, "y": 2, "x": 3}]}', "the key 'x' twice in one object"),
        ('{"\\ud800": 1}', r"string '\ud800' holds a lone UTF-16 surrogate at character 0"),
        ('{"a": ["x\\udc00"]}', r"string 'x\udc00' holds a lone UTF-16 surrogate at character 1"),
        ('{"a": 1', "not JSON: Expecting ',' delimiter at line 1 column 8"),
        ('{"a": 1} {}', "not JSON: Extra data at line 1 column 10"),
    ],
)
def test_what_pythons_reader_lets_through_is_refused(text, message):
    with pytest.raises(PayloadError) as info:
        parse_json(text)
    assert message in str(info.value)


def test_strict_json_still_reads_what_json_allows():
    text = '{"a": ["\\ud83d\\ude00", 1e300, -' + "9" * 400 + ', null, "\\\\ud800"]}'
    assert parse_json(text) == json.loads(text)  # a surrogate pair, a big float, a literal \u


@settings(max_examples=100, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=4), c, max_size=4),
))  # fmt: skip
def test_any_json_without_repeated_keys_reads_as_pythons_reader_reads_it(value):
    text = json.dumps(value, ensure_ascii=False)
    assert parse_json(text) == json.loads(text)


@pytest.mark.parametrize(
    "value",
    [None, "", "application/json", "Application/JSON; charset=UTF-8", "application/geo+json",
     'application/json; charset="utf8"'],
)  # fmt: skip
def test_json_content_types_are_read(value):
    check_content_type(value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("text/plain", "Content-Type 'text/plain' is not JSON: send the body as application/json"),
        ("application/x-www-form-urlencoded", "is not JSON"),
        ("application/json; charset=latin-1", "charset 'latin-1' is not UTF-8"),
        ("multipart/form-data; boundary=x", "is not JSON"),
    ],
)
def test_other_content_types_get_415(app, value, message):
    answer = post(app, [b'{"history": ', b"[]}"], content_type=value)
    assert (answer.status, answer.chunks_read) == (415, 2)  # read to the end, then answered
    assert message in answer.error


def test_a_body_without_a_content_type_is_read_as_json(app):
    answer = post(app, b'{"history": []}', content_type=None)
    assert (answer.status, answer.error) == (400, "field 'history' has no rows")


def test_a_declared_length_over_the_cap_gets_413_before_reading(app):
    answer = post(app, [b"{}"], headers={"content-length": "1001"})
    assert (answer.status, answer.chunks_read) == (413, 0)
    assert answer.error == "the request body is 1001 bytes, over 1000"


def test_a_chunked_body_over_the_cap_gets_413_where_it_passes(app):
    answer = post(app, [b"{" + b" " * 599, b" " * 600, b" " * 600])
    assert (answer.status, answer.chunks_read) == (413, 2)  # the third chunk is never read
    assert answer.error == "the request body is over 1000 bytes"


@pytest.mark.parametrize(
    ("chunks", "message"),
    [
        ([b"  [", b"1, 2]"], "must be a JSON object with history, horizon, quantiles, future, "
                             "vintages, got a list"),
        ([b'{"history": [[[[', b"]]]]}"], "nests deeper than 4 levels (at byte 15)"),
        ([b'{"history": [' + b"{}," * 20, b"{}]}"], "more than 20 objects and lists (at byte 67)"),
    ],
)  # fmt: skip
def test_a_body_past_a_shape_cap_gets_400_and_is_drained(app, chunks, message):
    answer = post(app, chunks)
    assert (answer.status, answer.chunks_read) == (400, 2)
    assert message in answer.error


def test_a_refused_body_past_the_byte_cap_is_not_drained_further(app):
    answer = post(app, [b"[", b" " * 1000, b" " * 1000])
    assert (answer.status, answer.chunks_read) == (400, 2)  # the first refusal is the answer
    assert "got a list" in answer.error


@pytest.mark.parametrize(
    ("chunks", "message"),
    [
        ([b" \n "], "the request body is empty: send a JSON object with 'history'"),
        ([b'{"a": "\xc3', b'\xa9\xff"}'], "not UTF-8 text: byte 9 is b'\\xff' (invalid start"),
        ([b'{"history": NaN}'], "holds NaN, which is not JSON"),
    ],
)  # fmt: skip
def test_the_kept_bytes_must_be_strict_utf8_json(app, chunks, message):
    answer = post(app, chunks)
    assert answer.status == 400 and answer.error.startswith("the request body ")
    assert message in answer.error
