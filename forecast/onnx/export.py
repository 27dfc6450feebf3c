"""Export a fitted neural forecaster to an ONNX folder (``model.onnx`` + strict JSON metadata).

The network (encoder, head, window normalisation, references, linear skip, step changes,
ensemble averaging, a seq2seq decoder unrolled over its fixed horizon) is one ONNX graph:
context windows ``x`` ``(batch, context_length, n_inputs)`` and, when the model reads
future-known covariates, ``future`` ``(batch, head_horizon, n_future)`` in; the forecast
``(batch, head_horizon, C)`` (``(..., C, Q)`` for a quantile head) out. Scaling, calendar
features, windows and the recursive roll-out stay outside the graph, in the torch-free
functions of :mod:`forecast.frames` that the estimator itself calls.

Exporter: the TorchScript-based ``torch.onnx.export(..., dynamo=False)``. The default
(dynamo) exporter of torch 2.13 needs the extra package ``onnxscript`` and re-traces the
model through ``torch.export``; the recurrent encoders and the decoder loop are plain
Python loops over a fixed number of steps, which tracing unrolls exactly, so the older path
is enough and needs only ``onnx`` and ``onnxruntime``. Two gaps of that exporter are filled
here: ``torch.diff`` (step changes) gets an ONNX translation, and the peephole LSTM's in-place
loop is traced through an out-of-place stand-in (:mod:`forecast.onnx.traceable`). Every export
is checked: onnxruntime runs the graph on random windows and must match the estimator's own
torch modules within ``CHECK_ATOL`` (relative), else nothing is written.
"""

from __future__ import annotations

import copy
import io
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from pandas.tseries.frequencies import to_offset
from torch import Tensor, nn

from forecast._version import __version__
from forecast.frames.options import FrameOptions
from forecast.frames.writes import refuse_foreign
from forecast.onnx.metadata import (
    MANIFEST,
    NETWORK,
    check_metadata,
    is_export_folder,
    manifest_bytes,
)
from forecast.onnx.traceable import traceable

OPSET = 17
CHECK_ATOL = 1e-5  # onnxruntime against torch on the check windows, in scaled units


