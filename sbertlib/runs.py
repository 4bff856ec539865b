"""Where the workbook keeps what one notebook makes and a later one reuses (trained models, results)."""
from __future__ import annotations

import os
from pathlib import Path

OUTPUT_DIR_ENV = "SBERTLIB_OUTPUT_DIR"


def output_dir(*parts: str) -> Path:
    """``$SBERTLIB_OUTPUT_DIR`` (default ``runs/`` beside the notebooks), joined with ``parts``."""
    base = os.environ.get(OUTPUT_DIR_ENV) or str(Path(__file__).resolve().parents[1] / "runs")
    path = Path(base).joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
