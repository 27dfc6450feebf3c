"""Tracking backtests and comparisons: :class:`MLflowTracker`.

One comparison is a parent run holding one child run per model::

    tracker = MLflowTracker(experiment="power-load-de")
    with tracker.comparison("day-ahead 2023", data):
        for name, est in models.items():
            result = backtest(est, data, protocol="day-ahead", start="2023-01-01")
            tracker.log_backtest(name, est, result, data, plots={"week": "week.png"})

Outside a ``comparison`` block, ``log_backtest`` writes a standalone run.
"""

from __future__ import annotations

import logging
import tempfile
import time
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from mlflow.exceptions import MlflowException

from forecast.tracking import _runs
from forecast.tracking._store import client as make_client
from forecast.tracking._store import ensure_experiment, resolve_tracking_uri
from forecast.tracking.callback import DEFAULT_EXPERIMENT, MLflowCallback, log_history
from forecast.tracking.fingerprint import dataset_input, fingerprint
from forecast.tracking.pyfunc import log_model, unloggable_reason
from forecast.tracking.views import runs_view_url

if TYPE_CHECKING:
    from mlflow import MlflowClient

__all__ = ["MLflowTracker"]

_NOT_SCORES = {"n", "n_scored", "bias"}  # metrics table columns where lower is not better
_log = logging.getLogger("forecast.tracking")


