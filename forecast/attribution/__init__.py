"""Explanations of forecasts: the contribution of each input to each forecast step.

:func:`forecast.explain` returns a tidy frame (one row per forecast step, target and input) whose
contributions add up to the forecast minus a documented baseline's forecast: integrated
gradients for the neural estimators (Captum, the extra ``forecast-toolkit[explain]``), an
estimator's own decomposition where it has one (its ``_decompose`` hook: the exact regression
terms of the linear-lag model), sampled Shapley values for the other estimators.
:func:`plot_explanation` draws one forecast's attributions. Importing this package does not
import Captum; explaining does.
"""

from forecast.attribution.explain import completeness_gap, explain
from forecast.attribution.plots import plot_explanation, plot_lead_by_input, plot_top_inputs

__all__ = [
    "completeness_gap",
    "explain",
    "plot_explanation",
    "plot_lead_by_input",
    "plot_top_inputs",
]
