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

        The folder is a saved model folder of the one format (``meta.json`` listing the
        size and SHA-256 of every file, ``params.json``, ``fitted.json``, ``fitted.npz``)
        whose network is ``model.onnx``; load it with
        :meth:`forecast.onnx.runtime.OnnxForecaster.load`, which forecasts through the same
        frame pipeline as ``predict``, without torch. Needs the extra ``forecast-toolkit[onnx]``.

        Parameters
        ----------
        path : str or path-like
            Folder to create.
        overwrite : bool, default=False
            Replace an existing export folder, one holding the files its manifest lists
            and nothing else; a folder with anything more in it is left as it was.

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
