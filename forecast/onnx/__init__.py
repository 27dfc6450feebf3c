"""ONNX export of the neural forecasters and a torch-free runtime for the exports.

``estimator.to_onnx(path)`` (:mod:`forecast.onnx.export`, needs torch) writes a saved model
folder of the one format whose network is ``model.onnx`` (:mod:`forecast.onnx.folder`);
:class:`~forecast.onnx.runtime.OnnxForecaster` reads such a folder, checked as every saved
folder is plus its state (:mod:`forecast.onnx.metadata`) and graph (:mod:`forecast.onnx.graph`),
and forecasts through the estimator's frame pipeline with onnxruntime as the network call.
This package's ``__init__`` imports neither torch nor onnxruntime:
``from forecast.onnx.runtime import OnnxForecaster`` stays torch-free. Install the runtime
with the extra ``forecast-toolkit[onnx]`` (see docs/onnx.md).
"""
