"""Direct ridge forecasts from lagged values, daily profiles and the calendar."""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from forecast.base import BaseForecaster, SeriesArrays
from forecast.frames import validation
from forecast.frames.decomposition import LAG, Decomposition, NotDecomposable
from forecast.frames.steps import steps
from forecast.models.baselines import _direct as direct
from forecast.models.baselines import _wallclock as wallclock
from forecast.models.baselines._options import CovariateOptions
from forecast.models.declare import declare_params, param

_HOUR_NS = 3_600 * 10**9

#: The baseline of the exact decomposition (:meth:`LinearLagForecaster._decompose`).
BASELINE = (
    "every regressor at zero: lags, seasonal lags and covariates at their training mean, "
    "no weekday, day-of-year or holiday term (the forecast is the intercept)"
)


@declare_params()
class LinearLagForecaster(CovariateOptions, BaseForecaster):
    """Direct linear forecasts: one ridge regression per time of day of the origin and lead.

    A forecast issued after the last observed step (the *origin*) predicts each later step
    directly from data available at the origin, so it does not compound its own errors.
    The regressors of the target ``j`` steps after the origin are:

    - the last ``lags`` values (the last day's profile and level, by default);
    - for each of ``seasonal_lags``, the value at the same local time most recently
      observed: for ``"1D"`` yesterday's value when that hour has been observed at the
      origin, else the day before's; for ``"7D"`` last week's;
    - with ``calendar=True``, day-level regressors of the target's local date: weekday
      (one-hot), day of year and, with a ``country``, the share of the population on a
      public holiday falling on a working day, on a Saturday, on a bridge day, and the
      Christmas period (24 Dec - 1 Jan; :mod:`forecast.frames.calendar`); the same holiday
      regressors of each seasonal source's date and of the dates of the newest and oldest
      lag (last week's Thursday, or yesterday, may have been a holiday);
    - declared ``future_covariates`` at the target time.

    There is one model per lead ``j = 1 .. horizon`` and per local time of day of the origin
    (``by_time_of_day``, sub-daily data): for the day-ahead market (issued at 12:00 for the
    next day) that is one model per hour of the next day. Each is a ridge fit on all
    training origins at that time of day, shrunk towards the fit of the same lead pooled
    over all times of day (a time of day without training rows uses the pooled fit).
    Forecasts beyond ``horizon`` steps continue from the model's own output. Rows of all
    series are pooled; each channel has its own coefficients. Targets are standardised.

    Lags and leads count steps of the local wall clock (see
    :mod:`~forecast.models.baselines._wallclock`): on a tz-aware index every local day has
    the same number of steps, the repeated autumn hour holds the mean of its two values and
    the skipped spring hour is interpolated; both repeated timestamps get the same forecast.

    A forecast within the direct leads is the sum of its regression terms, and
    :func:`forecast.explain` reports exactly these terms (method ``"exact"``).

    Attributes
    ----------
    lags_, seasonal_lags_ : ndarray of int
        Lags and seasonal periods in steps.
    horizon_ : int
        Leads fitted (fewer than ``horizon`` when the training data are short).
    n_phases_ : int
        Times of day with their own models (1 when not ``by_time_of_day``).
    coef_ : ndarray of shape (n_channels, n_phases, horizon, n_regressors)
        Coefficients: lags, seasonal lags, future covariates, day regressors of the
        target, holiday regressors of each seasonal source.
    intercept_ : ndarray of shape (n_channels, n_phases, horizon)
        Intercepts.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from forecast.models.baselines import LinearLagForecaster
    >>> index = pd.date_range("2023-01-01", periods=24 * 21, freq="h")
    >>> df = pd.DataFrame({"load": np.sin(np.arange(24 * 21) * np.pi / 12)}, index=index)
    >>> model = LinearLagForecaster(horizon=24).fit(df)
    >>> model.predict(horizon=36).shape
    (36, 1)
    """

    _scale_targets = True

    lags: int | Sequence[int | str] = param(
        default=24,
        type="int or sequence of int or str",
        doc="""Lags behind the origin: an int ``k`` means ``1 .. k`` (``1`` is the last observed
        step); a sequence lists lags in steps or as time spans, e.g. ``(1, 2, "1D")``.""",
        kw_only=False,
    )
    seasonal_lags: Literal["auto"] | Sequence[int | str] = param(
        default="auto",
        type='"auto" or sequence of int or str',
        doc="""Periods of the target-relative lags. ``"auto"``: ``("1D", "7D")`` for sub-daily
        data, ``("7D",)`` for daily data, none otherwise; ``()`` for none.""",
        kw_only=False,
    )
    horizon: int | str | None = param(
        default=None,
        type="int, str or None",
        doc="""Leads with their own models, as steps or a time span (rounded up to steps). None:
        two days of steps for data with a fixed step up to one day, else 1.""",
        kw_only=False,
    )
    alpha: float = param(
        default=3.0,
        type="float",
        doc="Ridge penalty (targets and lags are standardised).",
        kw_only=False,
    )
    by_time_of_day: bool = param(
        default=True,
        type="bool",
        doc="""Separate models per local time of day of the origin (sub-daily data whose step
        divides a day); False pools all origins.""",
        kw_only=False,
    )
    calendar: bool = param(
        default=True,
        type="bool",
        doc="Use the day-level calendar and holiday regressors.",
        kw_only=False,
    )

    # ------------------------------------------------------------ settings
    def _lag_steps(self) -> np.ndarray:
        lags = self.lags
        if isinstance(lags, numbers.Integral) and not isinstance(lags, bool):
            if lags < 1:
                raise ValueError(f"lags must be a positive int or a list of lags, got {lags}")
            return np.arange(1, int(lags) + 1)
        if isinstance(lags, str) or not isinstance(lags, list | tuple) or not lags:
            raise ValueError(
                f"lags must be a positive int or a non-empty list of lags, got {lags!r}"
            )
        return np.unique([steps(lag, "lags", self.freq_) for lag in lags])

    def _seasonal_steps(self) -> np.ndarray:
        value = self.seasonal_lags
        if isinstance(value, str) and value == "auto":
            step = wallclock.fixed_step(self.freq_)
            if step is None or step > wallclock.DAY_NS:
                value = ()
            else:
                value = ("7D",) if step == wallclock.DAY_NS else ("1D", "7D")
        elif isinstance(value, str) or not isinstance(value, list | tuple):
            raise ValueError(
                f"seasonal_lags must be 'auto' or a list of periods such as ('1D', '7D'), "
                f"got {value!r}"
            )
        return np.unique([steps(s, "seasonal_lags", self.freq_) for s in value]).astype(int)

    def _horizon_steps(self) -> int:
        if self.horizon is not None:
            return steps(self.horizon, "horizon", self.freq_, round_up=True)
        step = wallclock.fixed_step(self.freq_)
        return 1 if step is None or step > wallclock.DAY_NS else 2 * wallclock.DAY_NS // step

    def _need(self) -> int:
        """Grid steps of history behind each forecast: the longest lag or period."""
        seasonal = self._seasonal_steps()
        return int(max(self._lag_steps().max(), seasonal.max() if len(seasonal) else 1))

    def _margin(self) -> int:
        """Extra rows so that a tail spanning a clock change still covers ``_need`` steps."""
        step = wallclock.fixed_step(self.freq_)
        if self.tz_ is None or step is None or step >= wallclock.DAY_NS:
            return 0
        return -(-_HOUR_NS // step)

    def _min_train_length(self) -> int:
        return 1  # depends on the frequency; checked in _fit

    def _min_history(self) -> int:
        # one hour short across an autumn change is reported by _roll
        return self._need()

    def _keep_history(self) -> int:
        return self._need() + self._margin()

    def _calendar(self, index: pd.DatetimeIndex) -> None:
        return None  # day regressors are built on the wall-clock grid (see _grids)

    # ---------------------------------------------------------------- grids
    def _grids(self, series: list[SeriesArrays], horizon: int) -> list[dict[str, Any]]:
        """Each series on its wall-clock grid, with covariates and forecast positions."""
        out = []
        for s in series:
            n = len(s.y)
            grid = wallclock.series_grid(s.y, s.index, self.timezone, self.freq_)
            pos = np.zeros(0, dtype=np.int64)
            times = grid.times
            if horizon:
                pos, new_times = wallclock.target_positions(
                    grid, s.index[-1], self.freq_, horizon, self.timezone
                )
                times = np.concatenate([grid.times, new_times])
            covs = None
            if s.future is not None:
                rows = s.future[: n + horizon]
                covs = wallclock.rows_to_grid(rows, np.concatenate([grid.row_pos, pos]), len(times))
            out.append({"key": s.key, "grid": grid, "pos": pos, "times": times, "covs": covs})
        return out

    def _known(self, grids: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
        """Known-in-advance regressors and seasonal-source holiday regressors per grid."""
        if not self.calendar:
            return [g["covs"] for g in grids], [None] * len(grids)
        days = [direct.position_days(g["times"]) for g in grids]
        unique = np.unique(np.concatenate(days))
        table = direct.day_table(unique, self.country)  # (n_days, K)
        n_hol = direct.n_holiday_columns(self.country)
        known = []
        source = []
        for g, d in zip(grids, days, strict=True):
            per_pos = table[np.searchsorted(unique, d)]
            known.append(per_pos if g["covs"] is None else np.hstack([g["covs"], per_pos]))
            source.append(per_pos[:, per_pos.shape[1] - n_hol :] if n_hol else None)
        return known, source

    # ------------------------------------------------------------------ fit
    def _fit(self, series: list[SeriesArrays], callbacks: list[Any]) -> None:
        # many small products: a multi-threaded BLAS spends its time synchronising threads
        with threadpool_limits(limits=1, user_api="blas"):
            self._fit_single_thread(series)

    def _fit_single_thread(self, series: list[SeriesArrays]) -> None:
        alpha = self.alpha
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or alpha < 0:
            raise ValueError(f"alpha must be a non-negative number, got {alpha!r}")
        lags = self._lag_steps()
        seasonal = self._seasonal_steps()
        horizon = self._horizon_steps()
        need = self._need()
        step = wallclock.fixed_step(self.freq_)
        n_phases = wallclock.steps_per_day(step) if self.by_time_of_day else 1
        grids = self._grids(series, 0)
        lengths = [len(g["grid"].values) for g in grids]
        if max(lengths) <= need:
            raise ValueError(
                f"the longest training series has {max(lengths)} steps; LinearLagForecaster "
                f"needs more than {need}: lags up to {int(lags.max())} steps, seasonal_lags "
                f"{[int(v) for v in seasonal]} steps"
            )
        if n_phases > max(lengths):
            raise ValueError(
                f"by_time_of_day=True fits one model per time of day ({n_phases} at frequency "
                f"{self.freq_.freqstr}), but the longest training series has only "
                f"{max(lengths)} steps: pass by_time_of_day=False"
            )
        known, source = self._known(grids)
        fitted = min(horizon, max(lengths) - need)
        n_channels = len(self.columns_)
        coef = None
        intercept = None
        for c in range(n_channels):
            for j in range(1, fitted + 1):
                xtx = xty = None
                rows = self._lead_rows(c, j, grids, known, source, lags, seasonal)
                for grid, origins, x, y in rows:
                    first = int(wallclock.phase_of(grid.times[origins[:1]], step, n_phases)[0])
                    parts = direct.gram_by_phase(x, y, first, n_phases)
                    xtx = parts[0] if xtx is None else xtx + parts[0]
                    xty = parts[1] if xty is None else xty + parts[1]
                beta, b0 = direct.solve_pooled_then_phase(xtx, xty, float(alpha))
                if coef is None:
                    coef = np.zeros((n_channels, n_phases, fitted, beta.shape[1]))
                    intercept = np.zeros((n_channels, n_phases, fitted))
                coef[c, :, j - 1], intercept[c, :, j - 1] = beta, b0
        if not (np.isfinite(coef).all() and np.isfinite(intercept).all()):
            raise ValueError(
                "LinearLagForecaster: the ridge fit overflowed (non-finite coefficients); the "
                f"values of {self.columns_} are too large or too spread for float64: rescale them"
            )
        self.lags_: np.ndarray = lags
        self.seasonal_lags_: np.ndarray = seasonal
        self.horizon_: int = int(fitted)
        self.n_phases_: int = int(n_phases)
        self.coef_: np.ndarray = coef
        self.intercept_: np.ndarray = intercept
        self._fit_after_ridge(grids, known, source)

    def _lead_rows(
        self,
        c: int,
        j: int,
        grids: list[dict[str, Any]],
        known: list[Any],
        source: list[Any],
        lags: np.ndarray,
        seasonal: np.ndarray,
    ) -> Iterator[tuple[Any, np.ndarray, np.ndarray, np.ndarray]]:
        """Yield ``(grid, origins, x, y)`` per training grid: the rows of channel ``c``, lead ``j``.

        ``origins`` are the grid positions with ``lags``/``seasonal`` history and a target ``j``
        steps later; ``x`` their regressors (:func:`~._direct.regressors`), ``y`` the targets.
        """
        need = self._need()
        for g, kn, so in zip(grids, known, source, strict=True):
            grid = g["grid"]
            origins = np.arange(need - 1, len(grid.values) - j)
            if not len(origins):
                continue
            values = grid.values[:, c]
            x = direct.regressors(values, origins, np.full(len(origins), j), lags, seasonal, kn, so)
            yield grid, origins, x, values[origins + j]

    def _fit_after_ridge(
        self, grids: list[dict[str, Any]], known: list[Any], source: list[Any]
    ) -> None:
        """Fit what a subclass adds to the ridge, on the training grids (nothing here)."""

    # -------------------------------------------------------------- predict
    def _tail(self, s: SeriesArrays, horizon: int) -> SeriesArrays:
        """Return the rows of ``s`` a forecast of ``horizon`` steps reads (``_keep_history``)."""
        n = len(s.y)
        start = max(n - self._keep_history(), 0)
        fut = None if s.future is None else s.future[start : n + horizon]
        return SeriesArrays(s.key, s.y[start:], s.index[start:], None, fut)

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        grids = self._grids([self._tail(s, horizon) for s in series], horizon)
        known, source = self._known(grids)
        step = wallclock.fixed_step(self.freq_)
        out = np.empty((len(series), horizon, len(self.columns_)))
        for i, (g, kn, so) in enumerate(zip(grids, known, source, strict=True)):
            out[i] = self._roll(g, kn, so, step)
        return out

    def _lead_forecasts(
        self, c: int, phase: int | np.ndarray, leads: np.ndarray, x: np.ndarray
    ) -> np.ndarray:
        """Return the forecasts of channel ``c`` at ``leads`` from ``x`` (J, F).

        ``phase`` is the origins' time of day: one for all rows, or one per row.
        """
        w = self.coef_[c, phase, leads - 1]  # (J, F)
        return np.einsum("jf,jf->j", x, w) + self.intercept_[c, phase, leads - 1]

    def _roll(self, g: dict[str, Any], known: Any, source: Any, step: int | None) -> np.ndarray:
        """Forecast one grid block of ``horizon_`` leads at a time up to the last target."""
        grid, pos = g["grid"], g["pos"]
        origin = grid.origin
        if origin + 1 < self._need():
            raise ValueError(
                f"{validation._where(g['key'])}history covers {origin + 1} local wall-clock steps, "
                "fewer "
                f"than the {self._need()} LinearLagForecaster needs"
            )
        n_new = max(int(pos.max()) - origin, 0)
        values = np.concatenate([grid.values, np.zeros((n_new, grid.values.shape[1]))])
        done = 0
        while done < n_new:
            o = origin + done
            leads = np.arange(1, min(self.horizon_, n_new - done) + 1)
            phase = int(wallclock.phase_of(g["times"][o : o + 1], step, self.n_phases_)[0])
            block = np.empty((len(leads), values.shape[1]))
            for c in range(values.shape[1]):
                x = direct.regressors(
                    values[:, c],
                    np.full(len(leads), o),
                    leads,
                    self.lags_,
                    self.seasonal_lags_,
                    known,
                    source,
                )
                block[:, c] = self._lead_forecasts(c, phase, leads, x)
            values[o + leads] = block
            done += len(leads)
        # targets at or before the origin (inside a repeated autumn hour) are observed
        return values[pos]

    # ---------------------------------------------------------- explanation
    def _decompose(self, series: SeriesArrays, horizon: int) -> Decomposition:
        """Split the forecast of ``series`` into its regression terms (the explanation hook).

        Lead ``j`` of channel ``c`` is ``mean + scale * (b + sum_k w_k x_k)``: the term of
        regressor ``k`` is ``scale * w_k * x_k`` and the baseline is every regressor at zero,
        ``mean + scale * b`` (:data:`BASELINE`). Regressors that read the same value (the
        lag of one day and the seasonal lag ``"1D"``) are one input. A target at or before
        the origin (inside a repeated autumn hour) is the observed value, one term.

        Raises
        ------
        NotDecomposable
            If a lead lies beyond ``horizon_`` (the forecast feeds on itself there) or a
            subclass adds to the ridge's forecast.
        """
        name = type(self).__name__
        if type(self)._lead_forecasts is not LinearLagForecaster._lead_forecasts:
            raise NotDecomposable(
                f"{name} adds to the ridge's forecast, so its forecast is not the sum of the "
                "ridge's terms: it has no exact decomposition"
            )
        g = self._grids([self._tail(series, horizon)], horizon)[0]
        grid, pos = g["grid"], g["pos"]
        if horizon > self.horizon_ or int(pos.max()) - grid.origin > self.horizon_:
            raise NotDecomposable(
                f"the exact terms of {name} need a horizon within its direct leads "
                f"(horizon_={self.horizon_}, steps of the local clock); got horizon={horizon}"
            )
        keys: dict[tuple[str, str, int], int] = {}  # (kind, column, grid position) -> input
        terms: list[tuple[int, int, int, float]] = []  # (step, channel, input, term)
        forecast, baseline = self._lead_terms(g, keys, terms)
        contributions = np.zeros((horizon, len(self.columns_), len(keys)))
        at = np.asarray(terms)
        where = (at[:, 0].astype(int), at[:, 1].astype(int), at[:, 2].astype(int))
        np.add.at(contributions, where, at[:, 3])
        listed = sorted(keys, key=keys.__getitem__)
        positions = np.array([p for _, _, p in listed])
        return Decomposition(
            method="exact",
            baseline_text=BASELINE,
            kind=np.array([kind for kind, _, _ in listed], dtype=object),
            name=np.array([column for _, column, _ in listed], dtype=object),
            time=wallclock.instants(np.asarray(g["times"])[positions], self.timezone, self.tz_),
            step=positions - grid.origin,
            contributions=contributions,
            forecast=forecast,
            baseline=baseline,
        )

    def _lead_terms(
        self,
        g: dict[str, Any],
        keys: dict[tuple[str, str, int], int],
        terms: list[tuple[int, int, int, float]],
    ) -> tuple[np.ndarray, np.ndarray]:
        """Append the terms of each target of grid ``g`` to ``terms``, numbering inputs in ``keys``.

        Returns the forecast and the baseline, ``(H, C)`` in the units of the data.
        """
        known, source = self._known([g])
        grid, pos = g["grid"], g["pos"]
        origin = grid.origin
        step = wallclock.fixed_step(self.freq_)
        phase = int(wallclock.phase_of(g["times"][origin : origin + 1], step, self.n_phases_)[0])
        columns = list(self.columns_)
        mean = np.zeros(len(columns)) if self.scaler_ is None else self.scaler_.mean_
        scale = np.ones(len(columns)) if self.scaler_ is None else self.scaler_.scale_
        forecast, baseline = np.empty((len(pos), len(columns))), np.empty((len(pos), len(columns)))
        for k, target in enumerate(pos):
            j = int(target - origin)
            for c, column in enumerate(columns):
                if j < 1:  # inside a repeated autumn hour: the observed value itself
                    key = keys.setdefault((LAG, column, int(target)), len(keys))
                    terms.append((k, c, key, float(grid.values[target, c]) * scale[c]))
                    forecast[k, c] = mean[c] + scale[c] * grid.values[target, c]
                    baseline[k, c] = mean[c]
                    continue
                x = direct.regressors(
                    grid.values[:, c],
                    np.array([origin]),
                    np.array([j]),
                    self.lags_,
                    self.seasonal_lags_,
                    known[0],
                    source[0],
                )[0]
                w = self.coef_[c, phase, j - 1]
                b = self.intercept_[c, phase, j - 1]
                layout = direct.regressor_layout(
                    origin,
                    j,
                    self.lags_,
                    self.seasonal_lags_,
                    self.future_covariates_,
                    self.calendar,
                    self.country,
                )
                for (kind, name, p), value in zip(layout, w * x, strict=True):
                    key = keys.setdefault((kind, name or column, int(p)), len(keys))
                    terms.append((k, c, key, float(value) * scale[c]))
                forecast[k, c] = mean[c] + scale[c] * (b + float(w @ x))
                baseline[k, c] = mean[c] + scale[c] * b
        return forecast, baseline
