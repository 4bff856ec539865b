"""Self-checks for ``03_train_it_yourself``: the training loop (a Run beside ``fit``) and MNRL (an Objective)."""
import copy
import math

import numpy as np

import torch
import torch.nn.functional as F

from ... import losses
from ...data import Triplet
from ...training import epoch_batches, fit, make_optimizer, prepare_examples
from ...training.arguments import DEFAULT_SEED
from . import Objective, Run, _brief, call, guard, hinted, require


# ----------------------------------------------------------------------------- the training loop
def fit_loop(loss, examples, *, epochs: int = 1, batch_size: int = 16, lr: float = 2e-5, warmup_ratio: float = 0.1,
             max_grad_norm: float = 1.0, seed: int = DEFAULT_SEED, length_grouping: bool = False) -> list[float]:
    """Notebook 03's ``train_loop`` as the library runs it (:func:`sbertlib.training.fit`): every step's loss."""
    history = fit(loss.model, loss, examples, epochs=epochs, batch_size=batch_size, lr=lr, warmup_ratio=warmup_ratio,
                  max_grad_norm=max_grad_norm, seed=seed, length_grouping=length_grouping, show_progress_bar=False)
    return history.losses


def _schedule(slip: str, total: int, warmup_ratio: float, per_epoch: int):
    """fit's rate factor at step ``s`` (``slip``: a schedule written with one everyday mistake)."""
    warmup = {"warm-up one epoch": math.ceil(warmup_ratio * per_epoch), "no warm-up": 0,
              "warm-up rounded down": math.floor(warmup_ratio * total)}.get(slip, math.ceil(warmup_ratio * total))
    divisor = warmup_ratio * total if slip == "warm-up float" else max(1, warmup) + (slip == "warm-up + 1")
    floor, span = -math.inf if slip.endswith("unclamped") else 0.0, total if slip == "decay" else max(1, total - warmup)
    span += slip == "decay + 1"
    decayed = {"no decay": lambda s: 1.0, "cosine": lambda s: 0.5 * (1 + math.cos(math.pi * (s - warmup) / span))}.get(
        slip, lambda s: max(floor, (total - s) / span))
    return lambda s: (s + (slip == "warm-up from 1")) / divisor if s < warmup else decayed(s)


def _embed(model, batch: list, slip: str) -> list:
    """One embedding per text column of ``batch``, each by its own forward pass of the one encoder (or a slip's)."""
    columns = list(zip(*(ex.texts for ex in batch)))[:2 if slip == "two columns" else None]
    columns = [columns[0]] * len(columns) if slip == "first column twice" else columns
    columns = columns[::-1] if slip == "reversed" else columns
    if slip == "first reused":                              # one column's embedding for every column
        return [model(model.tokenize(list(columns[0])))] * len(columns)
    if "one pass" in slip:                                  # every column in one forward pass: its dropout differs
        return list(model(model.tokenize([t for c in columns for t in c])).split(len(batch)))
    return [model(model.tokenize(list(c))).detach() if slip == "no graph" or (i and slip == "one detached") else
            model(model.tokenize(list(c))) for i, c in enumerate(columns)]


def _optimizer(loss, model, lr: float, factor, slip: str):
    """``_loop``'s optimizer and its schedule of rate factors (a slip's: another optimizer, an offset, lr in the factor)."""
    optimizer = (torch.optim.SGD(loss.parameters(), lr=lr) if slip == "sgd" else
                 make_optimizer(model if slip in ("encoder only", "copy trained") else loss, lr))
    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: factor(s + (slip == "off by one")) * (
        lr if slip == "factor × lr" else 1))


