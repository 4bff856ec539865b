"""``python -m sbertlib.bench ...`` — the same command as ``python -m sbertlib bench ...``
(see :mod:`sbertlib.cli.bench`)."""
import sys

from .cli.bench import main

if __name__ == "__main__":
    sys.exit(main())
