"""The bad-input corpus: every way a user can hand over wrong data or settings.

Each case is a small builder ``name(tmp_path, *fixtures) -> Call`` registered with
``@case(error, fragment)``; parameters after ``tmp_path`` name pytest fixtures (module-scoped
ones fit a model once). The one test of a module runs every case of its corpus and asserts

* the call raises ``error`` with a message matching ``fragment`` (naming the column,
  timestamp, series or file at fault),
* the inputs listed in the ``Call`` are unchanged (deep copies taken before the call),
* every file in ``tmp_path`` is as before (same names, same SHA-256): no file was left,
  changed or removed, and no path of ``Call.absent`` (a marker that code was run) exists.

A ``command`` case runs the ``forecast`` command in-process: it must exit non-zero, print
nothing on stdout and exactly one line on stderr; it "raises" :class:`CommandFailed` with
the message ``exit N: <that line>``.

This module holds the machinery and the cases on data in memory: frames and parameters
(sections: containers, index, values, lengths, horizon, time zones, future covariates,
columns, long frames, parameters, origins and backtests). Everything that reads or writes
files (data files, datasets, saved model folders, model URIs, the CLI and batch runs) is in
``test_bad_inputs_files.py``, which imports this machinery with a :class:`Corpus` of its own.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from forecast import (
    GRUForecaster,
    LinearLagForecaster,
    Naive,
    SeasonalNaive,
    TransformerForecaster,
    backtest,
)
from tests.conftest import make_series

# ------------------------------------------------------------------------- the machinery


@dataclass
class Call:
    """A call that must fail, the inputs it must leave as they were, paths it must not create.

    ``command=True``: ``run`` returns an exit code (see :func:`command`).
    """

    run: Callable[[], object]
    inputs: tuple = ()
    absent: tuple[Path, ...] = ()
    command: bool = False


@dataclass(frozen=True)
class Case:
    build: Callable[..., Call]
    error: type[BaseException]
    match: str
    marks: tuple = ()
    fixtures: tuple[str, ...] = ()


class CommandFailed(Exception):
    """What a failed ``command`` case raises: ``exit N: <its one line on stderr>``."""


class Corpus:
    """The cases of one test module, run by its ``test_bad_input``."""

    def __init__(self) -> None:
        self.cases: dict[str, Case] = {}

    def add(self, name: str, error: type[BaseException], match: str, build, marks=()) -> None:
        """Register ``build`` as the case ``name``."""
        assert name not in self.cases, f"duplicate case {name}"
        fixtures = tuple(inspect.signature(build).parameters)[1:]  # after tmp_path
        self.cases[name] = Case(build, error, match, tuple(marks), fixtures)

    def case(self, error: type[BaseException], match: str, marks: tuple = ()):
        """Register the decorated builder as a case named after it."""

        def register(build):
            self.add(build.__name__, error, match, build, marks)
            return build

        return register

    def parametrize(self, metafunc) -> None:
        """Parametrise a test taking ``bad_case`` with every case (for pytest_generate_tests)."""
        if "bad_case" in metafunc.fixturenames:
            params = [pytest.param(c, id=name, marks=c.marks) for name, c in self.cases.items()]
            metafunc.parametrize("bad_case", params)


def command(main: Callable, *argv) -> Call:
    """A ``command`` case: ``main(argv)`` (argparse's SystemExit counts as its exit code)."""

    def run():
        try:
            return main([str(a) for a in argv])
        except SystemExit as exit:
            return exit.code

    return Call(run, command=True)


def _command_failure(code, captured) -> CommandFailed:
    assert code not in (0, None), f"the command succeeded; stdout: {captured.out!r}"
    assert captured.out == "", f"a failed command wrote to stdout: {captured.out!r}"
    lines = captured.err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {captured.err!r}"
    # forecast batch logs "<time> ERROR forecast.batch: ..."; the cases match the message
    line = re.sub(r"^\S+ ERROR forecast\.batch: ", "forecast batch: error: ", lines[0])
    return CommandFailed(f"exit {code}: {line}")


def snapshot(folder: Path) -> dict[str, str]:
    """SHA-256 of every file under ``folder`` (``"dir"`` for folders), by relative path."""
    return {
        p.relative_to(folder).as_posix(): "dir"
        if p.is_dir()
        else hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
    }


def _assert_same(before, after):
    if isinstance(before, pd.DataFrame):
        pd.testing.assert_frame_equal(after, before)
        assert getattr(after.index, "freq", None) == getattr(before.index, "freq", None)
    elif isinstance(before, dict):
        assert list(after) == list(before)
        for key in before:
            _assert_same(before[key], after[key])
    else:
        assert type(after) is type(before)


def check(bad_case: Case, tmp_path: Path, capsys, request) -> None:
    """Run ``bad_case`` and assert the error, the unchanged inputs and the unchanged files."""
    fixtures = [request.getfixturevalue(name) for name in bad_case.fixtures]
    call = bad_case.build(tmp_path, *fixtures)
    files = snapshot(tmp_path)
    copies = copy.deepcopy(call.inputs)
    capsys.readouterr()  # what building printed is not the call's
    with pytest.raises(bad_case.error, match=bad_case.match):
        outcome = call.run()
        if call.command:
            raise _command_failure(outcome, capsys.readouterr())
    for original, kept in zip(call.inputs, copies, strict=True):
        _assert_same(kept, original)
    ran = [str(p) for p in call.absent if p.exists()]
    assert not ran, f"code in the input was run: it created {ran}"
    after = snapshot(tmp_path)
    changed = sorted(k for k in files.keys() | after.keys() if files.get(k) != after.get(k))
    assert not changed, f"files left, changed or removed: {changed}"


CORPUS = Corpus()
CASES, case, add_case = CORPUS.cases, CORPUS.case, CORPUS.add


def pytest_generate_tests(metafunc):
    CORPUS.parametrize(metafunc)


def test_bad_input(bad_case, tmp_path, capsys, request):
    check(bad_case, tmp_path, capsys, request)


def test_corpus_size():
    assert len(CASES) >= 70


# ---------------------------------------------------------------------------- builders
TINY = dict(context_length=4, horizon=2, hidden_size=4, max_epochs=1, device="cpu")


def series(n: int = 48, **kwargs) -> pd.DataFrame:
    return make_series(n, **kwargs)


def with_column(frame: pd.DataFrame, name: str, values) -> pd.DataFrame:
    out = frame.copy()
    out[name] = values
    return out


def long_frame(n: int = 48) -> pd.DataFrame:
    a, b = series(n), series(n, seed=1)
    return pd.concat([a.assign(id="a"), b.assign(id="b")]).rename_axis("time").reset_index()


def fit(estimator, data) -> Call:
    return Call(lambda: estimator.fit(data), (data,))


@functools.cache
def naive(tz: str | None = None) -> Naive:
    return Naive().fit(series(tz=tz))


@functools.cache
def gru() -> GRUForecaster:
    return GRUForecaster(**TINY, random_state=0).fit(series())


@functools.cache
def gru_future() -> GRUForecaster:
    """A GRU with the future covariate ``temp`` and ``nan_policy="interpolate"``."""
    data = with_column(series(), "temp", np.arange(48.0))
    params = dict(TINY, future_covariates=["temp"], nan_policy="interpolate", random_state=0)
    return GRUForecaster(**params).fit(data)


def future_temp(n: int = 2, start: str = "2023-01-03", tz: str | None = None) -> pd.DataFrame:
    index = pd.date_range(start, periods=n, freq="h", tz=tz)
    return pd.DataFrame({"temp": np.arange(48.0, 48.0 + n)}, index=index)


def predict(model, **kwargs) -> Call:
    inputs = tuple(v for v in kwargs.values() if isinstance(v, pd.DataFrame | dict))
    kwargs.setdefault("horizon", 2)
    return Call(lambda: model.predict(**kwargs), inputs)


# ---------------------------------------------------------------------------- containers
@case(TypeError, "X must be a pandas DataFrame or a dict of DataFrames, got list")
def container_list(tmp_path):
    return fit(Naive(), [series()])


@case(TypeError, "got ndarray")
def container_ndarray(tmp_path):
    return fit(Naive(), series().to_numpy())


@case(TypeError, "got NoneType")
def container_none(tmp_path):
    return fit(Naive(), None)


@case(TypeError, r"got a Series: use series.to_frame\(\)")
def container_series(tmp_path):
    return fit(Naive(), series()["load"])


@case(TypeError, "got str")
def container_path_string(tmp_path):
    return fit(Naive(), "load.csv")


@case(ValueError, "X is an empty dict")
def container_empty_dict(tmp_path):
    return fit(Naive(), {})


@case(TypeError, r"X\['b'\] must be a pandas DataFrame, got list")
def container_dict_value_not_frame(tmp_path):
    return fit(Naive(), {"a": series(), "b": [1.0, 2.0]})


@case(ValueError, "X is empty: no rows and no columns")
def container_empty_frame(tmp_path):
    return fit(Naive(), pd.DataFrame())


@case(ValueError, "X is empty: 48 rows but no columns")
def container_rows_without_columns(tmp_path):
    return fit(Naive(), pd.DataFrame(index=series().index))


@case(ValueError, r"X is empty: no rows \(columns \['load'\]\)")
def container_columns_without_rows(tmp_path):
    return fit(Naive(), series().iloc[:0])


@case(ValueError, r"X\['b'\] is empty: no rows")
def container_dict_with_empty_series(tmp_path):
    return fit(Naive(), {"a": series(), "b": series().iloc[:0]})


@case(ValueError, r"X has duplicated column name\(s\) \['load'\]")
def container_duplicated_columns(tmp_path):
    frame = with_column(series(), "other", 1.0).set_axis(["load", "load"], axis=1)
    return fit(Naive(), frame)


@case(ValueError, r"X\['b'\] has duplicated column name\(s\) \['y0'\]")
def container_duplicated_columns_in_dict(tmp_path):
    bad = series(channels=3).set_axis(["y0", "y1", "y0"], axis=1)
    return fit(Naive(), {"a": series(channels=3), "b": bad})


@case(ValueError, r"no target column: every column of \['load'\] is declared a covariate")
def container_only_covariates(tmp_path):
    return fit(GRUForecaster(**TINY, future_covariates=["load"]), series())


# --------------------------------------------------------------------------------- index
@case(TypeError, "index must be a pandas DatetimeIndex, got RangeIndex")
def index_range(tmp_path):
    return fit(Naive(), series().reset_index(drop=True))


@case(TypeError, "index must be a pandas DatetimeIndex, got Index")
def index_strings(tmp_path):
    frame = series()
    return fit(Naive(), frame.set_axis(frame.index.astype(str)))


@case(ValueError, "not sorted: timestamp 2023-01-01 03:00:00 comes after 2023-01-01 04:00:00")
def index_unsorted(tmp_path):
    return fit(Naive(), series().iloc[[0, 1, 2, 4, 3, *range(5, 48)]])


@case(ValueError, "duplicated timestamp 2023-01-01 04:00:00")
def index_duplicated(tmp_path):
    frame = series()
    return fit(Naive(), pd.concat([frame.iloc[:5], frame.iloc[4:]]))


@case(ValueError, r"missing timestamp \(NaT\) at row 5")
def index_nat(tmp_path):
    frame = series()
    return fit(Naive(), frame.set_axis(frame.index.insert(5, pd.NaT)[:48]))


@case(ValueError, "irregular spacing: timestamp 2023-01-01 10:17:00 is not on the h grid")
def index_off_grid(tmp_path):
    frame = series()
    stamps = frame.index.tolist()
    stamps[10] += pd.Timedelta("17min")
    return fit(Naive(), frame.set_axis(pd.DatetimeIndex(stamps)))


@case(ValueError, r"1 missing step\(s\) in the h grid, the first at 2023-01-01 07:00:00")
def index_gap(tmp_path):
    return fit(Naive(), series().drop(pd.Timestamp("2023-01-01 07:00")))


@case(ValueError, "need at least 3 timestamps to infer the frequency, got 2")
def index_two_rows(tmp_path):
    return fit(Naive(), series(2))


@case(ValueError, "series 'b': frequency 30min differs from h")
def index_frequencies_differ_between_series(tmp_path):
    return fit(Naive(), {"a": series(), "b": series(freq="30min")})


@case(ValueError, "frequency 30min differs from h")
def index_history_frequency_differs(tmp_path):
    return predict(naive(), history=series(freq="30min"))


# -------------------------------------------------------------------------------- values
@case(
    ValueError,
    r"target column 'load' has 1 non-finite value\(s\), the first \(nan\) at "
    "2023-01-01 12:00:00 \\(pass nan_policy='interpolate'",
)
def values_nan_target(tmp_path):
    frame = series()
    frame.iloc[12, 0] = np.nan
    return fit(Naive(), frame)


@case(ValueError, r"target column 'load' .* the first \(inf\) at 2023-01-01 03:00:00")
def values_inf_target(tmp_path):
    frame = series()
    frame.iloc[3, 0] = np.inf
    return fit(Naive(), frame)


@case(ValueError, r"the first \(-inf\) at 2023-01-02 23:00:00")
def values_minus_inf_last_row(tmp_path):
    frame = series()
    frame.iloc[-1, 0] = -np.inf
    return fit(Naive(), frame)


@case(ValueError, r"series 'north': target column 'load' has 2 non-finite")
def values_nan_in_named_series(tmp_path):
    bad = series()
    bad.iloc[[7, 9], 0] = np.nan
    return fit(Naive(), {"south": series(), "north": bad})


@case(ValueError, "covariate column 'price' has 1 non-finite value.*2023-01-01 05:00:00")
def values_nan_past_covariate(tmp_path):
    frame = with_column(series(), "price", np.arange(48.0))
    frame.iloc[5, 1] = np.nan
    return fit(GRUForecaster(**TINY, past_covariates=["price"]), frame)


@case(ValueError, r"covariate column 'temp' .* the first \(inf\) at 2023-01-01 20:00:00")
def values_inf_future_covariate_in_fit(tmp_path):
    frame = with_column(series(), "temp", np.arange(48.0))
    frame.iloc[20, 1] = np.inf
    return fit(GRUForecaster(**TINY, future_covariates=["temp"]), frame)


@case(ValueError, "target column 'load' has no finite value to interpolate from")
def values_all_nan_interpolate(tmp_path):
    return fit(Naive(nan_policy="interpolate"), with_column(series(), "load", np.nan))


@case(ValueError, r"target column 'count' has 1 non-finite value\(s\), the first \(nan\)")
def values_nullable_int_with_na(tmp_path):
    counts = pd.array([1] * 47 + [None], dtype="Int64")
    return fit(Naive(), with_column(series(), "count", counts))


@case(TypeError, "column 'reading' has non-numeric dtype object")
def dtype_object(tmp_path):
    mixed = np.array(["1.5"] * 47 + [2.0], dtype=object)  # numbers read as text
    return fit(Naive(), with_column(series(), "reading", mixed))


@case(TypeError, "column 'site' has non-numeric dtype str")
def dtype_str(tmp_path):
    return fit(Naive(), with_column(series(), "site", "berlin"))


@case(TypeError, "column 'flag' has non-numeric dtype bool")
def dtype_bool(tmp_path):
    return fit(Naive(), with_column(series(), "flag", True))


@case(TypeError, "column 'name' has non-numeric dtype string")
def dtype_string(tmp_path):
    return fit(Naive(), with_column(series(), "name", pd.array(["a"] * 48, dtype="string")))


@case(TypeError, "column 'seen' has non-numeric dtype datetime64")
def dtype_datetime(tmp_path):
    frame = series()
    return fit(Naive(), with_column(frame, "seen", frame.index))


@case(TypeError, "column 'kind' has non-numeric dtype category")
def dtype_category(tmp_path):
    return fit(Naive(), with_column(series(), "kind", pd.Categorical(["a"] * 48)))


@case(ValueError, r"nan_policy must be one of \('raise', 'interpolate'\), got 'drop'")
def param_nan_policy(tmp_path):
    return fit(Naive(nan_policy="drop"), series())


# ------------------------------------------------------------------------------- lengths
@case(
    ValueError,
    r"series 'k': too little history: 7 rows, but at least 8 are needed \(one "
    r"training window of context_length=4 \+ horizon=2 = 6 steps, then a validation tail of "
    r"max\(horizon=2, round\(validation_fraction=0.2 x rows\)\) steps, 2 at 8 rows; lower "
    r"validation_fraction, or hold out whole series \(validation_series\)\)",
)
def length_with_validation_tail(tmp_path):
    return fit(GRUForecaster(**TINY, validation_fraction=0.2), {"k": series(7)})


@case(
    ValueError,
    r"too little history: 5 rows, but at least 6 are needed \(one training window "
    r"of context_length=4 \+ horizon=2 = 6 steps\)",
)
def length_without_validation(tmp_path):
    return fit(GRUForecaster(**TINY, validation_fraction=0.0), series(5))


@case(ValueError, r"too little history: 3 rows, but at least 4 are needed \(history needed")
def length_predict_history_shorter_than_context(tmp_path):
    return predict(gru(), history=series(3))


@case(ValueError, r"48 rows, but at least 168 are needed \(1 season\(s\) of 168 steps\)")
def length_season_longer_than_data(tmp_path):
    return fit(SeasonalNaive(season="7D"), series())


# ------------------------------------------------------------------------------- horizon
@case(ValueError, "horizon must be a positive int, got 0")
def horizon_zero(tmp_path):
    return predict(naive(), horizon=0)


@case(ValueError, "horizon must be a positive int, got -3")
def horizon_negative(tmp_path):
    return predict(naive(), horizon=-3)


@case(TypeError, r"horizon must be a positive int, got 1.5 \(float\)")
def horizon_float(tmp_path):
    return predict(naive(), horizon=1.5)


@case(TypeError, r"got True \(bool\)")
def horizon_bool(tmp_path):
    return predict(naive(), horizon=True)


@case(TypeError, r"got '24' \(str\)")
def horizon_string(tmp_path):
    return predict(naive(), horizon="24")


@case(TypeError, r"got None \(NoneType\)")
def horizon_none(tmp_path):
    return predict(naive(), horizon=None)


@case(
    ValueError,
    r"horizon=10000000 exceeds the limit max_horizon=10000 steps.*pass "
    r"max_horizon=10000000 \(or None for no limit\)",
)
def horizon_too_large(tmp_path):
    return predict(gru(), horizon=10**7)


@case(ValueError, "horizon=25 exceeds the limit max_horizon=24")
def horizon_above_own_limit(tmp_path):
    return predict(naive(), horizon=25, max_horizon=24)


@case(TypeError, "max_horizon must be a positive int or None, got '100'")
def horizon_limit_not_int(tmp_path):
    return predict(naive(), horizon=5, max_horizon="100")


@case(ValueError, "horizon=20000 exceeds the limit max_horizon=10000")
def horizon_too_large_from_origins(tmp_path):
    data = series()
    return Call(lambda: naive().predict_origins(data, data.index[[30]], 20_000), (data,))


@case(ValueError, "horizon must be a positive int, got 0")
def horizon_zero_from_origins(tmp_path):
    data = series()
    return Call(lambda: naive().predict_origins(data, data.index[[30]], 0), (data,))


@case(ValueError, r"past covariates \['price'\] are unknown after the last timestamp")
def horizon_roll_out_with_past_covariates(tmp_path):
    data = with_column(series(), "price", np.arange(48.0))
    model = GRUForecaster(**TINY, past_covariates=["price"], random_state=0).fit(data)
    return predict(model, horizon=3)


# ---------------------------------------------------------------------------- time zones
@case(ValueError, "series 'b' has timestamps in time zone UTC but series 'a' has naive")
def tz_naive_and_utc_series(tmp_path):
    return fit(Naive(), {"a": series(), "b": series(tz="UTC")})


@case(
    ValueError,
    "series 'b' has timestamps in time zone Europe/Berlin but series 'a' has "
    "timestamps in time zone UTC",
)
def tz_two_zones_between_series(tmp_path):
    return fit(Naive(), {"a": series(tz="UTC"), "b": series(tz="Europe/Berlin")})


@case(ValueError, "history has timestamps in time zone UTC but the model was fitted on naive")
def tz_aware_history_for_naive_fit(tmp_path):
    return predict(naive(), history=series(tz="UTC"))


def berlin_clock(start: str, n: int = 48) -> pd.DataFrame:
    """Hourly naive wall-clock stamps from ``start`` (a local time in Europe/Berlin)."""
    index = pd.date_range(start, periods=n, freq="h")
    return pd.DataFrame({"load": np.arange(n, dtype=float)}, index=index)


@case(
    ValueError,
    r"history: the naive timestamp 2023-03-26 02:00:00 is read as local time in "
    r"Europe/Berlin and does not exist there",
)
def tz_naive_history_skipped_hour_for_berlin_fit(tmp_path):
    return predict(naive("Europe/Berlin"), history=berlin_clock("2023-03-25 00:00"))


@case(
    ValueError,
    r"series 'b': history: the naive timestamp 2023-10-29 02:00:00 is read as local time in "
    r"Europe/Berlin and occurs twice there",
)
def tz_naive_history_in_dict_repeated_hour_for_berlin_fit(tmp_path):
    history = {"b": berlin_clock("2023-10-28 00:00")}
    return predict(naive("Europe/Berlin"), history=history)


@case(ValueError, "data has timestamps in time zone UTC but the model was fitted on naive")
def tz_aware_origins_data_for_naive_fit(tmp_path):
    data = series(tz="UTC")
    origins = [pd.Timestamp("2023-01-01 10:00")]
    return Call(lambda: naive().predict_origins(data, origins, 2), (data,))


@case(
    ValueError,
    "origins: the naive timestamp 2023-03-26 02:00:00 is read as local time in Europe/Berlin "
    "and does not exist there",
)
def tz_naive_origin_in_skipped_hour_for_berlin_fit(tmp_path):
    data = berlin_clock("2023-03-25 00:00").tz_localize("Europe/Berlin", nonexistent="NaT")
    data = data[data.index.notna()]
    origins = [pd.Timestamp("2023-03-26 02:00")]
    return Call(lambda: naive("Europe/Berlin").predict_origins(data, origins, 2), (data,))


@case(ValueError, "future has timestamps in time zone UTC but the model was fitted on naive")
def tz_aware_future_for_naive_fit(tmp_path):
    return predict(gru_future(), future=future_temp(tz="UTC"))


# --------------------------------------------------------------------- future covariates
@case(
    ValueError,
    r"future covariates \['temp'\] are declared: pass future=DataFrame with their "
    "values for the 2 forecast timestamps 2023-01-03 00:00:00 .. 2023-01-03 01:00:00",
)
def future_missing(tmp_path):
    return predict(gru_future())


@case(ValueError, r"future lacks column\(s\) \['temp'\]; found \['temperature'\]")
def future_wrong_column(tmp_path):
    return predict(gru_future(), future=future_temp().rename(columns={"temp": "temperature"}))


@case(
    ValueError,
    r"future covariates lack 1 forecast timestamp\(s\), the first at "
    "2023-01-03 02:00:00",
)
def future_too_short(tmp_path):
    return predict(gru_future(), horizon=3, future=future_temp(2))


@case(
    ValueError,
    "future covariate column 'temp' has 1 non-finite value.*2023-01-03 01:00:00 "
    r"\(values passed as future= are never interpolated, whatever nan_policy",
)
def future_nan_with_interpolate_policy(tmp_path):
    future = future_temp()
    future.iloc[1, 0] = np.nan
    return predict(gru_future(), future=future)


@case(TypeError, "column 'temp' has non-numeric dtype")
def future_not_numeric(tmp_path):
    future = future_temp().astype(object)
    future["temp"] = ["warm", "cold"]
    return predict(gru_future(), future=future)


@case(TypeError, "future must be a pandas DataFrame or a dict of DataFrames, got list")
def future_not_a_frame(tmp_path):
    return predict(gru_future(), future=[20.0, 21.0])


@case(TypeError, "index must be a pandas DatetimeIndex, got RangeIndex")
def future_without_time_index(tmp_path):
    return predict(gru_future(), future=future_temp().reset_index(drop=True))


# ------------------------------------------------------------------------------- columns
@case(
    ValueError,
    r"history has unknown column\(s\) \['temp'\]: neither targets \['load'\] nor "
    r"declared covariates \[\]",
)
def columns_unknown_in_history(tmp_path):
    return predict(naive(), history=with_column(series(), "temp", 1.0))


@case(ValueError, r"history lacks column\(s\) \['load'\]; found \['demand'\]")
def columns_target_missing_in_history(tmp_path):
    return predict(naive(), history=series().rename(columns={"load": "demand"}))


@case(ValueError, r"history lacks column\(s\) \['temp'\]")
def columns_covariate_missing_in_history(tmp_path):
    return predict(gru_future(), history=series(), future=future_temp())


@case(ValueError, r"series 'b': X has unknown column\(s\) \['extra'\]")
def columns_extra_in_second_series(tmp_path):
    return fit(Naive(), {"a": series(), "b": with_column(series(), "extra", 1.0)})


@case(ValueError, r"X lacks column\(s\) \['temp'\]; found \['load'\]")
def columns_declared_covariate_absent(tmp_path):
    return fit(GRUForecaster(**TINY, future_covariates=["temp"]), series())


# --------------------------------------------------------------------------- long frames
@case(
    ValueError,
    r"X: column 'id' has 1 missing value\(s\), first at row 5 \(time "
    r"2023-01-01 05:00:00\)",
)
def long_nan_id(tmp_path):
    frame = long_frame()
    frame.loc[5, "id"] = np.nan
    return fit(Naive(), frame)


@case(
    ValueError,
    r"column 'id' has 2 missing value\(s\), first at row 50 \(time "
    "2023-01-01 02:00:00",
)
def long_none_ids(tmp_path):
    frame = long_frame()
    frame.loc[[50, 60], "id"] = None
    return fit(Naive(), frame)


@case(ValueError, r"column 'time' has 1 missing value\(s\), first at row 3 \(id 'a'\)")
def long_nat_time(tmp_path):
    frame = long_frame()
    frame.loc[3, "time"] = pd.NaT
    return fit(Naive(), frame)


@case(TypeError, r"column 'time' has dtype .*, not datetimes \(convert it with pd.to_datetime")
def long_string_times(tmp_path):
    frame = long_frame()
    frame["time"] = frame["time"].astype(str)
    return fit(Naive(), frame)


@case(
    TypeError,
    "long frame .* neither a 'time' column nor a DatetimeIndex; found columns "
    r"\['load', 'id'\] and a RangeIndex",
)
def long_without_times(tmp_path):
    return fit(Naive(), long_frame().drop(columns="time"))


@case(ValueError, "series 'b': duplicated timestamp 2023-01-01 03:00:00")
def long_duplicated_id_time(tmp_path):
    frame = long_frame()
    return fit(Naive(), pd.concat([frame, frame.iloc[[51]]], ignore_index=True))


@case(ValueError, r"X is empty: no rows \(columns \['time', 'load', 'id'\]\)")
def long_empty(tmp_path):
    return fit(Naive(), long_frame().iloc[:0])


@case(ValueError, "series 'b': 1 missing step")
def long_gap_in_one_series(tmp_path):
    return fit(Naive(), long_frame().drop(index=60))


@case(ValueError, r"history: column 'id' has 1 missing value\(s\)")
def long_nan_id_in_history(tmp_path):
    model = Naive().fit(long_frame())
    history = long_frame()
    history.loc[0, "id"] = None
    return predict(model, history=history)


# ---------------------------------------------------------------- estimator parameters
def _gru_fit(**bad) -> Callable[[Path], Call]:
    return lambda tmp_path: fit(GRUForecaster(**{**TINY, **bad}), series())


for _name, _bad, _match in [
    ("context_length_zero", {"context_length": 0}, "context_length must be an int >= 1, got 0"),
    ("dropout_above_one", {"dropout": 1.5}, r"dropout must be in \[0, 1\) or .auto., got 1.5"),
    (
        "strategy_unknown",
        {"strategy": "x"},
        r"strategy must be one of \('direct', 'recursive', 'seq2seq'\), got 'x'",
    ),
    ("windowing_unknown", {"windowing": "chunks"}, "windowing must be one of .* got 'chunks'"),
    ("validation_fraction_one", {"validation_fraction": 1.0}, r"validation_fraction must be in"),
    ("learning_rate_zero", {"learning_rate": 0}, "learning_rate must be > 0, got 0"),
    ("hidden_size_float", {"hidden_size": 2.5}, "hidden_size must be an int >= 1, got 2.5"),
    ("batch_size_zero", {"batch_size": 0}, "batch_size must be an int >= 1, got 0"),
    ("tbptt_steps_float", {"tbptt_steps": 2.5}, "tbptt_steps must be an int >= 1, got 2.5"),
    ("gradient_clip_negative", {"gradient_clip": -1.0}, "gradient_clip must be None or >= 0"),
]:
    add_case(f"param_{_name}", ValueError, _match, _gru_fit(**_bad))


@case(ValueError, "windowing='tbptt' needs a recurrent encoder; TransformerForecaster is not")
def param_tbptt_on_transformer(tmp_path):
    return fit(TransformerForecaster(**TINY, windowing="tbptt"), series())


@case(ValueError, "season='x' is neither an int number of steps nor a fixed time span")
def param_season_unknown(tmp_path):
    return fit(SeasonalNaive(season="x"), series())


@case(ValueError, "n_seasons must be a positive int, got 0")
def param_n_seasons_zero(tmp_path):
    return fit(SeasonalNaive(season="1D", n_seasons=0), series())


@case(ValueError, "lags must be a positive int or a list of lags, got 0")
def param_lags_zero(tmp_path):
    return fit(LinearLagForecaster(lags=0), series())


@case(ValueError, r"columns \['load'\] are declared both future and past covariates")
def param_covariate_declared_twice(tmp_path):
    params = dict(TINY, future_covariates=["load"], past_covariates=["load"])
    return fit(GRUForecaster(**params), with_column(series(), "y", 1.0))


@case(NotFittedError, "This Naive instance is not fitted yet")
def param_predict_before_fit(tmp_path):
    return predict(Naive())


# ---------------------------------------------------------------- origins and backtests
def _origins(origins, data=None) -> Call:
    data = series() if data is None else data
    return Call(lambda: naive().predict_origins(data, origins, 2), (data,))


@case(ValueError, "origin 2030-01-01 00:00:00 is not a timestamp of the data")
def origins_outside_data(tmp_path):
    return _origins([pd.Timestamp("2030-01-01")])


@case(ValueError, "origins must be timestamps of the data: .*noon")
def origins_not_timestamps(tmp_path):
    return _origins(["noon"])


@case(TypeError, "origins must be a list or DatetimeIndex of timestamps, got '2023-01-01 10:00'")
def origins_single_string(tmp_path):
    return _origins("2023-01-01 10:00")


@case(ValueError, "origins is empty")
def origins_empty(tmp_path):
    return _origins([])


@case(ValueError, r"too little history: 1 rows, but at least 2 .*history before origin")
def origins_before_enough_history(tmp_path):
    data = series()
    model = GRUForecaster(**dict(TINY, context_length=2), random_state=0).fit(data)
    return Call(lambda: model.predict_origins(data, data.index[[0]], 2), (data,))


def _backtest(**settings) -> Callable[[Path], Call]:
    def build(tmp_path):
        data = series()
        return Call(lambda: backtest(Naive(), data, **settings), (data,))

    return build


for _name, _settings, _match in [
    ("protocol_unknown", {"protocol": "intraday"}, "protocol must be None or 'day-ahead'"),
    ("horizon_missing", {"start": "2023-01-02"}, "horizon is required unless protocol"),
    ("horizon_zero", {"horizon": 0, "start": "2023-01-02"}, "horizon must be a positive int"),
    ("window_unknown", {"horizon": 2, "start": "2023-01-02", "window": "rolling"}, "window must"),
    ("lead_negative", {"horizon": 2, "start": "2023-01-02", "lead": -1}, "lead must be a non-"),
    (
        "origin_past_the_end",
        {"horizon": 5, "origins": [pd.Timestamp("2023-01-02 22:00")]},
        "origin 2023-01-02 22:00:00: lead 0 \\+ horizon 5 steps run past the end",
    ),
    (
        "origins_and_start",
        {"horizon": 2, "origins": [pd.Timestamp("2023-01-01 10:00")], "start": "2023-01-02"},
        "give either a list of origins or start/end, not both",
    ),
    (
        "day_ahead_with_horizon",
        {"protocol": "day-ahead", "horizon": 24, "start": "2023-01-02"},
        r"protocol='day-ahead' sets \['horizon'\] itself",
    ),
]:
    add_case(f"backtest_{_name}", ValueError, _match, _backtest(**_settings))


@case(ValueError, "data: series 'b' has timestamps in time zone UTC but series 'a' has naive")
def backtest_tz_mix(tmp_path):
    data = {"a": series(), "b": series(tz="UTC")}
    return Call(lambda: backtest(Naive(), data, horizon=2, start="2023-01-02"), (data,))
