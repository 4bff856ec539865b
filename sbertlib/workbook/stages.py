"""A stage: one run the workbook trains, whole. What it starts from (the profile's backbone, an earlier stage, or a
student under a teacher), its data, its objective and its :class:`~sbertlib.training.TrainingArguments` — and what
follows from those alone: its recipe (what :mod:`~sbertlib.workbook.runs` keys a run by), its training examples and
what they saw of the evaluation sets. A profile is a set of named stages, ``profile.stage("two-stage")``. A stage
computes and loads nothing trained (:mod:`~sbertlib.workbook.runs` trains or loads what it starts from, and a
teacher):

* ``"nli"`` — the paper's classification objective (SoftmaxLoss) on the profile's NLI pairs;
* ``"mnrl"`` — in-batch negatives (MultipleNegativesRankingLoss) on the NLI triplets;
* ``"stsb"`` — the regression objective (CosineSimilarityLoss) on STSb train;
* ``"two-stage"`` — the profile's NLI lesson (``profile.nli_objective``), then STSb (Table 2);
* ``"distill"`` — a small student (``profile.distill_student``) trained to give each sentence its teacher's vector
  (:class:`sbertlib.losses.DistillationLoss`; not in the paper), its word pieces started from a PCA of the teacher's;
* ``"distill-stsb"`` — that student, then STSb (notebook 14's own small model).
"""
from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import Callable

from ..errors import SettingError
from ..training.arguments import DEFAULT_SEED, TrainingArguments

# How each stage picks its training data, beyond the profile's sizes (the fields after the rule). Change a rule's
# text when the code that applies it changes: every run trained under the old rule is then retrained, not reused.
DATA_RULES = {
    "nli": ("labelled NLI pairs of the profile's nli_source, shuffled with seed 0, first max_train_pairs",
            "nli_source", "max_train_pairs"),
    "mnrl": ("NLI triplets (premise, entailed, contradicting) of the profile's nli_source, shuffled with seed 0, "
             "first max_train_pairs", "nli_source", "max_train_pairs"),
    "stsb": ("STSb train, shuffled with the run's seed, first stsb_train_pairs", "stsb_train_pairs"),
    "distill": ("the NLI triplets' and STSb train's sentences, each once, less every sentence of STSb dev/test, "
                "STS12-16 and SICK (case- and space-normalised), each with its teacher's vector",
                "nli_source", "max_train_pairs", "stsb_train_pairs"),
}
ALLNLI_TRAIN_PAIRS = 942_069  # AllNLI.tsv.gz train: SNLI train 550,152 - 785 without a gold label + MultiNLI 392,702
NLI_SOURCES = ("allnli", "offline-nli")
NAMES = ("nli", "mnrl", "stsb", "two-stage", "distill", "distill-stsb")
_EVAL_SETS: dict[str, dict] = {}  # data folder -> the evaluation sets (evaluation_sets)


