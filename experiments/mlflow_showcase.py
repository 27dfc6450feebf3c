"""MLflow showcase on German load (SMARD, DE-LU bidding zone, hourly MW).

1. A day-ahead comparison (forecast issued 12:00 Europe/Berlin on D-1, scored on day D) of
   baselines and an LSTM over a few weeks of 2023, logged as one parent run with a child
   run per model (metrics, forecasts, plots, data fingerprint).
2. The best model by MAE is refitted on the training window with ``MLflowCallback``,
   logged as a pyfunc model and registered as ``power-load-de@champion``; the pyfunc round
   trip must give the estimator's forecast exactly.
3. Two ``forecast batch`` runs on the same input must write byte-identical files; a run on
   a corrupted input must exit non-zero, print one line and leave no file.
4. ``mlflow server`` on the store, headless Chromium on the experiment page, screenshot.

    python experiments/mlflow_showcase.py --quick     # one test week, tiny LSTM (~3 min)
    python experiments/mlflow_showcase.py             # four test weeks

Everything goes to ``--workdir`` (default: a folder in the system temp dir): the SQLite
store ``mlflow.db``, artifacts ``mlruns/``, batch inputs and outputs, and the screenshot.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import mlflow
import numpy as np
import pandas as pd
from sklearn.base import clone

from forecast.datasets import load
from forecast.evaluation.compare import compare
from forecast.models.baselines import LinearLagForecaster, SeasonalNaive
from forecast.models.recurrent import LSTMForecaster
from forecast.tracking import MLflowTracker, register, track_fit, use_store

TZ = "Europe/Berlin"
COLUMN = "DE_LU_grid_load_MWh"
EXPERIMENT = "power-load-de"
MODEL_NAME = "power-load-de"


def smard_load(data_dir: str | None, start: str) -> pd.DataFrame:
    """DE-LU grid load (MWh per hour = MW) from ``start`` to the end of 2023, UTC index."""
    df = load("smard-de", data_dir=data_dir)[[COLUMN]].rename(columns={COLUMN: "load"})
    return df.loc[pd.Timestamp(start, tz=TZ) : pd.Timestamp("2023-12-31 23:00", tz=TZ)]


def models(quick: bool) -> dict:
    lstm = LSTMForecaster(
        context_length=168,
        horizon=37,
        hidden_size=8 if quick else 16,
        max_epochs=2 if quick else 4,
        batch_size=256,
        validation_fraction=0.1,
        early_stopping_patience=None,
        random_state=0,
        device="cpu",
    )
    return {
        "snaive-1d": SeasonalNaive(season="1D"),
        "snaive-7d": SeasonalNaive(season="7D"),
        "linear-lag": LinearLagForecaster(
            lags=(1, 2, 24, 168), calendar=True, country="DE", timezone=TZ
        ),
        "lstm": lstm,
    }


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def batch_command() -> list[str]:
    """``forecast batch`` when the console script is installed, else the module (same options)."""
    if shutil.which("forecast"):
        return ["forecast", "batch"]
    return [sys.executable, "-m", "forecast.batch"]


def run_batch_cli(args: list[str], cwd: Path) -> tuple[int, str, str, float]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [*batch_command(), *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    return proc.returncode, proc.stdout.strip(), proc.stderr.strip(), time.perf_counter() - t0


# --------------------------------------------------------------------------- UI
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def screenshot_ui(uri: str, experiment_id: str, parent_name: str, target: Path) -> str:
    """Open the experiment's runs in headless Chromium, show mae/rmse/mape, save a PNG."""
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        return "skipped: apt-get install chromium chromium-driver"
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        return "skipped: pip install selenium"
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mlflow",
            "server",
            "--backend-store-uri",
            uri,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    driver = None
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    return "failed: mlflow server did not start"
                time.sleep(1)
        options = Options()
        options.binary_location = chromium
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
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
        wait = WebDriverWait(driver, 60)

        def visible(xpath):
            return wait.until(
                lambda d: next(
                    (e for e in d.find_elements(By.XPATH, xpath) if e.is_displayed()), None
                )
            )

        driver.get(f"{base}/#/experiments/{experiment_id}/runs?workflowType=machine_learning")
        parent = visible(f"//*[@role='row'][.//*[normalize-space(.)='{parent_name}']]")
        for close in driver.find_elements(By.XPATH, "//button[@aria-label='Close']"):
            if close.is_displayed():
                close.click()
        parent.find_element(By.XPATH, ".//button").click()
        for name in ("mae", "rmse", "mape"):
            box = "//input[@placeholder='Search columns']"
            if not driver.find_elements(By.XPATH, box):
                visible("//button[contains(., 'Columns')]").click()
            search = visible(box)
            search.send_keys(Keys.CONTROL, "a")
            search.send_keys(Keys.BACKSPACE)
            search.send_keys(name)
            visible(
                f"//*[contains(@class, 'tree-treenode')][.//*[contains(@class, 'tree-title')]"
                f"[normalize-space(.)='{name}']]//*[contains(@class, 'tree-checkbox')]"
            ).click()
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        visible("//*[@role='columnheader'][normalize-space(.)='mape']")
        footer = driver.find_element(By.XPATH, "//*[contains(text(), 'matching runs')]")
        ActionChains(driver).move_to_element(footer).perform()
        time.sleep(1)
        target.parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(target))
        return str(target)
    finally:
        if driver is not None:
            driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        try:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=20)


