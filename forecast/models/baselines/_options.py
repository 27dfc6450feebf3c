"""The input options the baselines share, declared once.

Every baseline reads its history through :class:`forecast.base.BaseForecaster` with a NaN
policy and optional gap filling (:class:`InputOptions`); those with regressors also read
future-known columns and a holiday calendar in a local time zone (:class:`CovariateOptions`).
The names are those of :class:`forecast.frames.options.FrameOptions`, which the estimator base
reads; a baseline takes them by deriving from one of these classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from forecast.models.declare import declare_params, param


@declare_params()
class InputOptions:
    """How the history is read: the options every baseline takes (keyword-only)."""

    nan_policy: Literal["raise", "interpolate"] = param(
        default="raise",
        type='{"raise", "interpolate"}',
        doc="""What to do with missing (NaN or infinite) values of the columns read: raise,
        or interpolate them in time.""",
    )
    fill_gaps: bool = param(
        default=False,
        type="bool",
        doc="Insert missing timestamps of the regular index and interpolate them.",
    )


@declare_params()
class CovariateOptions(InputOptions):
    """The options of the baselines with regressors: known columns and the holiday calendar."""

    future_covariates: Sequence[str] | None = param(
        default=None,
        type="list of str or None",
        doc="Columns known in advance, used as regressors at the target time.",
    )
    country: str | None = param(
        default=None,
        type="str or None",
        doc="""Holiday calendar of the calendar features, such as ``"DE"`` or ``"DE-BY"``
        (None: no holidays).""",
    )
    timezone: str | None = param(
        default=None,
        type="str or None",
        doc="Local time zone of the calendar features and the wall clock (None: the index's).",
    )
