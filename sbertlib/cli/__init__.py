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
``where``      where your runs, kept code, data and Hugging Face cache live
=============  =============================================================
"""
from __future__ import annotations

import importlib
import sys

COMMANDS = ("evaluate", "train", "bench", "estimate", "fetch", "envcheck", "build", "student", "colab", "where")


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``argv[0]`` to ``sbertlib.cli.<command>.main(argv[1:])``; ``--help`` and ``--version``
    answer here; an unknown command is a usage error (exit 2)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "--version":
        from .. import __version__
        print(f"sbertlib {__version__}")
        return 0
    if argv and argv[0] in COMMANDS:
        module = importlib.import_module(f"{__name__}.{argv[0]}")
        return int(module.main(argv[1:]) or 0)
    asked = bool(argv) and argv[0] in ("-h", "--help")
    if argv and not asked:
        print(f"python -m sbertlib: error: unknown command {argv[0]!r}; choose one of {', '.join(COMMANDS)}",
              file=sys.stderr)
    print(usage(), file=sys.stdout if asked else sys.stderr)
    return 0 if asked else 2


def usage() -> str:
    """The top-level help, plain text: every command and what it does."""
    rows = [line.split(None, 1) for line in __doc__.splitlines() if line.startswith("``")]
    width = max(len(name.strip("`")) for name, _ in rows)
    lines = [f"  {name.strip('`'):<{width}}  {what.replace('``', '')}" for name, what in rows]
    return ("usage: python -m sbertlib COMMAND [options]   (python -m sbertlib COMMAND --help for its options)\n\n"
            "commands:\n" + "\n".join(lines) + "\n\n  --version  print the version")
