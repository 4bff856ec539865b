"""``make student``: write student copies of the notebooks, solutions removed, with the example
data they read (``notebooks/examples/``).

    python -m sbertlib student notebooks student
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nbformat

from ..workbook.notebooks import notebook_paths, student_copy
from .common import command, parser


@command("student")
def main(argv: list[str] | None = None) -> int:
    ap = parser("student", __doc__)
    ap.add_argument("source", type=Path, help="the lecturer's notebooks (with solutions), e.g. notebooks")
    ap.add_argument("dest", type=Path, help="where the student copies go, e.g. student (not inside source)")
    args = ap.parse_args(argv)
    src, dest = args.source, args.dest
    if not notebook_paths(src):
        ap.error(f"{src} holds no numbered notebooks (NN_name.ipynb)")
    if dest.resolve() == src.resolve() or src.resolve() in dest.resolve().parents:
        ap.error(f"the copies would overwrite or sit inside the lecturer's notebooks ({src}): give another "
                 f"destination, e.g. `python -m sbertlib student {src} student`")
    dest.mkdir(parents=True, exist_ok=True)
    for path in notebook_paths(src):
        nbformat.write(student_copy(nbformat.read(path, as_version=4)), dest / path.name)
        print(f"wrote {dest / path.name}")
    if (src / "examples").is_dir():  # the data notebook 13 reads, beside the copies as beside the originals
        shutil.copytree(src / "examples", dest / "examples", dirs_exist_ok=True)
        print(f"copied {dest / 'examples'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
