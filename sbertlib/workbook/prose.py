"""Sentences that name a profile's model, teacher, data or objective, each written from the profile's own fields —
never a literal that is true on one profile and false on another. Notebooks 03, 04, 05 and 14 print them
(:func:`sbertlib.workbook.figures.distillation_ladder` builds 14's rows from them); ``tests/test_profile_prose.py``
renders every one for each profile and dry run and checks each statement against the profile that made it."""
from __future__ import annotations

from typing import Mapping

from .. import paper
from ..model import architectures, backbones

# all-MiniLM-L6-v2's card: the data sets it was fine-tuned on add up to about 1.17 billion pairs, none of them STS
# data; the paper's NLI data: SNLI 570k + MultiNLI 430k pairs, "about one million" (§4).
MINILM_TRAIN_PAIRS = 1.17e9
PAPER_NLI_PAIRS = 570_000 + 430_000
MINILM_SOURCES = "AllNLI, COCO and Flickr30k captions, StackExchange, Quora, Reddit, MS MARCO, …"
MINILM_WHAT = ("nreimers/MiniLM-L6-H384-uncased — a 6-layer MiniLM that keeps every second layer of the 12-layer "
               "MiniLM-L12-H384 (Wang et al., 2020) — fine-tuned by sentence-transformers on about 1.17 billion "
               "sentence pairs, none of them STS data (its card lists none)")
STSB_TRAINED = ("stsb", "two-stage", "distill-stsb")  # runs whose training held STSb train's pairs with their scores
RANDOM_STAND_IN = "random-weight stand-in (no paper counterpart)"
OBJECTIVE_NAMES = {"mnrl": "MNRL (in-batch negatives)", "nli": "the paper's classification objective"}
OBJECTIVE_SHORT = {"mnrl": "MNRL", "nli": "classification objective"}


# ----------------------------------------------------------------------------- what a run starts from
def has_random_weights(name: str | None) -> bool:
    """True for a backbone that starts with random weights: the stand-ins (``random-bert-LxH``,
    ``tiny-random-bert``) and a dry run's ``random-init:`` copies of a hub model."""
    name = str(name or "")
    return name.startswith(("random-bert", "tiny-random-bert")) or architectures.is_random_init(name)


def start(name: str) -> str:
    """What a run that starts from backbone ``name`` starts from, in words: random weights said as such, a
    pre-trained BERT as pre-trained."""
    from .profiles import backbone_label
    label = backbone_label(name)
    if has_random_weights(name):
        return label if "random" in label.lower() else f"{label} (random weights)"
    if name in backbones.MINILM_NAMES:
        return f"{label}, a published sentence encoder"
    return f"the pre-trained {label}"


# ----------------------------------------------------------------------------- what it trains on
def nli_data(profile) -> str:
    """The profile's NLI training data: how many pairs or triplets (what its objective takes), of which source."""
    unit = "triplets" if profile.nli_objective == "mnrl" else "pairs"
    source = ("SNLI+MultiNLI (AllNLI)" if profile.nli_source == "allnli"
              else "the offline NLI data (SNLI dev+test, SICK train)")
    size = f"all the {unit}" if profile.max_train_pairs is None else f"{profile.max_train_pairs:,} {unit}"
    text = f"{size} of {source}"
    if profile.dry_run and profile.nli_source == "allnli":
        text += " (dry run: the offline NLI pairs cycled to that size)"
    return text


def nli_lesson(profile) -> str:
    """The profile's NLI lesson (notebook 03): its objective on its data."""
    return f"{OBJECTIVE_NAMES.get(profile.nli_objective, profile.nli_objective)} on {nli_data(profile)}"


def stsb_stage(profile) -> str:
    """The profile's STSb regression stage (notebook 05)."""
    size = "all of STSb train" if profile.stsb_train_pairs is None else f"{profile.stsb_train_pairs:,} STSb train pairs"
    return f"the regression objective on {size}"


def two_stage(profile) -> str:
    """Notebook 05's two-stage model of the profile: what it starts from, its NLI lesson, then STSb."""
    return f"from {start(profile.backbone)}: {nli_lesson(profile)}, then {stsb_stage(profile)}"


def two_stage_short(profile) -> str:
    """The two stages in a few words, e.g. ``MNRL → STSb``."""
    return f"{OBJECTIVE_SHORT.get(profile.nli_objective, profile.nli_objective)} on NLI → STSb"


# ----------------------------------------------------------------------------- notebook 14's teacher
def teacher_is_reference(profile) -> bool:
    """True when the student learns from the profile's packaged reference encoder, not from a run trained here."""
    return profile.distill_teacher == "reference"


def teacher_saw_stsb(profile) -> bool:
    """True when the teacher was trained on STSb train (its pairs with their scores)."""
    return profile.distill_teacher in STSB_TRAINED


def teacher_is_minilm(profile) -> bool:
    """True when the teacher is the packaged all-MiniLM-L6-v2."""
    return teacher_is_reference(profile) and profile.reference_backbone in backbones.MINILM_NAMES


