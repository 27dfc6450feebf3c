"""Analog-day memory: a reference forecast corrected by its errors on similar stored days.

:class:`AnalogDayForecaster` fits a reference forecaster, then keeps the training data as a
memory of past days. To forecast from an origin it issues the reference's forecast and
retrieves, from the memory, the days whose forecast was issued at the same local time of day
and whose situation was most alike: the last ``context`` of the series as a profile relative
to its mean, the season (day of year) and, with ``country``, the holiday and bridge-day
shares of the days the forecast covers. Retrieval is one step of modern Hopfield pooling
(Ramsauer et al., 2020) with fixed projections: the stored situations are the keys, the
reference's relative errors on those days (its in-sample forecasts against what followed) are
the values, and the weights are ``softmax(-beta * d2)`` over the scaled squared distances
``d2``. The forecast is the reference's times ``1 + shrink * retrieved error``. With
``memory_folds=K`` the stored errors are out-of-fold instead: the fitted data is cut into
``K`` contiguous blocks, and the errors of a block's days are those of a reference fitted
without that block, so they are the size of the errors the reference makes when it forecasts.

The stored days are those of the fitted data only, and a stored day is used only once the
whole of its forecast window lies at or before the origin (no future leakage when an origin
falls inside the training data).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone

from forecast.base import BaseForecaster, FrameLike, SeriesArrays
from forecast.combine.analog_keys import day_keys, key_distances
from forecast.frames import validation as V
from forecast.frames.slices import block_bounds, without_block
from forecast.frames.steps import steps
from forecast.frames.timezones import to_local
from forecast.models.declare import declare_params, param
from forecast.models.fit_cache import fit as fit_once
from forecast.persistence.registry import is_forecaster
from forecast.training.callbacks import EpochsOnly


@declare_params()
class AnalogDayForecaster(BaseForecaster):
    """A reference forecast corrected by Hopfield retrieval over stored training days.

    Attributes
    ----------
    reference_model_ : BaseForecaster
        The fitted reference.
    reference_model_folds_ : list of BaseForecaster
        The references fitted without each block (empty with ``memory_folds=1``).
    memory_ : dict
        The training frames (targets), by series key (None for a single frame).
    context_steps_ : int
        ``context`` in steps.
    columns_, freq_, tz_
        Targets, frequency and time zone of the fitted data.

    Notes
    -----
    The defaults of ``beta``, ``shrink`` and the three weights were chosen on German load of
    2022 (trained on 2019-2021, ``LinearLagForecaster`` with the German calendar as reference,
    960 combinations; ``docs/results/day-ahead.md``).

    Errors are relative (``actual / reference - 1``), so targets should stay away from
    zero (load, demand); a reference forecast within 1e-9 of zero contributes no error.
    The memory of a day is built at the first forecast for an origin time of day and horizon
    (one in-sample ``predict_origins`` of the reference over the training data), then reused.
    A series that was not in the fitted data gets the reference's forecast unchanged (it has
    no memory). Point forecasts only. The key covers the days the forecast covers, and a
    stored day counts once its whole window (of the asked horizon) is observed, so a forecast
    of a step can change with the horizon asked: a network with this memory as its
    ``reference_model`` always reads it over its whole head.

    Examples
    --------
    >>> from forecast import LinearLagForecaster
    >>> from forecast.combine import AnalogDayForecaster
    >>> model = AnalogDayForecaster(LinearLagForecaster(calendar=True), country="DE")
    >>> fc = model.fit(df).predict(36)  # doctest: +SKIP
    """

    reference_model: BaseForecaster | None = param(
        default=None,
        type="BaseForecaster",
        doc="""Forecaster fitted first on the same data (a clone, ``reference_model_``); it must
        take no covariates. Its forecasts for the stored days are in-sample.""",
        kw_only=False,
    )
    context: int | str = param(
        default="7D",
        type="int or str",
        doc="""History in the profile key: steps, or a duration such as ``"7D"``.""",
        kw_only=False,
    )
    beta: float = param(
        default=5.0,
        type="float",
        doc="Inverse temperature of the retrieval (larger: fewer, closer days).",
        kw_only=False,
    )
    shrink: float = param(
        default=0.75,
        type="float",
        doc="""Share of the retrieved relative error added to the reference's forecast (0: the
        reference alone).""",
        kw_only=False,
    )
    profile_weight: float = param(
        default=1.0,
        type="float",
        doc="""Weight of the profiles in the distance: their mean squared difference, in units
        of 10 % of the mean.""",
        kw_only=False,
    )
    season_weight: float = param(
        default=3.0,
        type="float",
        doc="Weight of the season in the distance: the day of year on the unit circle.",
        kw_only=False,
    )
    holiday_weight: float = param(
        default=3.0,
        type="float",
        doc="""Weight of the holiday columns of the covered days in the distance (needs
        ``country``).""",
        kw_only=False,
    )
    memory_folds: int = param(
        default=1,
        type="int",
        doc="""Contiguous blocks of the fitted data for out-of-fold errors: each block's stored
        errors come from a clone of the reference fitted on the other blocks (``K`` more
        fits). 1 stores the in-sample errors of ``reference_model_``.""",
        kw_only=False,
    )
    country: str | None = param(
        default=None,
        type="str or None",
        doc="""Holiday calendar of the holiday part (``"DE"``, ``"DE-BY"``); None leaves it
        out.""",
        kw_only=False,
    )
    timezone: str | None = param(
        default=None,
        type="str or None",
        doc="""Zone of the local clock (time of day, dates) for time-zone-aware data; None: the
        data's own zone. Naive data is taken as local time.""",
        kw_only=False,
    )

    # the memory reads and forecasts in the data's units (the reference scales its own)
    scaler_ = None
    covariate_scaler_ = None

    # ----------------------------------------------------------- parameters
    def _check_params(self) -> None:
        if not is_forecaster(self.reference_model):
            raise TypeError(
                "reference_model must be a forecast estimator such as LinearLagForecaster(), "
                f"got {self.reference_model!r}"
            )
        folds = self.memory_folds
        if isinstance(folds, bool) or not isinstance(folds, int | np.integer) or folds < 1:
            raise ValueError(f"memory_folds must be an integer >= 1, got {folds!r}")
        for name in ("beta", "shrink", "profile_weight", "season_weight", "holiday_weight"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"{name} must be a number, got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be finite and >= 0, got {value!r}")

    def _covariate_names(self) -> tuple[list[str], list[str]]:
        return [], []

    def _min_history(self) -> int:
        inner: Any = getattr(self, "reference_model_", None) or self.reference_model
        n = getattr(self, "context_steps_", 1)
        return max(inner._min_history(), n) if is_forecaster(inner) else n

    def _select_levels(self, quantiles: bool | tuple[float, ...] | None) -> tuple[float, ...]:
        if quantiles is not None and quantiles is not False:
            raise ValueError(
                "AnalogDayForecaster forecasts points only: drop quantiles=, or wrap it in "
                "forecast.ConformalForecaster for intervals"
            )
        return ()

    # ------------------------------------------------------------------ fit
    def _prepare_fit(self, X: FrameLike) -> tuple[dict[Any, pd.DataFrame], str]:
        self._check_params()
        return V.split_series(X, "X")

    def _fit_frames(self, X: FrameLike, prepared: Any, callbacks: list[Any]) -> None:
        frames, kind = prepared
        epochs = [EpochsOnly(c) for c in callbacks]
        ref = fit_once(clone(self.reference_model), X, epochs)
        if ref.future_covariates_ or ref.past_covariates_:
            raise ValueError(
                "reference_model must take no covariates (the memory stores its forecasts of "
                f"the targets), got future {ref.future_covariates_}, past {ref.past_covariates_}"
            )
        self.reference_model_: BaseForecaster = ref
        self.columns_, self.freq_, self.tz_ = list(ref.columns_), ref.freq_, ref.tz_
        self.input_kind_, self.index_name_ = ref.input_kind_, ref.index_name_
        self.future_covariates_, self.past_covariates_ = [], []
        self.context_steps_: int = steps(self.context, "context", self.freq_)
        self.memory_: dict[Any, pd.DataFrame] = {
            k: f[self.columns_].astype(float) for k, f in frames.items()
        }
        folds = int(self.memory_folds)
        blocks = [without_block(self.memory_, b, folds) for b in range(folds)] if folds > 1 else []
        base = self.reference_model
        self.reference_model_folds_: list[BaseForecaster] = [
            fit_once(clone(base), d, epochs) for d in blocks
        ]
        keep = self._min_history()
        self.train_tail_: dict[Any, pd.DataFrame] = {
            k: f.iloc[-keep:] for k, f in self.memory_.items()
        }

    # -------------------------------------------------------------- predict
    def _predict_frames(
        self,
        horizon: int,
        history: Any,
        future: Any,
        levels: tuple[float, ...],
        max_horizon: int | None,
    ) -> FrameLike:
        base = self.reference_model_.predict(horizon, history=history, max_horizon=max_horizon)
        frames = self.train_tail_ if history is None else V.split_series(history, "history")[0]
        parts, kind = V.split_series(base, "forecast")
        out = {}
        for key, part in parts.items():
            origin = part.index[0] - self.freq_
            factor = self._factors(key, frames[key], [origin], horizon)[0]  # (h, C)
            out[key] = part * factor
        return V.join_series(out, kind)

    def _predict_origins_frames(
        self,
        data: Any,
        origins: Any,
        horizon: int,
        levels: tuple[float, ...],
        max_horizon: int | None,
        future: pd.DataFrame | None = None,
    ) -> pd.DataFrame:
        ref = self.reference_model_
        base = ref.predict_origins(data, origins, horizon, max_horizon=max_horizon)
        frames, _ = V.split_series(data, "data")
        ids = base[V.ID_COLUMN].to_numpy() if V.ID_COLUMN in base.columns else None
        out = base.copy()
        values = base[self.columns_].to_numpy(float, copy=True)
        for key in frames if ids is not None else [None]:
            rows = np.flatnonzero(ids == key) if ids is not None else np.arange(len(base))
            if len(rows) == 0:
                continue
            starts = pd.DatetimeIndex(base["origin"].to_numpy()[rows[::horizon]])
            factor = self._factors(key, frames[key], list(starts), horizon)  # (n, h, C)
            values[rows] = values[rows] * factor.reshape(len(rows), -1)
        out[self.columns_] = values
        return out

    # ------------------------------------------------- as a network's reference
    def _keep_history(self) -> int | None:
        """Return the steps of history a forecast reads: the reference's, at least ``context``."""
        inner: Any = getattr(self, "reference_model_", None)
        keep = None if inner is None else inner._keep_history()
        return None if keep is None else max(int(keep), self.context_steps_)

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        """Forecasts ``(n, horizon, C)`` from the end of each series, in the data's units.

        The array path a network with this memory as ``reference_model`` calls for each of
        its windows (:class:`~forecast.models.referenced.ReferenceResidualMixin`): the
        reference's forecast (through its pipeline entry point, ``_predict_data_units``) times
        the factors retrieved for each window's last step. The memory scales nothing: its
        arrays are in the data's units (``scaler_`` None).
        """
        base = np.asarray(self.reference_model_._predict_data_units(series, horizon), dtype=float)
        factors = np.ones_like(base)
        n = self.context_steps_
        keys = [s.key for s in series]
        for key in dict.fromkeys(keys):
            rows = [i for i, k in enumerate(keys) if k == key and len(series[i].y) >= n]
            if not rows:
                continue
            # the last ``context`` steps of each series, end to end: origin i is at i*n + n-1
            values = np.concatenate([series[i].y[-n:] for i in rows])
            stamps = np.concatenate([series[i].index[-n:].as_unit("ns").asi8 for i in rows])
            tz = series[rows[0]].index.tz
            index = pd.DatetimeIndex(stamps.view("M8[ns]"))
            index = index if tz is None else index.tz_localize("UTC").tz_convert(tz)
            pos = np.arange(len(rows)) * n + n - 1
            factors[rows] = self._retrieve(key, values, index, pos, horizon)
        return base * factors

    # ------------------------------------------------------------- retrieval
    def _factors(
        self, key: Any, frame: pd.DataFrame, origins: list[pd.Timestamp], horizon: int
    ) -> np.ndarray:
        """``1 + shrink * retrieved relative error``, shape ``(n_origins, horizon, C)``."""
        index = pd.DatetimeIndex(frame.index)
        pos = index.get_indexer(pd.DatetimeIndex(origins))
        return self._retrieve(key, frame[self.columns_].to_numpy(float), index, pos, horizon)

    def _retrieve(
        self, key: Any, values: np.ndarray, index: pd.DatetimeIndex, pos: np.ndarray, horizon: int
    ) -> np.ndarray:
        """Return the factors of the origins at positions ``pos`` of ``values`` (steps ``index``).

        An origin with less than ``context`` steps before it, or of a series without a
        memory, keeps the factor 1.
        """
        out = np.ones((len(pos), horizon, len(self.columns_)))
        if self.shrink == 0 or len(pos) == 0:
            return out
        stamps = index[pos]
        local = self._local(stamps)
        phases = local.hour * 60 + local.minute
        for phase in np.unique(phases):
            todo = np.flatnonzero((phases == phase) & (pos >= self.context_steps_ - 1))
            bank = self._bank(key, local[todo[0]], horizon) if len(todo) else None
            if bank is None:
                continue
            query = self._key_parts(values, index, pos[todo], bank["n_days"])
            parts = {"profile": self.profile_weight, "season": self.season_weight,
                     "holiday": self.holiday_weight}  # fmt: skip
            d2 = key_distances(query, bank["keys"], parts)  # (n_query, n_stored)
            # a stored window counts only once it lies wholly at or before the origin
            ends, at = bank["ends"].as_unit("ns").asi8, stamps[todo].as_unit("ns").asi8
            d2[ends[None, :] > at[:, None]] = np.inf
            seen = np.isfinite(d2).any(axis=1)
            d2 = d2[seen]
            weights = np.exp(-self.beta * (d2 - d2.min(axis=1, keepdims=True)))
            weights /= weights.sum(axis=1, keepdims=True)
            retrieved = np.tensordot(weights, bank["errors"], axes=1)  # (n, h, C)
            out[todo[seen]] += self.shrink * retrieved
        return out

    def _local(self, index: pd.DatetimeIndex) -> pd.DatetimeIndex:
        zone = self.timezone or self.tz_  # None only for naive data, which stays as given
        return index if zone is None else to_local(index, zone)

    def _bank(self, key: Any, origin_local: pd.Timestamp, horizon: int) -> dict[str, Any] | None:
        """Build (once) the stored days of series ``key`` issued at the origin's time of day."""
        phase = (origin_local.hour, origin_local.minute)
        cache_key = (key, phase, horizon)
        banks = self.__dict__.setdefault("_banks", {})  # built on first use, never saved
        if cache_key in banks:
            return banks[cache_key]
        if key not in self.memory_:  # a series the fit did not see has no memory
            return None
        frame = self.memory_[key]
        index = pd.DatetimeIndex(frame.index)
        local = self._local(index)
        pos = np.flatnonzero((local.hour == phase[0]) & (local.minute == phase[1]))
        pos = pos[(pos >= self._min_history() - 1) & (pos + horizon < len(frame))]
        values = frame.to_numpy(float)
        truth = values[pos[:, None] + np.arange(1, horizon + 1)]  # (n, h, C)
        pos = pos[np.isfinite(truth).all(axis=(1, 2))]
        if len(pos) == 0:
            banks[cache_key] = None
            return None
        truth = values[pos[:, None] + np.arange(1, horizon + 1)]
        pred = self._reference_forecasts(key, frame, pos, horizon)
        safe = np.abs(pred) > 1e-9
        errors = np.where(safe, truth / np.where(safe, pred, 1.0) - 1.0, 0.0)
        last = local[min(len(local) - 1, pos[0] + horizon)]
        n_days = (last.normalize() - local[pos[0]].normalize()).days + 1
        bank = {
            "keys": self._key_parts(values, index, pos, n_days),
            "errors": errors,
            "ends": index[pos + horizon],
            "n_days": n_days,
        }
        banks[cache_key] = bank
        return bank

    def _reference_forecasts(
        self, key: Any, frame: pd.DataFrame, pos: np.ndarray, horizon: int
    ) -> np.ndarray:
        """Forecast the fitted ``frame`` from the origins at ``pos``: ``(n, horizon, C)``.

        With ``memory_folds > 1`` an origin in block ``b`` is forecast by the reference fitted
        without block ``b``; otherwise by ``reference_model_`` (in-sample).
        """
        data = frame if key is None else {key: frame}
        folds = getattr(self, "reference_model_folds_", [])  # absent in older folders
        models = folds or [self.reference_model_]
        which = np.zeros(len(pos), dtype=int)
        for b in range(1, len(models)):
            which[pos >= block_bounds(len(frame), b, len(models))[0]] = b
        out = np.empty((len(pos), horizon, len(self.columns_)))
        for b, model in enumerate(models):
            rows = np.flatnonzero(which == b)
            if len(rows):
                pred = model.predict_origins(data, list(frame.index[pos[rows]]), horizon)
                out[rows] = pred[self.columns_].to_numpy(float).reshape(len(rows), horizon, -1)
        return out

    def _key_parts(
        self, values: np.ndarray, index: pd.DatetimeIndex, pos: np.ndarray, n_days: int
    ) -> dict[str, np.ndarray]:
        """Keys of the origins at ``pos`` (:func:`~forecast.combine.analog_keys.day_keys`)."""
        local = self._local(index[pos])
        return day_keys(values, pos, local, self.context_steps_, n_days, self.country)
