"""Explanations of forecasts: the contribution of each input to each forecast step.

:func:`forecast.explain` returns a tidy frame (one row per forecast step, target and input) whose
contributions add up to the forecast minus a documented baseline's forecast. Each estimator
says how its forecast decomposes through its ``_decompose`` hook
(:mod:`forecast.frames.decomposition`): its exact terms (the linear-lag model's regressions),
or a differentiable function of its inputs (the neural estimators), explained by integrated
gradients (Captum, the extra ``forecast-toolkit[explain]``); the other estimators are
explained by sampled Shapley values of their forecast.
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
