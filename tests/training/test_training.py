import math

import numpy as np
import pytest
import torch
from torch import nn

from forecast.frames.writes import WriteRefused
from forecast.nn.heads import PointHead
from forecast.nn.net import ForecastNet
from forecast.nn.recurrent import build_recurrent
from forecast.training.callbacks import Callback
from forecast.training.device import resolve_device
from forecast.training.loop import (
    CHECKPOINT_FILE,
    TrainConfig,
    build_scheduler,
    evaluate,
    masked_mae,
    masked_mse,
    optimizer_step,
    run_epoch,
    seeded,
    train,
)
from forecast.training.optim import build_optimizer
from forecast.training.windows import StreamChunks, WindowDataset


def constant(n, value, n_inputs=1):
    return np.zeros((n, n_inputs)), np.full((n, 1), float(value)), None


def sine(n=200, period=12):
    t = np.arange(n)
    y = np.sin(2 * np.pi * t / period)[:, None]
    return y, y, None


class Scalar(nn.Module):
    """Forecasts the constant ``w`` everywhere: a deterministic stand-in network."""

    def __init__(self, w=1.0, horizon=2):
        super().__init__()
        self.w = nn.Parameter(torch.tensor(float(w)))
        self.horizon = horizon
        self.calls = 0

    def forward(self, x, future=None, state=None):
        return self.w.expand(x.shape[0], self.horizon, 1), None

    def epoch_metrics(self):
        self.calls += 1
        return {"calls": self.calls}


class Recorder(Callback):
    def __init__(self, stop_after=None):
        self.logs, self.stop_after = [], stop_after

    def on_epoch_end(self, epoch, logs):
        self.logs.append((epoch, logs))
        if self.stop_after is not None and epoch == self.stop_after:
            raise KeyboardInterrupt("interrupted on purpose")


def lstm_net(horizon=4, dropout=0.0):
    return ForecastNet(build_recurrent("lstm", 1, 8, dropout=dropout), PointHead(8, horizon, 1))


def config(**kw):
    base = dict(
        max_epochs=3,
        batch_size=16,
        learning_rate=0.1,
        optimizer="sgd",
        early_stopping_patience=None,
    )
    return TrainConfig(**{**base, **kw})


def test_masked_mse_by_hand():
    pred = torch.zeros(1, 3, 2, 1)  # (B, k, h, C)
    target = torch.tensor([1.0, 2.0, 3.0]).view(1, 3, 1, 1).expand(1, 3, 2, 1)
    mask = torch.tensor([[True, True, False]])
    assert masked_mse(pred, target, mask).item() == pytest.approx((1 + 1 + 4 + 4) / 4)
    assert masked_mse(pred, target).item() == pytest.approx((2 + 8 + 18) / 6)


def test_masked_mae_by_hand():
    pred = torch.zeros(1, 3, 2, 1)  # (B, k, h, C)
    target = torch.tensor([1.0, -1.0, 2.0, -2.0, 3.0, -3.0]).reshape(1, 3, 2, 1)
    mask = torch.tensor([[True, True, False]])
    assert masked_mae(pred, target, mask).item() == pytest.approx((1 + 1 + 2 + 2) / 4)
    assert masked_mae(pred, target).item() == pytest.approx((2 + 4 + 6) / 6)


@pytest.mark.parametrize(
    "loss, w_after, train_loss",
    [
        # MAE: gradient sign(w) = 1, so each SGD step moves w by the learning rate
        ("mae", 0.8 - 0.1 - 0.1, (16 * 0.8 + 9 * 0.7) / 25),
        # MSE: gradient 2 w, so each step multiplies w by 1 - 2 * 0.1
        ("mse", 0.8 * 0.8 * 0.8, (16 * 0.8**2 + 9 * 0.64**2) / 25),
    ],
)
def test_point_loss_by_name_drives_the_steps_and_the_validation(loss, w_after, train_loss):
    train_data = WindowDataset([constant(30, 0.0)], 4, 2)  # 25 windows: steps of 16 and 9
    val_data = WindowDataset([constant(30, 1.0)], 4, 2)
    net = Scalar(w=0.8)
    with seeded(0, "cpu") as rng:
        result = train(
            net,
            train_data,
            val_data,
            config(max_epochs=1, loss=loss, gradient_clip=None),
            [],
            rng,
            "cpu",
        )
    assert net.w.item() == pytest.approx(w_after)
    assert result.history["train_loss"][0] == pytest.approx(train_loss)
    gap = 1.0 - w_after  # every validation target is 1
    assert result.history["val_loss"][0] == pytest.approx(gap if loss == "mae" else gap**2)


def test_unknown_loss_is_refused():
    one_of = r"loss must be one of \('mse', 'mae', 'position'\), got 'huber'"
    with pytest.raises(ValueError, match=one_of):
        train(Scalar(), WindowDataset([constant(30, 0.0)], 4, 2), None,
              config(loss="huber"), [], np.random.default_rng(0), "cpu")  # fmt: skip


