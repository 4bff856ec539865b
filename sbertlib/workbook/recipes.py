"""What made a trained run: its recipe, and the fingerprint :mod:`~sbertlib.workbook.runs` keys it by.

A run's folder name (profile, objective, backbone, pooling, seed) cannot tell an old run from a new one when a
profile's recipe changes (another learning rate, more pairs, a new rule for which sentences are distilled). So every
run records its **recipe** — the training arguments, the data, what it started from (the whole recipe of that run,
for a second stage or a distillation teacher), the backbone and its revision — and train-or-load loads a run only
when the recipe it would train with now has the same fingerprint; otherwise it says what changed
(:func:`differences`: ``args.lr: 0.002 -> 0.001``) and trains again.
"""
from __future__ import annotations

from ..training.arguments import DEFAULT_SEED
from ..util import settings_digest

# How each objective picks its training data, beyond the profile's sizes. Change a rule's text when the
# code that applies it changes: every run trained under the old rule is then retrained, not reused.
DATA_RULES = {
    "nli": "labelled NLI pairs of the profile's nli_source, shuffled with seed 0, first max_train_pairs",
    "mnrl": "NLI triplets (premise, entailed, contradicting) of the profile's nli_source, shuffled with seed 0, "
            "first max_train_pairs",
    "stsb": "STSb train, shuffled with the run's seed, first stsb_train_pairs",
    "distill": "the NLI triplets' and STSb train's sentences, each once, less every sentence of STSb dev/test, "
               "STS12-16 and SICK (case- and space-normalised), each with its teacher's vector",
}
STSB_STAGES = ("stsb", "two-stage", "distill-stsb")
# An STSb stage that starts from another run -> that run's objective (None: the profile's NLI objective).
STARTS_FROM = {"two-stage": None, "distill-stsb": "distill"}


def run_recipe(profile, objective: str, seed: int = DEFAULT_SEED, pooling: str = "mean",
               mixed_precision: str | None = None, overrides: dict | None = None) -> dict:
    """Everything that decides the weights ``runs.trained_model(profile, objective, ...)`` trains: a
    plain JSON-able dict (see the module docstring)."""
    args = profile.training_arguments(objective, seed, mixed_precision=mixed_precision, **(overrides or {}))
    args = {k: v for k, v in args.to_dict().items() if k not in ("evaluation_steps", "checkpoint_steps")}
    rule = "stsb" if objective in STSB_STAGES else objective
    data = {"rule": DATA_RULES[rule], "nli_source": profile.nli_source, "max_train_pairs": profile.max_train_pairs,
            "stsb_train_pairs": profile.stsb_train_pairs}
    if rule == "stsb":
        data = {k: data[k] for k in ("rule", "stsb_train_pairs")}
    elif rule in ("nli", "mnrl"):
        data.pop("stsb_train_pairs")
    recipe = {"objective": objective, "pooling": pooling, "max_seq_length": profile.max_seq_length,
              "args": args, "data": data, "dry_run": profile.dry_run}
    if objective in STARTS_FROM:
        recipe["starts_from"] = run_recipe(profile, STARTS_FROM[objective] or profile.nli_objective, seed, pooling,
                                           mixed_precision, overrides)
    elif objective == "distill":
        recipe["student"] = profile.distill_student
        recipe["teacher"] = ({"reference": profile.reference_backbone,
                              "revision": _revision(profile.reference_backbone)}
                             if profile.distill_teacher == "reference"
                             else run_recipe(profile, profile.distill_teacher, seed))
    else:
        recipe["backbone"] = profile.backbone
        recipe["revision"] = _revision(profile.backbone)
    return recipe


def _revision(name: str | None) -> str | None:
    """The Hub revision a backbone is read at; None for one built here (a random or packaged model)."""
    from ..model.backbones import MODEL_REVISIONS, model_revision
    return model_revision(name) if name and (name in MODEL_REVISIONS or "/" in name) else None


def fingerprint(recipe: dict) -> str:
    """16 hex digits that change whenever anything in ``recipe`` does (:func:`sbertlib.util.settings_digest`)."""
    return settings_digest(recipe, 16)


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in d.items():
        name = f"{prefix}{key}"
        out.update(_flat(value, f"{name}.") if isinstance(value, dict) else {name: value})
    return out


def differences(recorded: dict | None, now: dict, limit: int = 4) -> str:
    """What changed between the recipe a run ``recorded`` and the one it would train with ``now``, in
    a few words (``args.lr: 0.002 -> 0.001; data.rule changed``)."""
    if not recorded:
        return "it recorded no recipe (trained by an earlier sbertlib)"
    old, new = _flat(recorded), _flat(now)
    changed = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key, "<none>"), new.get(key, "<none>")
        if a != b:
            changed.append(f"{key}: {a!r} -> {b!r}" if len(repr(a)) + len(repr(b)) < 60 else f"{key} changed")
    more = f"; and {len(changed) - limit} more" if len(changed) > limit else ""
    return "; ".join(changed[:limit]) + more
