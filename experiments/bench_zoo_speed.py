"""Training speed of the six encoder families, and the cost of the Stiefel (Cayley) step.

One training step = forward + MSE + backward + gradient clipping + optimizer step of
``ForecastNet(encoder, PointHead)`` (the estimators' network: the head reads the last encoder
output and forecasts 24 steps), optimizer from ``forecast.training.optim.build_optimizer``
("adam", so the orthogonal RNN takes the Cayley update of its W_h). Context 168, one input channel,
batch 64. Reported: training samples per second (median over repeats; repeats interleave the
families so load drifts hit all alike), then

* the orthogonal RNN's step time over an Elman step (``nn.RNN``, relu) of the same size, as
  the median of per-repeat ratios measured in the same process;
* the cost of the Stiefel step alone (Cayley solve + drift check on W_h with a random
  gradient) next to an Adam step on the same matrix.

    python experiments/bench_zoo_speed.py            # hidden 64 and 256, ratio at 64/128/256
    python experiments/bench_zoo_speed.py --quick    # hidden 64, ratio at 128, few repeats
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch
from torch import nn

from forecast.nn.heads import PointHead
from forecast.nn.hopfield import HopfieldPooling
from forecast.nn.net import ForecastNet
from forecast.nn.orthogonal import OrthogonalRNN, random_orthogonal
from forecast.nn.recurrent import build_recurrent
from forecast.nn.transformer import TransformerEncoder
from forecast.training.loop import optimizer_step
from forecast.training.optim import StiefelOptimizer, build_optimizer

FAMILIES = {
    "Elman": lambda i, h, t: build_recurrent("elman", i, h),
    "Elman relu": lambda i, h, t: build_recurrent("elman", i, h, nonlinearity="relu"),
    "LSTM": lambda i, h, t: build_recurrent("lstm", i, h),
    "GRU": lambda i, h, t: build_recurrent("gru", i, h),
    "orthogonal": lambda i, h, t: OrthogonalRNN(i, h),
    "transformer": lambda i, h, t: TransformerEncoder(
        i, d_model=h, num_layers=1, n_heads=4, max_len=t
    ),
    "Hopfield": lambda i, h, t: HopfieldPooling(i, hidden_size=h, n_heads=4, max_len=t),
}


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def make_step(name: str, device: torch.device, hidden: int, args):
    """A closure running one training step of family ``name``."""
    torch.manual_seed(0)
    encoder = FAMILIES[name](1, hidden, args.context)
    net = ForecastNet(encoder, PointHead(encoder.output_size, args.horizon, 1)).to(device)
    opt = build_optimizer(net, "adam", lr=1e-4)
    x = torch.randn(args.batch, args.context, 1, device=device)  # (B, T, 1)
    y = torch.randn(args.batch, args.horizon, 1, device=device)  # (B, h, 1)

    def step() -> None:
        pred, _ = net(x)  # (B, h, 1)
        optimizer_step(net, opt, ((pred - y) ** 2).mean(), clip=1.0)

    return step


def seconds_per_call(fn, n: int, device: torch.device) -> float:
    sync(device)
    start = time.perf_counter()
    for _ in range(n):
        fn()
    sync(device)
    return (time.perf_counter() - start) / n


def interleaved(fns: dict, args, device: torch.device, n: int) -> dict[str, list[float]]:
    """Seconds per call of every function, one list entry per repeat, families interleaved."""
    for fn in fns.values():
        seconds_per_call(fn, args.warmup, device)
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(args.repeats):
        for k, fn in fns.items():
            times[k].append(seconds_per_call(fn, n, device))
    return times


def stiefel_step_cost(hidden: int, device: torch.device, args) -> tuple[float, float]:
    """Median seconds of one Cayley step, and of one Adam step, on a (hidden, hidden) matrix."""
    w = nn.Parameter(random_orthogonal(hidden).to(device))
    v = nn.Parameter(random_orthogonal(hidden).to(device))
    cayley = StiefelOptimizer([{"params": [w], "stiefel": True}], base=torch.optim.Adam, lr=1e-4)
    adam = torch.optim.Adam([v], lr=1e-4)
    w.grad = 1e-2 * torch.randn_like(w)
    v.grad = w.grad.clone()
    times = interleaved({"cayley": cayley.step, "adam": adam.step}, args, device, args.steps * 5)
    return statistics.median(times["cayley"]), statistics.median(times["adam"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="hidden 64 only, few repeats")
    parser.add_argument("--hidden", type=int, nargs="+", default=None)
    parser.add_argument("--ratio-hidden", type=int, nargs="+", default=None)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--context", type=int, default=168)
    parser.add_argument("--horizon", type=int, default=24)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--steps", type=int, default=None, help="timed steps per repeat")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args(argv)
    args.hidden = args.hidden or ([64] if args.quick else [64, 256])
    args.ratio_hidden = args.ratio_hidden or ([128] if args.quick else [64, 128, 256])
    args.steps = args.steps or (2 if args.quick else 5)
    args.repeats = args.repeats or (3 if args.quick else 7)
    torch.set_num_threads(args.threads)
    devices = [torch.device("cpu")] + ([torch.device("cuda")] if torch.cuda.is_available() else [])
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    print(
        f"torch {torch.__version__}, {args.threads} threads{load}; batch {args.batch}, context "
        f"{args.context}, horizon {args.horizon}, one layer; median of {args.repeats} repeats x "
        f"{args.steps} steps\n"
    )
    names = [n for n in FAMILIES if n != "Elman relu"]
    print("Training samples per second\n")
    print("| device | hidden | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for device in devices:
        for hidden in args.hidden:
            steps = {n: make_step(n, device, hidden, args) for n in names}
            times = interleaved(steps, args, device, args.steps)
            rates = " | ".join(f"{args.batch / statistics.median(times[n]):.0f}" for n in names)
            print(f"| {device.type} | {hidden} | {rates} |", flush=True)

    print("\nOrthogonal RNN against Elman (nn.RNN relu) of the same size, and the Stiefel step\n")
    print(
        "| device | hidden | orthogonal / Elman step time | Cayley step ms | Adam step ms "
        "(same matrix) | Cayley share of the orthogonal step |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for device in devices:
        for hidden in args.ratio_hidden:
            pair = {n: make_step(n, device, hidden, args) for n in ("Elman relu", "orthogonal")}
            times = interleaved(pair, args, device, args.steps)
            ratios = [o / e for o, e in zip(times["orthogonal"], times["Elman relu"], strict=True)]
            cayley, adam = stiefel_step_cost(hidden, device, args)
            share = cayley / statistics.median(times["orthogonal"])
            print(
                f"| {device.type} | {hidden} | {statistics.median(ratios):.2f} "
                f"({min(ratios):.2f}-{max(ratios):.2f}) | {1e3 * cayley:.2f} | {1e3 * adam:.2f} "
                f"| {100 * share:.1f}% |",
                flush=True,
            )
    if hasattr(os, "getloadavg"):
        print(f"\nload average after: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
