"""A state machine over the daily loop with injected failures (hypothesis).

Random sequences of fit / update / save / load / batch / score / promote run against one
folder of the loop, with failures injected: a diverging update, a full disk (writes raise
``OSError(ENOSPC)``), a save killed between steps (its temporary folder left beside the
model, as a SIGKILL leaves it), loop state that a load would refuse, impossible scores.
After every step the invariants hold:

- the last good folder always loads and forecasts as it did when it was written;
- the registry (the versions ``forecast update --output`` wrote, registered only when the
  update returned) names only folders that exist and load;
- a failed step leaves the estimator in memory as it was (same forecast, same lineage);
- no temporary of a killed save survives the next save or load;
- the live scores of the stored forecasts equal the backtest's on the same forecasts;
- promotion refuses impossible scores and decides otherwise.

The default run is small (tiny baselines, 10 examples of up to 10 steps); the ``slow`` run
takes more examples and longer sequences, with a tiny LSTM whose update diverges for real.
"""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import forecast
import forecast.persistence.atomic as atomic
from forecast import LSTMForecaster, Naive, SeasonalNaive, backtest
from forecast.batch.files import BatchError
from forecast.batch.run import run_batch
from forecast.evaluation.live import forecast_scores
from forecast.frames.io import TEMPORARY_PREFIX
from forecast.loop.promote import promotion_decision
from forecast.loop.score import score_forecasts
from forecast.loop.update import update_folder
from forecast.persistence.errors import ModelFormatError

ZONE = "Europe/Berlin"
DAY = 24
HOURS = pd.date_range("2024-03-01", periods=DAY * 40, freq="h", tz=ZONE)
DATA = pd.DataFrame(
    {
        "load": 50
        + 5 * np.sin(2 * np.pi * np.arange(len(HOURS)) / DAY)
        + np.random.default_rng(0).normal(0, 0.5, len(HOURS))
    },
    index=HOURS,
)


