"""Integrated gradients of a forecast that its estimator gives as a differentiable function.

An estimator's decomposition hook may answer with a
:class:`~forecast.frames.decomposition.DifferentiableForecast` (the networks: the window and
the forecast steps' known inputs through the roll-out and the inverse scaling,
:mod:`forecast.models.neural_inputs`). Integrated gradients (Captum) integrate the gradient
of its function along the straight path from its baseline inputs to its actual inputs, for
every step and channel of the forecast at once; the attributions add up to the forecast
minus the baseline's forecast up to the integration error of ``n_steps``.
"""

from __future__ import annotations

import numpy as np
import torch

from forecast.attribution._captum import captum_attr
from forecast.frames.decomposition import Decomposition, DifferentiableForecast
from forecast.training.threads import torch_threads

#: Windows per pass of the network while integrating (memory bound).
INTERNAL_BATCH = 512


@torch_threads()  # the thread policy of every prediction
def integrated_gradients(d: DifferentiableForecast, n_steps: int = 64) -> Decomposition:
    """Integrated gradients of one forecast, as its decomposition into the ``G`` inputs.

    Parameters
    ----------
    d : DifferentiableForecast
        What the estimator's hook returned.
    n_steps : int
        Integration steps.

    Returns
    -------
    Decomposition
        Method ``"integrated_gradients"``: the attributions ``(H, C, G)``, the forecast and
        the baseline's forecast ``(H, C)``, in the units of the data.
    """
    horizon, n_c = d.shape
    outputs = horizon * n_c
    with torch.no_grad():
        forecast = d.function(*d.values)[0].cpu().numpy().astype(np.float64)
        base = d.function(*d.baselines)[0].cpu().numpy().astype(np.float64)
    ig = captum_attr().IntegratedGradients(d.function)
    attr = ig.attribute(
        tuple(t.expand(outputs, *t.shape[1:]) for t in d.values),
        baselines=tuple(b.expand(outputs, *b.shape[1:]) for b in d.baselines),
        target=list(range(outputs)),
        n_steps=n_steps,
        internal_batch_size=INTERNAL_BATCH,
    )
    flat = np.concatenate([a.detach().cpu().numpy().reshape(outputs, -1) for a in attr], axis=1)
    return Decomposition(
        method="integrated_gradients",
        baseline_text=d.baseline_text,
        kind=d.kind,
        name=d.name,
        time=d.time,
        step=d.step,
        contributions=flat.astype(np.float64).reshape(horizon, n_c, -1),
        forecast=forecast.reshape(horizon, n_c),
        baseline=base.reshape(horizon, n_c),
    )
