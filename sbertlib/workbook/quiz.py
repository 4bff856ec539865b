"""Self-check questionnaires: each notebook's questions answer back.

Every notebook ends with ``## Questions``: a **choice** or a **number** has a self-check that answers each wrong
answer with its own hint; a **discussion** question has none. The questions are text, ``questionnaires/NN.md``
(:mod:`sbertlib.workbook.questionnaire` reads them). In a notebook::

    from sbertlib.workbook import quiz
    quiz.ask("03")            # every self-check of notebook 03 (one question: quiz.ask("03.2"))
    quiz.check("03.2a", 120)  # the same feedback as text, without widgets

``ask`` shows, in JupyterLab, one control per check and a *Check* button that answers "right" or the hint for that
answer; without a widget frontend (CI, an exported page) it leaves a static list of the questions and their options,
which never marks the right one. Ids: ``"NN.q"`` is question *q* of notebook *NN*; a question with several checks
has ``"NN.qa"``, ``"NN.qb"`` … (:func:`ids`).

The student copies (``python -m sbertlib student``) hold no right answer as text, but a determined student can read
the answers in the installed package, as they can read the checks' reference code: the self-checks are for learning,
not for grading; the lecturer's copy and the course site keep the written answers (the cell tagged ``answers``).
"""
from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from ..errors import SettingError, UnknownName

from . import questionnaire
from .questionnaire import LETTERS, Choice, Discuss, Number, Question, choice, discuss, number  # noqa: F401


# ----------------------------------------------------------------------------- looking questions up

_ID = re.compile(r"^(\d\d)\.(\d+)([a-z]?)$")


def bank() -> dict[str, Question]:
    """Every question, by id, in notebook and question order: each notebook's questionnaire file."""
    from . import lessons
    return {qid: question for number in lessons.numbers() for qid, question in questionnaire.questions(number).items()}


def parse_id(qid: str) -> tuple[str, int, str]:
    """``"03.2a"`` → ``("03", 2, "a")``."""
    m = _ID.match(qid)
    if not m:
        raise SettingError(f"{qid!r} is no question id: write it as \"03.2\" (notebook 03, question 2)")
    return m.group(1), int(m.group(2)), m.group(3)


def ids(which: str = "") -> list[str]:
    """The ids of a notebook's questions (``"03"``), of one question's parts (``"03.2"``), or all."""
    out = []
    for qid in bank():
        nb, q, _ = parse_id(qid)
        if not which or which == nb or which == f"{nb}.{q}" or which == qid:
            out.append(qid)
    return out


def checkable(which: str = "") -> list[str]:
    """The ids of ``which`` that have a self-check (not discussion questions)."""
    return [q for q in ids(which) if not isinstance(bank()[q], Discuss)]


def _question(qid: str) -> Question:
    qid = str(qid).strip()
    try:
        return bank()[qid]
    except KeyError:
        parse_id(qid)
        parts = ids(qid)
        if parts:
            raise UnknownName(f"question {qid} has several parts: check each of {', '.join(parts)}") from None
        nb = qid.split(".")[0]
        known = ids(nb)
        raise UnknownName(f"no question {qid}" + (f"; notebook {nb}'s are {', '.join(known)}" if known else "")) from None


# ----------------------------------------------------------------------------- feedback

@dataclass(frozen=True)
class Feedback:
    """``right``: True, False, or None when the answer could not be read (or there is nothing to check)."""
    qid: str
    right: bool | None
    text: str

    def __str__(self) -> str:
        return self.text


def _read_letter(q: Choice, answer) -> str | None:
    text = str(answer).strip()
    letter = text.strip("()[]. ").lower()
    if letter in q.options:
        return letter
    for k, option in q.options.items():
        if text.lower() == option.lower():
            return k
    return None


_THOUSANDS = re.compile(r"[-+]?[1-9]\d{0,2}(,\d{3})+(\.\d+)?")  # 58,875 or 1,234.5: commas group thousands


