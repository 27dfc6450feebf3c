"""Parameter checks of the neural forecasters, run at the start of ``fit`` (not in ``__init__``)."""

from __future__ import annotations

import numbers

from forecast.frames.quantiles import check_levels
from forecast.training.loop import LOSSES, SCHEDULERS


def check_params(est: object) -> None:
    """Raise ValueError naming the first parameter of ``est`` that is out of range."""

    def integer(name, low=1, optional=False):
        value = getattr(est, name)
        if optional and value is None:
            return
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")

    for name in (
        "context_length",
        "horizon",
        "hidden_size",
        "num_layers",
        "max_epochs",
        "batch_size",
    ):
        integer(name)
    integer("tbptt_steps", optional=True)
    micro = getattr(est, "micro_batch_size", None)
    if micro is not None and (
        isinstance(micro, bool) or not isinstance(micro, numbers.Integral) or micro < 1
    ):
        raise ValueError(f"micro_batch_size must be None or an int >= 1, got {micro!r}")
    integer("early_stopping_patience", optional=True)
    choices = {
        "windowing": ("sliding", "tbptt"),
        "strategy": ("direct", "recursive", "seq2seq"),
        "lr_scheduler": SCHEDULERS,
    }
    for name, allowed in choices.items():
        if getattr(est, name) not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {getattr(est, name)!r}")
    dropout = est.dropout
    if not (isinstance(dropout, str) and dropout == "auto") and not (
        isinstance(dropout, numbers.Real) and not isinstance(dropout, bool) and 0 <= dropout < 1
    ):
        raise ValueError(f"dropout must be in [0, 1) or 'auto', got {dropout!r}")
    if not 0 <= est.validation_fraction < 1:
        raise ValueError(f"validation_fraction must be in [0, 1), got {est.validation_fraction!r}")
    if est.normalization not in ("auto", "window", None):
        raise ValueError(
            f"normalization must be 'auto', 'window' or None, got {est.normalization!r}"
        )
    integer("n_ensemble")
    if est.linear_skip not in ("auto", True, False):
        raise ValueError(f"linear_skip must be 'auto', True or False, got {est.linear_skip!r}")
    differences = getattr(est, "input_differences", False)
    if differences not in ("auto", True, False):
        raise ValueError(f"input_differences must be 'auto', True or False, got {differences!r}")
    if differences is True and est.windowing != "sliding":
        raise ValueError(
            "input_differences=True reads each step's change within a context window; with "
            "windowing='tbptt' use input_differences=False (or 'auto')"
        )
    if getattr(est, "residual", False) not in (True, False):
        raise ValueError(f"residual must be True or False, got {est.residual!r}")
    if getattr(est, "residual", False) and est.reference is not None:
        raise ValueError(
            f"residual=True forecasts changes from the last observed value and "
            f"reference={est.reference!r} from a seasonal value: give only one of them"
        )
    if getattr(est, "validation_series", None) is not None and (est.validation_size is not None):
        raise ValueError(
            "validation_series holds whole series out and validation_size a tail of each: "
            "give only one of them"
        )
    if est.windowing == "tbptt" and (
        est.normalization == "window" or est.reference is not None or est.linear_skip is True
    ):
        raise ValueError(
            "normalization='window', reference and linear_skip need context windows; with "
            "windowing='tbptt' use normalization=None (or 'auto'), reference=None and "
            "linear_skip=False"
        )
    if getattr(est, "quantiles", None) is not None:
        check_levels(est.quantiles)
    transform = getattr(est, "target_transform", None)
    if transform not in (None, "difference"):
        raise ValueError(f"target_transform must be None or 'difference', got {transform!r}")
    if transform is not None:
        clash = {
            "residual=True": getattr(est, "residual", False),
            f"reference={est.reference!r}": est.reference is not None,
            "quantiles": getattr(est, "quantiles", None) is not None,
            "strategy='seq2seq'": est.strategy == "seq2seq",
        }
        for name, present in clash.items():
            if present:
                raise ValueError(
                    f"target_transform={transform!r} forecasts summed step changes from the last "
                    f"observed value; it does not combine with {name}"
                )
    loss = getattr(est, "loss", "mse")  # subclasses written before it may omit it
    if not isinstance(loss, str) or loss not in LOSSES:
        raise ValueError(f"loss must be one of {tuple(LOSSES)}, got {loss!r}")
    if loss != "mse" and getattr(est, "quantiles", None) is not None:
        raise ValueError(
            f"quantiles={est.quantiles!r} trains the pinball loss; loss={loss!r} is for point "
            "forecasts: leave loss='mse' with quantiles"
        )
    if est.strategy == "seq2seq" and est.windowing != "sliding":
        raise ValueError("strategy='seq2seq' needs windowing='sliding' (a decoder per window)")
    if est.strategy == "seq2seq" and getattr(est, "quantiles", None) is not None:
        raise ValueError("strategy='seq2seq' has a point decoder: quantiles must be None")
    patch = getattr(est, "patch_length", 1)  # subclasses written before it may omit it
    if isinstance(patch, bool) or not isinstance(patch, numbers.Integral) or patch < 1:
        raise ValueError(f"patch_length must be an int >= 1, got {patch!r}")
    if est.context_length % patch:
        raise ValueError(
            f"context_length={est.context_length} must be a multiple of "
            f"patch_length={patch} (the encoder reads whole patches)"
        )
    if patch > 1 and est.windowing != "sliding":
        raise ValueError(f"patch_length={patch} needs context windows: use windowing='sliding'")
    if not est.learning_rate > 0:
        raise ValueError(f"learning_rate must be > 0, got {est.learning_rate!r}")
    if est.gradient_clip is not None and not est.gradient_clip >= 0:
        raise ValueError(f"gradient_clip must be None or >= 0, got {est.gradient_clip!r}")
