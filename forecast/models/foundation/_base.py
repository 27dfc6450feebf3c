"""The shared base of the pretrained (zero-shot) forecasters: weights, context and quantiles.

``fit`` learns nothing: it validates the frame through the estimator base like every other
estimator (targets, covariates, frequency, time zone), loads the pretrained model once to
check the weights and read its context length, and records the reference to the weights
(``forecast.models.foundation._weights``), the context length, the quantile levels and
the device. ``predict`` hands the last ``context_length_`` rows of each series (and the
covariates, where the family reads them) to the model and returns its quantiles.

The loaded model is held in a private attribute, never a fitted one: ``save`` writes the
configuration and the weights' reference only, ``pickle`` drops the model as well, and a
loaded or unpickled estimator reads the weights again (from the same place, checked to be
the same file) on its first forecast.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from forecast.base import BaseForecaster, SeriesArrays
from forecast.frames.messages import first_line
from forecast.frames.quantiles import check_levels
from forecast.models.declare import declare_params, param
from forecast.models.foundation._weights import check_unchanged, pin_hub, weights_reference
from forecast.training.device import resolve_device

__all__ = ["FoundationForecaster", "FoundationParams", "levels_from_grid"]


def levels_from_grid(
    values: np.ndarray, grid: tuple[float, ...], levels: tuple[float, ...], owner: str
) -> np.ndarray:
    """Quantiles at ``levels`` from forecasts at the model's ``grid`` of levels.

    The model's quantiles are sorted first (a pretrained model's quantiles may cross by a
    hair; sorting is the monotone rearrangement), then read at ``levels`` by linear
    interpolation between neighbouring grid levels.

    Parameters
    ----------
    values : ndarray of shape (..., len(grid))
        Forecasts at the grid levels.
    grid : tuple of float
        The model's levels, increasing.
    levels : tuple of float
        Levels wanted, within ``[grid[0], grid[-1]]``.
    owner : str
        The estimator's class name, for messages.

    Returns
    -------
    ndarray of shape (..., len(levels))

    Raises
    ------
    ValueError
        If a level lies outside the grid (the model has no tail beyond it).
    """
    outside = [q for q in levels if not grid[0] - 1e-12 <= q <= grid[-1] + 1e-12]
    if outside:
        raise ValueError(
            f"{owner}: quantile level {outside[0]} is outside the model's levels "
            f"{grid[0]}..{grid[-1]}"
        )
    ordered = np.sort(values, axis=-1)
    at = np.asarray(grid, dtype=float)
    upper = np.clip(np.searchsorted(at, levels, side="left"), 1, len(at) - 1)  # (L,)
    lower = upper - 1
    weight = (np.asarray(levels) - at[lower]) / (at[upper] - at[lower])  # (L,)
    return ordered[..., lower] * (1.0 - weight) + ordered[..., upper] * weight


@declare_params()
class FoundationParams:
    """The parameters every pretrained forecaster takes (keyword-only), declared once."""

    revision: str | None = param(
        default=None,
        type="str or None",
        doc="""Hub revision (branch, tag or commit hash) of a hub id; pin a commit for
        reproducible forecasts.""",
    )
    context_length: int | None = param(
        default=None,
        type="int or None",
        doc="Rows of history read per forecast; None: as many as the model reads.",
    )
    quantiles: Sequence[float] = param(
        default=(0.1, 0.5, 0.9),
        type="tuple of float",
        doc="Levels that ``predict(quantiles=True)`` returns (the median is always forecast).",
    )
    batch_size: int = param(
        default=256,
        type="int",
        doc="Series per forward pass (as the model counts them: see the class description).",
    )
    device: str = param(
        default="auto",
        type="str",
        doc='``"auto"`` (CUDA when present), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.',
    )
    nan_policy: Literal["raise", "interpolate"] = param(
        default="raise",
        type='{"raise", "interpolate"}',
        doc="What to do with missing values in the history.",
    )
    fill_gaps: bool = param(
        default=False, type="bool", doc="Insert missing timestamps and interpolate them."
    )


class FoundationForecaster(FoundationParams, BaseForecaster):
    """Base of the pretrained forecasters (subclasses load and call one model family).

    A family declares its ``weights`` parameter (its own default checkpoint) in front of the
    :class:`FoundationParams` and implements ``_load_model(reference, device)``,
    ``_model_context_length(model)``, ``_model_levels(model)`` and ``_forecast(model,
    contexts, horizon)``; the class attribute ``_weights_file`` names the weight file of a
    local checkpoint folder.
    """

    _scale_targets = False  # the models normalise each series themselves
    _weights_file = ""
    weights: str  # a parameter each family declares, with its own default checkpoint

    # -------------------------------------------------------------- subclass hooks
    def _load_model(self, reference: dict[str, Any], device: str) -> Any:
        raise NotImplementedError

    def _model_context_length(self, model: Any) -> int:
        raise NotImplementedError

    def _model_levels(self, model: Any) -> tuple[float, ...]:
        raise NotImplementedError

    def _forecast(self, model: Any, contexts: list[SeriesArrays], horizon: int) -> np.ndarray:
        """Forecasts ``(N, horizon, C, len(_model_levels))`` of the trimmed series."""
        raise NotImplementedError

    # ------------------------------------------------------------------ estimator
    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())
        state.pop("_model", None)  # a pickle holds the reference, never the weights
        return state

    def _scale_covariates(self, frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
        # the covariates go to the model as the user gave them; it normalises each one
        return frame[columns].to_numpy(dtype=float)

    def _checked_params(self) -> tuple[int | None, tuple[float, ...], int]:
        name = type(self).__name__
        context = self.context_length
        if context is not None and (
            isinstance(context, bool) or not isinstance(context, numbers.Integral) or context < 1
        ):
            raise ValueError(
                f"{name}: context_length must be a positive int or None, got {context!r}"
            )
        levels = check_levels(self.quantiles, f"{name}: quantiles")
        batch = self.batch_size
        if isinstance(batch, bool) or not isinstance(batch, numbers.Integral) or batch < 1:
            raise ValueError(f"{name}: batch_size must be a positive int, got {batch!r}")
        return (None if context is None else int(context)), levels, int(batch)

    def _fit(self, series: list[SeriesArrays], callbacks: list[Any]) -> None:
        name = type(self).__name__
        context, levels, _ = self._checked_params()
        reference = weights_reference(self.weights, self.revision, self._weights_file, name)
        self.device_: str = resolve_device(self.device)
        model = self._read(reference)
        reference = pin_hub(reference, self._weights_file)  # the hub commit that was read
        longest = int(self._model_context_length(model))
        if context is not None and context > longest:
            raise ValueError(
                f"{name}: context_length={context} exceeds the {longest} steps the model reads"
            )
        grid = tuple(float(q) for q in self._model_levels(model))
        levels_from_grid(np.zeros((1, len(grid))), grid, levels, name)  # levels within the grid
        self._model = model
        self.weights_reference_: dict[str, Any] = reference
        self.model_context_length_: int = longest
        self.context_length_: int = longest if context is None else context
        self.model_levels_: tuple[float, ...] = grid
        # the median is the point
        self.quantile_levels_: tuple[float, ...] = tuple(sorted({*levels, 0.5}))
        self.train_tail_ = {k: f.iloc[-self.context_length_ :] for k, f in self.train_tail_.items()}

    def _quantile_levels(self) -> tuple[float, ...]:
        return tuple(self.quantile_levels_)

    def _model_or_load(self) -> Any:
        """Return the loaded model; after ``load`` or unpickling, read it from the reference."""
        model = getattr(self, "_model", None)
        if model is None:
            check_unchanged(self.weights_reference_, self._weights_file, type(self).__name__)
            self.device_ = resolve_device(self.device)
            model = self._model = self._read(self.weights_reference_)
        return model

    def _read(self, reference: dict[str, Any]) -> Any:
        """Load the model of ``reference`` onto ``device_``; a failure names the weights."""
        where = f"{type(self).__name__}: cannot read the weights {reference['location']!r}"
        try:
            return self._load_model(reference, self.device_)
        except OSError as err:  # files missing, hub unreachable or offline
            raise OSError(f"{where} ({reference['source']}): {err}") from err
        except ValueError as err:  # a folder that is not a checkpoint of this family
            raise ValueError(f"{where} ({reference['source']}): {err}") from err
        except ImportError:  # the extra is missing: its own message says which
            raise
        except Exception as err:  # a foreign file: the unpickler's or torch's own errors
            detail = first_line(err) if str(err).strip() else ""  # its type is named already
            raise ValueError(
                f"{where} ({reference['source']}): not a checkpoint of "
                f"{type(self).__name__} ({type(err).__name__}: {detail})"
            ) from err

    def _trimmed(self, series: list[SeriesArrays], horizon: int) -> list[SeriesArrays]:
        """Cut each series to its last ``context_length_`` rows (covariate steps after kept)."""
        keep, out = self.context_length_, []
        for s in series:
            n = len(s.y)
            start = max(n - keep, 0)
            future = None if s.future is None else s.future[start : n + horizon]
            past = None if s.past is None else s.past[start:n]
            out.append(SeriesArrays(s.key, s.y[start:], s.index[start:], past, future))
        return out

    def _predict_quantiles(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        model = self._model_or_load()
        grid = self._forecast(model, self._trimmed(series, horizon), horizon)  # (N, H, C, G)
        name = type(self).__name__
        return levels_from_grid(grid, tuple(self.model_levels_), self._quantile_levels(), name)

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        full = self._predict_quantiles(series, horizon)  # (N, H, C, Q)
        return full[..., self._quantile_levels().index(0.5)]
