"""The pipeline's two halves as entry points: frames to arrays, arrays to the data's units.

Every feature that reads a forecast's inputs (explanations, attention maps) or forecasts for
another model (a network's reference, the analog-day memory) goes through them, so each
reads the data exactly as ``predict`` does.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.frames.pipeline import check_roll_out
from forecast.models import GRUForecaster, TransformerForecaster
from forecast.models.baselines import LinearLagForecaster
from tests.conftest import make_series

TINY = dict(context_length=24, horizon=6, hidden_size=4, max_epochs=1, random_state=0)


def test_frames_to_arrays_are_what_predict_forecasts_from():
    df = make_series(200, tz="Europe/Berlin")
    model = GRUForecaster(**TINY, calendar=True).fit(df)
    history = df.iloc[:-7].tz_convert("UTC")  # aware, in another zone
    arrays, frames, kind = model._frames_to_arrays(history, 4, None)
    assert kind == "frame" and str(frames[None].index.tz) == "Europe/Berlin"
    values = model._predict_values(arrays, 4, ())
    forecast = model._to_frames(values, frames, kind, 4, ())
    pd.testing.assert_frame_equal(forecast, model.predict(4, history=history))


def test_attention_reads_aware_history_in_another_zone_as_the_converted_history():
    """The attention map reads history through the time-zone step, as ``predict`` does."""
    df = make_series(200, tz="UTC")
    model = TransformerForecaster(**TINY, n_heads=2, calendar=True).fit(df)
    history = df.iloc[:-5]
    tokyo = model.attention_weights(history.tz_convert("Asia/Tokyo"))
    np.testing.assert_array_equal(tokyo, model.attention_weights(history))
    with pytest.raises(ValueError, match="history needed by the encoder"):
        model.attention_weights(history.iloc[-10:])


def test_data_units_are_the_scaler_both_ways_on_arrays_of_any_rank():
    df = make_series(200, channels=2)
    model = GRUForecaster(**TINY).fit(df)
    y = df.to_numpy()
    scaled = model._from_data_units(y)
    np.testing.assert_array_equal(scaled, model.scaler_.transform(y))  # the same arithmetic
    np.testing.assert_allclose(model._to_data_units(scaled), y, rtol=1e-12)
    cube = np.stack([y[:6], y[6:12]])  # (n, horizon, C), as forecasts are
    np.testing.assert_array_equal(model._from_data_units(cube)[1], scaled[6:12])


def test_a_model_forecasts_for_another_in_the_data_units():
    """``_predict_data_units``: targets in the data's units in, the model's forecast out."""
    df = make_series(400)
    linear = LinearLagForecaster(horizon=6).fit(df)
    arrays, _, _ = linear._frames_to_arrays(df, 6, None)
    plain = [type(a)(a.key, linear._to_data_units(a.y), a.index) for a in arrays]
    got = linear._predict_data_units(plain, 6)  # (1, 6, 1)
    np.testing.assert_allclose(got[0, :, 0], linear.predict(6, history=df)["load"], rtol=1e-12)


def test_the_roll_out_check_is_one_message_for_predict_the_export_and_explain():
    with pytest.raises(ValueError) as raised:
        check_roll_out(7, 6, ["price"])
    message = str(raised.value)
    assert message.startswith("horizon=7 exceeds the 6 step(s) the network forecasts at once")
    assert "past covariates ['price'] are unknown after the last timestamp" in message
    check_roll_out(6, 6, ["price"])  # one block: nothing fed back
    check_roll_out(7, 6, [])  # no past covariates: the forecasts can be fed back
    df = make_series(120).assign(price=np.arange(120.0))
    model = GRUForecaster(**TINY, past_covariates=["price"]).fit(df)
    with pytest.raises(ValueError) as from_predict:
        model.predict(7)
    assert str(from_predict.value) == message
    pytest.importorskip("captum", reason="install the explain extra (captum)")
    from forecast.attribution import explain

    with pytest.raises(ValueError) as from_explain:
        explain(model, df, horizon=7)
    assert str(from_explain.value) == message


def test_the_onnx_runtime_refuses_the_roll_out_with_the_same_message(tmp_path):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    from forecast.onnx.runtime import OnnxForecaster

    df = make_series(120).assign(price=np.arange(120.0))
    model = GRUForecaster(**TINY, past_covariates=["price"]).fit(df)
    exported = OnnxForecaster.load(model.to_onnx(tmp_path / "export"))
    with pytest.raises(ValueError) as from_torch:
        model.predict(7, history=df)
    with pytest.raises(ValueError) as from_onnx:
        exported.predict(7, history=df)
    assert str(from_onnx.value) == str(from_torch.value)
