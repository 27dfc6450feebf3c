"""Direct forecasts from lags and the calendar: ridge, then boosted trees on its residuals."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from forecast.base import SeriesArrays
from forecast.models.baselines import _trees as trees
from forecast.models.baselines import _wallclock as wallclock
from forecast.models.baselines.linear import LinearLagForecaster
from forecast.models.declare import declare_params, param


@declare_params()
class BoostedLagForecaster(LinearLagForecaster):
    """:class:`LinearLagForecaster` plus gradient-boosted trees on its residuals, per lead.

    The ridge of :class:`LinearLagForecaster` is fitted first, with the same regressors (lags
    behind the origin, the same local time on earlier days, day-level calendar and holiday
    regressors, declared future covariates). Then, for each channel and lead, a
    :class:`~sklearn.ensemble.HistGradientBoostingRegressor` learns what the ridge leaves:
    its inputs are the ridge's regressors, the local time of day of the origin and the ridge's
    forecast; its target is the ridge's error on the training rows. The forecast is the ridge's
    plus the trees'. Trees capture what a linear model on these regressors cannot: interactions
    such as a holiday that changes only some hours, or a response that depends on the level.

    The trees are kept as arrays of their nodes (:mod:`~forecast.models.baselines._trees`), so
    a saved model is data only, like every other model of the library.

    Attributes
    ----------
    coef_, intercept_, lags_, seasonal_lags_, horizon_, n_phases_
        The ridge, as in :class:`LinearLagForecaster`.
    trees_ : dict of ndarray
        Node arrays of the ``n_channels * horizon_`` tree models (model ``c * horizon_ + j - 1``
        for channel ``c`` and lead ``j``), see :func:`~forecast.models.baselines._trees.stack`.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from forecast.models.baselines import BoostedLagForecaster
    >>> index = pd.date_range("2023-01-01", periods=24 * 28, freq="h")
    >>> t = np.arange(24 * 28)
    >>> df = pd.DataFrame({"load": np.sin(t * np.pi / 12) ** 2}, index=index)
    >>> model = BoostedLagForecaster(horizon=24, max_iter=20, min_samples_leaf=20).fit(df)
    >>> model.predict(horizon=24).shape
    (24, 1)
    """

    max_iter: int = param(
        default=200, type="int", doc="Trees per channel and lead (boosting rounds).", kw_only=False
    )
    learning_rate: float = param(
        default=0.05, type="float", doc="Shrinkage of each tree.", kw_only=False
    )
    max_leaf_nodes: int = param(default=15, type="int", doc="Leaves per tree.", kw_only=False)
    min_samples_leaf: int = param(
        default=100, type="int", doc="Fewest training rows in a leaf.", kw_only=False
    )
    l2_regularization: float = param(
        default=1.0, type="float", doc="L2 penalty on the leaf values.", kw_only=False
    )
    random_state: int = param(default=0, type="int", doc="Seed of the tree fits.", kw_only=False)

    def _tree_params(self) -> dict[str, Any]:
        ints = {
            "max_iter": self.max_iter,
            "max_leaf_nodes": self.max_leaf_nodes,
            "min_samples_leaf": self.min_samples_leaf,
            "random_state": self.random_state,
        }
        floats = {"learning_rate": self.learning_rate, "l2_regularization": self.l2_regularization}
        for name, value in ints.items():
            lowest = 0 if name == "random_state" else (2 if name == "max_leaf_nodes" else 1)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < lowest:
                raise ValueError(f"{name} must be an int >= {lowest}, got {value!r}")
        for name, number in floats.items():
            bad = isinstance(number, bool) or not isinstance(number, numbers.Real)
            if bad or number < 0 or (name == "learning_rate" and number == 0):
                kind = "positive" if name == "learning_rate" else "non-negative"
                raise ValueError(f"{name} must be a {kind} number, got {number!r}")
        return {**ints, **floats, "early_stopping": False}

    def _fit(self, series: list[SeriesArrays], callbacks: list[Any]) -> None:
        self._tree_params()  # bad settings are named before the ridge is fitted
        super()._fit(series, callbacks)

    def _fit_after_ridge(
        self, grids: list[dict[str, Any]], known: list[Any], source: list[Any]
    ) -> None:
        params = self._tree_params()
        step = wallclock.fixed_step(self.freq_)
        models = []
        for c in range(len(self.columns_)):
            for j in range(1, self.horizon_ + 1):
                rows = []
                errors = []
                lead_rows = self._lead_rows(
                    c, j, grids, known, source, self.lags_, self.seasonal_lags_
                )
                for grid, origins, x, y in lead_rows:
                    phase = wallclock.phase_of(grid.times[origins], step, self.n_phases_)
                    ridge = super()._lead_forecasts(c, phase, np.full(len(x), j), x)
                    rows.append(np.column_stack([x, phase, ridge]))
                    errors.append(y - ridge)
                models.append(trees.fit_trees(np.vstack(rows), np.concatenate(errors), **params))
        self.trees_ = trees.stack(models)

    def _lead_forecasts(
        self, c: int, phase: int | np.ndarray, leads: np.ndarray, x: np.ndarray
    ) -> np.ndarray:
        linear = super()._lead_forecasts(c, phase, leads, x)
        inputs = np.column_stack([x, np.full(len(leads), phase), linear])
        model = c * self.horizon_ + leads - 1
        return linear + trees.predict_trees(self.trees_, model, inputs)
