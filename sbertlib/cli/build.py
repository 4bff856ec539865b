"""``make workbook``: execute every notebook headlessly into ``build/`` with an HTML index.

    python -m sbertlib build --out build [--profile offline] [--only 01,04]
    python -m sbertlib build --out /tmp/laptop-dry --profile laptop --dry-run   # time the laptop profile here

Each notebook is run in a fresh kernel on the chosen profile (default: auto-selected) and saved
executed; then the course site is built from them (``build/site``: landing page with the headline
results, one chapter per notebook, search) and ``build/index.html`` opens it. Exits non-zero if any
notebook failed.

``--dry-run`` (or ``$SBERTLIB_DRY_RUN=1``) runs the profile's code paths at full size with its real
architectures and random weights, and the offline NLI pairs standing in for AllNLI: no download, the
runtimes are real (``index.json``), every score is meaningless (see :mod:`sbertlib.workbook.profiles`).
"""
from __future__ import annotations

import sys
from pathlib import Path

from .common import add_profile, command, parser


@command("build")
def main(argv: list[str] | None = None) -> int:
    from ..workbook.publish.build import build, data_ready
    from ..workbook.profiles import get_profile
    ap = parser("build", __doc__)
    ap.add_argument("--out", default="build", help="where the executed notebooks and the site go (default build)")
    add_profile(ap, help="the profile the notebooks run on")
    ap.add_argument("--only", default=None, help="comma-separated notebook numbers, e.g. 00,03")
    ap.add_argument("--timeout", type=int, default=1800, help="per-cell timeout in seconds")
    ap.add_argument("--skip-data-check", action="store_true", help="run even if data sets are missing")
    ap.add_argument("--dry-run", action="store_true",
                    help="random weights, stand-in NLI data: runtimes only, scores meaningless")
    args = ap.parse_args(argv)
    if not args.skip_data_check and not data_ready():
        return 2
    only = {w.strip() for w in args.only.split(",")} if args.only else None
    results = build(Path(args.out), get_profile(args.profile, dry_run=args.dry_run or None), only, args.timeout)
    return 0 if all(r.error is None for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
