"""The MLflow UI as a person uses it: open the experiment, expand the comparison, add metrics,
see which model won, open the winner's loss curve.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package; skipped
with the reason otherwise. The screenshots go to ``$FORECAST_UI_SCREENSHOT`` (runs table)
and ``$FORECAST_UI_LOSS_SCREENSHOT`` (a child run's loss curve) when set, else into the
test's tmp_path (docs/img/mlflow-runs.png and docs/img/mlflow-loss-curve.png were made so).
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from mlflow import MlflowClient

from forecast.evaluation.compare import compare
from forecast.models.baselines import Naive, SeasonalNaive
from forecast.models.recurrent import GRUForecaster
from forecast.tracking import MLflowTracker
from tests.conftest import TINY_NEURAL, make_series

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if CHROMIUM is None or CHROMEDRIVER is None:
    pytest.skip(
        "headless Chromium not installed (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )
pytest.importorskip("selenium", reason="selenium not installed (pip install selenium)")

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

EPOCHS = 8
SERVER_START_S = 180  # mlflow server takes 10-40 s to start on a busy 2-core machine
PAGE_S = 60
METRICS = ("mae", "rmse", "mape")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def comparison(new_store):
    """A store with one comparison: a parent run, three baseline and one GRU child runs."""
    uri = new_store("ui-store")
    folder = Path(uri.removeprefix("sqlite:///")).parent  # the server log goes next to it
    df = make_series(n=24 * 14, tz="Europe/Berlin")
    models = {
        "naive": Naive(),
        "seasonal-naive": SeasonalNaive(season="1D"),
        "seasonal-naive-2d": SeasonalNaive(season="1D", n_seasons=2),
        "gru": GRUForecaster(**{**TINY_NEURAL, "horizon": 24, "max_epochs": EPOCHS}),
    }
    tracker = MLflowTracker(experiment="power-load-ui", tracking_uri=uri, dataset="synthetic")
    compare(
        models, df, tracker=tracker, name="day-ahead comparison", horizon=24,
        start="2023-01-12", progress=False,
    )  # fmt: skip
    client = MlflowClient(uri)
    metrics = {name: client.get_run(run_id).data.metrics for name, run_id in tracker.runs.items()}
    parent_id = client.get_run(tracker.runs["gru"]).data.tags["mlflow.parentRunId"]
    return {
        "uri": uri,
        "experiment_id": tracker.experiment_id,
        "parent_id": parent_id,
        "runs": tracker.runs,
        "metrics": metrics,
        "folder": folder,
    }


@contextmanager
def mlflow_server(uri: str, folder: Path) -> Iterator[str]:
    """``mlflow server`` on the store, on a free port; yields its address."""
    port = free_port()
    log_path = folder / "server.log"
    log = open(log_path, "w")
    command = [sys.executable, "-m", "mlflow", "server", "--backend-store-uri", uri]
    command += ["--host", "127.0.0.1", "--port", str(port), "--workers", "1"]
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if proc.poll() is not None:
                text = log_path.read_text()[-2000:]
                pytest.fail(f"mlflow server exited with {proc.returncode}: {text}")
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=5) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"mlflow server not up after {SERVER_START_S} s")
            time.sleep(0.5)
        yield base
    finally:  # the server and the uvicorn process it starts share our new session
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=20)
        log.close()


@pytest.fixture(scope="module")
def server(comparison):
    with mlflow_server(comparison["uri"], comparison["folder"]) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    options = Options()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--window-size=1800,1000",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(PAGE_S)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait_for(driver, xpath, what):
    try:
        return WebDriverWait(driver, PAGE_S).until(
            lambda d: next((e for e in d.find_elements(By.XPATH, xpath) if e.is_displayed()), None)
        )
    except TimeoutException:
        pytest.fail(
            f"the MLflow UI did not show {what} within {PAGE_S} s; page text: "
            f"{driver.find_element(By.TAG_NAME, 'body').text[:1500]!r}"
        )


def text_is(value):
    return f"normalize-space(.)='{value}'"


def add_column(driver, name):
    """Tick a metric in the table's "Columns" menu, as a person would."""
    search_box = "//input[@placeholder='Search columns']"
    if not driver.find_elements(By.XPATH, search_box):
        wait_for(driver, "//button[contains(., 'Columns')]", "the Columns button").click()
    search = wait_for(driver, search_box, "the column search box")
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(Keys.BACKSPACE)
    search.send_keys(name)
    node = (
        f"//*[contains(@class, 'tree-treenode')][.//*[contains(@class, 'tree-title')]"
        f"[{text_is(name)}]]//*[contains(@class, 'tree-checkbox')]"
    )
    wait_for(driver, node, f"metric {name!r} in the Columns menu").click()


