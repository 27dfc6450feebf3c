"""``weights.safetensors``: its header checked against the model before anything is built.

A safetensors file starts with the length of a JSON header (8 bytes, little endian) listing
every tensor's dtype, shape and byte range. :func:`read_header` checks that header alone
(strict JSON, known dtypes, ranges that tile the data exactly). :func:`restore_modules`
then builds the estimator's modules under an allocation budget derived from the header:
parameters such as ``hidden_size`` cannot make the build allocate more than the weights
file holds (a folder claiming ``hidden_size=8000`` with a few kilobytes of weights is
refused before its first matrix is allocated). The built shapes must equal the header's,
and the weights must be finite, before the estimator is returned.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load as from_safetensors

# torch's dispatch hook for factory calls (no public hook sees them); torch >= 1.13 has it
# and forecast requires torch >= 2.2
from torch.utils._python_dispatch import TorchDispatchMode

from forecast.persistence.errors import ModelFormatError
from forecast.persistence.files import strict_json
from forecast.persistence.manifest import VerifiedFiles

__all__ = ["MAX_HEADER", "WEIGHTS", "header_length", "read_header", "restore_modules"]

WEIGHTS = "weights.safetensors"

MAX_HEADER = 16 << 20  # bytes of the JSON header (safetensors itself allows 100 MB)
_DTYPES = {
    "F64": torch.float64,
    "F32": torch.float32,
    "F16": torch.float16,
    "BF16": torch.bfloat16,
    "I64": torch.int64,
    "I32": torch.int32,
    "I16": torch.int16,
    "I8": torch.int8,
    "U8": torch.uint8,
    "BOOL": torch.bool,
}
_SLACK = 64 << 20  # building may allocate temporaries besides the parameters


def _unreadable(where: Path, detail: str) -> ModelFormatError:
    return ModelFormatError(f"{where}: not a readable safetensors file ({detail})")


def header_length(head: bytes, size: int, where: Path) -> int:
    """Return the header length the first 8 bytes declare, checked against ``size``."""
    if len(head) < 8:
        raise _unreadable(where, "not a readable safetensors file (too short)")
    n = int.from_bytes(head[:8], "little")
    if n > MAX_HEADER or 8 + n > size:
        raise _unreadable(where, f"safetensors header of {n} bytes does not fit the file")
    return n


def read_header(
    head: bytes, size: int, where: Path
) -> dict[str, tuple[torch.dtype, tuple[int, ...]]]:
    """Return tensor name to (dtype, shape) from the header of a safetensors file.

    Parameters
    ----------
    head : bytes
        The file's first bytes: at least the 8-byte length and the header it declares.
    size : int
        The file's size.
    where : Path
        The file named in error messages.

    Raises
    ------
    ModelFormatError
        A header that is not strict JSON, an unknown dtype, a shape that does not fit its
        byte range, or ranges that leave gaps, overlap or pass the end of the file.
    """
    n = header_length(head, size, where)
    if len(head) < 8 + n:
        raise _unreadable(where, "the safetensors header is truncated")
    header = strict_json(head[8 : 8 + n], where, max_values=n)
    if not isinstance(header, dict):
        raise _unreadable(where, "safetensors header is not a JSON object")
    header.pop("__metadata__", None)
    out, ranges = {}, []
    for name, entry in header.items():
        ok = isinstance(entry, dict) and set(entry) == {"dtype", "shape", "data_offsets"}
        shape = entry.get("shape") if ok else None
        offsets = entry.get("data_offsets") if ok else None
        if not (
            ok
            and entry["dtype"] in _DTYPES
            and isinstance(shape, list)
            and all(type(d) is int and d >= 0 for d in shape)
            and isinstance(offsets, list)
            and len(offsets) == 2
            and all(type(o) is int for o in offsets)
        ):
            raise _unreadable(where, f"tensor {name!r} has a malformed header entry")
        dtype = _DTYPES[entry["dtype"]]
        begin, end = offsets
        if end - begin != math.prod(shape) * dtype.itemsize:
            raise _unreadable(where, f"tensor {name!r} of shape {shape} fills no range")
        out[name] = (dtype, tuple(shape))
        ranges.append((begin, end))
    position = 0
    for begin, end in sorted(ranges):
        if begin != position:
            raise _unreadable(where, "tensor byte ranges leave gaps or overlap")
        position = end
    if position != size - 8 - n:
        raise _unreadable(where, "tensor byte ranges do not cover the file")
    return out


def _factory_bytes(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    """Bytes a factory op will allocate, from its arguments (None: not a sized factory)."""
    dtype = kwargs.get("dtype") or torch.get_default_dtype()
    if args and isinstance(args[0], list | tuple) and all(type(d) is int for d in args[0]):
        return math.prod(args[0]) * dtype.itemsize  # empty, zeros, ones, full, rand, ...
    if func.__name__.startswith("eye") and args and all(type(d) is int for d in args):
        return args[0] * (args[1] if len(args) > 1 else args[0]) * dtype.itemsize
    return None


class _Budget(TorchDispatchMode):
    """Refuse any tensor allocation that would take the total past ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit, self.used = limit, 0

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # torch wraps a mode's __torch_dispatch__ in torch._disable_dynamo unless this says
        # False; that wrapper imports torch._dynamo and sympy (2 s) on the first allocation of
        # every load. Nothing is compiled under this mode.
        return False

    def __torch_dispatch__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        planned = _factory_bytes(func, args, kwargs)
        if planned is not None and self.used + planned > self.limit:
            raise MemoryError(f"building the model needs more than the {self.limit} bytes allowed")
        out = func(*args, **kwargs)
        if planned is not None:
            self.used += planned
        return out


