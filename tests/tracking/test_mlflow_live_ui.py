"""Live accuracy in the MLflow UI, as a person finds it after a few days of the daily loop.

A short synthetic loop runs through the documented API and commands: a comparison tracked
with :class:`MLflowTracker` and its champion registered (``register_champion``: the backtest's
``mape`` is on the version's run), then ``forecast batch --model models:/...@champion`` every
day and ``forecast score --model models:/...@champion`` as the actuals arrive. With
``mlflow server`` on that store, headless Chromium opens the model version, follows its
source run, sees ``live_mape`` listed next to the backtest's ``mape`` and the ``live_mape``
chart with one point per scored forecast; the comparison's link (the runs sorted by the
selection metric) opens the training runs with the metric's column, sorted.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package; skipped
with the reason otherwise (the helpers are those of ``test_mlflow_ui.py``). The chart's
screenshot goes to ``$FORECAST_UI_LIVE_SCREENSHOT`` when set, else into tmp_path.
"""

import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from mlflow import MlflowClient

from forecast import LinearLagForecaster, SeasonalNaive
from forecast.cli import main
from forecast.evaluation.compare import compare
from forecast.tracking import MLflowTracker, register_champion
from tests.tracking.test_mlflow_ui import (  # skips this module as it skips itself
    PAGE_S,
    ActionChains,
    By,
    TimeoutException,
    WebDriverWait,
    browser,  # noqa: F401 (a fixture)
    close_side_panel,
    mlflow_server,
    row_text,
    screenshot,
    text_is,
    wait_for,
)

pytestmark = pytest.mark.browser

ZONE = "Europe/Berlin"
NAME = "power-load"
DAYS = 9  # forecasts issued; the last two are partial and pending when the loop stops


def synthetic() -> pd.DataFrame:
    index = pd.date_range("2024-02-01", "2024-03-20 23:00", freq="h", tz=ZONE)
    t = np.arange(len(index))
    rng = np.random.default_rng(1)
    load = 1000 + 100 * np.sin(2 * np.pi * t / 24) + 40 * (index.day_of_week < 5)
    return pd.DataFrame({"load": load + rng.normal(0, 5, len(t))}, index=index)


def daily_loop(uri, data, model, backtest_start, first_day, days, dataset, others=None) -> dict:
    """Compare ``model`` (and ``others``) up to ``first_day`` (D-1, 12:00), register the best
    as the champion, then run ``forecast batch`` and ``forecast score`` daily for ``days``."""
    folder = Path(uri.removeprefix("sqlite:///")).parent / "loop"
    folder.mkdir()
    first = pd.Timestamp(first_day, tz=ZONE)
    seen = data.loc[: first - pd.Timedelta("13h")]
    tracker = MLflowTracker(experiment=NAME, tracking_uri=uri, dataset=dataset, log_models=True)
    models = {"linear": model, **(others or {})}
    result = compare(
        models, seen, tracker=tracker, name="day-ahead", protocol="day-ahead",
        start=backtest_start, progress=False,
    )  # fmt: skip
    champion = register_champion(tracker, result, NAME, history=seen)
    latest, forecasts = str(folder / "latest.csv"), str(folder / "forecasts" / "{date}.csv")
    alias = ["--model", f"models:/{NAME}@champion", "--tracking-uri", uri]
    for k in range(days):
        issue = first + pd.Timedelta(days=k) - pd.Timedelta("12h")  # 12:00 on D-1
        observed = data.loc[: issue - pd.Timedelta("1h")]
        observed.rename_axis("timestamp").reset_index().to_csv(latest, index=False)
        batch = ["batch", *alias, "--input", latest, "--output", forecasts, "--timezone", ZONE]
        assert main([*batch, "--horizon", "day-ahead", "--issue-time", str(issue)]) == 0
        score = ["score", *alias, "--forecasts", forecasts, "--actuals", latest]
        assert main([*score, "--timezone", ZONE, "--protocol", "day-ahead"]) == 0
    history = MlflowClient(uri).get_metric_history(champion.run_id, "live_mape")
    assert len(history) == days - 2  # every forecast whose day has passed
    return {
        "uri": uri,
        "folder": folder,
        "run_id": champion.run_id,
        "version": champion.version,
        "runs_url": tracker.runs_url,
        "runs": tracker.runs,
        "backtest_mape": champion.value,
        "scored": days - 2,
        "mape": result.table["mape"].to_dict(),
    }


@pytest.fixture(scope="module")
def loop(new_store):
    """A champion of a synthetic series, its backtest, ``DAYS`` days of batch and score."""
    model = LinearLagForecaster(lags=24, seasonal_lags=(), calendar=False, timezone=ZONE)
    uri = new_store("live-ui-store")
    others = {"seasonal-naive": SeasonalNaive(season="1D")}
    return daily_loop(
        uri, synthetic(), model, "2024-02-25", "2024-03-05", DAYS, "synthetic", others
    )


@pytest.fixture(scope="module")
def server(loop):
    with mlflow_server(loop["uri"], loop["folder"]) as base:
        yield base


def chart_card(driver, metric):
    return wait_for(
        driver,
        f"//*[@data-testid='experiment-view-compare-runs-card'][.//h4[{text_is(metric)}]]",
        f"the {metric} chart",
    )


def close_notice(driver):
    """Close the notice of the new registry UI (shown once per browser)."""
    notice = "//*[@role='dialog']//button[@aria-label='Close']"
    try:
        WebDriverWait(driver, 5).until(lambda d: d.find_element(By.XPATH, notice).is_displayed())
    except TimeoutException:
        return
    driver.find_element(By.XPATH, notice).click()
    WebDriverWait(driver, PAGE_S).until(
        lambda d: not any(e.is_displayed() for e in d.find_elements(By.XPATH, notice))
    )


