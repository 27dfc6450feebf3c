import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forecast.frames.vintage_sources import (
    daily_vintages,
    perfect_vintages,
    simulate_vintages,
)
from forecast.frames.vintages import as_of, available_at, check_vintages, split_vintages

ZONE = "Europe/Berlin"


def _vintages(issues, valid, values, zone=ZONE):
    return pd.DataFrame(
        {
            "issue_time": pd.DatetimeIndex(issues).tz_localize(zone),
            "valid_time": pd.DatetimeIndex(valid).tz_localize(zone),
            "temp": values,
        }
    )


def test_as_of_reads_the_latest_issue_at_or_before_the_origin():
    v = _vintages(
        ["2023-01-01 00:00", "2023-01-01 06:00", "2023-01-01 12:00", "2023-01-01 06:00"],
        ["2023-01-02 00:00", "2023-01-02 00:00", "2023-01-02 00:00", "2023-01-02 01:00"],
        [1.0, 2.0, 3.0, 4.0],
    )
    v = check_vintages(v, ["temp"], ZONE)
    steps = pd.date_range("2023-01-02", periods=2, freq="h", tz=ZONE)
    at_noon = as_of(v, pd.Timestamp("2023-01-01 12:00", tz=ZONE), steps, ["temp"], issues=True)
    assert at_noon["temp"].tolist() == [3.0, 4.0]  # issued exactly at the origin counts
    at_11 = as_of(v, pd.Timestamp("2023-01-01 11:59", tz=ZONE), steps, ["temp"])
    assert at_11["temp"].tolist() == [2.0, 4.0]
    assert list(at_noon.index) == list(steps)
    assert at_noon["issue_time"].iloc[1] == pd.Timestamp("2023-01-01 06:00", tz=ZONE)


def test_as_of_names_the_step_without_a_vintage():
    v = check_vintages(_vintages(["2023-01-01 12:00"], ["2023-01-02 00:00"], [1.0]), ["temp"], ZONE)
    steps = pd.date_range("2023-01-02", periods=2, freq="h", tz=ZONE)
    with pytest.raises(ValueError, match=r"valid time 2023-01-02 01:00:00\+01:00"):
        as_of(v, pd.Timestamp("2023-01-01 12:00", tz=ZONE), steps, ["temp"])
    with pytest.raises(ValueError, match="first vintage was issued at 2023-01-01 12:00"):
        as_of(v, pd.Timestamp("2023-01-01 11:00", tz=ZONE), steps[:1], ["temp"])


def test_check_vintages_reads_naive_stamps_as_local_time_and_strings_with_offsets():
    frame = pd.DataFrame(
        {
            "issue_time": ["2023-03-25T10:00+01:00", "2023-03-25T10:00+01:00"],
            "valid_time": ["2023-03-26 01:00", "2023-03-26 03:00"],
            "temp": [1, 2],
        }
    )
    before = frame.copy()
    out = check_vintages(frame, ["temp"], ZONE)
    pd.testing.assert_frame_equal(frame, before)  # input unchanged
    assert str(out["valid_time"].dt.tz) == ZONE
    assert out["valid_time"].iloc[1] - out["valid_time"].iloc[0] == pd.Timedelta("1h")
    skipped = frame.assign(valid_time=["2023-03-26 01:00", "2023-03-26 02:30"])
    with pytest.raises(ValueError, match="2023-03-26 02:30"):
        check_vintages(skipped, ["temp"], ZONE)


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda f: f.drop(columns="issue_time"), "needs the columns 'issue_time'"),
        (lambda f: f.drop(columns="temp"), r"lack the declared future covariate\(s\) \['temp'\]"),
        (lambda f: f.assign(temp=[1.0, np.inf]), "'temp' is not a finite number"),
        (lambda f: f.assign(temp=[1.0, "warm"]), "'temp' is not a finite number"),
        (lambda f: f.assign(valid_time=[f.valid_time[0]] * 2), "has two values issued at"),
        (lambda f: f.assign(issue_time=[f.issue_time[0], None]), "is empty in row 1"),
    ],
)
def test_check_vintages_refuses_bad_frames_by_name(change, match):
    frame = _vintages(
        ["2023-01-01 00:00", "2023-01-01 00:00"], ["2023-01-02 00:00", "2023-01-02 01:00"], [1, 2]
    )
    with pytest.raises(ValueError, match=match):
        check_vintages(change(frame), ["temp"], ZONE)


def test_rows_without_any_declared_value_belong_to_other_covariates():
    frame = _vintages(
        ["2023-01-01"] * 3, ["2023-01-02", "2023-01-03", "2023-01-02"], [1.0, 2.0, np.nan]
    )
    frame["tso"] = [np.nan, np.nan, 5.0]
    assert check_vintages(frame, ["temp"], ZONE)["temp"].tolist() == [1.0, 2.0]
    assert check_vintages(frame, ["tso"], ZONE)["tso"].tolist() == [5.0]
    with pytest.raises(ValueError, match=r"'temp' is not a finite number .* issued .*: nan$"):
        check_vintages(frame, ["temp", "tso"], ZONE)


def test_aware_vintages_for_a_naive_model_are_refused():
    frame = _vintages(["2023-01-01"], ["2023-01-02"], [1.0])
    with pytest.raises(ValueError, match="naive timestamps"):
        check_vintages(frame, ["temp"], None)


def test_split_vintages_by_id_and_shared_without_id():
    frame = _vintages(["2023-01-01"] * 2, ["2023-01-02", "2023-01-03"], [1.0, 2.0])
    shared = split_vintages(check_vintages(frame, ["temp"], ZONE), ["a", "b"])
    assert len(shared["a"]) == len(shared["b"]) == 2
    by_id = split_vintages(check_vintages(frame.assign(id=["a", "b"]), ["temp"], ZONE), ["a", "b"])
    assert by_id["a"]["temp"].tolist() == [1.0] and by_id["b"]["temp"].tolist() == [2.0]


