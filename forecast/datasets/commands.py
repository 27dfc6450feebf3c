"""The bodies of ``forecast data list`` and ``forecast data fetch NAME``.

Their parser is in :mod:`forecast.cli` with every other command's (so ``forecast data
--help`` imports neither pandas nor the catalogue); each leaf's ``func`` is one of these.
"""

from __future__ import annotations

import argparse
import sys

from forecast.datasets.catalogue import DATASETS, list_datasets
from forecast.datasets.fetch import fetch

__all__ = ["check_name", "fetch_command", "list_command"]


def list_command(args: argparse.Namespace) -> int:
    """Print the catalogue (``args.data_dir``, ``args.verbose``); return the exit code 0."""
    table = list_datasets(args.data_dir)
    columns = ["name", "available", "path"] + (["source", "licence"] if args.verbose else [])
    print(table[columns].to_string(index=False))
    return 0


def fetch_command(args: argparse.Namespace) -> int:
    """Download dataset ``args.name``; return 0, or 1 after one line on stderr."""
    try:
        folder = fetch(
            args.name,
            args.data_dir,
            force=args.force,
            sha256=args.sha256,
            allow_unverified=args.allow_unverified,
        )
    except (KeyError, ValueError, OSError) as err:
        print(f"forecast data fetch: {err}", file=sys.stderr)
        return 1
    print(f"{args.name}: {folder}")
    return 0


def check_name(name: str) -> str:
    """Return ``name`` if the catalogue has it, else raise a ValueError listing the names."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; choose from {', '.join(sorted(DATASETS))}")
    return name
