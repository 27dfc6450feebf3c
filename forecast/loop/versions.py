"""Which registered model version made a stored forecast: the record of its batch run.

``forecast batch --model models:/name@alias`` resolves the alias before it loads the model and
logs the run with the tags ``registered_model``, ``model_version``, ``model_alias`` (the alias
it resolved; none for ``models:/name/N``) and ``output_sha256`` (the SHA-256 of the file it
wrote) and the param ``output`` (its absolute path). A forecast file is
matched to its batch run by its bytes, so the version of a forecast is the one that made it,
whatever the alias points at when the forecast is scored or a promotion is decided; a file
that no batch run of the store records (``--no-track``, another store, edited by hand) has no
version. When runs of several versions wrote the same bytes, the run that wrote this path
wins, then the latest. :func:`forecast_records` gives the version of each forecast and the
alias it was run under (``forecast score`` logs to the version, ``forecast promote`` counts
the champion's served record by the alias).

Everything here needs MLflow: :mod:`forecast.loop.score_tracking` and
:mod:`forecast.loop.promote` import it when they talk to a store.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.batch.files import BatchError

__all__ = [
    "ALIAS_COLUMN",
    "SHA_COLUMN",
    "VERSION_COLUMN",
    "batch_records",
    "forecast_records",
]

SHA_COLUMN = "file_sha256"  # of a scores table: the SHA-256 of the forecast file scored
VERSION_COLUMN = "model_version"  # the version that made the forecast (None: not recorded)
ALIAS_COLUMN = "model_alias"  # the alias the batch resolved (None: a version named by number)
_PAGE = 1000


def _pages(search: Any, **kwargs: Any) -> Iterator[Any]:
    """Every item of a paged MLflow search."""
    token = None
    while True:
        page = search(max_results=_PAGE, page_token=token, **kwargs)
        yield from page
        token = page.token
        if not token:
            return


_Record = tuple[str, str, int, str | None]  # output path, version, start time in ms, alias


def batch_records(client: Any, name: str) -> dict[str, list[_Record]]:
    """Return the batch runs of registered model ``name`` by the SHA-256 of the file written.

    Parameters
    ----------
    client : MlflowClient
        Client of the store.
    name : str
        Registered model.

    Returns
    -------
    dict
        ``output_sha256 -> [(output path, model version, start time in ms, alias), ...]``,
        the alias None for a batch of ``models:/name/N``.
    """
    if "'" in name:
        raise BatchError(f"registered model name {name!r}: a quote cannot be searched for")
    experiments = [e.experiment_id for e in _pages(client.search_experiments)]
    where = f"tags.run_kind = 'batch' and tags.registered_model = '{name}'"
    records: dict[str, list[_Record]] = {}
    for run in _pages(client.search_runs, experiment_ids=experiments, filter_string=where):
        tags = run.data.tags
        sha, version = tags.get("output_sha256"), tags.get("model_version")
        if sha and version:
            path = run.data.params.get("output", "")
            record = (path, str(version), run.info.start_time or 0, tags.get("model_alias"))
            records.setdefault(sha, []).append(record)
    return records


def _record(records: list[_Record], file: str) -> tuple[str | None, str | None]:
    """``(version, alias)`` of the run that wrote ``file``: this path's, then the latest."""
    if not records:
        return None, None
    if len({(version, alias) for _, version, _, alias in records}) > 1:
        here = str(Path(file).resolve())
        records = [r for r in records if r[0] == here] or records
    found = max(records, key=lambda record: record[2])
    return found[1], found[3]


def forecast_records(client: Any, name: str, table: pd.DataFrame) -> pd.DataFrame:
    """Return the version of ``name`` that made each forecast and the alias it was run under.

    Parameters
    ----------
    client : MlflowClient
        Client of the store.
    name : str
        Registered model.
    table : DataFrame
        Scores per forecast with the columns ``file`` and ``file_sha256``.

    Returns
    -------
    DataFrame
        Aligned with ``table``, the columns ``model_version`` (the version as a string, None
        where no batch run of ``name`` records the file's bytes) and ``model_alias``: the
        alias the batch resolved, None for a batch of ``models:/name/N`` and for a forecast
        no batch run records.

    Raises
    ------
    BatchError
        The table lacks ``file_sha256`` or ``file``.
    """
    if SHA_COLUMN not in table.columns or "file" not in table.columns:
        raise BatchError(
            f"the scores have no {SHA_COLUMN} column, so the version of each forecast is not "
            "known: score them again with this version of forecast score"
        )
    records = batch_records(client, name)
    found = [
        _record(records.get(str(sha), []), str(file))
        for sha, file in zip(table[SHA_COLUMN], table["file"], strict=True)
    ]
    columns = [VERSION_COLUMN, ALIAS_COLUMN]
    return pd.DataFrame(found or None, index=table.index, columns=columns, dtype=object)
