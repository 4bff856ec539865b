"""``make student``: write student copies of the notebooks, solutions removed, with the example
data they read (``notebooks/examples/``) — or, with ``--nbgrader``, an nbgrader course folder.

    python -m sbertlib student notebooks student               # student copies in student/
    python -m sbertlib student --nbgrader course                # an nbgrader course in course/
    python -m sbertlib student notebooks course --nbgrader      # the same, from the notebooks named
    python -m sbertlib student --nbgrader course --only 02,03 --hidden-tests

The course folder holds nbgrader_config.py, a README for the lecturer and
source/<notebook>/<notebook>.ipynb: each exercise an autograded answer cell, its check an
autograder test cell (1 point per check), every other cell read-only. nbgrader generate_assignment,
validate, autograde and generate_feedback run on it unchanged (run them in the folder; its README
says how, and what students can read in what they install). --hidden-tests grades each exercise
by hidden tests that compare the student's results with values stored from running the solutions
on --profile (smoke: seconds per notebook), instead of by the checks that ship in sbertlib.

Writing into a course folder you already have never replaces your own nbgrader_config.py or
README.md (one this command did not write, or one you edited since it did): yours stay, the
course's are written beside them as nbgrader_config.sbertlib.py and README.sbertlib.md, and the
command prints each setting of the course's config that yours lacks or sets otherwise, to merge by
hand. --overwrite replaces them instead. Files it wrote and nobody edited are simply rewritten.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import nbformat

from ..workbook.publish.notebooks import NOTEBOOK_DIR, notebook_paths, student_copy
from .common import add_profile, command, parser


def _numbers(text: str) -> list[str]:
    numbers = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in numbers if not n.isdigit()]
    if bad or not numbers:
        raise argparse.ArgumentTypeError(f"takes notebook numbers separated by commas, e.g. 02,03 (got {text!r})")
    return [f"{int(n):02d}" for n in numbers]


@command("student")
def main(argv: list[str] | None = None) -> int:
    ap = parser("student", __doc__)
    ap.add_argument("source", type=Path, nargs="?",
                    help="the lecturer's notebooks (with solutions), e.g. notebooks; with --nbgrader DIR it may be "
                         "left out (the workbook's notebooks)")
    ap.add_argument("dest", type=Path, nargs="?",
                    help="where the student copies go, e.g. student (not inside source); with a bare --nbgrader, "
                         "the course folder")
    ap.add_argument("--nbgrader", nargs="?", const=True, default=None, metavar="DIR",
                    help="write an nbgrader course folder (DIR, or DEST when given without a value) instead of "
                         "student copies")
    ap.add_argument("--hidden-tests", action="store_true",
                    help="with --nbgrader: grade by hidden tests against values stored from running the solutions "
                         "(runs each notebook once, on --profile)")
    add_profile(ap, default="smoke", help="with --nbgrader: the profile nbgrader runs the notebooks on, and the hidden "
                                          "tests' values are computed on")
    ap.add_argument("--written-answers", type=float, default=0, metavar="POINTS",
                    help="with --nbgrader: make each questionnaire a manually graded answer worth POINTS "
                         "(default 0: left out, as in the student copies)")
    ap.add_argument("--course-id", default=None,
                    help="with --nbgrader: the course id: letters, digits, '-', '_', '.' (default: sbert-workbook)")
    ap.add_argument("--overwrite", action="store_true",
                    help="with --nbgrader: replace the folder's nbgrader_config.py and README.md even where they are "
                         "yours (by default they stay, and the course's go beside them: see above)")
    ap.add_argument("--only", type=_numbers, default=None, metavar="NN,NN",
                    help="only these notebooks, by number, e.g. 02,03")
    args = ap.parse_args(argv)

    if args.nbgrader is None:
        nbgrader_only = [flag for flag, used in (("--hidden-tests", args.hidden_tests),
                                                 ("--written-answers", args.written_answers),
                                                 ("--course-id", args.course_id),
                                                 ("--overwrite", args.overwrite)) if used]
        if nbgrader_only:
            ap.error(f"{' and '.join(nbgrader_only)} {'goes' if len(nbgrader_only) == 1 else 'go'} with --nbgrader DIR "
                     f"only (an nbgrader course); the student copies are always written afresh")
        if args.source is None or args.dest is None:
            ap.error("give the notebooks and where the copies go (`python -m sbertlib student notebooks student`), "
                     "or --nbgrader DIR for an nbgrader course")
        src, dest = args.source, args.dest
    elif args.nbgrader is True:
        if args.source is None or args.dest is None:
            ap.error("--nbgrader without a folder takes it from SOURCE DEST (`student notebooks course --nbgrader`); "
                     "or name it: `student --nbgrader course`")
        src, dest = args.source, args.dest
    else:
        if args.dest is not None:
            ap.error(f"two course folders: --nbgrader {args.nbgrader} and {args.dest}")
        src, dest = args.source or NOTEBOOK_DIR, Path(args.nbgrader)

    if args.nbgrader is not None and args.course_id is not None:
        from ..workbook.publish.nbgrader_export import check_course_id
        check_course_id(args.course_id)   # a bad id: one line naming it, exit 2 (before any notebook runs)
    paths = [p for p in notebook_paths(src) if not args.only or p.name[:2] in args.only]
    if not paths:
        ap.error(f"{src} holds no numbered notebooks" + (f" numbered {', '.join(args.only)}" if args.only else "")
                 + " (NN_name.ipynb)")
    if dest.resolve() == src.resolve() or src.resolve() in dest.resolve().parents:
        ap.error(f"the copies would overwrite or sit inside the lecturer's notebooks ({src}): give another "
                 f"destination, e.g. `python -m sbertlib student {src} student`")

    if args.nbgrader is not None:
        from ..workbook.publish import nbgrader_export
        from ..workbook.profiles import get_profile
        get_profile(args.profile)   # an unknown profile: one line, exit 2
        if args.written_answers < 0:
            ap.error("--written-answers takes the points of each questionnaire, 0 or more")
        nbgrader_export.export_course(dest, src, only=args.only, hidden_tests=args.hidden_tests,
                                      profile=args.profile, written_answer_points=args.written_answers,
                                      course_id=args.course_id or nbgrader_export.COURSE_ID, overwrite=args.overwrite)
        return 0

    dest.mkdir(parents=True, exist_ok=True)
    for path in paths:
        nbformat.write(student_copy(nbformat.read(path, as_version=4)), dest / path.name)
        print(f"wrote {dest / path.name}")
    if (src / "examples").is_dir():  # the data notebook 13 reads, beside the copies as beside the originals
        shutil.copytree(src / "examples", dest / "examples", dirs_exist_ok=True)
        print(f"copied {dest / 'examples'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
