import gzip

import numpy as np
import pandas as pd
import pytest

from forecast.datasets import find_gaps, read_entsoe

TZ = "Europe/Berlin"


def value_of(utc):
    """A value that identifies its UTC timestamp (minutes since 2023-01-01)."""
    return np.asarray(
        (utc - pd.Timestamp("2023-01-01", tz="UTC")) // pd.Timedelta("1min"), dtype=np.int64
    )


def export_rows(start_local, end_local, step, values=value_of, zone="DE-LU", header_tz="CET/CEST"):
    """Lines of an ENTSO-E export between two local times, as the platform writes them.

    The skipped spring hour appears as rows with empty values; the repeated autumn hour
    appears twice (summer time first).
    """
    utc = pd.date_range(
        pd.Timestamp(start_local, tz=TZ),
        pd.Timestamp(end_local, tz=TZ),
        freq=step,
        inclusive="left",
    ).tz_convert("UTC")
    wall = utc.tz_convert(TZ).tz_localize(None)
    vals = values(utc)
    fmt = "%d.%m.%Y %H:%M"
    lines = [
        f'"Time ({header_tz})","Day-ahead Total Load Forecast [MW] - BZN|{zone}",'
        f'"Actual Total Load [MW] - BZN|{zone}"'
    ]
    step = pd.Timedelta(step)
    for i, (w, v) in enumerate(zip(wall, vals, strict=True)):
        if i and w - wall[i - 1] > step:  # spring forward: the platform lists the missing hour
            gap = wall[i - 1] + step
            while gap < w:
                lines.append(f'"{gap.strftime(fmt)} - {(gap + step).strftime(fmt)}","",""')
                gap += step
        fc = "N/A" if v is None else str(v + 1)
        ac = "" if v is None else str(v)
        lines.append(f'"{w.strftime(fmt)} - {(w + step).strftime(fmt)}","{fc}","{ac}"')
    return lines


def write(path, lines, compress=False):
    text = "\n".join(lines) + "\n"
    if compress:
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("step", ["15min", "30min", "1h"])
def test_dst_days_map_to_the_right_utc_instants(tmp_path, step):
    lines = (
        export_rows("2023-03-25", "2023-03-27", step)
        + export_rows("2023-10-28", "2023-10-30", step)[1:]
    )
    df = read_entsoe(write(tmp_path / "x.csv", lines))
    assert str(df.index.tz) == "UTC"
    assert df.index.freq == pd.Timedelta(step)
    assert not df.index.has_duplicates
    # 23-hour and 25-hour local days
    per_day = df.tz_convert(TZ)["actual"].notna().groupby(df.tz_convert(TZ).index.date).sum()
    per_hour = pd.Timedelta("1h") // pd.Timedelta(step)
    assert per_day[pd.Timestamp("2023-03-26").date()] == 23 * per_hour
    assert per_day[pd.Timestamp("2023-10-29").date()] == 25 * per_hour
    observed = df["actual"].dropna()
    assert (observed.to_numpy() == value_of(observed.index)).all()
    assert (df["forecast"].dropna().to_numpy() == value_of(df["forecast"].dropna().index) + 1).all()


def test_repeated_hour_resolved_by_row_order_even_with_missing_values(tmp_path):
    def values(utc):
        v = value_of(utc).astype(object)
        # blank the whole first copy of 02:00-03:00 and the first quarter of the second one
        blank = (utc >= pd.Timestamp("2023-10-29 00:00", tz="UTC")) & (
            utc < pd.Timestamp("2023-10-29 01:15", tz="UTC")
        )
        v[np.asarray(blank)] = None
        return v

    lines = export_rows("2023-10-29", "2023-10-30", "15min", values=values)
    df = read_entsoe(write(tmp_path / "x.csv", lines))
    assert len(df) == 100  # 25 hours of quarter-hours
    first_copy = pd.Timestamp("2023-10-29 00:00", tz="UTC")  # 02:00 CEST
    second_copy = pd.Timestamp("2023-10-29 01:15", tz="UTC")  # 02:15 CET
    assert np.isnan(df.loc[first_copy, "actual"])
    assert df.loc[second_copy, "actual"] == value_of(pd.DatetimeIndex([second_copy]))[0]
    gaps = find_gaps(df)
    assert gaps.loc["actual", "n_missing"] == 5
    assert gaps.loc["actual", "first"] == first_copy
    assert gaps.loc["actual", "last"] == pd.Timestamp("2023-10-29 01:00", tz="UTC")


