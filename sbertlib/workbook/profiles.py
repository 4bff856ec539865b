"""One switch for the whole workbook: which backbone, how much NLI data, how long to train. The profiles, why
``offline`` teaches MNRL, and the dry run (hub backbones as their architectures with random weights, AllNLI train as
the offline NLI pairs cycled to size: timings only) are the README's section "Profiles"; every per-profile setting is
here (:data:`PROFILES`). ``get_profile()`` picks one (``$SBERTLIB_PROFILE`` overrides) and says why in
``profile.reason``; ``describe(profile)`` is the sentence every notebook prints, naming stand-ins as such.
"""
from __future__ import annotations

import os
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import torch

from .. import config
from ..model import architectures, backbones
from ..errors import SettingError
from ..training.arguments import TrainingArguments
from .stages import ALLNLI_TRAIN_PAIRS, load_nli_train, stage, triplets_of

PROFILE_ENV = "SBERTLIB_PROFILE"
DRY_RUN_ENV = "SBERTLIB_DRY_RUN"
DRY_RUN_BANNER = ("DRY RUN: random weights (the real architectures, built from their configs) and stand-in NLI "
                  "data - timings only, every score is meaningless")
PAPER_BERT = backbones.PAPER_BACKBONE  # "bert-base-uncased"
SMALL_BERT = "google/bert_uncased_L-4_H-256_A-4"


@dataclass(frozen=True)
class Profile:
    """Every setting of one way of running the workbook (see the module docstring): nothing
    per-profile lives anywhere else.

    How it trains is one :class:`~sbertlib.training.TrainingArguments` per kind of stage — ``nli`` (the NLI
    lesson, either objective), ``stsb`` (the STSb regression, alone or as a second stage) and ``distill``
    (distillation onto the student); :meth:`stage` gives a named stage whole (what it starts from, its
    data, its arguments), and everything that trains, caches or prints a recipe reads the stage."""

    name: str
    backbone: str  # what training starts from: hub name, local folder, "random-bert-2x128", "tiny-random-bert"
    nli_source: str  # "allnli" (SNLI+MultiNLI file) or "offline-nli" (SNLI dev+test + SICK train)
    max_train_pairs: int | None  # NLI training pairs; None = all
    max_seq_length: int
    stand_in: bool  # True when the backbone is not a plain pre-trained BERT
    description: str
    nli: TrainingArguments  # the NLI lesson ("nli", "mnrl"); the paper: batch 16, lr 2e-5, 1 epoch
    stsb: TrainingArguments  # the STSb regression ("stsb", and the second stage of "two-stage", "distill-stsb")
    distill: TrainingArguments  # distillation over the teacher's vectors ("distill")
    baseline_backbone: str | None = None  # an untuned encoder for "before fine-tuning" comparisons
    stsb_train_pairs: int | None = None  # STSb regression training pairs (None = all 5,749)
    eval_pairs: int | None = None  # pairs used from each evaluation set (None = all)
    dev_pairs_during_training: int | None = None  # STSb dev pairs scored during training (None = all)
    nli_objective: str = "nli"  # the NLI lesson: "nli" (the paper's classification objective) or "mnrl"
    reference_backbone: str | None = None  # a fully trained sentence encoder shown for reference only
    precision: str = "fp32"  # how the workbook's encoders encode: "fp32", or "auto" = bf16 where the hardware
                             # multiplies bf16 natively (AMX/AVX512-BF16 CPU, recent GPU), else fp32
    distill_student: str | None = None  # the small student distillation trains (notebook 14): a backbone name
    distill_teacher: str = "reference"  # its teacher: "reference" (the packaged MiniLM) or an objective of runs
    reason: str = ""  # why get_profile() chose this profile
    dry_run: bool = False  # random weights and stand-in NLI data, to time the profile (see the module docstring)

    def stage(self, name: str):
        """The profile's stage ``name`` ("nli", "mnrl", "stsb", "two-stage", "distill", "distill-stsb"): everything
        that makes that run (:class:`sbertlib.workbook.stages.Stage`)."""
        return stage(self, name)


def _distill(evaluation_steps: int, epochs: int = 3) -> TrainingArguments:
    """The distillation stage: batches of 128 of similar length (the teacher's sentences vary a lot), lr 1e-3."""
    return TrainingArguments(epochs=epochs, batch_size=128, lr=1e-3, length_grouping=True,
                             evaluation_steps=evaluation_steps)


