"""``update(new_data)`` as a method of every estimator (a mixin of ``BaseForecaster``).

An update teaches a fitted estimator the rows that arrived after the data it has seen. The
public method is this template: it checks the new rows once (the fitted targets, the fitted
time zone and step, :func:`forecast.frames.lineage.continuity`), then calls the hook
``_update_frames`` by the class's ``_update_rule``, and appends a lineage record:

``"continue"``
    Neural estimators (:class:`forecast.models.neural.NeuralForecaster`): training continues
    from the current weights on the new rows, with the kept context in front and the fitted
    scalers.
``"extend"``
    Estimators whose fitted parameters stay and whose state is the recent history (naive,
    seasonal naive, constant velocity, the statsmodels baselines: exponential smoothing,
    SARIMAX and MSTL filter on from their last state with the fitted parameters): the new rows
    extend the kept history.
``"refit"`` (the default)
    Everything else (the linear and boosted lag models, ensembles, conformal wrappers) fits
    again on all the data seen: pass it as ``history=``.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Self

import pandas as pd
from sklearn.utils.validation import check_is_fitted

from forecast.frames import validation as V
from forecast.frames.cleaning import in_zone
from forecast.frames.lineage import (
    ON_GAP,
    ON_OVERLAP,
    appended,
    check_choice,
    continuity,
    ends,
    record,
)
from forecast.frames.lineage import through_of as _through_of

__all__ = ["UpdateMethods"]

_LINEAGE = ("lineage_", "updated_through_", "n_updates_")


class UpdateMethods:
    """The ``update`` method and the lineage it records (``lineage_``, ``updated_through_``)."""

    _update_rule: str = "refit"
    # the lineage, started by fit and extended by every update
    lineage_: list[dict[str, Any]]  # one record per fit and update (oldest updates folded)
    updated_through_: pd.Timestamp | dict[Any, pd.Timestamp]  # last timestamp (per series)
    n_updates_: int

    if TYPE_CHECKING:  # what BaseForecaster supplies
        columns_: list[str]
        freq_: pd.DateOffset
        tz_: str | None
        train_tail_: dict[Any, pd.DataFrame]

        def fit(self, X: Any, y: None = None, *, callbacks: list[Any] | None = None) -> Self: ...  # noqa: D102
        def _keep_history(self) -> int | None: ...
        def _min_history(self) -> int: ...
        def _clean(
            self,
            frame: pd.DataFrame,
            key: object,
            targets: list[str],
            covariates: list[str],
            freq: Any,
            what: str,
        ) -> tuple[pd.DataFrame, pd.DateOffset]: ...

    # ---------------------------------------------------------------- lineage
    def _start_lineage(self, X: Any) -> None:
        """Start the lineage with the fit on ``X`` (called by ``fit``)."""
        frames, kind = V.split_series(X, "X")
        self.lineage_ = [record("fit", "fit", X, frames)]
        self.updated_through_ = ends(frames, kind)
        self.n_updates_ = 0

    def _seen_through(self) -> Any:
        """``updated_through_``, or for a folder saved before lineage the kept history's end."""
        through = getattr(self, "updated_through_", None)
        if through is not None:
            return through
        tails = getattr(self, "train_tail_", None)
        if not isinstance(tails, dict) or not tails:
            raise ValueError(
                f"{type(self).__name__} was saved without lineage and keeps no history: "
                "fit it again to update it"
            )
        return ends(tails, getattr(self, "input_kind_", "dict"))

    # ----------------------------------------------------------------- update
    def update(
        self,
        X: Any,
        *,
        history: Any = None,
        epochs: int | None = None,
        early_stopping_patience: int | None = None,
        learning_rate: float | None = None,
        on_overlap: str = "raise",
        on_gap: str = "raise",
        callbacks: list[Any] | None = None,
    ) -> Self:
        """Learn the rows that arrived after the data seen, keeping what was learnt.

        What an update does depends on the estimator (its ``_update_rule``, see
        :doc:`/guide/daily-loop`): neural estimators continue training from their weights
        with their fitted scalers; naive, seasonal naive, constant velocity and the
        statsmodels baselines keep their fitted parameters and extend their state; the
        others (linear and boosted lag models, ensembles, conformal wrappers) fit again on
        ``history`` plus ``X``.

        Parameters
        ----------
        X : DataFrame, long DataFrame or dict of DataFrames
            The new rows, with the fitted target and covariate columns, starting one step
            after ``updated_through_`` (per series).
        history : DataFrame, long DataFrame or dict of DataFrames, optional
            For estimators that refit: all the data seen so far, ending at
            ``updated_through_``. Refused by the others.
        epochs : int, optional
            Neural estimators: epochs of further training (default: ``max_epochs``).
        early_stopping_patience : int, optional
            Neural estimators: stop when the validation tail of the new rows (the estimator's
            ``validation_size`` / ``validation_fraction``) stops improving for this many
            epochs (default: the estimator's own).
        learning_rate : float, optional
            Neural estimators: the rate of the rebuilt optimizer (default: the fitted
            ``learning_rate``). A fresh Adam moves every weight by about the rate in its first
            steps, so a few steps on a week of rows move the network far at the fitting rate;
            a lower rate keeps it near what it learnt.
        on_overlap : {"raise", "drop", "replace"}, default="raise"
            Rows at or before ``updated_through_``: refuse them, ignore them, or learn them
            again (revised actuals replace those seen).
        on_gap : {"raise", "restart"}, default="raise"
            New rows that leave a gap after ``updated_through_``: refuse them, or continue
            from the new rows alone (they must cover the history the estimator needs).
        callbacks : list, optional
            Callbacks, as in ``fit``: ``on_fit_start`` and ``on_fit_end`` around the update
            (an :class:`forecast.tracking.MLflowCallback` records it as a run with its
            lineage), ``on_epoch_end`` for each epoch of a neural update.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On overlap or gap (naming the timestamps) unless told how to treat them, on
            columns other than the fitted ones, on a series not seen in fit, and on
            ``history`` / ``epochs`` given to an estimator that does not read them.
        RuntimeError
            A neural update that diverged (non-finite weights or losses).

        Notes
        -----
        An update is all or nothing: when it raises (a refused option, a diverging
        training, a callback's error, an interrupt), the estimator is left exactly as it was
        (the same weights, forecast and lineage). The lineage keeps the fit record and the
        most recent updates (:data:`forecast.frames.lineage.KEEP_UPDATES`); older update
        records fold into one ``"earlier"`` record of their totals.
        """
        check_is_fitted(self, "columns_")
        check_choice("on_overlap", on_overlap, ON_OVERLAP)
        check_choice("on_gap", on_gap, ON_GAP)
        name, rule = type(self).__name__, self._update_rule
        training = {
            "epochs": epochs,
            "early_stopping_patience": early_stopping_patience,
            "learning_rate": learning_rate,
        }
        given = [k for k, v in training.items() if v is not None]
        if rule != "continue" and given:
            raise ValueError(
                f"{', '.join(given)} apply to neural estimators; {name} updates by rule {rule!r}"
            )
        if rule != "refit" and history is not None:
            raise ValueError(
                f"history= is for estimators that refit; {name} updates by rule {rule!r} "
                "from the state it kept: pass only the new rows"
            )
        through = self._seen_through()
        raw, kind = V.split_series(X, "X")
        new, notes = {}, {}
        for key, frame in raw.items():
            new[key], notes[key] = continuity(
                self._clean_new(frame, key, "X"),
                self._series_through(through, key),
                self.freq_,
                key,
                on_overlap,
                on_gap,
            )
        callbacks = list(callbacks or [])
        before = copy.deepcopy(self.__dict__)  # an update that fails leaves self as it was
        try:
            for callback in callbacks:  # the protocol of fit: an MLflow callback opens a run
                callback.on_fit_start(self)
            extra = self._update_frames(new, notes, history, training, callbacks)
            merged = {k: v for n in notes.values() for k, v in n.items()}
            lineage = list(getattr(self, "lineage_", []))
            self.lineage_ = appended(lineage, record("update", rule, X, new, **merged, **extra))
            new_ends = ends(new, kind)
            if isinstance(through, dict):
                assert isinstance(new_ends, dict)  # several series in, several out
                new_ends = {**through, **new_ends}
            self.updated_through_ = new_ends
            self.n_updates_ = int(getattr(self, "n_updates_", 0)) + 1
            for callback in callbacks:
                callback.on_fit_end(self)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise
        return self

    # ------------------------------------------------------------------ hooks
    def _series_through(self, through: Any, key: object) -> pd.Timestamp:
        try:
            return _through_of(through, key)
        except KeyError as err:
            raise ValueError(str(err.args[0])) from None

    def _clean_new(self, frame: pd.DataFrame, key: object, what: str) -> pd.DataFrame:
        """``frame`` in the fitted zone, its fitted columns checked, conformed and filled."""
        targets: list[str] = list(self.columns_)
        missing = [c for c in targets if c not in frame.columns]
        if missing:
            raise ValueError(
                f"{V._where(key)}{what} lacks the target column(s) {missing} the model was "
                f"fitted on (it has {list(frame.columns)}): an update learns the same target"
            )
        covs = list(getattr(self, "past_covariates_", []) or [])
        covs += list(getattr(self, "future_covariates_", []) or [])
        frame = in_zone(frame, self.tz_, key, what)
        return self._clean(frame, key, targets, covs, self.freq_, what)[0]

    def _update_frames(
        self,
        new: dict[Any, pd.DataFrame],
        notes: dict[Any, dict[str, Any]],
        history: Any,
        training: dict[str, Any],
        callbacks: list[Any] | None,
    ) -> dict[str, Any]:
        """Learn the checked new rows; return the record's extras (subclasses override).

        ``training`` holds the neural options (``epochs``, ``early_stopping_patience``,
        ``learning_rate``; None: the estimator's own).
        """
        if self._update_rule == "extend":
            self._extend(new, notes)
            return {}
        return self._refit(new, notes, history)

    def _joined(
        self, before: pd.DataFrame, rows: pd.DataFrame, note: dict[str, Any]
    ) -> pd.DataFrame:
        """``rows`` after what was seen before them (nothing before them after a gap)."""
        if note.get("restart"):
            return rows
        return pd.concat([before.loc[before.index < rows.index[0]], rows])

    def _extend(self, new: dict[Any, pd.DataFrame], notes: dict[Any, dict[str, Any]]) -> None:
        """Extend the kept history with the new rows (``train_tail_``)."""
        keep, tails = self._keep_history(), dict(self.train_tail_)
        for key, rows in new.items():
            joined = self._joined(tails[key], rows, notes[key])
            V.check_length(len(joined), self._min_history(), key, "history after the gap")
            tails[key] = joined if keep is None else joined.iloc[-keep:]
        self.train_tail_ = tails

    def _refit(
        self,
        new: dict[Any, pd.DataFrame],
        notes: dict[Any, dict[str, Any]],
        history: Any,
    ) -> dict[str, Any]:
        """Fit again on ``history`` (all data seen) and the new rows; keep the lineage."""
        name = type(self).__name__
        if history is None:
            raise ValueError(
                f"{name} refits on all the data seen: pass history= (the rows it was fitted "
                f"and updated on, through {self._seen_through()})"
            )
        raw, kind = V.split_series(history, "history")
        through, joined = self._seen_through(), {}
        for key, rows in new.items():
            if key not in raw:
                raise ValueError(f"history lacks series {key!r} of the new data")
            if notes[key].get("restart"):
                raise ValueError(
                    f"{V._where(key)}{name} refits on contiguous data: the new rows leave a gap "
                    f"after {self._series_through(through, key)}"
                )
            seen = self._clean_new(raw[key], key, "history")
            end = self._series_through(through, key)
            if not len(seen) or seen.index[-1] != end:
                last = seen.index[-1] if len(seen) else "no row"
                raise ValueError(
                    f"{V._where(key)}history ends at {last}, not at "
                    f"updated_through_={end}: pass all the data seen"
                )
            joined[key] = self._joined(seen, rows, notes[key])
        self._check_history_start(joined)
        kept = {name: getattr(self, name) for name in _LINEAGE if hasattr(self, name)}
        data = joined[None] if kind == "frame" and list(joined) == [None] else joined
        self.fit(data)  # the update's callbacks see the update, not this fit
        for attr, value in kept.items():
            setattr(self, attr, value)
        return {"history_rows": int(sum(len(f) for f in joined.values()))}

    def _check_history_start(self, joined: dict[Any, pd.DataFrame]) -> None:
        """Refuse a refit on history that starts after the first row the model was fitted on.

        A refit on a shorter history would silently forget the rows before it; the fit
        record's ``start`` (the first timestamp of all the series fitted) is the bound.
        """
        lineage = getattr(self, "lineage_", None)
        start = lineage[0].get("start") if isinstance(lineage, list) and lineage else None
        if start is None:  # a folder saved before lineage: the start is not known
            return
        first = min(frame.index[0] for frame in joined.values())
        if first > pd.Timestamp(start):
            raise ValueError(
                f"history starts at {first}, after the first row the model was fitted on "
                f"({start}): a refit on it would forget the rows before it; pass all the data "
                "seen (or fit a new model on the shorter data)"
            )
