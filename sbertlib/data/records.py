"""The records every loader returns, and the errors every loader raises."""
from __future__ import annotations

from dataclasses import dataclass, field
from ..errors import SettingError, UnknownName, UserError

NLI_LABELS: tuple[str, ...] = ("contradiction", "entailment", "neutral")  # index = class id (AllNLI convention)


@dataclass(frozen=True)
class STSPair:
    """A sentence pair with a gold similarity score on the dataset's own scale."""

    sentence1: str
    sentence2: str
    score: float
    min_score: float = 0.0
    max_score: float = 5.0
    source: str = ""  # e.g. "STS12/MSRvid", "stsb/main-captions", "sick/test"

    @property
    def label(self) -> float:
        """The score mapped to 0–1 (target of the regression objective)."""
        return (self.score - self.min_score) / (self.max_score - self.min_score)


@dataclass(frozen=True)
class NLIPair:
    """A premise/hypothesis pair with one of :data:`NLI_LABELS`."""

    premise: str
    hypothesis: str
    label: str

    def __post_init__(self) -> None:
        if self.label not in NLI_LABELS:
            raise SettingError(f"NLI label must be one of {NLI_LABELS}, got {self.label!r}")

    @property
    def label_id(self) -> int:
        """Class index of the label (position in :data:`NLI_LABELS`)."""
        return NLI_LABELS.index(self.label)


@dataclass(frozen=True)
class Triplet:
    anchor: str
    positive: str
    negative: str


@dataclass(frozen=True)
class SentEvalTask:
    """A SentEval classification task.

    ``texts`` holds strings, or ``(sentence1, sentence2)`` tuples for pair tasks (MRPC).
    ``splits`` maps split name to the index range of its examples; it is empty for the
    tasks without a standard split (MR, CR, SUBJ, MPQA: evaluated with 10-fold CV).
    """

    name: str
    texts: list
    labels: list[int]
    label_names: tuple[str, ...]
    splits: dict[str, range] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.labels)

    @property
    def is_pair(self) -> bool:
        return bool(self.texts) and isinstance(self.texts[0], tuple)

    def split(self, name: str) -> tuple[list, list[int]]:
        """``(texts, labels)`` of one split, e.g. ``task.split("train")``."""
        if name not in self.splits:
            raise UnknownName(f"{self.name} has splits {sorted(self.splits) or 'none (use k-fold CV)'}, not {name!r}")
        r = self.splits[name]
        return self.texts[r.start:r.stop], self.labels[r.start:r.stop]


class DataFormatError(UserError, ValueError):
    """A data file does not have the expected format (message names file and 1-based line)."""


class DataNotFoundError(UserError, FileNotFoundError):
    """A data file is missing (message names it, the places searched and how to provide it)."""


class ChecksumError(UserError, ValueError):
    """A downloaded file's SHA-256 differs from the expected one."""
