"""Settings chosen for a task, to pass to a neural forecaster's constructor."""

from __future__ import annotations

from typing import Any

MOTION_SOTA: dict[str, Any] = {}
