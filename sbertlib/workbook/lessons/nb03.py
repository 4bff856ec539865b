"""Self-checks for ``03_train_it_yourself``: the student's training loop and MNRL.

``check_train_loop`` runs the student's loop and the library's :func:`sbertlib.training.fit` from
the same weights and seed and compares the loss of every step (≤ 1e-5). While the student's loop
runs it watches what the loop does — which sentences each forward pass sees, whether dropout is
on, whether gradients were zeroed, the learning rate and the gradient norm at every optimizer
step — so a wrong loop is told *which* of the usual mistakes it made.
"""
from __future__ import annotations

import copy
import math
import time
from typing import Callable

import torch
import torch.nn.functional as F
from torch.optim.optimizer import register_optimizer_step_pre_hook

from ... import losses
from ...training import epoch_batches, fit, prepare_examples
from ...training.arguments import DEFAULT_SEED
from . import guard, Exercise, ExerciseError, call, ok, require, require_gradient, require_own_class
from .questions import choice, number

__all__ = ["check_train_loop", "check_mnrl"]

# Settings of the comparison: a learning rate large enough, a clipping norm small enough and a
# warm-up long enough that each usual mistake changes the losses.
SETTINGS = dict(epochs=2, batch_size=8, lr=1e-3, warmup_ratio=0.25, max_grad_norm=0.05, seed=7)
N_EXAMPLES = 36  # 5 batches per epoch, the last one smaller


class _Watch:
    """Records what the student's loop does (forward passes, backward passes, optimizer steps)."""

    def __init__(self, loss: losses.SBERTLoss):
        self.loss, self.texts, self.training, self.stale_grad, self.lrs, self.norms = loss, [], [], [], [], []
        self.encoder_norms = []  # the gradient norm over the encoder's parameters alone (loss.model)
        self._handles = []
        model, tokenize = loss.model, loss.model.tokenize

        def watched_tokenize(texts, *args, **kwargs):
            self.texts.append(list(texts))
            self.training.append(model.training)
            return tokenize(texts, *args, **kwargs)
        model.tokenize = watched_tokenize
        probe = next(p for n, p in loss.named_parameters() if "LayerNorm.weight" in n)
        self._handles.append(probe.register_hook(self._on_backward(probe)))
        self._handles.append(register_optimizer_step_pre_hook(self._on_step))

    def _on_backward(self, probe):
        def hook(grad):
            self.stale_grad.append(probe.grad is not None and bool(probe.grad.abs().sum() > 0))
        return hook

    def _on_step(self, optimizer, args, kwargs):
        def norm(params):
            norms = [p.grad.norm() for p in params if p.grad is not None]
            return float(torch.linalg.vector_norm(torch.stack(norms))) if norms else 0.0
        self.lrs.append(optimizer.param_groups[0]["lr"])
        self.norms.append(norm(self.loss.parameters()))
        self.encoder_norms.append(norm(self.loss.model.parameters()))

    def head_parameters(self) -> int:
        """How many parameters the loss trains outside its encoder (a classifier head)."""
        inside = {id(p) for p in self.loss.model.parameters()}
        return sum(p.numel() for p in self.loss.parameters() if id(p) not in inside)

    def close(self):
        for h in self._handles:
            h.remove()
        del self.loss.model.tokenize


def _fresh_pair(encoder, make_loss):
    """Two identical (encoder, loss) copies: one for fit, one for the student's loop."""
    torch.manual_seed(0)
    model = copy.deepcopy(encoder).cpu()
    loss = make_loss(model)
    twin = copy.deepcopy(loss)
    return loss, twin


def _expected(loss, examples, s: dict):
    history = fit(loss.model, loss, examples, show_progress_bar=False, **s)
    lengths = [sum(len(t) for t in ex.texts) for ex in examples] if s["length_grouping"] else None
    first_col = [[examples[i].texts[0] for i in ids] for e in range(s["epochs"])
                 for ids in epoch_batches(len(examples), s["batch_size"], s["seed"], e, lengths=lengths)]
    return history.losses, [r["lr"] for r in history.records], first_col


