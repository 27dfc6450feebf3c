"""Side-by-side backtests: several estimators on the same folds, one table, a few plots."""

from __future__ import annotations

import contextlib
import logging
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.evaluation import plots as P
from forecast.evaluation.backtest import BacktestResult, backtest
from forecast.evaluation.memory import PeakRSS
from forecast.evaluation.ray_backtests import run_backtests
from forecast.evaluation.scores import special_day_scores
from forecast.frames.special_days import check_special_days
from forecast.models.fit_cache import fit_cache
from forecast.parallel.engine import check_engine, check_resources
from forecast.training.progress import progress_context

__all__ = ["ComparisonResult", "compare"]

TIME_COLUMNS = ("fit_seconds", "predict_seconds", "backtest_seconds", "n_fits")
MEMORY_COLUMNS = ("peak_rss_mb", "process_peak_rss_mb")
NOT_METRICS = ("n", "n_special", *TIME_COLUMNS, *MEMORY_COLUMNS)
INTERVAL_SCORES = ("crps", "pinball", "coverage_", "width_", "winkler_")

_log = logging.getLogger("forecast.evaluation.compare")


@dataclass
class ComparisonResult:
    """Outcome of :func:`compare`.

    Attributes
    ----------
    table : DataFrame
        One row per model (in the order given): the overall metrics, ``n`` (values scored),
        with ``special_days`` also ``mape_special`` and ``n_special`` (MAPE and values
        scored on special days), then ``fit_seconds``, ``predict_seconds``,
        ``backtest_seconds`` (the whole backtest, fits included), ``n_fits`` and
        ``peak_rss_mb``: the peak resident memory of the process during that model's
        backtest, in MiB (everything the process holds counts, the data included). Where
        the peak cannot be reset per model (not Linux), the column is
        ``process_peak_rss_mb``, the peak since the process started.
    results : dict of str to BacktestResult
        The full backtest of each model.
    plots : dict of str to Path
        Comparison plots: ``"forecast_vs_actual"``, ``"error_by_hour"`` (sub-daily data
        only) and ``"<metric>_by_model"``. Empty without ``plots_dir``.
    model_plots : dict of str to dict of str to Path
        Per model: its ``"forecast_vs_actual"`` and ``"error_by_hour"`` plots; drawn only
        for a tracker (they go to the model's run).
    seconds : float
        Wall time of the whole comparison.
    """

    table: pd.DataFrame
    results: dict[str, BacktestResult]
    plots: dict[str, Path] = field(default_factory=dict)
    model_plots: dict[str, dict[str, Path]] = field(default_factory=dict)
    seconds: float = 0.0


