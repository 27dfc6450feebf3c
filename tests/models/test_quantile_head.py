import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.base import clone

from forecast import GRUForecaster, LSTMForecaster, SeasonalNaive, TransformerForecaster
from forecast.base import BaseForecaster
from forecast.nn.heads import QuantileHead, monotone_quantiles
from forecast.training.loop import PinballLoss, masked_mse, training_loss
from tests.conftest import make_series

TINY = {"context_length": 24, "horizon": 6, "hidden_size": 4, "max_epochs": 2, "random_state": 0}
LEVELS = (0.1, 0.5, 0.9)


def test_monotone_quantiles_never_cross_and_keep_the_middle_output():
    raw = torch.randn(50, 7, generator=torch.Generator().manual_seed(0)) * 5
    q = monotone_quantiles(raw, middle=3)
    assert (q[:, 1:] >= q[:, :-1]).all()  # strict in exact arithmetic; tiny gaps may round
    torch.testing.assert_close(q[:, 3], raw[:, 3])
    # gaps are softplus of the own outputs: level 4 = raw_3 + softplus(raw_4)
    torch.testing.assert_close(q[:, 4], raw[:, 3] + torch.nn.functional.softplus(raw[:, 4]))
    torch.testing.assert_close(q[:, 2], raw[:, 3] - torch.nn.functional.softplus(raw[:, 2]))


def test_quantile_head_shape():
    head = QuantileHead(8, horizon=5, n_outputs=2, n_future=3, n_quantiles=3, middle=1)
    out = head(torch.randn(4, 8), torch.randn(4, 5, 3))
    assert out.shape == (4, 5, 2, 3)
    with pytest.raises(ValueError, match="middle=3 is not one of the 3 levels"):
        QuantileHead(8, 5, 2, n_quantiles=3, middle=3)


def test_pinball_loss_hand_computed_and_masked():
    # target 10; levels 0.1, 0.9; forecasts 8 and 13: 0.1 * 2 = 0.2, 0.1 * 3 = 0.3 -> 0.25
    pred = torch.tensor([[[8.0, 13.0]]])  # (B=1, C=1, Q=2)
    target = torch.tensor([[10.0]])
    assert PinballLoss((0.1, 0.9))(pred, target).item() == pytest.approx(0.25)
    # streams: (B=1, k=2, h=1, C=1, Q=2); the second chunk step is masked out
    pred = torch.tensor([[[[[8.0, 13.0]]], [[[0.0, 0.0]]]]])
    target = torch.tensor([[[[10.0]], [[100.0]]]])
    mask = torch.tensor([[True, False]])
    assert PinballLoss((0.1, 0.9))(pred, target, mask).item() == pytest.approx(0.25)
    assert training_loss(None) is masked_mse


@pytest.mark.parametrize(
    "bad, error, message",
    [
        ((0.9, 0.1), ValueError, "quantiles must be sorted and distinct"),
        ((0.0, 0.5), ValueError, "strictly between 0 and 1, got 0.0"),
        ("0.5", TypeError, "sorted tuple of levels"),
        ((), ValueError, "at least one level"),
    ],
)
def test_bad_quantiles_are_refused_at_fit(bad, error, message):
    with pytest.raises(error, match=message):
        GRUForecaster(**TINY, quantiles=bad).fit(make_series(24 * 6))


@pytest.mark.parametrize("strategy", ["direct", "recursive"])
def test_predict_quantile_columns(strategy):
    df = make_series(24 * 8, channels=2)
    est = GRUForecaster(**TINY, quantiles=LEVELS, strategy=strategy, n_ensemble=2).fit(df)
    fc = est.predict(horizon=9, quantiles=True)
    names = ["y0", "y1", "y0_q0.1", "y0_q0.5", "y0_q0.9", "y1_q0.1", "y1_q0.5", "y1_q0.9"]
    assert list(fc.columns) == names
    for c in ("y0", "y1"):
        lo, mid, hi = (fc[f"{c}_q{q}"] for q in LEVELS)
        assert (lo < mid).all() and (mid < hi).all()
        np.testing.assert_array_equal(fc[c], fc[f"{c}_q0.5"])  # the median is the point
    pd.testing.assert_frame_equal(est.predict(horizon=9), fc[["y0", "y1"]])
    subset = est.predict(horizon=2, quantiles=(0.9,))
    assert list(subset.columns) == ["y0", "y1", "y0_q0.9", "y1_q0.9"]
    with pytest.raises(ValueError, match=r"has no quantile level 0.95; it was fitted for levels"):
        est.predict(horizon=2, quantiles=(0.95,))
    origins = est.predict_origins(df, df.index[-30:-27], 4, quantiles=True)
    assert list(origins.columns) == ["origin", "time", *names] and len(origins) == 12