def _rates(lr: float, total: int, warm: int, steps: int) -> list[float]:
    """The learning rate of each of ``steps`` steps under fit's schedule planned for ``total`` steps
    with ``warm`` warm-up steps (:func:`sbertlib.training.loop.linear_warmup`)."""
    return [lr * (s / max(1, warm) if s < warm else max(0.0, (total - s) / max(1, total - warm)))
            for s in range(steps)]


def _schedule_hint(got: list[float], want: list[float], s: dict, n: int) -> str:
    per_epoch, epochs, ratio = math.ceil(n / s["batch_size"]), s["epochs"], s["warmup_ratio"]
    total = epochs * per_epoch
    warm = math.ceil(ratio * total)
    floor_epoch = n // s["batch_size"]
    if len(got) > 1 and all(math.isclose(a, b, abs_tol=1e-12) for a, b in zip(got, want[1:])):
        return ("every step uses the next step's rate (off by one): the first step's rate is 0 — read the "
                "schedule before stepping it, i.e. call scheduler.step() after optimizer.step()")
    # The usual slips in planning the schedule, each rebuilt and compared rate by rate with what the loop used.
    down = (f"{n} examples / batch size {s['batch_size']} = {n / s['batch_size']:g} batches per epoch, rounded "
            f"down to {floor_epoch}: the last, smaller batch is a step too (the loop runs {total} steps), so the "
            "count of batches rounds up")
    plans = [
        (epochs * floor_epoch, math.ceil(ratio * epochs * floor_epoch),
         f"your schedule is planned over {epochs * floor_epoch} steps — {down}"),
        (floor_epoch, math.ceil(ratio * floor_epoch),
         f"your schedule is planned over one epoch, and {down}; plan it over all {epochs} epochs, not one epoch"),
        (per_epoch, math.ceil(ratio * per_epoch),
         f"your rate reached 0 at step {per_epoch + 1} and stayed there: the schedule is planned over "
         f"{per_epoch} steps, one epoch, while the loop runs {epochs} epochs, {total} steps — plan it over all "
         "of them, not one epoch"),
        (total, math.floor(ratio * total),
         f"your warm-up lasts {math.floor(ratio * total)} steps, fit's {warm}: warmup_ratio × total = {ratio} × "
         f"{total} = {ratio * total:g} steps, rounded down where fit rounds up"),
        (epochs * n, math.ceil(ratio * epochs * n),
         f"your schedule is planned over {epochs * n} steps: that counts examples (epochs × {n}), not steps "
         f"(one per batch)"),
    ]
    for plan_total, plan_warm, hint in plans:
        if (plan_total, plan_warm) != (total, warm) and len(got) == len(want) and all(
                math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)
                for a, b in zip(got, _rates(s["lr"], plan_total, plan_warm, len(got)))):
            return hint
    if got and max(got) > 0 and got.index(max(got)) != want.index(max(want)):
        return (f"the rate peaks at step {got.index(max(got)) + 1}, fit's at step {warm + 1}: the warm-up is "
                f"{warm} steps, warmup_ratio of the whole run's {total} steps")
    if got and got[-1] > want[-1] + 1e-12:
        return (f"after the warm-up the rate must fall linearly to 0 at step {total}, the end of the last epoch; "
                f"yours is still {got[-1]:.2e} at the last step")
    return f"expected the rates {[f'{x:.2e}' for x in want[:6]]}…, got {[f'{x:.2e}' for x in got[:6]]}…"


