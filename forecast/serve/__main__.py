"""``python -m forecast.serve``: the same options as ``forecast serve``."""

import sys

from forecast.serve.cli import main

sys.exit(main())
