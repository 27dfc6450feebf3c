"""The golden cases: estimators, data and calls whose forecasts must not move.

``record.py`` fits every case once and stores its forecasts (and a saved folder per
estimator); ``test_golden.py`` refits them with the same seed and loads the folders, and
compares. Cases name classes by their public ``forecast`` (or ``forecast.models``) names, so
they survive moves.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TINY = dict(
    context_length=24,
    horizon=6,
    hidden_size=4,
    max_epochs=2,
    batch_size=32,
    learning_rate=0.01,
    random_state=0,
)

FAMILIES = [
    "ElmanForecaster",
    "LSTMForecaster",
    "GRUForecaster",
    "OrthogonalRNNForecaster",
    "TransformerForecaster",
    "HopfieldForecaster",
]


LINEAR = ("LinearLagForecaster", dict(horizon=6, country="DE", timezone="Europe/Berlin"))
MEMORY = dict(
    reference_model=LINEAR, context="1D", memory_folds=2, country="DE", timezone="Europe/Berlin"
)
"""The analog-day memory of the golden cases: LinearLag with out-of-fold errors."""

PINNED = {"ElmanForecaster": {"num_layers": 1, "n_ensemble": 1}}
"""Parameters whose library default changed after the case was recorded: the case keeps the
model it recorded (Elman's two layers and three networks came later)."""


def frame(n: int = 360, channels: int = 1, seed: int = 0, covariate: bool = False) -> pd.DataFrame:
    """Hourly series in Berlin local time (crosses the March DST switch), scale ~1."""
    rng = np.random.default_rng(seed)
    index = pd.date_range("2023-03-15", periods=n, freq="h", tz="Europe/Berlin")
    t = np.arange(n)
    cols = {}
    for c in range(channels):
        name = "load" if channels == 1 else f"y{c}"
        cols[name] = 1 + 0.3 * np.sin(2 * np.pi * t / 24 + c) + 0.03 * rng.standard_normal(n)
    df = pd.DataFrame(cols, index=index)
    if covariate:
        df["temp"] = np.cos(2 * np.pi * t / 24) + 0.1 * rng.standard_normal(n)
        df["forecast"] = df["load"] + 0.02 * rng.standard_normal(n)
    return df


def cases() -> dict[str, tuple[str, dict, str]]:
    """Name -> (class name in ``forecast``, constructor parameters, data kind)."""
    out: dict[str, tuple[str, dict, str]] = {}
    for fam in FAMILIES:
        out[fam] = (fam, dict(TINY, **PINNED.get(fam, {})), "plain")
    extra = {
        "lstm-peephole": ("LSTMForecaster", dict(TINY, peephole=True), "plain"),
        "gru-residual": ("GRUForecaster", dict(TINY, residual=True), "multi"),
        "gru-tbptt": ("GRUForecaster", dict(TINY, windowing="tbptt", tbptt_steps=12), "plain"),
        "lstm-quantiles": ("LSTMForecaster", dict(TINY, quantiles=[0.1, 0.5, 0.9]), "plain"),
        "gru-seq2seq": ("GRUForecaster", dict(TINY, strategy="seq2seq"), "plain"),
        "elman-recursive": (
            "ElmanForecaster",
            dict(TINY, strategy="recursive", **PINNED["ElmanForecaster"]),
            "plain",
        ),
        "gru-difference": ("GRUForecaster", dict(TINY, target_transform="difference"), "plain"),
        "gru-input-differences": ("GRUForecaster", dict(TINY, input_differences=True), "plain"),
        "gru-calendar-covariates": (
            "GRUForecaster",
            dict(
                TINY,
                calendar=True,
                country="DE",
                timezone="Europe/Berlin",
                future_covariates=["temp", "forecast"],
            ),
            "covariates",
        ),  # fmt: skip
        "gru-ensemble": ("GRUForecaster", dict(TINY, n_ensemble=2), "plain"),
        "gru-window-norm": (
            "GRUForecaster",
            dict(TINY, normalization="window", linear_skip=True, reference="1D"),
            "plain",
        ),
        "transformer-patches": ("TransformerForecaster", dict(TINY, patch_length=4), "plain"),
        "gru-mae-weights": ("GRUForecaster", dict(TINY, loss="mae", horizon_weight=1.0), "plain"),
        "Naive": ("Naive", {}, "plain"),
        "SeasonalNaive": ("SeasonalNaive", {}, "plain"),
        "ConstantVelocity": ("ConstantVelocity", dict(window=3), "plain"),
        "ETSForecaster": ("ETSForecaster", {}, "plain"),
        "SARIMAXForecaster": ("SARIMAXForecaster", {}, "plain"),
        "MSTLForecaster": ("MSTLForecaster", {}, "plain"),
        "LinearLagForecaster": (
            "LinearLagForecaster",
            dict(horizon=6, country="DE", timezone="Europe/Berlin"),
            "plain",
        ),
        "BoostedLagForecaster": (
            "BoostedLagForecaster",
            dict(horizon=6, country="DE", timezone="Europe/Berlin"),
            "plain",
        ),
        "ExternalForecast": ("ExternalForecast", dict(column="forecast", debias=24), "external"),
        "ConformalForecaster": (
            "ConformalForecaster",
            dict(estimator=("SeasonalNaive", {}), horizon=6, calibration=0.3),
            "plain",
        ),
        "EnsembleForecaster": (
            "EnsembleForecaster",
            dict(
                estimators=[["naive", ("Naive", {})], ["gru", ("GRUForecaster", dict(TINY))]],
                weights=[0.3, 0.7],
            ),
            "plain",
        ),
        "AnalogDayForecaster": ("AnalogDayForecaster", MEMORY, "plain"),
        "referenced-hopfield-linear": (
            "ReferencedHopfieldForecaster",
            dict(TINY, horizon=15, reference_model=LINEAR, reference_input=True),
            "plain",
        ),
        "referenced-hopfield-memory": (
            "ReferencedHopfieldForecaster",
            dict(TINY, horizon=15, reference_model=("AnalogDayForecaster", MEMORY)),
            "plain",
        ),
    }
    out.update(extra)
    return out


def build(class_name: str, params: dict):
    """The estimator of a case; nested ``(class name, params)`` pairs become estimators."""

    def value(v):
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str):
            return build(*v)
        if isinstance(v, list) and len(v) == 2 and isinstance(v[0], str):
            return (v[0], value(v[1]))  # a (name, estimator) pair of an ensemble
        if isinstance(v, list):
            return [value(x) for x in v]
        return v

    return resolve(class_name)(**{k: value(v) for k, v in params.items()})


