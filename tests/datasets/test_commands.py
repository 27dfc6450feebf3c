import argparse

import pytest

from forecast.datasets.commands import add_data_parser


def parser():
    p = argparse.ArgumentParser(prog="forecast")
    add_data_parser(p.add_subparsers(dest="command", required=True))
    return p


def test_data_list(capsys, tmp_path):
    args = parser().parse_args(["data", "list", "--data-dir", str(tmp_path)])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "entsoe-de" in out and "elecdemand" in out and "available" in out


def test_data_fetch_error_exit_code(capsys, tmp_path):
    args = parser().parse_args(["data", "fetch", "smard-de", "--data-dir", str(tmp_path)])
    assert args.func(args) == 1
    assert "no public download" in capsys.readouterr().err


def test_data_fetch_rejects_unknown_name():
    with pytest.raises(SystemExit):
        parser().parse_args(["data", "fetch", "nope"])
