"""Forecast combination: the weighted mean of several estimators' forecasts.

:class:`EnsembleForecaster` fits a clone of each member on the same data and forecasts the
weighted mean of their point forecasts (in ``predict`` and ``predict_origins``), so it works
wherever one estimator does: ``backtest``, ``compare``, experiment specs, saved folders.
Members are ``(name, estimator)`` pairs as in scikit-learn's ``VotingRegressor``, so nested
parameters read ``name__param``. With ``weights_by="hour"`` the weights are 24 rows, one per
local clock hour of the target time (weights chosen by :func:`forecast.blend_weights`); with
``weights_by="step"`` one row per step ahead of the origin (a short-range member weighs most
on the first steps, a long-range one on the last).
(Not to be confused with :mod:`forecast.nn.ensemble`, the average over seeds inside one
neural model.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Self, cast

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from forecast.base import BaseForecaster, FrameLike
from forecast.combine import weights as W
from forecast.frames import validation as V
from forecast.models.declare import declare_params, param
from forecast.models.fit_cache import fit as fit_once
from forecast.training.callbacks import EpochsOnly

if TYPE_CHECKING:
    # scikit-learn ships no type hints: an untyped base would make every attribute of the
    # ensemble Any (a misspelled one too); this is the part of it the ensemble calls
    class _BaseComposition:
        def _get_params(self, attr: str, deep: bool = True) -> dict[str, Any]: ...
        def _set_params(self, attr: str, **params: Any) -> Self: ...
        def _validate_names(self, names: list[str]) -> None: ...

else:
    from sklearn.utils.metaestimators import _BaseComposition


@declare_params()
class EnsembleForecaster(BaseForecaster, _BaseComposition):
    """Weighted mean of the point forecasts of several estimators.

    Attributes
    ----------
    estimators_ : list of BaseForecaster
        The fitted clones, in the order of ``estimators``.
    names_ : list of str
        Their names.
    named_estimators_ : dict
        The fitted clones by name.
    weights_ : ndarray of shape (n_members,), (24, n_members) or (n_steps, n_members)
        The normalised weights (with ``weights_by="hour"``: row ``h`` for the hour ``h``;
        with ``weights_by="step"``: row ``k`` for the step ``k + 1``).
    columns_, freq_, tz_ : list, DateOffset, str or None
        Targets, frequency and time zone of the fitted data (shared by all members).

    Notes
    -----
    Only point forecasts are combined: ``quantiles=`` raises. For intervals around the
    combined forecast, wrap the ensemble in :class:`forecast.ConformalForecaster`.
    Callbacks passed to ``fit`` hear of the start and end of the ensemble's fit and of the
    epochs of every member's fit.

    Examples
    --------
    >>> from forecast import EnsembleForecaster, Naive, SeasonalNaive
    >>> model = EnsembleForecaster(
    ...     [("last", Naive()), ("week", SeasonalNaive(season="7D"))], weights=[0.3, 0.7]
    ... )
    >>> fc = model.fit(df).predict(24)  # doctest: +SKIP

    Weights per hour of day (here hours 0-5 and 22-23 lean on the weekly profile):

    >>> hourly = [[0.2, 0.8]] * 6 + [[0.6, 0.4]] * 16 + [[0.2, 0.8]] * 2
    >>> model.set_params(weights=hourly, weights_by="hour")  # doctest: +ELLIPSIS
    EnsembleForecaster(...)

    Weights per step ahead (forecasts of up to 3 steps; the weekly profile gains weight):

    >>> stepwise = [[0.9, 0.1], [0.5, 0.5], [0.2, 0.8]]
    >>> model.set_params(weights=stepwise, weights_by="step")  # doctest: +ELLIPSIS
    EnsembleForecaster(...)
    """

    estimators: list[tuple[str, BaseForecaster]] | None = param(
        default=None,
        type="list of (str, BaseForecaster)",
        doc="""The members, each with a unique name that is a Python identifier without ``__``
        (nested parameters read ``<name>__<param>``). They are cloned in ``fit``, never
        changed. All members forecast the same target columns; each sees the covariate
        columns it declares.""",
        kw_only=False,
    )
    weights: Sequence[Any] | np.ndarray | pd.DataFrame | None = param(
        default=None,
        type="sequence of float, 2-D array-like or DataFrame",
        doc="""With ``weights_by=None``: one non-negative weight per member, not all zero. With
        ``weights_by="hour"``: 24 rows (hours 0-23) of one weight per member, as a list of
        lists, a 2-D array, or a DataFrame indexed by the hours 0-23 with one column per
        member name; with ``weights_by="step"``: K rows the same way (steps 1-K ahead of the
        origin, a DataFrame indexed by 1-K), K at least the longest horizon forecast; every
        row non-negative and not all zero. Normalised to sum to 1 (each row). None: equal
        weights (not with ``"step"``). A saved model keeps lists (as
        :func:`forecast.blend_weights` returns and specs give); arrays and DataFrames
        cannot be saved.""",
        kw_only=False,
    )
    weights_by: Literal["hour", "step"] | None = param(
        default=None,
        type='{None, "hour", "step"}',
        doc="""None: one set of weights for every forecast value. ``"hour"``: each forecast value
        is combined with the row of ``weights`` of the clock hour of its target time, in
        the time zone of the fitted data (tz-aware data: the local hour, across daylight
        saving changes too; naive data: the clock hour as given). A sub-hourly step uses
        the hour it lies in; data sampled more coarsely than hourly is refused.
        ``"step"``: the ``k``-th value ahead of each origin is combined with row ``k - 1``;
        a horizon longer than the rows is refused.""",
        kw_only=False,
    )

    # ------------------------------------------------------------ parameters
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters, with each member's as ``<name>__<param>`` when ``deep``."""
        return self._get_params("estimators", deep=deep)

    def set_params(self, **params: Any) -> EnsembleForecaster:
        """Set parameters, members by name and their parameters as ``<name>__<param>``."""
        self._set_params("estimators", **params)
        return self

    def _members(self) -> list[tuple[str, BaseForecaster]]:
        members = self.estimators
        if not isinstance(members, list | tuple) or not members:
            raise TypeError(
                f"estimators must be a non-empty list of (name, estimator) pairs, got {members!r}"
            )
        for i, pair in enumerate(members):
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise TypeError(f"estimators[{i}] must be a (name, estimator) pair, got {pair!r}")
            name, est = pair
            if not isinstance(name, str) or not name.isidentifier() or "__" in name:
                raise ValueError(
                    f"estimators[{i}]: name {name!r} must be a Python identifier without '__' "
                    "(nested parameters read <name>__<param>)"
                )
            if not isinstance(est, BaseForecaster):
                raise TypeError(
                    f"estimators[{i}] ({name!r}) must be a forecast estimator (a "
                    f"BaseForecaster), got {est!r}"
                )
        self._validate_names([name for name, _ in members])
        return [(name, est) for name, est in members]

    def _normalised_weights(self) -> np.ndarray:
        names = [name for name, _ in self._members()]
        return W.check_weights(self.weights, self.weights_by, names)

    def _check_params(self) -> None:
        self._normalised_weights()

    # ----------------------------------------------------------- delegation
    def _covariate_names(self) -> tuple[list[str], list[str]]:
        future: list[str] = []
        past: list[str] = []
        for _, est in self._members():
            f, p = est._covariate_names()
            future += [c for c in f if c not in future]
            past += [c for c in p if c not in past]
        both = sorted(set(future) & set(past))
        if both:
            raise ValueError(
                f"columns {both} are a future covariate of one member and a past covariate of "
                "another: declare them the same way in every member"
            )
        return future, past

    def _fitted(self) -> list[BaseForecaster]:
        return getattr(self, "estimators_", None) or [est for _, est in self._members()]

    def _min_history(self) -> int:
        return max(est._min_history() for est in self._fitted())

    def _quantile_levels(self) -> tuple[float, ...]:
        return ()

    @property
    def named_estimators_(self) -> dict[str, BaseForecaster]:
        """The fitted members by name."""
        check_is_fitted(self, "estimators_")
        return dict(zip(self.names_, self.estimators_, strict=True))

    @property
    def train_tail_(self) -> dict[Any, pd.DataFrame]:  # type: ignore[override]  # see below
        # BaseForecaster assigns train_tail_ in _prepare_fit; an ensemble derives it
        """The longest history a member keeps for ``predict`` without history."""
        tails = [est.train_tail_ for est in self.estimators_]
        return max(tails, key=lambda t: sum(len(f) for f in t.values()))

    def _own_columns(self, data: Any, est: BaseForecaster) -> Any:
        """Drop from ``data`` the covariates only other members declare (a new container)."""
        if data is None:
            return None
        future, past = self._covariate_names()
        mine = set().union(*est._covariate_names())
        drop = [c for c in future + past if c not in mine]
        if not drop:
            return data
        if isinstance(data, dict):
            return {k: f.drop(columns=[c for c in drop if c in f.columns]) for k, f in data.items()}
        if isinstance(data, pd.DataFrame):
            return data.drop(columns=[c for c in drop if c in data.columns])
        return data  # the member's own validation reports the type

    # ------------------------------------------------------------------ fit
    def _prepare_fit(self, X: FrameLike) -> None:
        """Check the members, the weights and ``X`` (container errors name X, not a member)."""
        self._check_params()
        frames, _ = V.split_series(X, "X")
        W.check_hourly_data(frames, self.weights_by)

    def _fit_frames(self, X: FrameLike, prepared: None, callbacks: list[Any]) -> None:
        """Fit a clone of every member on ``X`` (its targets and its own covariates)."""
        members = self._members()
        epochs = [EpochsOnly(c) for c in callbacks]
        fitted = [fit_once(clone(est), self._own_columns(X, est), epochs) for _, est in members]
        first = fitted[0]
        for (name, _), est in zip(members[1:], fitted[1:], strict=True):
            if list(est.columns_) != list(first.columns_):
                raise ValueError(
                    f"member {name!r} forecasts the columns {list(est.columns_)}, member "
                    f"{members[0][0]!r} forecasts {list(first.columns_)}: members must share "
                    "their target columns"
                )
        self.estimators_: list[BaseForecaster] = fitted
        self.names_: list[str] = [name for name, _ in members]
        self.weights_: np.ndarray = self._normalised_weights()  # (M,), (24, M) or (K, M)
        self.columns_, self.freq_, self.tz_ = list(first.columns_), first.freq_, first.tz_
        self.input_kind_, self.index_name_ = first.input_kind_, first.index_name_
        self.future_covariates_, self.past_covariates_ = self._covariate_names()

    # -------------------------------------------------------------- predict
    def _select_levels(self, quantiles: bool | tuple[float, ...] | None) -> tuple[float, ...]:
        if quantiles is not None and quantiles is not False:
            raise ValueError(
                "EnsembleForecaster combines point forecasts only, not quantiles: drop "
                "quantiles=, or wrap the ensemble in forecast.ConformalForecaster for intervals"
            )
        return ()

    def _predict_frames(
        self,
        horizon: int,
        history: Any,
        future: Any,
        levels: tuple[float, ...],
        max_horizon: int | None,
    ) -> FrameLike:
        """Weighted mean of the members' forecasts (``history`` cut to each one's columns)."""
        self._check_steps(horizon)
        forecasts = [
            est.predict(
                horizon,
                history=self._own_columns(history, est),
                future=future,
                max_horizon=max_horizon,
            )
            for est in self.estimators_
        ]
        if isinstance(forecasts[0], dict):  # every member returns the container it was given
            tables = cast(list[dict[Any, pd.DataFrame]], forecasts)
            return {k: self._combine([f[k] for f in tables]) for k in tables[0]}
        return self._combine(cast(list[pd.DataFrame], forecasts))

    def _predict_origins_frames(
        self,
        data: Any,
        origins: Any,
        horizon: int,
        levels: tuple[float, ...],
        max_horizon: int | None,
        future: pd.DataFrame | None = None,
    ) -> pd.DataFrame:
        """Weighted mean of the members' forecasts from every origin."""
        self._check_steps(horizon)
        forecasts = [
            est.predict_origins(
                self._own_columns(data, est),
                origins,
                horizon,
                max_horizon=max_horizon,
                future=future,
            )
            for est in self.estimators_
        ]
        return self._combine(forecasts)

    def _check_steps(self, horizon: int) -> None:
        """Refuse a horizon beyond the rows of step weights (before any member forecasts)."""
        if self.weights_by == "step" and horizon > len(self.weights_):
            raise ValueError(
                f"horizon={horizon}, but weights_by='step' gives weights for steps "
                f"1-{len(self.weights_)} only: forecast at most {len(self.weights_)} steps, "
                "or give a row of weights for every step up to the horizon"
            )

    def _combine(self, forecasts: list[pd.DataFrame]) -> pd.DataFrame:
        """``sum_i weights_[i] * forecast_i`` over the target columns, checked to align.

        With weights per hour, each row takes the weights of its target time's hour; with
        weights per step, those of its step ahead of the origin.
        """
        names = self.names_
        first, targets = forecasts[0], list(self.columns_)
        keys = [c for c in first.columns if c not in targets]
        for name, other in zip(names[1:], forecasts[1:], strict=True):
            if not other.index.equals(first.index) or list(other.columns) != list(first.columns):
                raise ValueError(
                    f"member {name!r} returned a forecast with another index or columns than "
                    f"member {names[0]!r} ({list(other.columns)} vs {list(first.columns)}, "
                    f"{len(other)} vs {len(first)} rows): they cannot be averaged"
                )
            if keys and not other[keys].equals(first[keys]):
                raise ValueError(
                    f"member {name!r} returned forecasts for other origins, series or times "
                    f"than member {names[0]!r}: they cannot be averaged"
                )
        weights = self.weights_  # (M,), (24, M) or (K, M)
        long = V.TIME_COLUMN in keys
        if weights.ndim == 2:
            if self.weights_by == "step":
                weights = weights[W.target_steps(first, long, keys) - 1]  # (rows, M)
            else:
                weights = weights[W.target_hours(first, long)]  # (rows, M)
            weights = weights.T[:, :, None]  # (M, rows, 1): one weight per row
        total = np.zeros((len(first), len(targets)))
        for w, forecast in zip(weights, forecasts, strict=True):
            total = total + w * forecast[targets].to_numpy(dtype=float)
        out = first.copy()
        out[targets] = total
        return out
