import pickle

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.base import clone
from torch import nn

from forecast.base import SeriesArrays
from forecast.models._batching import rollout, training_data
from forecast.models.neural import NeuralForecaster
from forecast.models.recurrent import ElmanForecaster, GRUForecaster, LSTMForecaster
from forecast.training.callbacks import Callback
from tests.conftest import TINY_NEURAL, make_series

TINY = TINY_NEURAL


@pytest.fixture(scope="module")
def fitted():
    return GRUForecaster(**TINY).fit(make_series(200))


def test_parameters_are_checked_in_fit():
    df = make_series(200)
    for bad, match in [
        ({"windowing": "chunks"}, "windowing"),
        ({"strategy": "mimo"}, "strategy"),
        ({"validation_fraction": 1.0}, "validation_fraction"),
        ({"context_length": 0}, "context_length"),
        ({"dropout": 1.5}, "dropout"),
        ({"lr_scheduler": "linear"}, "lr_scheduler"),
        ({"device": "tpu"}, "device"),
        ({"tbptt_steps": 2.5}, "tbptt_steps"),
    ]:
        with pytest.raises(ValueError, match=match):
            GRUForecaster(**{**TINY, **bad}).fit(df)


@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.3])
def test_min_train_length_leaves_room_for_training_and_validation(fraction):
    est = LSTMForecaster(**{**TINY, "validation_fraction": fraction})
    n = est._min_train_length()
    if fraction == 0:
        assert n == 24 + 6
    clock = np.arange(n, dtype=float)[:, None]
    train, val = training_data(
        [SeriesArrays(None, clock, pd.DatetimeIndex([]))],
        context=24,
        horizon=6,
        windowing="sliding",
        tbptt_steps=24,
        batch_size=8,
        validation_fraction=fraction,
    )
    assert len(train) >= 1 and (val is None) == (fraction == 0)
    if val is not None:
        assert len(val) >= 1
        first_val_target = val[np.arange(len(val))].y.min()
        assert train[np.arange(len(train))].y.max() < first_val_target  # no target in the tail
    with pytest.raises(ValueError, match="too little history"):
        est.fit(make_series(n - 1))


def test_validation_tail_also_holds_for_tbptt():
    clock = np.arange(100, dtype=float)[:, None]
    train, val = training_data(
        [SeriesArrays(None, clock, pd.DatetimeIndex([]))],
        context=10,
        horizon=4,
        windowing="tbptt",
        tbptt_steps=5,
        batch_size=2,
        validation_fraction=0.2,
    )
    targets = torch.cat([b.y[b.mask] for b in train.batches()])
    assert targets.max() == 79 and val[np.arange(len(val))].y.min() == 80


def test_history_attributes_and_best_epoch(fitted):
    h = fitted.history_
    assert set(h) >= {"train_loss", "val_loss", "lr"} and len(h["val_loss"]) == fitted.n_epochs_
    assert fitted.best_epoch_ == int(np.argmin(h["val_loss"]))
    assert isinstance(fitted.module_, nn.Module) and fitted.device_ == "cpu"
    no_val = GRUForecaster(**{**TINY, "validation_fraction": 0.0}).fit(make_series(200))
    assert "val_loss" not in no_val.history_


def test_horizon_slices_are_consistent(fitted):
    full, part = fitted.predict(horizon=6), fitted.predict(horizon=2)
    np.testing.assert_allclose(part.to_numpy(), full.iloc[:2].to_numpy(), rtol=1e-6)


def test_only_the_last_context_steps_matter(fitted):
    df = make_series(300, seed=4)
    a = fitted.predict(horizon=6, history=df)
    b = fitted.predict(horizon=6, history=df.iloc[-24:])
    np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=1e-6)


def test_predict_origins_is_one_batched_pass(fitted):
    df = make_series(24 * 20, seed=1)
    origins = df.index[30::11]
    calls = []
    forward = fitted.module_.forward
    fitted.module_.forward = lambda *a, **k: calls.append(a[0].shape) or forward(*a, **k)
    try:
        out = fitted.predict_origins(df, origins, horizon=6)
    finally:
        del fitted.module_.forward
    assert calls == [(len(origins), 24, 1)]
    assert len(out) == 6 * len(origins)
    for origin in origins[:3]:
        single = fitted.predict(horizon=6, history=df.loc[:origin])
        got = out[out["origin"] == origin]["load"].to_numpy()
        np.testing.assert_allclose(got, single["load"].to_numpy(), rtol=1e-5)


def test_past_covariates_block_a_roll_out():
    df = make_series(200)
    df["price"] = np.arange(200.0) % 7
    model = LSTMForecaster(**{**TINY, "past_covariates": ["price"]}).fit(df)
    assert model.n_past_ == 1 and model.predict(horizon=6).shape == (6, 1)
    with pytest.raises(ValueError, match=r"past covariates \['price'\] are unknown"):
        model.predict(horizon=7)