class MLflowTracker:
    """Log backtests (one run per model) and comparisons (a parent run) to MLflow.

    Parameters
    ----------
    experiment : str
        Experiment name (created when missing).
    tracking_uri : str, optional
        Store; default ``MLFLOW_TRACKING_URI`` or ``sqlite:///mlflow.db`` in the working
        folder.
    dataset : str, optional
        Dataset name for tags and dataset inputs (default ``"data"``).
    data_source : str, optional
        Where the data came from (path or URL).
    log_models : bool
        Also log each backtest's last fitted model as a pyfunc model.
    tags : dict, optional
        Extra tags on every run.
    select : str
        Metric (lower is better) the comparison's ``best_model`` tag is chosen by, the one
        :func:`~forecast.tracking.register_champion` ranks by (``forecast run``
        passes the spec's ``[tracking] select`` to both); when the models lack it, the
        first metric of the table, named in the ``best_by`` tag.

    Attributes
    ----------
    parent_run_id : str or None
        The open comparison's run id, None outside ``comparison``.
    runs : dict
        Run id of every model logged by this tracker, by name.
    models : dict
        With ``log_models``: the ``models:/<model_id>`` URI of every model logged, by name.
    runs_url : str or None
        After a comparison: the link to the experiment's runs in the MLflow UI, sorted by the
        metric ``best_model`` was chosen by, that metric shown (a saved view, see
        :func:`~forecast.tracking.views.runs_view_url`); also logged.
    """

    def __init__(
        self,
        experiment: str = DEFAULT_EXPERIMENT,
        tracking_uri: str | None = None,
        dataset: str | None = None,
        data_source: str | None = None,
        log_models: bool = False,
        tags: Mapping[str, Any] | None = None,
        select: str = "mape",
    ) -> None:
        self.experiment = experiment
        self.tracking_uri = tracking_uri
        self.dataset = dataset
        self.data_source = data_source
        self.log_models = log_models
        self.tags = dict(tags or {})
        self.select = select
        self.parent_run_id: str | None = None
        self.runs: dict[str, str] = {}
        self.models: dict[str, str] = {}
        self.runs_url: str | None = None
        self._summary: dict[str, dict[str, Any]] = {}
        self._table_logged = False

    @property
    def client(self) -> MlflowClient:
        """An :class:`mlflow.MlflowClient` bound to this tracker's store."""
        return make_client(self.tracking_uri)

    @property
    def experiment_id(self) -> str:
        """Id of the experiment (created when missing)."""
        return ensure_experiment(self.client, self.experiment)

    @property
    def uri(self) -> str:
        """The resolved tracking URI."""
        return resolve_tracking_uri(self.tracking_uri)

    # ----------------------------------------------------------- comparison
    @contextmanager
    def comparison(
        self, name: str, data: pd.DataFrame | Mapping[Any, pd.DataFrame] | None = None
    ) -> Iterator[str]:
        """Open a parent run; ``log_backtest`` calls inside it become its children.

        On exit the parent gets ``comparison.csv`` (one row of pooled metrics per model),
        ``best_<metric>`` metrics, a ``best_model`` tag (the lowest ``select`` metric) and
        ``best_by`` (that metric's name); it is marked FAILED when the block raised.

        Parameters
        ----------
        name : str
            Run name of the comparison.
        data : DataFrame or dict of DataFrames, optional
            The data every model is evaluated on (fingerprinted once here).

        Yields
        ------
        str
            The parent run id.
        """
        if self.parent_run_id is not None:
            raise RuntimeError(f"comparison run {self.parent_run_id} is open; do not nest them")
        client = self.client
        tags = {"dataset": self.dataset or "data", "run_kind": "comparison", **self.tags}
        run = client.create_run(self.experiment_id, run_name=name, tags=tags)
        run_id = run.info.run_id
        if data is not None:
            self._log_data(client, run_id, data, "comparison")
        self.parent_run_id, self._summary, self._table_logged = run_id, {}, False
        self.runs_url = None
        try:
            yield run_id
        except BaseException as err:
            _runs.log_tags(client, run_id, {"error": f"{type(err).__name__}: {err}"})
            client.set_terminated(run_id, _runs.end_status(err))
            raise
        else:
            self._close_comparison(client, run_id)
            client.set_terminated(run_id, "FINISHED")
        finally:
            self.parent_run_id = None

    def _close_comparison(self, client: MlflowClient, run_id: str) -> None:
        if not self._summary:
            return
        table = pd.DataFrame.from_dict(self._summary, orient="index").rename_axis("model")
        scores = [c for c in table.columns if c not in _NOT_SCORES and c != "run_id"]
        best = {f"best_{c}": table[c].min() for c in scores if table[c].notna().any()}
        _runs.log_metrics(client, run_id, best)
        key = self.select if self.select in scores else (scores[0] if scores else None)
        if key is not None and table[key].notna().any():
            winner = str(table[key].idxmin())
            _runs.log_tags(client, run_id, {"best_model": winner, "best_by": key})
            others = [c for c in scores if c != key][:3]
            try:  # a convenience: a store that refuses experiment tags keeps the comparison
                self.runs_url = runs_view_url(client, self.experiment_id, key, others)
            except MlflowException as err:
                _log.warning("no MLflow UI view of the runs by %s: %s", key, err)
            else:
                _log.info(
                    "best model %s by %s; the runs by %s: %s", winner, key, key, self.runs_url
                )
        if not self._table_logged:
            _log_table(client, run_id, table, "comparison.csv")

    def log_comparison(
        self, table: pd.DataFrame, plots: Mapping[str, str | Path] | None = None
    ) -> None:
        """Attach the comparison table (``comparison.csv``) and plots to the open comparison.

        Parameters
        ----------
        table : DataFrame
            One row per model.
        plots : dict of str to path, optional
            PNG files, logged under ``plots/``.
        """
        if self.parent_run_id is None:
            raise RuntimeError("log_comparison is only valid inside `with tracker.comparison(...)`")
        client = self.client
        _log_table(client, self.parent_run_id, table, "comparison.csv")
        _log_plots(client, self.parent_run_id, plots or {})
        self._table_logged = True

    # ------------------------------------------------------------- backtests
    def log_backtest(
        self,
        name: str,
        estimator: Any,
        result: Any,
        data: pd.DataFrame | Mapping[Any, pd.DataFrame] | None = None,
        plots: Mapping[str, str | Path] | None = None,
    ) -> str:
        """Log one backtest as a run (a child run inside :meth:`comparison`).

        Parameters
        ----------
        name : str
            Run name, usually the model's name.
        estimator : BaseForecaster
            The estimator that was backtested; ``get_params()`` is logged.
        result : BacktestResult
            From :func:`forecast.evaluation.backtest.backtest`: its ``metrics`` table (the
            ``"overall"`` row as ``mae``, ``rmse``..., with several targets each target's row
            as ``<metric>/<target>``),
            ``by_horizon`` and ``by_hour`` as metric curves (``<metric>_by_step``,
            ``<metric>_by_hour``), timings, ``settings`` as ``backtest.*`` params, and its
            tables as artifacts (``backtest/forecasts.parquet``, ``backtest/*.csv``). For a
            neural model the per-epoch curves of its fitted estimator (``train_loss``,
            ``val_loss``, step = epoch; the last fold's fit when it was refitted, tag
            ``loss_curve_of``), see :func:`~forecast.tracking.callback.log_history`.
        data : DataFrame or dict of DataFrames, optional
            The data backtested on (fingerprinted; a dataset input is logged).
        plots : dict of str to path, optional
            PNG files, logged under ``plots/``.

        Returns
        -------
        str
            The run id.
        """
        client = self.client
        fitted = getattr(result, "estimator", None) or estimator
        tags = {"dataset": self.dataset or "data", "run_kind": "backtest", **self.tags}
        if self.parent_run_id:
            tags["mlflow.parentRunId"] = self.parent_run_id
        took = getattr(result, "total_seconds", None)  # the run's duration is the backtest's
        start = (
            int((time.time() - took) * 1000) if took is not None and _runs._is_real(took) else None
        )
        run_id = client.create_run(
            self.experiment_id, start_time=start, run_name=name, tags=tags
        ).info.run_id
        try:
            self._log_backtest(client, run_id, name, estimator, fitted, result, data, plots or {})
        except BaseException as err:
            _runs.log_tags(client, run_id, {"error": f"{type(err).__name__}: {err}"})
            client.set_terminated(run_id, _runs.end_status(err))
            raise
        client.set_terminated(run_id, "FINISHED")
        self.runs[name] = run_id
        return run_id

    def _log_backtest(
        self,
        client: MlflowClient,
        run_id: str,
        name: str,
        estimator: Any,
        fitted: Any,
        result: Any,
        data: pd.DataFrame | Mapping[Any, pd.DataFrame] | None,
        plots: Mapping[str, str | Path],
    ) -> None:
        settings = getattr(result, "settings", None) or {}
        params = _runs.estimator_params(estimator)
        params.update({f"backtest.{k}": v for k, v in settings.items()})
        _runs.log_params(client, run_id, params)
        _runs.log_tags(client, run_id, _runs.estimator_tags(fitted))
        if data is not None:
            self._log_data(client, run_id, data, "backtest")
        overall = _log_metric_tables(client, run_id, result)
        epochs = log_history(client, run_id, fitted)
        folds = getattr(result, "folds", None)
        if epochs and isinstance(folds, pd.DataFrame) and len(folds):
            last = folds.iloc[-1]
            of = f"fold {len(folds)} of {len(folds)}, trained to {last.get('train_end')}"
            _runs.log_tags(client, run_id, {"loss_curve_of": of})
        key = name if name not in self._summary else f"{name} ({run_id[:8]})"
        self._summary[key] = {**overall, "run_id": run_id}
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "backtest"
            folder.mkdir()
            for attr in ("metrics", "by_horizon", "by_hour", "folds"):
                table = getattr(result, attr, None)
                if isinstance(table, pd.DataFrame):
                    table.to_csv(folder / f"{attr}.csv")
            forecasts = getattr(result, "forecasts", None)
            if isinstance(forecasts, pd.DataFrame):
                with warnings.catch_warnings():  # pyarrow on tz-aware columns, pandas 3.1
                    warnings.filterwarnings("ignore", "Series.values")
                    forecasts.to_parquet(folder / "forecasts.parquet", index=False)
            client.log_artifacts(run_id, str(folder), "backtest")
        _log_plots(client, run_id, plots)
        if self.log_models:
            reason = unloggable_reason(fitted)
            if reason is None:
                info = log_model(fitted, run_id, tracking_uri=self.tracking_uri, history=data)
                self.models[name] = info.model_uri
            else:
                _runs.log_tags(client, run_id, {"model_not_logged": reason})

    # ------------------------------------------------------------------ misc
    def callback(
        self, data: pd.DataFrame | Mapping[Any, pd.DataFrame] | None = None, **kwargs: Any
    ) -> MLflowCallback:
        """Return an :class:`MLflowCallback` on this store (a child run inside a comparison).

        Parameters
        ----------
        data : DataFrame or dict of DataFrames, optional
            The training data (fingerprinted).
        **kwargs
            Further :class:`MLflowCallback` options.

        Returns
        -------
        MLflowCallback
        """
        options: dict[str, Any] = {
            "experiment": self.experiment,
            "tracking_uri": self.tracking_uri,
            "dataset": self.dataset,
            "data_source": self.data_source,
            "parent_run_id": self.parent_run_id,
            "tags": self.tags,
        }
        options.update(kwargs)
        return MLflowCallback(data=data, **options)

    def _log_data(
        self,
        client: MlflowClient,
        run_id: str,
        data: pd.DataFrame | Mapping[Any, pd.DataFrame],
        context: str,
    ) -> None:
        digest = fingerprint(data)
        _runs.log_tags(client, run_id, {"data_sha256": digest})
        entry = dataset_input(data, self.dataset or "data", context, self.data_source, digest)
        client.log_inputs(run_id, datasets=[entry])


