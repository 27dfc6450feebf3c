import numpy as np
import pandas as pd
import pytest

from forecast.datasets import read_smard

TZ = "Europe/Berlin"
HEADER_DE = (
    "Datum;Anfang;Ende;Gesamt (Netzlast) [MWh] Originalauflösungen;"
    "Residuallast [MWh] Originalauflösungen;Pumpspeicher [MWh] Originalauflösungen"
)


def german(x):
    """45123.25 -> '45.123,25' (German thousands and decimal separators)."""
    return f"{x:,.2f}".replace(",", "_").replace(".", ",").replace("_", ".")


def smard_download(path, start_local, end_local, step="1h"):
    utc = pd.date_range(
        pd.Timestamp(start_local, tz=TZ),
        pd.Timestamp(end_local, tz=TZ),
        freq=step,
        inclusive="left",
    ).tz_convert("UTC")
    wall = utc.tz_convert(TZ).tz_localize(None)
    load = 40000 + (utc - utc[0]) / pd.Timedelta("1h") * 10.25  # identifies the UTC hour
    lines = [HEADER_DE]
    for i, (w, x) in enumerate(zip(wall, load, strict=True)):
        end = w + pd.Timedelta(step)
        pump = "-" if i == 3 else german(-100.5)
        lines.append(f"{w:%d.%m.%Y};{w:%H:%M};{end:%H:%M};{german(x)};{german(x - 20000)};{pump}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return utc, np.asarray(load)


def test_smard_download_with_dst(tmp_path):
    utc1, load1 = smard_download(tmp_path / "a.csv", "2023-03-25", "2023-03-27")
    df = read_smard(tmp_path / "a.csv")
    assert list(df.columns) == ["grid_load_MWh", "residual_load_MWh", "pumped_storage_MWh"]
    assert str(df.index.tz) == "UTC" and df.index.freq == pd.Timedelta("1h")
    assert len(df) == 47  # 24 + 23 hours
    assert (df.index == utc1).all()
    assert np.allclose(df["grid_load_MWh"], load1)
    assert df["grid_load_MWh"].iloc[0] == 40000.0 and df["grid_load_MWh"].iloc[1] == 40010.25
    assert np.isnan(df["pumped_storage_MWh"].iloc[3]) and df["pumped_storage_MWh"].iloc[4] == -100.5
    assert df.attrs["gaps"]["pumped_storage_MWh"]["n_missing"] == 1


def test_smard_download_autumn_repeated_hour(tmp_path):
    utc, load = smard_download(tmp_path / "b.csv", "2023-10-28", "2023-10-30")
    text = (tmp_path / "b.csv").read_text(encoding="utf-8")
    assert text.count("29.10.2023;02:00;03:00") == 2  # the fixture has the repeated hour
    df = read_smard(tmp_path / "b.csv", area="TenneT")
    assert len(df) == 49 and not df.index.has_duplicates
    assert (df.index == utc).all() and np.allclose(df["TenneT_grid_load_MWh"], load)


def test_smard_download_english_and_gzip(tmp_path):
    import gzip

    lines = [
        "Date;Start;End;Total (grid load) [MWh] Calculated resolutions",
        "Jan 1, 2023;12:00 AM;1:00 AM;41,234.50",
        "Jan 1, 2023;1:00 AM;2:00 AM;-",
        "Jan 1, 2023;2:00 AM;3:00 AM;39,000.25",
    ]
    with gzip.open(tmp_path / "e.csv.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    df = read_smard(tmp_path / "e.csv.gz")
    assert df.index[0] == pd.Timestamp("2022-12-31 23:00", tz="UTC")
    assert df["grid_load_MWh"].iloc[0] == 41234.5 and np.isnan(df["grid_load_MWh"].iloc[1])


def test_smard_bad_number_names_column_and_row(tmp_path):
    smard_download(tmp_path / "c.csv", "2023-01-01", "2023-01-02")
    lines = (tmp_path / "c.csv").read_text(encoding="utf-8").splitlines()
    lines[4] = lines[4].replace(lines[4].split(";")[3], "abc")
    (tmp_path / "c.csv").write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(ValueError, match=r"c\.csv: column 'Gesamt \(Netzlast\).*row 5 holds 'abc'"):
        read_smard(tmp_path / "c.csv")


def test_smard_unknown_layout(tmp_path):
    (tmp_path / "d.csv").write_text("Zeit;Wert\n01.01.2023 00:00;1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown SMARD layout"):
        read_smard(tmp_path / "d.csv")


def test_staged_smard_csv(data_dir):
    df = read_smard(
        data_dir / "smard_de_tso_load_hourly" / "smard_de_grid_load_hourly_2015_2023.csv.gz"
    )
    assert df.shape == (78894, 18)
    assert df.index[0] == pd.Timestamp("2014-12-31 23:00", tz="UTC")
    assert df.index.freq == pd.Timedelta("1h")
    tso = ["50Hertz", "Amprion", "TenneT", "TransnetBW"]
    assert df[[f"{a}_grid_load_MWh" for a in tso]].notna().all().all()
    assert df.attrs["gaps"]["TenneT_grid_load_MWh"]["n_missing"] == 0
    assert df.loc[:"2018-09-30 21:00", "DE_AT_LU_grid_load_MWh"].notna().all()
