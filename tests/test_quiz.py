"""The questionnaires' self-checks (sbertlib.workbook.quiz): every right answer is accepted, every
listed wrong answer gets its own hint, every notebook's questions are covered, the student copies ask
each question without holding its answer, and a student copy runs its quiz cells headlessly."""
from __future__ import annotations

import html
import re

import nbformat
import pytest

from sbertlib.workbook.publish import notebooks
from sbertlib.workbook import questionnaire, quiz
from sbertlib.workbook.quiz import Choice, Number

QUESTIONS = quiz.bank()
CHOICES = {qid: q for qid, q in QUESTIONS.items() if isinstance(q, Choice)}
NUMBERS = {qid: q for qid, q in QUESTIONS.items() if isinstance(q, Number)}


def numbered(source: str) -> int:
    """Numbered items of a questions or answers cell, counted as tests/test_project.py counts them."""
    return sum(1 for line in source.splitlines() if line.lstrip()[:3].rstrip(". ").isdigit())


def questions_cell(nb) -> int:
    return max(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "## questions" in c.source.lower()
               and "answers" not in notebooks.tags(c))


# ----------------------------------------------------------------------------- the feedback

@pytest.mark.parametrize("qid", list(CHOICES))
def test_choice_accepts_its_answer_and_hints_every_wrong_option(qid):
    q = CHOICES[qid]
    assert len(q.options) >= 2 and q.answer in q.options
    for answer in (q.answer, q.answer.upper(), f"({q.answer})", q.options[q.answer]):
        fb = quiz.feedback(qid, answer)
        assert fb.right is True and "right" in fb.text, (answer, fb.text)
    for letter, option in q.options.items():
        if letter == q.answer:
            continue
        fb = quiz.feedback(qid, letter)
        assert fb.right is False and fb.text.endswith("Hint: " + q.hints[letter])
        assert q.options[q.answer] not in fb.text, f"{qid}: the hint for ({letter}) gives the right option away"
        assert q.hints[letter].strip(), f"{qid}: ({letter}) has an empty hint"


@pytest.mark.parametrize("qid", list(NUMBERS))
def test_number_accepts_its_answer_within_tolerance_and_hints_low_high_and_slips(qid):
    q = NUMBERS[qid]
    for value in (q.answer, q.answer + q.tolerance, q.answer - q.tolerance, f"{q.answer:,}"):
        assert quiz.feedback(qid, value).right is True, value
    step = q.tolerance + max(1e-3 * abs(q.answer), 1e-3)
    low, high = q.answer - step, q.answer + step
    for value, hint in ((low, q.hint_low), (high, q.hint_high)):
        assert not any(abs(value - t) <= q.tolerance for t in q.traps)
        fb = quiz.feedback(qid, value)
        assert fb.right is False and fb.text.endswith("Hint: " + hint), fb.text
    assert "too low" in quiz.feedback(qid, low).text and "too high" in quiz.feedback(qid, high).text
    for trap, hint in q.traps.items():
        fb = quiz.feedback(qid, trap)
        assert fb.right is False and fb.text.endswith("Hint: " + hint), fb.text
        assert f"{q.answer:g}" not in hint


def test_feedback_reads_what_students_type_and_says_so_when_it_cannot():
    assert quiz.feedback("03.2a", "126").right is True
    assert quiz.feedback("01.1a", "49,995,000").right is True
    assert quiz.feedback("01.1a", "49 995 000").right is True
    assert quiz.feedback("06.1b", "−0.0").right is True
    assert quiz.feedback("03.2a", 124).text == ("03.2a: 124 is not it. Hint: The last, smaller batch of each epoch "
                                                "is still a step: round up, per epoch.")
    for qid, answer in (("03.2a", "many"), ("03.2a", True), ("03.4", "z"), ("03.4", "")):
        fb = quiz.feedback(qid, answer)
        assert fb.right is None and "answer with" in fb.text
    with pytest.raises(KeyError, match="several parts: check each of 03.2a, 03.2b, 03.2c"):
        quiz.feedback("03.2", 126)
    with pytest.raises(KeyError, match="no question 03.9; notebook 03's are 03.1"):
        quiz.feedback("03.9", "a")
    with pytest.raises(ValueError, match="no question id"):
        quiz.feedback("question two", "a")


