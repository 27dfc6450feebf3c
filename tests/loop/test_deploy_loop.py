"""The daily loop's schedule files in deploy/: every command parses, every timer has a zone."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from forecast.cli import build_parser

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
LOOP = ("shadow", "score", "update", "promote")


def lines(path: Path) -> list[str]:
    return re.sub(r"\\\n\s*", " ", path.read_text()).splitlines()  # continued lines joined


def value(path: Path, key: str) -> list[str]:
    return [line.split("=", 1)[1] for line in lines(path) if line.startswith(f"{key}=")]


@pytest.mark.parametrize("name", LOOP)
def test_each_service_runs_documented_commands_that_parse(name):
    starts = value(DEPLOY / f"forecast-{name}.service", "ExecStart")
    assert starts
    for start in starts:
        words = shlex.split(start.removeprefix("-"))
        assert words[0] == "/srv/forecast/.venv/bin/forecast"
        args = build_parser().parse_args(words[1:])  # the command's own parser
        assert args.command == ("batch" if name == "shadow" else name)
        if args.command in ("batch", "score", "update"):
            assert args.timezone == "Europe/Berlin"
    doc = (DEPLOY.parent / "docs" / "guide" / "daily-loop.md").read_text()
    assert f"deploy/forecast-{name}.service" in doc  # the runbook shows this very file


@pytest.mark.parametrize(
    ("name", "when"),
    [
        ("shadow", "*-*-* 12:10:00 Europe/Berlin"),
        ("score", "*-*-* 11:30:00 Europe/Berlin"),
        ("update", "Mon *-*-* 06:00:00 Europe/Berlin"),
        ("promote", "Mon *-*-* 11:45:00 Europe/Berlin"),
    ],
)
def test_each_timer_names_its_zone_and_its_service(name, when):
    timer = DEPLOY / f"forecast-{name}.timer"
    assert value(timer, "OnCalendar") == [when]
    assert value(timer, "Unit") == [f"forecast-{name}.service"]
    assert value(timer, "Persistent") == ["true"]


def test_the_champion_is_scored_with_the_alert_and_the_challenger_in_shadow():
    score = value(DEPLOY / "forecast-score.service", "ExecStart")
    shadow, champion = (build_parser().parse_args(shlex.split(s.lstrip("-"))[1:]) for s in score)
    assert score[0].startswith("-")  # the shadow's failure does not hide the champion's scores
    assert champion.backtest and champion.model == "models:/power-load-de@champion"
    batch = value(DEPLOY / "forecast-shadow.service", "ExecStart")[0]
    assert shadow.forecasts in batch  # scored where the shadow batch writes