def test_resolve_device():
    assert resolve_device("cpu") == "cpu"
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="device must be"):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA requested but not available"):
            resolve_device("cuda")


def test_seeded_leaves_the_global_rng_alone():
    before = torch.get_rng_state()
    with seeded(3, "cpu") as rng:
        a = torch.rand(2)
        assert isinstance(rng, np.random.Generator)
    assert torch.equal(torch.get_rng_state(), before)
    with seeded(3, "cpu"):
        assert torch.equal(torch.rand(2), a)


def test_loss_decreases_on_an_easy_series():
    data = WindowDataset([sine()], context=12, horizon=4)
    with seeded(0, "cpu") as rng:
        net = lstm_net()
        result = train(
            net,
            data,
            None,
            config(max_epochs=6, learning_rate=0.05, optimizer="adam", batch_size=64),
            [],
            rng,
            "cpu",
        )
    losses = result.history["train_loss"]
    assert losses[-1] < 0.3 * losses[0]
    assert result.n_epochs == 6 and "val_loss" not in result.history


def test_early_stopping_stops_and_restores_the_best_weights():
    train_data = WindowDataset([constant(30, 0.0)], 4, 2)  # pulls w towards 0 ...
    val_data = WindowDataset([constant(30, 1.0)], 4, 2)  # ... away from the validation target 1
    net, seen = Scalar(w=0.8), []

    class Watch(Callback):
        def on_epoch_end(self, epoch, logs):
            seen.append(net.w.item())

    with seeded(0, "cpu") as rng:
        result = train(
            net,
            train_data,
            val_data,
            config(max_epochs=20, early_stopping_patience=2),
            [Watch()],
            rng,
            "cpu",
        )
    val = result.history["val_loss"]
    assert val == sorted(val)  # validation only got worse
    assert result.n_epochs == 3 and result.best_epoch == 0  # best, then 2 epochs of patience
    assert net.w.item() == pytest.approx(seen[0])  # weights of epoch 0 are back
    assert seen[-1] < seen[0]


def test_callbacks_receive_logs_and_extras():
    rec = Recorder()
    net = Scalar()
    with seeded(0, "cpu") as rng:
        result = train(
            net,
            WindowDataset([constant(30, 0.0)], 4, 2),
            WindowDataset([constant(30, 0.0)], 4, 2),
            config(),
            [rec],
            rng,
            "cpu",
        )
    assert [e for e, _ in rec.logs] == [0, 1, 2]
    for epoch, logs in rec.logs:
        assert set(logs) == {"train_loss", "val_loss", "lr", "calls"}
        assert logs["lr"] == 0.1 and logs["calls"] == epoch + 1
        assert logs["train_loss"] == result.history["train_loss"][epoch]
    assert result.history["calls"] == [1, 2, 3]


def test_same_seed_same_result_and_other_seed_differs():
    data = WindowDataset([sine()], context=12, horizon=4)

    def run(seed):
        with seeded(seed, "cpu") as rng:
            net = lstm_net(dropout=0.2)
            result = train(net, data, None, config(max_epochs=2, batch_size=64), [], rng, "cpu")
        return result.history["train_loss"], torch.cat([p.flatten() for p in net.parameters()])

    (h1, w1), (h2, w2), (h3, _) = run(0), run(0), run(1)
    assert h1 == h2 and torch.equal(w1, w2)
    assert h1 != h3


def test_gradient_clipping_bounds_the_step():
    net = Scalar(w=100.0)
    x = torch.zeros(4, 3, 1)
    for clip, bound in [(0.01, 0.01), (None, 150.0)]:
        net.w.data.fill_(100.0)
        opt = build_optimizer(net, "sgd", lr=1.0)
        loss = masked_mse(net(x)[0], torch.zeros(4, 2, 1))  # gradient 2 w = 200
        optimizer_step(net, opt, loss, clip)
        step = 100.0 - net.w.item()
        if clip:
            assert step == pytest.approx(clip, abs=1e-5)  # float32 arithmetic
        else:
            assert step > bound


def test_schedulers():
    opt = build_optimizer(Scalar(), "sgd", lr=1.0)
    assert build_scheduler(None, opt, 10, 5) is None
    for name in ("cosine", "plateau", "step"):
        assert build_scheduler(name, opt, 10, 5) is not None
    with pytest.raises(ValueError, match="lr_scheduler"):
        build_scheduler("linear", opt, 10, 5)
    with seeded(0, "cpu") as rng:
        result = train(
            Scalar(),
            WindowDataset([constant(30, 0.0)], 4, 2),
            None,
            config(max_epochs=4, lr_scheduler="cosine"),
            [],
            rng,
            "cpu",
        )
    lr = result.history["lr"]
    assert lr[0] == 0.1 and lr == sorted(lr, reverse=True) and lr[-1] < lr[0]


