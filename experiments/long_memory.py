"""Long memory: recall values seen 100+ steps earlier (orthogonal RNN against Elman RNN).

Task (delayed recall): the first K steps of a sequence carry K values v ~ N(0, 1) on input
channel 0 (with a flag on channel 1); then come ``delay`` steps of zeros and a final step with
a "recall" flag on channel 2. The network reads its last hidden state through a linear head
and must output the K values. Predicting zero (the mean) has MSE 1, the trivial baseline.

To recall, the state must carry K numbers across ``delay`` steps. An Elman RNN with torch's
default initialisation contracts its state (spectral radius about 0.58), so both the signal
and its gradient vanish; an orthogonal recurrent matrix has all eigenvalues on the unit
circle and keeps them. Every network has the same width and the same linear head and is
trained with the same loop (Adam, gradient clipping 1, batch 64); the orthogonal RNN's
``W_h`` takes the Cayley update of ``forecast.training.optim`` (same step size). Reported: MSE on
1024 fresh sequences after training, and the eigenvalue moduli of ``W_h``.

    python experiments/long_memory.py            # delay 120, hidden 64, 1000 steps
    python experiments/long_memory.py --quick    # delay 100, hidden 32, 300 steps
"""

from __future__ import annotations

import argparse
import time

import torch
from torch import nn

from forecast.nn.orthogonal import OrthogonalRNN, orthogonality_error, random_orthogonal
from forecast.training.loop import optimizer_step
from forecast.training.optim import build_optimizer


def recall_batch(n: int, k: int, delay: int, gen: torch.Generator) -> tuple:
    """Inputs (n, k + delay + 1, 3) and targets (n, k) of the delayed-recall task."""
    values = torch.randn(n, k, generator=gen)
    x = torch.zeros(n, k + delay + 1, 3)
    x[:, :k, 0] = values
    x[:, :k, 1] = 1.0
    x[:, -1, 2] = 1.0
    return x, values


class Net(nn.Module):
    """Encoder plus a linear head on the last hidden state."""

    def __init__(self, encoder: nn.Module, hidden: int, k: int) -> None:
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(hidden, k)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.encoder(x)  # (B, T, H)
        return self.head(y[:, -1])  # (B, K)

    def param_groups(self) -> list[dict]:
        declare = getattr(self.encoder, "param_groups", None)
        groups = declare() if callable(declare) else []
        taken = {id(p) for g in groups for p in g["params"]}
        rest = [p for p in self.parameters() if p.requires_grad and id(p) not in taken]
        return groups + [{"params": rest}]


def elman_orthogonal_init(hidden: int, nonlinearity: str) -> nn.RNN:
    rnn = nn.RNN(3, hidden, batch_first=True, nonlinearity=nonlinearity)
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(random_orthogonal(hidden))
    return rnn


MODELS = {
    "orthogonal RNN (tanh)": lambda h: OrthogonalRNN(3, h, nonlinearity="tanh"),
    "orthogonal RNN (relu)": lambda h: OrthogonalRNN(3, h, nonlinearity="relu"),
    "Elman (tanh)": lambda h: nn.RNN(3, h, batch_first=True),
    "Elman (relu)": lambda h: nn.RNN(3, h, batch_first=True, nonlinearity="relu"),
    "Elman (tanh) with orthogonal init": lambda h: elman_orthogonal_init(h, "tanh"),
    "LSTM": lambda h: nn.LSTM(3, h, batch_first=True),
}


def recurrent_matrix(encoder: nn.Module) -> torch.Tensor | None:
    rnn = encoder.rnn if isinstance(encoder, OrthogonalRNN) else encoder
    if isinstance(rnn, nn.RNN):
        return rnn.weight_hh_l0.detach().double()
    return None


def run(name: str, args, test: tuple) -> dict:
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed + 1)
    net = Net(MODELS[name](args.hidden), args.hidden, args.k)
    opt = build_optimizer(net, "adam", lr=args.lr)
    start = time.perf_counter()
    curve = []
    for step in range(args.steps):
        x, y = recall_batch(args.batch, args.k, args.delay, gen)
        loss = ((net(x) - y) ** 2).mean()
        optimizer_step(net, opt, loss, clip=1.0)
        curve.append(loss.item())
        if args.verbose and (step + 1) % max(1, args.steps // 5) == 0:
            recent = sum(curve[-50:]) / len(curve[-50:])
            print(f"  {name:45s} step {step + 1:5d}  train MSE {recent:.4f}")
    seconds = time.perf_counter() - start
    with torch.no_grad():
        test_mse = float(((net(test[0]) - test[1]) ** 2).mean())
    row = {"name": name, "test": test_mse, "seconds": seconds, "eig": "-", "orth": "-"}
    w = recurrent_matrix(net.encoder)
    if w is not None:
        moduli = torch.linalg.eigvals(w).abs()
        row["eig"] = f"{float(moduli.min()):.6f} .. {float(moduli.max()):.6f}"
        row["orth"] = f"{orthogonality_error(w):.1e}"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small and short run")
    parser.add_argument(
        "--delay", type=int, default=None, help="blank steps between values and recall"
    )
    parser.add_argument("--steps", type=int, default=None, help="optimizer steps per model")
    parser.add_argument("--hidden", type=int, default=None)
    parser.add_argument("--k", type=int, default=5, help="values to recall")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (small matrices: 1 is fastest)"
    )
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated subset")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    args.delay = args.delay or (100 if args.quick else 120)
    args.steps = args.steps or (300 if args.quick else 1000)
    args.hidden = args.hidden or (32 if args.quick else 64)
    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(True)
    test = recall_batch(1024, args.k, args.delay, torch.Generator().manual_seed(12345))
    baseline = float((test[1] ** 2).mean())
    print(
        f"delayed recall of K={args.k} values after {args.delay} blank steps; hidden "
        f"{args.hidden}, {args.steps} Adam steps (lr {args.lr}), batch {args.batch}\n"
    )
    rows = [run(name, args, test) for name in args.models.split(",")]
    print(
        "| model | test MSE | MSE / baseline | train s | eigenvalue moduli of W_h "
        "| max abs(W^T W - I) |"
    )
    print("|---|---|---|---|---|---|")
    print(f"| trivial baseline (predict 0) | {baseline:.4f} | 1.000 | - | - | - |")
    for r in rows:
        print(
            f"| {r['name']} | {r['test']:.4f} | {r['test'] / baseline:.3f} | {r['seconds']:.0f} "
            f"| {r['eig']} | {r['orth']} |"
        )


if __name__ == "__main__":
    main()
