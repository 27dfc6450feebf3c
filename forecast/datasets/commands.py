"""The ``forecast data`` sub-command: ``list`` and ``fetch NAME``.

Wire it into the main parser with::

    from forecast.datasets.commands import add_data_parser
    add_data_parser(subparsers)          # subparsers = parser.add_subparsers(...)
    args = parser.parse_args(argv)
    return args.func(args)
"""

from __future__ import annotations

import argparse
import sys

from forecast.datasets.catalogue import DATASETS, list_datasets
from forecast.datasets.fetch import fetch

__all__ = ["add_data_parser"]


def _cmd_list(args: argparse.Namespace) -> int:
    table = list_datasets(args.data_dir)
    columns = ["name", "available", "path"] + (["source", "licence"] if args.verbose else [])
    print(table[columns].to_string(index=False))
    return 0


def _cmd_fetch(args: argparse.Namespace) -> int:
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


def add_data_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    """Add the ``data`` sub-command (``list``, ``fetch NAME``) to a sub-parser set.

    Parameters
    ----------
    subparsers : argparse sub-parsers action
        From ``parser.add_subparsers()``.

    Returns
    -------
    ArgumentParser
        The ``data`` parser. Each leaf sets ``func``: call ``args.func(args)``, which
        returns the exit code.
    """
    data = subparsers.add_parser(
        "data",
        help="list the dataset catalogue or download a dataset",
        description="List the dataset catalogue or download a dataset.",
        epilog="The data folder is --data-dir, else $FORECAST_DATA_DIR, else ../shared/data,\n"
        "else data/cache (where fetch writes by default).\n\n"
        + _examples("forecast data list -v", "forecast data fetch ett-h1"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = data.add_subparsers(dest="data_command", metavar="{list,fetch}", required=True)

    show = actions.add_parser(
        "list",
        help="show datasets and whether they are available locally",
        description="Show the datasets of the catalogue and whether they are available locally.",
        epilog=_examples("forecast data list", "forecast data list --data-dir /srv/data -v"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    show.add_argument("--data-dir", default=None, help="data folder to look in")
    show.add_argument("-v", "--verbose", action="store_true", help="also show source and licence")
    show.set_defaults(func=_cmd_list)

    get = actions.add_parser(
        "fetch",
        help="download a dataset (sha256-verified, atomic)",
        description="Download a dataset, check its sha256 and write it atomically.",
        epilog="names: "
        + " ".join(DATASETS)
        + "\n\n"
        + _examples(
            "forecast data fetch entsoe-de",
            "forecast data fetch opsd-60min --sha256 HEX_DIGEST --data-dir data/cache",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    get.add_argument(
        "name", choices=sorted(DATASETS), metavar="NAME", help="catalogue name (see below)"
    )
    get.add_argument("--data-dir", default=None, help="target data folder (default data/cache)")
    get.add_argument("--force", action="store_true", help="download again even if present")
    get.add_argument("--sha256", default=None, help="expected checksum (single-file datasets)")
    get.add_argument(
        "--allow-unverified", action="store_true", help="accept files without a known checksum"
    )
    get.set_defaults(func=_cmd_fetch)
    return data


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)