def open_live_chart(driver, base, loop):
    """Follow the champion version to its run; return the live_mape chart card."""
    # Model training -> Model registry -> power-load -> Version 1 -> its source run
    driver.get(base)
    wait_for(driver, f"//*[{text_is('Model training')}]", "the Model training switch").click()
    registry = f"//a[{text_is('Model registry')} or .//*[{text_is('Model registry')}]]"
    wait_for(driver, registry, "the Model registry link").click()
    model = wait_for(driver, f"//a[{text_is(NAME)}]", f"the registered model {NAME}")
    close_notice(driver)
    model.click()
    version = f"Version {loop['version']}"
    wait_for(driver, f"//a[{text_is(version)}]", f"{version} of {NAME}").click()
    source = f"//a[contains(@href, '/runs/{loop['run_id']}')]"
    link = wait_for(driver, source, "the version's source run")
    assert "champion" in driver.find_element(By.TAG_NAME, "body").text  # its alias
    close_side_panel(driver)
    link.click()
    # Overview: live_mape is listed next to the backtest's mape
    wait_for(driver, f"//*[{text_is('live_mape')}]", "live_mape in the run's metrics")
    shown = driver.find_element(By.TAG_NAME, "body").text
    assert str(loop["backtest_mape"])[:6] in shown  # the backtest's mape, e.g. "1.4560"
    wait_for(
        driver, f"//*[@role='tab'][{text_is('Model metrics')}]", "the Model metrics tab"
    ).click()
    search = wait_for(driver, "//input[@placeholder='Search metric charts']", "the chart search")
    close_side_panel(driver)
    search.send_keys("mape")
    card = chart_card(driver, "live_mape")
    chart_card(driver, "mape")  # the backtest's figure, next to it
    WebDriverWait(driver, PAGE_S).until(lambda _: "Step" in card.text.split())
    points = card.find_elements(By.CSS_SELECTOR, ".scatterlayer .trace .points path.point")
    assert len(points) == loop["scored"]  # one point per scored forecast, by issue date
    assert "linear (live_mape)" in card.text
    driver.execute_script("document.activeElement.blur();")  # no caret in the search box
    title = card.find_element(By.XPATH, ".//h4")
    ActionChains(driver).move_to_element(title).perform()  # no tooltip over a chart
    time.sleep(0.5)
    return card


def test_the_champions_run_charts_live_mape(loop, server, browser, tmp_path):  # noqa: F811
    open_live_chart(browser, server, loop)
    screenshot(browser, "FORECAST_UI_LIVE_SCREENSHOT", tmp_path / "mlflow_live_mape.png")


def test_the_comparisons_link_shows_the_runs_sorted_by_the_selection_metric(
    loop,
    server,
    browser,  # noqa: F811
    tmp_path,
):
    url = loop["runs_url"]  # logged by the comparison: http://127.0.0.1:5000/#/experiments/...
    assert url.startswith("http://127.0.0.1:5000/#/experiments/")
    browser.get(server)
    browser.execute_script("window.localStorage.clear();")  # a browser that chose nothing yet
    browser.get(server + url.removeprefix("http://127.0.0.1:5000"))
    wait_for(browser, f"//*[@role='columnheader'][{text_is('mape')}]", "the mape column")
    wait_for(browser, f"//*[@role='columnheader'][{text_is('best_model')}]", "best_model")
    wait_for(browser, f"//*[{text_is('Sort: mape')}]", "the runs sorted by mape")
    close_side_panel(browser)
    assert (
        "/runs?" in browser.current_url and "workflowType=machine_learning" in browser.current_url
    )
    assert "orderByKey=metrics.%60mape%60" in browser.current_url
    assert "orderByAsc=true" in browser.current_url
    # the training runs, lowest mape first, each with its mape in the column
    order = sorted(loop["mape"], key=loop["mape"].get)
    rows = [row_text(browser, loop["runs"][name]) for name in order]
    for name, shown in zip(order, rows, strict=True):
        assert str(loop["mape"][name])[:6] in shown, (name, shown)
    tops = [
        browser.find_element(By.XPATH, f"//*[@row-id='{loop['runs'][name]}']").location["y"]
        for name in order
    ]
    assert tops == sorted(tops), (order, tops)
    footer = browser.find_element(By.XPATH, "//*[contains(text(), 'matching runs')]")
    ActionChains(browser).move_to_element(footer).perform()
    time.sleep(0.5)
    screenshot(browser, "FORECAST_UI_VIEW_SCREENSHOT", tmp_path / "mlflow_runs_by_mape.png")


@pytest.mark.slow
def test_eight_weeks_of_2023_on_the_german_data(new_store, data_dir, browser, tmp_path):  # noqa: F811
    """The picture of docs/img/mlflow-live-mape.png: 56 forecasts of 2023, 54 scored."""
    from forecast.datasets import german_load

    data = german_load("hourly", start="2021-01-01", end="2023-03-01", columns=("actual",))
    model = LinearLagForecaster(calendar=True, country="DE", timezone=ZONE)
    uri = new_store("live-ui-german")
    loop = daily_loop(uri, data, model, "2022-10-01", "2023-01-02", 56, "entsoe-de")
    with mlflow_server(loop["uri"], loop["folder"]) as base:
        open_live_chart(browser, base, loop)
        screenshot(browser, "FORECAST_UI_LIVE_SCREENSHOT", tmp_path / "mlflow_live_mape.png")