class _Forward(nn.Module):
    """The network's forecast alone (no state), the function ONNX records."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: Tensor, future: Tensor | None = None) -> Tensor:
        """Forecast of windows ``x`` (B, L, I) with ``future`` (B, h, F) or None."""
        return self.net(x, future)[0]


def _refuse(estimator: Any, what: str) -> None:
    raise ValueError(f"{type(estimator).__name__}.to_onnx: {what}")


def _scaler(scaler: Any, estimator: Any, name: str) -> dict[str, Any] | None:
    if scaler is None:
        return None
    # a scaler fitted by Scaling.fit: StandardScaler() with its defaults
    defaults = getattr(scaler, "with_mean", None) is True and getattr(scaler, "with_std", None)
    if type(scaler).__name__ != "StandardScaler" or not defaults:
        _refuse(estimator, f"{name} is {type(scaler).__name__}, only StandardScaler() is exported")
    return {"mean": [float(v) for v in scaler.mean_], "scale": [float(v) for v in scaler.scale_]}


def _strings(values: Any, estimator: Any, name: str) -> list[str]:
    values = list(values or [])
    if not all(isinstance(v, str) for v in values):
        _refuse(estimator, f"{name} {values!r} are not all strings (JSON metadata keeps strings)")
    return values


def metadata(estimator: Any) -> dict[str, Any]:
    """Return the JSON metadata of a fitted neural estimator (refusing what is not exported).

    Parameters
    ----------
    estimator : NeuralForecaster
        A fitted neural forecaster.

    Returns
    -------
    dict
        The fields of :data:`forecast.onnx.metadata.FIELDS`.
    """
    if not hasattr(estimator, "module_") or not hasattr(estimator, "columns_"):
        _refuse(estimator, "the estimator is not fitted; call fit first")
    freq = estimator.freq_
    if to_offset(freq.freqstr) != freq:
        _refuse(estimator, f"frequency {freq!r} does not survive its name {freq.freqstr!r}")
    index_name = estimator.index_name_
    if index_name is not None and not isinstance(index_name, str):
        _refuse(estimator, f"index name {index_name!r} is not a string")
    options = FrameOptions.of(estimator)
    horizon = getattr(estimator, "horizon", None)
    meta = {
        "estimator": type(estimator).__name__,
        "forecast_version": __version__,
        "opset": OPSET,
        "inputs": ["x", "future"] if estimator.n_future_ else ["x"],
        "columns": _strings(estimator.columns_, estimator, "target columns"),
        "past_covariates": _strings(estimator.past_covariates_, estimator, "past covariates"),
        "future_covariates": _strings(estimator.future_covariates_, estimator, "covariates"),
        "freq": freq.freqstr,
        "tz": estimator.tz_,
        "index_name": index_name,
        "target_scaler": _scaler(estimator.scaler_, estimator, "scaler_"),
        "covariate_scaler": _scaler(estimator.covariate_scaler_, estimator, "covariate_scaler_"),
        "calendar": bool(options.calendar),
        "country": options.country,
        "timezone": options.timezone,
        "fill_gaps": bool(options.fill_gaps),
        "nan_policy": str(options.nan_policy),
        "context_length": int(estimator.context_length),
        "horizon": horizon if isinstance(horizon, int) else None,
        "head_horizon": int(estimator.head_horizon_),
        "n_inputs": int(estimator.n_inputs_),
        "n_outputs": int(estimator.n_outputs_),
        "n_past": int(estimator.n_past_),
        "n_future": int(estimator.n_future_),
        "quantiles": None if not estimator.quantiles_ else [float(q) for q in estimator.quantiles_],
    }
    return check_metadata(meta, Path(MANIFEST))


def _diff(g: Any, x: Any, n: Any, dim: Any, prepend: Any, append: Any) -> Any:
    """ONNX of ``torch.diff(x, n=1, dim=dim, prepend=p)`` (opset 17 has no ``aten::diff``)."""
    # the exporter's own helpers, imported only while an export runs
    from torch.onnx import symbolic_helper as sym

    n, dim = sym._maybe_get_const(n, "i"), sym._maybe_get_const(dim, "i")
    if n != 1 or not sym._is_none(append):
        raise ValueError("to_onnx: torch.diff is exported for n=1 without append= only")
    if not sym._is_none(prepend):
        x = g.op("Concat", prepend, x, axis_i=dim)

    def part(start: int, stop: int) -> Any:
        bounds = [g.op("Constant", value_t=torch.tensor([v])) for v in (start, stop, dim)]
        return g.op("Slice", x, *bounds)

    return g.op("Sub", part(1, 2**62), part(0, -1))  # x[1:] - x[:-1] along dim


def _example(meta: dict[str, Any], batch: int, seed: int = 0) -> tuple[Tensor, ...]:
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, meta["context_length"], meta["n_inputs"], generator=gen)
    if not meta["n_future"]:
        return (x,)
    return x, torch.randn(batch, meta["head_horizon"], meta["n_future"], generator=gen)


def network_bytes(estimator: Any, meta: dict[str, Any]) -> bytes:
    """Trace the estimator's network on CPU into ONNX bytes, checked with onnxruntime."""
    # the exporter is part of torch, onnxruntime is the extra forecast[onnx]
    import onnxruntime as ort

    reference = _Forward(copy.deepcopy(estimator.module_).cpu()).eval()  # eval: dropout off
    net = _Forward(traceable(reference.net)).eval()  # stand-ins the tracer records right
    names = list(meta["inputs"])
    axes = {name: {0: "batch"} for name in [*names, "forecast"]}
    buffer = io.BytesIO()
    torch.onnx.register_custom_op_symbolic("aten::diff", _diff, OPSET)  # idempotent
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation and tracer notes
        torch.onnx.export(
            net,
            _example(meta, 2),
            buffer,  # type: ignore[arg-type]  # dynamo=False writes to files too; torch: paths
            dynamo=False,
            input_names=names,
            output_names=["forecast"],
            dynamic_axes=axes,
            opset_version=OPSET,
        )
    data = buffer.getvalue()
    check = _example(meta, 5, seed=1)
    with torch.no_grad():
        want = reference(*check).numpy()  # the estimator's own modules, not the stand-ins
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    got = session.run(None, {n: t.numpy() for n, t in zip(names, check, strict=True)})[0]
    gap = float(np.max(np.abs(got - want))) if got.shape == want.shape else float("inf")
    if not gap <= CHECK_ATOL * max(1.0, float(np.max(np.abs(want)))):
        _refuse(estimator, f"onnxruntime differs from torch by {gap:.3g} on check windows")
    return data


def _is_replaceable(path: Path) -> bool:
    """Whether ``overwrite=True`` may delete ``path``: an export folder and nothing else."""
    if not path.is_dir() or not is_export_folder(path):
        return False
    return all(
        entry.name in (NETWORK, MANIFEST) and entry.is_file() and not entry.is_symlink()
        for entry in path.iterdir()
    )


def export_onnx(estimator: Any, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Write ``model.onnx`` and ``onnx_model.json`` of a fitted neural estimator to ``path``.

    Parameters
    ----------
    estimator : NeuralForecaster
        A fitted neural forecaster.
    path : str or path-like
        Folder to create.
    overwrite : bool, default=False
        Replace an existing export folder, one that holds ``onnx_model.json`` and
        ``model.onnx`` and nothing else; any other existing path (a folder with a file of
        someone else's in it, a link, a file) raises ``FileExistsError`` and is left as it was.

    Returns
    -------
    Path
        The folder written; nothing is left behind when a check fails.
    """
    target = Path(path)
    if target.exists() or target.is_symlink():
        if not overwrite:
            raise FileExistsError(
                f"{target} exists; pass overwrite=True to replace an ONNX export folder"
            )
        refuse_foreign(target, _is_replaceable, "an ONNX export folder (only its two files)")
    meta = metadata(estimator)
    network = network_bytes(estimator, meta)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        (staging / NETWORK).write_bytes(network)
        (staging / MANIFEST).write_bytes(manifest_bytes(meta, network))
        if target.exists():
            old = staging.with_name(staging.name + ".old")
            os.replace(target, old)
            try:
                os.replace(staging, target)
            except OSError:
                os.replace(old, target)  # the previous export stays in place
                raise
            shutil.rmtree(old)
        else:
            os.replace(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return target
