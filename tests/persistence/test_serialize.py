"""The typed JSON encoder of saved models: every supported type round-trips exactly."""

import datetime as dt
import io
import json
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.preprocessing import StandardScaler

from forecast.persistence.serialize import (
    DecodeError,
    arrays_from_bytes,
    arrays_to_bytes,
    decode,
    encode,
)


def round_trip(value):
    arrays = {}
    text = json.dumps(encode(value, "value", arrays), allow_nan=False)  # strict JSON
    return decode(json.loads(text), arrays_from_bytes(arrays_to_bytes(arrays)))


def same(a, b):
    """Equal value and exactly equal types, recursively."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            same(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            same(key, next(k for k in b if k == key))
            same(a[key], b[key])
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True, check_freq=True)
        assert a.index.freq == b.index.freq
    elif isinstance(a, pd.Index):
        pd.testing.assert_index_equal(a, b, exact=True)
        assert getattr(a, "freq", None) == getattr(b, "freq", None)
    elif isinstance(a, StandardScaler):
        assert a.get_params() == b.get_params()
        assert sorted(vars(a)) == sorted(vars(b))
        for key, value in vars(a).items():
            same(value, getattr(b, key))
    else:
        assert a == b
        if isinstance(a, np.generic):
            assert a.dtype == b.dtype


SCALARS = [
    None,
    True,
    0,
    -(2**70),
    1.5,
    -0.0,
    float("inf"),
    float("-inf"),
    float("nan"),
    "",
    "zone Europe/Berlin",
    np.float64(2.5),
    np.float32(0.1),
    np.int64(-3),
    np.bool_(True),
    np.str_("x"),
    np.datetime64("2023-01-01T00:00", "s"),
]


@pytest.mark.parametrize("value", SCALARS, ids=[repr(v) for v in SCALARS])
def test_scalars(value):
    same(value, round_trip(value))


def test_containers_keep_tuples_and_key_types():
    value = {
        None: [1, (2, 3.0), {"a": ()}],
        "north": {"smoothing_level": 0.5, "nested": [None, [True]]},
        7: (1, (2, (3,))),
        (1, "b"): [],
        2.5: "float key",
    }
    same(value, round_trip(value))


@pytest.mark.parametrize(
    "array",
    [
        np.arange(6, dtype=np.int64).reshape(2, 3),
        np.array([[1.5, np.nan], [np.inf, -0.0]]),
        np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        np.arange(10.0)[::3],  # not contiguous
        np.array([True, False]),
        np.array([1 + 2j], dtype=np.complex64),
        np.array(["a", "bc"]),
        np.array(["2023-01-01"], dtype="M8[ns]"),
        np.array([5], dtype="m8[s]"),
        np.array(3.0),
        np.zeros((0, 4), dtype=np.uint8),
    ],
)
def test_arrays(array):
    back = round_trip(array)
    same(np.asarray(array), back)


@pytest.mark.parametrize(
    "freq", ["h", "15min", "D", "7D", "W-SUN", "MS", "ME", "B", "QS-DEC", "YE-DEC", "s", "ns"]
)
def test_offsets(freq):
    offset = pd.tseries.frequencies.to_offset(freq)
    back = round_trip(offset)
    assert back == offset and type(back) is type(offset)


def test_offset_without_a_string_form_is_refused():
    with pytest.raises(TypeError, match=r"freq_: frequency <DateOffset: months=1> has no string"):
        encode(pd.DateOffset(months=1), "freq_", {})


@pytest.mark.parametrize("tz", [None, "UTC", "Europe/Berlin", dt.timezone(dt.timedelta(hours=-3))])
def test_timestamps_timedeltas(tz):
    stamp = pd.Timestamp("2023-03-26 01:30", tz=tz).as_unit("s")
    back = round_trip(stamp)
    assert back == stamp and back.unit == "s" and str(back.tz) == str(stamp.tz)
    delta = pd.Timedelta("1D 3h").as_unit("ms")
    back = round_trip(delta)
    assert back == delta and back.unit == "ms"


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize("tz", [None, "UTC", "Europe/Berlin", dt.timezone(dt.timedelta(hours=1))])
def test_datetime_index_across_dst(tz, unit):
    index = pd.date_range("2023-03-25", periods=72, freq="h", tz=tz, unit=unit, name="time")
    same(index, round_trip(index))
    irregular = index[[0, 1, 5]]
    assert irregular.freq is None
    same(irregular, round_trip(irregular))


def test_flat_indexes():
    for index in (
        pd.Index(["load", "tso"], name="column"),
        pd.Index(["a", 1, None], dtype=object),
        pd.Index([3, 1, 2]),
        pd.Index([0.5, 1.5]),
        pd.RangeIndex(2, 11, 3, name="r"),
    ):
        same(index, round_trip(index))


def test_frames_of_every_tail_kind():
    aware = pd.DataFrame(
        {"load": [1.0, 2.0, np.nan], "tso": [0.5, 0.25, 0.125]},
        index=pd.date_range("2023-10-29 00:00", periods=3, freq="h", tz="Europe/Berlin"),
    )
    naive = pd.DataFrame({"y0": [1.0], "y1": [2.0]}, index=pd.DatetimeIndex(["2023-01-01"]))
    mixed = pd.DataFrame(
        {"x": np.arange(3), "flag": [True, False, True], "v": [0.1, 0.2, 0.3]},
        index=pd.date_range("2024", periods=3, freq="15min", unit="s", name="t"),
    )
    empty = aware.iloc[:0]
    no_columns = aware[[]]
    tails = {None: aware, "north": naive, 3: mixed, "empty": empty, "bare": no_columns}
    same(tails, round_trip(tails))


def test_standard_scaler_keeps_its_fitted_arrays_and_transforms_alike():
    x = np.array([[1.0, 10.0], [2.0, 30.0], [4.0, 20.0]])
    frame = pd.DataFrame(x, columns=["load", "tso"])
    for scaler, data in (
        (StandardScaler().fit(x), x),
        (StandardScaler(with_mean=False).fit(x), x),
        (StandardScaler().fit(frame), frame),  # has feature_names_in_
    ):
        back = round_trip(scaler)
        same(scaler, back)
        np.testing.assert_array_equal(back.transform(data), scaler.transform(data))


@pytest.mark.parametrize(
    ("value", "where"),
    [
        (object(), "state_"),
        ({"a": [1, {2: object()}]}, r"state_\['a'\]\[1\]\[2\]"),
        (np.array([1, "a"], dtype=object), "state_"),
        ({1, 2}, "state_"),
        (pd.Series([1.0]), "state_"),
        (pd.DataFrame({"s": pd.array(["a"], dtype="string")}), "state_ column 's'"),
        (pd.MultiIndex.from_tuples([(1, 2)]), "state_"),
        (lambda: 0, "state_"),
    ],
)
def test_unsupported_values_raise_type_error_naming_where(value, where):
    with pytest.raises(TypeError, match=rf"cannot save {where}"):
        encode(value, "state_", {})


def test_arrays_can_be_refused():
    with pytest.raises(TypeError, match="parameter 'lags': arrays are not allowed"):
        encode(np.arange(3), "parameter 'lags'", None)


@pytest.mark.parametrize(
    ("node", "message"),
    [
        ({"$type": "pickle", "data": "..."}, r"value: unknown type tag 'pickle'"),
        ({"no": "tag"}, r"value: unknown type tag None"),
        ([1, {"$type": "os:system"}], r"value\[1\]: unknown type tag 'os:system'"),
        ({"$type": "ndarray", "array": "a9"}, r"malformed 'ndarray' entry .*'a9' is missing"),
        ({"$type": "float", "value": "1e400x"}, "is not a non-finite float"),
        ({"$type": "offset", "freq": "every other Tuesday"}, "malformed 'offset'"),
        ({"$type": "dict", "items": [[[1, 2], 3]]}, "malformed 'dict'"),  # unhashable key
        ({"$type": "index", "labels": [], "dtype": "category", "name": None}, "not supported"),
        (
            {
                "$type": "scaler",
                "params": {"$type": "dict", "items": [["copy", True]]},
                "state": {"$type": "dict", "items": [["__class__", 1]]},
            },
            "unknown StandardScaler fields",
        ),
    ],
)
def test_malformed_trees_raise_decode_error_naming_where(node, message):
    with pytest.raises(DecodeError, match=message):
        decode(node, {})


def test_pickled_object_arrays_in_the_npz_are_refused():
    buffer = io.BytesIO()
    np.savez(buffer, a0=np.array([object()], dtype=object))
    with pytest.raises(ValueError, match="allow_pickle"):
        arrays_from_bytes(buffer.getvalue())