@dataclass(frozen=True)
class Stage:
    """One named stage of ``profile`` (see the module docstring): everything that makes its run."""

    profile: object  # the Profile it belongs to (its data sizes, backbone, student, teacher)
    name: str
    data: str  # its rule in DATA_RULES: "nli", "mnrl", "stsb" or "distill"
    args: TrainingArguments  # how it trains, before a seed or overrides
    starts_from: str | None = None  # the stage whose trained encoder it goes on from; None: a fresh encoder
    teacher: str | None = None  # a distillation's: "reference" (the packaged encoder) or a stage's name

    def arguments(self, seed: int = DEFAULT_SEED, **overrides) -> TrainingArguments:
        """What ``fit`` reads: the stage's arguments with ``seed`` and ``overrides`` applied."""
        return self.args.replace(seed=seed, **overrides)

    @property
    def earlier(self) -> "Stage | None":
        """The stage this one goes on from, or None."""
        return stage(self.profile, self.starts_from) if self.starts_from else None

    def recipe(self, seed: int = DEFAULT_SEED, pooling: str = "mean", mixed_precision: str | None = None,
               overrides: dict | None = None) -> dict:
        """Everything that decides the weights this stage trains, as plain JSON-able data: what
        :func:`sbertlib.workbook.recipes.fingerprint` keys a run by."""
        p = self.profile
        args = self.arguments(seed, mixed_precision=mixed_precision, **(overrides or {})).to_dict()
        rule, *sizes = DATA_RULES[self.data]
        recipe = {"objective": self.name, "pooling": pooling, "max_seq_length": p.max_seq_length,
                  "args": {k: v for k, v in args.items() if k not in ("evaluation_steps", "checkpoint_steps")},
                  "data": {"rule": rule, **{k: getattr(p, k) for k in sizes}}, "dry_run": p.dry_run}
        if self.earlier:
            recipe["starts_from"] = self.earlier.recipe(seed, pooling, mixed_precision, overrides)
        elif self.teacher:
            recipe["student"] = p.distill_student
            recipe["teacher"] = ({"reference": p.reference_backbone, "revision": _revision(p.reference_backbone)}
                                 if self.teacher == "reference" else stage(p, self.teacher).recipe(seed))
        else:
            recipe.update(backbone=p.backbone, revision=_revision(p.backbone))
        return recipe

    def train(self, model, folder, seed: int = DEFAULT_SEED, pooling: str = "mean", data_dir=None, teacher_model=None,
              show_progress_bar: bool = True, mixed_precision: str | None = None, overrides: dict | None = None):
        """``model`` (what the stage starts from: see :func:`sbertlib.workbook.runs.trained_model`) trained by
        ``fit`` into the empty ``folder``; returns its History, holding the recipe and what the data saw
        (:meth:`contamination`). ``teacher_model``: a distillation's teacher encoder; ``overrides`` change the
        arguments."""
        from ..training import fit
        args = self.arguments(seed, mixed_precision=mixed_precision, **(overrides or {}))
        loss, train, evaluator = self.setup(model, seed, data_dir, teacher_model)
        history = fit(model, loss, train, args, evaluator=evaluator, output_dir=folder, profile=self.profile.name,
                      show_progress_bar=show_progress_bar)
        history.contamination = self.contamination(seed, data_dir)
        history.recipe = self.recipe(seed, pooling, mixed_precision, overrides)
        return history

    def examples(self, seed: int = DEFAULT_SEED, data_dir=None) -> list:
        """The stage's own training examples, as the data rule picks them (a distillation's: its sentences)."""
        if self.data == "stsb":
            from .. import data
            train = data.load_stsb("train", data_dir)
            random.Random(seed).shuffle(train)
            return train[:self.profile.stsb_train_pairs] if self.profile.stsb_train_pairs else train
        if self.data != "distill":
            return load_nli_train(self.profile, data_dir, triplets=self.data == "mnrl")
        return self.sentences(seed, data_dir)

    def sentences(self, seed: int = DEFAULT_SEED, data_dir=None) -> list[str]:
        """What a student is distilled on: every sentence of the profile's NLI triplets and of its STSb train
        pairs, each once, **less every sentence of an evaluation set the notebooks report** (STSb dev and test,
        STS12-16, SICK; compared case- and space-normalised): STSb train was compiled from STS 2012-2017, so
        without this a tenth of STSb test's sentences would be distilled."""
        from ..evaluation.contamination import normalise
        from ..training.distillation import distinct
        triplets = stage(self.profile, "mnrl").examples(seed, data_dir)
        pairs = stage(self.profile, "stsb").examples(seed, data_dir)
        evaluated = {normalise(s) for pairs_ in evaluation_sets(data_dir).values() for p in pairs_
                     for s in (p.sentence1, p.sentence2)}
        return [s for s in distinct([s for t in triplets for s in (t.anchor, t.positive, t.negative)]
                                    + [s for p in pairs for s in (p.sentence1, p.sentence2)])
                if normalise(s) not in evaluated]

    def training_texts(self, seed: int = DEFAULT_SEED, data_dir=None) -> list:
        """Every training example this stage's model saw, its earlier stages' and its trained teacher's included
        (texts only: no teacher vector is computed) — what :meth:`contamination` compares."""
        before = self.earlier or (self.teacher not in (None, "reference") and stage(self.profile, self.teacher))
        return (before.training_texts(seed, data_dir) if before else []) + self.examples(seed, data_dir)

    def contamination(self, seed: int = DEFAULT_SEED, data_dir=None) -> dict[str, dict]:
        """What the stage's training data (:meth:`training_texts`) saw of every evaluation set the notebooks report,
        each whole: ``{set: {"sentences": share, "pairs": share, ...}}`` (a packaged teacher's own data is not known
        here)."""
        from ..evaluation import contamination as measure
        return measure.contamination(self.training_texts(seed, data_dir), evaluation_sets(data_dir))

    def setup(self, model, seed: int = DEFAULT_SEED, data_dir=None, teacher_model=None):
        """``(loss, train_data, evaluator)`` that ``fit`` trains ``model`` with for this stage, seeded first (the
        classifier head starts from the same weights every time); a distillation's examples carry ``teacher_model``'s
        vectors (:func:`sbertlib.workbook.runs.teacher` gives it)."""
        from .. import data, losses
        from ..evaluation import stsb_dev_evaluator
        from ..training import seed_everything
        seed_everything(seed)
        evaluator = stsb_dev_evaluator(data_dir, max_pairs=self.profile.dev_pairs_during_training)
        if self.data == "distill":
            from ..training.distillation import teacher_examples
            if teacher_model is None:
                raise SettingError(f"stage {self.name!r} distils: give it its teacher (runs.teacher(profile))")
            examples = teacher_examples(teacher_model, self.sentences(seed, data_dir))
            seed_everything(seed)  # the teacher may have been trained just now
            return losses.DistillationLoss(model), examples, evaluator
        loss = {"nli": lambda: losses.SoftmaxLoss(model, num_labels=len(data.NLI_LABELS)),
                "mnrl": lambda: losses.MultipleNegativesRankingLoss(model),
                "stsb": lambda: losses.CosineSimilarityLoss(model)}[self.data]()
        return loss, self.examples(seed, data_dir), evaluator


