"""Every sentence that names a profile's model, teacher, data or objective is true on every profile (issue 38).

The prose of notebooks 04, 05 and 14 that names a start, a teacher or training data is written by
:mod:`sbertlib.workbook.prose` (and :func:`sbertlib.workbook.figures.distillation_ladder`) from the profile's own
fields. Here it is rendered for all four profiles — and the dry runs of each, whose hub backbones have random weights —
by the text functions alone (``laptop`` and ``paper`` need a download and hours to run), and each statement of start,
teacher and data is checked against the fields of the profile that made it: what it starts from (random weights or a
pre-trained BERT), its NLI objective and data, its teacher (``distill_teacher``) and what that teacher saw.

The notebooks' Markdown cannot follow a profile, so it says each profile-bound fact for the profiles it names; the
last tests check those facts against ``PROFILES``, that the notebooks print the prose functions rather than literals,
and that the statements the fact-check of issue 38 found wrong or misleading are gone.
"""
from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from sbertlib import paper
from sbertlib.model import architectures, backbones
from sbertlib.workbook import figures, prose
from sbertlib.workbook.profiles import PROFILES, as_dry_run, backbone_label

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("smoke", "offline", "laptop", "paper")
# the four profiles, their dry runs, and smoke's sizes with laptop's and paper's kind of teacher (notebook 05's)
ALL = ([PROFILES[n] for n in NAMES] + [as_dry_run(PROFILES[n]) for n in NAMES]
       + [replace(PROFILES["smoke"], distill_teacher="two-stage")])
IDS = list(NAMES) + [f"{n}-dry-run" for n in NAMES] + ["smoke-with-05s-teacher"]
SCORES = (44.0, 70.0, 44.5, 74.4, 77.3, 82.0)  # the ladder's six rungs: any numbers do for the words


def random_weights(name: str | None) -> bool:
    """The test's own reading of a backbone name: the workbook's random stand-ins and a dry run's copies."""
    return (name in (backbones.RANDOM_SMALL, backbones.TINY, backbones.RANDOM_BASE)
            or architectures.is_random_init(str(name)))


def trained_on_stsb(objective: str) -> bool:
    return objective in ("stsb", "two-stage", "distill-stsb")


def ladder(profile):
    return figures.distillation_ladder(dict(zip(prose.ladder_rows(profile), SCORES)), 1379, profile,
                                       "about the random start")


def words(*texts: str) -> str:
    return "\n".join(texts)


# ----------------------------------------------------------------------------- start and data
@pytest.mark.parametrize("profile", ALL, ids=IDS)
def test_what_a_run_starts_from_is_said_from_the_backbone(profile):
    for name in dict.fromkeys((profile.backbone, profile.baseline_backbone, profile.distill_student)):
        said = prose.start(name)
        assert architectures.hub_name(name) in said or backbone_label(name) in said, (name, said)
        assert ("random" in said.lower()) == random_weights(name), (name, said)
        assert ("pre-trained" in said) == (not random_weights(name)), (name, said)


@pytest.mark.parametrize("profile", ALL, ids=IDS)
def test_the_nli_lesson_is_said_from_its_objective_and_data(profile):
    said = prose.nli_lesson(profile)
    assert ("MNRL" in said) == (profile.nli_objective == "mnrl"), said
    assert ("classification objective" in said) == (profile.nli_objective == "nli"), said
    assert ("triplets" in said) == (profile.nli_objective == "mnrl"), said
    assert ("AllNLI" in said) == (profile.nli_source == "allnli"), said
    assert ("SICK train" in said) == (profile.nli_source == "offline-nli"), said
    if profile.max_train_pairs is None:
        assert "all the" in said and not re.search(r"\d{2},\d{3}", said), said
    else:
        assert f"{profile.max_train_pairs:,} " in said, said
    assert ("dry run" in said) == (profile.dry_run and profile.nli_source == "allnli"), said
    stsb = prose.stsb_stage(profile)
    assert ("all of STSb train" in stsb) == (profile.stsb_train_pairs is None), stsb
    two = prose.two_stage(profile)
    assert prose.start(profile.backbone) in two and said in two and stsb in two, two


