"""``python -m sbertlib <command>``: see :mod:`sbertlib.cli`."""
import sys

from .cli import main

sys.exit(main())