def _loop(loss, examples, *, epochs=1, batch_size=16, lr=2e-5, warmup_ratio=0.1, max_grad_norm=1.0, seed=42,
          length_grouping=False, slip: str = "") -> list[float]:
    """Notebook 03's ``train_loop`` in plain PyTorch; ``slip``: one everyday mistake written in (the slips below)."""
    model = copy.deepcopy(loss.model) if slip.startswith("copy") else loss.model
    _ = torch.manual_seed(seed) if slip != "no seed" else None   # a loop that never seeds: torch's state as it is
    per_epoch = len(examples) // batch_size if slip == "rounded down" else math.ceil(len(examples) / batch_size)
    total = per_epoch if slip.startswith("one-epoch") else epochs * (len(examples) if slip == "examples" else per_epoch)
    made = lambda: _optimizer(loss, model, lr, _schedule(slip, total, warmup_ratio, per_epoch), slip)  # noqa: E731
    optimizer, scheduler = made()
    loss.train(mode=slip != "eval")                         # the check hands the model over in eval mode
    lengths = [sum(len(t) for t in ex.texts) for ex in examples] if length_grouping and slip != "ungrouped" else None
    clip = torch.nn.utils.clip_grad_value_ if slip == "clip value" else torch.nn.utils.clip_grad_norm_
    values = []
    for epoch in range(epochs):
        _ = torch.manual_seed(seed + epoch * (slip == "seed + epoch")) if slip in (
            "seed each epoch", "seed + epoch") else None
        optimizer, scheduler = made() if slip == "made each epoch" and epoch else (optimizer, scheduler)
        _ = torch.empty((), dtype=torch.int64).random_() if "data loader" in slip else None   # its iterator's seed
        which = {"epoch 0": 0, "epoch from 1": epoch + 1}.get(slip, epoch)
        batches = (torch.arange(len(examples)).split(batch_size) if slip == "in order" else
                   epoch_batches(len(examples), batch_size, DEFAULT_SEED if slip == "data seed" else seed, which,
                                 lengths=lengths))
        for ids in [b for b in batches if slip != "drop last" or len(b) == batch_size]:
            batch = [examples[i] for i in ids]
            embeddings = _embed(model, batch, slip)
            labelled = examples[:len(batch)] if slip == "first labels" else batch
            labels = None if batch[0].label is None else torch.tensor([ex.label for ex in labelled])
            value = loss.loss_from_embeddings(embeddings, labels)
            _ = (loss.model.zero_grad() if slip == "model zero_grad" else
                 optimizer.zero_grad() if slip != "no zero_grad" else None)
            (torch.tensor(value.item(), requires_grad=True) if slip == "detached" else value).backward()
            clip(loss.model.parameters() if slip == "clip encoder" else loss.parameters(),
                 math.inf if slip == "no clip" else max_grad_norm)
            optimizer.step()
            _ = scheduler.step() if slip != "epoch scheduler" else None
            values.append(value.item())
        _ = scheduler.step() if slip == "epoch scheduler" else None
    return values


def _run(fn, recipe: dict, encoder, pairs, triplets):
    """``fn`` trains an eval-mode CPU copy of ``encoder`` on a recipe: (losses, encoder trained, encoder given)."""
    torch.manual_seed(0)                                    # the classifier head starts alike in every run
    model, on_pairs = copy.deepcopy(encoder).cpu().eval(), recipe["objective"] == "SoftmaxLoss"
    loss = losses.SoftmaxLoss(model, num_labels=3) if on_pairs else losses.MultipleNegativesRankingLoss(model)
    examples = prepare_examples((pairs if on_pairs else triplets)[:recipe["examples"]], loss)
    settings = {k: v for k, v in recipe.items() if k not in ("objective", "examples")}
    torch.manual_seed(1)                                    # what a loop that never seeds draws its dropout from
    got = call(lambda loss, examples: fn(loss, examples, **settings), loss, examples, what="your train_loop")
    require(isinstance(got, (list, tuple)) and all(isinstance(x, (int, float)) for x in got),
            f"train_loop returned {_brief(got)}, not a list of numbers", "append value.item() each step; return them")
    return [float(x) for x in got], model, encoder


