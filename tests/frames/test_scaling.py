"""frames.scaling: target and covariate scalers fitted over all series."""

import numpy as np
import pandas as pd

from forecast.frames.scaling import Scaling
from tests.conftest import make_series


def frames():
    a = make_series(30, channels=2).assign(temp=np.arange(30.0), price=np.arange(30.0) * 2)
    b = make_series(20, channels=2, seed=1).assign(temp=-np.arange(20.0), price=1.0)
    return {"a": a, "b": b}


def test_scalers_are_fitted_on_all_series_stacked():
    scaling = Scaling.fit(frames(), ["y0", "y1"], ["price", "temp"])
    stacked = pd.concat(list(frames().values()))
    np.testing.assert_allclose(scaling.target.mean_, stacked[["y0", "y1"]].mean().to_numpy())
    np.testing.assert_allclose(scaling.covariate.mean_, stacked[["price", "temp"]].mean())
    none = Scaling.fit(frames(), ["y0", "y1"], [], scale_targets=False)
    assert none.target is None and none.covariate is None


def test_unscale_inverts_scale_for_points_and_quantiles():
    f = frames()
    scaling = Scaling.fit(f, ["y0", "y1"], [])
    y = f["a"][["y0", "y1"]].to_numpy()
    scaled = scaling.scale(y)
    assert abs(scaled.mean()) < 1.0
    np.testing.assert_allclose(scaling.unscale(scaled[None]), y[None])  # (n, h, C)
    levels = np.stack([scaled, scaled + 1.0], axis=-1)[None]  # (1, T, C, 2)
    back = scaling.unscale_levels(levels)
    np.testing.assert_allclose(back[..., 0], y[None])
    step = np.broadcast_to(scaling.target.scale_, y.shape)[None]  # +1 scaled unit
    np.testing.assert_allclose(back[..., 1] - back[..., 0], step)
    plain = Scaling(None, None, [])
    assert plain.scale(y) is y and plain.unscale_levels(levels) is levels


def test_covariates_are_scaled_by_name_in_any_order():
    f = frames()
    scaling = Scaling.fit(f, ["y0", "y1"], ["price", "temp"])
    out = scaling.scale_covariates(f["a"], ["temp"])
    sc = scaling.covariate
    np.testing.assert_allclose(out[:, 0], (f["a"]["temp"] - sc.mean_[1]) / sc.scale_[1])
    assert scaling.scale_covariates(f["a"], []).shape == (30, 0)