def test_same_seed_same_forecast():
    df = make_series(200)
    a = LSTMForecaster(**{**TINY, "dropout": 0.2}).fit(df).predict(horizon=6)
    b = LSTMForecaster(**{**TINY, "dropout": 0.2}).fit(df).predict(horizon=6)
    c = LSTMForecaster(**{**TINY, "dropout": 0.2, "random_state": 1}).fit(df).predict(horizon=6)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a.to_numpy(), c.to_numpy())


def test_pickle_round_trip_and_getstate_does_not_touch_the_estimator(fitted):
    state = fitted.__getstate__()
    assert state is not fitted.__dict__
    again = pickle.loads(pickle.dumps(fitted))
    pd.testing.assert_frame_equal(again.predict(horizon=6), fitted.predict(horizon=6))


def test_build_module_rebuilds_from_fitted_attributes(fitted):
    twin = clone(fitted)
    for name in (
        "n_inputs_",
        "n_outputs_",
        "n_past_",
        "n_future_",
        "head_horizon_",
        "seed_",
        "normalize_",
        "season_",
        "skip_",
        "dropout_",
        "input_differences_",
        "residual_",
        "difference_",
        "change_scale_",
        "quantiles_",
    ):
        setattr(twin, name, getattr(fitted, name))
    for name in (
        "columns_",
        "freq_",
        "tz_",
        "input_kind_",
        "index_name_",
        "scaler_",
        "covariate_scaler_",
        "future_covariates_",
        "past_covariates_",
        "train_tail_",
    ):
        setattr(twin, name, getattr(fitted, name))
    twin._build_module()
    twin.module_.load_state_dict(fitted.module_.state_dict())
    pd.testing.assert_frame_equal(twin.predict(horizon=6), fitted.predict(horizon=6))


class Stop(Callback):
    def on_epoch_end(self, epoch, logs):
        if epoch == 1:
            raise KeyboardInterrupt


def test_checkpoint_resumes_an_interrupted_fit(tmp_path):
    df = make_series(200)
    params = {**TINY, "max_epochs": 4, "dropout": 0.2, "early_stopping_patience": None}
    model = GRUForecaster(**params, checkpoint_dir=str(tmp_path / "ck"))
    with pytest.raises(KeyboardInterrupt):
        model.fit(df, callbacks=[Stop()])
    resumed = clone(model).fit(df)
    straight = GRUForecaster(**params).fit(df)
    assert resumed.n_epochs_ == 4 and resumed.history_ == straight.history_
    pd.testing.assert_frame_equal(resumed.predict(horizon=6), straight.predict(horizon=6))


class Pointwise(NeuralForecaster):
    """A non-recurrent family: a per-step MLP (tests the encoder contract's other branch).

    It adds no parameter, so it declares none: it takes the shared ones of the base.
    """

    def _build_encoder(self, input_size):
        class MLP(nn.Module):
            recurrent = False
            output_size = self.hidden_size

            def __init__(self):
                super().__init__()
                self.net = nn.Linear(input_size, self.output_size)

            def forward(self, x, state=None):
                return torch.tanh(self.net(x)), None

        return MLP()


def test_non_recurrent_family_works_sliding_but_refuses_tbptt():
    df = make_series(200)
    assert Pointwise(**TINY).fit(df).predict(horizon=3).shape == (3, 1)
    with pytest.raises(ValueError, match="needs a recurrent encoder"):
        Pointwise(**{**TINY, "windowing": "tbptt"}).fit(df)


def test_verbose_and_schedulers_run(capsys):
    model = ElmanForecaster(**{**TINY, "verbose": 1, "lr_scheduler": "plateau"})
    model.fit(make_series(200))
    assert len(model.history_["lr"]) == 2


class _Persistence(torch.nn.Module):
    """Repeats the last input step's target, records how many windows each pass reads."""

    def __init__(self, horizon):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.zeros(()))
        self.horizon, self.sizes = horizon, []

    def forward(self, x, future=None):
        self.sizes.append(len(x))
        return x[:, -1:, :1].expand(-1, self.horizon, 1) + self.bias, None


def test_rollout_reads_at_most_chunk_windows_and_forecasts_the_same():
    x = np.arange(7 * 4 * 1, dtype=np.float32).reshape(7, 4, 1)
    net = _Persistence(horizon=2)
    whole = rollout(net, x, None, horizon=5, head_horizon=2, chunk=100)
    assert net.sizes == [7, 7, 7]  # one window batch, three blocks of the roll-out
    net.sizes.clear()
    sliced = rollout(net, x, None, horizon=5, head_horizon=2, chunk=3)
    assert net.sizes == [2, 2, 2, 2, 2, 2, 3, 3, 3]  # 7 windows as 2 + 2 + 3
    np.testing.assert_array_equal(sliced, whole)
    np.testing.assert_array_equal(whole[:, :, 0], np.repeat(x[:, -1, :], 5, axis=1))
