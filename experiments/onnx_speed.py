"""Forecasts per second on one core: an ONNX export (onnxruntime) against torch's ``predict``.

For each of the six neural families (day-ahead shape: context 168 hours, horizon 24, hidden
64, a point and a quantile head) the script fits a model briefly (speed does not depend on
the weights), exports it with ``to_onnx`` and times, in the same process and interleaved:

- ``predict``: one ``predict(horizon=24, history=...)`` call on one series, the whole path
  (frames, scaling, calendar, network, frames out): forecasts per second;
- ``network``: the network alone on a batch of 256 windows (torch forward under
  ``no_grad`` against ``InferenceSession.run``): windows per second.

torch runs with ``torch.set_num_threads(1)``, onnxruntime with ``intra_op_num_threads=1``.
Each cell is the median of the repeats; the ratio is ONNX / torch (above 1: ONNX faster). It
also prints the largest gap between the two forecasts (data units).

    python experiments/onnx_speed.py            # full run (a few minutes)
    python experiments/onnx_speed.py --quick    # fewer repeats, two families
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from forecast import (
    ElmanForecaster,
    GRUForecaster,
    HopfieldForecaster,
    LSTMForecaster,
    OrthogonalRNNForecaster,
    TransformerForecaster,
)
from forecast.onnx.runtime import OnnxForecaster

FAMILIES = {
    "Elman": lambda **kw: ElmanForecaster(num_layers=1, n_ensemble=1, **kw),  # as measured
    "LSTM": LSTMForecaster,
    "LSTM peephole": lambda **kw: LSTMForecaster(peephole=True, **kw),
    "GRU": GRUForecaster,
    "OrthogonalRNN": OrthogonalRNNForecaster,
    "Transformer": TransformerForecaster,
    "Hopfield": HopfieldForecaster,
}
PARAMS = dict(
    context_length=168,
    horizon=24,
    hidden_size=64,
    max_epochs=1,
    batch_size=64,
    train_origins=24,  # one training window a day: a fast fit, speed needs no accuracy
    calendar=True,
    timezone="Europe/Berlin",
    random_state=0,
)


def load_series(n: int = 24 * 60) -> pd.DataFrame:
    """A synthetic hourly load with daily and weekly cycles, in local time."""
    rng = np.random.default_rng(0)
    index = pd.date_range("2023-01-01", periods=n, freq="h", tz="Europe/Berlin")
    t = np.arange(n)
    load = 50 + 8 * np.sin(2 * np.pi * t / 24) + 3 * np.sin(2 * np.pi * t / 168)
    return pd.DataFrame({"load": load + rng.standard_normal(n)}, index=index)


def rate(call, repeats: int, inner: int) -> float:
    """Median calls per second over ``repeats`` timings of ``inner`` calls (after a warm-up)."""
    call()
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            call()
        rates.append(inner / (time.perf_counter() - start))
    return statistics.median(rates)


def bench(name: str, make, quantiles, data, repeats: int, folder: Path) -> dict:
    """Time one family and head; return a table row."""
    model = make(**PARAMS, quantiles=quantiles).fit(data)
    path = folder / f"{name}-{bool(quantiles)}".replace(" ", "_")
    runtime = OnnxForecaster.load(model.to_onnx(path), threads=1)
    history = data.iloc[-24 * 14 :]
    ask = True if quantiles else None
    want = model.predict(horizon=24, history=history, quantiles=ask)
    got = runtime.predict(horizon=24, history=history, quantiles=ask)
    gap = float(np.abs(want.to_numpy() - got.to_numpy()).max())
    x = np.random.default_rng(1).standard_normal((256, 168, model.n_inputs_)).astype(np.float32)
    f = np.random.default_rng(2).standard_normal((256, 24, model.n_future_)).astype(np.float32)
    net, xt, ft = model.module_.eval(), torch.from_numpy(x), torch.from_numpy(f)

    def torch_net():
        with torch.no_grad():
            net(xt, ft if model.n_future_ else None)

    def onnx_net():
        runtime._forward(x, f if model.n_future_ else None)

    row = {"family": name, "head": "quantile" if quantiles else "point", "max abs gap": gap}
    pairs = {
        "predict": (
            lambda: model.predict(horizon=24, history=history, quantiles=ask),
            lambda: runtime.predict(horizon=24, history=history, quantiles=ask),
            10,
        ),
        "network": (torch_net, onnx_net, 2),
    }
    for what, (slow, fast, inner) in pairs.items():
        torch_rates, onnx_rates = [], []
        for _ in range(repeats):  # interleaved, so that load drifts hit both alike
            torch_rates.append(rate(slow, 1, inner))
            onnx_rates.append(rate(fast, 1, inner))
        scale = 256 if what == "network" else 1
        t, o = statistics.median(torch_rates) * scale, statistics.median(onnx_rates) * scale
        unit = "windows/s" if what == "network" else "forecasts/s"
        row[f"torch {what} {unit}"] = t
        row[f"onnx {what} {unit}"] = o
        row[f"{what} ratio"] = o / t
    return row


def main() -> None:
    """Run the benchmark and print the table (Markdown)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats, Elman and Transformer")
    args = parser.parse_args()
    torch.set_num_threads(1)
    repeats = 3 if args.quick else 7
    families = {k: FAMILIES[k] for k in ("Elman", "Transformer")} if args.quick else FAMILIES
    data = load_series()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in families.items():
            for quantiles in (None, (0.1, 0.5, 0.9)):
                rows.append(bench(name, make, quantiles, data, repeats, Path(tmp)))
                print(f"{name} {rows[-1]['head']}: done", flush=True)
    table = pd.DataFrame(rows)
    print(f"\ntorch {torch.__version__}, one thread each; medians of {repeats} repeats\n")
    print(table.to_markdown(index=False, floatfmt=".3g"))


if __name__ == "__main__":
    main()
