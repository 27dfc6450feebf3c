"""One rule for naive timestamps on every path: they are local times in the model's zone.

A model fitted on aware data reads naive stamps (history, origins, future covariates, files
read with a zone, pyfunc and service requests, batch input files) as wall-clock times in its
own zone; a local time the zone skips or repeats is refused, named. A model fitted on naive
data with a ``timezone`` reads its own stamps the same way, so a forecast step its clock
cannot name is refused too, instead of forecasting a time that does not exist.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forecast.frames.io import read_frame
from forecast.frames.requests import to_history
from forecast.frames.timezones import localize_naive
from forecast.models.baselines import LinearLagForecaster, Naive, SeasonalNaive

BERLIN = "Europe/Berlin"


def local_series(start: str, n: int, tz: str | None = BERLIN) -> pd.DataFrame:
    """Hourly load over ``n`` instants from local ``start`` (aware in ``tz``)."""
    index = pd.date_range(pd.Timestamp(start, tz=tz), periods=n, freq="h", name="time")
    values = 100 + 10 * np.sin(np.arange(n) * 2 * np.pi / 24) + np.arange(n) * 0.01
    return pd.DataFrame({"load": values}, index=index)


def test_naive_history_equals_the_aware_one_in_the_model_zone():
    data = local_series("2023-03-20", 24 * 8)  # across the spring change
    model = SeasonalNaive(season="1D").fit(data)
    naive = data.tz_localize(None)
    before = naive.copy()
    got = model.predict(horizon=30, history=naive)
    pd.testing.assert_frame_equal(got, model.predict(horizon=30, history=data))
    pd.testing.assert_frame_equal(naive, before)  # the input frame is not changed
    assert str(got.index.tz) == BERLIN


def test_the_autumn_repeated_hour_needs_offsets():
    data = local_series("2023-10-23", 24 * 8)  # across the autumn change: 02:00 twice
    model = Naive().fit(data)
    with pytest.raises(ValueError, match="2023-10-29 02:00:00 .* occurs twice there"):
        model.predict(horizon=2, history=data.tz_localize(None).drop_duplicates())
    request = data.reset_index()  # what forecast batch writes and a service client sends
    request["timestamp"] = [t.isoformat() for t in request.pop("time")]
    assert list(request["timestamp"][145:148]) == [
        "2023-10-29T01:00:00+02:00",
        "2023-10-29T02:00:00+02:00",
        "2023-10-29T02:00:00+01:00",
    ]
    history = to_history(request, model)
    assert history.index.equals(data.index)
    naive = request.assign(timestamp=[t[:19] for t in request["timestamp"]])
    with pytest.raises(ValueError, match="'timestamp' column's timestamps: the naive timestamp"):
        to_history(naive, model)


def test_origins_and_files_follow_the_same_rule(tmp_path):
    data = local_series("2023-03-20", 24 * 8)
    model = Naive().fit(data)
    naive_origin = [pd.Timestamp("2023-03-27 12:00")]
    aware_origin = [pd.Timestamp("2023-03-27 12:00", tz=BERLIN)]
    pd.testing.assert_frame_equal(
        model.predict_origins(data, naive_origin, 3),
        model.predict_origins(data, aware_origin, 3),
    )
    path = tmp_path / "local.csv"
    data.tz_localize(None).to_csv(path)
    assert read_frame(path, timezone=BERLIN).index.equals(data.index)


def test_a_naive_model_with_a_zone_never_forecasts_a_skipped_hour():
    naive = local_series("2023-03-20", 24 * 5 + 1, tz=None)  # ends 2023-03-25 00:00
    model = LinearLagForecaster(lags=24, seasonal_lags=(), timezone=BERLIN).fit(naive)
    model.predict(horizon=25)  # up to 2023-03-26 01:00: every step exists
    with pytest.raises(ValueError, match=r"forecast: the naive timestamp 2023-03-26 02:00:00"):
        model.predict(horizon=26)
    unzoned = LinearLagForecaster(lags=24, seasonal_lags=()).fit(naive)  # no zone: naive clock
    assert len(unzoned.predict(horizon=26)) == 26


@settings(max_examples=60, deadline=None)
@given(
    start=st.datetimes(
        min_value=pd.Timestamp("2022-01-01").to_pydatetime(),
        max_value=pd.Timestamp("2024-12-31").to_pydatetime(),
    ),
    n=st.integers(1, 72),
    zone=st.sampled_from([BERLIN, "America/Santiago", "America/Havana", "Asia/Beirut", "UTC"]),
)
def test_localize_naive_is_exact_or_names_the_stamp(start, n, zone):
    stamps = pd.date_range(pd.Timestamp(start).floor("h"), periods=n, freq="h")
    try:
        local = localize_naive(stamps, zone, "history")
    except ValueError as err:
        bad = stamps.tz_localize(zone, ambiguous="NaT", nonexistent="NaT").isna()
        assert bad.any()
        first = stamps[int(np.argmax(bad))]
        assert f"history: the naive timestamp {first} is read as local time in {zone}" in str(err)
        return
    assert local.tz_localize(None).equals(stamps)  # the same wall-clock times
    assert str(local.tz) == zone


def test_batch_reads_a_naive_file_alike_from_a_folder_and_from_mlflow(tmp_path, new_store):
    from forecast.batch.run import run_batch  # batch imports MLflow: only this test needs it
    from forecast.tracking import track_fit  # idem

    store = new_store("naive-rule")
    data = local_series("2023-03-20", 24 * 8)
    model = SeasonalNaive(season="1D")
    cb = track_fit(model, data, experiment="naive", tracking_uri=store, log_model=True)
    model.save(tmp_path / "folder")
    path = tmp_path / "local.csv"  # local wall-clock times without offsets, across the change
    data.tz_localize(None).to_csv(path)
    before = path.read_bytes()
    paths = {}
    for name, uri in [("folder", tmp_path / "folder"), ("mlflow", f"runs:/{cb.run_id}/model")]:
        out = tmp_path / f"{name}.csv"
        run_batch(uri, path, out, 24, tracking_uri=store, track=False)
        paths[name] = out.read_text()
    assert paths["folder"] == paths["mlflow"]
    assert path.read_bytes() == before
    expected = model.predict(horizon=24, history=data)
    assert paths["folder"].splitlines()[1].startswith(expected.index[0].isoformat())