def _dead_pid() -> int:
    """The pid of a process that has ended (what a killed save's temporary names)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


DEAD_PID = _dead_pid()


def _full_disk(folder: Path, files) -> None:
    """``atomic._write_files`` on a full disk: the first file is written, then ENOSPC."""
    name = next(iter(files))
    (folder / name).write_bytes(b"partial")
    raise OSError(errno.ENOSPC, "No space left on device", str(folder / name))


class LoopMachine(RuleBasedStateMachine):
    """The loop's folders, an estimator in memory, and what the invariants compare with."""

    model_classes: tuple = (Naive, SeasonalNaive)

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="loop-machine-"))
        self.champion = self.root / "models" / "champion"
        self.forecasts = self.root / "forecasts"
        self.live = None  # the estimator in memory
        self.now = 0  # hours of actuals known
        self.good = None  # (forecast of the last good folder)
        self.registry: dict[str, Path] = {}
        self.origins: list[pd.Timestamp] = []
        self.steps = 0

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        LoopMachine.steps_run += self.steps

    steps_run = 0

    # ------------------------------------------------------------------ helpers
    def input_file(self) -> str:
        path = self.root / "latest.csv"
        DATA.iloc[: self.now].rename_axis("timestamp").reset_index().to_csv(path, index=False)
        return str(path)

    def make(self, cls):
        if cls is LSTMForecaster:
            return LSTMForecaster(
                context_length=24, horizon=24, hidden_size=4, max_epochs=1, batch_size=32,
                random_state=0,
            )  # fmt: skip
        return cls(season=DAY) if cls is SeasonalNaive else cls()

    def snapshot(self):
        model = self.live
        return model.predict(DAY), json.dumps(model.lineage_, default=str), model.n_updates_

    def assert_same(self, before) -> None:
        after = self.snapshot()
        pd.testing.assert_frame_equal(after[0], before[0])
        assert after[1:] == before[1:]

    def written(self) -> None:
        """Record the champion folder just written as the last good one."""
        self.good = forecast.load(self.champion).predict(DAY)

    # -------------------------------------------------------------------- rules
    @initialize(
        cls=st.sampled_from([Naive, SeasonalNaive, LSTMForecaster]), days=st.integers(8, 12)
    )
    def fit(self, cls, days):
        cls = cls if cls in self.model_classes else self.model_classes[0]
        self.now = days * DAY
        self.live = self.make(cls).fit(DATA.iloc[: self.now])
        self.live.save(self.champion)
        self.written()

    @rule(days=st.integers(1, 2))
    def actuals_arrive(self, days):
        self.now = min(self.now + days * DAY, len(DATA))
        self.steps += 1

    @rule(diverge=st.booleans())
    def update_in_memory(self, diverge):
        through = self.live.updated_through_
        new = DATA.loc[DATA.index > through].iloc[
            : max(0, self.now - DATA.index.get_loc(through) - 1)
        ]
        if new.empty or (isinstance(self.live, LSTMForecaster) and len(new) < 3 * DAY):
            return  # a network needs windows of 24 + 24 steps besides its validation tail
        before = self.snapshot()
        if diverge:
            with pytest.MonkeyPatch.context() as patch:
                real = type(self.live)._update_frames

                def diverging(est, *args, **kwargs):
                    real(est, *args, **kwargs)  # the state moves, then the update fails
                    est.train_tail_ = {k: f * np.nan for k, f in est.train_tail_.items()}
                    raise RuntimeError("training diverged: injected")

                patch.setattr(type(self.live), "_update_frames", diverging)
                with pytest.raises(RuntimeError, match="diverged"):
                    self.live.update(new)
            self.assert_same(before)
        else:
            self.live.update(new)
            assert self.live.updated_through_ == new.index[-1]
        self.steps += 1

    @rule(failure=st.sampled_from(["none", "full disk", "bad state"]))
    def save(self, failure):
        before = self.snapshot()
        if failure == "none":
            self.live.save(self.champion, overwrite=True)
            self.written()
        elif failure == "full disk":
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(atomic, "_write_files", _full_disk)
                with pytest.raises(OSError) as info:
                    self.live.save(self.champion, overwrite=True)
            assert info.value.errno == errno.ENOSPC
        else:  # state a load would refuse, set by a bug or by hand
            self.live.n_updates_ += 1
            with pytest.raises(ModelFormatError, match="nothing was written"):
                self.live.save(self.champion, overwrite=True)
            self.live.n_updates_ -= 1
        self.assert_same(before)
        assert not self.temporaries()
        self.steps += 1

    @rule()
    def killed_save(self):
        """A save killed after writing its temporary, before the rename (SIGKILL)."""
        tmp = self.champion.with_name(f"{TEMPORARY_PREFIX}champion-{DEAD_PID}-{self.steps:08x}")
        tmp.mkdir(exist_ok=True)
        (tmp / "meta.json").write_text("{")  # half written
        self.steps += 1

    @rule()
    def load(self):
        self.live = forecast.load(self.champion)
        pd.testing.assert_frame_equal(self.live.predict(DAY), self.good)
        assert not self.temporaries()  # the load removed what a killed save left
        self.steps += 1

    @rule(failure=st.sampled_from(["none", "diverge", "full disk"]), new_version=st.booleans())
    def forecast_update(self, failure, new_version):
        """``forecast update`` of the champion folder, into itself or a new version folder."""
        output = self.root / "versions" / f"v{len(self.registry) + 1}" if new_version else None
        target = output or self.champion
        before = forecast.load(self.champion).predict(DAY)
        with pytest.MonkeyPatch.context() as patch:
            if failure == "diverge":
                cls = type(forecast.load(self.champion))

                def diverging(est, *args, **kwargs):
                    raise RuntimeError("training diverged: injected")

                patch.setattr(cls, "_update_frames", diverging)
            elif failure == "full disk":
                patch.setattr(atomic, "_write_files", _full_disk)
            try:
                update_folder(self.champion, self.input_file(), target, timezone=ZONE)
            except BatchError as err:
                message = str(err)
            else:
                message = None
        if failure != "none":
            assert message is not None and "\n" not in message
            pd.testing.assert_frame_equal(forecast.load(self.champion).predict(DAY), before)
            assert output is None or not output.exists()
        elif message is None:
            if output is None:
                self.written()
            else:
                self.registry[output.name] = output  # registered after the folder was written
        else:  # nothing new to learn (or too little for a network): refused, nothing written
            assert "nothing new" in message or "too short" in message, message
            pd.testing.assert_frame_equal(forecast.load(self.champion).predict(DAY), before)
        self.steps += 1

    @precondition(lambda self: self.now < len(DATA) - DAY)
    @rule()
    def batch(self):
        origin = DATA.index[self.now - 1]
        result = run_batch(
            self.champion, self.input_file(), self.forecasts / "{date}.csv", DAY,
            timezone=ZONE, track=False, issue_time=origin + pd.Timedelta("30min"),
        )  # fmt: skip
        if origin not in self.origins:
            self.origins.append(origin)
        assert Path(result.path).exists()
        self.steps += 1

    @precondition(lambda self: len(self.origins) > 0)
    @rule()
    def score(self):
        actuals = self.root / "actuals.csv"
        DATA.iloc[: self.now].rename_axis("timestamp").reset_index().to_csv(actuals, index=False)
        live = score_forecasts(self.forecasts / "{date}.csv", actuals, timezone=ZONE).table
        done = [o for o in self.origins if DATA.index.get_loc(o) + DAY < self.now]
        scored = live[live["status"] == "scored"]
        assert sorted(scored["origin"]) == sorted(done)
        if done and isinstance(self.live, Naive | SeasonalNaive):  # forecasts fit-independent
            model = self.make(type(self.live))
            result = backtest(model, DATA.iloc[: self.now], horizon=DAY, origins=done)
            expected = forecast_scores(result.forecasts, timezone=ZONE)
            for metric in ("mape", "mae", "rmse", "bias", "n"):
                np.testing.assert_allclose(
                    scored.sort_values("origin")[metric], expected[metric], rtol=1e-9
                )
        self.steps += 1

    @rule(bad=st.sampled_from([None, -1.0, float("nan"), float("inf")]))
    def promote(self, bad):
        days = pd.date_range("2024-01-01", periods=6, freq="D")
        table = pd.DataFrame(
            {"issue_date": [str(d.date()) for d in days], "status": "scored", "mape": 3.0}
        )
        challenger = table.assign(mape=2.0)
        if bad is not None:
            challenger.loc[3, "mape"] = bad
        decision = promotion_decision(table, challenger, min_days=3)
        assert decision.refused == (bad is not None)
        assert decision.promote == (bad is None)
        self.steps += 1

    # --------------------------------------------------------------- invariants
    def temporaries(self) -> list[str]:
        folder = self.champion.parent
        return [p.name for p in folder.iterdir() if p.name.startswith(TEMPORARY_PREFIX)]

    @invariant()
    def last_good_folder_loads_and_forecasts_as_before(self):
        if self.good is None:
            return
        with pytest.MonkeyPatch.context() as patch:  # a read: leave killed temporaries be
            patch.setattr("forecast.persistence.format.remove_stale_temporaries", lambda p: [])
            loaded = forecast.load(self.champion)
        pd.testing.assert_frame_equal(loaded.predict(DAY), self.good)

    @invariant()
    def registry_names_only_folders_that_exist(self):
        for path in self.registry.values():
            assert path.is_dir() and forecast.load(path).n_updates_ >= 1


