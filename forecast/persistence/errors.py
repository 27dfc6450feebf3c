"""The one error a saved model folder raises when it cannot be trusted."""

from __future__ import annotations

__all__ = ["ModelFormatError"]


class ModelFormatError(ValueError):
    """A saved model folder is malformed, tampered with, or of an unsupported format."""
