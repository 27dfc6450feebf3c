"""Outputs never destroy inputs: refuse an output that resolves to an input, before any work.

An output hits an input when both name the same file after :meth:`pathlib.Path.resolve`
(symbolic links, ``..``), or when both exist and are the same file on disk (same
``st_dev`` and ``st_ino``: a hard link). A pattern (``{date}``, ``{stem}``) hits an input
when one of its expansions for this run names that input. The issue date that ``{date}``
becomes is known only after the model is loaded (it is the last *observed* row, in the
model's zone), so any date counts: a pattern that can name an input file is refused
whatever the date, before the model is loaded.

For a partitioned batch, an output file that would be read as an input partition of the
next run (written into the input folder, or matching the input glob) is refused too.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from forecast.batch.files import BatchError
from forecast.frames.writes import file_identity as _identity
from forecast.frames.writes import same_file

__all__ = [
    "check_output_not_input",
    "check_partition_outputs",
    "refuse_same_file",
    "same_file",
]

_DATE = r"\d{4}-\d{2}-\d{2}"


def refuse_same_file(
    output: str | os.PathLike[str], input: str | os.PathLike[str], output_name: str, input_name: str
) -> None:
    """Raise ValueError when ``output`` is the file ``input`` (see :func:`same_file`).

    For the commands outside ``forecast batch`` (``predict``, ``backtest``), whose errors
    are ValueErrors; ``output_name`` and ``input_name`` are their options' names.

    Parameters
    ----------
    output, input : str or path-like
        The two paths.
    output_name, input_name : str
        How the message names them, such as ``"--output"`` and ``"--data"``.
    """
    if same_file(output, input):
        raise ValueError(
            f"{output_name} {os.fspath(output)} is the {input_name} file {os.fspath(input)}: "
            "write the forecast to another file; nothing was done"
        )


def _refuse(
    output: str,
    target: str | os.PathLike[str],
    input: str | os.PathLike[str],
    what: str,
    role: str = "input",
) -> None:
    shown = "" if os.fspath(target) == output else f" ({os.fspath(target)})"
    raise BatchError(
        f"output {output}{shown} {what} {role} {os.fspath(input)}: write the forecast to "
        "another file; nothing was done"
    )


def _pattern_regexes(pattern: str) -> list[re.Pattern[str]]:
    """Regexes of the paths a pattern can expand to (``{date}``: any ``YYYY-MM-DD``).

    One for the absolute pattern, one with its folder resolved (a symbolic link in it).
    """
    spellings = {os.fspath(Path(pattern).absolute())}
    parent = Path(pattern).parent
    if "{" not in os.fspath(parent):
        spellings.add(os.fspath(parent.resolve() / Path(pattern).name))
    return [_regex(text) for text in sorted(spellings)]


def _regex(text: str) -> re.Pattern[str]:
    parts, seen = [], set()
    for piece in re.split(r"(\{date\}|\{stem\})", text):
        if piece in ("{date}", "{stem}"):
            name = piece[1:-1]
            body = _DATE if name == "date" else r"[^/\\]+"
            parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>{body})")
            seen.add(name)
        else:
            parts.append(re.escape(piece))
    return re.compile("".join(parts))


def _match(regexes: list[re.Pattern[str]], name: str) -> re.Match[str] | None:
    return next((m for m in (r.fullmatch(name) for r in regexes) if m), None)


def _names(path: Path) -> set[str]:
    """Return the spellings of ``path`` a pattern is matched against: absolute, resolved."""
    return {os.fspath(path.absolute()), os.fspath(path.resolve())}


def _existing_matches(pattern: str) -> Iterable[Path]:
    """Existing files a pattern can name (for hard links under a pattern's name)."""
    glob = pattern.replace("{date}", "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]")
    glob = glob.replace("{stem}", "*")
    parent = Path(glob).parent
    if any(ch in os.fspath(parent) for ch in "*?["):
        return []  # a pattern in a folder name: the regex above covers it
    if not parent.is_dir():
        return []
    return [p for p in parent.iterdir() if fnmatch.fnmatchcase(p.name, Path(glob).name)]


def check_output_not_input(
    output: str | os.PathLike[str], input: str | os.PathLike[str], role: str = "input"
) -> None:
    """Refuse ``output`` (a file or a ``{date}`` pattern) when it can name ``input``.

    Parameters
    ----------
    output : str or path-like
        Output file, optionally holding ``{date}``.
    input : str or path-like
        The input file.
    role : str, default="input"
        How the message names ``input`` (``"--future"`` for the vintages file).

    Raises
    ------
    BatchError
        Naming both paths.
    """
    text = os.fspath(output)
    if "{date}" not in text:
        if same_file(text, input):
            _refuse(text, text, input, "is the", role)
        return
    regexes = _pattern_regexes(text)
    for name in _names(Path(input)):
        if _match(regexes, name):
            _refuse(text, name, input, "can expand to the", role)
    for path in _existing_matches(text):
        if same_file(path, input):
            _refuse(text, path, input, "can expand to a link to the", role)


def check_partition_outputs(
    output: str | os.PathLike[str],
    inputs: Sequence[tuple[str, Path]],
    outputs: Sequence[Path] | None,
    input_spec: str | os.PathLike[str],
) -> None:
    """Refuse partition outputs that would overwrite an input or become one.

    Parameters
    ----------
    output : str or path-like
        Output folder or ``{stem}`` pattern.
    inputs : sequence of (str, Path)
        The input partitions with their stems (what ``{stem}`` becomes).
    outputs : sequence of Path or None
        Each input's output file, in the order of ``inputs``, when ``output`` holds no
        ``{date}``; None otherwise.
    input_spec : str or path-like
        The ``--input`` folder or glob (to tell whether an output would be read as an input
        by the next run).

    Raises
    ------
    BatchError
        Naming the output and the input it hits.
    """
    text = os.fspath(output)
    identities = {_identity(p): p for _, p in inputs}
    identities.pop(None, None)
    by_name = {name: p for _, p in inputs for name in _names(p)}
    if outputs is not None:
        for (_, source), target in zip(inputs, outputs, strict=True):
            hit = by_name.get(os.fspath(target.resolve())) or identities.get(_identity(target))
            if hit is not None:
                _refuse(text, target, hit, f"for {source.name} is the")
        for target in outputs:  # overwriting is the worse news, so it is reported first
            _check_not_listed(text, target, input_spec)
        return
    stems = dict(inputs)
    regexes = _pattern_regexes(text)
    for name, hit in by_name.items():
        match = _match(regexes, name)
        if match and match.group("stem") in stems:
            source_name = stems[match.group("stem")].name
            _refuse(text, name, hit, f"for {source_name} can expand to the")
    for path in _existing_matches(text):
        if _identity(path) in identities:
            _refuse(text, path, identities[_identity(path)], "can expand to a link to the")
    first = inputs[0][0]
    sample = Path(text.replace("{stem}", first).replace("{date}", "2000-01-01"))
    _check_not_listed(text, sample, input_spec)


def _check_not_listed(output: str, target: Path, input_spec: str | os.PathLike[str]) -> None:
    """Refuse an output file that the next run would list as an input partition."""
    spec = os.fspath(input_spec)
    if Path(spec).is_dir():
        listed = target.parent.resolve() == Path(spec).resolve()
    else:
        listed = target.parent.resolve() == Path(spec).parent.resolve() and (
            fnmatch.fnmatchcase(target.name, Path(spec).name)
        )
    if listed:
        raise BatchError(
            f"output {output} writes {target} among the inputs {spec}: the next run would "
            "read the forecast as an input partition; write the forecasts to another folder; "
            "nothing was done"
        )
