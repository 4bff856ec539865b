"""Point every notebook's "Open in Colab" badge and set-up cell (and the README's badge) at a GitHub
repository — once, when you publish the workbook or a fork of it.

    python -m sbertlib colab --repo OWNER/NAME [--branch main]

What it writes into the set-up cells is code Colab runs when a notebook is opened, so --repo must be
GitHub's OWNER/NAME (or https://github.com/OWNER/NAME) and --branch a git branch name of letters,
digits and . _ - / + only; anything else is refused, with nothing changed.
"""
from __future__ import annotations

import sys
from pathlib import Path

from ..workbook import colab
from ..workbook.publish import notebooks
from .common import command, parser


@command("colab")
def main(argv: list[str] | None = None) -> int:
    ap = parser("colab", __doc__)
    ap.add_argument("--repo", default=colab.REPOSITORY,
                    help=f"GitHub OWNER/NAME, or https://github.com/OWNER/NAME (default {colab.REPOSITORY})")
    ap.add_argument("--branch", default=colab.BRANCH,
                    help="branch Colab opens: letters, digits and . _ - / + (git's rules) (default main)")
    ap.add_argument("--notebooks", default=str(notebooks.NOTEBOOK_DIR), help="the notebooks' folder")
    args = ap.parse_args(argv)
    # a value that could not be written safely: one line naming the option and the value, exit 2
    args.repo, args.branch = colab.check_repo(args.repo), colab.check_branch(args.branch)
    readme = Path(args.notebooks).resolve().parent / "README.md"
    changed = colab.apply(Path(args.notebooks), readme if readme.is_file() else None, args.repo, args.branch)
    print(f"{len(changed)} file(s) now point at github.com/{args.repo} ({args.branch})")
    for path in changed:
        print(f"  {path}")
    if args.repo != colab.REPOSITORY:
        print(f"Set REPOSITORY = {args.repo!r} in sbertlib/workbook/colab.py too, so the tests agree.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
