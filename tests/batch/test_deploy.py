"""The scheduling examples in deploy/: valid units, a cron line that fires once a day at 12:05
Berlin time, and ``forecast batch`` options the command accepts."""

import configparser
import os
import re
import shlex
import shutil
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from forecast.batch.cli import arguments
from forecast.batch.cli_args import OneLineParser

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
SERVICE, TIMER, CRON = (DEPLOY / f"forecast-batch.{kind}" for kind in ("service", "timer", "cron"))
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
BERLIN = ZoneInfo("Europe/Berlin")


def unit(path):
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # systemd keys are case-sensitive
    text = re.sub(r"\\\n\s*", " ", path.read_text())  # join continued lines
    parser.read_string(text)
    return parser


def batch_args(words):
    """Parse the words after ``forecast batch`` with the command's own parser."""
    parser = OneLineParser(prog="forecast batch")
    arguments(parser)
    return parser.parse_args(words)


def cron_entry():
    lines = [line for line in CRON.read_text().splitlines() if line and not line.startswith("#")]
    entries = [line for line in lines if "=" not in line.split()[0]]
    assert len(entries) == 1, entries
    fields = entries[0].split(None, 5)
    return fields[:5], fields[5]


def test_service_runs_the_batch_with_a_lock_and_a_staleness_limit():
    service = unit(SERVICE)["Service"]
    assert service["Type"] == "oneshot"
    words = shlex.split(service["ExecStart"])
    assert words[0].endswith("/forecast") and words[1] == "batch"
    args = batch_args(words[2:])
    assert args.model == "models:/power-load-de@champion" and args.horizon == "day-ahead"
    assert args.timezone == "Europe/Berlin" and args.lock and args.max_staleness is not None


def test_timer_fires_at_1205_in_berlin_with_the_zone_in_the_schedule():
    timer = unit(TIMER)
    assert timer["Timer"]["OnCalendar"] == "*-*-* 12:05:00 Europe/Berlin"
    assert timer["Timer"]["Unit"] == SERVICE.name
    assert timer["Install"]["WantedBy"] == "timers.target"


def test_cron_line_has_no_cron_tz_and_fires_once_a_day_at_1205_berlin():
    text = CRON.read_text()
    assert not any(line.startswith("CRON_TZ") for line in text.splitlines())
    (minute, hours, *_), command = cron_entry()
    assert minute == "5" and "TZ=Europe/Berlin" in command
    guard = re.match(r'\[ "\$\(TZ=Europe/Berlin date \+\\%H\)" = (\d+) \]', command)
    assert guard, command
    # a UTC system starts the job at each listed hour; the guard passes when Berlin says 12
    day, fired = datetime(2026, 1, 1, tzinfo=ZoneInfo("UTC")), []
    while day.year == 2026:
        starts = [day.replace(hour=int(h), minute=int(minute)) for h in hours.split(",")]
        passed = [t for t in starts if t.astimezone(BERLIN).strftime("%H") == guard.group(1)]
        assert len(passed) == 1, day  # exactly one run a day, DST days included
        assert passed[0].astimezone(BERLIN).strftime("%H:%M") == "12:05"
        fired.append(passed[0])
        day += timedelta(days=1)
    assert len(fired) == 365


def test_cron_command_parses_and_its_guard_runs_in_a_shell():
    _, command = cron_entry()
    shell = command.replace("\\%", "%")  # cron turns \% into %
    words = shlex.split(shell.split(" && ", 2)[2].split(" >> ")[0])
    assert words[0] == "TZ=Europe/Berlin" and words[2] == "batch"
    args = batch_args(words[3:])
    assert args.lock and args.max_staleness is not None
    guard = shell.split(" && ")[0]
    expected = datetime.now(BERLIN).strftime("%H") == "12"
    assert (subprocess.run(["sh", "-c", guard]).returncode == 0) == expected


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze not installed")
def test_units_pass_systemd_analyze_verify(tmp_path):
    forecast = Path(sys.executable).with_name("forecast")  # ExecStart must exist to verify
    if not forecast.is_file():
        pytest.skip(f"{forecast} not installed (pip install -e .)")
    text = SERVICE.read_text().replace("/srv/forecast/.venv/bin/forecast", str(forecast))
    (tmp_path / SERVICE.name).write_text(text.replace("/srv/forecast", str(tmp_path)))
    shutil.copy(TIMER, tmp_path / TIMER.name)
    proc = subprocess.run(
        [SYSTEMD_ANALYZE, "verify", *(str(tmp_path / p.name) for p in (SERVICE, TIMER))],
        capture_output=True,
        text=True,
        timeout=60,
    )
    # verify warns about bad settings (an unknown Type=, a bad OnCalendar=) without failing
    assert proc.returncode == 0 and proc.stdout + proc.stderr == "", proc.stderr
    calendar = subprocess.run(
        [SYSTEMD_ANALYZE, "calendar", unit(TIMER)["Timer"]["OnCalendar"]],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TZ": "UTC"},
    )
    assert calendar.returncode == 0, calendar.stderr
    assert re.search(r"Next elapse: .* 1[01]:05:00 UTC", calendar.stdout), calendar.stdout
