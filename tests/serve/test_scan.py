"""The byte scan of a body: exact depth and container count of any JSON, fed in any chunks."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forecast.serve.payload import PayloadError
from forecast.serve.scan import StructureScan

# strings full of what the scan must see through: quotes, backslashes, brackets, escapes
TRICKY = st.text(alphabet=st.sampled_from('"\\[]{}ab \n\u00e9\U0001f600'), max_size=8)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), TRICKY)
VALUES = st.recursive(
    SCALARS,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(TRICKY, c, max_size=4),
    max_leaves=30,
)


def depth_and_count(value):
    """Nesting depth and number of objects and lists, by walking the value."""
    if isinstance(value, dict | list):
        items = value.values() if isinstance(value, dict) else value
        inner = [depth_and_count(item) for item in items]
        return 1 + max((d for d, _ in inner), default=0), 1 + sum(n for _, n in inner)
    return 0, 0


def feed(text: bytes, cuts, max_depth=10**6, max_containers=10**9):
    scan = StructureScan(max_depth, max_containers)
    bounds = [0, *sorted({c % (len(text) + 1) for c in cuts}), len(text)]
    for start, end in zip(bounds, bounds[1:], strict=False):
        scan.feed(text[start:end])
    return scan


@settings(max_examples=300, deadline=None)
@given(
    body=st.dictionaries(TRICKY, VALUES, max_size=4),
    cuts=st.lists(st.integers(0, 10**6), max_size=12),
    ascii_only=st.booleans(),
    indent=st.sampled_from([None, 0, 2]),
)
def test_depth_and_count_are_exact_whatever_the_chunks(body, cuts, ascii_only, indent):
    text = json.dumps(body, ensure_ascii=ascii_only, indent=indent).encode()
    scan = feed(text, cuts)
    assert (scan.max_seen, scan.containers) == depth_and_count(body)
    assert scan.depth == 0 and scan.size == len(text)


@settings(max_examples=100, deadline=None)
@given(body=st.dictionaries(TRICKY, VALUES, min_size=1, max_size=4), cuts=st.lists(st.integers()))
def test_one_level_or_one_container_too_many_is_refused(body, cuts):
    text = json.dumps(body).encode()
    depth, count = depth_and_count(body)
    feed(text, cuts, max_depth=depth, max_containers=count)  # at the limits: read
    with pytest.raises(PayloadError, match=f"nests deeper than {depth - 1} levels"):
        feed(text, cuts, max_depth=depth - 1)
    with pytest.raises(PayloadError, match=f"more than {count - 1:,} objects and lists"):
        feed(text, cuts, max_containers=count - 1)


@pytest.mark.parametrize("head", [b"[", b" \n\t[", b"[{}]"])
def test_a_list_at_the_top_is_refused_at_its_first_byte(head):
    scan = StructureScan(8, 100)
    scan.feed(b"   ")  # whitespace only: nothing decided yet
    with pytest.raises(PayloadError, match="must be a JSON object with history.*got a list"):
        scan.feed(head)


def test_a_deep_body_is_refused_where_it_passes_the_limit():
    text = b'{"history": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises(PayloadError, match=r"deeper than 8 levels \(at byte 19\)"):
        feed(text, range(0, len(text), 4096), max_depth=8)


@pytest.mark.parametrize(
    "chunks",
    [
        [b'{"a": "\\\\', b'"}'],  # an escaped backslash, then the closing quote: not escaped
        [b'{"a": "\\', b'\\"}'],  # the same, cut inside the pair
        [b'{"a": "\\', b'"[[[["}'],  # an escaped quote: the brackets stay inside the string
        [b'{"a": "\\\\\\', b'"[[[["}'],  # three backslashes: the last escapes the quote
    ],
)
def test_escapes_cut_between_chunks(chunks):
    scan = StructureScan(2, 10)
    for chunk in chunks:
        scan.feed(chunk)
    assert (scan.max_seen, scan.containers, scan.depth) == (1, 1, 0)
    assert json.loads(b"".join(chunks)) is not None  # the cases are valid JSON
