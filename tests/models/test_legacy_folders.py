"""Folders from 0.1.0: the resolved options they lack are filled once, by the 0.1.0 rules."""

import hashlib
import json
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import forecast
from forecast.models import auto
from forecast.models.legacy import fill_0_1_0
from forecast.models.recurrent import GRUForecaster

FOLDERS = Path(__file__).resolve().parents[1] / "golden" / "folders"
NEW = ("input_differences_", "train_origins_", "tbptt_steps_")
TINY = dict(context_length=12, horizon=4, hidden_size=4, max_epochs=1, batch_size=32)


def rehash(path):
    meta = json.loads((path / "meta.json").read_text())
    meta["files"] = {
        p.name: {"size": p.stat().st_size, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        for p in sorted(path.iterdir())
        if p.name != "meta.json"
    }
    (path / "meta.json").write_text(json.dumps(meta))


@pytest.fixture
def later_rules(monkeypatch):
    """Change the current rules: what a folder of 0.1.0 resolves to must not follow them.

    ``AUTO_ORIGINS = 10`` would thin the 360 training steps of the golden fits to every
    36th; the dropout of a residual model would become 0.25.
    """

    def refuse(*args, **kwargs):
        raise AssertionError("a loaded model resolved an 'auto' by the current rule")

    monkeypatch.setattr("forecast.models.neural.resolve_auto", refuse)
    monkeypatch.setattr(auto, "AUTO_RESIDUAL_DROPOUT", 0.25)
    monkeypatch.setattr(auto, "AUTO_ORIGINS", 10)


@pytest.mark.parametrize(
    ("name", "differences", "tbptt_steps", "dropout"),
    [
        ("GRUForecaster", False, 24, 0.0),
        ("gru-residual", True, 24, 0.5),  # residual=True, input_differences="auto"
        ("gru-tbptt", False, 12, 0.0),
        ("gru-difference", True, 24, 0.0),  # target_transform="difference"
        ("gru-input-differences", True, 24, 0.0),  # given explicitly
        ("TransformerForecaster", False, 24, 0.0),
    ],
)
def test_a_folder_of_0_1_0_gets_the_old_rules_values(
    name, differences, tbptt_steps, dropout, later_rules
):
    saved = json.loads((FOLDERS / name / "fitted.json").read_text())
    assert not set(NEW) & set(saved)  # written before these attributes existed
    model = forecast.load(FOLDERS / name, device="cpu")
    assert model.input_differences_ is differences
    assert model.train_origins_ is None  # 0.1.0: every step below 12,000 training steps
    assert model.tbptt_steps_ == tbptt_steps and model.dropout_ == dropout
    assert fill_0_1_0(model) == []  # filled once


def test_an_older_folder_without_dropout_and_lead_weights(tmp_path, later_rules):
    path = tmp_path / "older"  # the same folder as saved before the two attributes existed
    older = forecast.load(FOLDERS / "gru-residual", device="cpu")
    del older.dropout_, older.horizon_weight_
    older.save(path)
    assert not {"dropout_", "horizon_weight_"} & set(json.loads((path / "fitted.json").read_text()))
    old = forecast.load(path, device="cpu")
    same = forecast.load(FOLDERS / "gru-residual", device="cpu")
    assert old.dropout_ == 0.5  # 0.1.0: "auto" with residual=True
    np.testing.assert_allclose(old.horizon_weight_, same.horizon_weight_)
    assert old.module_.encoder.output_dropout.p == 0.5
    data = same.train_tail_[None]
    pd.testing.assert_frame_equal(old.predict(6, history=data), same.predict(6, history=data))


def test_the_stride_of_train_origins_from_the_samples_the_scaler_saw():
    model = forecast.load(FOLDERS / "GRUForecaster", device="cpu")
    model.scaler_.n_samples_seen_ = 30_000
    cases = [("auto", "sliding", 3), ("auto", "tbptt", None), ("12:00", "sliding", ("12:00",))]
    for spec, windowing, expected in cases:
        del model.train_origins_
        model.set_params(train_origins=spec, windowing=windowing)
        assert fill_0_1_0(model) == ["train_origins_"]
        assert model.train_origins_ == expected


def test_a_pickle_without_the_new_attributes_is_filled_when_unpickled():
    index = pd.date_range("2024-01-01", periods=120, freq="h")
    df = pd.DataFrame({"y": np.sin(np.arange(120) / 4)}, index=index)
    model = GRUForecaster(**TINY, residual=True, random_state=0).fit(df)
    expected = {name: getattr(model, name) for name in NEW}
    for name in NEW:
        delattr(model, name)
    back = pickle.loads(pickle.dumps(model))
    assert {name: getattr(back, name) for name in NEW} == expected
    assert fill_0_1_0(GRUForecaster(**TINY).fit(df)) == []  # nothing to fill after a fit
