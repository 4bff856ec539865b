"""Command line: where this user's files live — runs, kept code, course data, Hugging Face cache.

    python -m sbertlib where            # one line per place
    python -m sbertlib where --json

On a shared server (JupyterHub) each student's runs and kept code live under their own output
folder: ``$SBERTLIB_OUTPUT_DIR`` (``{user}`` is replaced by the login name), else the user's data
folder (``~/.local/share/sbert-workbook/runs``). Nothing is written beside the installed package.
"""
from __future__ import annotations

import json
import sys

from .. import places
from .common import command, parser


@command("where")
def main(argv: list[str] | None = None) -> int:
    ap = parser("where", __doc__)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    found = places.describe()
    if args.json:
        print(json.dumps(found))
    else:
        width = max(map(len, found))
        for what, where in found.items():
            print(f"{what:<{width}}  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