def test_decimal_commas_nan_huge_and_long_answers():
    q = quiz._question("01.1a")
    assert quiz.feedback("01.1a", "49,995,000").right is True       # commas grouping thousands
    assert quiz._read_number("0,68") == 0.68 and quiz._read_number("1.234,5") is None  # a decimal comma; a muddle
    assert quiz._read_number("0,680") == 0.68                         # no number starts "0," with thousands
    nan = quiz.feedback("01.1a", float("nan"))
    assert nan.right is None and "NaN is not a number" in nan.text and "too high" not in nan.text
    huge = quiz.feedback("01.1a", 10 ** 400)                           # no OverflowError
    assert huge.right is False and "too high" in huge.text
    long = quiz.feedback("01.1a", "x" * 1_000_000)
    assert long.right is None and len(long.text) < 200
    assert f"{q.answer:g}" not in quiz.feedback("01.1a", q.answer).text or q.answer < 1e6  # shown as written
    assert "49,995,000 is right" in quiz.feedback("01.1a", 49_995_000).text


def test_check_prints_the_same_feedback(capsys):
    quiz.check("06.1a", 1.7)
    assert capsys.readouterr().out.strip() == quiz.feedback("06.1a", 1.7).text
    quiz.check("06.1a", "0.3")
    assert capsys.readouterr().out.strip() == "06.1a: 0.3 is right."


def test_a_discussion_question_has_nothing_to_check(monkeypatch):
    bank = {"99.1": quiz.discuss("What would you do?"), "99.2": quiz.number("How many?", 3, 0, "low", "high")}
    monkeypatch.setattr(quiz, "bank", lambda: bank)
    assert quiz.checkable("99") == ["99.2"]
    assert quiz.feedback("99.1", "anything").right is None
    assert "To discuss (no self-check): 99.1" in quiz.text_listing("99")


def test_questions_are_defined_consistently():
    with pytest.raises(ValueError):
        quiz.choice("Which?", "a", {"a": "same as the answer"})
    with pytest.raises(ValueError):
        quiz.choice("Which?", "a", {})
    with pytest.raises(ValueError, match="within the tolerance"):
        quiz.number("How many?", 10, 1, "low", "high", {10.5: "a slip inside the tolerance"})
    # the display order is fixed, and the right option does not always stand in one place
    assert quiz.choice("Which?", "x", {"y": "h", "z": "h"}) == quiz.choice("Which?", "x", {"y": "h", "z": "h"})
    assert len({q.answer for q in CHOICES.values()}) >= 3
    for qid, q in QUESTIONS.items():
        quiz.parse_id(qid)
        assert q.prompt.strip(), qid


def test_a_questionnaire_file_reads_as_written_and_its_mistakes_are_named_with_their_line(tmp_path):
    good = """# Questions of notebook 99

## 99.1 choice
Which one,
and why?
- [ ] Not this
  hint: Look again.
- [x] This one

## 99.2 number
How many?
- answer: 83 / 44
- tolerance: 0.02
- too low: More.
- too high: Fewer.
- 39: A ratio, not a difference.

## 99.3 discuss
Talk it over.
"""
    (tmp_path / "99.md").write_text(good, encoding="utf-8")
    read = questionnaire.read(tmp_path / "99.md")
    assert read["99.1"] == quiz.choice("Which one, and why?", "This one", {"Not this": "Look again."})
    assert read["99.2"] == quiz.number("How many?", 83 / 44, 0.02, "More.", "Fewer.", {39: "A ratio, not a difference."})
    assert read["99.3"] == quiz.discuss("Talk it over.")
    for wrong, line, said in [
            (good.replace("  hint: Look again.\n", ""), 3, "hint"),
            (good.replace("- [x] This one", "- [ ] This one\n  hint: h"), 3, "exactly one"),
            (good.replace("- tolerance: 0.02\n", ""), 10, "tolerance"),
            (good.replace("- answer: 83 / 44", "- answer: about 2"), 10, "99.2"),
            (good.replace("## 99.3", "## 98.3"), 18, "not a new question of notebook 99"),
            (good.replace("- 39:", "- 39 ="), 16, "an item reads"),
            ("Stray text\n" + good, 1, "before the first question")]:
        (tmp_path / "99.md").write_text(wrong, encoding="utf-8")
        with pytest.raises(ValueError, match=rf"99\.md, line {line}\b.*{said}"):
            questionnaire.read(tmp_path / "99.md")


