"""What made a trained run: the fingerprint :mod:`~sbertlib.workbook.runs` keys it by, of its recipe
(:meth:`sbertlib.workbook.stages.Stage.recipe`), and what changed between two recipes.

A run's folder name (profile, objective, backbone, pooling, seed) cannot tell an old run from a new one when a
profile's recipe changes (another learning rate, more pairs, a new rule for which sentences are distilled). So every
run records its **recipe** — the training arguments, the data, what it started from (the whole recipe of that run,
for a second stage or a distillation teacher), the backbone and its revision — and train-or-load loads a run only
when the recipe it would train with now has the same fingerprint; otherwise it says what changed
(:func:`differences`: ``args.lr: 0.002 -> 0.001``) and trains again.
"""
from __future__ import annotations

from ..util import settings_digest

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
