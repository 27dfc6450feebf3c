"""Training speed of PeepholeLSTM against torch's nn.LSTM and nn.GRU.

One training step = forward + backward + Adam step of a recurrent encoder with a linear head on
the last hidden state that predicts the next 24 values (day-ahead shape: context 168 hours,
one input channel). Reported: training samples per second, median over repeats after warm-up,
and the ratio PeepholeLSTM / nn.LSTM measured in the same process. Repeats are interleaved
across models so that machine load drifts hit all models alike.

    python experiments/bench_recurrent_speed.py            # full run
    python experiments/bench_recurrent_speed.py --quick    # a few seconds per cell
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch
from torch import nn

from forecast.nn.peephole import PeepholeLSTM


class Net(nn.Module):
    """Recurrent encoder plus a linear head on the last hidden state."""

    def __init__(self, encoder: nn.Module, hidden: int, horizon: int) -> None:
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.encoder(x)  # (B, T, H)
        return self.head(y[:, -1])  # (B, horizon)


ENCODERS = {
    "nn.LSTM": lambda i, h, layers: nn.LSTM(i, h, num_layers=layers, batch_first=True),
    "PeepholeLSTM": lambda i, h, layers: PeepholeLSTM(i, h, num_layers=layers),
    "nn.GRU": lambda i, h, layers: nn.GRU(i, h, num_layers=layers, batch_first=True),
}


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def make_step(name, device, hidden, layers, batch, context, horizon):
    torch.manual_seed(0)
    net = Net(ENCODERS[name](1, hidden, layers), hidden, horizon).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.randn(batch, context, 1, device=device)  # (B, T, 1)
    target = torch.randn(batch, horizon, device=device)  # (B, horizon)

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.mse_loss(net(x), target)
        loss.backward()
        opt.step()

    return step


def time_steps(step, n_steps: int, device: torch.device) -> float:
    sync(device)
    start = time.perf_counter()
    for _ in range(n_steps):
        step()
    sync(device)
    return time.perf_counter() - start


def bench_cell(device, hidden, args) -> dict[str, float]:
    """Median training samples/s of every encoder at one hidden size."""
    steps = {
        name: make_step(name, device, hidden, args.layers, args.batch, args.context, args.horizon)
        for name in ENCODERS
    }
    for step in steps.values():
        time_steps(step, args.warmup, device)
    rates: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(args.repeats):
        for name, step in steps.items():
            seconds = time_steps(step, args.steps, device)
            rates[name].append(args.steps * args.batch / seconds)
    return {name: statistics.median(r) for name, r in rates.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and repeats")
    parser.add_argument("--hidden", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--context", type=int, default=168)
    parser.add_argument("--horizon", type=int, default=24)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--steps", type=int, default=None, help="training steps per repeat")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--warmup", type=int, default=None, help="untimed steps per model")
    args = parser.parse_args(argv)
    args.steps = args.steps or (3 if args.quick else 10)
    args.repeats = args.repeats or (3 if args.quick else 5)
    args.warmup = args.warmup or (2 if args.quick else 5)
    torch.set_num_threads(args.threads)

    devices = [torch.device("cpu")]
    if torch.cuda.is_available():
        devices.append(torch.device("cuda"))
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    print(
        f"torch {torch.__version__}, {args.threads} threads{load}, batch {args.batch}, "
        f"context {args.context}, horizon {args.horizon}, layers {args.layers}, "
        f"median of {args.repeats} repeats x {args.steps} steps after {args.warmup} warm-up\n"
    )
    names = list(ENCODERS)
    print(
        "| device | hidden | " + " | ".join(f"{n} samples/s" for n in names) + " | "
        "PeepholeLSTM / nn.LSTM |"
    )
    print("|---|---:|" + "---:|" * len(names) + "---:|")
    for device in devices:
        for hidden in args.hidden:
            med = bench_cell(device, hidden, args)
            ratio = med["PeepholeLSTM"] / med["nn.LSTM"]
            cells = " | ".join(f"{med[n]:.0f}" for n in names)
            print(f"| {device.type} | {hidden} | {cells} | {ratio:.2f} |", flush=True)
    if hasattr(os, "getloadavg"):
        print(f"\nload average after: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