# STSb epochs: Table 2's caption, "BERT systems were trained with 10 random seeds and 4 epochs" — on STSb; we read
# it as every BERT-based system of Table 2's trained blocks, SBERT included, not only the BERT cross-encoders
# (§4.2: all systems, 10 random seeds). length_grouping: training batches of similar length (less padding:
# faster on a CPU; the order of the batches stays random).
PROFILES: dict[str, Profile] = {
    "paper": Profile(
        "paper", PAPER_BERT, "allnli", None, max_seq_length=128, stand_in=False, baseline_backbone=PAPER_BERT,
        nli=TrainingArguments(epochs=1, batch_size=16, lr=2e-5, evaluation_steps=1000),
        stsb=TrainingArguments(epochs=4, batch_size=16, lr=2e-5, evaluation_steps=1000),
        distill=_distill(evaluation_steps=1000),
        precision="auto", distill_student=SMALL_BERT, distill_teacher="two-stage",
        description="the paper's setup: BERT-base (bert-base-uncased, our choice of casing) fine-tuned for one "
                    "epoch on SNLI+MultiNLI — AllNLI's ~942k train pairs, 59k steps of batch 16 (the paper counts "
                    "570k + 430k); needs a GPU"),
    "laptop": Profile(
        "laptop", SMALL_BERT, "allnli", 20_000, max_seq_length=128, stand_in=False, baseline_backbone=SMALL_BERT,
        nli=TrainingArguments(epochs=1, batch_size=16, lr=2e-5, evaluation_steps=250),
        stsb=TrainingArguments(epochs=2, batch_size=16, lr=2e-5, evaluation_steps=250),
        distill=_distill(evaluation_steps=250),
        precision="auto", distill_student=backbones.RANDOM_SMALL, distill_teacher="two-stage",
        description="a 4-layer, 256-wide plain BERT fine-tuned on 20,000 SNLI+MultiNLI pairs; minutes on a CPU"),
    "offline": Profile(
        "offline", backbones.RANDOM_SMALL, "offline-nli", None, max_seq_length=64, stand_in=True,
        baseline_backbone=backbones.RANDOM_SMALL,
        nli=TrainingArguments(epochs=4, batch_size=64, lr=1e-3, length_grouping=True),
        stsb=TrainingArguments(epochs=4, batch_size=32, lr=1e-3, length_grouping=True),
        distill=_distill(evaluation_steps=0),
        dev_pairs_during_training=500, nli_objective="mnrl", reference_backbone=backbones.MINILM,
        distill_student=backbones.RANDOM_SMALL, precision="auto",
        description="no downloads: a 2-layer random BERT trained from scratch — MNRL on the offline NLI "
                    "triplets (SNLI dev+test, SICK train), then regression on STSb train; minutes on a "
                    "2-core CPU"),
    "smoke": Profile(
        "smoke", backbones.TINY, "offline-nli", 64, max_seq_length=32, stand_in=True, baseline_backbone=backbones.TINY,
        nli=TrainingArguments(epochs=1, batch_size=16, lr=1e-3, evaluation_steps=2),
        # batch 8, not train_loop's default of 16: a loop run with its defaults is caught (notebook 05)
        stsb=TrainingArguments(epochs=1, batch_size=8, lr=1e-3, evaluation_steps=2),
        distill=_distill(evaluation_steps=2, epochs=1),
        stsb_train_pairs=64, eval_pairs=200, dev_pairs_during_training=200,
        nli_objective="mnrl", reference_backbone=backbones.MINILM, distill_student=backbones.TINY,
        description="a few seconds end to end, for tests: a tiny random BERT on 64 offline NLI triplets"),
}


# ----------------------------------------------------------------------------- choosing
def get_profile(name: str | None = None, dry_run: bool | None = None) -> Profile:
    """The profile to run: ``name`` > ``$SBERTLIB_PROFILE`` > an automatic choice.

    Automatic: ``laptop`` where the Hub is reachable (or its small BERT is cached) — on the GPU
    where there is one (CUDA, MPS), else the CPU — and ``offline`` without the Hub. ``paper`` (hours
    on one GPU, an estimate: not measured here) and ``smoke`` run only when named. The profile's
    ``reason`` says why ("chosen because ...").
    ``dry_run`` (default: ``$SBERTLIB_DRY_RUN``): the profile's dry run (:func:`as_dry_run`).
    """
    profile = _choose(name)
    return as_dry_run(profile) if (dry_run_requested() if dry_run is None else dry_run) else profile