# ------------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one test week, tiny LSTM")
    parser.add_argument("--data-dir", default=None, help="folder holding smard_de_tso_load_hourly/")
    parser.add_argument(
        "--workdir",
        default=str(Path(tempfile.gettempdir()) / "forecast-mlflow"),
        help="store, batch files and screenshot go here (emptied first)",
    )
    parser.add_argument("--screenshot", default=None, help="PNG path (default: in workdir)")
    parser.add_argument("--no-ui", action="store_true", help="skip the browser screenshot")
    args = parser.parse_args()

    work = Path(args.workdir).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    uri = f"sqlite:///{work / 'mlflow.db'}"
    start, end = ("2023-03-01", "2023-03-07") if args.quick else ("2023-03-01", "2023-03-28")
    train_days = 120 if args.quick else 365
    data = smard_load(args.data_dir, "2022-01-01" if args.quick else "2021-06-01")
    print(f"# MLflow showcase ({'quick' if args.quick else 'full'})\n")
    print(
        f"store `{uri}`; data: SMARD {COLUMN}, {len(data)} hourly rows "
        f"{data.index[0]} .. {data.index[-1]}; test days {start} .. {end} (day-ahead, "
        f"training window {train_days} days before the first origin)\n"
    )

    # 1. comparison -----------------------------------------------------------------
    tracker = MLflowTracker(
        experiment=EXPERIMENT,
        tracking_uri=uri,
        dataset="smard-de-lu",
        data_source=f"forecast.datasets.load('smard-de')[{COLUMN!r}]",
    )
    t0 = time.perf_counter()
    comparison_name = f"day-ahead {start}..{end}"
    result = compare(
        models(args.quick),
        data,
        tracker=tracker,
        name=comparison_name,
        plots_dir=work / "plots",
        protocol="day-ahead",
        start=start,
        end=end,
        timezone=TZ,
        window="sliding",
        train_size=f"{train_days}D",
        unit="MW",
    )
    compare_s = time.perf_counter() - t0
    table = result.table[["mae", "rmse", "mape", "fit_seconds", "predict_seconds"]]
    print(f"## 1. Comparison ({compare_s:.0f} s; parent run + {len(tracker.runs)} child runs)\n")
    print(table.rename_axis("model").to_markdown(floatfmt=".2f"), "\n")

    # 2. champion: refit with tracking, pyfunc, registry ------------------------------
    best = str(table["mae"].idxmin())
    champion = clone(models(args.quick)[best])
    first_origin = result.results[best].origins[0]
    train = data.loc[first_origin - pd.Timedelta(f"{train_days}D") : first_origin]
    t0 = time.perf_counter()
    callback = track_fit(
        champion,
        train,
        experiment=EXPERIMENT,
        tracking_uri=uri,
        run_name=f"champion {best}",
        dataset="smard-de-lu",
        log_model=True,
    )
    version = register(
        callback.model_info.model_uri, MODEL_NAME, alias="champion", tracking_uri=uri
    )
    package_s = time.perf_counter() - t0
    history = data.loc[:first_origin].iloc[-24 * 14 :]
    with use_store(uri):
        loaded = mlflow.pyfunc.load_model(f"models:/{MODEL_NAME}@champion")
    via_pyfunc = loaded.predict(history, params={"horizon": 24})
    direct = champion.predict(horizon=24, history=history)
    diff = float(np.max(np.abs(via_pyfunc.to_numpy() - direct.to_numpy())))
    same_index = via_pyfunc.index.equals(direct.index)
    print("## 2. Champion and pyfunc round trip\n")
    print(
        f"champion by MAE: `{best}`, registered as `models:/{MODEL_NAME}@champion` "
        f"(version {version}) in {package_s:.1f} s; pyfunc vs estimator, 24 steps from "
        f"{history.index[-1]}: max |diff| = {diff:g} MW, same index: {same_index} "
        f"({via_pyfunc.index[0]} .. {via_pyfunc.index[-1]})\n"
    )

    # 3. batch runs ---------------------------------------------------------------------
    issue = pd.Timestamp(f"{end} 12:00", tz=TZ)  # D-1 12:00 for the day after the test
    latest = data.loc[: issue - pd.Timedelta("1h")].iloc[-24 * 14 :]
    latest.to_csv(work / "latest.csv")
    # 36 steps from the issue hour reach the end of day D (local time)
    common = ["--model", f"models:/{MODEL_NAME}@champion", "--tracking-uri", uri, "--horizon", "36"]
    runs = []
    for _ in range(2):
        runs.append(
            run_batch_cli(
                [*common, "--input", "latest.csv", "--output", "forecasts/{date}.parquet"], work
            )
        )
    outputs = sorted((work / "forecasts").glob("*.parquet"))
    lines = (work / "latest.csv").read_text().splitlines(keepends=True)
    middle = len(lines) // 2
    lines[middle] = "2023-03-2" + "\x00\x00garbage,,\n"
    (work / "corrupt.csv").write_text("".join(lines[: middle + 40]))
    bad = run_batch_cli(
        [*common, "--input", "corrupt.csv", "--output", "bad-forecasts/{date}.parquet"], work
    )
    print(f"## 3. `{' '.join(batch_command()[-2:])} ...` runs\n")
    rows = ["| run | exit | seconds | output | sha256 |", "|---|---|---|---|---|"]
    for i, (code, out, err, secs) in enumerate(runs, 1):
        path = out.split("\t")[0] if out else "-"
        digest = sha256(work / path) if code == 0 else err
        rows.append(f"| {i} | {code} | {secs:.1f} | `{path}` | `{digest}` |")
    rows.append(
        f"| corrupted | {bad[0]} | {bad[3]:.1f} | "
        f"{'none' if not (work / 'bad-forecasts').exists() else 'WRITTEN'} | "
        f"stderr: `{bad[2]}` |"
    )
    print("\n".join(rows), "\n")
    identical = (
        len(outputs) == 1
        and all(r[0] == 0 for r in runs)
        and len({r[1].split("sha256 ")[-1] for r in runs}) == 1
    )
    frame = pd.read_parquet(outputs[0]) if outputs else pd.DataFrame()
    print(
        f"byte-identical reruns: {identical}; one file {[p.name for p in outputs]}, "
        f"{len(frame)} rows, duplicated timestamps: "
        f"{int(frame['timestamp'].duplicated().sum()) if len(frame) else '-'}; "
        f"corrupted input: exit {bad[0]}, stderr lines {len(bad[2].splitlines())}; "
        f"median batch wall time {statistics.median(r[3] for r in runs):.1f} s\n"
    )

    # 4. UI -------------------------------------------------------------------------------
    if not args.no_ui:
        target = Path(args.screenshot or work / "mlflow_ui.png")
        t0 = time.perf_counter()
        shot = screenshot_ui(uri, tracker.experiment_id, comparison_name, target)
        print(f"## 4. MLflow UI\n\nscreenshot: {shot} ({time.perf_counter() - t0:.0f} s)\n")
    print(
        f"open it yourself: `mlflow ui --backend-store-uri {uri}` then "
        f"http://127.0.0.1:5000/#/experiments/{tracker.experiment_id}/runs"
        "?workflowType=machine_learning"
    )


if __name__ == "__main__":
    main()