# ----------------------------------------------------------------------------- the notebooks

@pytest.mark.parametrize("path", notebooks.notebook_paths(), ids=lambda p: p.name)
def test_every_question_of_the_notebook_is_covered(path):
    nb = nbformat.read(path, as_version=4)
    number = path.name[:2]
    qi = questions_cell(nb)
    n = numbered(nb.cells[qi].source)
    covered = {quiz.parse_id(qid)[1] for qid in quiz.ids(number)}
    assert covered == set(range(1, n + 1)), f"{path.name}: {n} questions, checks for {sorted(covered)}"
    assert len({quiz.parse_id(q)[1] for q in quiz.checkable(number)}) >= n - 1, \
        f"{path.name}: most questions should check themselves"
    ask = nb.cells[qi + 1]
    assert ask.cell_type == "code" and "quiz" in notebooks.tags(ask) and f'quiz.ask("{number}")' in ask.source
    answers = [c for c in nb.cells if "answers" in notebooks.tags(c)]
    assert answers and numbered(answers[0].source) == n, "the lecturer's copy keeps the written answers"


def _plain_forms(value: float) -> set[str]:
    forms = {f"{value:g}", f"{value:,g}", f"{value:,.0f}", f"{value:.0f}", f"{value:.2f}"}
    return {f for f in forms if len(f.replace(",", "").replace(".", "").strip("0")) >= 2}


@pytest.mark.parametrize("path", notebooks.notebook_paths(), ids=lambda p: p.name)
def test_student_copy_asks_each_question_below_it_without_its_answer(path):
    lecturer = nbformat.read(path, as_version=4)
    number = path.name[:2]
    written = next(c.source for c in lecturer.cells if "answers" in notebooks.tags(c))
    student = notebooks.student_copy(lecturer)
    nbformat.validate(student)
    assert len({c.id for c in student.cells}) == len(student.cells)
    assert not any(f'quiz.ask("{number}")' in c.source for c in student.cells), "the whole-notebook cell is split"
    head = next(i for i, c in enumerate(student.cells) if "## questions" in c.source.lower())
    assert "self-check" in student.cells[head].source and not re.search(r"^\d+\.", student.cells[head].source, re.M)
    tail = student.cells[head + 1:]
    for q in range(1, numbered(lecturer.cells[questions_cell(lecturer)].source) + 1):
        k = next(i for i, c in enumerate(tail) if c.cell_type == "markdown" and c.source.startswith(f"{q}. "))
        parts = quiz.ids(f"{number}.{q}")
        if quiz.checkable(f"{number}.{q}"):
            ask = tail[k + 1]
            assert ask.cell_type == "code" and "quiz" in notebooks.tags(ask)
            assert ask.source.strip().endswith(f'quiz.ask("{number}.{q}")')
        near = "\n".join(c.source for c in tail[k:k + 2])
        asked = lecturer.cells[questions_cell(lecturer)].source  # a question may name its options itself
        for qid in parts:
            item = QUESTIONS[qid]
            if isinstance(item, Choice):
                right = item.options[item.answer]
                assert right not in near or right in asked, f"{qid}: the right option sits next to the question"
            elif isinstance(item, Number):
                leaked = {f for f in _plain_forms(item.answer) if f in near and f not in asked}
                assert not leaked, f"{qid}: {leaked} sits next to the question"
    # the lecturer's written answers are nowhere (the notebook's own teaching text may well state the facts)
    sources = "\n".join(c.source for c in student.cells)
    assert written.strip() not in sources
    assert not any(line.strip() in sources for line in written.splitlines()[2:] if len(line.strip()) > 60)


def test_a_notebook_without_a_quiz_cell_keeps_its_questions_whole():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("## Questions\n\n1. Why?\n2. How?")])
    assert notebooks.student_copy(nb).cells[0].source == "## Questions\n\n1. Why?\n2. How?"


