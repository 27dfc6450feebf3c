"""The thread policy: its decisions on a fake machine, and fits that restore torch's setting."""

from __future__ import annotations

import pytest
import torch

from forecast.models.recurrent import GRUForecaster
from forecast.training import threads
from forecast.training.callbacks import Callback
from forecast.training.threads import (
    _proc_stat,
    choose_threads,
    resolve_threads,
    set_threads,
    torch_threads,
)
from tests.conftest import make_series


@pytest.mark.parametrize(
    ("setting", "current", "cpus", "busy", "env_set", "expected"),
    [
        ("auto", 2, 2, 0.0, False, 2),  # idle two-core machine: torch's default
        ("auto", 2, 2, 2.0, False, 1),  # both cores busy: one thread, never zero
        ("auto", 2, 2, 1.0, False, 1),  # one core free
        ("auto", 2, 2, 0.4, False, 2),  # a core less than half busy counts as free
        ("auto", 2, 2, 0.6, False, 1),  # more than half busy: taken
        ("auto", 8, 16, 3.4, False, 8),  # never more than torch's setting
        ("auto", 16, 16, 3.6, False, 12),  # 16 cores, 3.6 busy: 12 free
        ("auto", 2, 2, 9.0, False, 1),  # an overloaded machine: still one
        ("auto", 4, 4, 4.0, True, 4),  # OMP_NUM_THREADS set: the user's choice stands
        (3, 8, 2, 2.0, False, 3),  # a fixed number wins over everything
        (None, 5, 2, 2.0, False, 5),  # None: torch's own setting
    ],
)
def test_policy_decisions_on_a_fake_machine(setting, current, cpus, busy, env_set, expected):
    got = choose_threads(setting, current=current, cpus=cpus, busy=busy, env_set=env_set)
    assert got == expected


@pytest.mark.parametrize("bad", [0, -1, 1.5, "two", True])
def test_bad_settings_are_refused_with_the_value(bad):
    with pytest.raises(ValueError, match="threads must be 'auto', None or an int >= 1"):
        choose_threads(bad, current=2, cpus=2, busy=0.0)
    with pytest.raises(ValueError, match=repr(bad).replace(".", r"\.")):
        with set_threads(bad):
            pass


def test_proc_stat_sums_idle_and_iowait_of_the_allowed_cores(tmp_path, monkeypatch):
    stat = tmp_path / "stat"
    stat.write_text(
        "cpu  30 0 10 60 0 0 0 0 0 0\n"
        "cpu0 10 0 5 20 5 0 0 0 0 0\n"  # idle 20 + iowait 5 of 40
        "cpu1 20 0 5 40 0 0 0 0 0 0\n"  # idle 40 of 65
        "cpu2 1 1 1 1 1 1 1 1 0 0\n"
        "intr 12345\n"
    )
    monkeypatch.setattr(threads, "PROC_STAT", str(stat))
    assert _proc_stat({0, 1}) == (65.0, 105.0)
    assert _proc_stat({2}) == (2.0, 8.0)
    assert _proc_stat({7}) is None


def test_auto_resolves_from_the_measured_load(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(threads, "process_cpus", lambda: 2)
    monkeypatch.setattr(threads, "busy_cores", lambda: 2.0)
    monkeypatch.setattr(threads, "_cache", {})
    assert resolve_threads("auto", current=2) == 1
    monkeypatch.setattr(threads, "busy_cores", lambda: 0.0)
    assert resolve_threads("auto", current=2) == 1  # measured at most every CACHE_SECONDS
    monkeypatch.setattr(threads, "_cache", {})
    assert resolve_threads("auto", current=2) == 2
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    monkeypatch.setattr(threads, "busy_cores", lambda: 2.0)
    monkeypatch.setattr(threads, "_cache", {})
    assert resolve_threads("auto", current=2) == 2


def test_torch_threads_sets_and_restores_and_nested_blocks_decide_afresh():
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(3)
        with torch_threads(1) as outer:
            assert outer == torch.get_num_threads() == 1
            with torch_threads(None) as inner:  # capped by torch's 3, not by the outer 1
                assert inner == torch.get_num_threads() == 3
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 3
        with set_threads(2), torch_threads() as n:
            assert n == torch.get_num_threads() == 2
        assert torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(before)


class _Threads(Callback):
    def __init__(self):
        self.seen = []

    def on_epoch_end(self, epoch, logs):
        self.seen.append(torch.get_num_threads())


def test_a_fit_uses_the_policy_and_restores_torch_threads():
    df = make_series(24 * 8)
    model = GRUForecaster(context_length=24, horizon=6, hidden_size=4, max_epochs=2)
    before = torch.get_num_threads()
    record = _Threads()
    try:
        torch.set_num_threads(1)
        with set_threads(2):
            model.fit(df, callbacks=[record])
        assert torch.get_num_threads() == 1
        torch.set_num_threads(2)
        with set_threads(1):
            model.fit(df, callbacks=[record])
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert record.seen == [2, 2, 1, 1]
