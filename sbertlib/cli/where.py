"""Command line: where this user's files live — runs, kept code, course data, Hugging Face cache.

    python -m sbertlib where            # one line per place
    python -m sbertlib where --json
    python -m sbertlib where --user alice   # a lecturer: where student alice's runs and kept code are

On a shared server (JupyterHub) each student's runs and kept code live under their own output
folder: ``$SBERTLIB_OUTPUT_DIR`` (``{user}`` is replaced by the login name), else the user's data
folder (``~/.local/share/sbert-workbook/runs``). Nothing is written beside the installed package.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import places
from .common import command, parser
from ..errors import UnknownName


@command("where")
def main(argv: list[str] | None = None) -> int:
    ap = parser("where", __doc__)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--user", default=None, help="another user's places (their home; this process's settings)")
    args = ap.parse_args(argv)
    if args.user is not None:
        try:
            places.home(args.user)
        except KeyError:
            raise UnknownName(f"--user {args.user!r}: no such user on this machine") from None
    found = places.describe(args.user)
    found["kept code files"] = ", ".join(kept_files(Path(found["your kept code"]))) or "none yet"
    if args.json:
        print(json.dumps(found))
    else:
        width = max(map(len, found))
        for what, where in found.items():
            print(f"{what:<{width}}  {where}")
    return 0


def kept_files(folder: Path) -> list[str]:
    """The kept functions and classes in ``folder``, each with the notebook it came from."""
    import json as _json
    from ..workbook.mine import MARKER
    found = []
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        if path.name.startswith(".") or path.name.endswith(".failed.py"):
            continue
        meta = {}
        try:
            line = next((x for x in path.read_text(encoding="utf-8").splitlines()[:5] if x.startswith(MARKER)), "")
            meta = _json.loads(line[len(MARKER):]) if line else {}
        except (OSError, UnicodeDecodeError, ValueError):
            pass
        found.append(f"{path.stem} (notebook {meta['notebook']})" if meta.get("notebook") else path.stem)
    return found


if __name__ == "__main__":
    sys.exit(main())