class SlowLoopMachine(LoopMachine):
    """The same loop with a tiny LSTM too, whose update diverges for real (rate 1e30)."""

    model_classes = (Naive, SeasonalNaive, LSTMForecaster)

    @precondition(lambda self: isinstance(self.live, LSTMForecaster))
    @rule()
    def absurd_rate(self):
        new = DATA.loc[DATA.index > self.live.updated_through_].iloc[: DAY * 3]
        if len(new) < DAY * 3:
            return
        before = self.snapshot()
        with pytest.raises(RuntimeError, match="diverged"):
            self.live.update(new, learning_rate=1e30, epochs=2)
        self.assert_same(before)
        self.steps += 1


FAST = settings(
    max_examples=10,
    stateful_step_count=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
SLOW = settings(FAST, max_examples=100, stateful_step_count=30)


def test_the_loop_keeps_its_invariants_under_failures():
    LoopMachine.steps_run = 0
    run_state_machine_as_test(LoopMachine, settings=FAST)
    assert LoopMachine.steps_run > 0
    print(f"loop machine: {LoopMachine.steps_run} steps")  # shown with pytest -s


@pytest.mark.slow
def test_the_loop_keeps_its_invariants_under_failures_long():
    LoopMachine.steps_run = 0
    run_state_machine_as_test(SlowLoopMachine, settings=SLOW)
    print(f"slow loop machine: {LoopMachine.steps_run} steps")
