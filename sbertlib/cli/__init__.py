"""Command lines, one thin ``main`` each: ``python -m sbertlib <command> [options]``.

=============  =============================================================
command        does
=============  =============================================================
``evaluate``   Spearman ×100 of any encoder on Table 1's STS sets
``train``      train a profile's lesson; STSb test before and after
``bench``      encode / train throughput, ours beside sentence-transformers
``estimate``   time one step and one encode batch of a profile's architecture: its lesson's cost here
``fetch``      download what a profile needs, once, on a machine with internet
``envcheck``   [OK]/[FAIL] for packages, device, data and profile
``build``      execute every notebook into ``build/`` (``make workbook``)
``student``    student copies of the notebooks, solutions removed
``colab``      point the notebooks' "Open in Colab" badges at a repository
=============  =============================================================
"""
from __future__ import annotations

import importlib
import sys

COMMANDS = ("evaluate", "train", "bench", "estimate", "fetch", "envcheck", "build", "student", "colab")


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``argv[0]`` to ``sbertlib.cli.<command>.main(argv[1:])``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        if argv and argv[0] not in ("-h", "--help"):
            print(f"unknown command {argv[0]!r}", file=sys.stderr)
        print(__doc__, file=sys.stderr if argv and argv[0] not in ("-h", "--help") else sys.stdout)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    module = importlib.import_module(f"{__name__}.{argv[0]}")
    return int(module.main(argv[1:]) or 0)