def _diagnose(watch: _Watch, got: list[float], want: list[float], want_lrs, first_col, s: dict, n: int) -> None:
    steps = len(want)
    require(len(got) == steps, f"your loop ran {len(got)} steps, expected {steps} = {s['epochs']} epochs × "
            f"ceil({n} / {s['batch_size']})", "keep the last, smaller batch of each epoch; loop over every epoch")
    columns = len(watch.texts) // max(1, steps)
    seen = [watch.texts[k * columns] for k in range(steps)] if columns else []
    require(columns >= 2, "each step should tokenize every text column (premises, hypotheses, …) once",
            "a batch of examples holds one column per text position (all first sentences, all second ones, …): "
            "tokenise each column as one list and run the one encoder on each")
    for k, (a, b) in enumerate(zip(seen, first_col)):
        require(a == b, f"step {k + 1} trained on other sentences than fit's (first: {a[0]!r}, expected {b[0]!r})",
                "each epoch's batches come from epoch_batches(len(examples), batch_size, seed, epoch, "
                "lengths=lengths) — fit's batches, shuffled anew each epoch"
                + (" and grouped by length (length_grouping=True)" if s["length_grouping"] else ""))
    require(all(watch.training), "the encoder was in eval mode during training: dropout was off",
            "call model.train() (or loss.train()) before the loop")
    require(not any(watch.stale_grad), "gradients from the previous step were still there at backward(): "
            "they add up step after step", "optimizer.zero_grad() once per step, before loss.backward()")
    require(len(watch.lrs) == steps, f"optimizer.step() ran {len(watch.lrs)} times for {steps} batches",
            "one optimizer.step() per batch")
    if any(not math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12) for a, b in zip(watch.lrs, want_lrs)):
        raise ExerciseError("the learning rate schedule differs from fit's\nHint: "
                            + _schedule_hint(watch.lrs, want_lrs, s, n))
    limit = s["max_grad_norm"] * 1.001 + 1e-8
    worst = max(watch.norms) if watch.norms else 0.0
    if worst > limit and watch.head_parameters() and max(watch.encoder_norms) <= limit:
        raise ExerciseError(
            f"a gradient of norm {worst:.3g} reached optimizer.step() (max_grad_norm = {s['max_grad_norm']}), "
            "while the encoder's gradients alone stayed within it: you clipped the encoder's parameters and left "
            f"out the classifier head — {watch.head_parameters():,} parameters of the loss itself, outside "
            "loss.model, which the optimizer updates too\nHint: clip the gradients of every parameter the "
            "optimizer updates, together, as one norm")
    require(worst <= limit,
            f"a gradient of norm {worst:.3g} reached optimizer.step() (max_grad_norm = {s['max_grad_norm']})",
            "clip the total gradient norm to max_grad_norm after backward() and before optimizer.step() "
            "(torch.nn.utils.clip_grad_norm_)")
    k = next(i for i, (a, b) in enumerate(zip(got, want)) if abs(a - b) > 1e-5)
    raise ExerciseError(f"step {k + 1}: loss {got[k]:.6f}, fit's {want[k]:.6f} — the batches, the rates and the "
                        "clipping agree with fit's, so the difference is in the step itself\nHint: seed with "
                        "torch.manual_seed(seed) before anything random; run the one encoder on each column, in "
                        "column order, and score the embeddings with the loss's loss_from_embeddings")


def _run(train_loop: Callable, make_loss, encoder, data, length_grouping: bool) -> list[float]:
    loss, twin = _fresh_pair(encoder, make_loss)
    examples = prepare_examples(data[:N_EXAMPLES], loss)
    settings = dict(SETTINGS, length_grouping=length_grouping)
    want, want_lrs, first_col = _expected(loss, examples, settings)
    twin.model.eval()  # a loop that forgets model.train() trains without dropout
    watch = _Watch(twin)
    try:
        got = call(lambda loss, examples: train_loop(loss, examples, **settings), twin, examples,
                   what="your train_loop")
    finally:
        watch.close()
    require(isinstance(got, (list, tuple)) and all(isinstance(x, (float, int)) for x in got),
            f"train_loop returned {type(got).__name__}, not a list of numbers",
            "append value.item() (a python float) for every step and return the list")
    got = [float(x) for x in got]
    if len(got) != len(want) or max(abs(a - b) for a, b in zip(got, want)) > 1e-5:
        _diagnose(watch, got, want, want_lrs, first_col, settings, len(examples))
    return [abs(a - b) for a, b in zip(got, want)]