def _read_number(answer) -> float | None:
    """A number from what a student typed: ``58,875`` and ``58 875`` (thousands), ``0,68`` (a decimal
    comma), a typographic minus; None when it is none. Too large for a float: ±inf (shown as such)."""
    if isinstance(answer, bool):
        return None
    if isinstance(answer, (int, float)):
        try:
            return float(answer)
        except OverflowError:  # an int beyond a float's range (10**400)
            return math.inf if answer > 0 else -math.inf
    text = str(answer).strip().replace("−", "-")
    if len(text) > 100:
        return None
    text = re.sub(r"[\s_']", "", text)
    if _THOUSANDS.fullmatch(text):
        text = text.replace(",", "")
    elif text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")  # 0,68: a decimal comma
    try:
        return float(text)
    except ValueError:
        return None


def _shown(value: float) -> str:
    """A number as a student would write it: 49,995,000 rather than 4.9995e+07."""
    if not math.isfinite(value):
        return "a number too large to check" if math.isinf(value) else str(value)
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.6g}" if abs(value) >= 1e-4 else f"{value:.3g}"


def _echo(answer) -> str:
    """The answer as given, cut short: a 1 MB answer is not printed back whole."""
    text = repr(answer)
    return text if len(text) <= 60 else text[:57] + "…"


def feedback(qid: str, answer) -> Feedback:
    """What the self-check says to ``answer`` for question ``qid``."""
    qid = str(qid).strip()
    q = _question(qid)
    if isinstance(q, Discuss):
        return Feedback(qid, None, f"{qid} is a discussion question: there is no single right answer to check. "
                                   "Talk it over, then compare with your lecturer's answer.")
    if isinstance(q, Choice):
        letter = _read_letter(q, answer)
        if letter is None:
            return Feedback(qid, None, f"{qid}: answer with one of the letters {', '.join(q.options)} "
                                       f"(you gave {_echo(answer)}).")
        if letter == q.answer:
            return Feedback(qid, True, f"{qid}: ({letter}) is right.")
        return Feedback(qid, False, f"{qid}: ({letter}) is not it. Hint: {q.hints[letter]}")
    value = _read_number(answer)
    if value is None:
        return Feedback(qid, None, f"{qid}: answer with a number (you gave {_echo(answer)}).")
    if math.isnan(value):
        return Feedback(qid, None, f"{qid}: NaN is not a number to check: answer with a number.")
    shown = _shown(value)
    slack = q.tolerance + 1e-9 * max(1.0, abs(q.answer))  # 0.67 + 0.01 is not exactly 0.68 in floating point
    if abs(value - q.answer) <= slack:
        return Feedback(qid, True, f"{qid}: {shown} is right.")
    for trap, hint in q.traps.items():
        if abs(value - trap) <= slack:
            return Feedback(qid, False, f"{qid}: {shown} is not it. Hint: {hint}")
    hint = q.hint_low if value < q.answer else q.hint_high
    return Feedback(qid, False, f"{qid}: {shown} is too {'low' if value < q.answer else 'high'}. Hint: {hint}")


def check(qid: str, answer) -> None:
    """Print the self-check's feedback to ``answer`` — the same as the *Check* button's."""
    print(feedback(qid, answer).text)


# ----------------------------------------------------------------------------- showing the questions

def _to_discuss(which: str) -> list[str]:
    """The line naming the discussion questions of ``which`` (none where it has none)."""
    open_ = [qid for qid in ids(which) if isinstance(bank()[qid], Discuss)]
    return [f"To discuss (no self-check): {', '.join(open_)}"] if open_ else []


