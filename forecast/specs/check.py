"""Checking an experiment spec before anything runs: its tables, keys and values.

Every message starts with where the spec came from (its path), so a bad spec fails in
seconds with a clear error rather than after hours of fitting. The format is described in
:mod:`forecast.specs.spec`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from forecast.base import BaseForecaster
from forecast.evaluation.backtest import DEFAULT_METRICS
from forecast.frames.special_days import check_special_days
from forecast.models import get_estimator
from forecast.specs.tune import parse_tune
from forecast.specs.vintages import check_vintages_table

__all__ = ["check_spec", "read_spec"]

_TOP_KEYS = {
    "name", "description", "output", "data", "backtest", "models", "tracking", "plots", "tune",
    "vintages",
}  # fmt: skip
_TRACKING_KEYS = {
    "enabled",
    "experiment",
    "tracking_uri",
    "dataset",
    "log_models",
    "register",
    "alias",
    "select",
}


def read_spec(path: str | Path) -> dict[str, Any]:
    """Read and check an experiment spec.

    Parameters
    ----------
    path : str or Path
        TOML file.

    Returns
    -------
    dict
        The spec, with ``name`` defaulting to the file's stem.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"experiment spec {path} does not exist")
    try:
        spec = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{path}: not valid TOML: {err}") from err
    return check_spec(spec, path, name=path.stem)


def check_spec(
    spec: Mapping[str, Any], source: str | Path = "spec", *, name: str | None = None
) -> dict[str, Any]:
    """Check an experiment spec given as a dict (as :func:`read_spec` returns it).

    Parameters
    ----------
    spec : dict or mapping
        The parsed TOML tables; not modified.
    source : str or Path
        Where the spec came from, the prefix of every error message.
    name : str, optional
        Default of the spec's ``name``; without one the spec must have a ``name``.

    Returns
    -------
    dict
        A shallow copy of ``spec`` with ``name`` set.

    Raises
    ------
    ValueError
        If a table is missing, unknown or invalid; the message starts with ``source``.
    """
    spec = dict(spec)
    unknown = set(spec) - _TOP_KEYS
    if unknown:
        raise ValueError(
            f"{source}: unknown top-level key(s) {sorted(unknown)}; allowed: {sorted(_TOP_KEYS)}"
        )
    for section in ("data", "models"):
        if not isinstance(spec.get(section), dict) or not spec[section]:
            raise ValueError(f"{source}: the [{section}] table is missing or empty")
    for key, params in spec["models"].items():
        if not isinstance(params, dict) or "model" not in params:
            raise ValueError(f'{source}: [models.{key}] needs a `model` key (e.g. model = "lstm")')
    _check_backtest(source, spec.get("backtest", {}))
    if "vintages" in spec:
        check_vintages_table(source, spec["vintages"])
    _check_tracking(source, spec.get("tracking", {}), spec.get("backtest", {}))
    if "tune" in spec:
        _check_tune(source, spec)
    if name is not None:
        spec.setdefault("name", name)
    if not isinstance(spec.get("name"), str) or not spec["name"]:
        raise ValueError(f"{source}: the spec needs a non-empty string `name`")
    return spec


def _check_backtest(path: str | Path, backtest: dict[str, Any]) -> None:
    if "special_days" in backtest:
        try:
            check_special_days(backtest["special_days"])
        except (TypeError, ValueError) as err:
            raise ValueError(f"{path}: [backtest] {err}") from err


def _check_tracking(path: str | Path, tracking: dict[str, Any], backtest: dict[str, Any]) -> None:
    """Check the [tracking] table before anything runs (a bad `select` would fail last)."""
    if not isinstance(tracking, dict):
        raise ValueError(f"{path}: [tracking] must be a table")
    unknown = set(tracking) - _TRACKING_KEYS
    if unknown:
        raise ValueError(
            f"{path}: unknown [tracking] key(s) {sorted(unknown)}; "
            f"allowed: {sorted(_TRACKING_KEYS)}"
        )
    for key in ("register", "alias", "select"):
        if key in tracking and (not isinstance(tracking[key], str) or not tracking[key]):
            raise ValueError(f"{path}: [tracking] {key} must be a non-empty string")
    if "register" not in tracking and "alias" in tracking:
        raise ValueError(f"{path}: [tracking] ['alias'] only apply with `register = <name>`")
    if "register" in tracking and not tracking.get("enabled", False):
        raise ValueError(f"{path}: [tracking] register needs enabled = true")
    if "register" not in tracking and "select" not in tracking:
        return
    # `select` names the comparison's best_model tag and the champion (the same metric)
    # optional: registering needs mlflow (seconds to import); specs without it never import it
    from forecast.tracking.champion import check_select

    columns = list(backtest.get("metrics", DEFAULT_METRICS))
    if "special_days" in backtest:
        columns.append("mape_special")
    try:
        check_select(tracking.get("select", "mape"), columns)
    except ValueError as err:
        raise ValueError(f"{path}: [tracking] {err}") from err


def _check_tune(path: str | Path, spec: dict[str, Any]) -> None:
    """Check the [tune] table (see :mod:`forecast.specs.tune`); Ray is not needed."""
    try:
        settings = parse_tune(spec["tune"], spec["models"], spec.get("backtest", {}))
        cls: type[BaseForecaster] = get_estimator(spec["models"][settings.model]["model"])
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from err
    valid = cls._get_param_names()
    unknown = [k for k in settings.space if k not in valid]
    if unknown:
        raise ValueError(
            f"{path}: [tune.space] {unknown} not parameters of {cls.__name__}; "
            f"valid: {', '.join(valid)}"
        )
