"""How :func:`~sbertlib.training.fit` trains: one frozen :class:`TrainingArguments`.

The one description of a training run's settings. ``fit`` reads it, the checkpoint fingerprints
all of it, :class:`~sbertlib.training.History` records it, the profiles build it and the command
line makes its flags from its fields (:func:`add_arguments`, :func:`from_namespace`)::

    args = TrainingArguments(epochs=4, batch_size=32, lr=1e-3)
    fit(model, loss, train, args)              # or fit(model, loss, train, epochs=4, ...)
    args.replace(seed=1)                       # a copy with one field changed

The defaults are the paper's recipe (§3.1): batch size 16, Adam with learning rate 2e-5, a linear
learning-rate warm-up over 10% of the steps, one epoch. Weight decay 0.01 (not on biases and
LayerNorm) and clipping at norm 1 are sentence-transformers' defaults; the paper gives neither.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import numbers
from dataclasses import dataclass, field, fields
from ..errors import SettingError

MIXED_PRECISION = (None, "bf16", "fp16")
DEFAULT_SEED = 42  # the seed of every training run unless one is given (the workbook's runs, the student's loop)


def _help(text: str, flag: bool = True) -> dict:
    return {"help": text, "flag": flag}


@dataclass(frozen=True)
class TrainingArguments:
    """Every setting of a :func:`fit` run (see the module docstring); invalid values raise
    ValueError naming the field."""

    epochs: int = field(default=1, metadata=_help("passes over the training data"))
    batch_size: int = field(default=16, metadata=_help("examples per optimizer step (all processes together)"))
    lr: float = field(default=2e-5, metadata=_help("peak learning rate of AdamW"))
    weight_decay: float = field(default=0.01, metadata=_help("AdamW weight decay (not on biases and LayerNorm)"))
    warmup_ratio: float = field(default=0.1, metadata=_help("share of the steps with a linear warm-up (rounded up)"))
    max_grad_norm: float | None = field(default=1.0, metadata=_help("clip gradients to this norm (0: no clipping)"))
    seed: int = field(default=DEFAULT_SEED, metadata=_help("seeds dropout and the data order"))
    max_steps: int | None = field(default=None, metadata=_help("stop after this many steps (the schedule is "
                                                                 "planned for the shorter run)"))
    shuffle: bool = field(default=True, metadata=_help("random batch order (else the data's order)"))
    length_grouping: bool = field(default=False, metadata=_help("batch items of similar length (less padding)"))
    mixed_precision: str | None = field(default=None, metadata=_help("autocast: bf16 (GPU or CPU) or fp16 (GPU)"))
    evaluation_steps: int = field(default=0, metadata=_help("run the evaluator every so many steps (0: at the "
                                                              "end only)"))
    checkpoint_steps: int = field(default=0, metadata=_help("write a resumable checkpoint every so many steps"))
    save_head: bool = field(default=False, metadata=_help("save the loss's classifier beside the encoder",
                                                          flag=False))

    def __post_init__(self) -> None:
        for name in ("lr", "weight_decay", "warmup_ratio", "max_grad_norm"):
            value = getattr(self, name)
            if not (value is None and name == "max_grad_norm") and (
                    isinstance(value, bool) or not isinstance(value, numbers.Real)):
                raise SettingError(f"{name} must be a number, got {value!r} ({type(value).__name__})")
            if value is not None and not math.isfinite(value):
                raise SettingError(f"{name} must be a finite number, got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, numbers.Integral):
            raise SettingError(f"seed must be an integer, got {self.seed!r} ({type(self.seed).__name__})")
        for name in ("shuffle", "length_grouping", "save_head"):
            if not isinstance(getattr(self, name), bool):
                raise SettingError(f"{name} must be True or False, got {getattr(self, name)!r}")
        for name in ("epochs", "batch_size"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise SettingError(f"{name} must be an integer >= 1, got {getattr(self, name)!r}")
        if self.max_steps is not None and (not isinstance(self.max_steps, int) or self.max_steps < 1):
            raise SettingError(f"max_steps must be an integer >= 1 (or None), got {self.max_steps!r}")
        if not self.lr > 0:
            raise SettingError(f"lr must be > 0, got {self.lr!r}")
        if not 0 <= self.warmup_ratio <= 1:
            raise SettingError(f"warmup_ratio must be between 0 and 1, got {self.warmup_ratio!r}")
        if self.weight_decay < 0 or (self.max_grad_norm is not None and self.max_grad_norm < 0):
            raise SettingError(f"weight_decay and max_grad_norm must be >= 0, got {self.weight_decay!r} and "
                               f"{self.max_grad_norm!r}")
        for name in ("evaluation_steps", "checkpoint_steps"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise SettingError(f"{name} must be an integer >= 0, got {getattr(self, name)!r}")
        if self.mixed_precision not in MIXED_PRECISION:
            raise SettingError(f"mixed_precision must be None, 'bf16' or 'fp16', not {self.mixed_precision!r}")

    def replace(self, **changes) -> "TrainingArguments":
        """A copy with ``changes``; an unknown name raises TypeError listing the fields."""
        unknown = sorted(set(changes) - set(names()))
        if unknown:
            raise TypeError(f"unknown training argument(s) {', '.join(unknown)}; "
                            f"TrainingArguments has {', '.join(names())}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def total_steps(self, n_examples: int) -> int:
        """Optimizer steps for ``n_examples``: ``epochs × ceil(n / batch_size)``, capped by ``max_steps``."""
        total = self.epochs * -(-n_examples // self.batch_size)
        return min(total, self.max_steps or total)


def names() -> list[str]:
    return [f.name for f in fields(TrainingArguments)]


# ----------------------------------------------------------------------------- the command line
def _parse_optional(kind):
    def parse(text: str):
        return None if text.lower() in ("none", "") else kind(text)
    parse.__name__ = kind.__name__  # argparse names the type in its error
    return parse


def add_arguments(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """One ``--flag`` per field (``batch_size`` → ``--batch-size``), defaulting to "not given", so a
    caller can tell the settings a user chose from the profile's."""
    group = parser.add_argument_group("training arguments (default: the profile's; --max-grad-norm none turns "
                                      "clipping off)")
    for f in fields(TrainingArguments):
        if not f.metadata.get("flag", True):
            continue
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            group.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=f.metadata["help"])
        elif f.name == "mixed_precision":
            group.add_argument(flag, choices=("bf16", "fp16"), default=None, help=f.metadata["help"])
        else:
            kind = int if f.type.startswith("int") else float
            optional = "None" in f.type
            group.add_argument(flag, type=_parse_optional(kind) if optional else kind, default=_NOT_GIVEN,
                               metavar=f.name.upper(), help=f.metadata["help"])
    return group


class _NotGiven:
    def __repr__(self) -> str:
        return "the profile's"


_NOT_GIVEN = _NotGiven()  # a flag left out; an explicit "none" (--max-grad-norm none) is None, and is kept


def from_namespace(namespace: argparse.Namespace) -> dict:
    """The training arguments a user gave on the command line, as ``{field: value}`` (``none`` given for an
    optional field is kept as None: it means "off", not "the profile's")."""
    found = {}
    for name in names():
        value = getattr(namespace, name, _NOT_GIVEN)
        if value is _NOT_GIVEN or (value is None and name == "mixed_precision"):
            continue
        if value is None and not _optional(name):
            continue
        found[name] = value
    return found


def _optional(name: str) -> bool:
    return "None" in str(next(f.type for f in fields(TrainingArguments) if f.name == name))
