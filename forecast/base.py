"""The estimator base: public ``fit``/``predict``/``predict_origins`` validate and convert once.

``fit`` is defined here; ``predict`` and ``predict_origins`` are those of
:class:`forecast.frames.pipeline.ForecastPipeline`, the one frame pipeline that the ONNX
runtime (:class:`forecast.onnx.runtime.OnnxForecaster`) runs too. Both are templates over
private hooks:

- ``fit``: ``prepared = _prepare_fit(X)``, the callbacks' ``on_fit_start``,
  ``_fit_frames(X, prepared, callbacks)``, the callbacks' ``on_fit_end``.
- ``predict`` / ``predict_origins``: check the fit and the horizon, resolve ``quantiles``
  (``_select_levels``), then ``_predict_frames(horizon, history, future, levels,
  max_horizon)`` / ``_predict_origins_frames(data, origins, horizon, levels, max_horizon)``.

These frame hooks default to the array path: validate and convert through
:mod:`forecast.frames` (cleaning, scaling, series, origins, output), then call on clean
arrays ``_fit(series, callbacks)`` (``series``: a list of :class:`SeriesArrays`, one per
series, targets scaled when ``_scale_targets``) and ``_predict(series, horizon)`` (an array
``(n_series, horizon, n_channels)`` in the same units), or ``_predict_quantiles`` (one more
axis, the ``_quantile_levels()``). Lengths are hooks too (``_min_history``,
``_min_train_length``, ``_length_reason``, ``_check_train_lengths``, ``_keep_history``), and
so is how frames are read (``_covariate_names``, ``_fill``, ``_scale_covariates``,
``_calendar``, defaults from the declared :class:`~forecast.frames.options.FrameOptions`).

Meta-estimators that fit inner estimators on the caller's frames
(:class:`forecast.ConformalForecaster`, :class:`forecast.EnsembleForecaster`) override the frame
hooks instead: ``_prepare_fit`` checks the parameters and ``X`` (and does what must precede the
callbacks: the conformal calibration backtest) and returns what ``_fit_frames`` needs;
``_fit_frames`` fits the inner estimators and copies ``columns_``, ``freq_``, ``tz_`` and the other
metadata from them; the two predict hooks forecast through them. They scale and convert nothing.
``save`` and ``load`` come from :class:`forecast.persistence.methods.SavedFolderMethods`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

import pandas as pd

from forecast.frames import validation as V
from forecast.frames.cleaning import target_columns
from forecast.frames.decomposition import Decomposition, DifferentiableForecast, no_exact_terms
from forecast.frames.options import FrameOptions
from forecast.frames.pipeline import ForecastPipeline, FrameLike
from forecast.frames.scaling import Scaling
from forecast.frames.series import SeriesArrays
from forecast.frames.vintages import TRAINED_ON_OBSERVED
from forecast.persistence.methods import SavedFolderMethods
from forecast.training.update import UpdateMethods

if TYPE_CHECKING:
    # scikit-learn ships no type hints: seen through its untyped base, every estimator would
    # derive from Any and type checkers would accept any constructor argument and attribute.
    # This typed view has no __getattr__: an attribute is a parameter, a fitted attribute
    # declared by the class that sets it, or an error (``model.hiden_size``).
    class BaseEstimator:  # noqa: D101
        def get_params(self, deep: bool = True) -> dict[str, Any]: ...  # noqa: D102
        def set_params(self, **params: Any) -> Self: ...  # noqa: D102
        @classmethod
        def _get_param_names(cls) -> list[str]: ...
        def __getstate__(self) -> dict[str, Any]: ...
        def __setstate__(self, state: dict[str, Any]) -> None: ...

else:
    from sklearn.base import BaseEstimator

__all__ = ["BaseForecaster", "FrameLike", "SeriesArrays"]


class BaseForecaster(UpdateMethods, SavedFolderMethods, ForecastPipeline, BaseEstimator):
    """Base class of every forecaster: validation, scaling, covariates and containers.

    Parameters read here when a subclass declares them (covariates, calendar, NaN policy)
    are those of :class:`~forecast.frames.options.FrameOptions`.

    Time zones: the series of one call are all naive or all in one time zone. Data given
    later (``predict(history=...)``, ``predict_origins``, ``future=``) must be naive when
    the fit was naive and aware when it was aware; aware timestamps in another zone are
    converted to the fitted zone (the same instants), and forecasts are returned in it.
    """

    _scale_targets: bool = True

    # fitted attributes set by ``_prepare_fit`` beside those ForecastPipeline reads (columns_,
    # freq_, tz_, index_name_, input_kind_, the covariates, scalers and train_tail_); fit
    # also starts the lineage (lineage_, updated_through_, n_updates_: UpdateMethods)
    training_covariates_: str | None  # what the future covariates were during training

    def _fit(self, series: list[SeriesArrays], callbacks: list[Any]) -> None:
        raise NotImplementedError

    def _min_train_length(self) -> int:
        """Rows each training series must have."""
        return self._min_history() + 1

    def _length_reason(self) -> str:
        """How ``_min_train_length`` is made up, for the too-short message (subclasses)."""
        if type(self)._min_train_length is BaseForecaster._min_train_length:
            return f"{self._min_history()} step(s) of history + 1 step to learn from"
        return ""

    def _check_train_lengths(self, lengths: dict[Any, int]) -> None:
        """Raise if a training series (key -> rows, cleaned) is too short (subclasses)."""
        for key, rows in lengths.items():
            V.check_length(rows, self._min_train_length(), key, self._length_reason())

    def _keep_history(self) -> int | None:
        """Rows of training data kept for ``predict`` without history (None: all)."""
        return None

    def _decompose(
        self, series: SeriesArrays, horizon: int
    ) -> Decomposition | DifferentiableForecast:
        """Say how the forecast of ``series`` splits into its inputs (hook of ``explain``).

        An estimator whose forecast is a sum of terms it knows returns them (a
        :class:`~forecast.frames.decomposition.Decomposition`); one whose forecast is a
        differentiable function of its inputs returns that function, its inputs and a
        baseline (a :class:`~forecast.frames.decomposition.DifferentiableForecast`, the
        networks). Here there is neither: it raises
        :class:`~forecast.frames.decomposition.NotDecomposable`, and ``explain`` samples.
        """
        raise no_exact_terms(type(self).__name__)

    def _covariate_names(self) -> tuple[list[str], list[str]]:
        """Return the declared ``(future, past)`` covariate columns."""
        return FrameOptions.of(self).covariates()

    def _prepare_fit(self, X: FrameLike) -> Any:
        """Validate ``X``, set the fitted metadata and scalers; return ``(frames, kind)``."""
        frames, kind = V.split_series(X, "X")
        future_cols, past_cols = self._covariate_names()
        first = next(iter(frames.values()))
        targets = target_columns(first, future_cols + past_cols)
        freq, clean = None, {}
        for key, frame in frames.items():
            clean[key], freq = self._clean(frame, key, targets, future_cols + past_cols, freq, "X")
        assert freq is not None and isinstance(first.index, pd.DatetimeIndex)  # checked by _clean
        self.freq_ = freq
        self._check_train_lengths({key: len(frame) for key, frame in clean.items()})
        self.columns_ = targets
        self.tz_ = str(first.index.tz) if first.index.tz is not None else None
        self.input_kind_ = kind
        self.index_name_ = first.index.name
        self.future_covariates_, self.past_covariates_ = future_cols, past_cols
        self.training_covariates_ = TRAINED_ON_OBSERVED if future_cols else None
        scaling = Scaling.fit(clean, targets, past_cols + future_cols, self._scale_targets)
        self.scaler_, self.covariate_scaler_ = scaling.target, scaling.covariate
        keep = self._keep_history()
        self.train_tail_ = {k: (f if keep is None else f.iloc[-keep:]) for k, f in clean.items()}
        return clean, kind

    def _fit_frames(self, X: FrameLike, prepared: Any, callbacks: list[Any]) -> None:
        """Fit on what ``_prepare_fit`` returned (default: the clean frames, by ``_fit``)."""
        frames, _ = prepared
        self._fit(self._to_arrays(frames, horizon=0, future=None), callbacks)

    def fit(self, X: FrameLike, y: None = None, *, callbacks: list[Any] | None = None) -> Self:
        """Fit the forecaster on one or several series.

        Parameters
        ----------
        X : DataFrame, long DataFrame or dict of DataFrames
            Each frame has a regular ``DatetimeIndex`` and one column per target channel,
            plus the declared covariate columns. A long frame has an ``id`` column (and a
            ``time`` column or a DatetimeIndex). All series are naive or all in one time
            zone; column names are unique.
        y : None
            Ignored; present for scikit-learn compatibility.
        callbacks : list, optional
            Training callbacks (for example MLflow tracking); not a hyperparameter.

        Returns
        -------
        self
        """
        callbacks = list(callbacks or [])
        prepared = self._prepare_fit(X)
        for callback in callbacks:
            callback.on_fit_start(self)
        self._fit_frames(X, prepared, callbacks)
        self._start_lineage(X)  # lineage_, updated_through_, n_updates_
        for callback in callbacks:
            callback.on_fit_end(self)
        return self