def test_missing_markers_stay_nan_and_are_reported(tmp_path):
    lines = export_rows("2023-06-01", "2023-06-02", "1h")
    lines[3] = lines[3].rsplit(",", 1)[0] + ',"N/A"'
    lines[4] = lines[4].rsplit(",", 1)[0] + ',"-"'
    lines[5] = lines[5].rsplit(",", 1)[0] + ',"n/e"'
    df = read_entsoe(write(tmp_path / "x.csv.gz", lines, compress=True))
    assert df["actual"].isna().sum() == 3
    assert (df["actual"].fillna(-1) != 0).all()  # never filled with zeros
    gaps = df.attrs["gaps"]["actual"]
    assert gaps["n_missing"] == 3
    assert pd.Timestamp(gaps["first"]) == pd.Timestamp("2023-06-01 02:00", tz=TZ)
    assert pd.Timestamp(gaps["last"]) == pd.Timestamp("2023-06-01 04:00", tz=TZ)


def test_many_files_zones_and_missing_rows(tmp_path):
    a = write(tmp_path / "a.csv", export_rows("2018-09-30", "2018-10-01", "1h", zone="DE-AT-LU"))
    # the second file starts one day later: a missing day between files becomes NaN rows
    b = write(tmp_path / "b.csv.gz", export_rows("2018-10-02", "2018-10-03", "1h"), compress=True)
    df = read_entsoe([b, a])
    assert df.index[0] == pd.Timestamp("2018-09-30", tz=TZ)
    assert len(df) == 3 * 24 and df.index.freq == pd.Timedelta("1h")
    assert df.loc["2018-10-01", "actual"].isna().sum() == 22  # 22:00Z on 30 Sep .. 21:00Z on 1 Oct
    zones = df.attrs["zones"]
    assert [z["zone"] for z in zones] == ["DE-AT-LU", "DE-LU"]
    assert pd.Timestamp(zones[0]["end"]) == pd.Timestamp("2018-09-30 23:00", tz=TZ)
    assert pd.Timestamp(zones[1]["start"]) == pd.Timestamp("2018-10-02 00:00", tz=TZ)
    assert list(df.columns) == ["actual", "forecast"]
    assert all(dtype == np.float64 for dtype in df.dtypes)


def test_folder_and_utc_header(tmp_path):
    lines = export_rows("2023-03-26", "2023-03-27", "1h", header_tz="UTC")
    # a UTC export has no DST rows: rebuild the intervals in UTC
    utc = pd.date_range("2023-03-26", periods=24, freq="h")
    lines = [lines[0]] + [
        f'"{t:%d.%m.%Y %H:%M} - {t + pd.Timedelta("1h"):%d.%m.%Y %H:%M}","1","{i}"'
        for i, t in enumerate(utc)
    ]
    write(tmp_path / "utc.csv", lines)
    df = read_entsoe(tmp_path)
    assert df.index[0] == pd.Timestamp("2023-03-26", tz="UTC") and len(df) == 24
    assert df["actual"].tolist() == list(range(24))


def test_overlapping_files_raise(tmp_path):
    a = write(tmp_path / "a.csv", export_rows("2023-01-01", "2023-01-02", "1h"))
    b = write(tmp_path / "b.csv", export_rows("2023-01-01 12:00", "2023-01-03", "1h"))
    with pytest.raises(ValueError, match="duplicated timestamp.*2023-01-01 11:00:00"):
        read_entsoe([a, b])