class Spy(nn.Module):
    """Wraps a ForecastNet and records the state each chunk starts from."""

    def __init__(self, net):
        super().__init__()
        self.net, self.received, self.returned = net, [], []

    def forward_steps(self, x, future=None, state=None):
        self.received.append(state)
        pred, out = self.net.forward_steps(x, future, state)
        self.returned.append(out)
        return pred, out


def test_tbptt_epoch_carries_detached_state_across_chunks():
    torch.manual_seed(0)
    series = sine(40)
    streams = StreamChunks([series], horizon=2, steps=5, n_streams=1)
    assert streams.segment_length >= 10  # at least two chunks in one stream
    spy = Spy(ForecastNet(build_recurrent("gru", 1, 4), PointHead(4, 2, 1)))
    opt = build_optimizer(spy, "sgd", lr=0.0)  # weights stay put: compare with a full run
    run_epoch(spy, streams, opt, batch_size=1, clip=1.0, rng=None)
    assert spy.received[0] is None
    assert all(s is not None and s.grad_fn is None for s in spy.received[1:])
    torch.testing.assert_close(spy.received[1], spy.returned[0].detach())
    full = torch.from_numpy(series[0][:10]).float()[None]
    _, h = spy.net.encoder(full)
    torch.testing.assert_close(spy.received[2], h)


class Normed(nn.Module):
    """Batch-normalises the last input step and records the size of every batch it reads."""

    def __init__(self, norm=True, horizon=2):
        super().__init__()
        self.norm = nn.BatchNorm1d(1) if norm else nn.Identity()
        self.w = nn.Parameter(torch.tensor(1.0))
        self.horizon, self.sizes = horizon, []

    def forward(self, x, future=None, state=None):
        self.sizes.append(len(x))
        return (self.w * self.norm(x[:, -1, :1]))[:, None].expand(-1, self.horizon, 1), None


def test_a_batch_norm_network_never_trains_on_a_batch_of_one_window():
    data = WindowDataset([sine(41)], context=4, horizon=2)  # 36 windows = 5 * 7 + 1
    with_norm, without = Normed(), Normed(norm=False)
    for net in (with_norm, without):
        opt = build_optimizer(net, "sgd", lr=0.1)
        loss = run_epoch(net, data, opt, batch_size=7, clip=None, rng=np.random.default_rng(0))
        assert math.isfinite(loss)
    assert with_norm.sizes == [7, 7, 7, 7, 8]  # the lone last window joins the batch before it
    assert without.sizes == [7, 7, 7, 7, 7, 1]  # other networks keep the batches as they were
    with_norm.eval()  # in evaluation mode a batch norm takes one window
    assert math.isfinite(evaluate(with_norm, data, batch_size=7))


def test_checkpoint_resume_equals_an_uninterrupted_run(tmp_path):
    data = WindowDataset([sine(120)], context=12, horizon=4)
    val = WindowDataset([sine(60)], context=12, horizon=4)
    cfg = dict(
        max_epochs=4,
        learning_rate=0.01,
        optimizer="adam",
        lr_scheduler="cosine",
        early_stopping_patience=10,
    )

    def run(folder, callbacks=()):
        with seeded(0, "cpu") as rng:
            net = lstm_net(dropout=0.3)
            result = train(
                net,
                data,
                val,
                config(checkpoint_dir=str(folder), **cfg),
                list(callbacks),
                rng,
                "cpu",
            )
        return net, result

    with pytest.raises(KeyboardInterrupt):
        run(tmp_path / "a", [Recorder(stop_after=1)])
    assert (tmp_path / "a" / CHECKPOINT_FILE).exists()
    assert [p.name for p in (tmp_path / "a").iterdir()] == [CHECKPOINT_FILE]  # no temporary
    rec = Recorder()
    resumed, r1 = run(tmp_path / "a", [rec])
    assert [e for e, _ in rec.logs] == [2, 3]  # continues from epoch 2
    straight, r2 = run(tmp_path / "b")
    assert r1.history == r2.history and r1.best_epoch == r2.best_epoch and r1.n_epochs == 4
    for a, b in zip(resumed.state_dict().values(), straight.state_dict().values(), strict=True):
        assert torch.equal(a, b)


def test_checkpoint_of_other_data_is_not_resumed(tmp_path):
    data = WindowDataset([sine(80)], context=12, horizon=4)
    with seeded(0, "cpu") as rng:
        train(
            lstm_net(),
            data,
            None,
            config(checkpoint_dir=str(tmp_path), signature="a"),
            [],
            rng,
            "cpu",
        )
    with pytest.warns(UserWarning, match="starting afresh"), seeded(0, "cpu") as rng:
        result = train(
            lstm_net(),
            data,
            None,
            config(checkpoint_dir=str(tmp_path), signature="b"),
            [],
            rng,
            "cpu",
        )
    assert result.n_epochs == 3