def text_listing(which: str) -> str:
    """The self-checks of ``which`` as plain text (no answer marked)."""
    lines = []
    for qid in checkable(which):
        q = bank()[qid]
        lines.append(f"{qid}  {q.prompt}")
        if isinstance(q, Choice):
            lines += [f"    ({k}) {v}" for k, v in q.options.items()]
        how = '"<letter>"' if isinstance(q, Choice) else "<number>"
        lines.append(f'    answer with quiz.check("{qid}", {how})')
    return "\n".join(lines + _to_discuss(which))


def html_listing(which: str) -> str:
    """The self-checks of ``which`` as static HTML (for a page without a kernel; no answer marked)."""
    parts = ["<div class='sbert-snapshot sbert-quiz'><p><i>Self-check questions: open the notebook in "
             "JupyterLab to answer them, or type <code>quiz.check(id, answer)</code>.</i></p>"]
    for qid in checkable(which):
        q = bank()[qid]
        parts.append(f"<p><b>{qid}</b> {html.escape(q.prompt)}</p>")
        if isinstance(q, Choice):
            parts.append("<ol type='a'>" + "".join(f"<li>{html.escape(v)}</li>" for v in q.options.values()) + "</ol>")
        else:
            parts.append("<p>(a number)</p>")
    return "".join(parts + [f"<p>{line}</p>" for line in _to_discuss(which)]) + "</div>"


def _feedback_html(fb: Feedback) -> str:
    colour = {True: "#1a7f37", False: "#b35900", None: "#555"}[fb.right]
    mark = {True: "✓ ", False: "✗ ", None: ""}[fb.right]
    return f"<span style='color:{colour}'>{mark}{html.escape(fb.text)}</span>"


class QuizWidget:
    """One control and a *Check* button per self-check of ``which``; displays as the live widget
    plus a static listing (``text/html``, ``text/plain``) for pages and consoles without widgets."""

    def __init__(self, which: str):
        import ipywidgets as W

        self.which = which
        self.controls: dict[str, object] = {}
        self.results: dict[str, object] = {}
        rows = []
        for qid in checkable(which):
            q = bank()[qid]
            if isinstance(q, Choice):
                control = W.RadioButtons(options=[(f"({k}) {v}", k) for k, v in q.options.items()], value=None,
                                         layout=W.Layout(width="auto"))
            else:
                control = W.Text(placeholder="a number", layout=W.Layout(width="12em"))
            button = W.Button(description="Check", layout=W.Layout(width="6em"))
            result = W.HTML()
            button.on_click(lambda _b, qid=qid: self.press(qid))
            self.controls[qid], self.results[qid] = control, result
            rows.append(W.VBox([W.HTML(f"<b>{qid}</b> {html.escape(q.prompt)}"), control, W.HBox([button, result])],
                               layout=W.Layout(margin="0 0 1em 0")))
        self.widget = W.VBox(rows + [W.HTML(f"<i>{line}</i>") for line in _to_discuss(which)])

    def press(self, qid: str) -> Feedback:
        value = self.controls[qid].value
        fb = Feedback(qid, None, f"{qid}: pick or type an answer first.") if value in (None, "") else feedback(qid, value)
        self.results[qid].value = _feedback_html(fb)
        return fb

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        bundle = self.widget._repr_mimebundle_()
        bundle["text/plain"] = text_listing(self.which)
        bundle["text/html"] = html_listing(self.which)
        return bundle


def ask(which: str) -> None:
    """Show the self-checks of a notebook (``"03"``) or one question (``"03.2"``): widgets in
    JupyterLab; as text where there is no IPython (where ``quiz.check`` answers)."""
    if not ids(which):
        raise UnknownName(f"no questions for {which!r}: name a notebook (\"03\") or one of its questions (\"03.2\")")
    try:
        from IPython import get_ipython
        from IPython.display import display
        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is None:
        print(text_listing(which))
        return
    try:
        view = QuizWidget(which)
    except ImportError:  # no ipywidgets: the listing, answered with quiz.check
        display({"text/plain": text_listing(which), "text/html": html_listing(which)}, raw=True)
        return
    display(view)
