"""How much data a neural forecaster needs, and which series validate it.

:class:`NeuralLengths` holds the length hooks of :class:`forecast.base.BaseForecaster` for
the neural families (the history a forecast reads, the rows a fit needs and why) and the
validation split of a fit: tails of each series, whole series held out
(``validation_series``), or, by default, whole series when the series are too short for
tails (:func:`forecast.training.splits.default_split`).
"""

from __future__ import annotations

from typing import Any

from forecast.base import BaseForecaster, SeriesArrays
from forecast.frames import validation
from forecast.frames.steps import steps
from forecast.training.splits import default_split, held_out, length_reason, min_length


class NeuralLengths(BaseForecaster):
    """Length hooks and the validation split of :class:`forecast.models.neural.NeuralForecaster`.

    Reads the parameters ``context_length``, ``horizon``, ``strategy``,
    ``validation_fraction``, ``validation_size`` and ``validation_series``.
    """

    def _head_horizon(self) -> int:
        return 1 if self.strategy == "recursive" else int(self.horizon)

    def _min_history(self) -> int:
        return int(self.context_length)

    def _keep_history(self) -> int | None:
        return int(self.context_length)

    def _min_train_length(self) -> int:
        self._check_params()
        return min_length(*self._length_terms())

    def _length_reason(self) -> str:
        context, h, frac, tail, whole = self._length_terms()
        return length_reason(context, h, self.strategy == "recursive", frac, tail, whole)

    def _check_train_lengths(self, lengths: dict[Any, int]) -> None:
        held, untailed = self._default_split(list(lengths.values()))
        if held is None and not untailed:
            super()._check_train_lengths(lengths)
            return
        context, h, frac, _, _ = self._length_terms()
        need = min_length(context, h, frac, None, True)  # one window: no tail
        recursive = self.strategy == "recursive"
        least = self._min_train_length()
        reason = length_reason(
            context, h, recursive, frac, None, True, least, held=held is not None
        )
        for key, rows in lengths.items():
            validation.check_length(rows, need, key, reason)

    def _default_split(self, lengths: list[int]) -> tuple[list[int] | None, list[int]]:
        """Whole series held out and series without a tail by default (``default_split``)."""
        if self.validation_series is not None or self.validation_size is not None:
            return None, []
        return default_split(lengths, self._min_train_length(), self.validation_fraction)

    def _length_terms(self) -> tuple[int, int, float, int | None, bool]:
        tail = None
        if self.validation_size is not None:
            tail = steps(self.validation_size, "validation_size", self.freq_)
        whole = self.validation_series is not None
        h = self._head_horizon()
        return int(self.context_length), h, self.validation_fraction, tail, whole

    def _validation_split(self, series: list[SeriesArrays]) -> tuple[list[int] | None, list[int]]:
        """Positions of the series held out whole (None: tails) and of those without a tail.

        Sets ``validation_series_`` and ``untailed_series_`` (their keys, None when empty).
        """
        if self.validation_series is None:
            held, untailed = self._default_split([len(s.y) for s in series])
        else:
            held = held_out(self.validation_series, [s.key for s in series])
            untailed = []
        self.validation_series_ = None if held is None else [series[i].key for i in held]
        self.untailed_series_ = [series[i].key for i in untailed] or None
        return held, untailed