def teacher(profile) -> str:
    """Who the profile's student learns from, and how that teacher was trained."""
    from .profiles import backbone_label
    kind = profile.distill_teacher
    if kind == "reference":
        if profile.reference_backbone is None:
            return "no teacher: the profile asks for its reference encoder and has none"
        if teacher_is_minilm(profile):
            return f"the packaged all-MiniLM-L6-v2, a published model trained elsewhere, not here: {MINILM_WHAT}"
        return f"the profile's reference encoder, {backbone_label(profile.reference_backbone)}, trained elsewhere"
    if kind == "two-stage":
        return f"notebook 05's two-stage model, trained here {two_stage(profile)}"
    return f"the profile's own {kind!r} run (runs.trained_model(profile, {kind!r})), trained here"


def teacher_short(profile) -> str:
    """The teacher in a few words (a row label, a headline)."""
    if teacher_is_minilm(profile):
        return "all-MiniLM-L6-v2, a published model"
    if teacher_is_reference(profile):
        return "the profile's reference encoder"
    if profile.distill_teacher == "two-stage":
        return "notebook 05's two-stage model, trained here"
    return f"the profile's {profile.distill_teacher!r} run, trained here"


def teacher_knowledge(profile) -> str:
    """Whose knowledge the distilled student borrows (the end of notebook 14's verdict)."""
    if teacher_is_minilm(profile):
        return ("all-MiniLM-L6-v2's knowledge (a published model, trained elsewhere on about 1.17 billion pairs) "
                "borrowed in both")
    if profile.distill_teacher == "two-stage":
        return (f"the knowledge of its teacher, notebook 05's two-stage model (trained here {two_stage(profile)}), "
                "borrowed in both")
    return f"its teacher's knowledge ({teacher_short(profile)}) borrowed in both"


def pairs_ratio() -> float:
    """How many times the paper's NLI pairs all-MiniLM-L6-v2 was trained on."""
    return MINILM_TRAIN_PAIRS / PAPER_NLI_PAIRS


def stsb_pairs_seen(profile) -> str:
    """What the profile's STSb stage shows a model of STS12–16: with all of STSb train, the very pairs of about a
    third to a half of STS12–15 and a sixth of STS16 (notebook 04, section 5); with a sample, that sample's pairs."""
    if profile.stsb_train_pairs is None:
        return ("the very pairs, with their scores, of about a third to a half of STS12–15 and a sixth of STS16 "
                "(notebook 04, section 5)")
    return (f"{profile.stsb_train_pairs:,} of STSb train's pairs with their scores, possibly some of "
            "STS12–16's very pairs (the \"training saw\" column says how many)")


def teacher_in_table1(profile) -> str:
    """What the teacher's Table 1 row is, and so the distilled student's: a paragraph for notebook 14."""
    if teacher_saw_stsb(profile):
        return (f"The teacher is {teacher(profile)}. Its STSb stage showed it {stsb_pairs_seen(profile)}: the teacher "
                "is not unsupervised on STS12–16 and stands beside no row of Table 1. The distilled-only student learnt "
                "its vectors, so it stands beside no unsupervised paper row either: no paper row is shown.")
    if teacher_is_minilm(profile):
        return ("The teacher, all-MiniLM-L6-v2, is unsupervised in Table 1's sense: the paper's Table 1 means no STS "
                f"training data (§4.1), and its card lists none. But it was trained on about {pairs_ratio():,.0f} times "
                f"as many pairs as the paper's SBERT-NLI rows (about 1.17 billion against ~1 million: {MINILM_SOURCES}), "
                "many from the kinds of source STS12–16 and SICK come from (captions, forums, questions); how much "
                "they overlap is not measured. Its "
                "row is not comparable with the paper's in training data. The distilled-only student learnt its "
                "vectors: read its row as borrowed knowledge, too.")
    return (f"The teacher is {teacher(profile)}: what it was trained on is not measured here, so its row, and the "
            "distilled student's, is not comparable with the paper's in training data.")


def table1_paper_rows(profile) -> list[str]:
    """The paper's Table 1 rows that notebook 14's distilled-only student stands beside: the unsupervised ones,
    unless its teacher was trained on STSb train — then none."""
    return [] if teacher_saw_stsb(profile) else ["Avg. BERT embeddings", "SBERT-NLI-base", "SBERT-NLI-large"]


def distilled_saw(profile) -> str:
    """What the distilled-only student's "training saw" cell adds to its measured note: its own training's
    sentences had no score, and what its teacher was trained on."""
    if teacher_saw_stsb(profile):
        return "; STSb train's sentences, no scores, in its own training — but its teacher was trained on STSb train"
    if teacher_is_minilm(profile):
        return "; STSb train's sentences, no scores; its teacher's vectors (a teacher trained on no STS data)"
    return "; STSb train's sentences, no scores; its teacher's vectors"