def test_the_level_nearest_the_median_is_the_point_without_0_5():
    df = make_series(24 * 8)
    fc = GRUForecaster(**TINY, quantiles=(0.2, 0.45, 0.9)).fit(df).predict(3, quantiles=True)
    np.testing.assert_array_equal(fc["load"], fc["load_q0.45"])


def test_point_models_refuse_quantiles():
    df = make_series(24 * 8)
    with pytest.raises(ValueError, match="SeasonalNaive forecasts no quantiles: .*Conformal"):
        SeasonalNaive(season="1D").fit(df).predict(3, quantiles=True)
    with pytest.raises(ValueError, match="GRUForecaster forecasts no quantiles"):
        GRUForecaster(**TINY).fit(df).predict(3, quantiles=(0.5,))


def test_window_normalisation_scales_quantiles_back():
    # with window normalisation the network reads the same normalised window, so every
    # quantile of k * y + b is k * (quantile of y) + b (here with the linear skip too)
    df = make_series(24 * 8)
    est = TransformerForecaster(**TINY, n_heads=2, quantiles=LEVELS, linear_skip=True).fit(df)
    base = est.predict(horizon=6, history=df, quantiles=True)
    moved = est.predict(horizon=6, history=df * 3.0 + 100.0, quantiles=True)
    np.testing.assert_allclose(moved.to_numpy(), base.to_numpy() * 3.0 + 100.0, rtol=1e-4)


def test_quantiles_learn_the_spread_of_noise():
    # i.i.d. N(0, 1) noise: the 10 % and 90 % quantiles are -1.28 and 1.28
    rng = np.random.default_rng(1)
    index = pd.date_range("2023-01-01", periods=24 * 60, freq="h")
    df = pd.DataFrame({"noise": rng.standard_normal(len(index))}, index=index)
    est = GRUForecaster(
        context_length=8, horizon=2, hidden_size=4, max_epochs=15, learning_rate=0.02,
        normalization=None, linear_skip=False, quantiles=LEVELS, random_state=0,
    ).fit(df)  # fmt: skip
    fc = est.predict(horizon=2, quantiles=True)
    assert fc["noise_q0.1"].to_numpy() == pytest.approx([-1.28, -1.28], abs=0.35)
    assert fc["noise_q0.9"].to_numpy() == pytest.approx([1.28, 1.28], abs=0.35)
    assert est.history_["val_loss"][-1] < 0.5  # pinball scale: N(0,1) optimum is about 0.34


def test_truncated_bptt_trains_quantiles():
    df = make_series(24 * 8)
    est = LSTMForecaster(**TINY, windowing="tbptt", quantiles=LEVELS).fit(df)
    fc = est.predict(4, quantiles=True)
    assert (fc["load_q0.1"] < fc["load_q0.9"]).all()


def test_clone_save_load_round_trip_keeps_levels(tmp_path):
    df = make_series(24 * 8, tz="Europe/Berlin")
    est = GRUForecaster(**TINY, quantiles=LEVELS).fit(df)
    twin = clone(est)
    assert twin.get_params()["quantiles"] == LEVELS and not hasattr(twin, "quantiles_")
    est.save(tmp_path / "m")
    loaded = BaseForecaster.load(tmp_path / "m", device="cpu")
    assert loaded.get_params()["quantiles"] == LEVELS  # a tuple, not a list
    assert loaded.quantiles_ == LEVELS
    pd.testing.assert_frame_equal(loaded.predict(5, quantiles=True), est.predict(5, quantiles=True))
