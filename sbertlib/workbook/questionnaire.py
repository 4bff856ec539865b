"""Each notebook's questionnaire, read from its own text file: ``questionnaires/03.md`` holds notebook 03's.

A lecturer edits a question there as text; :mod:`sbertlib.workbook.quiz` asks it in the notebook and answers back.
A file is a title, then one section per question::

    ## 03.1 choice
    What happens to the updates if your loop forgets optimizer.zero_grad()?
    - [x] Gradients pile up: each step uses the sum of all so far
    - [ ] Nothing: each backward() call overwrites the old .grad
      hint: backward() adds into .grad; it does not overwrite it.

    ## 03.2a number
    epochs = 2, 1,000 examples, batch 16: how many optimizer steps?
    - answer: 126
    - tolerance: 0
    - too low: Every batch is a step, the last smaller one too, in every epoch.
    - too high: A step is a batch, and the batches are cut per epoch.
    - 63: That is one epoch.

A **choice** has one ``[x]`` option and 1 to 7 ``[ ]`` ones, each with its hint; a **number**'s ``- <value>: hint``
items name values typical slips lead to (a fraction, ``83 / 44``, is a value too); a **discuss** question is its
prompt alone (README, "Changing the course"). A mistake in a file is reported with its file and line.
"""
from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..errors import SettingError

LETTERS = "abcdefgh"
FOLDER = Path(__file__).with_name("questionnaires")


@dataclass(frozen=True)
class Choice:
    """Pick one option. ``hints`` maps every wrong option's letter to a hint that teaches without giving the answer
    away. The options are lettered in an order fixed by the prompt (a seeded shuffle): where the right one stands
    tells nothing."""
    prompt: str
    options: dict[str, str]
    answer: str
    hints: dict[str, str]


@dataclass(frozen=True)
class Number:
    """A number, right when within ``tolerance`` of ``answer``. ``traps`` maps values a typical slip gives to their
    own hint (matched within the same tolerance); any other wrong value gets ``hint_low`` or ``hint_high``."""
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
discuss = Discuss                            # an open question is its prompt alone


def choice(prompt: str, answer: str, hints: dict[str, str]) -> Choice:
    """A multiple-choice question: ``answer`` is the right option's text, ``hints`` maps each wrong option's text to
    its hint."""
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


# ----------------------------------------------------------------------------- reading a file

_HEADING = re.compile(r"^## (\d\d\.\d+[a-z]?) (choice|number|discuss)\s*$")
_OPTION = re.compile(r"^- \[([x ])\] (.+)$")
_ITEM = re.compile(r"^- ([^:]+): (.+)$")


def _value(text: str) -> float:
    """``126``, ``2e-05``, ``-0.68`` or a fraction ``83 / 44``."""
    top, _, bottom = text.partition("/")
    return float(top) / float(bottom) if bottom else float(top)


def _build(qid: str, kind: str, prompt: list[str], items: list[tuple[str, str, str | None]]) -> Question:
    """One question from its heading, prompt lines and items ``(key, text, hint)``."""
    text = " ".join(prompt)
    if not text:
        raise SettingError("the question has no prompt: write it under the heading")
    if kind == "discuss":
        if items:
            raise SettingError("a discuss question has no options")
        return Discuss(text)
    if kind == "choice":
        right = [t for key, t, _ in items if key == "x"]
        if len(right) != 1 or any(key not in "x " for key, _, _ in items):
            raise SettingError("a choice has exactly one '- [x] right option' and its '- [ ] wrong options'")
        if any(key == " " and hint is None for key, _, hint in items):
            raise SettingError("every wrong option needs its '  hint: …' line under it")
        return choice(text, right[0], {t: hint for key, t, hint in items if key == " "})
    named = {key: t for key, t, _ in items}
    missing = [k for k in ("answer", "tolerance", "too low", "too high") if k not in named]
    if missing:
        raise SettingError(f"a number needs the items {', '.join(missing)}")
    traps = {_value(key): t for key, t in named.items() if key not in ("answer", "tolerance", "too low", "too high")}
    return number(text, _value(named["answer"]), _value(named["tolerance"]), named["too low"], named["too high"], traps)


def read(path: Path) -> dict[str, Question]:
    """The questions of one file, by id, in file order."""
    out: dict[str, Question] = {}
    section: list = []                       # [qid, kind, prompt lines, items, line of the heading]

    def close() -> None:
        if section:
            qid, kind, prompt, items, line = section
            try:
                out[qid] = _build(qid, kind, prompt, items)
            except (SettingError, ValueError, ZeroDivisionError) as e:
                raise SettingError(f"{path}, line {line} (question {qid}): {e}") from None

    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path}, line {n}"
        if heading := _HEADING.match(line):
            close()
            qid = heading.group(1)
            if not qid.startswith(path.stem + ".") or qid in out:
                raise SettingError(f"{where}: {qid} is not a new question of notebook {path.stem}")
            section = [qid, heading.group(2), [], [], n]
        elif not line.strip() or line.startswith("# ") or line.startswith("<!--"):
            continue
        elif not section:
            raise SettingError(f"{where}: text before the first question (a question starts with '## 03.1 choice')")
        elif line.startswith("  hint: "):
            if not section[3] or section[3][-1][0] != " " or section[3][-1][2] is not None:
                raise SettingError(f"{where}: a hint belongs under a wrong option '- [ ] …'")
            section[3][-1] = (" ", section[3][-1][1], line[8:].strip())
        elif option := _OPTION.match(line):
            section[3].append((option.group(1), option.group(2).strip(), None))
        elif item := _ITEM.match(line):
            section[3].append((item.group(1).strip(), item.group(2).strip(), None))
        elif line.startswith("- "):
            raise SettingError(f"{where}: an item reads '- [x] option', '- [ ] option' or '- name: text'")
        elif section[3]:
            raise SettingError(f"{where}: prompt text after the options: put the prompt right under the heading")
        else:
            section[2].append(line.strip())
    close()
    return out


@lru_cache(maxsize=None)
def questions(number: str) -> dict[str, Question]:
    """Notebook ``number``'s questions (``"03"``), by id, in file order; none where it has no file."""
    path = FOLDER / f"{number}.md"
    return read(path) if path.exists() else {}