def resolve(class_name: str) -> type:
    """The class of a public name of ``forecast`` (or of ``forecast.models``)."""
    import forecast
    import forecast.models

    found = getattr(forecast, class_name, None) or getattr(forecast.models, class_name)
    assert isinstance(found, type)
    return found


def data(kind: str) -> pd.DataFrame:
    """The training frame of a data kind."""
    if kind == "multi":
        return frame(channels=3)
    if kind == "covariates":
        return frame(covariate=True)
    if kind == "external":
        return frame(covariate=True)[["load", "forecast"]]
    return frame()


def future(kind: str, horizon: int) -> pd.DataFrame | None:
    """Future covariates of the ``horizon`` steps after the training frame, if the kind has any."""
    if kind not in ("covariates", "external"):
        return None
    full = frame(n=360 + horizon, covariate=True)
    cols = ["temp", "forecast"] if kind == "covariates" else ["forecast"]
    return full.iloc[360:][cols]


def comparison():
    """The golden comparison: day-ahead protocol over the last days of a 90-day series."""
    import forecast

    n = 24 * 90
    rng = np.random.default_rng(1)
    index = pd.date_range("2023-01-15", periods=n, freq="h", tz="Europe/Berlin")
    t = np.arange(n)
    load = 50 + 10 * np.sin(2 * np.pi * t / 24) + 5 * np.sin(2 * np.pi * t / 168)
    df = pd.DataFrame({"load": load + rng.standard_normal(n)}, index=index)
    models = {
        "seasonal": forecast.SeasonalNaive(),
        "linear": forecast.LinearLagForecaster(horizon=36, country="DE", timezone="Europe/Berlin"),
        "gru": forecast.GRUForecaster(**dict(TINY, horizon=36, context_length=48)),
    }
    return forecast.compare(
        models, df, protocol="day-ahead", start="2023-04-03", progress=False,
        special_days="holidays-DE",
    )  # fmt: skip