def _log_table(client: MlflowClient, run_id: str, table: pd.DataFrame, filename: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / filename
        table.to_csv(path)
        client.log_artifact(run_id, str(path))


def _log_plots(client: MlflowClient, run_id: str, plots: Mapping[str, str | Path]) -> None:
    for plot_name, path in plots.items():
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"plot {plot_name!r}: file {path} does not exist")
        client.log_artifact(run_id, str(path), "plots")


def _log_metric_tables(client: MlflowClient, run_id: str, result: Any) -> dict[str, Any]:
    """Log the metric tables of a backtest result; return the pooled (overall) metrics."""
    overall: dict[str, Any] = {}  # the table's own numbers (a count stays an int)
    table = getattr(result, "metrics", None)
    if isinstance(table, pd.DataFrame) and not table.empty:
        pooled = "overall" if "overall" in table.index else table.index[-1]
        overall = {str(k): v for k, v in table.loc[pooled].items() if _runs._is_real(v)}
        if "n" in overall:
            overall["n_scored"] = overall.pop("n")
        rows = [r for r in table.index if r != pooled]
        per_row = {  # one target: its row repeats the pooled one
            _runs.metric_key(metric, row): value
            for row in (rows if len(rows) > 1 else [])
            for metric, value in table.loc[row].items()
            if metric != "n"
        }
        _runs.log_metrics(client, run_id, {**overall, **per_row})
    rows = []
    for attr, suffix in (("by_horizon", "by_step"), ("by_hour", "by_hour")):
        curve = getattr(result, attr, None)
        if isinstance(curve, pd.DataFrame):
            rows += [
                # pandas-stubs type iterrows' labels Hashable; here steps or hours (ints)
                (f"{metric}_{suffix}", value, int(step))  # type: ignore[call-overload]
                for step, row in curve.iterrows()
                for metric, value in row.items()
                if metric != "n"
            ]
    _runs.log_metric_steps(client, run_id, rows)
    names = ("fit_seconds", "predict_seconds", "total_seconds")
    timings = {k: getattr(result, k, None) for k in names}
    origins = getattr(result, "origins", None)
    if origins is not None:
        timings["n_origins"] = len(origins)
    _runs.log_metrics(client, run_id, timings)
    return {k: float(v) for k, v in overall.items()}
