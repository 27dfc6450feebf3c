"""LSTM with peephole connections, with a hand-written backward pass for speed.

The cell follows Hochreiter & Schmidhuber (1997) in the form of Greff et al. (2016), as in the
lecture notes (``../shared/seeds``)::

    z_t = tanh(W_z x_t + R_z h_{t-1} + b_z)                     block input
    i_t = sigm(W_i x_t + R_i h_{t-1} + p_i * c_{t-1} + b_i)     input gate
    f_t = sigm(W_f x_t + R_f h_{t-1} + p_f * c_{t-1} + b_f)     forget gate
    c_t = z_t * i_t + c_{t-1} * f_t                             cell state
    o_t = sigm(W_o x_t + R_o h_{t-1} + p_o * c_t + b_o)         output gate (sees the NEW c_t)
    h_t = tanh(c_t) * o_t

How it is made fast without compiling anything:

* the input projection ``W x_t + b`` of all time steps is one matrix product before the loop;
* the four recurrent products ``R_* h_{t-1}`` are one ``(B, H) @ (H, 4H)`` product per step;
* the forward loop writes gates, cells and ``tanh(c_t)`` in place into preallocated buffers
  (ten kernel calls per step, no autograd graph);
* the backward pass is written out by hand (:class:`_PeepholeLSTMFunction`): every factor that
  does not depend on the incoming gradient (gate derivatives, peephole terms) is computed for all
  time steps at once, leaving five kernel calls per step in the reverse loop; the weight, bias,
  peephole and input gradients are single reductions over all steps after the loop.

The loops are plain Python over tensor ops, so the module runs on any device and dtype.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

__all__ = ["PeepholeLSTM"]


def _peephole_forward(
    x: Tensor, w: Tensor, r: Tensor, b: Tensor, p: Tensor, h0: Tensor, c0: Tensor
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Run one layer over a time-major sequence, keeping what the backward pass needs.

    Gate order along the ``4H`` axis is ``(i, f, z, o)``; peephole rows are ``(p_i, p_f, p_o)``.

    Returns
    -------
    y : Tensor
        ``(T, B, H)`` hidden states ``h_1 .. h_T``.
    gates : Tensor
        ``(T, B, 4H)`` activated gates ``i, f, z, o``.
    cells : Tensor
        ``(T + 1, B, H)`` cell states ``c_0 .. c_T``.
    tanh_c : Tensor
        ``(T, B, H)`` ``tanh(c_1) .. tanh(c_T)``.
    """
    T, B, _ = x.shape  # (T, B, I)
    H = r.shape[1]
    gates = torch.addmm(b, x.reshape(T * B, -1), w.t()).view(T, B, 4 * H)  # (T, B, 4H)
    cells = x.new_empty(T + 1, B, H)  # (T+1, B, H)
    cells[0] = c0
    tanh_c = x.new_empty(T, B, H)  # (T, B, H)
    y = x.new_empty(T, B, H)  # (T, B, H)
    # Per-step views made up front (C++ unbind), so the loop only launches kernels.
    g_t = gates.unbind(0)  # T x (B, 4H)
    if_t = gates[:, :, : 2 * H].view(T, B, 2, H).unbind(0)  # T x (B, 2, H) i, f
    i_t, f_t, z_t, o_t = (g.unbind(0) for g in gates.chunk(4, dim=2))  # T x (B, H) each
    c_t = cells.unbind(0)  # (T+1) x (B, H)
    c_t_u = cells.unsqueeze(2).unbind(0)  # (T+1) x (B, 1, H)
    tanh_c_t, y_t = tanh_c.unbind(0), y.unbind(0)  # T x (B, H) each
    r_t = r.t()  # (H, 4H)
    p_if = p[:2]  # (2, H)
    p_o = p[2]  # (H,)
    h = h0  # (B, H)
    for t in range(T):
        g_t[t].addmm_(h, r_t)  # pre-activations of all four gates
        if_t[t].addcmul_(p_if, c_t_u[t]).sigmoid_()  # i_t, f_t peek at c_{t-1}
        z_t[t].tanh_()
        c = torch.mul(c_t[t], f_t[t], out=c_t[t + 1])  # c_{t-1} * f_t
        c.addcmul_(z_t[t], i_t[t])  # (B, H) c_t
        o_t[t].addcmul_(p_o, c).sigmoid_()  # o_t peeks at the new c_t
        h = torch.mul(torch.tanh(c, out=tanh_c_t[t]), o_t[t], out=y_t[t])  # (B, H)
    return y, gates, cells, tanh_c


