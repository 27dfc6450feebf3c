"""Export a fitted neural forecaster as a saved folder whose network is an ONNX graph.

The network (encoder, head, window normalisation, references, linear skip, step changes,
ensemble averaging, a seq2seq decoder unrolled over its fixed horizon) is one ONNX graph:
context windows ``x`` ``(batch, context_length, n_inputs)`` and, when the model reads
future-known covariates, ``future`` ``(batch, head_horizon, n_future)`` in; the forecast
``(batch, head_horizon, C)`` (``(..., C, Q)`` for a quantile head) out. Scaling, calendar
features, windows and the recursive roll-out stay outside the graph, in the frame pipeline
(:class:`forecast.frames.pipeline.ForecastPipeline`) that the estimator itself runs. The
folder is written by :mod:`forecast.onnx.folder`, its state and graph checked first as
loading checks them.

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
import platform
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import torch
from torch import Tensor, nn

from forecast._version import __version__
from forecast.frames.writes import refuse_foreign
from forecast.onnx.folder import export_files, is_replaceable_export
from forecast.onnx.graph import OPSET, check_graph, extra_module, graph_inputs
from forecast.onnx.metadata import NETWORK, check_state, export_state
from forecast.onnx.traceable import traceable
from forecast.persistence.atomic import write_folder
from forecast.persistence.errors import ModelFormatError
from forecast.persistence.registry import estimator_name

CHECK_ATOL = 1e-5  # onnxruntime against torch on the check windows, in scaled units


class _Forward(nn.Module):
    """The network's forecast alone (no state), the function ONNX records."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: Tensor, future: Tensor | None = None) -> Tensor:
        """Forecast of windows ``x`` (B, L, I) with ``future`` (B, h, F) or None."""
        return self.net(x, future)[0]


def _refuse(estimator: Any, what: str) -> NoReturn:
    raise ValueError(f"{type(estimator).__name__}.to_onnx: {what}")


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


def _example(estimator: Any, batch: int, seed: int = 0) -> tuple[Tensor, ...]:
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, int(estimator.context_length), estimator.n_inputs_, generator=gen)
    if not estimator.n_future_:
        return (x,)
    return x, torch.randn(batch, estimator.head_horizon_, estimator.n_future_, generator=gen)


def network_bytes(estimator: Any) -> bytes:
    """Trace the estimator's network on CPU into ONNX bytes, checked with onnxruntime."""
    ort = extra_module("onnxruntime")  # the exporter is part of torch, onnxruntime an extra

    reference = _Forward(copy.deepcopy(estimator.module_).cpu()).eval()  # eval: dropout off
    net = _Forward(traceable(reference.net)).eval()  # stand-ins the tracer records right
    names = graph_inputs({"n_future_": estimator.n_future_})
    axes = {name: {0: "batch"} for name in [*names, "forecast"]}
    buffer = io.BytesIO()
    torch.onnx.register_custom_op_symbolic("aten::diff", _diff, OPSET)  # idempotent
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation and tracer notes
        torch.onnx.export(
            net,
            _example(estimator, 2),
            buffer,  # type: ignore[arg-type]  # dynamo=False writes to files too; torch: paths
            dynamo=False,
            input_names=names,
            output_names=["forecast"],
            dynamic_axes=axes,
            opset_version=OPSET,
        )
    data = buffer.getvalue()
    check = _example(estimator, 5, seed=1)
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


def export_onnx(estimator: Any, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Write the export folder of a fitted neural estimator to ``path``.

    The folder is a saved model folder of the one format (:mod:`forecast.onnx.folder`):
    the state and the graph are checked as loading checks them before anything is written.

    Parameters
    ----------
    estimator : NeuralForecaster
        A fitted neural forecaster.
    path : str or path-like
        Folder to create.
    overwrite : bool, default=False
        Replace an existing export folder, one that holds the files its manifest lists and
        nothing else (or an export of the earlier format); any other existing path (a folder
        with a file of someone else's in it, a saved torch model, a link, a file) raises
        ``FileExistsError`` and is left as it was.

    Returns
    -------
    Path
        The folder written; nothing is written when a check fails.
    """
    target = Path(path)
    if target.exists() or target.is_symlink():
        if not overwrite:
            raise FileExistsError(
                f"{target} exists; pass overwrite=True to replace an ONNX export folder"
            )
        refuse_foreign(target, is_replaceable_export, "an ONNX export folder (only its files)")
    if not hasattr(estimator, "module_") or not hasattr(estimator, "columns_"):
        _refuse(estimator, "the estimator is not fitted; call fit first")
    if getattr(estimator, "reference_model_", None) is not None:
        _refuse(
            estimator,
            f"reference_model={type(estimator.reference_model_).__name__} is not exported: "
            "each forecast adds the network's correction to the reference's forecast, which "
            "the ONNX graph cannot compute; refit without reference_model to export",
        )
    params, fitted = export_state(estimator)
    try:
        check_state(params, fitted, target)
        network = network_bytes(estimator)
        check_graph(network, params, fitted, target / NETWORK)
        files = export_files(
            params,
            fitted,
            network,
            estimator=estimator_name(type(estimator)),
            forecast_version=__version__,
            torch_version=torch.__version__,
            python_version=platform.python_version(),
            saved_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
    except (TypeError, ModelFormatError) as err:  # a value the format cannot hold, named
        _refuse(estimator, str(err))
    write_folder(target, files, replace=lambda _: None)  # checked above: ours to replace
    return target
