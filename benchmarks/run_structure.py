"""How scattered the making of a run is (issue 39): the path of the profile through the code while
``runs.trained_model(profile, objective)`` trains a run, as a structure walk.

    python benchmarks/run_structure.py [--objective distill-stsb] [--json]

It trains ``objective`` on ``smoke`` into a fresh temporary output folder (so every stage it starts from trains
too) and follows the profile as a reader of the code would: into every function of ``sbertlib`` that receives the
profile, or a stage of it, as an argument, each function read once (a function called again, by a loop or for an
earlier stage, is not read again). Where the reader is, file by file, is the walk:

* **stays**: the walk's runs in one file (entering a file, reading there, leaving);
* **entered**: how many stays each file has (a file entered again and again holds a recipe spread over several);
* **climbs back up**: stays that begin with a return: the reader went down into another file and had to come back
  up into one it had left to go on (the ping-pong of a recipe that lives in two places).

Prints the figures; ``--json`` prints them as JSON. Exit 1 where the issue's bar fails: a file other than the
walk's first entered more than 3 times, or more than 8 climbs.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = str(ROOT / "sbertlib")
MOST_ENTERED, MOST_CLIMBS = 3, 8


def _carries(frame, profile) -> bool:
    """Whether the function of ``frame`` got the profile (or an object holding it, a stage) as an argument."""
    code = frame.f_code
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return any(v is profile or getattr(v, "profile", None) is profile
               for v in (frame.f_locals.get(n) for n in names))


def walk(objective: str) -> list[tuple[str, bool]]:
    """``(file, came back up)`` each time the reader moves into a file of sbertlib's: down into a function read for
    the first time, or back up into the file of the function that called it."""
    sys.path.insert(0, str(ROOT))
    from sbertlib.workbook import profiles, runs
    profile = profiles.get_profile("smoke")
    moves, stack, read = [], [], set()

    def move(file: str, up: bool) -> None:
        if not moves or moves[-1][0] != file:
            moves.append((file, up))

    def tracer(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(PACKAGE) and _carries(frame, profile):
            if frame.f_code not in read:
                read.add(frame.f_code)
                if stack:
                    move(os.path.relpath(stack[-1].f_code.co_filename, ROOT), True)
                move(os.path.relpath(frame.f_code.co_filename, ROOT), False)
            stack.append(frame)
        elif event == "return" and stack and stack[-1] is frame:
            stack.pop()

    with tempfile.TemporaryDirectory() as out:
        sys.setprofile(tracer)
        try:
            runs.trained_model(profile, objective, output_dir=out, show_progress_bar=False)
        finally:
            sys.setprofile(None)
    return moves


def figures(moves: list[tuple[str, bool]]) -> dict:
    """Stays, stays per file and climbs of a walk (see the module docstring)."""
    stays = moves   # consecutive moves are in different files (see walk)
    return {"stays": len(stays), "files": len({f for f, _ in stays}), "climbs": sum(up for _, up in stays),
            "entered": dict(Counter(f for f, _ in stays).most_common()), "first": stays[0][0] if stays else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--objective", default="distill-stsb")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("SBERTLIB_PROFILE", "smoke")
    result = figures(walk(args.objective))
    too_often = {f: n for f, n in result["entered"].items() if f != result["first"] and n > MOST_ENTERED}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"trained_model(smoke, {args.objective!r}): {result['stays']} stays in {result['files']} files, {result['climbs']} climbs back up")
        for file, n in result["entered"].items():
            print(f"  {n:3d} x {file}")
    return 1 if too_often or result["climbs"] > MOST_CLIMBS else 0


if __name__ == "__main__":
    sys.exit(main())
