"""Stand-ins that the ONNX tracer can record, for modules whose fast forward it cannot.

:class:`forecast.nn.peephole.PeepholeLSTM` runs its loop as a custom autograd function that
writes gates and cells in place into preallocated buffers (views made by ``unbind``); the
TorchScript tracer records those writes wrongly. :class:`TracedPeephole` computes the same
equations (module docstring of :mod:`forecast.nn.peephole`: gate order ``(i, f, z, o)``,
peephole rows ``(p_i, p_f, p_o)``) with out-of-place operations on the module's own
parameters, for export only. The export compares onnxruntime's output with the original
module's, so a stand-in that drifted from the module would be refused, never written.
"""

from __future__ import annotations

import copy

import torch
from torch import Tensor, nn

from forecast.nn.peephole import PeepholeLSTM


class TracedPeephole(nn.Module):
    """Out-of-place forward of a :class:`PeepholeLSTM` (evaluation only: no dropout).

    Parameters
    ----------
    lstm : PeepholeLSTM
        The module whose parameters are read (shared, not copied).
    """

    def __init__(self, lstm: PeepholeLSTM) -> None:
        super().__init__()
        self.lstm = lstm

    def forward(self, x: Tensor, state: object = None) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """Run the stacked cells over ``x`` (B, T, I) from zero state; ``(y, (h_T, c_T))``."""
        if state is not None:
            raise ValueError("the exported peephole LSTM starts from zero state")
        lstm = self.lstm
        batch, steps, _ = x.shape
        size = lstm.hidden_size
        seq = x  # (B, T, I)
        h_last, c_last = [], []
        for k in range(lstm.num_layers):
            w, r, b, p = lstm.layer_parameters(k)  # (4H, I), (4H, H), (4H,), (3, H)
            inputs = seq @ w.t() + b  # (B, T, 4H)
            h = x.new_zeros(batch, size)  # (B, H)
            c = x.new_zeros(batch, size)  # (B, H)
            outputs = []
            for t in range(steps):
                a = inputs[:, t] + h @ r.t()  # (B, 4H)
                i = torch.sigmoid(a[:, :size] + p[0] * c)
                f = torch.sigmoid(a[:, size : 2 * size] + p[1] * c)
                z = torch.tanh(a[:, 2 * size : 3 * size])
                c = c * f + z * i  # (B, H)
                o = torch.sigmoid(a[:, 3 * size :] + p[2] * c)
                h = torch.tanh(c) * o  # (B, H)
                outputs.append(h)
            seq = torch.stack(outputs, dim=1)  # (B, T, H)
            h_last.append(h)
            c_last.append(c)
        return seq, (torch.stack(h_last), torch.stack(c_last))


def traceable(net: nn.Module) -> nn.Module:
    """Return a copy of ``net`` with every :class:`PeepholeLSTM` wrapped in a stand-in."""
    net = copy.deepcopy(net)
    for module in list(net.modules()):
        for name, child in list(module.named_children()):
            if isinstance(child, PeepholeLSTM):
                setattr(module, name, TracedPeephole(child))
    return net
