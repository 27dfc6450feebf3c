"""``forecast score``: the stored forecasts of ``forecast batch`` joined with the actuals.

Every file ``forecast batch --output PATTERN`` wrote (``{date}`` in ``PATTERN`` is the issue
date) is read, joined with the actuals known so far and scored per forecast by
:func:`forecast.evaluation.live.forecast_scores`, the code that scores a backtest's origins.
The origin of a stored forecast is the step before its first timestamp (the last input
timestamp of the batch). Values whose actual is not known yet are pending, never zero.

Nothing can mislead: timestamps with UTC offsets are never joined with naive ones (pass
``timezone``), two files with forecasts from the same origin (a copy under another date) are
refused, an empty forecast value is refused (it would count in ``n`` but not in the
errors), a matched entry that is a symbolic link is refused before anything of it is read,
and an ``output`` that the forecasts pattern matches is refused (the next run would read it
as a forecast). Each is a one-line :class:`~forecast.batch.files.BatchError`; nothing is
written.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from forecast.batch.files import BatchError, read_input, write_atomic
from forecast.batch.logs import logger_name
from forecast.evaluation.live import LiveAlert, forecast_scores, live_alert, tidy_forecast
from forecast.frames import validation
from forecast.frames.io import read_frame
from forecast.frames.messages import first_line
from forecast.frames.timezones import to_local
from forecast.frames.writes import WriteRefused, refuse_inputs
from forecast.loop.constants import PROTOCOLS
from forecast.loop.versions import SHA_COLUMN, VERSION_COLUMN

if TYPE_CHECKING:  # the MLflow side, imported only where scores are logged
    from forecast.loop.score_tracking import LiveLog

__all__ = ["ScoreResult", "find_forecasts", "score_forecasts"]

_DATE = r"(?P<date>\d{4}-\d{2}-\d{2})"
_QUANTILE = re.compile(r"^(?P<target>.+)_q(?P<level>0?\.\d+|[01](\.\d+)?)$")
_log = logging.getLogger(logger_name("score"))


@dataclass
class ScoreResult:
    """What ``forecast score`` computed.

    Attributes
    ----------
    table : DataFrame
        One row per stored forecast (:func:`forecast.evaluation.live.forecast_scores`) with
        ``issue_date``, ``file`` and ``file_sha256`` (of the file's bytes) in front, and with
        ``model`` the ``model_version`` that made it
        (:func:`forecast.loop.versions.forecast_records`).
    path : Path or None
        The table written (None without ``output``).
    alert : LiveAlert or None
        The rule's outcome when backtest scores were given.
    logged : int
        Forecasts whose scores were newly logged to MLflow.
    live : LiveLog or None
        With ``model``: what was logged to which version, and the link to the runs by live
        MAPE (:class:`forecast.loop.score_tracking.LiveLog`).
    """

    table: pd.DataFrame
    path: Path | None = None
    alert: LiveAlert | None = None
    logged: int = 0
    live: LiveLog | None = None


def _pattern(text: str) -> tuple[Path, re.Pattern[str]]:
    """Return the folder of a ``{date}`` pattern and the regular expression of its names."""
    folder = Path(text).parent
    if "{date}" in os.fspath(folder):
        raise BatchError(f"forecasts {text}: {{date}} may only be in the file name")
    name = re.escape(Path(text).name).replace(re.escape("{date}"), _DATE)
    return folder, re.compile(f"^{name}$")


def _not_a_link(path: Path) -> None:
    """Refuse a forecast file that is a symbolic link (its target is never read nor shown)."""
    if path.is_symlink():
        raise BatchError(
            f"forecast file {path} is a symbolic link: forecast score reads only the regular "
            "files forecast batch wrote in the forecasts folder; nothing was scored"
        )


def find_forecasts(pattern: str | os.PathLike[str]) -> list[tuple[str, Path]]:
    """Return ``(issue_date, path)`` of every file ``pattern`` names, by issue date.

    ``{date}`` in ``pattern`` matches ``YYYY-MM-DD``; a pattern without it names one file,
    whose issue date is left empty (the origin's local date is used). A matching entry that
    is a symbolic link raises :class:`BatchError` (nothing of its target is read).
    """
    text = os.fspath(pattern)
    if "{date}" not in text:
        _not_a_link(Path(text))
        if not Path(text).is_file():
            raise BatchError(f"forecast file {text} does not exist")
        return [("", Path(text))]
    folder, regex = _pattern(text)
    found = []
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        match = regex.match(path.name)
        if match:
            _not_a_link(path)
        if match and path.is_file():
            found.append((match["date"], path))
    if not found:
        raise BatchError(f"no forecast file matches {text}")
    return sorted(found)


def check_actuals(actuals: pd.DataFrame, path: str | os.PathLike[str]) -> pd.DateOffset:
    """Return the step of ``actuals``; raise on duplicated or missing timestamps."""
    index = pd.DatetimeIndex(actuals.index)
    duplicated = index[index.duplicated()]
    if len(duplicated):
        raise BatchError(
            f"actuals {path}: timestamp {duplicated[0]} appears more than once "
            f"({len(duplicated)} duplicate(s)); nothing was scored"
        )
    if not index.is_monotonic_increasing:
        raise BatchError(f"actuals {path}: timestamps are not sorted; nothing was scored")
    try:
        freq = validation.infer_freq(index, None)
    except ValueError as err:
        raise BatchError(f"actuals {path}: {err}; nothing was scored") from None
    full = pd.date_range(index[0], index[-1], freq=freq)
    missing = full.difference(index)
    if len(missing):
        raise BatchError(
            f"actuals {path}: {len(missing)} timestamp(s) missing, the first {missing[0]}; "
            "give the actuals without gaps (a missing value is an empty cell); nothing was scored"
        )
    return freq


def _targets(frame: pd.DataFrame, path: Path) -> tuple[list[str], tuple[float, ...]]:
    """Target columns of a forecast file and its quantile levels."""
    columns = [c for c in frame.columns if c != validation.ID_COLUMN]
    quantiles = {c: _QUANTILE.match(str(c)) for c in columns}
    targets = [c for c in columns if quantiles[c] is None]
    if not targets:
        raise BatchError(f"forecast file {path} has no forecast column")
    levels = sorted(
        {float(m["level"]) for m in quantiles.values() if m and m["target"] == targets[0]}
    )
    return targets, tuple(levels)


def _stored(
    path: Path, issue: str, actuals: pd.DataFrame, freq: pd.DateOffset, options: dict[str, Any]
) -> list[pd.DataFrame]:
    """Return the tidy frames of one stored forecast file (one per series)."""
    try:
        frame = read_frame(path, "timestamp", timezone=options["timezone"])
    except Exception as err:  # parser errors of pandas/pyarrow included: one line
        raise BatchError(f"forecast file {path}: {first_line(err)}") from None
    targets, levels = _targets(frame, path)
    _check_values(frame, path)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()  # the batch run's output_sha256
    missing = [t for t in targets if t not in actuals.columns]
    if missing:
        raise BatchError(
            f"actuals {options['actuals']} lack the column(s) {missing} of forecast file {path}"
        )
    zone = pd.DatetimeIndex(actuals.index).tz
    _check_zones(zone, pd.DatetimeIndex(frame.index).tz, path, options["actuals"])
    if zone is not None:
        frame = frame.tz_convert(zone)
    groups = (
        frame.groupby(validation.ID_COLUMN, sort=True)
        if validation.ID_COLUMN in frame
        else [(None, frame)]
    )
    out = []
    for key, part in groups:
        part = part.drop(columns=validation.ID_COLUMN, errors="ignore").sort_index()
        truth = (
            actuals if key is None or validation.ID_COLUMN not in actuals else _series(actuals, key)
        )
        origin = part.index[0] - freq
        if options["protocol"] == "day-ahead":
            part = _next_day(part, issue, origin, options["zone"], path)
        issued = issue or str(to_local(pd.DatetimeIndex([origin]), options["zone"])[0].date())
        tidy = tidy_forecast(part, truth, targets, origin, levels)
        tidy = tidy.assign(issue_date=issued, file=str(path), file_sha256=sha)
        out.append(tidy if key is None else tidy.assign(**{validation.ID_COLUMN: key}))
    return out


def _check_values(frame: pd.DataFrame, path: Path) -> None:
    """Refuse a stored forecast with an empty value (it would be counted but not scored)."""
    values = frame.drop(columns=validation.ID_COLUMN, errors="ignore")
    empty = values.isna().to_numpy()
    if empty.any():
        row, column = (int(i[0]) for i in empty.nonzero())
        raise BatchError(
            f"forecast file {path}: empty value in column {values.columns[column]!r} at "
            f"{values.index[row]} ({int(empty.sum())} empty); forecast batch writes none: "
            "nothing was scored"
        )


def _check_zones(actuals: Any, forecast: Any, path: Path, where: object) -> None:
    """Refuse joining timestamps with UTC offsets and timestamps without (never equal)."""
    if (actuals is None) == (forecast is None):
        return
    naive, aware = (f"actuals {where}", f"forecast file {path}")
    if forecast is None:
        naive, aware = aware, naive
    raise BatchError(
        f"{naive} has timestamps without a zone and {aware} has them with UTC offsets: pass "
        "--timezone (the zone of the local times, e.g. Europe/Berlin); nothing was scored"
    )


def _check_origins(tidy: pd.DataFrame) -> None:
    """Refuse two files holding forecasts from one origin (a file copied under another date)."""
    keys = ["origin", validation.ID_COLUMN] if validation.ID_COLUMN in tidy.columns else ["origin"]
    files = tidy.groupby(keys, sort=True)["file"].unique()
    doubled = files[files.map(len) > 1]
    if len(doubled):
        names = ", ".join(sorted(map(str, doubled.iloc[0])))
        origin = doubled.index[0]
        raise BatchError(
            f"forecast files {names} hold forecasts from the same origin {origin} (a copy "
            "under another date?): keep the one forecast batch wrote; nothing was scored"
        )


def _series(actuals: pd.DataFrame, key: object) -> pd.DataFrame:
    return actuals[actuals[validation.ID_COLUMN] == key].drop(columns=validation.ID_COLUMN)


def _next_day(
    part: pd.DataFrame, issue: str, origin: pd.Timestamp, zone: str, path: Path
) -> pd.DataFrame:
    """Return the rows of the local day after the issue date: the day-ahead protocol's day D."""
    local = to_local(pd.DatetimeIndex(part.index), zone)
    issued = pd.Timestamp(issue) if issue else to_local(pd.DatetimeIndex([origin]), zone)[0]
    day = (issued.normalize() + pd.Timedelta(days=1)).date()
    keep = local.date == day
    if not keep.any():
        raise BatchError(f"forecast file {path} has no row on {day}, the day after its issue")
    return part[keep]


def score_forecasts(
    forecasts: str | os.PathLike[str],
    actuals: str | os.PathLike[str],
    *,
    output: str | os.PathLike[str] | None = None,
    time_column: str | None = None,
    timezone: str | None = None,
    protocol: str | None = None,
    special_days: str | None = None,
    backtest: str | os.PathLike[str] | None = None,
    window: int = 7,
    model: str | None = None,
    tracking_uri: str | None = None,
) -> ScoreResult:
    """Score every stored forecast against the actuals known so far.

    Parameters
    ----------
    forecasts : str or path-like
        The ``--output`` pattern of ``forecast batch`` (``{date}``: the issue date), or one
        forecast file.
    actuals : str or path-like
        CSV or Parquet file of the observed values (the batch's ``--input`` as it grows):
        no duplicated and no missing timestamps; an empty value is pending.
    output : str or path-like, optional
        ``.csv`` or ``.parquet`` file of the scores (written atomically, never over an input).
    time_column, timezone : str, optional
        As for ``forecast batch``; ``timezone`` also names the local days (default UTC).
    protocol : {None, "day-ahead"}
        ``"day-ahead"``: score only the local day after each issue date (the backtest's
        day-ahead protocol); None: every row of each file.
    special_days : str, optional
        ``"holidays-DE"``: mark the forecasts that score a special day.
    backtest : str or path-like, optional
        The backtest's scores per forecast (same columns); with it the alert rule of
        :func:`forecast.evaluation.live.live_alert` is applied over ``window`` forecasts.
    window : int
        Forecasts in the rolling mean of the alert rule.
    model : str, optional
        ``models:/name@alias`` or ``models:/name/N``: log the scores of each forecast to the
        MLflow run of the version of ``name`` that made it, as its batch run recorded
        (:func:`forecast.loop.score_tracking.log_live_scores`); the table gets the column
        ``model_version``.
    tracking_uri : str, optional
        The MLflow store.

    Returns
    -------
    ScoreResult

    Raises
    ------
    BatchError
        Bad input (one line naming the file and timestamp); nothing was written.
    """
    if protocol not in PROTOCOLS:
        raise BatchError(f"protocol must be one of {PROTOCOLS[1:]} or none, got {protocol!r}")
    files = find_forecasts(forecasts)
    if output is not None and "{date}" in os.fspath(forecasts):
        folder, regex = _pattern(os.fspath(forecasts))
        if regex.match(Path(output).name) and Path(output).parent.resolve() == folder.resolve():
            raise BatchError(
                f"--output {output} is matched by the --forecasts pattern {forecasts}: the next "
                "run would score it as a forecast; give --output another name or folder"
            )
    if output is not None:
        inputs: dict[str, Any] = {"--actuals": actuals, "--backtest": backtest}
        inputs.update({f"--forecasts ({issue or path.name})": path for issue, path in files})
        try:
            refuse_inputs(output, inputs, "--output")
        except WriteRefused as err:
            raise BatchError(str(err)) from None
    truth = read_input(actuals, time_column, timezone)
    freq = check_actuals(truth, actuals)
    tz = pd.DatetimeIndex(truth.index).tz
    zone = timezone or (str(tz) if tz is not None else "UTC")
    options = {"timezone": timezone, "protocol": protocol, "zone": zone, "actuals": actuals}
    tidy = pd.concat(
        [t for issue, path in files for t in _stored(path, issue, truth, freq, options)],
        ignore_index=True,
    )
    _check_origins(tidy)
    table = forecast_scores(tidy, special_days=special_days, timezone=zone)
    keys = ["origin", validation.ID_COLUMN] if validation.ID_COLUMN in table.columns else ["origin"]
    front = ["issue_date", "file", SHA_COLUMN]
    meta = tidy.groupby(keys, sort=True)[front].first().reset_index()
    table = meta.merge(table, on=keys)
    result = ScoreResult(table)
    if backtest is not None:
        result.alert = live_alert(table, read_scores(backtest), window=window)
    target = None
    if model is not None:
        # optional: only logging needs mlflow, seconds to import
        from forecast.loop.score_tracking import live_target

        target = live_target(table, model, tracking_uri)  # fails before anything is written
        table.insert(len(keys) + len(front), VERSION_COLUMN, target.versions)  # after the sha
    if output is not None:
        write_atomic(table, Path(output))
        result.path = Path(output)
    if target is not None:
        from forecast.loop.score_tracking import log_live_scores  # optional: as above

        result.live = log_live_scores(table, target, alert=result.alert)
        result.logged = result.live.total
    return result


def read_scores(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a table of scores per forecast (an ``origin`` column)."""
    try:
        table = read_frame(path, "origin", mixed_offsets="utc").reset_index()
    except Exception as err:  # parser errors included: one line
        raise BatchError(f"backtest scores {path}: {first_line(err)}") from None
    return table
