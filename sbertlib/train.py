"""``python -m sbertlib.train ...`` — the same command as ``python -m sbertlib train ...``
(see :mod:`sbertlib.cli.train`)."""
import sys

from .cli.train import main

if __name__ == "__main__":
    sys.exit(main())