def check_train_loop(train_loop: Callable, encoder, pairs, triplets) -> None:
    """Run ``train_loop(loss, examples, **SETTINGS)`` and ``fit`` from the same weights and seed —
    with the classification objective on NLI ``pairs`` (random batches) and with MNRL on ``triplets``
    (``length_grouping=True``: batches of similar length) — and require
    the same loss at every step (≤ 1e-5); a mismatch is explained (see the module docstring)."""
    require(callable(train_loop), "pass your function itself: check_train_loop(train_loop, encoder, pairs, triplets)")
    start = time.perf_counter()
    diffs = _run(train_loop, lambda m: losses.SoftmaxLoss(m, num_labels=3), encoder, pairs, False)
    diffs += _run(train_loop, losses.MultipleNegativesRankingLoss, encoder, triplets, True)
    ok(f"your loop is fit's loop: {len(diffs)} steps (classification on pairs, MNRL on triplets in "
       f"length-grouped batches), "
       f"largest loss difference {max(diffs):.1e} (the check took {time.perf_counter() - start:.0f} s: both loops, "
       "both objectives)")


# ----------------------------------------------------------------------------- MNRL
def _lengths_matter(student, embeddings) -> bool:
    """True when the student's loss changes if each vector is stretched (same direction, another length):
    scores built from dot products, not cosines. A cosine-based loss does not move."""
    g = torch.Generator().manual_seed(3)
    stretched = [e * torch.empty(len(e), 1).uniform_(0.3, 3.0, generator=g) for e in embeddings]
    with torch.no_grad():
        a = float(student.loss_from_embeddings(list(embeddings), None))
        b = float(student.loss_from_embeddings(stretched, None))
    return not math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-5)


NORMALISE = ("your scores are dot products, not cosines: the loss changed when each sentence vector was made "
             "longer or shorter, keeping its direction — normalise the vectors first, so each score is a cosine "
             "(in [−1, 1]), and only then multiply by scale")


def _mnrl_hint(student, u, p, n, scale: float) -> str:
    if _lengths_matter(student, [u, p, n]):
        return NORMALISE
    got = float(student.loss_from_embeddings([u, p, n]))
    cand = torch.cat([p, n])
    cos = F.normalize(u, dim=1) @ F.normalize(cand, dim=1).T
    target = torch.arange(len(u))
    known = {
        "no scale: multiply the cosines by scale (20) before the softmax — cosines in [−1, 1] make a soft, "
        "slow softmax": F.cross_entropy(cos, target),
        "the hard negatives were left out: the candidates are all the positives AND all the negatives of the batch":
            F.cross_entropy(F.normalize(u, dim=1) @ F.normalize(p, dim=1).T * scale, target),
        "the right candidate of anchor i is column i (its own positive), not column 0 for every anchor":
            F.cross_entropy(cos * scale, torch.zeros_like(target)),
        "that is a distance, where a similarity is meant: higher score must mean more similar":
            F.cross_entropy(-cos * scale, target),
        "use the mean over the batch (F.cross_entropy's default), not the sum":
            F.cross_entropy(cos * scale, target, reduction="sum"),
    }
    for hint, value in known.items():
        if abs(got - float(value)) < 1e-4:
            return hint
    return ("none of the usual slips: print your scores' shape (one row per anchor, one column per candidate) "
            "and your targets, and compare each with the exercise's definition")