def _where_they_part(got: list, want: list, recipe: dict) -> str:
    """Where the student's losses part from fit's (never fit's values): the step count, the first step, a later one."""
    k = next((i for i, (g, w) in enumerate(zip(got, want)) if not TRAIN_LOOP.same([g], [w])), None)
    per_epoch, n, epochs = len(want) // recipe["epochs"], recipe["examples"], recipe["epochs"]
    other = [b for b in range(1, n + 1) if epochs * math.ceil(n / b) == len(got) != len(want)]
    other = [16] if 16 in other else other[:1] + other[-1:] * (len(other) > 1)   # the stub's default, or a range
    why = (f"as many as batches of {'–'.join(map(str, other))} make: is batch_size passed on to epoch_batches?"
           if other else
           "one epoch's steps: loop over every epoch" if len(got) == per_epoch else
           "append value.item() after every step, one loss a step")
    n_, mine = np.arange(1, len(got) + 1), np.asarray(got, float)   # the losses whose averages so far these are
    means = [n_ * mine - np.r_[0, (n_ * mine)[:-1]], n_ * mine - np.r_[0, np.cumsum(mine)[:-1]]]   # of theirs, of these
    return (f"your train_loop returned {len(got)} losses: the recipe's {epochs} epochs of {n} examples, each cut into "
            f"batches of batch_size={recipe['batch_size']} (the last one smaller), make {len(want)} steps — {why}"
            if len(got) != len(want) else
            "your losses are averages over the steps so far: record each step's own value.item()"
            if any(np.allclose(m, want, rtol=1e-3) for m in means) else
            "they part as the second epoch starts (here also where the warm-up ends): what your loop does at each "
            "epoch (its seeding, its batches, an optimizer or scheduler made again), or the decay, (total − s) / "
            "(total − warmup)" if k in (per_epoch, per_epoch + 1) else
            "the first step differs, before any update: its batch (epoch_batches), torch.manual_seed(seed) first, "
            "training mode, the one encoder on each text column" if k == 0 else
            f"the first {k} losses are fit's, then they part: the update (the optimizer, zero_grad, backward, clipping "
            "loss.parameters() to max_grad_norm), the rate schedule, or that epoch's own batches")


