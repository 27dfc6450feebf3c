"""The daily loop's state in a saved folder: ``lineage_``, ``n_updates_``, ``updated_through_``.

The manifest lists a summary of the lineage (:func:`lineage_summary`, the form of
:func:`forecast.frames.lineage.summary`); loading checks the three attributes as it checks
every fitted attribute (:func:`forecast.frames.lineage.check_state`) and that the manifest's
summary agrees with them (:func:`check_loop_state`). A folder saved before lineage has none
of them and no summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forecast.frames.lineage import check_state as check_lineage
from forecast.frames.lineage import summary
from forecast.persistence.errors import ModelFormatError
from forecast.persistence.manifest import MANIFEST
from forecast.persistence.trees import FITTED

__all__ = ["check_loop_state", "lineage_summary"]

_LOOP_STATE = ("lineage_", "n_updates_", "updated_through_")


def lineage_summary(estimator: Any) -> dict[str, Any]:
    """``{"lineage": ...}``: the fit and updates the state has seen (none before lineage)."""
    records = getattr(estimator, "lineage_", None)
    if not isinstance(records, list):
        return {}
    n_updates = getattr(estimator, "n_updates_", 0)
    through = getattr(estimator, "updated_through_", None)
    return {"lineage": summary(records, n_updates, through)}


def check_loop_state(estimator: Any, manifest: dict[str, Any], path: Path) -> None:
    """Refuse a loaded lineage that is malformed or disagrees with the manifest's summary."""
    present = [hasattr(estimator, name) for name in _LOOP_STATE]
    if not any(present) and "lineage" not in manifest:
        return  # saved before lineage
    if not all(present):
        missing = [n for n, p in zip(_LOOP_STATE, present, strict=True) if not p]
        raise ModelFormatError(f"{path / FITTED}: the loop's state lacks {missing}")
    try:
        check_lineage(*(getattr(estimator, name) for name in _LOOP_STATE))
    except ValueError as err:
        raise ModelFormatError(f"{path / FITTED}: {err}") from err
    if manifest.get("lineage") != lineage_summary(estimator).get("lineage"):
        raise ModelFormatError(
            f"{path / MANIFEST}: 'lineage' does not agree with the lineage_, n_updates_ and "
            f"updated_through_ of {FITTED}"
        )
