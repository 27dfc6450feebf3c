"""Standard scaling of targets and user covariates, fitted once over all series of a fit.

:class:`Scaling` holds the two fitted scikit-learn ``StandardScaler`` of an estimator (kept
as its ``scaler_`` and ``covariate_scaler_`` attributes, which saved folders store) and
applies them: targets forward and back (forecasts of any shape, channels last or, for
quantile forecasts, channels before the levels), covariate columns by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler


@dataclass(frozen=True)
class Scaling:
    """Fitted target and covariate scalers.

    Attributes
    ----------
    target : StandardScaler or None
        Scaler of the target columns (None: targets are not scaled).
    covariate : StandardScaler or None
        Scaler of the user covariate columns ``covariates`` (None when there are none).
    covariates : list of str
        Columns of ``covariate``, in order (past covariates, then future ones).
    """

    target: StandardScaler | None
    covariate: StandardScaler | None
    covariates: list[str]

    @classmethod
    def fit(
        cls,
        frames: dict[Any, pd.DataFrame],
        targets: list[str],
        covariates: list[str],
        scale_targets: bool = True,
    ) -> Scaling:
        """Fit the scalers on the rows of every series of ``frames`` stacked."""
        stacked = pd.concat(list(frames.values()))
        target = StandardScaler().fit(stacked[targets].to_numpy()) if scale_targets else None
        covariate = StandardScaler().fit(stacked[covariates].to_numpy()) if covariates else None
        return cls(target, covariate, list(covariates))

    def scale(self, y: np.ndarray) -> np.ndarray:
        """Scaled targets ``(T, C)``."""
        return self.target.transform(y) if self.target is not None else y

    def unscale(self, pred: np.ndarray) -> np.ndarray:
        """Forecasts ``(..., C)`` back in the units of the data."""
        if self.target is None:
            return pred
        return pred * self.target.scale_ + self.target.mean_

    def unscale_levels(self, pred: np.ndarray) -> np.ndarray:
        """Quantile forecasts ``(n, horizon, C, Q)`` back in the units of the data."""
        if self.target is None:
            return pred
        return pred * self.target.scale_[:, None] + self.target.mean_[:, None]

    def scale_covariates(self, frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
        """Scaled values ``(T, len(columns))`` of the covariate ``columns`` of ``frame``."""
        values = frame[columns].to_numpy(dtype=float)
        if not columns:
            return values
        pos = [self.covariates.index(c) for c in columns]
        assert self.covariate is not None  # fitted whenever there are covariate columns
        return (values - self.covariate.mean_[pos]) / self.covariate.scale_[pos]