_slip = lambda name: lambda loss, examples, **settings: _loop(loss, examples, **settings, slip=name)  # noqa: E731
# 8 steps a recipe (20 examples: batches of 6, 6, 6, 2), 4 of them warm-up: the decay shows in the last two losses
RECIPE = dict(examples=20, epochs=2, batch_size=6, lr=1e-3, warmup_ratio=0.4, max_grad_norm=0.05, seed=7)
TRAIN_LOOP = Run(
    "train_loop", reference=fit_loop, run=_run, tolerance=1e-5, kept=True, hint=_where_they_part, recipes=lambda: [
        dict(objective=o, **RECIPE, length_grouping=o != "SoftmaxLoss") for o in ("SoftmaxLoss", "MNRL")],
    slips={"the model's weights never changed: either no gradient reached them — call backward() on the loss itself "
           "(not on a tensor made from .item()), zero_grad() before backward() — or the rate stayed 0: the warm-up "
           "starts at 0, so scheduler.step() must follow every optimizer.step()": _slip("detached"),
           "your scheduler stepped once per epoch: the rate changes every step — scheduler.step() after each "
           "optimizer.step()": _slip("epoch scheduler"),
           "your optimizer updates the encoder's parameters only, so the classifier head never trained: give it "
           "loss.parameters() (the head's too) — make_optimizer(loss, lr)": _slip("encoder only"),
           "you trained a copy of the encoder: the notebook's model never changed — train loss.model": _slip("copy"),
           "you trained a deep copy of the encoder, left in eval mode: train loss.model itself, with "
           "make_optimizer(loss, lr)": _slip("copy trained"),
           "your embeddings were .detach()ed: no gradient reached the encoder, only the classifier head trained":
               _slip("no graph"),
           "your labels are the first examples', not the batch's: take each label from the batch's examples":
               _slip("first labels"),
           "your text columns are in reverse order: encode them in the examples' order, the first text first":
               _slip("reversed"),
           "your optimizer is plain SGD: the recipe's is Adam — make_optimizer(loss, lr), fit's AdamW": _slip("sgd"),
           "the gradients of earlier steps were still there: optimizer.zero_grad() every step": _slip("no zero_grad"),
           "the encoder trained in eval mode, dropout off: call loss.train() before the loop": _slip("eval"),
           "the dropout masks are not fit's: call torch.manual_seed(seed) first": _slip("no seed"),
           "your batches are the examples in file order: take each epoch's from epoch_batches(…)": _slip("in order"),
           "every epoch trained on the first epoch's batches: give epoch_batches each epoch": _slip("epoch 0"),
           "your epochs count from 1: epoch_batches numbers them from 0, as range(epochs) does": _slip("epoch from 1"),
           "the last, smaller batch of each epoch was skipped: it is a step too": _slip("drop last"),
           "the batches were not grouped by length: pass lengths= to epoch_batches": _slip("ungrouped"),
           "only two text columns were encoded: run the encoder on every column": _slip("two columns"),
           "you clipped the encoder's parameters only: clip all loss.parameters()": _slip("clip encoder"),
           "the gradients were not clipped to max_grad_norm between backward() and optimizer.step() (clipping before "
           "backward() clips nothing)": _slip("no clip"),
           "every step used the next step's rate (off by one): step the scheduler after the optimizer":
               _slip("off by one"),
           "your schedule rounds batches per epoch down: the last, smaller one is a step too": _slip("rounded down"),
           "your schedule is planned over one epoch: plan it over all the epochs' steps": _slip("one-epoch plan"),
           "your schedule is planned over one epoch, so after it the rate went below 0: plan it over all the epochs' "
           "steps": _slip("one-epoch unclamped"),
           "your decay divides by all the steps: after the warm-up the factor is (total − s) / (total − warmup)":
               _slip("decay"),
           "your rate stays at lr after the warm-up (a constant schedule): it decays linearly to 0, the factor "
           "(total − s) / (total − warmup)": _slip("no decay"),
           "your warm-up is a share of one epoch's steps, not of the whole run's": _slip("warm-up one epoch"),
           "your warm-up is rounded down: warmup_ratio × total steps, rounded up": _slip("warm-up rounded down"),
           "your schedule counts examples, not steps: a step is a batch": _slip("examples"),
           "clip_grad_value_ clips each gradient entry: the recipe clips the gradients' norm, clip_grad_norm_":
               _slip("clip value"),
           "your warm-up starts at 1 / warmup: the factor is s / warmup, s counted from 0 (the first rate is 0)":
               _slip("warm-up from 1"),
           "a text column was encoded without a gradient (torch.no_grad() or .detach()): encode every column with "
           "gradients on": _slip("one detached"),
           "the first text column was encoded for every column: encode each column once, in order":
               _slip("first column twice"),
           "your warm-up divides by warmup_ratio × total, a fraction of a step: warmup = ceil(warmup_ratio × total)":
               _slip("warm-up float"),
           "your decay is a cosine (get_cosine_schedule_with_warmup): the recipe's falls linearly, (total − s) / "
           "(total − warmup)": _slip("cosine"),
           "you seeded again at every epoch, so each epoch reused the first one's dropout masks: seed once, before "
           "the loop": _slip("seed each epoch"),
           "model.zero_grad() clears the encoder's gradients only, so the classifier head's added up: "
           "optimizer.zero_grad() clears them all": _slip("model zero_grad"),
           "your rate starts at lr: the warm-up raises it from 0 over the first warmup steps (factor s / warmup)":
               _slip("no warm-up"),
           "your warm-up divides by warmup + 1: the factor is s / warmup": _slip("warm-up + 1"),
           "your LambdaLR factor holds lr: LambdaLR multiplies the optimizer's lr by it (the rate was lr² · factor), "
           "so return the factor alone": _slip("factor × lr"),
           "the first column's embedding stood for every column: encode each column, one forward pass each":
               _slip("first reused"),
           "your decay divides by total − warmup + 1: the factor is (total − s) / (total − warmup)":
               _slip("decay + 1"),
           "you seeded again at every epoch (seed + epoch): seed once, before the loop — epoch_batches gives each "
           "epoch its own order": _slip("seed + epoch"),
           "your batches were drawn with seed 42, not the seed it was given: pass seed on to epoch_batches":
               _slip("data seed"),
           "your optimizer and schedule were made again at every epoch, so the rate warmed up from 0 again and "
           "Adam's moments restarted: make them once, before the loop": _slip("made each epoch")},
    alike={"every text column in one forward pass": _slip("one pass"),
           "batches through a DataLoader, which draws a seed from torch's generator each epoch": _slip("data loader"),
           "both of these": _slip("one pass, data loader")},
    ignored=dict(batch_size=16, epochs=1, lr=2e-5, warmup_ratio=0.1, max_grad_norm=1.0, seed=42, length_grouping=False),
    probe="""
            _torch.manual_seed(0)
            _loss = losses.SoftmaxLoss(load_encoder(profile), num_labels=3)
            _examples = training.prepare_examples(pairs[:10], _loss)
            _result = train_loop(_loss, _examples, epochs=2, batch_size=4, lr=1e-4, warmup_ratio=0.25, seed=7)
            """)


def check_train_loop(train_loop, encoder, pairs, triplets) -> None:
    """:data:`TRAIN_LOOP` on copies of the notebook's ``encoder``, its first NLI ``pairs`` and ``triplets``."""
    hinted(TRAIN_LOOP.check, {"ZeroDivisionError": "a division by zero: count warmup and total in steps (batches), "
                              "not examples — for the check's recipe neither warmup nor total − warmup is 0"},
           train_loop, encoder, pairs, triplets)