def compare(
    models: Mapping[str, Any] | Sequence[Any],
    data: pd.DataFrame | dict[Any, pd.DataFrame],
    *,
    plots_dir: str | Path | None = None,
    tracker: Any = None,
    name: str = "comparison",
    plot_metric: str | None = None,
    n_sample_days: int = 3,
    unit: str = "",
    plot_prefix: str = "",
    special_days: str | Sequence[Any] | None = None,
    progress: bool = True,
    engine: str = "sequential",
    address: str | None = None,
    num_cpus: int | None = None,
    **backtest_kwargs: Any,
) -> ComparisonResult:
    """Backtest several estimators on the same folds and tabulate them.

    Each model is fitted once per fold: an :class:`~forecast.EnsembleForecaster` whose
    members are also compared (same class, parameters and seed, same fold) reuses their
    fits instead of training them again (sequential engine), and its ``fit_seconds``
    counts the reused fits' original time.

    Parameters
    ----------
    models : dict of str to estimator, or list of estimators
        The estimators; a list is named by class (``SeasonalNaive``, ``SeasonalNaive-2``).
    data : DataFrame, long DataFrame or dict of DataFrames
        Passed to :func:`~forecast.evaluation.backtest.backtest` for every model.
    plots_dir : str or Path, optional
        Folder for the PNG plots; no plots without it (unless a tracker needs them, then
        they go to a temporary folder that lives while they are logged).
    tracker : object, optional
        ``with tracker.comparison(name, data):`` wraps the comparison (a parent run), and
        ``tracker.log_backtest(model_name, estimator, result, data, plots)`` is called once
        per model with that model's plots. If the tracker also has
        ``log_comparison(table, plots)``, it is called with the comparison plots.
    name : str
        Name of the comparison (parent run).
    plot_metric : str, optional
        Metric of the bar chart and the by-hour plot (default: the first metric).
    n_sample_days : int
        Panels of the forecast-against-actual plot.
    unit : str
        Unit of the target for plot axes, e.g. ``"MW"``.
    plot_prefix : str
        Prefix of the PNG file names (several comparisons in one folder).
    special_days : str or list of date-like, optional
        Also score the MAPE on special days (``mape_special``): ``"holidays-DE"`` (German
        public holidays, national or in any state, bridge days and 24 December to 1
        January: :func:`forecast.frames.special_days.special_days` with ``min_share=0``)
        or a list of dates; days are local days in ``timezone``.
    progress : bool
        Report each model and its epochs (see :mod:`forecast.training.progress`); False silences
        the epochs even of verbose estimators.
    engine : {"sequential", "ray"}
        ``"ray"`` runs each model's backtest as a Ray task (extra ``forecast-toolkit[ray]``; see
        :func:`forecast.parallel.ray_session`); results equal the sequential ones, and
        ``peak_rss_mb`` is then the peak of the worker process that ran the model.
    address : str, optional
        Ray cluster address (default ``RAY_ADDRESS``, else a local Ray); ``"ray"`` only.
    num_cpus : int, optional
        CPUs of a local Ray; ``"ray"`` only.
    **backtest_kwargs
        Everything else goes to :func:`~forecast.evaluation.backtest.backtest` (``protocol``,
        ``start``, ``end``, ``horizon``, ``refit_every``, ``metrics``, ...).

    Returns
    -------
    ComparisonResult
    """
    t0 = time.perf_counter()
    if "tracker" in backtest_kwargs or "name" in backtest_kwargs:
        raise TypeError("compare passes tracker and name to backtest itself")
    named = _named(models)
    if engine != "sequential" or address is not None or num_cpus is not None:
        check_engine(engine)
        check_resources(address, num_cpus)
        if engine == "sequential":
            raise ValueError("address and num_cpus apply to engine='ray' only")
    if special_days is not None:
        check_special_days(special_days)
    tz = backtest_kwargs.get("timezone", "Europe/Berlin")
    context = tracker.comparison(name, data) if tracker is not None else contextlib.nullcontext()
    with context, contextlib.ExitStack() as stack:
        if engine == "ray":
            results, memory = run_backtests(named, data, backtest_kwargs, address, num_cpus)
            for model_name, result in results.items():
                _check_same_folds({k: results[k] for k in list(results)[:1]}, model_name, result)
        else:
            results, memory = _run(named, data, progress, backtest_kwargs)
        table = _table(results, memory, special_days, tz)
        folder = plots_dir
        if folder is None and tracker is not None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="forecast-plots-"))
        plots: dict[str, Path] = {}
        model_plots: dict[str, dict[str, Path]] = {}
        if folder is not None:
            metric = plot_metric or _first_metric(table)
            plots, model_plots = _plots(
                results,
                table,
                Path(folder),
                metric,
                n_sample_days,
                tz,
                unit,
                plot_prefix,
                per_model=tracker is not None,
            )
        if tracker is not None:
            for model_name, estimator in named.items():
                tracker.log_backtest(
                    model_name,
                    estimator,
                    results[model_name],
                    data,
                    model_plots.get(model_name, {}),
                )
            if hasattr(tracker, "log_comparison"):
                tracker.log_comparison(table, plots)
    if plots_dir is None:  # the temporary plots are gone
        plots, model_plots = {}, {}
    return ComparisonResult(table, results, plots, model_plots, time.perf_counter() - t0)


