"""Request bodies to frames, in process: any JSON either reads exactly or fails as PayloadError."""

from __future__ import annotations

import copy
import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forecast.serve.payload import PayloadError, parse_request, rows_frame

STAMPS = pd.date_range("2023-03-25 20:00", periods=12, freq="h", tz="Europe/Berlin")
JSON_VALUES = st.one_of(
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(-(10**6), 10**6),
    st.text(max_size=3),
    st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(JSON_VALUES, min_size=1, max_size=12), offsets=st.booleans())
def test_rows_read_exactly_or_fail_naming_the_row(values, offsets):
    rows = [
        {"timestamp": (t.isoformat() if offsets else t.tz_localize(None).isoformat()), "load": v}
        for t, v in zip(STAMPS, values, strict=False)
    ]
    before = copy.deepcopy(rows)
    bad = [i for i, v in enumerate(values) if isinstance(v, str | bool)]
    if bad:
        with pytest.raises(PayloadError, match=f"not a number at row {bad[0]}: "):
            rows_frame(rows, "history")
    else:
        frame = rows_frame(rows, "history")
        got = frame["load"].tolist()
        assert [None if math.isnan(x) else x for x in got] == [
            None if v is None else float(v) for v in values
        ]
        stamps = pd.DatetimeIndex(frame["timestamp"])
        expected = STAMPS[: len(values)]
        assert (stamps == (expected if offsets else expected.tz_localize(None))).all()
    assert rows == before  # the caller's rows are not changed


@settings(max_examples=60, deadline=None)
@given(
    body=st.recursive(
        JSON_VALUES,
        lambda c: st.lists(c) | st.dictionaries(st.text().filter(lambda k: k != "history"), c),
    )
)
def test_a_body_without_history_is_refused_with_one_line(body):
    with pytest.raises(PayloadError) as info:
        parse_request(body, estimator=None)
    assert "\n" not in str(info.value)


def test_vintages_field_becomes_a_vintage_frame_read_at_the_origin():
    from forecast.models.baselines import ExternalForecast

    index = pd.date_range("2023-03-24", periods=48, freq="h", tz="Europe/Berlin")
    frame = pd.DataFrame({"load": range(48), "forecast": range(48)}, index=index, dtype=float)
    model = ExternalForecast(column="forecast").fit(frame.iloc[:36])
    history = [{"timestamp": t.isoformat(), "load": v, "forecast": v}
               for t, v in zip(index[:36], range(36), strict=True)]  # fmt: skip
    vintages = [
        {"issue_time": issue, "timestamp": t.isoformat(), "forecast": value}
        for issue, value in (("2023-03-25T06:00:00+01:00", 1.0), ("2023-03-25T13:00:00+01:00", 2.0))
        for t in index[36:]
    ]
    body = {"history": history, "horizon": 12, "vintages": vintages}
    before = copy.deepcopy(body)
    request = parse_request(body, model)
    assert body == before  # the caller's body is not changed
    got = model.predict(request.horizon, history=request.history, future=request.future)
    assert got["load"].tolist() == [1.0] * 12  # 06:00 issue; the 13:00 one is after 11:00


@pytest.mark.parametrize(
    "vintages, match",
    [
        (
            [{"timestamp": "2023-03-25T12:00:00+01:00", "forecast": 1.0}],
            "each with an 'issue_time'",
        ),
        ("rows", "must be a list of rows"),
    ],
)
def test_bad_vintages_fields_are_named(vintages, match):
    from forecast.models.baselines import ExternalForecast

    index = pd.date_range("2023-03-24", periods=24, freq="h", tz="Europe/Berlin")
    frame = pd.DataFrame({"load": range(24), "forecast": range(24)}, index=index, dtype=float)
    model = ExternalForecast(column="forecast").fit(frame)
    history = [{"timestamp": index[0].isoformat(), "load": 1.0, "forecast": 1.0}]
    with pytest.raises(PayloadError, match=match):
        parse_request({"history": history, "vintages": vintages}, model)
