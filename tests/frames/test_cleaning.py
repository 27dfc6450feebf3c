"""frames.cleaning: zone, columns, grid and NaN policy of one series frame."""

import numpy as np
import pandas as pd
import pytest

from forecast.frames.cleaning import apply_nan_policy, conform, in_zone, target_columns
from tests.conftest import make_series


def test_in_zone_converts_aware_frames_and_keeps_the_same_one_otherwise():
    df = make_series(5, tz="UTC")
    assert in_zone(df, "UTC", None, "history") is df
    berlin = in_zone(df, "Europe/Berlin", None, "history")
    assert str(berlin.index.tz) == "Europe/Berlin" and (berlin.index == df.index).all()
    assert str(df.index.tz) == "UTC"  # the caller's frame is not changed
    with pytest.raises(ValueError, match="history has timestamps in time zone UTC but the model"):
        in_zone(df, None, None, "history")


def test_target_columns_are_the_non_covariates():
    df = make_series(3).assign(temp=1.0)
    assert target_columns(df, ["temp"]) == ["load"]
    with pytest.raises(ValueError, match=r"X has no target column: every column of \['load'"):
        target_columns(df, ["load", "temp"])


def test_conform_orders_columns_casts_and_checks_the_frequency():
    df = make_series(6).assign(temp=np.arange(6))[["temp", "load"]]
    out, freq = conform(df, None, ["load"], ["temp"], None, "X", False)
    assert list(out.columns) == ["load", "temp"] and out["temp"].dtype == float
    assert freq == pd.tseries.frequencies.to_offset("h")
    with pytest.raises(ValueError, match="series 'b': frequency 15min differs from h"):
        conform(make_series(6, freq="15min"), "b", ["load"], [], freq, "history", False)
    with pytest.raises(ValueError, match=r"X has unknown column\(s\) \['extra'\]"):
        conform(df.assign(extra=1.0), None, ["load"], ["temp"], None, "X", False)


def test_conform_fills_gaps_only_when_asked():
    df = make_series(10).drop(pd.Timestamp("2023-01-01 04:00"))
    with pytest.raises(ValueError, match="missing step"):
        conform(df, None, ["load"], [], None, "X", False)
    out, _ = conform(df, None, ["load"], [], None, "X", True)
    assert len(out) == 10 and np.isnan(out.loc["2023-01-01 04:00", "load"])


def test_nan_policy_raises_or_interpolates_targets_and_covariates():
    df = make_series(6).assign(temp=[1.0, np.nan, 3.0, 4.0, 5.0, 6.0])
    with pytest.raises(ValueError, match="covariate column 'temp' has 1 non-finite"):
        apply_nan_policy(df, None, ["load"], ["temp"], "raise")
    out = apply_nan_policy(df, None, ["load"], ["temp"], "interpolate")
    assert out["temp"].iloc[1] == pytest.approx(2.0) and np.isnan(df["temp"].iloc[1])