def test_mixed_resolution_raises(tmp_path):
    a = write(tmp_path / "a.csv", export_rows("2023-01-01", "2023-01-02", "1h"))
    b = write(tmp_path / "b.csv", export_rows("2023-01-02", "2023-01-03", "15min"))
    with pytest.raises(ValueError, match="different resolutions"):
        read_entsoe([a, b])


def test_bad_cell_names_file_column_and_row(tmp_path):
    lines = export_rows("2023-01-01", "2023-01-02", "1h")
    lines[5] = lines[5].rsplit(",", 1)[0] + ',"12x"'
    with pytest.raises(ValueError, match=r"x\.csv: column 'Actual Total Load.*row 6.*'12x'"):
        read_entsoe(write(tmp_path / "x.csv", lines))


def test_missing_path_raises(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        read_entsoe(tmp_path / "nope.csv")


# ------------------------------------------------------------------ real data
@pytest.fixture(scope="module")
def entsoe_de():
    from tests.conftest import DATA_DIR

    folder = DATA_DIR / "entsoe_de_load_15min"
    if not folder.is_dir():
        pytest.skip(f"{folder} not found (set FORECAST_DATA_DIR)")
    return read_entsoe(folder)


def test_real_germany_2015_2023(data_dir, entsoe_de):
    df = entsoe_de
    assert df.index.freq == pd.Timedelta("15min") and not df.index.has_duplicates
    local = df.tz_convert(TZ)
    rows = local.groupby(local.index.year).size()
    assert rows.to_dict() == {
        2015: 35040,
        2016: 35136,
        2017: 35040,
        2018: 35040,
        2019: 35040,
        2020: 35136,
        2021: 35040,
        2022: 35040,
        2023: 35040,
    }
    y2023 = local.loc["2023", "actual"]
    assert y2023.notna().sum() == 35040
    assert y2023.mean() == pytest.approx(52862, abs=0.5)
    gaps = find_gaps(df)
    # Q4 2018 is "n/e" in the source (8836 quarter-hours) plus 20 single missing values
    assert gaps.loc["actual", "n_missing"] == 8856
    assert gaps.loc["actual", "longest"] == 8836
    assert gaps.loc["actual", "last"] == pd.Timestamp("2018-12-31 23:45", tz=TZ)
    zones = df.attrs["zones"]
    assert [z["zone"] for z in zones] == ["DE-AT-LU", "DE-LU"]
    assert pd.Timestamp(zones[0]["end"]) == pd.Timestamp("2018-09-30 23:45", tz=TZ)


def test_real_switzerland_hourly(data_dir):
    df = read_entsoe(data_dir / "entsoe_ch_load_hourly")
    assert df.shape == (84719, 2) and df.index.freq == pd.Timedelta("1h")
    assert df.index[-1] == pd.Timestamp("2024-08-30 21:00", tz="UTC")
    assert df["actual"].isna().sum() == 1 and df["forecast"].isna().sum() == 72
    assert df.attrs["zones"][0]["zone"] == "CH"


def test_area_column_layout(tmp_path):
    lines = [
        '"MTU (CET/CEST)","Area","Day-ahead Total Load Forecast (MW)","Actual Total Load (MW)"'
    ]
    for h in range(3):
        lines.append(
            f'"01.07.2023 {h:02d}:00 - 01.07.2023 {h + 1:02d}:00","BZN|DE-LU","{h + 10}","{h}"'
        )
    df = read_entsoe(write(tmp_path / "new.csv", lines))
    assert df.index[0] == pd.Timestamp("2023-06-30 22:00", tz="UTC")
    assert df["actual"].tolist() == [0, 1, 2] and df["forecast"].tolist() == [10, 11, 12]
    assert df.attrs["zones"][0]["zone"] == "DE-LU"
