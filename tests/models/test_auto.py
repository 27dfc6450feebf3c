"""Every "auto" parameter is resolved once in fit, stored, and read from there ever after."""

import hashlib
import json
import shutil

import numpy as np
import pandas as pd
import pytest

import forecast
from forecast.models import auto
from forecast.models.auto import MOTION_PRESET, resolve_auto
from forecast.models.recurrent import GRUForecaster
from forecast.models.transformer import TransformerForecaster

TINY = dict(context_length=12, horizon=4, hidden_size=4, max_epochs=1, batch_size=32)
RESOLVED = (
    "dropout_",
    "horizon_weight_",
    "input_differences_",
    "normalize_",
    "skip_",
    "train_origins_",
    "tbptt_steps_",
)


def walk(n=200, seed=0):
    rng = np.random.default_rng(seed)
    index = pd.date_range("2024-01-01", periods=n, freq="h")
    values = np.cumsum(rng.standard_normal((n, 2)), axis=0)
    return pd.DataFrame(values, index=index, columns=["a", "b"])


def rehash(path):
    meta = json.loads((path / "meta.json").read_text())
    meta["files"] = {
        p.name: {"size": p.stat().st_size, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        for p in sorted(path.iterdir())
        if p.name != "meta.json"
    }
    (path / "meta.json").write_text(json.dumps(meta))


def weighted(p):
    raw = np.arange(1, 5, dtype=float) ** -p
    return raw / raw.mean()


# The resolution table of forecast.models.neural_params, row by row (horizon 4, n = 200).
TABLE = {
    "sliding": ({}, dict(dropout=0.0, w=None, diff=False, norm=True, skip=True, k=None)),
    "residual": (
        {"residual": True},
        dict(dropout=0.5, w=1.5, diff=True, norm=True, skip=True, k=None),
    ),
    "difference": (
        {"target_transform": "difference"},
        dict(dropout=0.0, w=None, diff=True, norm=False, skip=False, k=None),
    ),
    "tbptt": (
        {"windowing": "tbptt"},
        dict(dropout=0.0, w=None, diff=False, norm=False, skip=False, k=None),
    ),
    "tbptt-residual": (
        {"windowing": "tbptt", "residual": True},
        dict(dropout=0.5, w=1.5, diff=False, norm=False, skip=False, k=None),
    ),
}


@pytest.mark.parametrize("case", sorted(TABLE))
def test_the_resolution_table(case):
    params, want = TABLE[case]
    got = resolve_auto(GRUForecaster(**TINY, **params).get_params(), n_steps=200, head_horizon=4)
    assert got.dropout == want["dropout"]
    if want["w"] is None:
        assert got.horizon_weight is None
    else:
        np.testing.assert_allclose(got.horizon_weight, weighted(want["w"]))
    assert (got.input_differences, got.normalize, got.linear_skip) == (
        want["diff"],
        want["norm"],
        want["skip"],
    )
    assert got.train_origins is want["k"] and got.tbptt_steps == 12


def test_long_data_thins_origins_and_given_values_are_kept():
    params = GRUForecaster(**TINY, residual=True).get_params()
    assert resolve_auto(params, n_steps=30_000, head_horizon=4).train_origins == 3
    given = dict(params, dropout=0.1, input_differences=False, linear_skip=False)
    given.update(normalization=None, horizon_weight=None, train_origins="12:00", tbptt_steps=5)
    got = resolve_auto(given, n_steps=30_000, head_horizon=4)
    assert (got.dropout, got.horizon_weight, got.input_differences) == (0.1, None, False)
    assert (got.normalize, got.linear_skip, got.train_origins) == (False, False, ("12:00",))
    assert got.tbptt_steps == 5


def test_fit_stores_every_resolved_option():
    model = GRUForecaster(**TINY, residual=True, random_state=0).fit(walk())
    assert model.dropout_ == 0.5 and model.input_differences_ is True
    assert model.normalize_ is True and model.skip_ is True
    assert model.train_origins_ is None and model.tbptt_steps_ == 12
    np.testing.assert_allclose(model.horizon_weight_, weighted(1.5))
    assert model.module_.encoder.output_dropout.p == 0.5
    assert model.get_params()["input_differences"] == "auto"  # the parameter is untouched


def test_motion_preset_spells_out_what_residual_switches_on():
    df = walk()
    implicit = GRUForecaster(**TINY, residual=True, random_state=0).fit(df)
    explicit = GRUForecaster(**TINY, **MOTION_PRESET, random_state=0).fit(df)
    for name in RESOLVED:
        np.testing.assert_array_equal(getattr(explicit, name), getattr(implicit, name))
    pd.testing.assert_frame_equal(explicit.predict(6), implicit.predict(6))


def test_nothing_after_fit_rederives_an_option(monkeypatch):
    model = TransformerForecaster(**TINY, n_heads=2, residual=True, random_state=0).fit(walk())
    expected = model.predict(6)
    shapes = {k: v.shape for k, v in model.module_.state_dict().items()}

    def refuse(*args, **kwargs):
        raise AssertionError("an 'auto' was resolved again after fit")

    monkeypatch.setattr("forecast.models.neural.resolve_auto", refuse)
    model.set_params(residual=False, dropout=0.0, input_differences=False, linear_skip=False)
    pd.testing.assert_frame_equal(model.predict(6), expected)
    model._build_module()  # a rebuild follows the fitted attributes, not the new params
    assert {k: v.shape for k, v in model.module_.state_dict().items()} == shapes
    assert model.module_.encoder.blocks[0].drop.p == 0.5


def test_a_loaded_model_reads_the_stored_options_not_its_params(tmp_path, monkeypatch):
    model = GRUForecaster(**TINY, residual=True, random_state=0).fit(walk())
    path = shutil.copytree(model.save(tmp_path / "saved"), tmp_path / "edited")
    params = json.loads((path / "params.json").read_text())
    params.update(dropout=0.0, input_differences=False, horizon_weight=None, linear_skip=False)
    (path / "params.json").write_text(json.dumps(params))
    rehash(path)
    monkeypatch.setattr(auto, "AUTO_RESIDUAL_DROPOUT", 0.25)  # a later rule
    loaded = forecast.load(path, device="cpu")
    assert loaded.get_params()["input_differences"] is False
    for name in RESOLVED:
        np.testing.assert_array_equal(getattr(loaded, name), getattr(model, name))
    assert loaded.module_.encoder.output_dropout.p == 0.5
    pd.testing.assert_frame_equal(loaded.predict(6), model.predict(6))