# ----------------------------------------------------------------------------- notebook 14: the teacher
@pytest.mark.parametrize("profile", ALL, ids=IDS)
def test_the_teacher_is_the_profiles_own(profile):
    said = prose.teacher(profile)
    if profile.distill_teacher == "reference":
        assert profile.reference_backbone in backbones.MINILM_NAMES
        assert "all-MiniLM-L6-v2" in said and "published" in said and "not here" in said, said
        assert "nreimers/MiniLM-L6-H384-uncased" in said and "every second layer of the 12-layer MiniLM-L12-H384" in said
        assert "1.17 billion" in said and "none of them STS data" in said, said
        assert "notebook 05" not in said
    else:
        assert profile.distill_teacher == "two-stage", "a teacher this test does not know: say it in prose.teacher"
        assert "notebook 05's two-stage model, trained here" in said and prose.two_stage(profile) in said, said
        assert "published" not in said and "MiniLM" not in said, said
    short = prose.teacher_short(profile)
    assert ("published" in short) == (profile.distill_teacher == "reference"), short
    assert ("trained here" in short) == (profile.distill_teacher != "reference"), short


@pytest.mark.parametrize("profile", ALL, ids=IDS)
def test_the_ladders_rows_say_each_start_and_training_from_the_profile(profile):
    rows = prose.ladder_rows(profile)
    assert len(rows) == len(set(rows)) == 6
    first, second, *_, last = rows
    assert backbone_label(profile.distill_student) in first, first
    assert ("its own pre-trained word pieces" in first) == (not random_weights(profile.distill_student)), first
    objective = {"mnrl": "MNRL", "nli": "classification objective"}[profile.nli_objective]
    assert objective in second and ("MNRL" in second) == (profile.nli_objective == "mnrl"), second
    teacher_is_05 = profile.distill_teacher == "two-stage"
    assert ("the teacher itself" in second) == teacher_is_05, second
    assert ("no teacher" in second) == (not teacher_is_05), second
    same = profile.backbone == profile.distill_student
    assert ("from the same random network" in second) == (same and random_weights(profile.backbone) and not teacher_is_05)
    if not same or teacher_is_05:
        assert prose.start(profile.backbone) in second, second
    assert last.startswith("teacher: ") and ("published" in last) == (not teacher_is_05), last


@pytest.mark.parametrize("profile", ALL, ids=IDS)
def test_the_ladders_verdict_names_the_actual_teacher_and_the_paper_rows_that_saw_as_much(profile):
    table, lines = ladder(profile)
    text = words(*lines, *table.index)
    saw_stsb = trained_on_stsb(profile.distill_teacher)
    assert ("paper: SBERT-NLI-base" in text) == (not saw_stsb), text
    assert "paper: SBERT-NLI-STSb-base (Table 2; trained on STSb train)" in table.index
    assert "a published model's knowledge borrowed in both" not in text  # issue 38: true of one teacher only
    if profile.distill_teacher == "reference":
        assert "all-MiniLM-L6-v2's knowledge (a published model" in lines[3], lines[3]
        assert lines[2].startswith("Distilled only (no STS score in its own training, no evaluation sentence; its "
                                   "teacher's knowledge borrowed): 74.40 beside the paper's SBERT-NLI-base 77.03")
        assert "not comparable in training data" in lines[2] and "without a teacher" in lines[1]
    else:
        assert "published" not in text and "MiniLM" not in text, text
        assert "notebook 05's two-stage model" in lines[1] and "without a teacher" not in lines[1], lines[1]
        assert "its teacher was trained on STSb train" in lines[2] and "beside no unsupervised paper row" in lines[2]
        assert "notebook 05's two-stage model (trained here " + prose.two_stage(profile) in lines[3], lines[3]
    if profile.nli_objective != "mnrl":
        assert "MNRL" not in text, text
    assert prose.table1_paper_rows(profile) == ([] if saw_stsb else
                                                ["Avg. BERT embeddings", "SBERT-NLI-base", "SBERT-NLI-large"])
    beside = prose.ladder_paper_rows(profile)
    assert (beside["distilled"] is None) == saw_stsb
    assert beside["distilled, then STSb"] == ("SBERT-NLI-STSb-base",
                                              paper.TABLE2["Trained on NLI data + STSb"]["SBERT-NLI-STSb-base"][0])


@pytest.mark.parametrize("profile", ALL, ids=IDS)
def test_what_the_teachers_and_the_students_rows_are_in_table_1(profile):
    said, saw = prose.teacher_in_table1(profile), prose.distilled_saw(profile)
    if trained_on_stsb(profile.distill_teacher):
        assert "not unsupervised on STS12–16" in said and "no paper row is shown" in said, said
        all_of_stsb = profile.stsb_train_pairs is None
        assert ("a third to a half of STS12–15 and a sixth of STS16" in said) == all_of_stsb, said
        assert all_of_stsb or f"{profile.stsb_train_pairs:,} of STSb train's pairs" in said, said
        assert saw.endswith("but its teacher was trained on STSb train"), saw
    else:
        # Table 1's sense (§4.1): no STS training data. all-MiniLM-L6-v2's card lists none: unsupervised in that sense,
        # not comparable in training data (about a thousand times the paper's NLI pairs, overlap not measured)
        assert "is unsupervised in Table 1's sense" in said and "not comparable with the paper's in training data" in said
        assert "1,170 times" in said and "not measured" in said, said
        assert "trained on no STS data" in saw and "trained on STSb train" not in saw, saw


