"""What a notebook's questionnaire is made of: the three kinds of question a lesson declares.

Each lesson module (:mod:`sbertlib.workbook.lessons.nb03` …) holds its notebook's ``QUESTIONS``,
``{"03.2a": choice(...), ...}``, written with :func:`choice`, :func:`number` and :func:`discuss`;
:mod:`sbertlib.workbook.quiz` asks them in the notebook and answers back.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from ...errors import SettingError

LETTERS = "abcdefgh"


@dataclass(frozen=True)
class Choice:
    """Pick one option. ``hints`` maps every wrong option's letter to a hint that teaches without
    giving the answer away."""
    prompt: str
    options: dict[str, str]
    answer: str
    hints: dict[str, str]


@dataclass(frozen=True)
class Number:
    """A number, right when within ``tolerance`` of ``answer``. ``traps`` maps values a typical slip
    gives to their own hint (matched within the same tolerance); any other wrong value gets
    ``hint_low`` or ``hint_high``."""
    prompt: str
    answer: float
    tolerance: float
    hint_low: str
    hint_high: str
    traps: dict[float, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Discuss:
    """An open question: no self-check; talk it over (the lecturer's copy has a written answer)."""
    prompt: str


Question = Choice | Number | Discuss


def choice(prompt: str, answer: str, hints: dict[str, str]) -> Choice:
    """A multiple-choice question: ``answer`` is the right option's text, ``hints`` maps each wrong
    option's text to its hint. The options are lettered in an order fixed by the prompt (a seeded
    shuffle), so where the right one stands tells nothing."""
    if answer in hints or not hints or len(hints) >= len(LETTERS):
        raise SettingError("give the right option and 1 to 7 other options, each with a hint")
    texts = [answer, *hints]
    random.Random(hashlib.sha256(prompt.encode()).hexdigest()).shuffle(texts)
    options = dict(zip(LETTERS, texts))
    right = next(k for k, t in options.items() if t == answer)
    return Choice(prompt, options, right, {k: hints[t] for k, t in options.items() if k != right})


def number(prompt: str, answer: float, tolerance: float, hint_low: str, hint_high: str,
           traps: dict[float, str] | None = None) -> Number:
    """A question answered with a number within ``tolerance`` of ``answer``."""
    if tolerance < 0:
        raise SettingError("tolerance must be 0 or more")
    traps = dict(traps or {})
    if any(abs(t - answer) <= tolerance for t in traps):
        raise SettingError("a trap lies within the tolerance of the right answer")
    return Number(prompt, float(answer), float(tolerance), hint_low, hint_high, traps)


def discuss(prompt: str) -> Discuss:
    return Discuss(prompt)
