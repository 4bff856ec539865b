"""Environment check: [OK]/[FAIL] for every package, the device, the data found and the profile.

    python -m sbertlib envcheck
"""
from __future__ import annotations

import sys

from .common import command, parser


@command("envcheck")
def main(argv: list[str] | None = None) -> int:
    parser("envcheck", __doc__).parse_args(argv)
    from ..workbook.environment import environment_report
    return 1 if environment_report() else 0


if __name__ == "__main__":
    sys.exit(main())
