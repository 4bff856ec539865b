"""Self-checks for ``03_finetuning_on_nli``."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch

from ...data import NLI_LABELS
from . import ExerciseError, ok, require, two_items
from .nb00 import _call

__all__ = ["check_schedule", "schedule_truth", "check_predict_nli", "predict_nli_truth"]

# (n_examples, batch_size, epochs, warmup_ratio): chosen so that the usual slips give other answers.
SCHEDULE_CASES: tuple[tuple[int, int, int, float], ...] = (
    (2000, 16, 1, 0.1),      # offline profile: 125 steps, 12.5 → 13 warm-up steps
    (64, 16, 1, 0.1),        # smoke profile: 4 steps, 0.4 → 1
    (942_069, 16, 1, 0.1),   # the paper's AllNLI size (about 940k pairs)
    (100, 16, 3, 0.1),       # a last, smaller batch and three epochs
    (5749, 16, 4, 0.1),      # STSb train, four epochs (the paper's regression set-up)
    (10, 3, 2, 0.25),
)


def schedule_truth(n_examples: int, batch_size: int, epochs: int, warmup_ratio: float = 0.1) -> tuple[int, int]:
    """``(total_steps, warmup_steps)`` exactly as :func:`sbertlib.training.fit` plans them."""
    total = epochs * math.ceil(n_examples / batch_size)
    return total, math.ceil(warmup_ratio * total)


def _as_int(x, what: str) -> int:
    if isinstance(x, torch.Tensor) and x.numel() == 1:
        x = x.item()
    require(isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool),
            f"{what} is {x!r}, not a number", "return two integers: (total_steps, warmup_steps)")
    require(float(x) == int(x), f"{what} is {x}, not a whole number of steps",
            "a step count is an integer: round with math.ceil")
    return int(x)


def _schedule_hint(got: tuple[int, int], n: int, b: int, e: int, r: float) -> str:
    total, warm = schedule_truth(n, b, e, r)
    if got == (warm, total):
        return "you returned (warmup_steps, total_steps): the order is (total_steps, warmup_steps)"
    if got[0] == e * (n // b) and got[0] != total:
        return ("n_examples / batch_size rounded *down* drops the last, smaller batch — it is a step too: "
                "use math.ceil")
    if got[0] == math.ceil(n / b) and e > 1:
        return "multiply the steps of one epoch by the number of epochs"
    if got[0] == total and got[1] == int(r * total):
        return "fit() rounds the warm-up *up*: math.ceil(warmup_ratio * total_steps)"
    if got[0] == total and got[1] == math.ceil(r * math.ceil(n / b)):
        return "the warm-up is a fraction of *all* training steps, not of one epoch"
    if got[0] == total:
        return "total_steps is right; warmup_steps = math.ceil(warmup_ratio * total_steps)"
    return "steps per epoch = ceil(n_examples / batch_size); total = epochs × that"


def check_schedule(schedule: Callable, profile=None) -> None:
    """Check ``schedule(n_examples, batch_size, epochs, warmup_ratio) -> (total_steps, warmup_steps)``.

    Compared with the formula :func:`sbertlib.training.fit` uses on several hidden settings (a last
    partial batch, several epochs, the paper's data size), plus the profile's own if given.
    """
    require(callable(schedule), f"pass your function itself, not {type(schedule).__name__}",
            "check_schedule(schedule) — no parentheses after the name")
    cases = list(SCHEDULE_CASES)
    if profile is not None and profile.max_train_pairs:
        cases.insert(0, (profile.max_train_pairs, profile.batch_size, profile.epochs, 0.1))
    for n, b, e, r in cases:
        got = _call(schedule, n, b, e, r)
        items = two_items(got, f"schedule({n}, {b}, {e}, {r}) returned", "return a pair: (total_steps, warmup_steps)")
        pair = (_as_int(items[0], "total_steps"), _as_int(items[1], "warmup_steps"))
        want = schedule_truth(n, b, e, r)
        require(pair == want,
                f"for {n:,} examples, batch {b}, {e} epoch(s), warm-up ratio {r}: you returned {pair}, "
                f"fit() plans {want}", _schedule_hint(pair, n, b, e, r))
    total, warm = schedule_truth(940_000, 16, 1, 0.1)
    ok(f"schedule is right — e.g. one epoch over ~940k NLI pairs (the paper's) is {total:,} steps, "
       f"{warm:,} of them warm-up")


# ----------------------------------------------------------------------------- NLI predictions
class _FakeEncoder(torch.nn.Module):
    """Just enough of a SentenceEncoder for a SoftmaxLoss head: a ``dim`` and a parameter."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        self.weight = torch.nn.Parameter(torch.zeros(1))


def predict_nli_truth(loss, u: torch.Tensor, v: torch.Tensor) -> list[str]:
    """The label names of the head's largest logit, in the order of :data:`sbertlib.data.NLI_LABELS`."""
    with torch.no_grad():
        return [NLI_LABELS[i] for i in loss.logits(u, v).argmax(dim=1).tolist()]


def _hidden_heads():
    from ...losses import SoftmaxLoss
    g = torch.Generator().manual_seed(3)
    for dim, batch, concat in ((6, 9, ("u", "v", "|u-v|")), (4, 7, ("u", "v", "|u-v|", "u*v"))):
        torch.manual_seed(11 + dim)
        loss = SoftmaxLoss(_FakeEncoder(dim), num_labels=len(NLI_LABELS), concat=concat)
        with torch.no_grad():
            loss.classifier.weight.mul_(4)
        yield loss, torch.randn(batch, dim, generator=g), torch.randn(batch, dim, generator=g)


def _labels_from(got, n: int) -> list:
    require(got is not None and got is not NotImplemented and got is not Ellipsis,
            f"your function returned {got!r}", f"return a list of {n} label names, one per pair")
    if isinstance(got, torch.Tensor):
        got = got.tolist()
    if isinstance(got, str):
        got = [got]
    try:
        items = list(got)
    except TypeError:
        raise ExerciseError(f"your function returned {got!r}, not a list of labels\n"
                            f"Hint: return one label name per pair") from None
    require(len(items) == n, f"you returned {len(items)} labels for {n} pairs",
            "take the argmax over the classes (dim=1), one label per row of u and v")
    return items


def check_predict_nli(predict_nli: Callable, loss=None, u: torch.Tensor | None = None,
                      v: torch.Tensor | None = None) -> None:
    """Check ``predict_nli(loss, u, v) -> list of label names`` on hidden classifier heads.

    The truth is the name (from ``NLI_LABELS``) of the largest of ``loss.logits(u, v)`` per row;
    also checked on the notebook's ``loss, u, v`` when given.
    """
    require(callable(predict_nli), f"pass your function itself, not {type(predict_nli).__name__}",
            "check_predict_nli(predict_nli, loss, u, v) — no parentheses after the name")
    cases = list(_hidden_heads())
    if loss is not None and u is not None and v is not None:
        cases.append((loss, u.detach(), v.detach()))
    for head, a, b in cases:
        want = predict_nli_truth(head, a, b)
        got = _labels_from(_call(predict_nli, head, a.clone(), b.clone()), len(want))
        if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in got):
            raise ExerciseError("you returned class ids, not label names\n"
                                f"Hint: turn each id into its name with data.NLI_LABELS[i] ({NLI_LABELS})")
        require(all(isinstance(x, str) for x in got), f"your labels {got[:3]}… are not all strings",
                f"return names out of {NLI_LABELS}")
        if got != want:
            ids = head.logits(a, b).detach()
            if got == [NLI_LABELS[i] for i in ids.argmin(dim=1).tolist()]:
                raise ExerciseError("your labels are those of the *smallest* logit (argmin)\n"
                                    "Hint: the predicted class has the largest logit: argmax(dim=1)")
            other = ("entailment", "neutral", "contradiction")
            if got == [other[i] for i in ids.argmax(dim=1).tolist()]:
                raise ExerciseError("right argmax, wrong names: you used the MultiNLI order "
                                    "(entailment, neutral, contradiction)\n"
                                    f"Hint: class i is data.NLI_LABELS[i] = {NLI_LABELS}")
            wrong = sum(g != w for g, w in zip(got, want))
            raise ExerciseError(f"{wrong} of {len(want)} predictions differ from the head's argmax "
                                f"(first: you said {got[0]!r}, the head says {want[0]!r})\n"
                                "Hint: logits = loss.logits(u, v); the class is logits.argmax(dim=1); "
                                "its name is data.NLI_LABELS[class]")
    ok("predict_nli is right: the label is the class with the largest logit of W_t · (u, v, |u−v|)")
