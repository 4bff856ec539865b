"""How big the course layer is, beside its budgets (issue 37): lines per folder, and every function of a lesson module
longer than a screen (40 lines; the machinery of the three kinds aside).

    python benchmarks/course_layer.py [--json]

Prints the figures; exits 1 where a budget is exceeded, so it can stand in a script. Lines are every line of the
``.py`` files (``wc -l``), comments and docstrings included.
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"sbertlib": None, "sbertlib/workbook": 10_500, "sbertlib/workbook/lessons": 4_000,
           "tests": None, "tests/lessons": 3_000}
SCREEN = 40                                  # a lesson function a lecturer reads on one screen
MACHINERY = ("__init__.py", "kinds.py")      # the three kinds' machinery: not held to a screen per function


def lines(folder: str) -> int:
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in (ROOT / folder).rglob("*.py"))


def long_functions(folder: str = "sbertlib/workbook/lessons") -> list[tuple[str, str, int]]:
    """``(file, function, lines)`` of every function in a lesson module over :data:`SCREEN` lines."""
    found = []
    for path in sorted((ROOT / folder).glob("*.py")):
        if path.name in MACHINERY:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > SCREEN:
                    found.append((path.name, node.name, length))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = {folder: {"lines": lines(folder), "budget": budget} for folder, budget in FOLDERS.items()}
    long = long_functions()
    over = [f for f, v in figures.items() if v["budget"] is not None and v["lines"] > v["budget"]]
    if args.json:
        print(json.dumps({"folders": figures, "long_functions": long}, indent=1))
    else:
        for folder, v in figures.items():
            budget = f" (budget {v['budget']:,})" if v["budget"] else ""
            print(f"{folder:28s} {v['lines']:7,} lines{budget}")
        text = len([l for p in (ROOT / "sbertlib/workbook/questionnaires").glob("*.md") for l in p.read_text().splitlines()])
        print(f"{'sbertlib/workbook/questionnaires':28s} {text:7,} lines of text (the questions; not Python, not counted above)")
        print(f"lesson functions over {SCREEN} lines: {len(long)}"
              + "".join(f"\n  {f}:{name} {n} lines" for f, name, n in long))
    return 1 if over or long else 0


if __name__ == "__main__":
    sys.exit(main())
