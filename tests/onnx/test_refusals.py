"""Graphs onnxruntime must not run are refused at load, by the runtime and by the commands.

Each case rewrites ``model.onnx`` of a real export and records its new SHA-256 in
``meta.json``, so the folder is intact as a saved folder and the graph is what is refused:
external data in a ``Constant`` node, in an ``If`` branch, in an initializer; an operator
domain or operator exports do not use; an operator set beyond the exported one. The export's
``/health`` in the service reports its levels and minimum history.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import make_series
from tests.onnx.helpers import LEVELS, TINY, rewrite

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper  # noqa: E402

from forecast.cli import main  # noqa: E402
from forecast.models.recurrent import GRUForecaster  # noqa: E402
from forecast.onnx.runtime import OnnxForecaster  # noqa: E402
from forecast.persistence.errors import ModelFormatError  # noqa: E402


def _external(name: str) -> TensorProto:
    """A float tensor whose bytes would come from the file ``secret.bin`` next to the runner."""
    tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=[1])
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "secret.bin"), ("offset", "0"), ("length", "4")):
        tensor.external_data.add(key=key, value=value)
    return tensor


def _constant(model):
    node = helper.make_node("Constant", [], ["leak"], name="c0", value=_external("leak_value"))
    model.graph.node.append(node)


def _branch(model):
    def branch(tag):
        graph = helper.make_graph(
            [helper.make_node("Identity", [f"w_{tag}"], [f"out_{tag}"])],
            f"branch_{tag}",
            [],
            [helper.make_tensor_value_info(f"out_{tag}", TensorProto.FLOAT, [1])],
            initializer=[_external(f"w_{tag}")],
        )
        return graph

    cond = helper.make_tensor("cond", TensorProto.BOOL, [], [True])
    model.graph.initializer.append(cond)
    node = helper.make_node(
        "If", ["cond"], ["picked"], name="if0", then_branch=branch("a"), else_branch=branch("b")
    )
    model.graph.node.append(node)


def _initializer(model):
    model.graph.initializer.append(_external("loose"))


def _domain(model):
    model.graph.node.append(helper.make_node("Steal", ["x"], ["y2"], name="s0", domain="com.evil"))


def _operator(model):
    model.graph.node.append(helper.make_node("Identity", ["x"], ["x_copy"], name="i0"))


def _opset(model):
    model.opset_import[0].version = 99


CASES = {
    "constant": (_constant, r"attribute 'value' of Constant node 'c0'.*external data"),
    "if-branch": (
        _branch,
        r"initializer 'w_[ab]' of subgraph '(then|else)_branch' of If node 'if0'",
    ),
    "initializer": (_initializer, r"initializer 'loose' of the graph refers to external data"),
    "domain": (_domain, r"Steal node 's0' .* operator domain 'com.evil'"),
    "operator": (_operator, r"Identity node 'i0' .* an operator that exports do not use"),
    "opset": (_opset, r"operator set 'ai.onnx' version 99; exports use ai.onnx up to version 17"),
}


@pytest.fixture(scope="module")
def fitted():
    data = make_series(n=160, tz="Europe/Berlin", start="2023-10-22 07:00")
    return GRUForecaster(**TINY, quantiles=LEVELS).fit(data), data


@pytest.fixture
def export(fitted, tmp_path):
    return fitted[0].to_onnx(tmp_path / "export")


@pytest.mark.parametrize("case", list(CASES))
def test_the_graph_is_refused_at_load_and_by_forecast_batch(case, export, fitted, tmp_path, capsys):
    edit, message = CASES[case]
    model = onnx.load_model_from_string((export / "model.onnx").read_bytes())
    edit(model)
    rewrite(export, "model.onnx", model.SerializeToString())
    (tmp_path / "secret.bin").write_bytes(np.float32([1e6]).tobytes())  # what it would read
    with pytest.raises(ModelFormatError, match=message) as info:
        OnnxForecaster.load(export)
    assert "\n" not in str(info.value) and str(info.value).startswith(str(export / "model.onnx"))
    fitted[1].iloc[-48:].rename_axis("time").to_csv(tmp_path / "latest.csv")
    argv = ["batch", "--model", str(export), "--input", str(tmp_path / "latest.csv")]
    argv += ["--output", str(tmp_path / "fc.csv"), "--horizon", "6", "--no-track"]
    capsys.readouterr()
    assert main(argv) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "model.onnx" in err, err
    assert not (tmp_path / "fc.csv").exists()


def test_the_service_refuses_a_bad_export_and_describes_a_good_one(export, fitted, tmp_path):
    from tests.serve.harness import Server

    server = Server([export])
    try:
        status, health = server.call("GET", "/health")
    finally:
        server.stop()
    assert status == 200 and health["estimator"] == "OnnxForecaster"
    assert health["quantile_levels"] == list(LEVELS) and health["min_history"] == 24
    model = onnx.load_model_from_string((export / "model.onnx").read_bytes())
    _constant(model)
    rewrite(export, "model.onnx", model.SerializeToString())
    with pytest.raises(RuntimeError, match=r"forecast serve exited:[\s\S]*external data"):
        Server([export])