def _backward_factors(
    p: Tensor, y: Tensor, gates: Tensor, cells: Tensor, tanh_c: Tensor
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Factors of the reverse recursion that do not depend on the incoming gradient.

    With ``a`` the gate pre-activations and ``dh``, ``dc`` the total gradients of ``h_t`` and
    ``c_t``, one reverse step is::

        da_o = dh * q                  q = tanh(c_t) o (1 - o)
        dc  += dh * s                  s = o (1 - tanh(c_t)^2) + q p_o
        da_{i,f,z} = dc * k            k = (z i (1 - i), c_{t-1} f (1 - f), i (1 - z^2))
        dc_{t-1} = dc * m              m = f + k_i p_i + k_f p_f

    Computing ``q, s, k, m`` for all steps at once leaves five kernel calls per reverse step.

    Returns
    -------
    q, s : Tensor
        ``(T, B, H)`` each.
    k : Tensor
        ``(T, B, 3, H)``, rows ``(i, f, z)`` like the gradient buffer.
    m : Tensor
        ``(T, B, H)``.
    """
    T, B, H = tanh_c.shape
    i, f, z, o = gates.chunk(4, dim=2)  # each (T, B, H)
    p_i, p_f, p_o = p.unbind(0)  # (H,)
    sig_if = gates[:, :, : 2 * H].view(T, B, 2, H)  # (T, B, 2, H) i, f
    k = gates.new_empty(T, B, 3, H)  # (T, B, 3, H)
    torch.addcmul(sig_if, sig_if, sig_if, value=-1.0, out=k[:, :, :2])  # i (1 - i), f (1 - f)
    k[:, :, 0].mul_(z)
    k[:, :, 1].mul_(cells[:-1])
    torch.addcmul(i, i * z, z, value=-1.0, out=k[:, :, 2])
    m = torch.addcmul(f, k[:, :, 0], p_i).addcmul_(k[:, :, 1], p_f)  # (T, B, H)
    q = torch.addcmul(o, o, o, value=-1.0).mul_(tanh_c)  # (T, B, H)
    s = torch.addcmul(o, tanh_c, y, value=-1.0).addcmul_(q, p_o)  # (T, B, H); y = tanh(c) o
    return q, s, k, m


def _autocast_enabled(device_type: str) -> bool:
    try:
        return torch.is_autocast_enabled(device_type)
    except (TypeError, RuntimeError):  # torch < 2.4, or a device type without autocast
        return False


def _no_autocast(device_type: str) -> contextlib.AbstractContextManager[Any]:
    """Switch autocast off where it is on: the kernels write into buffers of one dtype."""
    if _autocast_enabled(device_type):
        return torch.autocast(device_type, enabled=False)
    return contextlib.nullcontext()


class _PeepholeLSTMFunction(torch.autograd.Function):
    """One peephole-LSTM layer over a time-major sequence, with an explicit backward."""

    @staticmethod
    def forward(  # noqa: D102
        ctx: Any,
        x: Tensor,
        w: Tensor,
        r: Tensor,
        b: Tensor,
        p: Tensor,
        h0: Tensor,
        c0: Tensor,
    ) -> tuple[Tensor, Tensor, Tensor]:
        y, gates, cells, tanh_c = _peephole_forward(x, w, r, b, p, h0, c0)
        ctx.save_for_backward(x, w, r, p, h0, y, gates, cells, tanh_c)
        return y, y[-1].clone(), cells[-1].clone()

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(  # noqa: D102
        ctx: Any, dy: Tensor, dh_last: Tensor, dc_last: Tensor
    ) -> tuple[Tensor | None, ...]:
        with _no_autocast(dy.device.type):
            return _PeepholeLSTMFunction._backward(ctx, dy, dh_last, dc_last)

    @staticmethod
    def _backward(
        ctx: Any, dy: Tensor, dh_last: Tensor, dc_last: Tensor
    ) -> tuple[Tensor | None, ...]:
        x, w, r, p, h0, y, gates, cells, tanh_c = ctx.saved_tensors
        T, B, H = tanh_c.shape
        q, s, k, m = _backward_factors(p, y, gates, cells, tanh_c)
        dy = dy.contiguous()  # (T, B, H)
        da = gates.new_empty(T, B, 4 * H)  # (T, B, 4H) gradients of the pre-activations
        dy_t, da_t, q_t, s_t, k_t, m_t = (v.unbind(0) for v in (dy, da, q, s, k, m))
        da_o_t = da[:, :, 3 * H :].unbind(0)  # T x (B, H)
        da_ifz_t = da[:, :, : 3 * H].view(T, B, 3, H).unbind(0)  # T x (B, 3, H)
        dh = dy_t[-1] + dh_last  # (B, H)
        dc = dc_last.clone()  # (B, H), updated in place
        dc_u = dc.unsqueeze(1)  # (B, 1, H) view of dc
        for t in range(T - 1, -1, -1):
            if t < T - 1:
                dh = torch.addmm(dy_t[t], da_t[t + 1], r)  # (B, H)
            torch.mul(dh, q_t[t], out=da_o_t[t])
            dc.addcmul_(dh, s_t[t])
            torch.mul(dc_u, k_t[t], out=da_ifz_t[t])
            dc.mul_(m_t[t])  # now dc_{t-1}
        da_flat = da.view(T * B, 4 * H)  # (T*B, 4H)
        dh0 = da[0] @ r  # (B, H)
        dx = (da_flat @ w).view(T, B, -1) if ctx.needs_input_grad[0] else None  # (T, B, I)
        dw = da_flat.t() @ x.reshape(T * B, -1)  # (4H, I)
        dr = torch.addmm(  # (4H, H): sum_t da_t^T h_{t-1}
            da[0].t() @ h0, da[1:].reshape(-1, 4 * H).t(), y[:-1].reshape(-1, H)
        )
        db = da_flat.sum(0)  # (4H,)
        dp_if = (da[:, :, : 2 * H].view(T, B, 2, H) * cells[:-1].unsqueeze(2)).sum((0, 1))  # (2, H)
        dp_o = (da[:, :, 3 * H :] * cells[1:]).sum((0, 1))  # (H,)
        return dx, dw, dr, db, torch.cat((dp_if, dp_o.unsqueeze(0))), dh0, dc


class PeepholeLSTM(nn.Module):
    """Multi-layer LSTM with peephole connections, batch-first like ``nn.LSTM``.

    Parameters
    ----------
    input_size : int
        Number of input features ``I``.
    hidden_size : int
        Number of LSTM units ``H`` per layer.
    num_layers : int, default=1
        Number of stacked layers.
    dropout : float, default=0.0
        Dropout probability on the outputs of every layer except the last (in training mode),
        as in ``nn.LSTM``.
    forget_bias : float, default=1.0
        Added to the forget-gate bias after the uniform initialisation, so that the cell keeps
        its state early in training (Gers et al., 2000). Use 0.0 for torch's initialisation.

    Attributes
    ----------
    output_size : int
        Size of the output features, equal to ``hidden_size``.
    recurrent : bool
        Always True: ``forward`` takes and returns a hidden state.
    weight_ih_l{k} : nn.Parameter
        ``(4H, I_k)`` input weights ``W`` of layer ``k``, gate order ``(i, f, z, o)`` (torch's
        ``(i, f, g, o)``).
    weight_hh_l{k} : nn.Parameter
        ``(4H, H)`` recurrent weights ``R``.
    bias_l{k} : nn.Parameter
        ``(4H,)`` biases ``b`` (a single bias; ``nn.LSTM`` has two that add up).
    weight_peephole_l{k} : nn.Parameter
        ``(3, H)`` peephole weights, rows ``(p_i, p_f, p_o)``.

    Notes
    -----
    All weights start uniform in ``[-1/sqrt(H), 1/sqrt(H)]`` as in ``nn.LSTM``. With the peephole
    weights set to zero the layer computes what ``nn.LSTM`` computes with the same weights and
    ``bias_ih + bias_hh = b``. The backward pass is written by hand (one reverse sweep, gradients
    checked against autograd in the tests); it cannot be differentiated a second time.

    Examples
    --------
    >>> lstm = PeepholeLSTM(input_size=1, hidden_size=8, num_layers=2)
    >>> y, (h, c) = lstm(torch.randn(4, 24, 1))
    >>> tuple(y.shape), tuple(h.shape), tuple(c.shape)
    ((4, 24, 8), (2, 4, 8), (2, 4, 8))
    """

    weight_ih_l0: nn.Parameter  # registered by name in __init__ (one per layer)

    recurrent = True

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        dropout: float = 0.0,
        forget_bias: float = 1.0,
    ) -> None:
        super().__init__()
        if num_layers < 1:
            raise ValueError(f"num_layers must be >= 1, got {num_layers}")
        if not 0.0 <= dropout <= 1.0:
            raise ValueError(f"dropout must be in [0, 1], got {dropout}")
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.dropout = float(dropout)
        self.forget_bias = float(forget_bias)
        self.output_size = hidden_size
        H = hidden_size
        for k in range(num_layers):
            n_in = input_size if k == 0 else H
            self.register_parameter(f"weight_ih_l{k}", nn.Parameter(torch.empty(4 * H, n_in)))
            self.register_parameter(f"weight_hh_l{k}", nn.Parameter(torch.empty(4 * H, H)))
            self.register_parameter(f"bias_l{k}", nn.Parameter(torch.empty(4 * H)))
            self.register_parameter(f"weight_peephole_l{k}", nn.Parameter(torch.empty(3, H)))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw all weights uniform in ``±1/sqrt(H)``, then add ``forget_bias`` to ``b_f``."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        H = self.hidden_size
        with torch.no_grad():
            for param in self.parameters():
                param.uniform_(-bound, bound)
            for k in range(self.num_layers):
                getattr(self, f"bias_l{k}")[H : 2 * H] += self.forget_bias

    def layer_parameters(self, k: int) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Return ``(W, R, b, p)`` of layer ``k``, shapes ``(4H, I), (4H, H), (4H,), (3, H)``."""
        return (
            getattr(self, f"weight_ih_l{k}"),
            getattr(self, f"weight_hh_l{k}"),
            getattr(self, f"bias_l{k}"),
            getattr(self, f"weight_peephole_l{k}"),
        )

    def forward(
        self, x: Tensor, state: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """Run the stacked cells over a batch of sequences.

        Parameters
        ----------
        x : Tensor
            ``(B, T, I)`` input sequences.
        state : tuple of Tensor, optional
            ``(h_0, c_0)``, each ``(num_layers, B, H)``. None means zeros.

        Returns
        -------
        y : Tensor
            ``(B, T, H)`` hidden states of the last layer at every step.
        state : tuple of Tensor
            ``(h_T, c_T)``, each ``(num_layers, B, H)``.
        """
        if x.dim() != 3 or x.shape[2] != self.input_size or x.shape[1] == 0:
            raise ValueError(
                f"PeepholeLSTM expects input (batch, time >= 1, {self.input_size}), "
                f"got shape {tuple(x.shape)}"
            )
        B = x.shape[0]
        L, H = self.num_layers, self.hidden_size
        if state is None:
            h0 = c0 = x.new_zeros(L, B, H)  # (L, B, H)
        else:
            h0, c0 = state
            if h0.shape != (L, B, H) or c0.shape != (L, B, H):
                raise ValueError(
                    f"state must be two tensors of shape {(L, B, H)}, "
                    f"got {tuple(h0.shape)} and {tuple(c0.shape)}"
                )
        if _autocast_enabled(x.device.type):  # mixed precision: run this module in its dtype
            dtype = self.weight_ih_l0.dtype
            x, h0, c0 = x.to(dtype), h0.to(dtype), c0.to(dtype)
        seq = x.transpose(0, 1).contiguous()  # (T, B, I) time-major
        h_last, c_last = [], []
        with _no_autocast(x.device.type):
            for k in range(L):
                if k > 0 and self.dropout > 0.0 and self.training:
                    seq = F.dropout(seq, p=self.dropout, training=True)  # (T, B, H)
                w, r, b, p = self.layer_parameters(k)
                seq, h_k, c_k = _PeepholeLSTMFunction.apply(seq, w, r, b, p, h0[k], c0[k])
                h_last.append(h_k)  # (B, H)
                c_last.append(c_k)  # (B, H)
        y = seq.transpose(0, 1).contiguous()  # (B, T, H), contiguous like nn.LSTM's output
        return y, (torch.stack(h_last), torch.stack(c_last))

    def extra_repr(self) -> str:  # noqa: D102
        return (
            f"{self.input_size}, {self.hidden_size}, num_layers={self.num_layers}, "
            f"dropout={self.dropout}, forget_bias={self.forget_bias}"
        )