# ----------------------------------------------------------------------------- notebook 04: the untrained rows
@pytest.mark.parametrize("profile", ALL, ids=IDS)
def test_notebook_04s_untrained_row_has_a_paper_counterpart_only_from_a_pre_trained_bert(profile):
    random = random_weights(profile.baseline_backbone or profile.backbone)
    what = prose.untrained_what(profile, "mean pooling")
    assert what.startswith("untrained, mean pooling")
    assert ("random-weight stand-in (no paper counterpart)" in what) == random, what
    assert (prose.untrained_counterpart(profile, "Avg. BERT embeddings") == "Avg. BERT embeddings") == (not random)
    line = prose.untrained_beside_paper(profile, 46.35, 77.03, "STSb test")
    assert ("avg. BERT 46.35 → SBERT-NLI-base 77.03" in line) == (not random), line
    assert ("no counterpart of our untrained row" in line) == random, line
    assert bool(prose.stand_in_note(profile)) == random


# ----------------------------------------------------------------------------- the notebooks use them
def notebook(name: str) -> dict:
    return json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))


def cells(name: str, kind: str) -> str:
    """The text of a notebook's cells of ``kind``, every run of white space one space (Markdown wraps its lines)."""
    return " ".join("\n".join("".join(c["source"]) for c in notebook(name)["cells"] if c["cell_type"] == kind).split())


NB = {"03": "03_finetuning_on_nli", "04": "04_sts_evaluation", "05": "05_regression_and_two_stage",
      "06": "06_triplet_objective", "14": "14_distillation"}


def test_the_notebooks_print_the_prose_of_the_profile_not_a_literal():
    code14, code04, code05, code03 = (cells(NB[n], "code") for n in ("14", "04", "05", "03"))
    for call in ("prose.ladder_rows(profile)", "figures.distillation_ladder(stsb, len(test), profile,",
                 "prose.teacher(profile)", "figures.distillation_table1(suite_rows, saw, profile,",
                 "prose.distilled_saw(profile)", "prose.ladder_paper_rows(profile)", "prose.teacher_short(profile)"):
        assert call in code14, call
    for call in ('prose.untrained_what(profile, "mean pooling")', 'prose.untrained_what(profile, "CLS vector")',
                 "prose.untrained_counterpart(profile,", "prose.untrained_beside_paper(profile,",
                 "prose.stand_in_note(profile)", "prose.stsb_train_holds(", "prose.nli_lesson(profile)"):
        assert call in code04, call
    assert "prose.two_stage(profile)" in code05
    assert "fine-tuned on {min(PIT_PAIRS, len(pairs)):,} NLI pairs" in code03     # smoke holds 64, not 500


GONE = {  # what the fact-check of issue 38 found wrong or misleading, and the student's finds on smoke
    "14": ["a published model's knowledge borrowed in both", "two stages from the same random network (MNRL",
           "random word pieces, two stages of notebook 05 (MNRL → STSb)", "not \"unsupervised\" in Table 1's sense",
           "The teacher's row is not an unsupervised score", "is not an unsupervised score", "not into a smaller one",
           "fifty times notebook 03's", "reproduce a large *teacher* is Hinton", "knowledge distillation is Hinton",
           "ladder_table.iloc[-2, 0]", "a 6-layer MiniLM (Wang"],
    "04": ["BERT-base for the BERT rows", "paper: avg. BERT 46.35 →", "from the same captions as SICK-R's",
           "happen to hold none", "each score comes from 500 pairs, with two or three points of noise",
           '"untrained, mean pooling")'],
    "05": ["3.5–4 seed standard deviations", "push every cosine towards 1", "TIE = 0.5"],
    "06": ["the number of texts in one example", "(SNLI test here)"],
    "03": ["fine-tuned on {PIT_PAIRS} NLI pairs", "on 500 of our NLI pairs", "every batch of 64 gives each anchor"],
}


@pytest.mark.parametrize("nb", sorted(GONE))
def test_the_statements_found_wrong_are_gone(nb):
    text = cells(NB[nb], "markdown") + cells(NB[nb], "code")
    for phrase in GONE[nb]:
        assert phrase not in text, (NB[nb], phrase)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "knowledge distillation, Hinton et al. 2015;" not in readme and "the teacher all-MiniLM-L6-v2)" not in readme