def close_side_panel(driver):
    for close in driver.find_elements(By.XPATH, "//button[@aria-label='Close']"):
        if close.is_displayed():  # the assistant side panel
            close.click()


def screenshot(driver, variable, default):
    target = Path(os.environ.get(variable) or default)
    target.parent.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(target))
    data = target.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 20_000


def row_text(driver, run_id):
    # ag-grid splits a row into a pinned part (run name) and a scrolling part (metrics)
    return " ".join(e.text for e in driver.find_elements(By.XPATH, f"//*[@row-id='{run_id}']"))


def test_experiment_page_lists_model_runs_with_metrics(comparison, server, browser, tmp_path):
    browser.get(
        f"{server}/#/experiments/{comparison['experiment_id']}/runs?workflowType=machine_learning"
    )
    parent = wait_for(
        browser, f"//*[@role='row'][.//*[{text_is('day-ahead comparison')}]]", "the comparison run"
    )
    close_side_panel(browser)
    parent.find_element(By.XPATH, ".//button").click()  # expand the child runs
    for name in comparison["runs"]:
        wait_for(browser, f"//a[.//*[{text_is(name)}] or {text_is(name)}]", f"child run {name!r}")
    for column in (*METRICS, "best_model"):
        add_column(browser, column)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    for column in (*METRICS, "best_model"):
        wait_for(browser, f"//*[@role='columnheader'][{text_is(column)}]", f"column {column}")
    # the winner: the lowest MAPE (the spec's metric), named on the comparison's row
    winner = min(comparison["metrics"], key=lambda name: comparison["metrics"][name]["mape"])
    assert winner in row_text(browser, comparison["parent_id"]).split()
    for name, run_id in comparison["runs"].items():
        shown = row_text(browser, run_id)
        assert name in shown
        for metric in METRICS:
            value = comparison["metrics"][name][metric]
            assert str(value)[:6] in shown, (name, metric, value, shown)  # e.g. "0.3042..."
    footer = browser.find_element(By.XPATH, "//*[contains(text(), 'matching runs')]")
    ActionChains(browser).move_to_element(footer).perform()  # no cell tooltip in the shot
    time.sleep(0.5)
    screenshot(browser, "FORECAST_UI_SCREENSHOT", tmp_path / "mlflow_ui.png")


def test_child_run_shows_its_loss_curve(comparison, server, browser, tmp_path):
    run_id = comparison["runs"]["gru"]
    browser.get(
        f"{server}/#/experiments/{comparison['experiment_id']}/runs/{run_id}/model-metrics"
        "?workflowType=machine_learning"
    )
    search = wait_for(browser, "//input[@placeholder='Search metric charts']", "the chart search")
    close_side_panel(browser)
    search.send_keys("loss")
    for metric in ("train_loss", "val_loss"):
        card = wait_for(
            browser,
            f"//*[@data-testid='experiment-view-compare-runs-card'][.//h4[{text_is(metric)}]]",
            f"the {metric} chart",
        )
        legend = f"gru ({metric})"
        WebDriverWait(browser, PAGE_S).until(lambda _, c=card, t=legend: t in c.text)
        # the axes are drawn after the legend: wait for them (a busy machine takes seconds)
        WebDriverWait(browser, PAGE_S).until(lambda _, c=card: "Step" in c.text.split())
        text = card.text.split()
        assert "Step" in text  # a line over epochs, not the single bar of a final value
        assert str(EPOCHS - 2) in text  # the x axis reaches the last epochs
    curve = browser.find_element(By.XPATH, f"//h4[{text_is('train_loss')}]")
    browser.execute_script("arguments[0].scrollIntoView({block: 'start'});", curve)
    time.sleep(1)
    screenshot(browser, "FORECAST_UI_LOSS_SCREENSHOT", tmp_path / "mlflow_loss.png")