def _named(models: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
    if isinstance(models, Mapping):
        if not models:
            raise ValueError("models is empty: give at least one estimator")
        return {str(k): v for k, v in models.items()}
    if isinstance(models, str) or not isinstance(models, Sequence) or not models:
        raise TypeError("models must be a non-empty dict {name: estimator} or list of estimators")
    named: dict[str, Any] = {}
    for estimator in models:
        base = type(estimator).__name__
        key, i = base, 1
        while key in named:
            i += 1
            key = f"{base}-{i}"
        named[key] = estimator
    return named


def _run(
    named: dict[str, Any],
    data: pd.DataFrame | dict[Any, pd.DataFrame],
    report: bool,
    backtest_kwargs: dict[str, Any],
) -> tuple[dict[str, BacktestResult], dict[str, dict[str, float]]]:
    """Backtest every model in turn, logging its progress; return results and peak memory.

    The memory is ``{column: {model: MiB}}`` with column ``peak_rss_mb`` (peak during each
    model's backtest) or ``process_peak_rss_mb`` (peak since the process started).
    """
    results: dict[str, BacktestResult] = {}
    memory = PeakRSS()
    peaks: dict[str, float] = {}
    with fit_cache():
        _run_each(named, data, report, backtest_kwargs, results, memory, peaks)
    return results, {MEMORY_COLUMNS[0] if memory.per_block else MEMORY_COLUMNS[1]: peaks}


def _run_each(
    named: dict[str, Any],
    data: pd.DataFrame | dict[Any, pd.DataFrame],
    report: bool,
    backtest_kwargs: dict[str, Any],
    results: dict[str, BacktestResult],
    memory: PeakRSS,
    peaks: dict[str, float],
) -> None:
    for k, (model_name, estimator) in enumerate(named.items(), start=1):
        who = f"compare: model {k}/{len(named)} "
        memory.start()
        with progress_context(report=report, who=who, name=model_name):
            result = backtest(estimator, data, **backtest_kwargs)
        peaks[model_name] = peak = memory.peak_mb()
        _check_same_folds(results, model_name, result)
        results[model_name] = result
        overall = result.metrics.loc["overall"]
        score = next((f"{c}={overall[c]:.4g}" for c in overall.index if c != "n"), "")
        _log.info(
            "%s%s: done in %.1f s (fit %.1f s), %s, peak RSS %.0f MiB",
            who,
            model_name,
            result.total_seconds,
            result.fit_seconds,
            score,
            peak,
        )


def _check_same_folds(
    results: dict[str, BacktestResult], model_name: str, result: BacktestResult
) -> None:
    if not results:
        return
    ref_name, ref = next(iter(results.items()))
    if not ref.origins.equals(result.origins) or len(ref.forecasts) != len(result.forecasts):
        raise ValueError(
            f"model {model_name!r} was scored on other origins or steps than {ref_name!r} "
            f"({len(result.origins)} vs {len(ref.origins)} origins, {len(result.forecasts)} vs "
            f"{len(ref.forecasts)} values): do the models forecast different targets?"
        )


def _table(
    results: dict[str, BacktestResult],
    memory: dict[str, dict[str, float]],
    special_days: str | Sequence[Any] | None,
    timezone: str,
) -> pd.DataFrame:
    rows = {}
    for model_name, result in results.items():
        row = result.metrics.loc["overall"].to_dict()
        if special_days is not None:
            row.update(special_day_scores(result.forecasts, special_days, timezone))
        row.update(
            fit_seconds=result.fit_seconds,
            predict_seconds=result.predict_seconds,
            backtest_seconds=result.total_seconds,
            n_fits=len(result.folds),
        )
        row.update({column: peaks[model_name] for column, peaks in memory.items()})
        rows[model_name] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "model"
    scores = [c for c in table.columns if str(c).startswith(INTERVAL_SCORES)]
    if scores and "n" in table.columns:  # interval scores next to the point metrics, before n
        rest = [c for c in table.columns if c not in scores]
        at = rest.index("n")
        table = table[rest[:at] + scores + rest[at:]]
    for column in ("n", "n_special"):
        if column in table.columns:
            table[column] = table[column].astype(int)
    return table


def _first_metric(table: pd.DataFrame) -> str:
    return next(c for c in table.columns if c not in NOT_METRICS)


def _plots(
    results: dict[str, BacktestResult],
    table: pd.DataFrame,
    folder: Path,
    metric: str,
    n_days: int,
    tz: str,
    unit: str,
    prefix: str,
    per_model: bool,
) -> tuple[dict[str, Path], dict[str, dict[str, Path]]]:
    by_hour = {k: r.by_hour for k, r in results.items() if r.by_hour is not None}
    sub_daily = len(by_hour) == len(results)
    origins = P.sample_origins(next(iter(results.values())).origins, n_days)

    def draw(tag: str, chosen: Mapping[str, Any]) -> dict[str, Path]:
        out = {
            "forecast_vs_actual": P.plot_sample_days(
                {k: results[k].forecasts for k in chosen},
                folder / f"{prefix}forecast_vs_actual{tag}.png",
                origins=origins,
                timezone=tz,
                unit=unit,
            )
        }
        if sub_daily:
            out["error_by_hour"] = P.plot_error_by_hour(
                {k: by_hour[k] for k in chosen}, folder / f"{prefix}error_by_hour{tag}.png", metric
            )
        return out

    plots = draw("", results)
    plots[f"{metric}_by_model"] = P.plot_metric_bars(
        table, folder / f"{prefix}{metric}_by_model.png", metric
    )
    model_plots = {}
    if per_model:
        for model_name in results:
            slug = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in model_name)
            model_plots[model_name] = draw(f"_{slug}", {model_name: None})
    return plots, model_plots