P = PROFILES
REFERENCE = [n for n in NAMES if P[n].distill_teacher == "reference"]
TWO_STAGE = [n for n in NAMES if P[n].distill_teacher == "two-stage"]
# What each notebook's Markdown says of named profiles, word for word, and the fields that make it true.
MARKDOWN_FACTS = [
    ("14", '`distill_teacher="reference"` (`offline`, `smoke`)', REFERENCE == ["smoke", "offline"]),
    ("14", '`distill_teacher="two-stage"` (`laptop`, `paper`)', TWO_STAGE == ["laptop", "paper"]),
    ("14", 'with `"two-stage"` (`laptop`, `paper`) the profile\'s own two-stage SBERT', TWO_STAGE == ["laptop", "paper"]),
    ("14", "on `offline` and `smoke` the very random network that notebooks 03 and 05 trained from scratch",
     all(P[n].distill_student == P[n].backbone and random_weights(P[n].backbone) for n in ("offline", "smoke"))),
    ("14", "(`offline`: 2 layers, 128 wide)", P["offline"].distill_student == backbones.RANDOM_SMALL),
    ("14", "on `laptop` a 2-layer, 128-wide random BERT", P["laptop"].distill_student == backbones.RANDOM_SMALL),
    ("14", "on `paper` the pre-trained 4-layer, 256-wide BERT",
     P["paper"].distill_student == "google/bert_uncased_L-4_H-256_A-4"),
    ("14", "notebook 05's two stages start from the very random network the student starts as — MNRL on NLI",
     all(P[n].backbone == P[n].distill_student and P[n].nli_objective == "mnrl" for n in REFERENCE)),
    ("14", "they start from the pre-trained BERT with the classification objective, and that model is the teacher itself",
     all(not random_weights(P[n].backbone) and P[n].nli_objective == "nli" for n in TWO_STAGE)),
    ("14", "1e-3 on `offline` and `smoke`, 2e-5 on `laptop` and `paper`",
     [P[n].nli.lr for n in NAMES] == [1e-3, 1e-3, 2e-5, 2e-5]),
    ("14", "fifty times your loop's default of 2e-5", all(P[n].distill.lr == 1e-3 for n in NAMES)),
    ("14", "one epoch (smoke) or three over every teacher example, batches of 128",
     [P[n].distill.epochs for n in NAMES] == [1, 3, 3, 3] and all(P[n].distill.batch_size == 128 for n in NAMES)),
    ("14", "random where the student has random weights (`offline`, `smoke`, `laptop`), pre-trained on `paper`",
     [random_weights(P[n].distill_student) for n in NAMES] == [True, True, True, False]),
    ("14", "random on `offline`, `smoke` and `laptop`, pre-trained on `paper`",
     [random_weights(P[n].distill_student) for n in NAMES] == [True, True, True, False]),
    ("04", "Where it is a pre-trained BERT (`laptop`, `paper`)",
     not any(random_weights(P[n].baseline_backbone) for n in ("laptop", "paper"))),
    ("04", "Where it has random weights (`offline`: random-bert-2x128, `smoke`: tiny-random-bert — stand-ins)",
     (P["offline"].baseline_backbone, P["smoke"].baseline_backbone) == (backbones.RANDOM_SMALL, backbones.TINY)),
    ("04", "the paper's classification objective on `paper`/`laptop`, MNRL on `offline`/`smoke`",
     [P[n].nli_objective for n in NAMES] == ["mnrl", "mnrl", "nli", "nli"]),
    ("04", "(`offline` trains on all of it, `smoke` on 64 triplets drawn from it)",
     P["offline"].max_train_pairs is None and P["smoke"].max_train_pairs == 64
     and all(P[n].nli_source == "offline-nli" for n in ("offline", "smoke"))),
    ("05", "offline the first stage is your MNRL run of notebook 03", P["offline"].nli_objective == "mnrl"),
    ("03", "(`smoke`: 64; the cell prints how many)", P["smoke"].max_train_pairs == 64),
    ("03", "reference encoder (on the profiles that have one: `offline`, `smoke`)",
     [n for n in NAMES if P[n].reference_backbone] == ["smoke", "offline"]),
    ("03", "(`offline`'s batch of 64: 127)", P["offline"].nli.batch_size == 64 and P["offline"].nli_objective == "mnrl"),
    ("06", "(SNLI test offline, AllNLI test on `laptop` and `paper`",
     [P[n].nli_source for n in NAMES] == ["offline-nli", "offline-nli", "allnli", "allnli"]),
]


