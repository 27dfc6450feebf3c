"""Recurrent encoders: Elman RNN, LSTM and GRU over torch's fused (cuDNN) kernels.

Every encoder follows the encoder contract of :mod:`forecast.nn`:

``forward(x, state=None) -> (y, state)``
    ``x`` is ``(B, T, I)`` (batch first), ``y`` is ``(B, T, output_size)`` and ``state`` is
    the hidden state to carry into the next call (``h`` of shape ``(num_layers, B, H)``, or
    the pair ``(h, c)`` for an LSTM). ``state=None`` starts from zeros.
``output_size``
    Width of ``y``; ``y[:, -1]`` is the summary a head reads.
``recurrent``
    ``True``: the state can be carried across chunks (truncated BPTT applies).
"""

from __future__ import annotations

from torch import Tensor, nn

from forecast.nn.peephole import PeepholeLSTM

State = Tensor | tuple[Tensor, Tensor] | None

CELLS = ("elman", "lstm", "gru")


class _FusedRecurrent(nn.Module):
    """Shared wrapper around ``nn.RNN``/``nn.LSTM``/``nn.GRU`` (batch first).

    ``dropout`` acts between stacked layers (torch's own) and on the output sequence, so it
    regularises a one-layer network too.
    """

    recurrent = True

    def __init__(self, layer: nn.RNNBase, dropout: float) -> None:
        super().__init__()
        self.rnn = layer
        self.output_dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        self.input_size = layer.input_size
        self.hidden_size = layer.hidden_size
        self.num_layers = layer.num_layers
        self.output_size = layer.hidden_size

    def forward(self, x: Tensor, state: State = None) -> tuple[Tensor, State]:
        """Run the sequence ``x`` (B, T, I) from ``state`` (zeros when None)."""
        y, state = self.rnn(x, state)  # (B, T, H)
        return self.output_dropout(y), state


def _between_layers(dropout: float, num_layers: int) -> float:
    # torch warns when inter-layer dropout is set on a single layer: there is nothing between.
    return float(dropout) if num_layers > 1 else 0.0


class ElmanEncoder(_FusedRecurrent):
    """Elman recurrent network, ``h_t = f(W_x x_t + W_h h_{t-1} + b)``.

    Parameters
    ----------
    input_size : int
        Features per time step.
    hidden_size : int
        Width of the hidden state.
    num_layers : int
        Stacked recurrent layers.
    dropout : float
        Dropout between layers and on the output sequence.
    nonlinearity : {"tanh", "relu"}
        The activation ``f``.
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        dropout: float = 0.0,
        nonlinearity: str = "tanh",
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        layer = nn.RNN(
            input_size,
            hidden_size,
            num_layers=num_layers,
            nonlinearity=nonlinearity,
            dropout=_between_layers(dropout, num_layers),
            batch_first=True,
        )
        super().__init__(layer, dropout)


class LSTMEncoder(_FusedRecurrent):
    """Long short-term memory network; the state is the pair ``(h, c)``.

    Parameters
    ----------
    input_size : int
        Features per time step.
    hidden_size : int
        Width of the hidden and cell states.
    num_layers : int
        Stacked recurrent layers.
    dropout : float
        Dropout between layers and on the output sequence.
    """

    def __init__(
        self, input_size: int, hidden_size: int, num_layers: int = 1, dropout: float = 0.0
    ) -> None:
        layer = nn.LSTM(
            input_size,
            hidden_size,
            num_layers=num_layers,
            dropout=_between_layers(dropout, num_layers),
            batch_first=True,
        )
        super().__init__(layer, dropout)


class GRUEncoder(_FusedRecurrent):
    """Gated recurrent unit network.

    Parameters
    ----------
    input_size : int
        Features per time step.
    hidden_size : int
        Width of the hidden state.
    num_layers : int
        Stacked recurrent layers.
    dropout : float
        Dropout between layers and on the output sequence.
    """

    def __init__(
        self, input_size: int, hidden_size: int, num_layers: int = 1, dropout: float = 0.0
    ) -> None:
        layer = nn.GRU(
            input_size,
            hidden_size,
            num_layers=num_layers,
            dropout=_between_layers(dropout, num_layers),
            batch_first=True,
        )
        super().__init__(layer, dropout)


def build_recurrent(
    cell: str,
    input_size: int,
    hidden_size: int,
    num_layers: int = 1,
    dropout: float = 0.0,
    *,
    nonlinearity: str = "tanh",
    peephole: bool = False,
) -> nn.Module:
    """Build a recurrent encoder by name.

    Parameters
    ----------
    cell : {"elman", "lstm", "gru"}
        Recurrent family.
    input_size, hidden_size, num_layers, dropout
        As for the encoder classes.
    nonlinearity : {"tanh", "relu"}
        Activation of the Elman cell (ignored otherwise).
    peephole : bool
        For ``cell="lstm"``: use the peephole LSTM of :mod:`forecast.nn.peephole`, whose
        gates also read the cell state.

    Returns
    -------
    torch.nn.Module
        An encoder with ``forward(x, state) -> (y, state)``, ``output_size`` and
        ``recurrent=True``.
    """
    if cell not in CELLS:
        raise ValueError(f"cell must be one of {CELLS}, got {cell!r}")
    if peephole and cell != "lstm":
        raise ValueError(f"peephole connections exist only for cell='lstm', got cell={cell!r}")
    if cell == "elman":
        return ElmanEncoder(input_size, hidden_size, num_layers, dropout, nonlinearity)
    if cell == "gru":
        return GRUEncoder(input_size, hidden_size, num_layers, dropout)
    if peephole:
        return PeepholeLSTM(input_size, hidden_size, num_layers=num_layers, dropout=dropout)
    return LSTMEncoder(input_size, hidden_size, num_layers, dropout)
