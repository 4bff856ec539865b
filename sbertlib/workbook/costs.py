"""What a profile's lesson costs: step and batch counts from its settings, seconds from measured ones.

The lesson is what ``python -m sbertlib train --profile P --objective two-stage`` runs (and notebooks 03-05 reuse):
STSb test before, the NLI classification objective with STSb dev evaluations, the STSb regression with its own, STSb
test after, counted as ``fit`` counts them (:func:`lesson_terms`): steps = epochs × ceil(pairs / batch size), an
evaluation every ``evaluation_steps`` steps and at the end, each of ceil(STSb dev sentences / 64) encode batches.
Seconds = count × the measured seconds of one step or one encode batch (``python -m sbertlib estimate``); a
regression step is costed as an NLI step (both encode two sentences per example; the heads cost nothing beside it).
The notebooks' other runs (04's full evaluation, 06's triplet runs, 07's grid, 12's cross-encoder) come on top: the
dry-run build times them all.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from . import measurements
from .measurements import duration as hours   # 45 s, 3 min 08 s, 48 h 18 min: as every text writes a duration
from .profiles import ALLNLI_TRAIN_PAIRS, Profile
from ..errors import SettingError

STSB_TRAIN_PAIRS = 5_749
STSB_DEV_PAIRS = 1_500
STSB_DEV_SENTENCES = 2_910  # distinct sentences of STSb dev: what an evaluation encodes
STSB_TEST_SENTENCES = 2_552
EVAL_BATCH = 64  # stsb_dev_evaluator's batch size


@dataclass(frozen=True)
class Term:
    """One part of the estimate: ``count`` units (steps or encode batches) of ``unit_seconds`` each."""
    name: str
    formula: str
    count: int
    unit: str  # "steps" or "batches"
    unit_seconds: float

    @property
    def seconds(self) -> float:
        return self.count * self.unit_seconds


def evaluations(steps: int, evaluation_steps: int) -> int:
    """How often ``fit`` evaluates in ``steps`` steps: every ``evaluation_steps`` and at the end."""
    return math.ceil(steps / evaluation_steps) if evaluation_steps else 1


def nli_pairs(profile: Profile) -> int:
    """The NLI training pairs of an AllNLI profile: ``max_train_pairs``, else all of AllNLI train."""
    if profile.nli_source != "allnli":
        raise SettingError(f"{profile.name}: the estimate covers the AllNLI profiles (laptop, paper)")
    return min(profile.max_train_pairs or ALLNLI_TRAIN_PAIRS, ALLNLI_TRAIN_PAIRS)


def lesson_terms(profile: Profile, step_s: float, batch_s: float) -> list[Term]:
    """The lesson's parts for ``profile``, given seconds per training step and per encode batch."""
    nli, reg = profile.stage("nli").arguments(), profile.stage("stsb").arguments()
    pairs, bs, es = nli_pairs(profile), nli.batch_size, nli.evaluation_steps
    steps = nli.epochs * math.ceil(pairs / bs)
    dev = STSB_DEV_SENTENCES if profile.dev_pairs_during_training is None else round(
        STSB_DEV_SENTENCES * min(1.0, profile.dev_pairs_during_training / STSB_DEV_PAIRS))
    per_eval = math.ceil(dev / EVAL_BATCH)
    stsb = profile.stsb_train_pairs or STSB_TRAIN_PAIRS
    stsb_steps = reg.epochs * math.ceil(stsb / reg.batch_size)
    test = 2 * math.ceil(STSB_TEST_SENTENCES / EVAL_BATCH)
    return [
        Term("NLI training", f"{nli.epochs} epoch x ceil({pairs:,} pairs / {bs})", steps, "steps", step_s),
        Term("STSb dev during NLI", f"ceil({steps:,} / {es}) evaluations x ceil({dev:,} sentences / {EVAL_BATCH})",
             evaluations(steps, es) * per_eval, "batches", batch_s),
        Term("STSb regression", f"{reg.epochs} epochs x ceil({stsb:,} pairs / {reg.batch_size})",
             stsb_steps, "steps", step_s),
        Term("STSb dev during regression", f"ceil({stsb_steps:,} / {reg.evaluation_steps}) evaluations x {per_eval} "
             "batches", evaluations(stsb_steps, reg.evaluation_steps) * per_eval, "batches", batch_s),
        Term("STSb test before and after", f"2 x ceil({STSB_TEST_SENTENCES:,} sentences / {EVAL_BATCH})",
             test, "batches", batch_s),
    ]


def format_terms(terms: list[Term]) -> str:
    """The estimate as a table: each part's formula, count, unit time and seconds; then the total."""
    lines = [f"  {'part':30s} {'formula':62s} {'count':>8s} {'x s/unit':>9s} {'= seconds':>10s}"]
    for t in terms:
        lines.append(f"  {t.name:30s} {t.formula:62s} {t.count:>8,} {t.unit_seconds:9.4f} {t.seconds:10.0f}"
                     f"  ({t.unit})")
    total = sum(t.seconds for t in terms)
    lines.append(f"  {'total':30s} {'':62s} {'':>8s} {'':>9s} {total:10.0f}  = {hours(total)}")
    return "\n".join(lines)


# Whole builds (`make workbook`: every notebook, one after another): the recorded measurement of each profile.
BUILD_MEASUREMENTS = {"offline": "build-offline-epyc-2026-11-25", "laptop": "build-laptop-dry-run-2026-11-25"}


def expected_time(profile: Profile) -> str:
    """What the whole workbook costs on ``profile``: a measured build where there is one, else how to
    estimate it — the sentence notebook 00 prints before anything long starts."""
    if profile.name == "smoke":
        return "smoke: seconds per notebook (the tests' profile); nothing here is long"
    if profile.name in BUILD_MEASUREMENTS:
        m = measurements.get(BUILD_MEASUREMENTS[profile.name])
        return (f"{profile.name}: a whole build took {m.figure()} on a {m.machine}, {m.date} ({m.what}); each "
                "notebook's first cell gives its own cost")
    return (f"{profile.name}: no whole build measured; `python -m sbertlib estimate --profile {profile.name}` "
            "times one training step here and prints what the training lessons cost on this machine")


def gpu_scale(encode_batch_seconds: float, batch: int = EVAL_BATCH) -> tuple[float, str]:
    """How much faster the paper's V100 encoded than this device did: ``(factor, formula)``.

    Table 7: SBERT-base with smart batching, 2,042 sentences/s on a V100. The factor turns a step time
    measured here into a rough V100 step time — rough, because training (a backward pass, Adam) does
    not speed up exactly as encoding does.
    """
    from .. import paper
    v100 = paper.TABLE7["SBERT-base - smart batching"][1]
    here = batch / encode_batch_seconds
    return here / v100, f"{here:.1f} sentences/s here / {v100:,} on the paper's V100 (Table 7)"


def gpu_terms(terms: list[Term], factor: float) -> list[Term]:
    """``terms`` with every unit time multiplied by ``factor`` (see :func:`gpu_scale`)."""
    return [Term(t.name, t.formula, t.count, t.unit, t.unit_seconds * factor) for t in terms]
