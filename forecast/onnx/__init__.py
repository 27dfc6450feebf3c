"""ONNX export of the neural forecasters and a torch-free runtime for the exports.

``estimator.to_onnx(path)`` (:mod:`forecast.onnx.export`, needs torch) writes ``model.onnx``
and its strict-JSON metadata (:mod:`forecast.onnx.metadata`);
:class:`~forecast.onnx.runtime.OnnxForecaster` (:mod:`forecast.onnx.runtime`) reads such a
folder and forecasts with numpy, pandas and onnxruntime only. This package's ``__init__``
imports neither torch nor onnxruntime: ``from forecast.onnx.runtime import OnnxForecaster``
stays torch-free. Install the runtime with the extra ``forecast[onnx]`` (see docs/onnx.md).
"""