@pytest.mark.parametrize("nb, phrase, true", MARKDOWN_FACTS, ids=[f"{nb}:{p[:40]}" for nb, p, _ in MARKDOWN_FACTS])
def test_what_the_markdown_says_of_a_named_profile_is_what_the_profile_holds(nb, phrase, true):
    assert phrase in cells(NB[nb], "markdown"), f"notebook {nb} no longer says {phrase!r}: update this test with it"
    assert true, f"notebook {nb} says {phrase!r}, which the profiles no longer hold"


def test_notebook_04s_shares_are_what_the_data_give(shared_data):
    """Notebook 04 quotes STS12's 32.2%, STS14's 49.6%, STS16's 16.6% and SICK-R's 3,743 of 5,007 in its text: the
    lines its cell prints from the measurement must say the same."""
    from sbertlib import data
    from sbertlib.evaluation import contamination
    sets = contamination.evaluation_sets(data_dir=shared_data)
    held = prose.stsb_train_holds(contamination.contamination(data.load_stsb("train", shared_data), sets))
    for share in ("32.2% of STS12's", "49.6% of STS14's", "16.6% of STS16's"):
        assert share in held, held
    sick = prose.sentences_held(contamination.contamination(data.load_sick_nli("train", shared_data),
                                                            {"sick-r": sets["sick-r"]}), "sick-r", "SICK train")
    assert "(3,743 of 5,007)" in sick and "74.8% of SICK-R's distinct sentences word for word" in sick, sick
    markdown = cells(NB["04"], "markdown")
    for quoted in ("STS12's 32.2%", "STS14's 49.6%", "(16.6%)", "75% of SICK-R's distinct sentences word for word (3,743 of 5,007"):
        assert quoted in markdown, quoted


@pytest.mark.parametrize("profile", ALL, ids=IDS)
def test_notebook_14s_table1_shows_a_paper_row_only_beside_a_student_that_saw_no_sts_labels(profile):
    """figures.distillation_table1 (notebook 14, section 6): our two rows with what each saw, an avg over the sets
    shown, the paper's unsupervised rows only where the teacher saw no STS training data, SICK-R marked † where the
    student was distilled on SICK train's sentences."""
    caps = {"sts12": 500, "sick-r": 500, "stsb-test": None}
    ours = {"ours: student": {"sts12": 40.0, "sick-r": 50.0, "stsb-test": 60.0},
            "ours: teacher": {"sts12": 70.0, "sick-r": 80.0, "stsb-test": 90.0}}
    table, shown, notes = figures.distillation_table1(ours, ["saw A", "saw B"], profile, caps)
    assert table.loc["ours: student", "avg"] == 50.0 and list(table.columns) == [*caps, "avg"]
    paper_rows = [r for r in table.index if r.startswith("paper")]
    assert bool(paper_rows) == (profile.distill_teacher == "reference"), paper_rows
    assert ("sick-r †" in shown.columns) == (profile.nli_source == "offline-nli")
    assert "saw A" in shown.to_string() and "sts12 500, sick-r 500, stsb-test all" in "\n".join(notes)
    assert notes[0] == prose.teacher_in_table1(profile)   # the paragraph under the table, from the profile


@pytest.mark.parametrize("predict, says", [
    # trial 6 (2026-12-08): these raised Python's own errors, or were told nothing
    ({"highest accuracy": "1", "meets ε=5 after ε=5 training, %": "5%"}, "You predicted 5% of held-out triplets"),
    ({"highest accuracy": 1.0, "meets ε=5 after ε=5 training, %": [5, 10]}, r"write one number"),
    ({"highest acc": 1.0, "meets ε=5 after ε=5 training, %": 5}, "predict has the keys"),
    ({"highest accuracy": 1.0, "meets ε=5 after ε=5 training, %": ...}, "only one of the two predictions is made"),
    ({"highest accuracy": 2, "meets ε=5 after ε=5 training, %": 5}, "not its place in MARGINS"),
    ({"highest accuracy": 1.0, "meets ε=5 after ε=5 training, %": 150}, "between 0 and 100"),
    ({"highest accuracy": 1.0, "meets ε=5 after ε=5 training, %": 0.3}, "if you meant a share, that is 30%"),
])
def test_the_margin_prediction_is_read_as_the_student_wrote_it_or_named(predict, says, capsys):
    try:
        figures.tell_margin_prediction(predict, (0.1, 1.0, 5.0), best=5.0, best_accuracy=81.25, meets5=12.5)
    except AssertionError as err:   # an ExerciseError
        text = str(err)
    else:
        text = capsys.readouterr().out
    assert re.search(says, text)
