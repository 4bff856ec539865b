"""What happened during training: :class:`History`, one record per optimizer step."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..util import atomic_write_text

_SERIES = ("steps", "losses", "lrs", "dev_steps", "dev_scores")


@dataclass
class History:
    """What happened during :func:`fit`: one record per optimizer step.

    ``records[i]`` holds ``step``, ``epoch``, ``loss``, ``lr`` and, at evaluated steps, ``dev_score``.
    Plot with ``plt.plot(h.steps, h.losses)`` and ``plt.plot(h.dev_steps, h.dev_scores)``.
    """

    profile: str | None = None
    backbone: str = ""
    loss: str = ""
    total_steps: int = 0
    records: list[dict] = field(default_factory=list)
    best_score: float | None = None
    best_step: int | None = None
    best_path: str | None = None
    interrupted: bool = False
    seconds: float = 0.0
    settings: dict = field(default_factory=dict)
    contamination: dict = field(default_factory=dict)  # {eval set: shares seen in training}: evaluation.contamination
    recipe: dict = field(default_factory=dict)  # what made the run (workbook.recipes): train-or-load keys on it

    @property
    def steps(self) -> list[int]:
        return [r["step"] for r in self.records]

    @property
    def losses(self) -> list[float]:
        return [r["loss"] for r in self.records]

    @property
    def lrs(self) -> list[float]:
        return [r["lr"] for r in self.records]

    @property
    def dev_steps(self) -> list[int]:
        return [r["step"] for r in self.records if "dev_score" in r]

    @property
    def dev_scores(self) -> list[float]:
        return [r["dev_score"] for r in self.records if "dev_score" in r]

    @property
    def completed(self) -> bool:
        return bool(self.records) and self.records[-1]["step"] >= self.total_steps

    def to_dict(self) -> dict:
        """All fields, plus the plot-ready lists (``steps``, ``losses``, ``lrs``, ``dev_steps``, ``dev_scores``)."""
        return {**asdict(self), **{k: getattr(self, k) for k in _SERIES}}

    def save(self, path: str | os.PathLike) -> Path:
        """Write the history as JSON (atomically)."""
        return atomic_write_text(path, json.dumps(self.to_dict(), indent=1))

    @classmethod
    def from_dict(cls, d: dict) -> "History":
        return cls(**{k: v for k, v in d.items() if k not in _SERIES})

    @classmethod
    def load(cls, path: str | os.PathLike) -> "History":
        return cls.from_dict(json.loads(Path(path).read_text()))

    def __repr__(self) -> str:
        last = f"loss {self.losses[-1]:.4f}" if self.records else "no steps"
        best = f", best dev {self.best_score:.2f} at step {self.best_step}" if self.best_score is not None else ""
        stop = " [interrupted]" if self.interrupted else ""
        return (f"History({self.loss} on {self.backbone!r}, profile={self.profile!r}: "
                f"{len(self.records)}/{self.total_steps} steps, {last}{best}){stop}")
