"""The one device resolver: ``"auto"``, ``"cpu"``, ``"cuda"`` or ``"cuda:N"`` to a usable name."""

from __future__ import annotations

import torch


def resolve_device(device: str | torch.device | None) -> str:
    """Return the torch device name to use for ``device``.

    Parameters
    ----------
    device : str, torch.device or None
        ``"auto"`` or None: CUDA when available, else the CPU. ``"cpu"``, ``"cuda"`` or
        ``"cuda:N"``: that device, which must exist.

    Returns
    -------
    str
        ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.

    Raises
    ------
    ValueError
        If ``device`` is not one of these forms, or names a CUDA device this machine lacks.
    """
    if device is None or (isinstance(device, str) and device == "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    if not isinstance(device, str | torch.device):
        raise ValueError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    text = str(device)
    kind, colon, index = text.partition(":")
    if kind not in ("cpu", "cuda") or (colon and (kind == "cpu" or not index.isdigit())):
        raise ValueError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    if kind == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r}: CUDA requested but not available (torch {torch.__version__} "
            "sees no GPU); use device='cpu' or 'auto'"
        )
    if kind == "cuda" and index and int(index) >= torch.cuda.device_count():
        raise ValueError(f"device={device!r}: only {torch.cuda.device_count()} CUDA device(s)")
    return text