def restore_modules(
    estimator: Any, names: list[str], files: VerifiedFiles, path: Path, device: str
) -> None:
    """Check the header, build the modules within budget, compare shapes, load the weights.

    Parameters
    ----------
    estimator : BaseForecaster
        The estimator with its fitted attributes set; it implements ``_build_module()``.
    names : list of str
        The manifest's ``"modules"``.
    files : VerifiedFiles
        The folder's files (:func:`forecast.persistence.manifest.read_verified`): the
        header is read first, the whole file only once the model was built and fits it.
    path : Path
        The folder (the file named in messages is ``path / "weights.safetensors"``).
    device : str
        Device the modules are moved to.

    Raises
    ------
    ModelFormatError
        A malformed header, a build that would allocate more than the file holds (plus
        slack), tensors that do not match the built modules, or non-finite weights.
    """
    where, size = path / WEIGHTS, files.listed[WEIGHTS]["size"]
    n = header_length(files.head(WEIGHTS, 8), size, where)
    head = files.head(WEIGHTS, 8 + n)
    header = read_header(head, size, where)
    for key in header:
        if key.partition(".")[0] not in names:
            raise ModelFormatError(f"{where}: tensor {key!r} belongs to no module in {names}")
    budget = _Budget(2 * size + _SLACK)
    try:
        with budget:
            estimator._build_module()
    except MemoryError as err:
        raise ModelFormatError(f"{where}: the parameters ask for a larger model ({err})") from err
    except (AttributeError, RuntimeError, TypeError, ValueError, KeyError) as err:
        raise ModelFormatError(f"{where}: the model cannot be rebuilt ({err})") from err
    built = {}
    for name in names:
        module = getattr(estimator, name, None)
        if not isinstance(module, torch.nn.Module):
            raise ModelFormatError(f"{where}: {name!r} is not a module of the model")
        for key, tensor in module.state_dict().items():
            built[f"{name}.{key}"] = (tensor.dtype, tuple(tensor.shape))
    if built != header:
        diff = sorted(k for k in set(built) | set(header) if built.get(k) != header.get(k))
        raise ModelFormatError(
            f"{where}: the weights do not fit the model: tensors {diff[:5]} differ in name, "
            "dtype or shape"
        )
    data = files[WEIGHTS]  # read whole and checked against meta.json only now
    if data[: 8 + n] != head:
        raise ModelFormatError(f"{where}: changed while it was being read")
    try:
        tensors = from_safetensors(data)
    except Exception as err:  # safetensors raises its own error types
        raise ModelFormatError(f"{where}: not a readable safetensors file ({err})") from err
    states: dict[str, dict[str, torch.Tensor]] = {name: {} for name in names}
    for key, tensor in tensors.items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise ModelFormatError(f"{where}: tensor {key!r} holds NaN or infinite weights")
        module, _, rest = key.partition(".")
        states[module][rest] = tensor
    try:
        for name in names:
            module = getattr(estimator, name)
            module.load_state_dict(states[name])
            module.to(device)
            module.eval()
    except (RuntimeError, TypeError, ValueError) as err:
        raise ModelFormatError(f"{where}: the weights do not fit the model ({err})") from err
    estimator.device_ = device
