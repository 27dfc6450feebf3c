"""The input options a forecaster may declare, read in one place.

A forecaster that takes covariates, calendar features or a NaN policy declares them as
constructor parameters with the names of :class:`FrameOptions`; one that does not declare an
option gets its default here. :meth:`FrameOptions.of` is how the estimator base reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

# the values of nan_policy: refuse missing input values, or interpolate them. Here, in a module
# that imports no pandas, because `forecast batch --nan-policy` offers them before pandas loads
NAN_POLICIES = ("raise", "interpolate")


@dataclass(frozen=True)
class FrameOptions:
    """How a forecaster's input frames are read.

    Attributes
    ----------
    future_covariates, past_covariates : list of str or None
        Columns known for the forecast steps, and columns observed up to the last row only.
    calendar : bool
        Add calendar features (hour, weekday, day of year) as future-known inputs.
    country : str or None
        Holiday calendar of the calendar features (``"DE"``, ``"DE-BY"``).
    timezone : str or None
        Local time zone of the calendar features (default: the data's own).
    fill_gaps : bool
        Insert missing timestamps as NaN rows (then interpolated).
    nan_policy : {"raise", "interpolate"}
        What to do with NaN/inf values in the history.
    """

    future_covariates: Any = None
    past_covariates: Any = None
    calendar: Any = False
    country: Any = None
    timezone: Any = None
    fill_gaps: Any = False
    nan_policy: Any = "raise"

    @classmethod
    def of(cls, estimator: object) -> FrameOptions:
        """Return the options ``estimator`` declares (the defaults for the ones it does not)."""
        return cls(**{f.name: getattr(estimator, f.name, f.default) for f in fields(cls)})

    def covariates(self) -> tuple[list[str], list[str]]:
        """Return the declared ``(future, past)`` covariate columns.

        Raises
        ------
        ValueError
            If a column is declared both future and past.
        """
        future = list(self.future_covariates or [])
        past = list(self.past_covariates or [])
        both = set(future) & set(past)
        if both:
            raise ValueError(f"columns {sorted(both)} are declared both future and past covariates")
        return future, past

    def policy(self) -> str:
        """Return the NaN policy in force (``fill_gaps`` implies ``"interpolate"``)."""
        return "interpolate" if self.fill_gaps else self.nan_policy
