"""A spec's [vintages] table: each origin reads the version of the covariates known then."""

import pandas as pd
import pytest

from forecast.frames.vintage_sources import daily_vintages
from forecast.specs.spec import read_spec, run_spec
from tests.conftest import make_series

SPEC = """
name = "vintages"
[data]
path = "{csv}"
timezone = "Europe/Berlin"
[backtest]
protocol = "day-ahead"
start = "2023-01-15"
end = "2023-01-20"
target = "load"
[vintages]
{vintages}
[models.tso]
model = "external"
column = "tso"
published = "10:00 D-1"
"""


@pytest.fixture
def files(tmp_path):
    df = make_series(24 * 21, tz="Europe/Berlin")
    df["tso"] = df["load"] + 0.5
    csv = tmp_path / "load.csv"
    df.rename_axis("timestamp").reset_index().to_csv(csv, index=False)
    revised = daily_vintages(df, ["tso"], time="14:00").assign(tso=lambda v: v.tso + 10.0)
    revised.to_csv(tmp_path / "revised.csv", index=False)  # a revision at 14:00: too late
    return tmp_path, csv


def _write(tmp_path, csv, vintages):
    path = tmp_path / "spec.toml"
    path.write_text(SPEC.format(csv=csv, vintages=vintages))
    return path


def test_daily_vintages_and_a_later_revision_file(files):
    tmp_path, csv = files
    both = (
        'daily = { columns = ["tso"], time = "10:00" }\npath = "'
        + str(tmp_path / "revised.csv")
        + '"'
    )
    table = run_spec(_write(tmp_path, csv, both), tmp_path / "out")
    assert table.loc["tso", "mae"] == pytest.approx(0.5)  # the 10:00 version, not the 14:00 one


def test_a_revision_known_before_noon_is_read(files):
    tmp_path, csv = files
    v = pd.read_csv(tmp_path / "revised.csv")
    v["issue_time"] = pd.to_datetime(v["issue_time"], utc=True) - pd.Timedelta("3h")  # 11:00
    v.to_csv(tmp_path / "at11.csv", index=False)
    body = 'daily = { columns = ["tso"] }\npath = "' + str(tmp_path / "at11.csv") + '"'
    table = run_spec(_write(tmp_path, csv, body), tmp_path / "out")
    assert table.loc["tso", "mae"] == pytest.approx(10.5)


@pytest.mark.parametrize(
    "body, match",
    [
        ("when = 3", r"\[vintages\] unknown key\(s\) \['when'\]"),
        ('daily = { columns = "tso" }', "daily.columns must be a list"),
        ('daily = { columns = ["tso"], time = "25:00" }', "daily.time: publication schedule"),
        ('daily = { columns = ["tso"], days_before = -1 }', "days_before must be an integer >= 0"),
        ('daily = { time = "10:00" }', "daily must be a table with `columns`"),
    ],
)
def test_a_bad_vintages_table_is_named_before_anything_runs(files, body, match):
    tmp_path, csv = files
    with pytest.raises(ValueError, match=match):
        read_spec(_write(tmp_path, csv, body))


def test_daily_columns_missing_from_the_data_are_named(files):
    tmp_path, csv = files
    with pytest.raises(ValueError, match=r"daily.columns \['weather'\] not in the data"):
        run_spec(_write(tmp_path, csv, 'daily = { columns = ["weather"] }'), tmp_path / "o")
