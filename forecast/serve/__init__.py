"""The forecast service: ``forecast serve MODEL_URI`` answers forecasts over HTTP.

``POST /forecast`` takes history rows (ISO-8601 timestamps with UTC offsets, or naive ones
read as :mod:`forecast.frames.requests` says) and answers forecast rows whose timestamps
carry the offsets of the model's zone; ``GET /health`` describes the model. Modules:
:mod:`~forecast.serve.payload` (JSON body to ``predict`` arguments),
:mod:`~forecast.serve.responses` (forecast frame to JSON), :mod:`~forecast.serve.model`
(the model, loaded through the checked loaders), :mod:`~forecast.serve.app` (routes,
errors, request log), :mod:`~forecast.serve.server` (socket and uvicorn) and
:mod:`~forecast.serve.cli` (the command). Only the last is imported by ``forecast serve --help``;
Starlette and uvicorn load when the command runs. ``docs/serving.md`` is the user's guide.
"""

__all__: list[str] = []
