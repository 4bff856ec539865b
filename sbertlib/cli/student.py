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


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    src, dest = (Path(a) for a in (argv + ["notebooks", "student"])[:2])
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
