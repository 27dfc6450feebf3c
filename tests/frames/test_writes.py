"""The one write rule: never an input, never a file the toolkit did not write."""

import os

import pytest

from forecast.frames.writes import WriteRefused, refuse_foreign, refuse_inputs, same_file


def test_same_file_through_links_dots_and_hard_links(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("x\n")
    (tmp_path / "link.csv").symlink_to(a)
    os.link(a, tmp_path / "hard.csv")
    assert same_file(a, tmp_path / "link.csv")
    assert same_file(a, tmp_path / "sub" / ".." / "a.csv")
    assert same_file(a, tmp_path / "hard.csv")
    assert not same_file(a, tmp_path / "b.csv")


def test_refuse_inputs_names_both_options(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("x\n")
    refuse_inputs(tmp_path / "out.csv", {"--input": data, "--future": None}, "--output")
    with pytest.raises(WriteRefused, match=r"--lock .*data.csv is the --input file .*data.csv"):
        refuse_inputs(data, {"--input": data}, "--lock")
    assert data.read_text() == "x\n"


def test_refuse_foreign_keeps_what_is_not_ours(tmp_path):
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    mine.write_text("ours\n")
    theirs.write_text("notes\n")
    ours = lambda path: path.read_text() == "ours\n"  # noqa: E731
    refuse_foreign(mine, ours, "a thing")  # ours: may be replaced
    refuse_foreign(tmp_path / "missing", ours, "a thing")  # nothing there
    with pytest.raises(WriteRefused, match=r"theirs exists and is not a thing written by forecast"):
        refuse_foreign(theirs, ours, "a thing")
    (tmp_path / "link").symlink_to(mine)  # a link is never ours, whatever it points at
    with pytest.raises(WriteRefused, match="link exists"):
        refuse_foreign(tmp_path / "link", ours, "a thing")
    assert isinstance(WriteRefused("x"), FileExistsError)
    assert theirs.read_text() == "notes\n" and mine.read_text() == "ours\n"
