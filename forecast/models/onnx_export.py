"""``to_onnx``: the ONNX export of a fitted neural forecaster, as a method.

A mixin of :class:`forecast.models.neural.NeuralForecaster`; the export itself is
:func:`forecast.onnx.export.export_onnx`, the runtime :class:`forecast.onnx.runtime.OnnxForecaster`.
"""

from __future__ import annotations

import os
from pathlib import Path

from sklearn.utils.validation import check_is_fitted


class OnnxExportMixin:
    """Adds :meth:`to_onnx` to a neural forecaster."""

    def to_onnx(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Export the fitted network and what a forecast needs to the folder ``path``.

        The folder holds ``model.onnx`` and ``onnx_model.json`` (strict JSON: columns,
        frequency, time zone, scalers, calendar options, shapes); load it with
        :meth:`forecast.onnx.runtime.OnnxForecaster.load`, which forecasts as ``predict``
        does, without torch. Needs the extra ``forecast[onnx]``.

        Parameters
        ----------
        path : str or path-like
            Folder to create.
        overwrite : bool, default=False
            Replace an existing export folder, one holding the export's two files and
            nothing else; a folder with anything more in it is left as it was.

        Returns
        -------
        Path
            The folder written.

        Raises
        ------
        ValueError
            A setting that cannot be exported (named in the message); nothing is written.
        """
        check_is_fitted(self, "module_")
        # optional extra: onnx and onnxruntime are imported only by an export
        from forecast.onnx.export import export_onnx

        return export_onnx(self, path, overwrite=overwrite)