def test_available_at_delays_the_issue_and_refuses_negative_delays():
    frame = _vintages(["2023-01-01 00:00"], ["2023-01-02"], [1.0])
    later = available_at(frame, "5h")
    assert later["issue_time"].iloc[0] == pd.Timestamp("2023-01-01 05:00", tz=ZONE)
    assert frame["issue_time"].iloc[0] == pd.Timestamp("2023-01-01 00:00", tz=ZONE)
    with pytest.raises(ValueError, match="delay must be >= 0"):
        available_at(frame, "-1h")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 95), min_size=1, max_size=12),  # issue hours
    st.integers(24, 71),  # origin hour
    st.floats(-50, 50),
)
def test_no_vintage_issued_after_the_origin_is_ever_read(issue_hours, origin_hour, shift):
    """Changing every vintage issued after the origin never changes what the origin reads."""
    start = pd.Timestamp("2023-03-24", tz=ZONE)  # spans the switch to summer time
    rows = []
    for h in sorted(set(issue_hours)):
        issue = start + pd.Timedelta(hours=h)
        for lead in range(1, 49):
            rows.append((issue, issue + pd.Timedelta(hours=lead), float(h * 100 + lead)))
    v = pd.DataFrame(rows, columns=["issue_time", "valid_time", "temp"])
    origin = start + pd.Timedelta(hours=origin_hour)
    steps = pd.date_range(origin + pd.Timedelta("1h"), periods=24, freq="h")
    changed = v.assign(temp=np.where(v["issue_time"] > origin, v["temp"] + shift + 1e3, v["temp"]))
    try:
        before = as_of(check_vintages(v, ["temp"], ZONE), origin, steps, ["temp"], issues=True)
    except ValueError:
        with pytest.raises(ValueError, match="no vintage"):
            as_of(check_vintages(changed, ["temp"], ZONE), origin, steps, ["temp"])
        return
    after = as_of(check_vintages(changed, ["temp"], ZONE), origin, steps, ["temp"])
    pd.testing.assert_series_equal(before["temp"], after["temp"])
    assert (before["issue_time"] <= origin).all()
    # the latest issue at or before the origin that covers each step, by hand
    for t, row in before.iterrows():
        covering = [i for i, vt, _ in rows if vt == t and i <= origin]
        assert row["issue_time"] == max(covering)


def test_daily_vintages_publish_day_d_at_ten_on_d_minus_1_local_time():
    index = pd.date_range("2023-03-25", periods=72, freq="h", tz=ZONE)
    frame = pd.DataFrame({"forecast": np.arange(72.0)}, index=index)
    v = daily_vintages(frame, ["forecast"], time="10:00")
    issue = v.set_index("valid_time")["issue_time"]
    assert issue[pd.Timestamp("2023-03-26 23:00", tz=ZONE)] == pd.Timestamp(
        "2023-03-25 10:00", tz=ZONE
    )
    assert issue[pd.Timestamp("2023-03-27 00:00", tz=ZONE)] == pd.Timestamp(
        "2023-03-26 10:00", tz=ZONE
    )
    # at a 12:00 origin on D-1 all of day D is known; at 09:00 none of it
    steps = pd.date_range("2023-03-27", periods=24, freq="h", tz=ZONE)
    ok = as_of(
        check_vintages(v, ["forecast"], ZONE), steps[0] - pd.Timedelta("12h"), steps, ["forecast"]
    )
    assert ok["forecast"].tolist() == frame.loc[steps, "forecast"].tolist()
    with pytest.raises(ValueError, match="no vintage"):
        as_of(
            check_vintages(v, ["forecast"], ZONE),
            steps[0] - pd.Timedelta("15h"),
            steps,
            ["forecast"],
        )


def test_simulated_vintage_errors_grow_with_lead_and_are_labelled():
    index = pd.date_range("2022-01-01", periods=24 * 400, freq="h", tz="UTC")
    observed = pd.Series(10.0, index=index, name="temperature_2m")
    issues = pd.date_range("2022-01-01 06:00", periods=390, freq="D", tz="UTC")
    v = simulate_vintages(observed, issues, "48h", error_sd=(0.5, 1.0), random_state=1)
    assert "simulated" in v.attrs["vintages"]
    lead = (v["valid_time"] - v["issue_time"]) / pd.Timedelta("1D")
    err = v["temperature_2m"] - 10.0
    near, far = err[lead <= 0.25].std(), err[lead > 1.75].std()
    # sd = 0.5 + 1.0 * lead: about 0.6 near lead 0.125 days, about 2.4 near lead 1.9 days
    assert 0.5 < near < 0.75 and 2.1 < far < 2.7
    assert (v["valid_time"] > v["issue_time"]).all()
    again = simulate_vintages(observed, issues, "48h", error_sd=(0.5, 1.0), random_state=1)
    pd.testing.assert_frame_equal(v, again)


def test_perfect_vintages_are_the_observations_and_say_so():
    index = pd.date_range("2023-01-01", periods=48, freq="h", tz=ZONE)
    frame = pd.DataFrame({"temp": np.arange(48.0)}, index=index)
    v = perfect_vintages(frame, ["temp"])
    assert "upper bound" in v.attrs["vintages"]
    got = as_of(check_vintages(v, ["temp"], ZONE), index[0], index[1:], ["temp"])
    assert got["temp"].tolist() == list(np.arange(1.0, 48.0))