# ----------------------------------------------------------------------------- notebook 14's ladder
def ladder_rows(profile) -> list[str]:
    """The six row labels of notebook 14's ladder, in its order: the student's random start, notebook 05's two
    stages, the PCA start, distilled, distilled then STSb, the teacher."""
    from .profiles import backbone_label
    student = backbone_label(profile.distill_student)
    if has_random_weights(profile.distill_student):
        first = f"random start, not trained: {student}"
    else:
        first = f"random start, not trained: {student}, its own pre-trained word pieces and a random projection"
    stages = f"notebook 05's two stages ({two_stage_short(profile)})"
    if profile.distill_teacher == "two-stage":
        second = f"the teacher itself: {stages} from {start(profile.backbone)}"
    elif profile.backbone == profile.distill_student:
        second = f"{stages} from the same {'random ' if has_random_weights(profile.backbone) else ''}network, no teacher"
    else:
        second = f"{stages} from {start(profile.backbone)}, no teacher"
    return [first, second, "PCA word pieces + inverse projection, not trained", "PCA start, distilled",
            "PCA start, distilled, then STSb", f"teacher: {teacher_short(profile)}"]


def ladder_paper_rows(profile) -> dict[str, tuple[str, float] | None]:
    """The paper's rows beside the ladder's two distilled students: ``{"distilled": (row, score) or None,
    "distilled, then STSb": (row, score)}``. The distilled-only student stands beside SBERT-NLI-base (Table 2, not
    trained for STS) only where its teacher saw no STS training data."""
    nli_base = paper.TABLE2["Not trained for STS"]["SBERT-NLI-base"][0]
    nli_stsb = paper.TABLE2["Trained on NLI data + STSb"]["SBERT-NLI-STSb-base"][0]
    return {"distilled": None if teacher_saw_stsb(profile) else ("SBERT-NLI-base", nli_base),
            "distilled, then STSb": ("SBERT-NLI-STSb-base", nli_stsb)}


# ----------------------------------------------------------------------------- notebook 04's untrained rows
def stand_in_note(profile) -> str:
    """A note after the untrained network's name (the baseline backbone, else the backbone) where it has random
    weights; else empty."""
    return f" — {RANDOM_STAND_IN}" if has_random_weights(profile.baseline_backbone or profile.backbone) else ""


def untrained_what(profile, pooling: str) -> str:
    """Notebook 04's label for the untrained network with ``pooling`` ("mean pooling", "CLS vector"), with its
    :func:`stand_in_note`."""
    return f"untrained, {pooling}" + stand_in_note(profile)


def untrained_counterpart(profile, paper_row: str) -> str:
    """The paper row an untrained row of ours corresponds to: ``paper_row`` for a pre-trained backbone, none for
    random weights (the paper's Avg. BERT and CLS rows come from a pre-trained BERT)."""
    if stand_in_note(profile):   # random weights
        return f"(no counterpart: the paper's {paper_row} row is a pre-trained BERT's; ours has random weights)"
    return paper_row


def untrained_beside_paper(profile, paper_base: float, paper_sbert: float, what: str) -> str:
    """The paper's "avg. BERT → SBERT-NLI-base" beside our "untrained → after the NLI lesson" (``what``: the
    figures' columns): said as a pair only where our untrained row is a pre-trained BERT."""
    if stand_in_note(profile):   # random weights
        return (f"paper: SBERT-NLI-base {paper_sbert:.2f} ({what}); the paper's avg. BERT {paper_base:.2f} averages a "
                "pre-trained BERT's token vectors — no counterpart of our untrained row, a random-weight stand-in")
    return f"paper: avg. BERT {paper_base:.2f} → SBERT-NLI-base {paper_sbert:.2f} ({paper_sbert - paper_base:+.2f}; {what})"


# ----------------------------------------------------------------------------- notebook 04's contamination lines
def _percent(share: float) -> str:
    return f"{100 * share:.1f}%"


def stsb_train_holds(saw: Mapping[str, Mapping], years=("sts12", "sts13", "sts14", "sts15", "sts16")) -> str:
    """One sentence from a measured :func:`sbertlib.evaluation.contamination.contamination` of STSb train: the
    share of each STS year's pairs it holds as pairs, with their scores."""
    shown = [(name, saw[name]["same_pairs"]) for name in years if name in saw]
    parts = [f"{_percent(share)} of {name.upper()}'s" for name, share in shown]
    return ("STSb train holds the very pairs, with their scores, of "
            + (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)) + " pairs")


def sentences_held(saw: Mapping[str, Mapping], name: str, training: str) -> str:
    """One sentence: how many of evaluation set ``name``'s distinct sentences ``training`` holds word for word."""
    figures = saw[name]
    n = figures["eval_sentences"]
    held = round(figures["sentences"] * n)
    return (f"{training} holds {_percent(figures['sentences'])} of {name.upper()}'s distinct sentences word for word "
            f"({held:,} of {n:,}) and the very pairs of {_percent(figures['same_pairs'])} of its pairs")
