"""Environment check: [OK]/[FAIL] for every package, the device, the data found and the profile.

    python -m sbertlib envcheck
"""
from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="python -m sbertlib envcheck", description=__doc__.split("\n\n")[0]).parse_args(argv)
    from ..workbook.environment import environment_report
    return 1 if environment_report() else 0


if __name__ == "__main__":
    sys.exit(main())
