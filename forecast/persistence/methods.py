"""``save`` and ``load`` as methods of every estimator (a mixin of ``BaseForecaster``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Self

from forecast.persistence.format import load as load_folder
from forecast.persistence.format import save as save_folder

__all__ = ["SavedFolderMethods"]


class SavedFolderMethods:
    """The methods that write a fitted estimator to a folder and read it back."""

    def save(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Save the fitted estimator to the folder ``path`` (:mod:`forecast.persistence`).

        Parameters
        ----------
        path : str or path-like
            Target folder; its files are data only (JSON, npz, safetensors), never a pickle.
        overwrite : bool, default=False
            Replace an existing saved model folder atomically; without it an existing path
            raises ``FileExistsError``.

        Returns
        -------
        Path
            The folder written.
        """
        return save_folder(self, path, overwrite=overwrite)

    @classmethod
    def load(cls, path: str | os.PathLike[str], device: str | None = None) -> Self:
        """Load an estimator saved with :meth:`save`, optionally onto ``device``.

        Parameters
        ----------
        path : str or path-like
            Folder written by :meth:`save`; it is checked against its manifest first.
        device : str, optional
            ``"auto"`` (default), ``"cpu"``, ``"cuda"`` or ``"cuda:N"`` for torch modules.

        Returns
        -------
        BaseForecaster
            The fitted estimator: an instance of ``cls`` or of a subclass (``TypeError``
            otherwise); ``BaseForecaster.load`` accepts any registered estimator.
        """
        loaded: Self = load_folder(path, device=device, cls=cls)
        return loaded