# ----------------------------------------------------------------------------- MNRL
_cos = lambda a, c, dim=1: F.normalize(a, dim=dim) @ F.normalize(c, dim=dim).T  # noqa: E731


def _mnrl(e, scale=20.0, *, pick=lambda e: (e[0], torch.cat(e[1:])), score=_cos, w=lambda s: s, target=lambda r: r,
          dim=1, total=False, log=torch.log_softmax, smooth=0.0, both=False):
    """MNRL as the library computes it; each keyword replaces one of its parts with a slip's."""
    (a, c), rows = pick(e), torch.arange(len(e[0]))
    logp = log(score(a, c) * w(scale), dim=dim)
    picked = (1 - smooth) * logp[rows, target(rows)] + smooth * logp.mean(dim=1)
    value = -(picked.sum() if total else picked.mean())
    return (value + _mnrl(e, scale, pick=lambda e: (e[1], e[0]))) / 2 if both else value


def _m(**mistake):
    return lambda e, labels, scale=20.0: _mnrl(e, scale, **mistake)


MNRL = Objective(
    "MNRL", reference=losses.MultipleNegativesRankingLoss, settings=({}, {"scale": 5.0}), kept=True,
    batches=lambda: [([torch.randn(b, d, generator=torch.Generator().manual_seed(b * k + i)) for i in range(k)], None)
                     for b, d, k in ((6, 8, 3), (6, 8, 2), (4, 16, 3))],
    examples=lambda: [Triplet("a man plays a guitar", "a man plays music", "nobody plays"), Triplet("dogs run",
                      "dogs are running", "the dogs sleep")], columns=("the anchors", "the positives", "the negatives"),
    stretch="your scores are dot products, not cosines: the loss moved as vectors were stretched — normalise them",
    hint="print the scores' shape (a row per anchor, a column per candidate: positives, then negatives) and targets",
    slips={"the softmax runs down each column (dim=0), not along each anchor's row of candidates (dim=1)": _m(dim=0),
           "the anchors were scored against the anchors: the candidates are embeddings[1:]":
               _m(pick=lambda e: (e[0], e[0])),
           "the anchors are among the candidates (each finds itself): candidates are embeddings[1:]":
               _m(pick=lambda e: (e[0], torch.cat(e))),
           "the anchors are among your candidates: the candidates are embeddings[1:] only (positives, then negatives)":
               _m(pick=lambda e: (e[0], torch.cat(e)), target=lambda r: r + len(r)),
           "your anchors are the second column: embeddings[0] are the anchors, embeddings[1:] the candidates":
               _m(pick=lambda e: (e[1], torch.cat([e[0], *e[2:]]))),
           "no scale: multiply the cosines by self.scale before the softmax": _m(w=lambda s: 1.0),
           "you divided the cosines by the scale: multiply them by self.scale": _m(w=lambda s: 1 / s),
           "the hard negatives were left out: candidates are the positives AND negatives": _m(pick=lambda e: e[:2]),
           "your candidates are the hard negatives only: the positives first, then the negatives (embeddings[1:])":
               _m(pick=lambda e: (e[0], e[-1])),
           "the right candidate of anchor i is column i (its own positive), not column 0": _m(target=lambda r: 0 * r),
           "the right candidate of anchor i is column i (its own positive), not the next one: torch.arange(len(…))":
               _m(target=lambda r: (r + 1) % len(r)),
           "your scores are Euclidean distances (cdist): MNRL scores cosines — normalise, then matrix-multiply":
               _m(score=lambda a, c: -torch.cdist(a, c)),
           "that is a distance, where a similarity is meant: a higher score must mean more alike": _m(w=lambda s: -s),
           "use the mean over the batch (F.cross_entropy's default), not the sum": _m(total=True),
           "your scores are dot products, not cosines: normalise the vectors first": _m(score=lambda a, c: a @ c.T),
           "you normalised each column (dim=0), not each sentence's vector (dim=1)":
               _m(score=lambda a, c: _cos(a, c, 0)),
           "the candidates are the positives first, then the negatives: anchor i's right one is column i":
               _m(pick=lambda e: (e[0], torch.cat(e[:0:-1]))),
           "your loss only raises each anchor's cosine to its own positive (nll_loss takes log-probabilities: "
           "log_softmax first): MNRL is a cross-entropy over all the candidates, the other rows' and the negatives too":
               lambda e, labels, scale=20.0: -(scale * F.cosine_similarity(e[0], e[1])).mean(),
           "you took softmax, not its log, before nll_loss: F.cross_entropy on the scores does log_softmax and "
           "nll_loss together": _m(log=torch.softmax),
           "the scale multiplies the scores before the softmax, not the loss after it":
               lambda e, labels, scale=20.0: scale * _mnrl(e, scale, w=lambda s: 1.0),
           "you took a softmax of the scores, then cross_entropy takes another: give it the scores themselves":
               _m(log=lambda x, dim: torch.log_softmax(torch.softmax(x, dim), dim)),
           "you divided by the norm of the whole matrix: normalise each sentence's vector (each row) on its own":
               _m(score=lambda a, c: (a / a.norm()) @ (c / c.norm()).T),
           "your candidates are interleaved (p1, n1, p2, …, as torch.stack(…, dim=1) lays them): the positives "
           "first, then the negatives, torch.cat(embeddings[1:])":
               _m(pick=lambda e: (e[0], torch.stack(e[1:], 1).flatten(0, 1))),
           "your candidates are positives − negatives: each positive and each negative is a candidate of its own":
               _m(pick=lambda e: (e[0], e[1] - e[2])),
           "label smoothing spreads the target over wrong candidates: MNRL's target is the right candidate alone":
               _m(smooth=0.1),
           "F.normalize(p=1) divides by the sum of absolute values: a cosine needs the Euclidean length, p=2":
               _m(score=lambda a, c: F.normalize(a, p=1, dim=1) @ F.normalize(c, p=1, dim=1).T),
           "your loss goes both ways (the positives also pick their anchor): MNRL goes one way, each anchor picks "
           "among all the candidates": _m(both=True),
           "your loss goes both ways over the positives only: MNRL goes one way, each anchor picks among all the "
           "candidates, the hard negatives too": lambda e, labels, scale=20.0: (_mnrl(e[:2], scale) + _mnrl(
               [e[1], e[0]], scale)) / 2,
           "each anchor was scored against its own positive and negative only: the candidates are every row's "
           "positives and negatives (the other rows' are the in-batch negatives)": lambda e, labels, scale=20.0:
               F.cross_entropy(scale * torch.stack([F.cosine_similarity(e[0], x) for x in e[1:]], 1),
                               torch.zeros(len(e[0]), dtype=torch.long)),
           "you averaged a cross-entropy per candidate column: MNRL takes one over all the candidates at once, "
           "torch.cat(embeddings[1:])":
               lambda e, labels, scale=20.0: sum(_mnrl([e[0], c], scale) for c in e[1:]) / (len(e) - 1)},
    probe="""
            _rng = _np.random.default_rng(2025)
            _a, _p, _n = (_torch.tensor(_rng.normal(size=(4, 8)), dtype=_torch.float32) for _ in range(3))
            _result = {"pairs": MNRL(_Model()).loss_from_embeddings([_a, _p]),
                       "triplets": MNRL(_Model()).loss_from_embeddings([_a, _p, _n]),
                       "scale 5": MNRL(_Model(), scale=5.0).loss_from_embeddings([_a, _p, _n])}
            """)

_ROWS = "your scores have a row per candidate: a row per anchor, anchors @ candidates.T"
MNRL_RAISED = {   # what the student's own code raised, said in the exercise's terms
    "out of bounds": _ROWS, "Expected input batch_size": _ROWS,
    "shapes cannot be multiplied": "the scores are anchors @ candidates.T, the candidates joined as rows: "
                                   "torch.cat(embeddings[1:])",
    "must be Tensor, not NoneType": "MNRL's examples have no labels (None): the targets are where each anchor's own "
                                    "positive stands, torch.arange(len(anchors))",
    "in-place operation": "you changed an embedding in place (a _ method, /=): make new tensors, F.normalize(e, dim=1)"}


def check_mnrl(cls, encoder) -> None:
    """The student's ``MNRL(model, scale=20.0)`` beside MultipleNegativesRankingLoss (:data:`MNRL`)."""
    hinted(MNRL.check, MNRL_RAISED, cls, encoder)
EXERCISES = (TRAIN_LOOP, MNRL)

guard(globals())   # last: every check above shows its own failures as an ExerciseError
