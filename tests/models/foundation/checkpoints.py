"""Tiny randomly initialised checkpoints, built with each package's own model class.

They exercise the real loading and forecasting code of ``chronos-forecasting`` and
``tirex-ts`` without a download: a few kilobytes of random weights, written in each
package's own checkpoint format (``save_pretrained``; TiRex's ``model.ckpt``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

LEVELS_9 = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
CHRONOS_LEVELS = [0.01, *(round(0.05 * i, 2) for i in range(1, 20)), 0.99]  # as Chronos-2's 21
CONTEXT = 64  # the tiny models' longest context


def tiny_chronos2(folder: Path) -> Path:
    """Write a one-layer Chronos-2 (``Chronos2Model``, random init) to ``folder``."""
    pytest.importorskip(
        "chronos", reason="chronos-forecasting not installed (forecast-toolkit[foundation])"
    )
    from chronos.chronos2 import Chronos2CoreConfig, Chronos2Model

    torch.manual_seed(0)
    config = Chronos2CoreConfig(
        d_model=16,
        d_kv=4,
        d_ff=32,
        num_layers=1,
        num_heads=2,
        chronos_config={
            "context_length": CONTEXT,
            "input_patch_size": 4,
            "input_patch_stride": 4,
            "output_patch_size": 4,
            "quantiles": CHRONOS_LEVELS,
            "use_reg_token": True,
            "use_arcsinh": True,
            "max_output_patches": 16,
        },
        architectures=["Chronos2Model"],
        chronos_pipeline_class="Chronos2Pipeline",
    )
    Chronos2Model(config).save_pretrained(folder)
    return folder


def tiny_tirex(folder: Path) -> Path:
    """Write a one-block TiRex (``TiRexZero``, random init) as ``folder/model.ckpt``."""
    pytest.importorskip("tirex", reason="tirex-ts not installed (forecast-toolkit[foundation])")
    from tirex.models.tirex import TiRexZero

    torch.manual_seed(0)
    hyper = {
        "model_config": {
            "input_patch_size": 8,
            "output_patch_size": 8,
            "quantiles": LEVELS_9,
            "block_kwargs": {"embedding_dim": 16, "num_heads": 2, "num_blocks": 1},
            "input_ff_dim": 32,
        },
        "train_ctx_len": CONTEXT,
    }
    model = TiRexZero(backend="torch", **hyper)
    with torch.no_grad():  # its sLSTM weights are allocated empty (a checkpoint fills them)
        for name, param in model.named_parameters():
            if param.dim() > 1 or name.endswith("_bias_"):
                torch.nn.init.normal_(param, std=0.2)
    folder.mkdir(parents=True, exist_ok=True)
    torch.save({"hyper_parameters": hyper, "state_dict": model.state_dict()}, folder / "model.ckpt")
    return folder
