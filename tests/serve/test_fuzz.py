"""An attacker's bodies, in process: every one is answered 2xx or 4xx with one short line."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forecast.models.baselines import LinearLagForecaster
from forecast.serve.app import MAX_MESSAGE
from tests.conftest import make_series
from tests.serve.asgi import app_for, post
from tests.serve.harness import rows

ZONE = "Europe/Berlin"
SERIES = make_series(24 * 10, tz=ZONE, start="2023-03-20")
GOOD = {"history": rows(SERIES), "horizon": 6}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6)
    | st.sampled_from(["day-ahead", "all", "0.1,0.9", "2023-03-26T02:00:00", "load", "id"]),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(
        st.sampled_from(["history", "horizon", "quantiles", "future", "vintages", "timestamp",
                         "load", "id", "issue_time", "x"]) | st.text(max_size=3), c, max_size=3),
    max_leaves=12,
)  # fmt: skip
KEYS = st.sampled_from(["timestamp", "load", "id", "x", ""])


@pytest.fixture(scope="module")
def app():
    model = LinearLagForecaster(horizon=24).fit(make_series(24 * 21, tz=ZONE, start="2023-02-01"))
    return app_for(model)


@st.composite
def bodies(draw):
    """The good body, changed the way a careless or hostile client would change it."""
    body = json.loads(json.dumps(GOOD))
    history = body["history"]
    for _ in range(draw(st.integers(1, 3))):
        change = draw(st.sampled_from(["field", "row value", "row key", "drop", "cut", "history"]))
        i = draw(st.integers(0, len(history) - 1)) if history else 0
        row = history[i] if history and isinstance(history[i], dict) else {}
        if change == "field":
            body[draw(st.sampled_from(["horizon", "quantiles", "future", "vintages", "x"]))] = draw(
                JSON
            )
        elif change == "row value":
            row[draw(KEYS)] = draw(JSON)
        elif change == "row key":
            row.pop(draw(KEYS), None)
        elif change == "drop":
            del history[draw(st.integers(0, len(history))) :]
        elif change == "cut":
            del history[: draw(st.integers(0, len(history)))]
        else:
            body["history"] = history = draw(JSON)
            if not isinstance(history, list):
                break
    text = json.dumps(body, allow_nan=True).encode()  # NaN and Infinity, as careless writers do
    edit = draw(st.sampled_from(["none", "truncate", "splice", "wrap"]))
    at = draw(st.integers(0, len(text)))
    if edit == "truncate":
        text = text[:at]
    elif edit == "splice":
        text = text[:at] + draw(st.binary(max_size=4)) + text[at:]
    elif edit == "wrap":
        n = draw(st.integers(1, 20))
        text = b'{"history": ' + b"[" * n + text + b"]" * n + b"}"
    return text


def check(answer):
    assert answer.status in (200, 400, 413, 415, 422), answer.body
    if answer.status != 200:
        assert list(answer.body) == ["error"]
        line = answer.error
        assert line and "\n" not in line and len(line) <= MAX_MESSAGE
        assert not line.startswith("internal error")


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=bodies(), cut=st.integers(0, 10**6))
def test_no_body_gets_a_500(app, text, cut):
    at = cut % (len(text) + 1)
    check(post(app, [text[:at], text[at:]]))


@settings(max_examples=60, deadline=None)
@given(value=JSON)
def test_any_json_value_as_the_body_gets_a_4xx(app, value):
    answer = post(app, json.dumps(value).encode())
    check(answer)
    assert answer.status != 200


@pytest.mark.parametrize(
    "body",
    [
        {"history": rows(SERIES), "quantiles": [0.5] * 100_000},
        {"history": [dict(r, **{"x" * 100_000: 1.0}) for r in rows(SERIES)[:3]]},
        {"history": rows(SERIES)[:5] + [{"timestamp": "2023-03-30T00:00:00" + "0" * 10**5}]},
        {"history": {"timestamp": [], **{f"c{i}": [1.0] for i in range(10_000)}}},
    ],
)
def test_long_inputs_are_quoted_not_echoed(app, body):
    answer = post(app, json.dumps(body).encode())
    check(answer)
    assert answer.status in (400, 422)
