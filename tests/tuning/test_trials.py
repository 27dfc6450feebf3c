import math
from types import SimpleNamespace

import pytest

from forecast.specs.tune import TuneSettings
from forecast.tuning import trials as T

# Validation losses per epoch of six trials, run one at a time in this order. ASHA with
# grace_period 1 and reduction_factor 2 has rungs at epochs 1, 2, 4, ...; a trial reaching
# a rung is stopped when its loss is above the median of the losses recorded there by the
# trials before it (hand-computed below).
CURVES = [
    [1.0, 0.8, 0.6],  # alone at rungs 1 and 2: goes on
    [2.0, 0.1, 0.1],  # rung 1: 2.0 > median{1.0}: stopped after 1 epoch
    [0.9, 0.7, 0.65],  # rung 1: 0.9 <= median{1.0, 2.0} = 1.5; rung 2: 0.7 <= 0.8: goes on
    [1.2, 0.1, 0.1],  # rung 1: 1.2 > median{1.0, 2.0, 0.9} = 1.0: stopped after 1 epoch
    [0.95, 0.85, 0.1],  # rung 1: 0.95 <= 1.1; rung 2: 0.85 > median{0.8, 0.7}: stopped after 2
    [0.5, 0.4, 0.3],  # below every median: goes on
]
EXPECTED = [
    ("FINISHED", 3),
    ("STOPPED", 1),
    # the old final report counted as epoch 4, a rung where 0.65 > 0.6 (trial 0) would have
    # stopped this finished trial
    ("FINISHED", 3),
    ("STOPPED", 1),
    ("STOPPED", 2),
    ("FINISHED", 3),
]


def _settings(**kw) -> TuneSettings:
    base = dict(
        model="gru",
        space={"x": ("uniform", [0.0, 1.0])},
        validation_start="2023-02-13",
        validation_end="2023-02-15",
        num_samples=len(CURVES),
        grace_period=1,
        reduction_factor=2,
        max_concurrent=1,
        seed=0,
    )
    return TuneSettings(**{**base, **kw})


def test_asha_stops_the_same_trials_for_the_same_curves(ray_local, tmp_path):
    def crafted_trial(config: dict) -> None:
        """Report the curve of the trial's position, then a final report like a sweep's."""
        from ray import tune as ray_tune  # optional: Ray

        position = int(ray_tune.get_context().get_trial_id().rsplit("_", 1)[-1])
        reporter = T.EpochReporter()
        for epoch, loss in enumerate(CURVES[position]):
            reporter.on_epoch_end(epoch, {"train_loss": loss, "val_loss": loss})
        ray_tune.report(T.final_report({"mape": 10.0 * position}, reporter))

    settings = _settings()  # max_concurrent = 1: one trial after another, in order
    grid = T.make_tuner(crafted_trial, settings, tmp_path).fit()
    table, configs = T.trials_table(grid, settings)
    table = table.sort_values("trial_id").reset_index(drop=True)
    assert list(zip(table["status"], table["epochs"], strict=True)) == EXPECTED
    finished = table["status"] == "FINISHED"
    assert list(table.loc[finished, "mape"]) == [0.0, 20.0, 50.0]
    assert list(table.loc[finished, "val_loss"]) == [0.6, 0.65, 0.3]  # the last epoch's
    assert table.loc[~finished, "mape"].isna().all()
    assert all(type(c["x"]) is float and 0 <= c["x"] <= 1 for c in configs)  # plain floats


class _FakeResult(SimpleNamespace):
    pass


def test_trials_table_reports_the_epochs_run_and_the_status():
    settings = _settings(space={"lr": ("loguniform", [1e-3, 1e-2])})
    grid = [
        # finished: 2 epoch reports, then the final one (Tune's training_iteration is 3)
        _FakeResult(
            metrics={
                "trial_id": "a",
                "mape": 5.0,
                "val_loss": 0.2,
                "epochs": 2,
                "training_iteration": 3,
            },
            config={"lr": 0.001},
            error=None,
            path="/x/a",
        ),
        # stopped by ASHA after its first epoch report
        _FakeResult(
            metrics={"trial_id": "b", "epoch": 1, "val_loss": 0.9, "training_iteration": 1},
            config={"lr": 0.002},
            error=None,
            path="/x/b",
        ),
        # failed before any report
        _FakeResult(metrics={}, config={"lr": 0.003}, error=ValueError("bad\nmore"), path="/x/c"),
        # a model without epochs (a baseline): no val_loss to speak of
        _FakeResult(
            metrics={"trial_id": "d", "mape": 7.0, "val_loss": math.nan, "epochs": 0},
            config={"lr": 0.004},
            error=None,
            path="/x/d",
        ),
    ]
    table, configs = T.trials_table(grid, settings)
    assert list(table["trial_id"]) == ["a", "b", "c", "d"]
    assert list(table["status"]) == ["FINISHED", "STOPPED", "FAILED", "FINISHED"]
    assert list(table["epochs"]) == [2, 1, 0, 0]
    assert table.loc[2, "error"] == "ValueError: bad"
    assert configs == [{"lr": 0.001}, {"lr": 0.002}, {"lr": 0.003}, {"lr": 0.004}]


def test_the_final_report_carries_no_epoch_so_asha_never_reads_it_as_one(monkeypatch):
    ray_tune = pytest.importorskip("ray.tune")
    reports = []
    monkeypatch.setattr(ray_tune, "report", reports.append)
    logged = []
    reporter = T.EpochReporter(lambda metrics, step: logged.append((step, metrics)))
    reporter.on_epoch_end(0, {"train_loss": 2.0, "val_loss": 1.5})
    reporter.on_epoch_end(1, {"train_loss": 1.0})  # no validation data: the training loss
    final = T.final_report({"mape": 3.0}, reporter)
    assert reports == [
        {"epoch": 1, "val_loss": 1.5, "train_loss": 2.0},
        {"epoch": 2, "val_loss": 1.0, "train_loss": 1.0},
    ]
    assert logged == [(1, {"train_loss": 2.0, "val_loss": 1.5}), (2, {"train_loss": 1.0})]
    assert final == {"mape": 3.0, "val_loss": 1.0, "epochs": 2}
    assert T.TIME_ATTR not in final
    scheduler = T.make_scheduler(_settings(grace_period=3, reduction_factor=4))
    assert (scheduler._time_attr, scheduler._metric) == ("epoch", "val_loss")
    trial = SimpleNamespace(trial_id="t")
    assert scheduler.on_trial_result(None, trial, {"val_loss": 9.0, **final}) == "CONTINUE"