def dry_run_requested() -> bool:
    """True when ``$SBERTLIB_DRY_RUN`` asks for dry runs (1, true, yes, on)."""
    return os.environ.get(DRY_RUN_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def as_dry_run(profile: Profile) -> Profile:
    """``profile`` with its hub backbones swapped for their architectures with random weights
    (``random-init:NAME``) and ``dry_run=True`` (AllNLI train replaced in :func:`load_nli_train`)."""
    def swap(name: str | None) -> str | None:
        return architectures.random_init_name(name) if name in architectures.HUB_CONFIGS else name
    return replace(profile, dry_run=True, backbone=swap(profile.backbone),
                   baseline_backbone=swap(profile.baseline_backbone), distill_student=swap(profile.distill_student),
                   reason=f"{profile.reason}; {DRY_RUN_BANNER}" if not profile.dry_run else profile.reason)


def _choose(name: str | None) -> Profile:
    """:func:`get_profile`'s choice, before any dry run."""
    if name is None and os.environ.get(PROFILE_ENV):
        name = os.environ[PROFILE_ENV].strip()
        return _resolve(name, f"chosen because ${PROFILE_ENV}={name}")
    if name is not None and name != "auto":
        return _resolve(name, f"chosen by name ({name!r})")
    device = config.pick_device().type
    where = {"cuda": "a CUDA GPU", "mps": "Apple's GPU (MPS)"}.get(device, "the CPU")
    if config.hub_reachable():
        return _resolve("laptop", f"chosen because the Hugging Face Hub is reachable (its model and data arrive "
                                  f"on first use); it runs on {where}. `paper` (bert-base-uncased on all of "
                                  "AllNLI: hours on one GPU) runs only when named: SBERTLIB_PROFILE=paper")
    if SMALL_BERT in backbones.cached_hub_models():
        return _resolve("laptop", f"chosen because {SMALL_BERT} is in the local Hugging Face cache; "
                                  f"it runs on {where}")
    return _resolve("offline", f"chosen because the Hugging Face Hub is not reachable (offline); it runs on {where}")


def _resolve(name: str, reason: str) -> Profile:
    key = name.strip().lower()
    if key not in PROFILES:
        raise SettingError(f"unknown profile {name!r}; choose one of {', '.join(PROFILES)} (or 'auto')")
    profile = _offline_backbone(PROFILES[key]) if key == "offline" else PROFILES[key]
    return replace(profile, reason=reason)


def _offline_backbone(profile: Profile) -> Profile:
    """Prefer a real plain BERT already in the local cache (the small one first on a CPU)."""
    cached = set(backbones.cached_hub_models())
    order = (PAPER_BERT, SMALL_BERT) if torch.cuda.is_available() else (SMALL_BERT, PAPER_BERT)
    for name in order:
        if name in cached:  # a real BERT: the paper's own sequence, laptop's stages (STSb over offline's epochs)
            laptop = PROFILES["laptop"]
            return replace(profile, backbone=name, baseline_backbone=name, stand_in=False,
                           max_train_pairs=laptop.max_train_pairs, nli_objective="nli", reference_backbone=None,
                           distill_teacher=laptop.distill_teacher,  # no MiniLM reference to teach: 05's model
                           nli=laptop.nli, stsb=laptop.stsb.replace(epochs=profile.stsb.epochs),
                           distill=laptop.distill)
    return profile


# ----------------------------------------------------------------------------- describing
_PRETTY = {backbones.MINILM: "all-MiniLM-L6-v2 (packaged)",
           backbones.RANDOM_SMALL: "random-bert-2x128 (2 layers, random weights)",
           backbones.TINY: "tiny-random-bert (2 layers, random weights)",
           SMALL_BERT: f"{SMALL_BERT} (a 4-layer BERT)"}


def backbone_label(name: str) -> str:
    """How tables name a backbone; a dry run's random-weight copy says so."""
    if architectures.is_random_init(name):
        return f"{architectures.hub_name(name)} architecture, RANDOM weights (dry run: timings only)"
    return _PRETTY.get(name, name)


def describe(profile: Profile) -> str:
    """One paragraph for the notebook's set-up cell, naming stand-ins as such (why the profile was
    chosen is ``profile.reason``, printed separately)."""
    label, real = backbone_label(profile.backbone), architectures.hub_name(profile.backbone)
    if profile.stand_in:
        head = (f"{profile.name} profile: {label} stand-in — not the paper's {PAPER_BERT}; "
                f"numbers are not a reproduction of the paper.")
    elif real != PAPER_BERT:
        head = (f"{profile.name} profile: {label}, a smaller plain BERT than the paper's {PAPER_BERT}; "
                f"expect lower numbers than the paper's.")
    else:
        head = f"{profile.name} profile: {label}, the paper's backbone."
    pairs = "all" if profile.max_train_pairs is None else f"{profile.max_train_pairs:,}"
    source = "SNLI+MultiNLI (AllNLI)" if profile.nli_source == "allnli" else "SNLI dev+test and SICK train"
    what = ("triplets (MNRL, in-batch negatives)" if profile.nli_objective == "mnrl"
            else "pairs (the paper's classification objective)")
    body = (f" NLI lesson: {pairs} {what} of {source}, batch {profile.nli.batch_size}, {profile.nli.epochs} "
            f"epoch(s), lr {profile.nli.lr:g}, max_seq_length {profile.max_seq_length}. "
            f"{profile.description[0].upper()}{profile.description[1:]}.")
    if profile.baseline_backbone and profile.baseline_backbone != profile.backbone:
        body += f" Untrained baseline: {backbone_label(profile.baseline_backbone)}."
    if profile.reference_backbone:
        body += (f" Reference for a fully trained sentence encoder (never fine-tuned here): "
                 f"{backbone_label(profile.reference_backbone)}.")
    if profile.dry_run:
        head = f"*** {DRY_RUN_BANNER} *** {head}"
        body += (f" Dry run: NLI training data = the offline NLI pairs cycled to the size above (AllNLI train has "
                 f"{ALLNLI_TRAIN_PAIRS:,} pairs).")
    return head + body + " " + describe_precision(profile)


def describe_precision(profile: Profile) -> str:
    """One sentence: the precision the encoders encode in here, and why."""
    from ..model import hardware
    chosen, device = inference_precision(profile), config.pick_device()
    if profile.precision != "auto":
        return f"Encoding in {chosen} (the profile's setting)."
    why = hardware.describe_hardware(device)
    if chosen == "bf16":
        return (f"Encoding in bf16 with mean or max pooling, fp32 with CLS ({why}); training stays in fp32. "
                "Measured 2026-11-24 by a bench run: mean and max pooling moved STSb test by ≤ 0.05 "
                "(all-MiniLM-L6-v2, random-bert-2x128); notebook 11 measures it again for its model.")
    return f"Encoding in fp32 ({why})."


# ----------------------------------------------------------------------------- using
def triplet_pools(profile: Profile, data_dir: str | os.PathLike | None = None,
                  make_triplets: Callable | None = None) -> tuple[list, list, str]:
    """``(training triplets, held-out triplets, name of the held-out source)`` of the triplet lesson
    (notebook 06). Offline: SNLI dev + SICK train, SNLI test held out. AllNLI: the profile's NLI
    triplets (made from *all* its pairs, then cut to ``max_train_pairs``), AllNLI test held out (SNLI
    test in a dry run). ``make_triplets`` (NLI pairs → triplets, default ``data.nli_triplets``) makes
    both pools: notebook 06 passes the student's ``nli_to_triplets``."""
    from .. import data
    made = lambda pairs: triplets_of(pairs, make_triplets)  # noqa: E731
    if profile.nli_source == "offline-nli":
        return (made(data.load_snli("dev", data_dir) + data.load_sick_nli("train", data_dir)),
                made(data.load_snli("test", data_dir)), "SNLI test")
    train = load_nli_train(profile, data_dir, triplets=True, make_triplets=make_triplets)
    if profile.dry_run:
        return train, made(data.load_snli("test", data_dir)), "SNLI test (dry run: for AllNLI test)"
    return train, made(data.load_allnli("test", data_dir)), "AllNLI test"


def inference_precision(profile: Profile, device=None, pooling: str = "mean") -> str:
    """The precision the profile's encoders encode in on ``device`` with ``pooling``: ``auto`` is
    :func:`sbertlib.model.precision.auto_precision` (bf16 where native, for mean and max pooling)."""
    from ..model import precision
    if profile.precision != "auto":
        return profile.precision
    return precision.auto_precision(config.pick_device(device), pooling)


def with_precision(encoder, profile: Profile):
    """``encoder`` set to encode in the profile's precision (``auto`` is decided at each encode, for the
    pooling it then has); returned for chaining."""
    encoder.precision = profile.precision
    return encoder


def load_encoder(profile: Profile, baseline: bool = False, device=None, name: str | None = None):
    """A SentenceEncoder for the profile's backbone (or its ``baseline_backbone``, or ``name``), mean
    pooling, encoding in the profile's precision."""
    from ..model.encoder import SentenceEncoder
    name = name or (profile.baseline_backbone if baseline and profile.baseline_backbone else profile.backbone)
    return with_precision(SentenceEncoder.from_pretrained(name, max_seq_length=profile.max_seq_length,
                                                          device=device), profile)


def load_reference(profile: Profile, device=None):
    """The profile's fully trained reference encoder (offline: the packaged MiniLM), or None."""
    name = profile.reference_backbone
    return load_encoder(profile, device=device, name=name) if name else None


def hub_models(profile: Profile) -> list[str]:
    """The profile's backbones that come from the Hugging Face hub (what ``fetch`` downloads)."""
    names = dict.fromkeys(n for n in (profile.backbone, profile.baseline_backbone, profile.reference_backbone,
                                      profile.distill_student) if n)
    return [n for n in names if n not in backbones.MINILM_NAMES and not n.startswith(("tiny-random-bert", "random-bert"))
            and not architectures.is_random_init(n) and not Path(n).is_dir()]
