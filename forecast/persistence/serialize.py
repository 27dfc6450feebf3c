"""Typed JSON encoding of estimator state: a closed set of types, never code.

:func:`encode` turns a value into a JSON tree and collects its numeric arrays into a dict
(written as one ``.npz`` file by :func:`arrays_to_bytes`); :func:`decode` rebuilds the value
from the tree and the arrays (read with ``allow_pickle=False`` by :func:`arrays_from_bytes`).
JSON scalars (``None``, bool, int, finite float, str) and lists stand for themselves; every
other value is an object with a ``"$type"`` tag from this closed set:

=============  ============================================================================
tag            value
=============  ============================================================================
``float``      a non-finite float (``"nan"``, ``"inf"``, ``"-inf"``)
``tuple``      a tuple (``items``)
``dict``       a dict with keys of any supported hashable type (``items``: key/value pairs)
``ndarray``    a numpy array of bool, int, float, complex, datetime, timedelta or str
``numpy``      a numpy scalar (kept as a 0-d array, so its dtype is exact)
``offset``     a pandas frequency (``freqstr``, rebuilt with ``to_offset``)
``timestamp``  a ``pd.Timestamp`` (int stamp, unit, time zone name)
``timedelta``  a ``pd.Timedelta`` (int value, unit)
``dtindex``    a ``DatetimeIndex`` (int stamps in its unit, unit, time zone, freq, name)
``range``      a ``RangeIndex`` (start, stop, step, name)
``index``      any other flat ``Index`` of labels (labels, dtype, name)
``frame``      a ``DataFrame`` (index, columns, one array per column)
``scaler``     a fitted scikit-learn ``StandardScaler`` (parameters and fitted arrays)
=============  ============================================================================

A value of any other type raises ``TypeError`` at encoding time, naming where it sits (for
example ``params_[None][0]``). Decoding only ever calls the constructors above, so a file can
at worst describe wrong data, never run code.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset
from sklearn.preprocessing import StandardScaler

TAG = "$type"
_ARRAY_KINDS = "biufcmMU"  # bool, ints, floats, complex, timedelta, datetime, unicode
_INDEX_DTYPES = ("str", "object", "int64", "float64", "bool")
_SCALER_STATE = ("mean_", "var_", "scale_", "n_samples_seen_", "n_features_in_")
_Arrays = Mapping[str, np.ndarray] | None  # the npz members a tree refers to


class DecodeError(ValueError):
    """A JSON tree cannot be decoded; the message says where in the tree."""


class Encoder:
    """Encode values into JSON trees, collecting arrays (``None``: arrays are refused)."""

    def __init__(self, arrays: dict[str, np.ndarray] | None = None) -> None:
        self.arrays = arrays

    def encode(self, value: Any, where: str) -> Any:
        """Return the JSON tree of ``value``; ``where`` names it in error messages."""
        kind = type(value)
        if value is None or kind in (bool, int, str):
            return value
        if kind is float:
            return value if math.isfinite(value) else {TAG: "float", "value": str(value)}
        if kind is list:
            return [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if kind is tuple:
            return {
                TAG: "tuple",
                "items": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)],
            }
        if kind is dict:
            items = [
                [self.encode(k, f"{where} key {k!r}"), self.encode(v, f"{where}[{k!r}]")]
                for k, v in value.items()
            ]
            return {TAG: "dict", "items": items}
        for cls, method in _ENCODERS:
            if isinstance(value, cls):
                return method(self, value, where)
        raise TypeError(
            f"cannot save {where}: type {kind.__module__}.{kind.__qualname__} is not one of the "
            "types a saved model may hold (None, bool, int, float, str, list, tuple, dict, numpy "
            "arrays and scalars, pandas offsets, Timestamp, Timedelta, Index, DataFrame, "
            "StandardScaler)"
        )

    def array(self, value: np.ndarray, where: str) -> str:
        """Store ``value`` and return its key in the npz file."""
        if self.arrays is None:
            raise TypeError(f"cannot save {where}: arrays are not allowed here")
        if value.dtype.kind not in _ARRAY_KINDS or value.dtype.hasobject:
            raise TypeError(
                f"cannot save {where}: numpy dtype {value.dtype} is not supported (numbers, "
                "booleans, datetimes and unicode strings are; object arrays are not)"
            )
        key = f"a{len(self.arrays)}"
        self.arrays[key] = value if value.flags.c_contiguous else value.copy(order="C")
        return key

    # ---------------------------------------------------------- typed values
    def _ndarray(self, value: np.ndarray, where: str) -> dict[str, Any]:
        return {TAG: "ndarray", "array": self.array(value, where)}

    def _numpy(self, value: np.generic, where: str) -> dict[str, Any]:
        return {TAG: "numpy", "array": self.array(np.asarray(value), where)}

    def _offset(self, value: pd.offsets.BaseOffset, where: str) -> dict[str, Any]:
        freq = value.freqstr
        try:
            same = to_offset(freq) == value
        except ValueError:
            same = False
        if not same:
            raise TypeError(f"cannot save {where}: frequency {value!r} has no string form")
        return {TAG: "offset", "freq": freq}

    def _timestamp(self, value: pd.Timestamp, where: str) -> dict[str, Any]:
        tz = _tz_name(value.tz, where)
        return {TAG: "timestamp", "ns": int(value.value), "unit": value.unit, "tz": tz}

    def _timedelta(self, value: pd.Timedelta, where: str) -> dict[str, Any]:
        return {TAG: "timedelta", "ns": int(value.value), "unit": value.unit}

    def _index(self, value: pd.Index, where: str) -> dict[str, Any]:
        name = self.encode(value.name, f"{where}.name")
        if isinstance(value, pd.DatetimeIndex):
            tz = _tz_name(value.tz, where)
            stamps = self.array(value.asi8, f"{where} (timestamps)")
            freq = None if value.freq is None else self._offset(value.freq, f"{where}.freq")["freq"]
            return {
                TAG: "dtindex",
                "array": stamps,
                "unit": value.unit,
                "tz": tz,
                "freq": freq,
                "name": name,
            }
        if type(value) is pd.RangeIndex:
            bounds = {k: int(getattr(value, k)) for k in ("start", "stop", "step")}
            return {TAG: "range", **bounds, "name": name}
        if type(value) is not pd.Index or str(value.dtype) not in _INDEX_DTYPES:
            raise TypeError(
                f"cannot save {where}: {type(value).__name__} of dtype {value.dtype} (flat "
                f"indexes of dtype {', '.join(_INDEX_DTYPES)} and DatetimeIndex are supported)"
            )
        labels = [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value.tolist())]
        return {TAG: "index", "labels": labels, "dtype": str(value.dtype), "name": name}

    def _frame(self, value: pd.DataFrame, where: str) -> dict[str, Any]:
        columns = [
            self.array(value.iloc[:, i].to_numpy(), f"{where} column {c!r}")
            for i, c in enumerate(value.columns)
        ]
        return {
            TAG: "frame",
            "index": self._index(value.index, f"{where}.index"),
            "columns": self._index(value.columns, f"{where}.columns"),
            "data": columns,
        }

    def _scaler(self, value: StandardScaler, where: str) -> dict[str, Any]:
        if type(value) is not StandardScaler:
            raise TypeError(f"cannot save {where}: {type(value).__name__} is not a StandardScaler")
        fitted = {k for k in vars(value) if k.endswith("_") and not k.startswith("_")}
        unknown = fitted - set(_SCALER_STATE) - {"feature_names_in_"}
        if unknown:
            raise TypeError(
                f"cannot save {where}: StandardScaler has unknown state {sorted(unknown)}"
            )
        state = {k: getattr(value, k) for k in _SCALER_STATE if k in fitted}
        if "feature_names_in_" in fitted:
            state["feature_names_in_"] = [str(n) for n in value.feature_names_in_]
        return {
            TAG: "scaler",
            "params": self.encode(value.get_params(), f"{where} parameters"),
            "state": self.encode(state, where),
        }


_ENCODERS: tuple[tuple[type, Callable[[Encoder, Any, str], dict[str, Any]]], ...] = (
    (np.ndarray, Encoder._ndarray),
    (np.generic, Encoder._numpy),
    (pd.offsets.BaseOffset, Encoder._offset),
    (pd.Timestamp, Encoder._timestamp),
    (pd.Timedelta, Encoder._timedelta),
    (pd.Index, Encoder._index),
    (pd.DataFrame, Encoder._frame),
    (StandardScaler, Encoder._scaler),
)


def _tz_name(tz: Any, where: str) -> str | None:
    if tz is None:
        return None
    name = str(tz)
    try:
        ok = pd.Timestamp(0, tz=name).utcoffset() == pd.Timestamp(0, tz=tz).utcoffset()
    except (ValueError, TypeError, KeyError):
        ok = False
    if not ok:
        raise TypeError(f"cannot save {where}: time zone {tz!r} cannot be stored by name")
    return name


def encode(value: Any, where: str, arrays: dict[str, np.ndarray] | None = None) -> Any:
    """Return the JSON tree of ``value``; arrays go into ``arrays`` (None: refused).

    Raises
    ------
    TypeError
        If ``value`` holds a type outside the closed set; the message names ``where``.
    """
    return Encoder(arrays).encode(value, where)


# ------------------------------------------------------------------ decoding
def decode(node: Any, arrays: Mapping[str, np.ndarray] | None = None, where: str = "value") -> Any:
    """Rebuild the value of a JSON tree written by :func:`encode`.

    Raises
    ------
    ValueError
        If the tree is malformed, names an unknown type or a missing array; the message says
        where in the tree.
    """
    if node is None or type(node) in (bool, int, float, str):
        return node
    if type(node) is list:
        return [decode(v, arrays, f"{where}[{i}]") for i, v in enumerate(node)]
    if type(node) is not dict:
        raise DecodeError(f"{where}: unexpected JSON value {node!r}")
    tag = node.get(TAG)
    method = _DECODERS.get(tag) if isinstance(tag, str) else None
    if method is None:
        raise DecodeError(f"{where}: unknown type tag {tag!r}")
    try:
        return method(node, arrays, where)
    except DecodeError:
        raise
    except (KeyError, TypeError, ValueError, OverflowError) as err:
        raise DecodeError(f"{where}: malformed {tag!r} entry ({err})") from err


def _field(node: dict[str, Any], key: str, kinds: tuple[type, ...]) -> Any:
    value = node[key]
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        raise TypeError(f"field {key!r} has type {type(value).__name__}")
    return value


def _array(node: dict[str, Any], arrays: _Arrays, key: str = "array") -> np.ndarray:
    name = _field(node, key, (str,))
    if arrays is None or name not in arrays:
        raise KeyError(f"array {name!r} is missing")
    return arrays[name]


def _d_float(node: dict[str, Any], arrays: _Arrays, where: str) -> float:
    text = _field(node, "value", (str,))
    if text not in ("nan", "inf", "-inf"):
        raise ValueError(f"{text!r} is not a non-finite float")
    return float(text)


def _d_tuple(node: dict[str, Any], arrays: _Arrays, where: str) -> tuple[Any, ...]:
    return tuple(
        decode(v, arrays, f"{where}[{i}]") for i, v in enumerate(_field(node, "items", (list,)))
    )


def _d_dict(node: dict[str, Any], arrays: _Arrays, where: str) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for pair in _field(node, "items", (list,)):
        if type(pair) is not list or len(pair) != 2:
            raise ValueError(f"dict item {pair!r} is not a key/value pair")
        key = decode(pair[0], arrays, f"{where} key")
        out[key] = decode(pair[1], arrays, f"{where}[{key!r}]")  # TypeError if unhashable
    return out


def _d_numpy(node: dict[str, Any], arrays: _Arrays, where: str) -> Any:
    value = _array(node, arrays)
    if value.ndim:
        raise ValueError(f"a numpy scalar must be a 0-d array, got shape {value.shape}")
    return value[()]


def _d_offset(node: dict[str, Any], arrays: _Arrays, where: str) -> pd.offsets.BaseOffset:
    return to_offset(_field(node, "freq", (str,)))


def _unit(node: dict[str, Any]) -> Literal["s", "ms", "us", "ns"]:
    unit = _field(node, "unit", (str,))
    if unit not in ("s", "ms", "us", "ns"):
        raise ValueError(f"unknown time unit {unit!r}")
    return unit


def _d_timestamp(node: dict[str, Any], arrays: _Arrays, where: str) -> pd.Timestamp:
    tz = node["tz"]
    stamp = pd.Timestamp(_field(node, "ns", (int,)), unit="ns", tz=None if tz is None else "UTC")
    return (stamp if tz is None else stamp.tz_convert(_field(node, "tz", (str,)))).as_unit(
        _unit(node)
    )


def _d_timedelta(node: dict[str, Any], arrays: _Arrays, where: str) -> pd.Timedelta:
    return pd.Timedelta(_field(node, "ns", (int,)), unit="ns").as_unit(_unit(node))


def _d_dtindex(node: dict[str, Any], arrays: _Arrays, where: str) -> pd.DatetimeIndex:
    stamps = _array(node, arrays)
    if stamps.dtype != np.int64 or stamps.ndim != 1:
        raise ValueError(f"timestamps must be a 1-d int64 array, got {stamps.dtype} {stamps.shape}")
    index = pd.DatetimeIndex(
        stamps.view(f"M8[{_unit(node)}]"), name=decode(node["name"], arrays, f"{where}.name")
    )
    if node["tz"] is not None:
        index = index.tz_localize("UTC").tz_convert(_field(node, "tz", (str,)))
    if node["freq"] is not None:
        index = pd.DatetimeIndex(index, freq=to_offset(_field(node, "freq", (str,))))
    return index


def _d_index(node: dict[str, Any], arrays: _Arrays, where: str) -> pd.Index:
    dtype = _field(node, "dtype", (str,))
    if dtype not in _INDEX_DTYPES:
        raise ValueError(f"index dtype {dtype!r} is not supported")
    labels = decode(_field(node, "labels", (list,)), arrays, f"{where} labels")
    return pd.Index(labels, dtype=dtype, name=decode(node["name"], arrays, f"{where}.name"))


def _d_range(node: dict[str, Any], arrays: _Arrays, where: str) -> pd.RangeIndex:
    start, stop, step = (_field(node, k, (int,)) for k in ("start", "stop", "step"))
    return pd.RangeIndex(start, stop, step, name=decode(node["name"], arrays, f"{where}.name"))


def _d_frame(node: dict[str, Any], arrays: _Arrays, where: str) -> pd.DataFrame:
    index = decode(_field(node, "index", (dict,)), arrays, f"{where}.index")
    columns = decode(_field(node, "columns", (dict,)), arrays, f"{where}.columns")
    data = [_array({"array": key}, arrays) for key in _field(node, "data", (list,))]
    if len(data) != len(columns) or any(a.shape != (len(index),) for a in data):
        raise ValueError(
            f"{len(data)} column arrays do not fit {len(columns)} columns x {len(index)} rows"
        )
    frame = pd.DataFrame(dict(enumerate(data)), index=index) if data else pd.DataFrame(index=index)
    frame.columns = columns
    return frame


def _d_scaler(node: dict[str, Any], arrays: _Arrays, where: str) -> StandardScaler:
    params = decode(_field(node, "params", (dict,)), arrays, f"{where} parameters")
    state = decode(_field(node, "state", (dict,)), arrays, where)
    if not isinstance(params, dict) or not isinstance(state, dict):
        raise ValueError("parameters and state must be dicts")
    unknown = set(params) - set(StandardScaler._get_param_names())
    unknown |= set(state) - set(_SCALER_STATE) - {"feature_names_in_"}
    if unknown:
        raise ValueError(f"unknown StandardScaler fields {sorted(unknown, key=str)}")
    scaler = StandardScaler(**params)
    for key, value in state.items():
        if key == "feature_names_in_":
            value = np.asarray([str(v) for v in value], dtype=object)
        setattr(scaler, key, value)
    return scaler


_DECODERS: dict[str, Callable[[dict[str, Any], _Arrays, str], Any]] = {
    "float": _d_float,
    "tuple": _d_tuple,
    "dict": _d_dict,
    "ndarray": lambda node, arrays, where: _array(node, arrays),
    "numpy": _d_numpy,
    "offset": _d_offset,
    "timestamp": _d_timestamp,
    "timedelta": _d_timedelta,
    "dtindex": _d_dtindex,
    "index": _d_index,
    "range": _d_range,
    "frame": _d_frame,
    "scaler": _d_scaler,
}


# -------------------------------------------------------------------- arrays
def arrays_to_bytes(arrays: Mapping[str, np.ndarray]) -> bytes:
    """Return the ``.npz`` file holding ``arrays`` (uncompressed)."""
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **arrays)
    return buffer.getvalue()


def arrays_from_bytes(data: bytes) -> dict[str, np.ndarray]:
    """Read every array of an ``.npz`` file, refusing pickled (object) arrays."""
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        return {name: npz[name] for name in npz.files}
