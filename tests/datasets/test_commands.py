import pytest

from forecast.cli import build_parser


def parser():
    return build_parser()


def test_data_list(capsys, tmp_path):
    args = parser().parse_args(["data", "list", "--data-dir", str(tmp_path)])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "entsoe-de" in out and "elecdemand" in out and "available" in out


def test_data_fetch_error_exit_code(capsys, tmp_path):
    args = parser().parse_args(["data", "fetch", "smard-de", "--data-dir", str(tmp_path)])
    assert args.func(args) == 1
    assert "no public download" in capsys.readouterr().err


def test_data_fetch_rejects_unknown_name(capsys):
    with pytest.raises(SystemExit):
        parser().parse_args(["data", "fetch", "nope"])
    assert "unknown dataset 'nope'; choose from " in capsys.readouterr().err
