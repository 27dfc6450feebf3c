"""``forecast serve`` over real HTTP: forecasts equal ``predict``, DST days, bad input, threads.

One server per module (a saved ``LinearLagForecaster`` fitted in Europe/Berlin), started in a
subprocess on 127.0.0.1 and called with urllib.
"""

from __future__ import annotations

import json
import os
import re
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

from forecast.frames.requests import to_history
from forecast.models.baselines import LinearLagForecaster
from forecast.persistence import load
from tests.conftest import make_series
from tests.serve.harness import Server, rows

ZONE = "Europe/Berlin"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve") / "linear"
    LinearLagForecaster(horizon=24).fit(make_series(24 * 21, tz=ZONE, start="2023-02-01")).save(
        folder
    )
    server = Server([folder])
    yield server, load(folder)
    server.stop()


def history_until(end, days=10, seed=1):
    """Hourly Berlin history of ``days`` local days ending with the hour ``end``."""
    index = pd.date_range(end=pd.Timestamp(end, tz=ZONE), periods=24 * days, freq="h")
    frame = make_series(len(index), seed=seed)
    frame.index = index
    return frame


def assert_same(answer, expected):
    """The served rows equal the frame ``predict`` returned: stamps (with offsets) and values."""
    got = answer["forecast"]
    assert [r["timestamp"] for r in got] == [t.isoformat() for t in expected.index]
    for column in expected.columns:
        assert [r[column] for r in got] == expected[column].tolist()


def test_health_describes_the_model(served):
    server, est = served
    status, body = server.call("GET", "/health")
    assert status == 200
    assert body["status"] == "ok" and body["estimator"] == "LinearLagForecaster"
    assert body["timezone"] == ZONE and body["columns"] == ["load"]
    assert body["min_history"] == est._min_history() and body["default_horizon"] == 24


def test_forecast_equals_predict(served):
    server, est = served
    history = history_until("2023-03-10 11:00")
    status, body = server.call("POST", "/forecast", {"history": rows(history), "horizon": 30})
    assert status == 200, body
    assert body["horizon"] == 30 and body["timezone"] == ZONE
    assert_same(body, est.predict(horizon=30, history=history))


def test_without_horizon_the_model_default(served):
    server, est = served
    history = history_until("2023-03-10 23:00")
    status, body = server.call("POST", "/forecast", {"history": rows(history)})
    assert status == 200 and len(body["forecast"]) == 24


@pytest.mark.parametrize(
    ("end", "hours", "switch"),
    [
        # spring: 02:00 does not exist, 01:00+01:00 is followed by 03:00+02:00
        ("2023-03-25 23:00", 23, ["2023-03-26T01:00:00+01:00", "2023-03-26T03:00:00+02:00"]),
        # autumn: 02:00 twice, first in summer time then in winter time
        ("2023-10-28 23:00", 25, ["2023-10-29T02:00:00+02:00", "2023-10-29T02:00:00+01:00"]),
    ],
)
def test_day_ahead_on_dst_days(served, end, hours, switch):
    server, est = served
    history = history_until(end)
    body = {"history": rows(history), "horizon": "day-ahead"}
    status, answer = server.call("POST", "/forecast", body)
    assert status == 200, answer
    stamps = [r["timestamp"] for r in answer["forecast"]]
    assert answer["horizon"] == hours == len(stamps)
    assert stamps[0][11:19] == "00:00:00" and stamps[-1][11:19] == "23:00:00"
    i = stamps.index(switch[0])
    assert stamps[i + 1] == switch[1]
    assert_same(answer, est.predict(horizon=hours, history=history))


def test_utc_and_offset_stamps_give_the_same_forecast(served):
    server, _ = served
    history = history_until("2023-03-27 11:00")  # across the spring switch: two offsets
    utc = [dict(r, timestamp=in_utc(r["timestamp"])) for r in rows(history)]
    zulu = [dict(r, timestamp=r["timestamp"].replace("+00:00", "Z")) for r in utc]
    answers = [
        server.call("POST", "/forecast", {"history": h, "horizon": 12})
        for h in (rows(history), utc, zulu)
    ]
    assert [a[0] for a in answers] == [200, 200, 200]
    assert answers[0][1] == answers[1][1] == answers[2][1]


def in_utc(text):
    return pd.Timestamp(text).tz_convert("UTC").isoformat()


def test_naive_stamps_are_local_times_in_the_model_zone(served):
    server, est = served
    history = history_until("2023-01-20 11:00")
    naive = [dict(r, timestamp=r["timestamp"][:19]) for r in rows(history)]  # wall clock
    status, body = server.call("POST", "/forecast", {"history": naive, "horizon": 6})
    assert status == 200, body
    assert body["forecast"][0]["timestamp"] == "2023-01-20T12:00:00+01:00"
    assert_same(body, est.predict(horizon=6, history=history))
    frame = pd.DataFrame(naive).assign(timestamp=lambda f: pd.to_datetime(f["timestamp"]))
    assert_same(body, est.predict(horizon=6, history=to_history(frame, est)))  # the shared rule