def test_a_file_of_someone_elses_in_place_of_the_checkpoint_is_kept(tmp_path):
    data = WindowDataset([sine(80)], context=12, horizon=4)
    for content in (b"my own results\n", b""):
        (tmp_path / CHECKPOINT_FILE).write_bytes(content)
        with pytest.raises(WriteRefused, match="is not a training checkpoint written by forecast"):
            with seeded(0, "cpu") as rng:
                train(lstm_net(), data, None, config(checkpoint_dir=str(tmp_path)), [], rng, "cpu")
        assert (tmp_path / CHECKPOINT_FILE).read_bytes() == content
        assert [p.name for p in tmp_path.iterdir()] == [CHECKPOINT_FILE]


def test_divergence_is_reported():
    with seeded(0, "cpu") as rng, pytest.raises(RuntimeError, match="diverged"):
        train(
            Scalar(w=math.inf),
            WindowDataset([constant(30, 0.0)], 4, 2),
            None,
            config(),
            [],
            rng,
            "cpu",
        )


class WindowMean(nn.Module):
    """Forecasts ``w * mean(window) + mean(future)`` per window and records each batch size."""

    def __init__(self, horizon=2):
        super().__init__()
        self.w = nn.Parameter(torch.tensor(0.5))
        self.horizon, self.sizes = horizon, []

    def forward(self, x, future=None, state=None):
        self.sizes.append(len(x))
        out = self.w * x.mean(dim=(1, 2))[:, None, None].expand(-1, self.horizon, 1)
        return (out if future is None else out + future.mean(-1, keepdim=True)), None


def test_evaluate_in_slices_reads_at_most_chunk_windows_and_keeps_the_loss():
    t = np.arange(60.0)
    y = np.sin(t / 3)[:, None]
    data = WindowDataset([(y, y, np.cos(t)[:, None])], context=5, horizon=2)  # 54 windows
    net = WindowMean()
    whole = evaluate(net, data, batch_size=20)
    assert net.sizes == [20, 20, 14]
    net.sizes.clear()
    sliced = evaluate(net, data, batch_size=20, chunk=8)
    assert net.sizes == [6, 7, 7, 6, 7, 7, 7, 7]  # each batch of 20 (then 14) in even slices
    assert sliced == whole  # the same batches reduce the loss: the same value, bit for bit


def test_train_reads_steps_and_validation_in_micro_batches():
    t = np.arange(80.0)
    y = np.sin(t / 3)[:, None]
    data = WindowDataset([(y, y, None)], context=5, horizon=2)  # 74 windows
    val = WindowDataset([(y[:40], y[:40], None)], context=5, horizon=2)  # 34 windows
    assert config(batch_size=16).slice_size == 16
    assert config(batch_size=16, micro_batch_size=32).slice_size == 16
    cfg = config(max_epochs=1, batch_size=16, micro_batch_size=6)
    assert cfg.slice_size == 6
    net = WindowMean()
    with seeded(0, "cpu") as rng:
        train(net, data, val, cfg, [], rng, "cpu")
    steps = [5, 5, 6] * 4 + [5, 5]  # batches 16, 16, 16, 16, 10 in even slices
    assert net.sizes == steps + [5, 6, 6, 5, 6, 6]  # then the validation batch of 34


# ------------------------------------------------ divergence in the last batch of an epoch
class DivergesOnStep(Scalar):
    """Finite loss (sqrt(0) = 0), infinite gradient: the one step leaves NaN/inf weights."""

    def __init__(self):
        super().__init__(w=0.0)
        self.z = nn.Parameter(torch.tensor(0.0))

    def forward(self, x, future=None, state=None):
        return (self.w + torch.sqrt(self.z)).expand(x.shape[0], self.horizon, 1), None


@pytest.mark.parametrize("with_val", [False, True])
def test_divergence_in_the_only_batch_is_an_error(with_val):
    data = WindowDataset([constant(30, 1.0)], 4, 2)  # 25 windows: one batch of 64
    val = WindowDataset([constant(30, 1.0)], 4, 2) if with_val else None
    settings = config(max_epochs=1, batch_size=64, gradient_clip=None)
    with pytest.raises(RuntimeError, match=r"training diverged: .*lower learning_rate.*scale"):
        train(DivergesOnStep(), data, val, settings, [], np.random.default_rng(0), "cpu")


def test_finite_training_passes_the_final_check():
    data = WindowDataset([constant(30, 1.0)], 4, 2)
    result = train(Scalar(), data, None, config(max_epochs=1), [], np.random.default_rng(0), "cpu")
    assert result.n_epochs == 1