def stage(profile, name: str) -> Stage:
    """``profile``'s stage ``name`` (one of :data:`NAMES`)."""
    if name not in NAMES:
        raise SettingError(f"unknown objective {name!r}; choose one of {NAMES}")
    p = profile
    return {"nli": lambda: Stage(p, name, "nli", p.nli.replace(save_head=True)),
            "mnrl": lambda: Stage(p, name, "mnrl", p.nli.replace(save_head=False)),
            "stsb": lambda: Stage(p, name, "stsb", p.stsb),
            "two-stage": lambda: Stage(p, name, "stsb", p.stsb, starts_from=p.nli_objective),
            "distill": lambda: Stage(p, name, "distill", p.distill, teacher=p.distill_teacher),
            "distill-stsb": lambda: Stage(p, name, "stsb", p.stsb, starts_from="distill")}[name]()


def evaluation_sets(data_dir=None) -> dict[str, list]:
    """Every evaluation set the notebooks report, whole, loaded once per process and data folder
    (:func:`sbertlib.evaluation.contamination.evaluation_sets`)."""
    from ..evaluation import contamination as measure
    key = str(data_dir)
    if key not in _EVAL_SETS:
        _EVAL_SETS[key] = measure.evaluation_sets(data_dir=data_dir)
    return _EVAL_SETS[key]


# ----------------------------------------------------------------------------- the NLI data
def load_nli_train(profile, data_dir: str | os.PathLike | None = None, seed: int = 0,
                   triplets: bool = False, make_triplets: Callable | None = None) -> list:
    """The NLI training data of ``profile``: shuffled with ``seed`` and cut to ``max_train_pairs``.

    ``allnli``: the AllNLI train split (file found in the data folder, or downloaded);
    ``offline-nli``: SNLI dev + test and SICK train from the offline data folder.
    ``triplets=True``: (premise, entailed, contradicting) triplets (``data.nli_triplets``) instead
    of labelled pairs — what MNRL and the triplet objective train on; ``make_triplets`` (pairs →
    triplets, default ``data.nli_triplets``) makes them — notebook 06 passes the student's.
    """
    from .. import data
    if profile.nli_source == "allnli" and profile.dry_run:
        return _dry_run_allnli(profile, data_dir, seed, triplets, make_triplets)
    if profile.nli_source == "allnli":
        pairs = data.load_allnli("train", data_dir)
    elif profile.nli_source == "offline-nli":
        pairs = offline_nli(data_dir)
    else:
        raise SettingError(f"unknown nli_source {profile.nli_source!r}; expected one of {NLI_SOURCES}")
    if triplets:
        pairs = triplets_of(pairs, make_triplets)
    random.Random(seed).shuffle(pairs)
    return pairs[:profile.max_train_pairs] if profile.max_train_pairs else pairs


def offline_nli(data_dir) -> list:
    """SNLI dev + test and SICK train: the NLI pairs the offline data holds."""
    from .. import data
    return data.load_snli("dev", data_dir) + data.load_snli("test", data_dir) + data.load_sick_nli("train", data_dir)


def triplets_of(pairs: list, make_triplets: Callable | None) -> list:
    """``make_triplets(pairs)`` (default ``data.nli_triplets``) as ``data.Triplet`` records."""
    from .. import data
    made = (make_triplets or data.nli_triplets)(pairs)
    return [t if isinstance(t, data.Triplet) else data.Triplet(*t) for t in made]


def _dry_run_allnli(profile, data_dir, seed: int, triplets: bool,
                    make_triplets: Callable | None = None) -> list:
    """A dry run's AllNLI train: the offline NLI pairs (or their triplets) shuffled with ``seed`` and
    cycled to ``max_train_pairs``, or to all of AllNLI: its pairs, or as many triplets as the offline
    data's triplets per pair give from them."""
    from .. import data
    pairs = offline_nli(data_dir)
    items = triplets_of(pairs, make_triplets) if triplets else pairs
    full = round(ALLNLI_TRAIN_PAIRS * len(items) / len(pairs))
    random.Random(seed).shuffle(items)
    return [items[i % len(items)] for i in range(min(profile.max_train_pairs or full, full))]


def _revision(name: str | None) -> str | None:
    """The Hub revision a backbone is read at; None for one built here (a random or packaged model)."""
    from ..model.backbones import MODEL_REVISIONS, model_revision
    return model_revision(name) if name and (name in MODEL_REVISIONS or "/" in name) else None
