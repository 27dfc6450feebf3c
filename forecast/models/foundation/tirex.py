"""TiRex (NXAI, ``tirex-ts``): a pretrained xLSTM forecaster, zero-shot and univariate."""

from __future__ import annotations

import contextlib
import io
from typing import Any

import numpy as np
import torch

from forecast.base import SeriesArrays
from forecast.models.declare import declare_params, param
from forecast.models.foundation._base import FoundationForecaster
from forecast.models.foundation._weights import hub_revision

__all__ = ["TiRexForecaster"]

_MISSING = (
    "TiRexForecaster needs the extra forecast-toolkit[foundation] (tirex-ts): "
    "pip install 'forecast-toolkit[foundation]'"
)


@declare_params(defaults={"batch_size": 512})
class TiRexForecaster(FoundationForecaster):
    """TiRex, a pretrained xLSTM that forecasts quantiles zero-shot from the history alone.

    Nothing is trained: ``fit`` validates the data, loads the pretrained weights once (to
    check them and read the model's context length and quantile levels) and records a
    reference to them; ``predict`` forecasts each target column as its own univariate
    series from its last ``context_length_`` rows. TiRex reads no covariates.

    The point forecast is the median; ``predict(quantiles=True)`` adds the ``quantiles``
    levels, read from the model's nine levels (0.1 ... 0.9) by linear interpolation (levels
    outside 0.1 ... 0.9 raise). ``context_length=None`` reads the model's training context
    (2048 steps for the published TiRex); shorter histories are padded as missing.
    ``batch_size`` counts every target column as one series.

    Needs the extra ``forecast-toolkit[foundation]`` (``tirex-ts``), imported only when the weights
    are loaded. It runs TiRex's plain torch sLSTM (CPU or GPU, no custom CUDA kernels).
    The weights are a local ``model.ckpt`` (or a folder holding one) or a hub id read
    through the hub's cache. The TiRex weights come under the NXAI Community License.

    Attributes
    ----------
    weights_reference_ : dict
        Where the weights are (as in ``Chronos2Forecaster``).
    context_length_ : int
        Rows of history each forecast reads.
    model_context_length_ : int
        The model's training context.
    model_levels_ : tuple of float
        The model's quantile levels.
    quantile_levels_ : tuple of float
        Levels of ``predict(quantiles=True)``, with the median.
    device_ : str
        Device the model runs on.
    columns_, freq_, tz_ :
        Targets, frequency and time zone seen in ``fit``.

    Examples
    --------
    >>> from forecast.models.foundation import TiRexForecaster  # doctest: +SKIP
    >>> TiRexForecaster(weights="NX-AI/TiRex").fit(df).predict(horizon=36)  # doctest: +SKIP
    """

    _weights_file = "model.ckpt"

    weights: str = param(
        default="NX-AI/TiRex",
        type="str",
        doc="""A local checkpoint file or folder, or a hub id (a str, as saved folders store
        it).""",
        kw_only=False,
    )

    def _load_model(self, reference: dict[str, Any], device: str) -> Any:
        try:
            from tirex.models.tirex import TiRexZero  # extra forecast-toolkit[foundation]
        except ImportError as err:
            raise ImportError(_MISSING) from err
        pinned = hub_revision(reference)
        hub = {"revision": pinned} if pinned else {}
        with contextlib.redirect_stdout(io.StringIO()):  # it prints where it loads from
            model = TiRexZero.from_pretrained(
                reference["location"], backend="torch", device=device, hf_kwargs=hub
            )
        return model.eval()

    def _model_context_length(self, model: Any) -> int:
        return int(model.config.train_ctx_len)

    def _model_levels(self, model: Any) -> tuple[float, ...]:
        return tuple(model.config.quantiles)

    def _forecast(self, model: Any, contexts: list[SeriesArrays], horizon: int) -> np.ndarray:
        rows = [
            torch.tensor(s.y[:, c], dtype=torch.float32)
            for s in contexts
            for c in range(s.y.shape[1])
        ]
        quantiles, _ = model.forecast(
            rows, output_type="numpy", batch_size=int(self.batch_size), prediction_length=horizon
        )  # (N * C, H, G)
        n, c = len(contexts), len(self.columns_)
        grid = np.asarray(quantiles, dtype=float).reshape(n, c, horizon, -1)
        return grid.transpose(0, 2, 1, 3)  # (N, H, C, G)