def check_mnrl(cls, encoder) -> None:
    """Check the student's ``MNRL(model, scale=20.0)`` (a ``losses.SBERTLoss``) against
    :class:`sbertlib.losses.MultipleNegativesRankingLoss` on random anchors, positives and hard
    negatives (and without negatives)."""
    require(isinstance(cls, type) and issubclass(cls, losses.SBERTLoss),
            "pass your class itself, a subclass of losses.SBERTLoss: check_mnrl(MNRL, encoder)")
    require_own_class(cls, losses.SBERTLoss, "MNRL")
    student = cls(encoder)
    reference = losses.MultipleNegativesRankingLoss(encoder)
    g = torch.Generator().manual_seed(1)
    for b, d in ((6, 8), (4, 16)):
        u, p, n = (torch.randn(b, d, generator=g).requires_grad_(True) for _ in range(3))
        for embeddings in ([u, p, n], [u, p]):
            got = call(student.loss_from_embeddings, embeddings, None,
                       what=f"your loss_from_embeddings ({len(embeddings)} columns of shape {tuple(u.shape)})")
            require(isinstance(got, torch.Tensor) and got.dim() == 0, f"loss_from_embeddings returned {got!r}",
                    "return one scalar tensor")
            want = reference.loss_from_embeddings(embeddings)
            if not torch.allclose(got, want, atol=1e-5):
                hint = _mnrl_hint(student, u, p, n, reference.scale) if len(embeddings) == 3 else \
                    NORMALISE if _lengths_matter(student, embeddings) else \
                    "with two columns the candidates are just the positives"
                raise ExerciseError(f"MNRL loss {float(got):.5f}, expected {float(want):.5f} "
                                    f"({len(embeddings)} columns, batch {b})\nHint: {hint}")
            require_gradient(got, dict(zip(("the anchors", "the positives", "the hard negatives"), embeddings)),
                             lambda *e: reference.loss_from_embeddings(list(e)),
                             f"your MNRL loss ({len(embeddings)} columns, batch {b})")
    ok("MNRL is right: a softmax over scale·cos to every positive and hard negative of the batch")


# ----------------------------------------------------------------------------- the reference loop
def fit_loop(loss, examples, *, epochs: int = 1, batch_size: int = 16, lr: float = 2e-5, warmup_ratio: float = 0.1,
             max_grad_norm: float = 1.0, seed: int = DEFAULT_SEED, length_grouping: bool = False) -> list[float]:
    """Notebook 03's ``train_loop`` as the library runs it: :func:`sbertlib.training.fit` with the same
    settings (its check proves the two give the same loss at every step); the loss of every step."""
    history = fit(loss.model, loss, examples, epochs=epochs, batch_size=batch_size, lr=lr, warmup_ratio=warmup_ratio,
                  max_grad_norm=max_grad_norm, seed=seed, length_grouping=length_grouping, show_progress_bar=False)
    return history.losses

# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    Exercise('train_loop', probe="""
            _torch.manual_seed(0)
            _loss = losses.SoftmaxLoss(load_encoder(profile), num_labels=3)
            _examples = training.prepare_examples(pairs[:10], _loss)
            _result = train_loop(_loss, _examples, epochs=2, batch_size=4, lr=1e-4, warmup_ratio=0.25, seed=7)
            """, reference=fit_loop, kept=True),
    Exercise('MNRL', probe="""
            _rng = _np.random.default_rng(2025)
            _a, _p, _n = (_torch.tensor(_rng.normal(size=(4, 8)), dtype=_torch.float32) for _ in range(3))
            _result = {"pairs": MNRL(_Model()).loss_from_embeddings([_a, _p]),
                       "triplets": MNRL(_Model()).loss_from_embeddings([_a, _p, _n]),
                       "scale 5": MNRL(_Model(), scale=5.0).loss_from_embeddings([_a, _p, _n])}
            """, reference=losses.MultipleNegativesRankingLoss, kept=True),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "03.1": choice(
        "What happens to the updates if your loop forgets optimizer.zero_grad()?",
        "Gradients pile up: each step uses the sum of all so far",
        {"Nothing: each backward() call overwrites the old .grad":
            "backward() adds into .grad; it does not overwrite it.",
         "The loss drops to zero after the first step and stays there":
            "Why would the loss vanish? Think about what is in .grad at step 2.",
         "The optimizer raises an error at step 2":
            "PyTorch will not complain. What is in .grad at the second step?"}),
    "03.2a": number(
        "epochs = 2, 1,000 examples, batch 16: how many optimizer steps?",
        126, 0,
        "Every batch is a step, the last smaller one too, in every epoch.",
        "A step is a batch, and the batches are cut per epoch.",
        {124: "The last, smaller batch of each epoch is still a step: round up, per epoch.",
         125: "Batches are cut per epoch: round up the batches of one epoch, then take two epochs.",
         63: "That is one epoch."}),
    "03.2b": number(
        "And how many warm-up steps with warmup_ratio = 0.1?",
        13, 0,
        "The warm-up is a share of all steps, both epochs, rounded up.",
        "The warm-up is 10% of all steps, rounded up.",
        {12: "The schedule rounds the warm-up up, not down.",
         7: "The warm-up is 10% of all steps, both epochs together."}),
    "03.2c": number(
        "What learning rate does the very first step use?",
        0, 0,
        "A learning rate below zero would climb the loss.",
        "Look at the warm-up factor step / warmup at the very first step, counting steps as the scheduler does.",
        {2e-5: "That is the peak rate, reached at the end of the warm-up."}),
    "03.3a": number(
        "MNRL with a batch of 64 triplets: how many candidates does each anchor compete against (the right one included)?",
        128, 0,
        "Every positive and every hard negative of the batch is a candidate.",
        "The candidates are the batch's positives and negatives; anchors are not candidates.",
        {64: "Each triplet brings two sentences to the candidate set, not one.",
         127: "That is the number of negatives. Count the right candidate too.",
         192: "Anchors are not candidates: they are the rows of the score matrix."}),
    "03.3b": choice(
        "Why does a bigger batch usually give better embeddings with MNRL?",
        "Each anchor gets more, and harder, negatives",
        {"Bigger batches take larger gradient steps":
            "The loss is a mean over the batch. What does each anchor compete against?",
         "A bigger batch sees the data more often":
            "One epoch sees every example once, whatever the batch size.",
         "It does not: batch size only changes speed":
            "In MNRL the batch is part of the task itself: every other sentence is a negative."}),
    "03.4": choice(
        "Why is the contradiction hypothesis a good hard negative for its premise?",
        "It shares words and topic with the premise but not its meaning",
        {"It is unrelated to the premise, so it is easy to push away":
            "An unrelated sentence would be an easy negative. What makes a negative hard?",
         "NLI gives it a gold similarity of 0, the lowest score":
            "NLI labels entailment, neutral or contradiction, not similarity scores.",
         "It is usually longer than the entailed hypothesis":
            "Length is not the point. Compare the words of premise and contradiction."}),
    "03.5": choice(
        "Why did the classification objective not help the random encoder here, while it works from pre-trained BERT "
        "with ~1M pairs?",
        "It reaches the encoder only through a classifier that learns little here",
        {"It never computes a cosine, so it cannot change the cosines":
            "The cosine did change — it got worse. The classifier reads |u−v|: the encoder moves.",
         "Its loss near ln 3 shows the classifier was already perfect at NLI":
            "ln 3 is the loss of a uniform guess over three labels.",
         "It only works with CLS pooling, and the workbook pools by the mean":
            "The paper trains it with mean pooling."}),
    "03.6": choice(
        "Which of these does fit do that your train_loop does not?",
        "Keep the best model by dev-set evaluation",
        {"Zero the gradients before every step":
            "Your loop does that too (question 1).",
         "Warm the rate up, then decay it linearly":
            "Your loop has that schedule too (question 2).",
         "Clip the gradient norm before each step":
            "Your loop clips too: it was part of the exercise."}),
    "03.7": choice(
        "all-MiniLM-L6-v2 got worse after the softmax objective on 500 NLI pairs. What should your colleague try?",
        "MNRL or regression, a lower rate, fewer steps, held-out comparison",
        {"A higher learning rate, so that the 500 pairs count for more":
            "Compare the two runs of section 6: which rate moved the model further from where it was good?",
         "More epochs of the same objective on the same 500 pairs":
            "More steps on the same few pairs: more adding, or more overwriting?",
         "A bigger classifier head over (u, v, |u−v|)":
            "The head is thrown away after training. What does the objective ask of the cosines?"}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
