"""``python -m forecast.batch``: the same options as ``forecast batch``."""

import sys

from forecast.batch.cli import main

sys.exit(main())