# ----------------------------------------------------------------------------- showing the questions

def test_the_widget_answers_back_and_its_snapshot_marks_no_answer():
    view = quiz.QuizWidget("03")
    assert set(view.controls) == set(quiz.checkable("03"))
    assert view.press("03.4").right is None                      # nothing picked yet
    q = CHOICES["03.4"]
    wrong = next(k for k in q.options if k != q.answer)
    view.controls["03.4"].value = wrong
    assert view.press("03.4").right is False and q.hints[wrong].split(":")[0] in view.results["03.4"].value
    view.controls["03.4"].value = q.answer
    assert view.press("03.4").right is True and "is right" in view.results["03.4"].value
    view.controls["03.2a"].value = "124"
    assert "round up, per epoch" in view.press("03.2a").text
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and "sbert-snapshot" in bundle["text/html"]
    for text in (bundle["text/html"], bundle["text/plain"]):
        assert "126" not in text and "is right" not in text and "✓" not in text
    assert all(html.escape(opt) in bundle["text/html"] and opt in bundle["text/plain"] for opt in q.options.values())


def test_ask_without_ipython_prints_the_questions(capsys):
    quiz.ask("06")
    out = capsys.readouterr().out
    assert "06.1a" in out and 'quiz.check("06.1a", <number>)' in out and 'quiz.check("06.2", "<letter>")' in out
    with pytest.raises(KeyError):
        quiz.ask("42")


@pytest.mark.integration
def test_a_student_copy_runs_its_quiz_cells_on_smoke(shared_data, tmp_path):
    """Notebook 00's student copy, as a student who did the exercise would run it: top to bottom in a
    fresh kernel, every self-check cell displays without waiting for input, and quiz.check answers."""
    path = next(p for p in notebooks.notebook_paths() if p.name.startswith("00_"))
    lecturer = nbformat.read(path, as_version=4)
    solutions = [c.source for c in lecturer.cells if "solution" in notebooks.tags(c)]
    student = notebooks.student_copy(lecturer)
    for cell, answer in zip([c for c in student.cells if "exercise" in notebooks.tags(c)], solutions, strict=True):
        cell.source = answer
    student.cells.append(nbformat.v4.new_code_cell('quiz.check("00.2", "{}")'.format(
        next(k for k in CHOICES["00.2"].options if k != CHOICES["00.2"].answer))))
    copy = tmp_path / path.name
    nbformat.write(student, copy)
    env = {"SBERTLIB_PROFILE": "smoke", "SBERTLIB_DATA_DIR": str(shared_data), "HF_HUB_OFFLINE": "1",
           "SBERTLIB_OUTPUT_DIR": str(tmp_path / "runs"), "MPLBACKEND": "Agg", "TQDM_DISABLE": "1"}
    nb, result = notebooks.execute(copy, timeout=180, env=env, cwd=path.parent)
    assert result.error is None, result.error
    asks = [c for c in nb.cells if "quiz" in notebooks.tags(c)]
    assert len(asks) == len({quiz.parse_id(q)[1] for q in quiz.checkable("00")})
    for cell in asks:
        data = [o.get("data", {}) for o in cell.outputs if o.get("output_type") == "display_data"]
        assert data and "application/vnd.jupyter.widget-view+json" in data[0] and "text/html" in data[0]
    printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert "is not it. Hint:" in printed


def test_the_right_option_is_not_given_away_by_its_length():
    """Issue 29: in all six of 14's questions the right option was the longest. A student who picks the longest
    option must do no better than chance, overall and in each notebook."""
    from collections import Counter
    longest, total = Counter(), Counter()
    for key, q in CHOICES.items():
        nb = key[:2]
        total[nb] += 1
        lengths = sorted(len(o) for o in q.options)
        longest[nb] += len(q.answer) == lengths[-1] and lengths[-1] > lengths[-2]   # strictly the longest
    assert sum(longest.values()) / sum(total.values()) <= 0.35, (sum(longest.values()), sum(total.values()))
    worst = {nb: (longest[nb], total[nb]) for nb in total if longest[nb] / total[nb] > 0.5}
    assert not worst, f"notebooks whose right options are mostly the longest: {worst}"

