"""Links into the MLflow UI: an experiment's runs table sorted by the selection metric.

What the MLflow UI (3.17) reads from a link, found in its built sources
(``mlflow/server/js/build``):

- the query keys ``searchFilter``, ``orderByKey``, ``orderByAsc``, ``startTime``,
  ``lifecycleFilter``, ``modelVersionFilter`` and ``datasetsFilter`` (the search facets).
  ``orderByKey=metrics.`mape``` sorts the runs, but the columns shown are not among them:
  they are per-browser state, and a fresh browser shows Source, Models and Dataset only;
- ``workflowType`` (``genai`` or ``machine_learning``): which side of the UI to show. Without
  it, or a choice the browser remembers, an experiment opens on the GenAI overview, whatever
  its ``mlflow.experimentKind`` tag says;
- ``viewStateShareKey=<id>``: a saved view, stored as the experiment tag
  ``mlflow.sharedViewState.<id>`` (what the UI's **Views** → **Save as new view** writes).
  A view holds the search facets *and* the selected columns, so the link shows the metric.

:func:`runs_view_url` writes such a view (sorted by a metric, the metric and the
``best_model`` tag as columns) and returns the link with ``workflowType=machine_learning``;
:func:`runs_link_line` is the line ``forecast run`` and ``forecast score`` print with it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, urlencode, urlparse

if TYPE_CHECKING:
    from mlflow import MlflowClient

__all__ = ["runs_link_line", "runs_view_url", "ui_base_url", "view_state"]

VIEW_TAG_PREFIX = "mlflow.sharedViewState."
DEFAULT_UI_URL = "http://127.0.0.1:5000"  # where ``mlflow ui`` and ``mlflow server`` listen


def ui_base_url(tracking_uri: str) -> str:
    """Return the address of the MLflow UI for a store.

    Parameters
    ----------
    tracking_uri : str
        The store: a tracking server (``http(s)://...``) serves its own UI; for a database
        or folder, ``mlflow ui --backend-store-uri <uri>`` serves it at
        ``http://127.0.0.1:5000``.

    Returns
    -------
    str
        The UI's address, without a trailing slash.
    """
    if tracking_uri.startswith(("http://", "https://")):
        return tracking_uri.rstrip("/")
    return DEFAULT_UI_URL


def _column(kind: str, name: str) -> str:
    return f"{kind}.`{name}`"  # the UI's column key, e.g. metrics.`mape`


def view_state(
    metric: str, columns: Sequence[str] = (), tags: Sequence[str] = ("best_model",)
) -> dict[str, object]:
    """Return the state of a runs-table view sorted by ``metric``, lowest first.

    Parameters
    ----------
    metric : str
        Metric to sort by; its column comes first.
    columns : sequence of str
        Further metrics shown as columns.
    tags : sequence of str
        Tags shown as columns after the metrics.

    Returns
    -------
    dict
        Search facets and selected columns, as the MLflow UI saves them.
    """
    metrics = [metric, *(c for c in columns if c != metric)]
    selected = [_column("metrics", m) for m in metrics] + [_column("tags", t) for t in tags]
    return {
        "searchFilter": "",
        "orderByKey": _column("metrics", metric),
        "orderByAsc": True,
        "selectedColumns": selected,
    }


def runs_view_url(
    client: MlflowClient,
    experiment_id: str,
    metric: str,
    columns: Sequence[str] = (),
    base_url: str | None = None,
) -> str:
    """Save a view of the runs sorted by ``metric`` on the experiment; return its link.

    The view is the experiment tag ``mlflow.sharedViewState.forecast-by-<metric>`` (listed
    under **Views** in the UI as "sorted by <metric>"), rewritten with the same creation time
    when it exists. The link opens the experiment's training runs (not the GenAI
    overview) with the metric's column, sorted lowest first.

    Parameters
    ----------
    client : MlflowClient
        Client of the store.
    experiment_id : str
        The experiment.
    metric : str
        Metric to sort by (lower is better).
    columns : sequence of str
        Further metrics shown.
    base_url : str, optional
        Address of the UI; default :func:`ui_base_url` of the client's store.

    Returns
    -------
    str
        ``<base>/#/experiments/<id>/runs?workflowType=machine_learning&viewStateShareKey=...``.
    """
    key = "forecast-by-" + "".join(c if c.isalnum() or c in "-_." else "-" for c in metric)
    tag = VIEW_TAG_PREFIX + key
    now = int(time.time() * 1000)
    created = now
    old = client.get_experiment(experiment_id).tags.get(tag)
    if old:
        try:
            created = int(json.loads(old)["createdAt"])
        except (ValueError, KeyError, TypeError):
            pass
    envelope = {
        "name": f"sorted by {metric}",
        "createdAt": created,
        "updatedAt": now,
        "state": json.dumps(view_state(metric, columns)),
    }
    client.set_experiment_tag(experiment_id, tag, json.dumps(envelope))
    base = base_url.rstrip("/") if base_url else ui_base_url(client.tracking_uri)
    query = urlencode({"workflowType": "machine_learning", "viewStateShareKey": key})
    return f"{base}/#/experiments/{quote(str(experiment_id))}/runs?{query}"


def _absolute_store(tracking_uri: str) -> str:
    """Return ``tracking_uri`` with a relative database file or folder made absolute."""
    prefix = "sqlite:///"
    if tracking_uri.startswith(prefix):
        rest = tracking_uri[len(prefix) :]
        return prefix + str(Path(rest).resolve()) if rest and rest != ":memory:" else tracking_uri
    parsed = urlparse(tracking_uri)
    if tracking_uri.startswith("databricks") or parsed.scheme not in ("", "file") or parsed.netloc:
        return tracking_uri
    return Path(parsed.path or tracking_uri).resolve().as_uri()


def runs_link_line(label: str, url: str, tracking_uri: str) -> str:
    """Return the one line that points a reader at a runs view.

    Parameters
    ----------
    label : str
        What the runs are sorted by, e.g. ``"mape"`` or ``"live MAPE"``.
    url : str
        The view's link (:func:`runs_view_url`).
    tracking_uri : str
        The store. A tracking server (``http(s)://``) serves the link itself; for a database
        or a folder the line says which ``mlflow ui`` to start first (the store made
        absolute, so it may be run from any folder).

    Returns
    -------
    str
        ``runs by <label>: <url>``, for a store without a server followed by
        ``(start: mlflow ui --backend-store-uri <store>)``.
    """
    line = f"runs by {label}: {url}"
    if tracking_uri.startswith(("http://", "https://")):
        return line
    return f"{line} (start: mlflow ui --backend-store-uri {_absolute_store(tracking_uri)})"
