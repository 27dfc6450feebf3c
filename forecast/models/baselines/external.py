"""A forecast column of the data (such as the grid operators'), optionally corrected for bias."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.base import BaseForecaster, SeriesArrays
from forecast.frames import validation
from forecast.frames.steps import steps as duration_steps
from forecast.frames.vintage_sources import parse_schedule, publication_times
from forecast.models.baselines._options import InputOptions
from forecast.models.declare import declare_params, param


def _forecasts(s: SeriesArrays) -> np.ndarray:
    """Return the future covariates of ``s``: the forecast columns, which fit requires."""
    if s.future is None:
        raise ValueError(f"{validation._where(s.key)}the forecast columns are missing")
    return s.future


@declare_params()
class ExternalForecast(InputOptions, BaseForecaster):
    """A forecast column already in the data, wrapped as a model scored like any other.

    Typical use: the grid operators' own day-ahead load forecast published next to the load.
    The forecast column is a future-known covariate (``future_covariates`` is ``column``);
    every other column is a target. ``predict`` returns the column's values at the forecast
    timestamps, read unscaled, so without ``debias`` the output equals the column exactly.

    With ``debias``, each forecast is shifted by the column's mean error over the last
    ``debias`` of observed history before the origin: ``forecast + mean(target - column)``
    over those rows, per target. A forecast whose level drifts (the operators' forecast of
    German load ran 660 MW high through 2022) is then centred on the recent load, using only
    what is known when the forecast is issued. Rows where the target or the column is
    missing are skipped; a window without one complete row leaves the forecast unshifted.

    Only the rows being forecast (and, with ``debias``, the window before them) matter: gaps
    (NaN) anywhere else are ignored. With ``nan_policy="raise"`` a missing forecast value at
    a forecast timestamp raises a ``ValueError`` naming the column and the timestamp; with
    ``"interpolate"`` the forecast column is interpolated in time first.

    Attributes
    ----------
    columns_ : list
        Target columns seen in ``fit``.
    future_covariates_ : list
        The forecast column(s).
    debias_steps_ : int or None
        The ``debias`` window in steps.

    Examples
    --------
    >>> import pandas as pd
    >>> from forecast.models.baselines import ExternalForecast
    >>> index = pd.date_range("2023-01-01", periods=6, freq="h")
    >>> df = pd.DataFrame({"load": [5.0, 6, 7, 8, 9, 10], "forecast": [5.5, 6, 7, 7.5, 9, 11]},
    ...                   index=index)
    >>> model = ExternalForecast(column="forecast").fit(df.iloc[:4])
    >>> model.predict(horizon=2, future=df)["load"].tolist()
    [9.0, 11.0]
    >>> model = ExternalForecast(column="forecast", debias=2).fit(df.iloc[:4])
    >>> model.predict(horizon=2, future=df)["load"].tolist()  # errors 0 and +0.5 before
    [9.25, 11.25]
    """

    _scale_targets = False
    _update_rule = "extend"  # update: the fitted state stays, new rows extend the history kept

    column: str | Sequence[str] = param(
        default="forecast",
        type="str or list of str",
        doc="""Forecast column(s). With several targets give one column per target, in the order
        of the target columns.""",
        kw_only=False,
    )
    debias: int | str | None = param(
        default=None,
        type="int, str or None",
        doc="""Window of observed history whose mean forecast error is added to the forecasts: a
        number of steps or a time span that is a whole number of steps (``"7D"``). None: the
        column as it is.""",
        kw_only=False,
    )
    published: str | None = param(
        default=None,
        type="str or None",
        doc="""When the column's values become known: ``"HH:MM D-k"``, the values for local day D
        are published at HH:MM on day D-k in the data's time zone (the grid operators'
        day-ahead load forecast: ``"10:00 D-1"``, Regulation (EU) 543/2013 Art. 6(2)(b)).
        A forecast whose origin comes before the publication of a step it needs raises a
        ``ValueError`` naming the step, instead of reading a value nobody had yet. The
        column is taken as published once (a stored column holds the final version; see
        :mod:`forecast.frames.vintages` for values with several issues). None: no check.""",
        kw_only=False,
    )

    def _forecast_columns(self) -> list[str]:
        column = self.column
        columns = [column] if isinstance(column, str) else column
        if not isinstance(columns, list | tuple) or not columns:
            raise TypeError(f"column must be a column name or a list of names, got {column!r}")
        return list(columns)

    def _covariate_names(self) -> tuple[list[str], list[str]]:
        return self._forecast_columns(), []

    def _scale_covariates(self, frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
        # The forecast column is passed through unscaled so that predict returns it exactly.
        return frame[columns].to_numpy(dtype=float)

    def _fill(
        self, frame: pd.DataFrame, key: Any, targets: list[str], covariates: list[str]
    ) -> pd.DataFrame:
        # The history is read only by debias, which skips incomplete rows; the forecast
        # column at forecast timestamps is checked in _predict. "interpolate" fills the
        # forecast column in time.
        policy = self.nan_policy
        if policy not in validation.NAN_POLICIES:
            raise ValueError(f"nan_policy must be one of {validation.NAN_POLICIES}, got {policy!r}")
        if policy == "raise" and not self.fill_gaps:
            return frame
        return validation.check_finite(frame, covariates, "interpolate", key, "forecast")

    def _min_train_length(self) -> int:
        return 1

    def _debias_steps(self) -> int | None:
        debias = self.debias
        return None if debias is None else duration_steps(debias, "debias", self.freq_)

    def _keep_history(self) -> int:
        steps = self._debias_steps()  # called by fit before _fit
        return 1 if steps is None else steps

    def _fit(self, series: list[SeriesArrays], callbacks: list[Any]) -> None:
        columns = self._forecast_columns()
        if len(columns) != len(self.columns_):
            raise ValueError(
                f"column={columns} names {len(columns)} forecast column(s) for the "
                f"{len(self.columns_)} target(s) {self.columns_}: give one per target, in order"
            )
        self.debias_steps_ = self._debias_steps()
        if self.published is not None:
            parse_schedule(self.published)

    def _check_published(self, s: SeriesArrays, horizon: int) -> None:
        """Raise if a forecast step of ``s`` is published after its origin (``published``)."""
        published = getattr(self, "published", None)
        if published is None:
            return
        time, days_before = parse_schedule(published)
        origin = s.index[-1]
        steps = validation.future_index(origin, self.freq_, horizon)
        late = publication_times(steps, time, days_before) > origin
        if late.any():
            first = steps[int(np.argmax(late))]
            when = publication_times(steps[[int(np.argmax(late))]], time, days_before)[0]
            raise ValueError(
                f"{validation._where(s.key)}forecast column {self.future_covariates_[0]!r} at "
                f"{first} is "
                f"published at {when} (published={published!r}), after the origin {origin}: "
                f"{int(late.sum())} of the {horizon} steps are not known yet"
            )

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        k = len(self.columns_)
        for s in series:
            self._check_published(s, horizon)
        out = np.stack(
            [_forecasts(s)[len(s.y) : len(s.y) + horizon, :k] for s in series]
        )  # (N, H, C)
        bad = ~np.isfinite(out)
        if bad.any():
            i, h, c = np.argwhere(bad)[0]
            s = series[i]
            stamp = validation.future_index(s.index[-1], self.freq_, horizon)[h]
            raise ValueError(
                f"{validation._where(s.key)}forecast column {self.future_covariates_[c]!r} has no "
                "value "
                f"({out[i, h, c]}) at forecast timestamp {stamp} (forecast issued after "
                f"{s.index[-1]}); {int(bad.sum())} missing forecast value(s) in all: pass "
                "nan_policy='interpolate' to interpolate them"
            )
        steps = getattr(self, "debias_steps_", None)
        if steps is not None:
            out = out + np.stack([self._recent_error(s, steps) for s in series])[:, None, :]
        return out

    def _recent_error(self, s: SeriesArrays, steps: int) -> np.ndarray:
        """Mean of ``target - column`` over the last ``steps`` observed rows, per target (C,)."""
        n = len(s.y)
        k = len(self.columns_)
        errors = s.y[max(n - steps, 0) :] - _forecasts(s)[max(n - steps, 0) : n, :k]  # (w, C)
        complete = np.isfinite(errors)
        total = np.where(complete, errors, 0.0).sum(axis=0)
        count = complete.sum(axis=0)
        return np.where(count > 0, total / np.maximum(count, 1), 0.0)