def test_columns_of_lists_are_rows_too(served):
    server, est = served
    history = history_until("2023-03-10 11:00")
    stamps = [t.isoformat() for t in history.index]
    columns = {"timestamp": stamps, "load": history["load"].tolist()}
    status, body = server.call("POST", "/forecast", {"history": columns, "horizon": 5})
    assert status == 200
    assert_same(body, est.predict(horizon=5, history=history))


def _rows(n=24 * 10, end="2023-03-10 11:00"):
    return rows(history_until(end))[-n:]


def _edit(i, **change):
    return [dict(r, **change) if j == i else r for j, r in enumerate(_rows())]


def _naive(end):
    """A naive hourly grid, as a clock without DST writes it: 02:00 on both switch days."""
    index = pd.date_range(end=end, periods=24 * 10, freq="h")
    return [{"timestamp": t.isoformat(), "load": 10.0} for t in index]


BAD = {
    "too little history": (
        {"history": _rows(20)},
        422,
        "too little history: 20 rows, but at least 168",
    ),
    "unknown column": (
        {"history": [dict(r, temp=1.0) for r in _rows()]},
        422,
        "temp",
    ),
    "missing history": ({"horizon": 3}, 400, "no 'history' field"),
    "unknown field": ({"history": _rows(), "horizn": 3}, 400, "unknown field 'horizn'"),
    "horizon not a number": ({"history": _rows(), "horizon": "3"}, 400, "field 'horizon'"),
    "horizon zero": ({"history": _rows(), "horizon": 0}, 400, "got 0"),
    "value not a number": (
        {"history": _edit(3, load="n/a")},
        400,
        "column 'load' holds a value that is not a number at row 3: 'n/a'",
    ),
    "not a timestamp": (
        {"history": _edit(5, timestamp="yesterday")},
        400,
        "'yesterday' at row 5",
    ),
    "naive and offset mixed": (
        {"history": _edit(7, timestamp=_rows()[7]["timestamp"][:19])},
        400,
        "without a UTC offset",
    ),
    "row without timestamp": ({"history": [{"load": 1.0}]}, 400, "no 'timestamp'"),
    "history not rows": ({"history": "1,2,3"}, 400, "must be a list of rows"),
    "quantiles of a point model": ({"history": _rows(), "quantiles": "0.1,0.9"}, 422, "quantile"),
    "naive time skipped by DST": (
        {"history": _naive("2023-03-26 11:00")},
        422,
        "the naive timestamp 2023-03-26 02:00:00 is read as local time in Europe/Berlin and "
        "does not exist there",
    ),
    "naive time repeated by DST": (
        {"history": _naive("2023-10-29 11:00")},
        422,
        "2023-10-29 02:00:00",
    ),
    "gap in the history": ({"history": _rows()[:100] + _rows()[101:]}, 422, "2023-03-"),
    "one row of history": (
        {"history": _rows(1)},
        422,
        "too little history: 1 rows, but at least 168 are needed",
    ),
    "rows without the target": (
        {"history": [{"timestamp": r["timestamp"]} for r in _rows()]},
        422,
        "field 'history': no row has the target 'load' (the model reads load; found ['timestamp'])",
    ),
    "rows with another column only": (
        {"history": [{"timestamp": r["timestamp"], "lod": r["load"]} for r in _rows()]},
        422,
        "no row has the target 'load'",
    ),
    "empty history": ({"history": []}, 400, "field 'history' has no rows"),
    "rows of empty objects": ({"history": [{}, {}]}, 400, "the rows have no 'timestamp' field"),
    "empty timestamp": ({"history": _edit(4, timestamp="")}, 400, "not a timestamp: '' at row 4"),
    "NaT timestamp": ({"history": _edit(4, timestamp="NaT")}, 400, "'NaT' at row 4"),
    "number past float64": (
        {"history": _edit(2, load=10**350)},
        400,
        "column 'load' holds a number too large for a float64 (over 1.8e308) at row 2",
    ),
    "horizon past the limit": (
        {"history": _rows(), "horizon": 10**9},
        400,
        "field 'horizon' is at most 10000 steps, got 1000000000",
    ),
    "id not a series id": (
        {"history": [dict(r, id={"a": 1}) for r in _rows()]},
        400,
        "column 'id' holds an object at row 0, expected a series id",
    ),
    "quantile out of (0, 1)": (
        {"history": _rows(), "quantiles": [0.1, 1.5]},
        400,
        "field 'quantiles': quantiles levels must lie strictly between 0 and 1, got 1.5",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_gets_4xx_and_one_line(served, case):
    server, _ = served
    body, status, message = BAD[case]
    got, answer = server.call("POST", "/forecast", body)
    assert got == status, answer
    assert list(answer) == ["error"] and "\n" not in answer["error"]
    assert message in answer["error"]


def _text(body):
    return json.dumps(body).encode()


_GOOD = _text({"history": _rows()})


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"history": [', "not JSON: Expecting value at line 1 column 14"),
        (b"", "body is empty"),
        (b"[1, 2]", "must be a JSON object"),
        (b"\xff\xfe", "not UTF-8 text: byte 0 is b'\\xff' (invalid start byte)"),
        (b'{"history": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nests deeper than 8 levels"),
        (b'{"a": ' + b'{"a": ' * 100_000 + b"1" + b"}" * 100_001, "nests deeper than 8 levels"),
        (_GOOD.replace(b'"load": ', b'"load": NaN, "x": ', 1), "holds NaN, which is not JSON"),
        (_GOOD.replace(b'"load": ', b'"load": -Infinity, "x": ', 1), "holds -Infinity"),
        (_GOOD.replace(b'"load": ', b'"load": ' + b"7" * 5000 + b', "x": ', 1), "5,000 digits"),
        (_GOOD[:-1] + b', "history": []}', "the key 'history' twice in one object"),
        (_GOOD.replace(b'"load": ', b'"load": 1, "load": ', 1), "the key 'load' twice"),
        (_GOOD.replace(b'"load"', b'"\\udc00"', 1), "lone UTF-16 surrogate"),
        (
            _GOOD.replace(b'"load"', b'"lo\xffad"', 1),
            f"not UTF-8 text: byte {_GOOD.index(b'load') + 2} is b'\\xff' (invalid start byte)",
        ),
    ],
)
def test_a_body_that_is_not_a_request_gets_400(served, raw, message):
    server, _ = served
    status, answer = server.call("POST", "/forecast", raw=raw)
    assert status == 400 and message in answer["error"], answer
    assert "\n" not in answer["error"]


@pytest.mark.parametrize(
    ("content_type", "status"),
    [
        ("application/json; charset=utf-8", 200),  # (none at all: urllib cannot send that)
        ("text/plain", 415),
        ("application/x-www-form-urlencoded", 415),  # what curl -d sends without -H
        ("application/json; charset=latin-1", 415),
    ],
)
def test_a_body_sent_as_another_type_gets_415(served, content_type, status):
    server, _ = served
    got, answer = server.call("POST", "/forecast", raw=_GOOD, content_type=content_type)
    assert got == status, answer
    if status == 415:
        assert "application/json" in answer["error"] or "not UTF-8" in answer["error"]


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads VmHWM from /proc")
@pytest.mark.parametrize(
    "head, tail", [(b"[", b"[]]"), (b'{"history": [', b"[]]}"), (b'{"history": [', b"{}]}")]
)
def test_a_60_mb_body_of_empty_lists_is_refused_without_parsing_it(served, head, tail):
    server, _ = served
    before = server.peak_rss_mib()
    status, answer = server.call("POST", "/forecast", raw=head + b"[]," * 20_000_000 + tail)
    grown = server.peak_rss_mib() - before
    assert status == 400
    assert "got a list" in answer["error"] or "more than 1,048,576 objects" in answer["error"]
    assert grown < 200, f"peak memory grew by {grown:.0f} MiB"  # parsed, it took 1.5 GiB


def test_unknown_paths_and_methods_answer_json(served):
    server, _ = served
    assert server.call("GET", "/predict") == (
        404,
        {"error": "no such path '/predict'; try POST /forecast or GET /health"},
    )
    assert server.call("GET", "/forecast") == (405, {"error": "GET is not allowed on /forecast"})
    status, body = server.call("GET", "/")
    assert status == 200 and set(body["endpoints"]) == {"POST /forecast", "GET /health"}


def test_concurrent_requests_each_get_their_own_forecast(served):
    server, est = served
    histories = [history_until(f"2023-03-{10 + i} {i + 4:02d}:00", seed=i) for i in range(8)]
    bodies = [{"history": rows(h), "horizon": 6 + i} for i, h in enumerate(histories)]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda b: server.call("POST", "/forecast", b), bodies))
    for i, (status, body) in enumerate(answers):
        assert status == 200, body
        assert_same(body, est.predict(horizon=6 + i, history=histories[i]))


def test_each_request_is_logged_with_status_and_milliseconds(served):
    server, _ = served
    server.call("GET", "/health")
    server.call("POST", "/forecast", {"history": _rows(20)})
    logged = "\n".join(server.lines)
    stamp = r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ "
    assert re.search(stamp + r"INFO forecast\.serve: GET /health 200 \d+\.\d ms$", logged, re.M)
    assert re.search(r"INFO forecast\.serve: POST /forecast 422 \d+\.\d ms$", logged, re.M)
