"""The checks of an exported graph before onnxruntime sees it: self-contained, known operators.

A graph may name tensors stored in files beside it (external data); onnxruntime resolves
such names against the working directory when the graph comes as bytes, so a tensor could
be read from outside the export folder. :func:`check_graph` refuses any external-data
reference anywhere in the model: initializers, sparse initializers, tensors in node
attributes (``Constant`` values, ``If``/``Loop`` branches) and every nested subgraph. It
refuses operators outside :data:`OPERATORS` (the standard ``ai.onnx`` operators the
exporter writes for the neural families and their options), operator sets other than
``ai.onnx`` up to :data:`OPSET`, model-local functions, and inputs or outputs whose names
or fixed sizes disagree with the export's state. Each refusal is one line naming
``model.onnx`` and what is wrong. The export runs the same check before it writes.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from forecast.onnx.metadata import OnnxFormatError

__all__ = ["OPERATORS", "OPSET", "check_graph", "extra_module", "graph_inputs"]


def extra_module(name: str) -> Any:
    """Import ``onnx`` or ``onnxruntime`` (the extra), or raise an ImportError saying how to get it.

    Parameters
    ----------
    name : str
        ``"onnx"`` or ``"onnxruntime"``.

    Returns
    -------
    module
        The imported module.
    """
    try:
        return importlib.import_module(name)
    except ImportError as err:
        raise ImportError(
            f"ONNX export and runtime need {name}, which is not installed: "
            "pip install 'forecast-toolkit[onnx]'"
        ) from err


OPSET = 17
# the operators torch's exporter writes for every family and option (measured by exporting
# each family with point and quantile heads, recursive and seq2seq strategies, residual,
# window normalisation, linear skip, ensembles, differences, patches, DCT input and output,
# channel mixing, the peephole LSTM, the three DCT mixers, covariates and calendar features)
OPERATORS = frozenset(
    {
        "Add", "And", "BatchNormalization", "Cast", "Concat", "Constant", "ConstantOfShape",
        "Conv", "Cos", "CumSum", "Div", "Einsum", "Equal", "Erf", "Expand", "GRU", "Gather", "Gemm",
        "LSTM", "LayerNormalization", "Less", "MatMul", "Mod", "Mul", "Not", "RNN", "Range",
        "ReduceMean", "Reshape", "ScatterND", "Shape", "Sigmoid", "Slice", "Softmax",
        "Softplus", "Split", "Sqrt", "Squeeze", "Sub", "Tanh", "Transpose", "Unsqueeze",
        "Where", "Xor",
    }
)  # fmt: skip
_STANDARD = ("", "ai.onnx")


def graph_inputs(fitted: dict[str, Any]) -> list[str]:
    """Names of the graph's inputs for an export's fitted state."""
    return ["x", "future"] if fitted["n_future_"] else ["x"]


def _tensors(attribute: Any) -> Iterator[Any]:
    if attribute.HasField("t"):
        yield attribute.t
    yield from attribute.tensors
    if attribute.HasField("sparse_tensor"):
        yield attribute.sparse_tensor.values
        yield attribute.sparse_tensor.indices
    for sparse in attribute.sparse_tensors:
        yield sparse.values
        yield sparse.indices


def _check_tensor(tensor: Any, what: str, where: Path) -> None:
    onnx = extra_module("onnx")  # only a loaded export gets here

    if tensor.data_location == onnx.TensorProto.EXTERNAL or len(tensor.external_data):
        files = [e.value for e in tensor.external_data if e.key == "location"]
        raise OnnxFormatError(
            f"{where}: {what} refers to external data {files or ''} outside the graph; an "
            "export embeds every tensor (export the model again)"
        )


def _walk(graph: Any, where: Path, path: str) -> None:
    """Check every tensor and node of ``graph`` and of its subgraphs."""
    for tensor in graph.initializer:
        _check_tensor(tensor, f"initializer {tensor.name!r} of {path}", where)
    for sparse in graph.sparse_initializer:
        for part in (sparse.values, sparse.indices):
            _check_tensor(part, f"sparse initializer {part.name!r} of {path}", where)
    for node in graph.node:
        name = f"{node.op_type} node {node.name!r} of {path}"
        for attribute in node.attribute:  # tensors and subgraphs first: their data never loads
            for tensor in _tensors(attribute):
                _check_tensor(tensor, f"attribute {attribute.name!r} of {name}", where)
            subgraphs = [attribute.g] if attribute.HasField("g") else []
            for sub in [*subgraphs, *attribute.graphs]:
                _walk(sub, where, f"subgraph {attribute.name!r} of {name}")
        if node.domain not in _STANDARD:
            raise OnnxFormatError(
                f"{where}: {name} is in the operator domain {node.domain!r}; an export uses "
                "the standard ai.onnx operators only"
            )
        if node.op_type not in OPERATORS:
            raise OnnxFormatError(
                f"{where}: {name} is an operator that exports do not use (known: "
                f"{len(OPERATORS)} ai.onnx operators, see forecast.onnx.graph.OPERATORS)"
            )


def _dims(value: Any) -> list[int | None]:
    shape = value.type.tensor_type.shape
    return [d.dim_value if d.HasField("dim_value") else None for d in shape.dim]


def _shape(dims: list[int | None]) -> str:
    return "(" + ", ".join("any" if d is None else str(d) for d in dims) + ")"


def _check_shape(value: Any, want: list[int | None], where: Path) -> None:
    got = _dims(value)
    if len(got) != len(want) or any(g is not None and w is not None and g != w
                                    for g, w in zip(got, want, strict=False)):  # fmt: skip
        raise OnnxFormatError(
            f"{where}: the graph's {value.name!r} has the shape {_shape(got)}, the export's "
            f"state gives {_shape(want)}"
        )


def check_graph(
    network: bytes, params: dict[str, Any], fitted: dict[str, Any], where: Path
) -> None:
    """Refuse a graph onnxruntime must not load for this export (one line each).

    Parameters
    ----------
    network : bytes
        ``model.onnx``, already checked against its size and SHA-256.
    params, fitted : dict
        The export's checked state (:func:`forecast.onnx.metadata.check_state`).
    where : Path
        ``model.onnx`` in the folder, named in messages.

    Raises
    ------
    OnnxFormatError
        Not an ONNX model, an external-data reference, an operator set or operator outside
        what exports use, a model-local function, or inputs and outputs that disagree with
        the state (names, context length, widths, horizon, quantile levels).
    """
    onnx = extra_module("onnx")  # only a loaded export needs it

    try:
        model = onnx.load_model_from_string(network)
    except Exception as err:  # protobuf raises its own DecodeError
        raise OnnxFormatError(f"{where}: not an ONNX model ({err})") from None
    for entry in model.opset_import:
        if entry.domain not in _STANDARD or not 1 <= entry.version <= OPSET:
            raise OnnxFormatError(
                f"{where}: imports the operator set {entry.domain or 'ai.onnx'!r} version "
                f"{entry.version}; exports use ai.onnx up to version {OPSET}"
            )
    if len(model.functions):
        raise OnnxFormatError(f"{where}: defines model-local functions; exports define none")
    _walk(model.graph, where, "the graph")
    inputs = {v.name: v for v in model.graph.input}
    initializers = {t.name for t in model.graph.initializer}
    names = [name for name in inputs if name not in initializers]
    if names != graph_inputs(fitted):
        raise OnnxFormatError(
            f"{where}: the graph reads {names}, the export's state {graph_inputs(fitted)}"
        )
    context, head = params["context_length"], fitted["head_horizon_"]
    _check_shape(inputs["x"], [None, context, fitted["n_inputs_"]], where)
    if fitted["n_future_"]:
        _check_shape(inputs["future"], [None, head, fitted["n_future_"]], where)
    outputs = list(model.graph.output)
    if len(outputs) != 1:
        raise OnnxFormatError(f"{where}: the graph has {len(outputs)} outputs, exports one")
    levels = fitted["quantiles_"]
    want: list[int | None] = [None, head, fitted["n_outputs_"]]
    _check_shape(outputs[0], want if levels is None else [*want, len(levels)], where)
