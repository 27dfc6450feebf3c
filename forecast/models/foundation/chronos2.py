"""Chronos-2 (Amazon, ``chronos-forecasting``) as a zero-shot forecaster with covariates."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from forecast.base import SeriesArrays
from forecast.models.declare import declare_params, param
from forecast.models.foundation._base import FoundationForecaster
from forecast.models.foundation._weights import hub_revision

__all__ = ["Chronos2Forecaster"]

_MISSING = (
    "Chronos2Forecaster needs the extra forecast-toolkit[foundation] (chronos-forecasting): "
    "pip install 'forecast-toolkit[foundation]'"
)


@declare_params()
class Chronos2Forecaster(FoundationForecaster):
    """Chronos-2, a pretrained encoder that forecasts quantiles zero-shot, with covariates.

    Nothing is trained: ``fit`` validates the data, loads the pretrained weights once (to
    check them and read the model's context length and quantile levels) and records a
    reference to them; ``predict`` forecasts from the last ``context_length_`` rows of the
    history. Past covariates (observed up to the forecast origin) and future covariates
    (known for the forecast steps, ``future=`` of ``predict``) go to Chronos-2 as its
    ``past_covariates`` and ``future_covariates``; ``calendar=True`` adds the calendar
    features (hour, weekday, day of year, holidays of ``country``) as future covariates.
    Several target columns are forecast jointly (Chronos-2's multivariate mode).

    The point forecast is the median; ``predict(quantiles=True)`` adds the ``quantiles``
    levels, read from the model's 21 levels (0.01 ... 0.99) by linear interpolation.
    ``context_length=None`` reads the model's maximum context (8192 steps for the published
    Chronos-2); ``batch_size`` counts every target and covariate column as one series.

    Needs the extra ``forecast-toolkit[foundation]`` (``chronos-forecasting``), imported only when
    the weights are loaded. The weights are read from a local folder (``save_pretrained``
    output: ``config.json`` and ``model.safetensors``) or from the model hub through the
    hub's cache (``HF_HOME``; ``HF_HUB_OFFLINE=1`` never downloads).

    Attributes
    ----------
    weights_reference_ : dict
        Where the weights are: ``source`` (``"local"`` or ``"hub"``), ``location``,
        ``revision``, the hub ``commit`` that was read, and the ``sha256`` of the weight
        file (checked when the weights are read again after ``load``).
    context_length_ : int
        Rows of history each forecast reads.
    model_context_length_ : int
        The model's maximum context.
    model_levels_ : tuple of float
        The model's quantile levels.
    quantile_levels_ : tuple of float
        Levels of ``predict(quantiles=True)``, with the median.
    device_ : str
        Device the model runs on.
    columns_, future_covariates_, past_covariates_, freq_, tz_ :
        Targets, covariates, frequency and time zone seen in ``fit``.

    Examples
    --------
    >>> from forecast.models.foundation import Chronos2Forecaster  # doctest: +SKIP
    >>> model = Chronos2Forecaster(weights="amazon/chronos-2")  # doctest: +SKIP
    >>> model.fit(df).predict(horizon=36, quantiles=True)  # doctest: +SKIP
    """

    _weights_file = "model.safetensors"

    weights: str = param(
        default="amazon/chronos-2",
        type="str",
        doc="A local checkpoint folder, or a hub id (a str, as saved folders store it).",
        kw_only=False,
    )
    future_covariates: Sequence[str] | None = param(
        default=None,
        type="list of str or None",
        doc="Columns known in advance (e.g. the grid operators' forecast, weather forecasts).",
    )
    past_covariates: Sequence[str] | None = param(
        default=None,
        type="list of str or None",
        doc="Columns observed up to the forecast origin only.",
    )
    calendar: bool = param(
        default=False, type="bool", doc="Add calendar features as future covariates."
    )
    country: str | None = param(
        default=None,
        type="str or None",
        doc='Holiday calendar of the calendar features (``"DE"``).',
    )
    timezone: str | None = param(
        default=None,
        type="str or None",
        doc="Local time zone of the calendar features (None: the data's own).",
    )
    cross_learning: bool = param(
        default=False,
        type="bool",
        doc="""Let the series of one call attend to each other (Chronos-2's group attention);
        forecasts then depend on the batch.""",
    )

    def _load_model(self, reference: dict[str, Any], device: str) -> Any:
        try:
            from chronos import Chronos2Pipeline  # the optional extra forecast-toolkit[foundation]
        except ImportError as err:
            raise ImportError(_MISSING) from err
        if reference["source"] == "local":
            where = str(Path(reference["location"]).parent)
            pipeline = Chronos2Pipeline.from_pretrained(where)
        else:
            pinned = hub_revision(reference)
            revision = {"revision": pinned} if pinned else {}
            pipeline = Chronos2Pipeline.from_pretrained(reference["location"], **revision)
        pipeline.model.to(device)
        pipeline.model.eval()
        return pipeline

    def _model_context_length(self, model: Any) -> int:
        return int(model.model_context_length)

    def _model_levels(self, model: Any) -> tuple[float, ...]:
        return tuple(model.quantiles)

    def _inputs(self, s: SeriesArrays, horizon: int) -> dict[str, Any]:
        """One Chronos-2 task: the targets ``(C, T)`` and the covariates by name."""
        n = len(s.y)
        task: dict[str, Any] = {"target": s.y.T.astype(np.float32)}
        past: dict[str, np.ndarray] = {}
        future: dict[str, np.ndarray] = {}
        if s.past is not None:  # the declared past covariates
            for j, name in enumerate(self.past_covariates_):
                past[f"past:{name}"] = s.past[:, j]
        if s.future is not None:
            user = list(self.future_covariates_)
            names = user + [f"calendar:{j}" for j in range(s.future.shape[1] - len(user))]
            for j, name in enumerate(names):
                past[f"future:{name}"] = s.future[:n, j]
                future[f"future:{name}"] = s.future[n : n + horizon, j]
        if past:
            task["past_covariates"] = past
        if future:
            task["future_covariates"] = future
        return task

    def _forecast(self, model: Any, contexts: list[SeriesArrays], horizon: int) -> np.ndarray:
        tasks = [self._inputs(s, horizon) for s in contexts]
        out = model.predict(
            tasks,
            prediction_length=horizon,
            batch_size=int(self.batch_size),
            context_length=int(self.context_length_),
            cross_learning=bool(self.cross_learning),
        )  # N tensors (C, G, H)
        return np.stack([t.numpy().transpose(2, 0, 1) for t in out]).astype(float)  # (N, H, C, G)
