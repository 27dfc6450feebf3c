"""The MLflow run of a partitioned batch: one run for all partitions, failures tagged."""

from __future__ import annotations

import sys
from typing import Any

from forecast.batch.files import _first_line


def log_partitions_run(
    result: Any,
    estimator: Any,
    model: str,
    input: str,
    output: str,
    engine: str,
    tracking_uri: str | None,
    experiment: str,
) -> str | None:
    """Log ``result`` (a PartitionsResult) as one run; return its id, None if logging failed.

    Params: model, input, output, engine; metrics: ``partitions``, ``failed``,
    ``output_rows``; tag ``failed_inputs``: the failed file names, one per line. The run
    ends FAILED when any partition failed. A tracking failure is reported on stderr and
    does not undo the forecasts.
    """
    from forecast.tracking import _runs
    from forecast.tracking._store import client as make_client
    from forecast.tracking._store import ensure_experiment

    try:
        client = make_client(tracking_uri)
        run = client.create_run(
            ensure_experiment(client, experiment),
            run_name=f"batch {len(result.written) + len(result.failed)} partitions",
            tags={"run_kind": "batch-partitions", "model_uri": model},
        )
        run_id = run.info.run_id
        _runs.log_params(client, run_id, {"model": model, "input": input, "output": output})
        _runs.log_params(client, run_id, {"engine": engine})
        _runs.log_tags(client, run_id, _runs.estimator_tags(estimator))
        if result.failed:
            failed = "\n".join(path for path, _ in result.failed)
            _runs.log_tags(client, run_id, {"failed_inputs": failed})
        _runs.log_metrics(
            client,
            run_id,
            {
                "partitions": len(result.written) + len(result.failed),
                "failed": len(result.failed),
                "output_rows": sum(r.rows for r in result.written),
            },
        )
        client.set_terminated(run_id, "FAILED" if result.failed else "FINISHED")
        return run_id
    except Exception as err:
        print(
            f"forecast batch: warning: forecasts written, but tracking failed: {_first_line(err)}",
            file=sys.stderr,
        )
        return None
