import io
import logging
import re
import sys

import pytest

from forecast.cli import main
from forecast.evaluation.backtest import backtest
from forecast.evaluation.compare import compare
from forecast.models.baselines import SeasonalNaive
from forecast.models.recurrent import GRUForecaster
from forecast.training.progress import log_to_stderr, progress_context
from tests.conftest import make_series

EPOCH = re.compile(
    r"^(?P<label>.+): epoch (?P<k>\d+)/(?P<n>\d+) train_loss=(?P<train>\S+) "
    r"val_loss=(?P<val>\S+) \((?P<s>[\d.]+) s\)$"
)


def tiny_gru(**kw):
    params = dict(
        context_length=24, horizon=6, hidden_size=4, max_epochs=2, batch_size=32, random_state=0
    )
    return GRUForecaster(**{**params, **kw})


def messages(caplog, logger):
    return [r.getMessage() for r in caplog.records if r.name == logger]


def test_verbose_fit_logs_one_line_per_epoch(caplog):
    df = make_series(24 * 8)
    with caplog.at_level(logging.INFO, logger="forecast"):
        model = tiny_gru(verbose=1).fit(df)
    lines = messages(caplog, "forecast.training")
    assert len(lines) == 3 and lines[-1].startswith("training: trained 2 epoch(s) in ")
    for epoch, line in enumerate(lines[:2]):
        m = EPOCH.match(line)
        assert m, line
        assert (m["label"], int(m["k"]), int(m["n"])) == ("training", epoch + 1, 2)
        # the numbers logged are the ones the model recorded
        assert m["train"] == f"{model.history_['train_loss'][epoch]:.4g}"
        assert m["val"] == f"{model.history_['val_loss'][epoch]:.4g}"


def test_quiet_fit_and_silenced_context_log_nothing(caplog):
    df = make_series(24 * 8)
    with caplog.at_level(logging.INFO, logger="forecast"):
        tiny_gru(max_epochs=1).fit(df)  # verbose=0
        with progress_context(report=False):
            tiny_gru(max_epochs=1, verbose=1).fit(df)
    assert messages(caplog, "forecast.training") == []


def test_terminal_gets_a_bar_instead_of_log_lines(caplog, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setenv("COLUMNS", "100")
    with caplog.at_level(logging.INFO, logger="forecast"):
        tiny_gru(verbose=1).fit(make_series(24 * 8))
    assert messages(caplog, "forecast.training") == []
    drawn = stream.getvalue()
    assert "training:" in drawn and "1/2" in drawn and "2/2" in drawn and "val_loss=" in drawn


def test_compare_names_model_fold_and_epochs(caplog):
    df = make_series(24 * 12, tz="UTC")
    models = {"weekly": SeasonalNaive(season="1D"), "gru": tiny_gru()}
    with caplog.at_level(logging.INFO, logger="forecast"):
        res = compare(models, df, horizon=6, start="2023-01-10", refit_every=6, metrics=["mae"])
    n_fits = len(res.results["gru"].folds)
    assert n_fits == 2
    folds = messages(caplog, "forecast.evaluation.backtest")
    expected = [
        f"compare: model {k}/2 {name}: fitting on {rows} rows (fold {i + 1}/{n_fits})"
        for k, name in ((1, "weekly"), (2, "gru"))
        for i, rows in enumerate(res.results[name].folds["n_train"])
    ]
    assert folds == expected
    epochs = [EPOCH.match(m) for m in messages(caplog, "forecast.training")]
    labels = [(m["label"], m["k"]) for m in epochs if m]
    assert labels == [
        ("gru fold 1/2", "1"),
        ("gru fold 1/2", "2"),
        ("gru fold 2/2", "1"),
        ("gru fold 2/2", "2"),
    ]
    done = messages(caplog, "forecast.evaluation.compare")
    assert [m.split(":")[1] for m in done] == [" model 1/2 weekly", " model 2/2 gru"]
    mae = res.table.loc["gru", "mae"]
    assert f"mae={mae:.4g}" in done[1] and "peak RSS" in done[1]


def test_compare_without_progress_still_names_models_but_not_epochs(caplog):
    df = make_series(24 * 10, tz="UTC")
    with caplog.at_level(logging.INFO, logger="forecast"):
        compare({"gru": tiny_gru(verbose=1)}, df, horizon=6, start="2023-01-09", progress=False)
    assert messages(caplog, "forecast.training") == []
    assert len(messages(caplog, "forecast.evaluation.backtest")) == 1


def test_backtest_alone_logs_its_folds_by_class_name(caplog):
    df = make_series(24 * 10, tz="UTC")
    with caplog.at_level(logging.INFO, logger="forecast"):
        result = backtest(SeasonalNaive(season="1D"), df, horizon=6, start="2023-01-09")
    rows = result.folds["n_train"].iloc[0]
    assert messages(caplog, "forecast.evaluation.backtest") == [
        f"backtest: SeasonalNaive: fitting on {rows} rows (fold 1/1)"
    ]


def test_log_to_stderr_prints_and_cleans_up(capsys):
    logger = logging.getLogger("forecast")
    before = (list(logger.handlers), logger.level)
    with log_to_stderr():
        logging.getLogger("forecast.evaluation.compare").info("compare: hello")
        logging.getLogger("forecast.evaluation.compare").debug("not shown")
    logging.getLogger("forecast.evaluation.compare").info("after the block")
    assert capsys.readouterr().err == "compare: hello\n"
    assert (list(logger.handlers), logger.level) == before


SPEC = """
name = "tiny"
[data]
path = "{csv}"
[backtest]
horizon = 6
start = "2023-01-09"
target = "load"
[models.daily]
model = "seasonal-naive"
season = "1D"
[models.gru]
model = "gru"
context_length = 24
horizon = 6
hidden_size = 4
max_epochs = 2
verbose = 1
random_state = 0
"""


@pytest.fixture
def spec(tmp_path):
    csv = tmp_path / "load.csv"
    make_series(24 * 10, tz="UTC").rename_axis("timestamp").reset_index().to_csv(csv, index=False)
    path = tmp_path / "spec.toml"
    path.write_text(SPEC.format(csv=csv))
    return path


def test_cli_run_reports_progress_on_stderr(spec, tmp_path, capsys):
    assert main(["run", str(spec), "--output", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    # test period from 2023-01-09 00:00 Berlin time = 2023-01-08 23:00 UTC: 191 hours before
    assert "compare: model 1/2 daily: fitting on 191 rows (fold 1/1)" in err
    assert "compare: model 2/2 gru: fitting on 191 rows (fold 1/1)" in err
    assert [line.split(" train_loss")[0] for line in err if EPOCH.match(line)] == [
        "gru: epoch 1/2",
        "gru: epoch 2/2",
    ]
    assert "| gru" in captured.out and "epoch" not in captured.out


def test_cli_run_quiet_prints_only_the_table(spec, tmp_path, capsys):
    assert main(["run", str(spec), "--output", str(tmp_path / "out"), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # not even the verbose=1 GRU's epochs
    assert "| gru" in captured.out
