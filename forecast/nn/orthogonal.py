"""Orthogonal RNN: an Elman recurrence whose recurrent matrix stays orthogonal.

Recurrence (Wolter's lecture, eq. 14; Wisdom et al., 2016)::

    h_t = f(W_h h_{t-1} + W_x x_t + b),    f = relu (default) or tanh

``W_h`` starts orthogonal and is kept on the Stiefel manifold during training by the Cayley
update in :mod:`forecast.training.optim`, which the module requests by declaring ``W_h`` in a
``"stiefel": True`` parameter group. All eigenvalues of an orthogonal ``W_h`` lie on the unit
circle, so the linear part of the recurrence neither explodes nor vanishes over long spans.

The time loop is torch's fused Elman kernel (``nn.RNN``): it computes the input projection
``W_x x_t + b`` for all steps at once before the loop, runs the recurrence in C++ on CPU and in
cuDNN on CUDA, so an orthogonal RNN costs the same per step as an Elman RNN and differs only
in its initialisation and its optimizer. ``nn.RNN``'s second bias ``b_hh`` is fixed at zero so
that ``b`` is a single vector as in the equation.
"""

from __future__ import annotations

import torch
from torch import nn

INITS = ("random", "identity")


def random_orthogonal(n: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """Draw a Haar-distributed random orthogonal ``(n, n)`` matrix.

    QR of a standard Gaussian matrix with the signs of ``R``'s diagonal moved into ``Q``
    (Mezzadri, 2007); without the sign fix ``Q`` would not be uniformly distributed.
    """
    z = torch.randn(n, n, generator=generator, dtype=torch.float64)
    q, r = torch.linalg.qr(z)
    return (q * torch.sign(torch.diagonal(r))).to(torch.get_default_dtype())


def orthogonality_error(weight: torch.Tensor) -> float:
    """``max |W^T W - I|`` of a matrix with at least as many rows as columns (else of ``W^T``)."""
    w = weight.detach()
    if w.shape[0] < w.shape[1]:
        w = w.T
    gram = w.T @ w  # (p, p)
    gram.diagonal().sub_(1.0)
    return float(gram.abs().max())


class OrthogonalRNN(nn.Module):
    """Stacked Elman RNN with orthogonal recurrent matrices trained on the Stiefel manifold.

    Parameters
    ----------
    input_size : int
        Features per time step.
    hidden_size : int
        Units per layer (``W_h`` is ``hidden_size x hidden_size``).
    num_layers : int
        Stacked recurrent layers.
    nonlinearity : {"relu", "tanh"}
        Activation ``f``.
    dropout : float
        Dropout between stacked layers and on the output sequence.
    init : {"random", "identity"}
        Initial ``W_h``: a Haar-random orthogonal matrix (eigenvalues spread over the unit
        circle) or the identity (every eigenvalue 1, the IRNN start of Le et al., 2015).
    stiefel_lr : float, optional
        Learning rate of the Cayley update; ``None`` uses the optimizer's learning rate.
    stiefel_rmsprop : bool
        Scale the gradient of ``W_h`` RMSprop-style before the Cayley update.
    ortho_tol : float
        Drift of ``max |W_h^T W_h - I|`` tolerated before re-orthonormalisation.

    Attributes
    ----------
    output_size : int
        ``hidden_size``.
    recurrent : bool
        True: the state ``(num_layers, B, hidden_size)`` is carried between TBPTT chunks.
    """

    recurrent = True

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "relu",
        dropout: float = 0.0,
        init: str = "random",
        stiefel_lr: float | None = None,
        stiefel_rmsprop: bool = False,
        ortho_tol: float = 1e-5,
    ) -> None:
        super().__init__()
        if nonlinearity not in ("relu", "tanh"):
            raise ValueError(f"nonlinearity must be 'relu' or 'tanh', got {nonlinearity!r}")
        if init not in INITS:
            raise ValueError(f"init must be one of {INITS}, got {init!r}")
        self.rnn = nn.RNN(
            input_size,
            hidden_size,
            num_layers,
            nonlinearity=nonlinearity,
            batch_first=True,
            dropout=dropout if num_layers > 1 else 0.0,
        )
        self.output_dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        self.output_size = hidden_size
        self.stiefel_lr = stiefel_lr
        self.stiefel_rmsprop = stiefel_rmsprop
        self.ortho_tol = ortho_tol
        with torch.no_grad():
            for layer in range(num_layers):
                w_h = getattr(self.rnn, f"weight_hh_l{layer}")
                w_h.copy_(
                    random_orthogonal(hidden_size) if init == "random" else torch.eye(hidden_size)
                )
                b_hh = getattr(self.rnn, f"bias_hh_l{layer}")
                b_hh.zero_()
                b_hh.requires_grad_(False)

    def recurrent_weights(self) -> list[nn.Parameter]:
        """Return the matrices ``W_h`` of every layer (the Stiefel-constrained parameters)."""
        return [getattr(self.rnn, f"weight_hh_l{k}") for k in range(self.rnn.num_layers)]

    def forward(
        self, x: torch.Tensor, state: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Run the recurrence over a batch of sequences.

        Parameters
        ----------
        x : Tensor of shape (B, T, input_size)
            Input sequences.
        state : Tensor of shape (num_layers, B, hidden_size), optional
            Hidden state before the first step; zeros when ``None``.

        Returns
        -------
        y : Tensor of shape (B, T, hidden_size)
            Hidden states of the last layer at every step.
        state : Tensor of shape (num_layers, B, hidden_size)
            Hidden state after the last step.
        """
        y, state = self.rnn(x, state)  # (B, T, H), (L, B, H)
        return self.output_dropout(y), state

    def param_groups(self) -> list[dict[str, object]]:
        """Parameter groups: ``W_h`` of every layer on the Stiefel manifold, then the rest."""
        stiefel = self.recurrent_weights()
        ids = {id(p) for p in stiefel}
        rest = [p for p in self.parameters() if p.requires_grad and id(p) not in ids]
        group = {"params": stiefel, "stiefel": True, "rmsprop": self.stiefel_rmsprop}
        group["ortho_tol"] = self.ortho_tol
        if self.stiefel_lr is not None:
            group["lr"] = self.stiefel_lr
        return [group, {"params": rest}]

    def orthogonality_error(self) -> float:
        """``max |W_h^T W_h - I|`` over the layers."""
        return max(orthogonality_error(w) for w in self.recurrent_weights())

    def epoch_metrics(self) -> dict[str, float]:
        """Extra per-epoch metrics for the training loop's logs."""
        return {"orthogonality_error": self.orthogonality_error()}
