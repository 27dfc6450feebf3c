"""Neural forecasters that learn what a reference forecaster leaves: a network on its residuals.

``ReferencedHopfieldForecaster(reference_model=LinearLagForecaster(...))`` fits the reference
first, on the same data, then trains the Hopfield network on sliding windows whose target
is the load as usual but whose output is the reference's forecast issued at the window's
last step plus the network's correction (:class:`forecast.nn.referenced.ReferencedNet`).
The network thus learns the residual of the reference inside itself, the way the trees of
:class:`~forecast.models.baselines.BoostedLagForecaster` learn the residuals of its ridge,
and every prediction issues the reference's forecast first and corrects it.

The reference is any forecaster without covariates (its own calendar regressors are
fine): :class:`~forecast.models.baselines.LinearLagForecaster` is the one measured on the
German day-ahead protocol (``docs/results/day-ahead.md``; the settings are
:data:`forecast.models.DAY_AHEAD_LOAD`). Its forecasts for every training window
are in-sample (the reference was fitted on the same years), which for a ridge on a few
hundred regressors and tens of thousands of rows differs little from out-of-sample. The
reference can also be the linear model under its analog-day memory
(:class:`forecast.combine.AnalogDayForecaster`; the settings are
:data:`forecast.combine.DAY_AHEAD_MEMORY`): each window then reads the memory's forecast from
its own last step, retrieved from the stored days observed by then. At prediction the
reference is forecast over the whole head, as in training, and cut to the steps asked for.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from sklearn.base import clone
from torch import nn

from forecast.base import BaseForecaster, SeriesArrays
from forecast.frames.decomposition import DifferentiableForecast, no_exact_terms
from forecast.frames.slices import without_block
from forecast.models import _params as checks
from forecast.models.declare import Param, declare_params
from forecast.models.hopfield import HopfieldForecaster
from forecast.models.neural import NeuralForecaster, Windows
from forecast.models.transformer import TransformerForecaster
from forecast.nn.referenced import ReferencedNet
from forecast.persistence.registry import is_forecaster
from forecast.training.windows import Batch, WindowDataset


def _check_reference(name: str, value: object) -> None:
    if value is not None and not is_forecaster(value):
        raise ValueError(f"{name} must be a forecaster (such as LinearLagForecaster) or None")


REFERENCE_PARAMS = (
    Param(
        "reference_model",
        None,
        "forecaster or None",
        """A forecaster fitted first on the same targets (a clone, ``reference_model_``); the
        network forecasts the difference to its forecast issued at each window's last step
        (the window's level and scale still normalise the network's part). It must take no
        covariates. None: no reference, the plain family.""",
        _check_reference,
    ),
    Param(
        "reference_folds",
        1,
        "int",
        """Cross-fitting of the training windows' references: each training series is cut into
        this many contiguous blocks of equal length, and a window whose first target step lies
        in block ``b`` gets the forecast of a clone of ``reference_model`` fitted on the other
        blocks (each series' parts before and after ``b`` as separate series), so the network
        learns from errors the reference makes on data it has not seen, as after ``fit``.
        1: the forecasts of ``reference_model_`` itself (fitted on all the data).""",
        checks.integer(),
    ),
    Param(
        "reference_input",
        False,
        "bool",
        """Also give the head the reference forecast, normalised like the window, as one more
        future-known input per target channel (it can then correct by level).""",
    ),
    Param(
        "reference_base",
        True,
        "bool",
        """Add the network's output to the reference's forecast (the network learns its
        residual). False (with ``reference_input=True``): the network forecasts the targets on
        its own and reads the reference only as an input.""",
    ),
)
"""The parameters a reference adds to a family (:class:`ReferenceResidualMixin`)."""


class ReferenceResidualMixin(NeuralForecaster):
    """The reference of a neural forecaster: fitted first, forecast per window, corrected.

    Mixed in front of a :class:`~forecast.models.neural.NeuralForecaster` family (the Hopfield
    and transformer ones) with the parameters :data:`REFERENCE_PARAMS`. Attributes:
    ``reference_model_`` (the fitted clone of ``reference_model``, or None).
    """

    # the parameters of REFERENCE_PARAMS, declared by the families
    reference_model: Any
    reference_folds: int
    reference_input: bool
    reference_base: bool
    # fitted
    reference_model_: BaseForecaster | None
    _fold_models: list[BaseForecaster]  # during fit only (reference_folds > 1), never saved

    # ------------------------------------------------------------------ fit
    def _fit_frames(self, X: Any, prepared: Any, callbacks: list[Any]) -> None:
        self.reference_model_ = None
        if self.reference_model is not None:
            _check_reference("reference_model", self.reference_model)
            if not (self.reference_base or self.reference_input):
                raise ValueError("reference_base=False needs reference_input=True")
            if self.time_reversal:  # reversed windows have no reference
                raise ValueError("reference_model cannot be combined with time_reversal=True")
            if self.windowing != "sliding":
                raise ValueError(
                    "reference_model needs windowing='sliding' (a forecast per window)"
                )
            frames, kind = prepared
            targets = {k: f[self.columns_] for k, f in frames.items()}
            data = targets[None] if kind == "frame" else targets
            fitted = clone(self.reference_model).fit(data)
            if fitted.future_covariates_ or fitted.past_covariates_:
                raise ValueError(
                    "reference_model must take no covariates (it forecasts the targets)"
                )
            self.reference_model_ = fitted
            keep = self._keep_history()  # the reference may need more history than the network
            self.train_tail_ = {k: f if keep is None else f.iloc[-keep:] for k, f in frames.items()}
            folds = int(self.reference_folds)
            if folds > 1:  # kept for the training windows only, never saved
                blocks = [without_block(targets, b, folds) for b in range(folds)]
                self._fold_models = [clone(self.reference_model).fit(d) for d in blocks]
        try:
            super()._fit_frames(X, prepared, callbacks)
        finally:
            self.__dict__.pop("_fold_models", None)

    def _keep_history(self) -> int | None:
        mine = super()._keep_history()
        ref = getattr(self, "reference_model_", None)
        if ref is None or mine is None:
            return mine
        theirs = ref._keep_history()
        return None if theirs is None else max(mine, int(theirs))

    def _min_history(self) -> int:
        mine = int(super()._min_history())
        ref = getattr(self, "reference_model_", None)
        return mine if ref is None else max(mine, int(ref._min_history()))

    def _training_data(
        self,
        series: list[SeriesArrays],
        held: list[int] | None = None,
        untailed: Sequence[int] = (),
    ) -> Windows:
        train, val = super()._training_data(series, held, untailed)
        if self.reference_model_ is None:
            return train, val
        assert isinstance(train, WindowDataset)  # sliding windows: checked by _fit_frames
        order = list(range(len(series)))
        train_order = order if held is None else [i for i in order if i not in set(held)]
        val_order = order if held is None else sorted(held)
        train = self._with_reference(train, [series[i] for i in train_order])
        val = None if val is None else self._with_reference(val, [series[i] for i in val_order])
        return train, val

    def _with_reference(self, data: WindowDataset, series: list[SeriesArrays]) -> WindowDataset:
        """Return ``data`` with the reference's forecast after each window's covariates."""
        ref = self.reference_model_
        assert ref is not None  # called with a reference only
        lengths = np.array([len(s.y) for s in series])
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        starts = data.starts.cpu().numpy()
        which = np.searchsorted(offsets, starts, side="right") - 1
        last = starts - offsets[which] + int(self.context_length) - 1  # each window's last step
        need = ref._keep_history() or ref._min_history()  # with a margin for clock changes
        if (last + 1 < need).any():  # windows too early for the reference are left out
            keep = last + 1 >= need
            if not keep.any():
                raise ValueError(
                    f"no window has the {need} steps of history that reference_model "
                    f"{type(ref).__name__} needs before its forecast: give longer series"
                )
            data = copy.copy(data)
            data.starts = data.starts[torch.from_numpy(keep).to(data.starts.device)]
            which, last = which[keep], last[keep]
        tails = [_head(series[i], o + 1) for i, o in zip(which, last, strict=True)]
        horizon = int(self.head_horizon_)
        folds = getattr(self, "_fold_models", None)
        if folds is None:
            return ReferencedWindows(data, self._reference_forecasts(tails, horizon))
        k = len(folds)
        block = np.minimum((last + 1) * k // lengths[which], k - 1)  # of the first target step
        reference = np.empty((len(tails), horizon, int(self.n_outputs_)), dtype=np.float32)
        for b, model in enumerate(folds):
            rows = np.flatnonzero(block == b)
            if len(rows):
                part = [tails[r] for r in rows]
                reference[rows] = self._reference_forecasts(part, horizon, model)
        return ReferencedWindows(data, reference)

    # -------------------------------------------------------------- predict
    def _head_future(
        self, series: list[SeriesArrays], future: np.ndarray | None, horizon: int
    ) -> np.ndarray | None:
        if self.reference_model_ is None:
            return future
        if horizon > self.head_horizon_:
            raise ValueError(
                f"horizon={horizon} exceeds the {self.head_horizon_} steps the network forecasts "
                "at once; a network with a reference does not roll out: refit with horizon >= "
                f"{horizon}"
            )
        # over the whole head, as in training: a reference's forecast of a step may depend on
        # how far it reaches (the analog-day memory's does), then the steps asked for
        reference = self._reference_forecasts(series, int(self.head_horizon_))[:, :horizon]
        reference = reference.astype(np.float32)
        return reference if future is None else np.concatenate([future, reference], axis=-1)

    def _decompose(self, series: SeriesArrays, horizon: int) -> DifferentiableForecast:
        """Refuse terms when a reference feeds the network (its inputs alone miss it).

        The reference's forecast enters the network (``reference_input``) and is added to its
        output (``reference_base``); integrated gradients over the network's inputs would leave
        it out, so ``explain`` samples such an estimator (Shapley) instead.
        """
        if self.reference_model_ is None:
            return super()._decompose(series, horizon)
        raise no_exact_terms(f"{type(self).__name__} with a reference_model")

    def _reference_forecasts(
        self, series: list[SeriesArrays], horizon: int, model: BaseForecaster | None = None
    ) -> np.ndarray:
        """Return the reference's forecasts ``(n, horizon, C)`` from the end of each series.

        The series are in this network's scaled units; the reference reads and forecasts in
        its own (it fitted its own scaler on the same data): the targets go to the data's
        units and back through both models' pipeline entry points
        (:meth:`~forecast.frames.pipeline.ForecastPipeline._predict_data_units`). ``model``: a
        fitted reference other than ``reference_model_`` (a cross-fitting fold).
        """
        ref = self.reference_model_ if model is None else model
        assert ref is not None  # called with a reference only
        keep = ref._keep_history()
        tails = []
        for s in series:
            y = s.y if keep is None else s.y[-keep:]
            index = s.index if keep is None else s.index[-keep:]
            tails.append(SeriesArrays(s.key, self._to_data_units(y), index, None, None))
        out = self._from_data_units(ref._predict_data_units(tails, horizon))  # (n, horizon, C)
        if not np.isfinite(out).all():
            raise ValueError(f"reference {type(ref).__name__} forecasts NaN or inf")
        return np.asarray(out, dtype=np.float32)

    # -------------------------------------------------------------- network
    def _build_head(self, size: int) -> nn.Module:
        if getattr(self, "reference_model_", None) is None or not self.reference_input:
            return super()._build_head(size)
        plain = self.n_future_
        self.n_future_ = plain + self.n_outputs_  # the head reads the reference too
        try:
            return super()._build_head(size)
        finally:
            self.n_future_ = plain

    def _build_member(self, seed: int) -> nn.Module:
        net = super()._build_member(seed)
        if getattr(self, "reference_model_", None) is None:
            return net
        return ReferencedNet(net, self.reference_input, base=self.reference_base)


def _head(s: SeriesArrays, stop: int) -> SeriesArrays:
    """Return the first ``stop`` steps of a series (targets and index; no covariates)."""
    return SeriesArrays(s.key, s.y[:stop], s.index[:stop], None, None)


class ReferencedWindows(WindowDataset):
    """Sliding windows whose head covariates end with a reference forecast per window.

    Parameters
    ----------
    data : WindowDataset
        The windows (its arrays are shared, not copied).
    reference : ndarray of shape (len(data), horizon, C)
        The reference forecast issued at each window's last step, in ``data``'s order.
    """

    def __init__(self, data: WindowDataset, reference: np.ndarray) -> None:  # noqa: D107
        if len(reference) != len(data):
            raise ValueError(f"{len(reference)} reference forecasts for {len(data)} windows")
        self.__dict__.update(data.__dict__)
        self.reference = torch.from_numpy(np.ascontiguousarray(reference, dtype=np.float32))

    def to(self, device: Any) -> ReferencedWindows:
        """Move the arrays and the reference forecasts to ``device``."""
        super().to(device)
        self.reference = self.reference.to(device)
        return self

    def __getitem__(self, idx: Any) -> Batch:
        """Window(s) ``idx``, the reference forecast appended to the head covariates."""
        batch = super().__getitem__(idx)
        single = isinstance(idx, (int, np.integer))
        pos = torch.as_tensor(np.atleast_1d(idx) if single else idx, device=self.reference.device)
        ref = self.reference[pos]  # (B, h, C)
        ref = ref[0] if single else ref
        future = ref if batch.future is None else torch.cat([batch.future, ref], dim=-1)
        return Batch(batch.x, batch.y, future)


@declare_params(*REFERENCE_PARAMS)
class ReferencedHopfieldForecaster(ReferenceResidualMixin, HopfieldForecaster):
    """:class:`~forecast.models.hopfield.HopfieldForecaster` that corrects a reference forecaster.

    With ``reference_model=None`` it is the Hopfield forecaster. With a reference model (such as
    ``LinearLagForecaster(calendar=True, country="DE", timezone="Europe/Berlin")``), the
    reference is fitted first and the network's output is added to the reference's forecast
    from the same origin (:mod:`forecast.models.referenced`). Sliding windows only, and no
    roll-out: ``predict`` forecasts at most ``horizon`` steps.
    :data:`forecast.models.DAY_AHEAD_LOAD` holds the day-ahead settings.

    Attributes
    ----------
    reference_model_ : forecaster or None
        The fitted clone of ``reference_model``.
    module_, history_, n_epochs_, best_epoch_, device_
        As for :class:`~forecast.models.hopfield.HopfieldForecaster`.
    """


@declare_params(*REFERENCE_PARAMS)
class ReferencedTransformerForecaster(ReferenceResidualMixin, TransformerForecaster):
    """:class:`~forecast.models.transformer.TransformerForecaster` that corrects a reference.

    As :class:`ReferencedHopfieldForecaster`, with the transformer encoder.

    Attributes
    ----------
    reference_model_ : forecaster or None
        The fitted clone of ``reference_model``.
    module_, history_, n_epochs_, best_epoch_, device_
        As for :class:`~forecast.models.transformer.TransformerForecaster`.
    """
