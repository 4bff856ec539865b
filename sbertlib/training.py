"""Fine-tuning a SentenceEncoder: ``fit(model, loss, train_data) -> History``.

The defaults are the paper's recipe (Section 4): batch size 16, Adam with learning rate 2e-5
(AdamW with weight decay 0.01 on all but biases and LayerNorm weights, as sentence-transformers),
a linear learning-rate warm-up over the first 10% of the steps followed by a linear decay to 0,
one epoch, gradient clipping at norm 1.

What ``fit`` does, step by step::

    examples = prepare_examples(train_data, loss)     # validate, turn records into (texts, label)
    for each step:                                     # batches in a seeded random order
        batch = collate(examples[batch_ids], model)    # tokenize every text column
        value = loss(batch); value.backward()          # forward through the siamese encoder
        clip gradients; optimizer.step(); scheduler.step()
        every evaluation_steps: score = evaluator(model); keep the best model in output_dir/best
        every checkpoint_steps: write output_dir/checkpoint/state.pt (atomically)

Interrupting (Ctrl-C, the notebook's stop button) is safe: ``fit`` stops, writes nothing
half-done, and *returns* the History so far with ``history.interrupted = True`` instead of
raising. ``fit(..., resume=True)`` then continues from the last checkpoint and ends with exactly
the weights an uninterrupted run would have produced (same data order, same dropout masks).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import random
import tempfile
import time
import warnings
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterator, NamedTuple, Sequence

import numpy as np
import torch
from tqdm.auto import tqdm

from .data import NLI_LABELS, NLIPair, STSPair, Triplet
from .losses import Batch, SBERTLoss

CHECKPOINT_DIR, CHECKPOINT_FILE = "checkpoint", "state.pt"
BEST_DIR, FINAL_DIR = "best", "final"
NO_DECAY = ("bias", "LayerNorm.weight", "LayerNorm.bias")  # as sentence-transformers' fit()
MEGA_BATCHES = 50  # length grouping sorts within groups of this many batches


# ----------------------------------------------------------------------------- history
_SERIES = ("steps", "losses", "lrs", "dev_steps", "dev_scores")


@dataclass
class History:
    """What happened during :func:`fit`: one record per optimizer step.

    ``records[i]`` holds ``step``, ``epoch``, ``loss``, ``lr`` and, at evaluated steps, ``dev_score``.
    Plot with ``plt.plot(h.steps, h.losses)`` and ``plt.plot(h.dev_steps, h.dev_scores)``.
    """

    profile: str | None = None
    backbone: str = ""
    loss: str = ""
    total_steps: int = 0
    records: list[dict] = field(default_factory=list)
    best_score: float | None = None
    best_step: int | None = None
    best_path: str | None = None
    interrupted: bool = False
    seconds: float = 0.0
    settings: dict = field(default_factory=dict)

    @property
    def steps(self) -> list[int]:
        return [r["step"] for r in self.records]

    @property
    def losses(self) -> list[float]:
        return [r["loss"] for r in self.records]

    @property
    def lrs(self) -> list[float]:
        return [r["lr"] for r in self.records]

    @property
    def dev_steps(self) -> list[int]:
        return [r["step"] for r in self.records if "dev_score" in r]

    @property
    def dev_scores(self) -> list[float]:
        return [r["dev_score"] for r in self.records if "dev_score" in r]

    @property
    def completed(self) -> bool:
        return bool(self.records) and self.records[-1]["step"] >= self.total_steps

    def to_dict(self) -> dict:
        """All fields, plus the plot-ready lists (``steps``, ``losses``, ``lrs``, ``dev_steps``, ``dev_scores``)."""
        return {**asdict(self), **{k: getattr(self, k) for k in _SERIES}}

    def save(self, path: str | os.PathLike) -> Path:
        """Write the history as JSON (atomically)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, lambda tmp: tmp.write_text(json.dumps(self.to_dict(), indent=1)))
        return path

    @classmethod
    def from_dict(cls, d: dict) -> "History":
        return cls(**{k: v for k, v in d.items() if k not in _SERIES})

    @classmethod
    def load(cls, path: str | os.PathLike) -> "History":
        return cls.from_dict(json.loads(Path(path).read_text()))

    def __repr__(self) -> str:
        last = f"loss {self.losses[-1]:.4f}" if self.records else "no steps"
        best = f", best dev {self.best_score:.2f} at step {self.best_step}" if self.best_score is not None else ""
        stop = " [interrupted]" if self.interrupted else ""
        return (f"History({self.loss} on {self.backbone!r}, profile={self.profile!r}: "
                f"{len(self.records)}/{self.total_steps} steps, {last}{best}){stop}")


# ----------------------------------------------------------------------------- examples
class Example(NamedTuple):
    texts: tuple[str, ...]
    label: int | float | None


def as_example(item, index: int, loss: SBERTLoss) -> Example:
    """Turn one training record into ``(texts, label)`` for ``loss``; ValueError names ``index``.

    Accepted: :class:`NLIPair` (class label), :class:`STSPair` (score, ``.label`` in 0–1),
    :class:`Triplet` (no label), or a tuple ``(text_a, text_b, label)`` — for label-free
    losses a tuple holds texts only, e.g. ``(anchor, positive, negative)``.
    """
    kind, name = loss.label_kind, type(loss).__name__
    if isinstance(item, NLIPair):
        texts, label = (item.premise, item.hypothesis), item.label
    elif isinstance(item, STSPair):
        texts, label = (item.sentence1, item.sentence2), item.label
    elif isinstance(item, Triplet):
        texts, label = (item.anchor, item.positive, item.negative), None
    elif isinstance(item, (tuple, list)):
        texts, label = (tuple(item), None) if kind is None else (tuple(item[:-1]), item[-1] if item else None)
    else:
        raise ValueError(f"item {index}: cannot train on a {type(item).__name__}; "
                         "use NLIPair, STSPair, Triplet or a (text_a, text_b, label) tuple")
    if len(texts) not in loss.n_texts:
        want = " or ".join(map(str, loss.n_texts))
        raise ValueError(f"item {index}: {name} needs {want} texts, got {len(texts)} ({type(item).__name__})")
    for t in texts:
        if not isinstance(t, str):
            raise ValueError(f"item {index}: texts must be strings, got {type(t).__name__}: {t!r}")
    return Example(texts, _check_label(label, kind, index, loss))


def _check_label(label, kind: str | None, index: int, loss: SBERTLoss):
    name = type(loss).__name__
    if kind is None:
        if label is not None:
            raise ValueError(f"item {index}: {name} takes no labels; give (anchor, positive[, negative]) texts")
        return None
    if kind == "class":
        if isinstance(label, str):
            if label not in NLI_LABELS:
                raise ValueError(f"item {index}: unknown label {label!r}; expected one of {NLI_LABELS}")
            label = NLI_LABELS.index(label)
        if isinstance(label, bool) or not isinstance(label, (int, np.integer)) \
                or not 0 <= label < loss.num_labels:
            raise ValueError(f"item {index}: label {label!r} is not a class id in 0..{loss.num_labels - 1}")
        return int(label)
    try:
        value = float(label)
    except (TypeError, ValueError):
        raise ValueError(f"item {index}: {name} needs a numeric gold score, got {label!r}") from None
    if not (math.isfinite(value) and -1.0 <= value <= 1.0):
        raise ValueError(f"item {index}: gold score {value} is outside [-1, 1], the range of a cosine; "
                         "scale it to 0–1 first (STSPair.label does: score / 5 for STSb)")
    return value


def prepare_examples(train_data: Sequence, loss: SBERTLoss) -> list[Example]:
    """Validate every record up front (before any training) and convert it with :func:`as_example`."""
    examples = [as_example(item, i, loss) for i, item in enumerate(train_data)]
    if not examples:
        raise ValueError("train_data is empty: nothing to train on")
    width = len(examples[0].texts)
    for i, ex in enumerate(examples):
        if len(ex.texts) != width:
            raise ValueError(f"item {i} has {len(ex.texts)} texts but item 0 has {width}: mix of shapes")
    return examples


def collate(examples: Sequence[Example], model) -> Batch:
    """Tokenize each text column with ``model.tokenize``; labels become a tensor (long or float)."""
    columns = list(zip(*(ex.texts for ex in examples)))
    features = [model.tokenize(list(col)) for col in columns]
    if examples[0].label is None:
        return Batch(features, None)
    return Batch(features, torch.tensor([ex.label for ex in examples], device=model.device))


# ----------------------------------------------------------------------------- data order
def epoch_batches(n: int, batch_size: int, seed: int, epoch: int, shuffle: bool = True,
                  lengths: Sequence[int] | None = None) -> list[list[int]]:
    """Item indices of each batch of one epoch, a pure function of ``(seed, epoch)``.

    With ``lengths`` (length grouping): shuffle, sort by length within groups of
    ``MEGA_BATCHES`` batches, cut into batches, then shuffle the order of the batches — batches
    hold sentences of similar length (less padding, faster) yet the order stays random.
    """
    order = list(range(n))
    gen = torch.Generator().manual_seed(seed + 1_000_003 * epoch)
    if shuffle:
        order = torch.randperm(n, generator=gen).tolist()
    if lengths is None:
        return [order[i:i + batch_size] for i in range(0, n, batch_size)]
    group = batch_size * MEGA_BATCHES
    batches = []
    for start in range(0, n, group):
        chunk = sorted(order[start:start + group], key=lambda i: lengths[i])
        batches += [chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size)]
    perm = torch.randperm(len(batches), generator=gen).tolist() if shuffle else range(len(batches))
    return [batches[i] for i in perm]


def batch_stream(n: int, batch_size: int, seed: int, start_step: int, total_steps: int,
                 shuffle: bool = True, lengths=None) -> Iterator[tuple[int, list[int]]]:
    """``(epoch, batch indices)`` for steps ``start_step+1 .. total_steps`` (resumes mid-epoch)."""
    per_epoch = math.ceil(n / batch_size)
    step = start_step
    while step < total_steps:
        epoch, position = divmod(step, per_epoch)
        for ids in epoch_batches(n, batch_size, seed, epoch, shuffle, lengths)[position:]:
            if step >= total_steps:
                return
            yield epoch, ids
            step += 1


# ----------------------------------------------------------------------------- optimizer
def make_optimizer(loss: torch.nn.Module, lr: float = 2e-5, weight_decay: float = 0.01) -> torch.optim.AdamW:
    """AdamW over the encoder *and* the loss's own head; no weight decay on biases and LayerNorm."""
    params = [(n, p) for n, p in loss.named_parameters() if p.requires_grad]
    groups = [{"params": [p for n, p in params if not any(nd in n for nd in NO_DECAY)],
               "weight_decay": weight_decay},
              {"params": [p for n, p in params if any(nd in n for nd in NO_DECAY)], "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr)


def linear_warmup(optimizer, warmup_steps: int, total_steps: int) -> torch.optim.lr_scheduler.LambdaLR:
    """Learning rate rises linearly 0 → lr over ``warmup_steps``, then falls linearly to 0 at ``total_steps``."""
    def factor(step: int) -> float:
        if step < warmup_steps:
            return step / max(1, warmup_steps)
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


# ----------------------------------------------------------------------------- RNG state
def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def rng_state() -> dict:
    """Every random-number state training touches (dropout uses torch's), as plain lists/tensors.

    The data order needs no state here: each epoch's order is a pure function of ``(seed, epoch)``
    (:func:`epoch_batches`), and the position in the epoch follows from the step.
    """
    py = random.getstate()
    np_state = np.random.get_state()
    state = {"python": [py[0], list(py[1]), py[2]],
             "numpy": [np_state[0], np_state[1].tolist(), *np_state[2:]],
             "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
    name, keys, *rest = state["numpy"]
    np.random.set_state((name, np.array(keys, dtype=np.uint32), *rest))
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


# ----------------------------------------------------------------------------- checkpoints
def _atomic_write(path: Path, write: Callable[[Path], object]) -> None:
    """Write via a temp file in the same folder, then ``os.replace``: never a half-written file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def checkpoint_path(output_dir: str | os.PathLike) -> Path:
    return Path(output_dir) / CHECKPOINT_DIR / CHECKPOINT_FILE


def save_checkpoint(path: Path, step: int, loss: SBERTLoss, optimizer, scheduler, scaler,
                    history: History, fingerprint: dict) -> None:
    per_epoch = math.ceil(fingerprint["n_examples"] / fingerprint["batch_size"])
    data_order = {"seed": fingerprint["seed"], "epoch": step // per_epoch, "position": step % per_epoch}
    state = {"step": step, "data_order": data_order, "model": loss.model.state_dict(), "head": loss.head_state(),
             "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
             "scaler": scaler.state_dict() if scaler is not None else None,
             "rng": rng_state(), "history": history.to_dict(), "fingerprint": fingerprint}
    path.parent.mkdir(parents=True, exist_ok=True)
    _atomic_write(path, lambda tmp: torch.save(state, tmp))


def load_checkpoint(path: Path, loss: SBERTLoss, optimizer, scheduler, scaler,
                    fingerprint: dict) -> tuple[int, History]:
    """Restore everything :func:`save_checkpoint` wrote; returns ``(step, history)``."""
    state = torch.load(path, map_location="cpu", weights_only=True)
    changed = {k: (state["fingerprint"].get(k), v) for k, v in fingerprint.items()
               if state["fingerprint"].get(k) != v}
    if changed:
        desc = "; ".join(f"{k}: checkpoint {old!r}, now {new!r}" for k, (old, new) in changed.items())
        raise ValueError(f"cannot resume from {path}: it was written for other settings ({desc}). "
                         "Use the same data and settings, or resume=False to start over.")
    loss.model.load_state_dict(state["model"])
    loss.load_head_state(state["head"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    if scaler is not None and state["scaler"] is not None:
        scaler.load_state_dict(state["scaler"])
    set_rng_state(state["rng"])
    return int(state["step"]), History.from_dict(state["history"])


def _fingerprint(examples: list[Example], loss: SBERTLoss, **settings) -> dict:
    digest = hashlib.sha1()
    for ex in examples:
        digest.update(repr(ex).encode("utf-8"))
    return {"loss": type(loss).__name__, "n_examples": len(examples), "data_sha1": digest.hexdigest(), **settings}


# ----------------------------------------------------------------------------- saving models
def save_model(loss: SBERTLoss, path: Path, save_head: bool, history: History) -> Path:
    """Save the encoder (and, if asked, the loss's classifier head inside the same folder)."""
    loss.model.save(path, extra={"training": {"loss": history.loss, "profile": history.profile,
                                              "steps": len(history.records)}})
    if save_head and hasattr(loss, "save_head"):
        loss.save_head(path)
    return path


# ----------------------------------------------------------------------------- one step
def _amp_dtype(mixed_precision: str | None, device: torch.device) -> torch.dtype | None:
    if mixed_precision not in (None, "bf16", "fp16"):
        raise ValueError(f"mixed_precision must be None, 'bf16' or 'fp16', not {mixed_precision!r}")
    if mixed_precision is None:
        return None
    if device.type != "cuda":
        warnings.warn(f"mixed_precision={mixed_precision!r} needs a CUDA GPU; training in float32 on "
                      f"{device.type}", stacklevel=3)
        return None
    return torch.bfloat16 if mixed_precision == "bf16" else torch.float16


def train_step(loss: SBERTLoss, batch: Batch, optimizer, scheduler, scaler, amp_dtype,
               max_grad_norm: float | None, step: int) -> float:
    """Forward, backward, clip, update; returns the loss value. Raises on a NaN/inf loss."""
    loss.train()
    autocast = torch.autocast("cuda", dtype=amp_dtype) if amp_dtype is not None else nullcontext()
    with autocast:
        value = loss(batch)
    number = float(value.detach())
    if not math.isfinite(number):
        raise FloatingPointError(f"training loss is {number} at step {step}; the weights are those "
                                 f"after step {step - 1} (lower the learning rate or check the data)")
    optimizer.zero_grad(set_to_none=True)
    if scaler is not None:
        scaler.scale(value).backward()
        scaler.unscale_(optimizer)
    else:
        value.backward()
    if max_grad_norm:
        torch.nn.utils.clip_grad_norm_(loss.parameters(), max_grad_norm)
    if scaler is not None:
        scaler.step(optimizer)
        scaler.update()
    else:
        optimizer.step()
    scheduler.step()
    return number


# ----------------------------------------------------------------------------- fit
def fit(model, loss: SBERTLoss, train_data: Sequence, *, epochs: int = 1, batch_size: int = 16,
        lr: float = 2e-5, weight_decay: float = 0.01, warmup_ratio: float = 0.1,
        max_grad_norm: float | None = 1.0, seed: int = 42, max_steps: int | None = None,
        shuffle: bool = True, length_grouping: bool = False,
        evaluator: Callable[[object], float] | None = None, evaluation_steps: int = 0,
        output_dir: str | os.PathLike | None = None, checkpoint_steps: int = 0, resume: bool = False,
        save_head: bool = False, mixed_precision: str | None = None, profile: str | None = None,
        show_progress_bar: bool = True, callback: Callable[[int, History], None] | None = None) -> History:
    """Train ``model`` (a SentenceEncoder) with ``loss`` on ``train_data``; returns a :class:`History`.

    * ``train_data``: NLIPair / STSPair / Triplet records or ``(text_a, text_b, label)`` tuples
      (see :func:`as_example`). Every item is checked first: an unknown label raises ValueError
      naming the item; an empty list raises ValueError.
    * ``batch_size`` larger than the data raises ValueError (lower it). The last batch of an epoch
      may be smaller. Steps per epoch = ``ceil(len(train_data) / batch_size)``.
    * Schedule: ``epochs`` passes, or ``max_steps`` if that is smaller — the warm-up
      (``warmup_ratio`` of the steps, rounded up) and the decay are planned for that length.
    * ``seed`` seeds python/numpy/torch at the start (dropout) and fixes the data order
      (a ``torch.Generator`` per epoch). ``shuffle=False`` keeps the data in order;
      ``length_grouping=True`` batches items of similar length in characters (less padding, faster;
      the batch order stays random).
    * ``evaluator(model) -> float`` (higher is better, e.g. :func:`stsb_dev_evaluator`) runs every
      ``evaluation_steps`` steps and at the end; with ``output_dir`` the best model is saved to
      ``output_dir/best``. With ``output_dir`` the final model is saved to ``output_dir/final``.
      ``save_head=True`` also writes the loss's classifier (``classifier.pt``) into those folders.
    * ``checkpoint_steps``: every so many steps (and at the end) write ``output_dir/checkpoint/state.pt``
      atomically: weights, loss head, optimizer, scheduler, all RNG states, data position, history.
      ``resume=True`` continues from it (a warning and a fresh start if there is none); the data
      and settings must be the same. The result is bit-identical to an uninterrupted run.
    * ``mixed_precision``: ``"bf16"`` or ``"fp16"`` (with a GradScaler) on CUDA; ignored with a
      warning elsewhere.
    * KeyboardInterrupt: returns the History so far with ``interrupted=True`` (the last checkpoint
      stays valid). A NaN/inf loss raises FloatingPointError naming the step.
    * ``callback(step, history)`` runs after every step (after evaluation and checkpointing).
    """
    if getattr(loss, "model", None) is not model:
        raise ValueError("the loss was built for a different model: pass the same encoder to the loss and to fit()")
    examples = prepare_examples(train_data, loss)
    _check_settings(len(examples), batch_size, epochs, max_steps, output_dir, checkpoint_steps, resume)
    total = epochs * math.ceil(len(examples) / batch_size)
    total = min(total, max_steps or total)
    amp_dtype = _amp_dtype(mixed_precision, next(model.parameters()).device)
    optimizer = make_optimizer(loss, lr, weight_decay)
    scheduler = linear_warmup(optimizer, math.ceil(warmup_ratio * total), total)
    scaler = torch.amp.GradScaler("cuda") if amp_dtype == torch.float16 else None
    settings = dict(epochs=epochs, batch_size=batch_size, lr=lr, weight_decay=weight_decay,
                    warmup_ratio=warmup_ratio, max_grad_norm=max_grad_norm, seed=seed, total_steps=total,
                    shuffle=shuffle, length_grouping=length_grouping, mixed_precision=mixed_precision)
    history = History(profile=profile, backbone=str(getattr(model, "info", {}).get("backbone", "")),
                      loss=type(loss).__name__, total_steps=total, settings=settings)
    ckpt = checkpoint_path(output_dir) if output_dir is not None else None
    fingerprint = _fingerprint(examples, loss, **settings) if (checkpoint_steps or resume) else {}
    if resume and ckpt.is_file():
        step, history = load_checkpoint(ckpt, loss, optimizer, scheduler, scaler, fingerprint)
        history.interrupted = False
    else:
        if resume:
            warnings.warn(f"resume=True but there is no checkpoint at {ckpt}: starting from scratch", stacklevel=2)
        step = 0
        seed_everything(seed)
    lengths = [sum(len(t) for t in ex.texts) for ex in examples] if length_grouping else None
    stream = batch_stream(len(examples), batch_size, seed, step, total, shuffle, lengths)
    was_training, started = model.training, time.perf_counter() - history.seconds
    bar = tqdm(total=total, initial=step, desc="fit", unit="step", disable=not show_progress_bar)
    try:
        for epoch, ids in stream:
            batch = collate([examples[i] for i in ids], model)
            lr_now = scheduler.get_last_lr()[0]
            value = train_step(loss, batch, optimizer, scheduler, scaler, amp_dtype, max_grad_norm, step + 1)
            step += 1
            history.records.append({"step": step, "epoch": epoch, "loss": value, "lr": lr_now})
            history.seconds = time.perf_counter() - started
            if evaluator is not None and (step == total or (evaluation_steps and step % evaluation_steps == 0)):
                _evaluate(model, loss, evaluator, history, output_dir, save_head)
            if ckpt is not None and checkpoint_steps and (step % checkpoint_steps == 0 or step == total):
                save_checkpoint(ckpt, step, loss, optimizer, scheduler, scaler, history, fingerprint)
            bar.update(1)
            bar.set_postfix(loss=f"{value:.4f}", refresh=False)
            if callback is not None:
                callback(step, history)
        if output_dir is not None:
            save_model(loss, Path(output_dir) / FINAL_DIR, save_head, history)
    except KeyboardInterrupt:
        history.interrupted = True
        where = f"; fit(..., resume=True) continues from {ckpt}" if ckpt is not None and ckpt.is_file() else ""
        warnings.warn(f"training interrupted after step {step} of {total}{where}", stacklevel=2)
    finally:
        bar.close()
        model.train(was_training)
    return history


def _check_settings(n: int, batch_size: int, epochs: int, max_steps, output_dir, checkpoint_steps, resume) -> None:
    if batch_size < 1 or epochs < 1:
        raise ValueError(f"batch_size and epochs must be >= 1, got batch_size={batch_size}, epochs={epochs}")
    if batch_size > n:
        raise ValueError(f"batch_size={batch_size} is larger than the {n} training examples; "
                         f"use batch_size <= {n} or more data")
    if max_steps is not None and max_steps < 1:
        raise ValueError(f"max_steps must be >= 1 (or None), got {max_steps}")
    if (checkpoint_steps or resume) and output_dir is None:
        raise ValueError("checkpoint_steps and resume need output_dir (where the checkpoint lives)")


def _evaluate(model, loss: SBERTLoss, evaluator, history: History, output_dir, save_head: bool) -> None:
    score = float(evaluator(model))
    history.records[-1]["dev_score"] = score
    if math.isfinite(score) and (history.best_score is None or score > history.best_score):
        history.best_score, history.best_step = score, history.records[-1]["step"]
        if output_dir is not None:
            history.best_path = str(save_model(loss, Path(output_dir) / BEST_DIR, save_head, history))


# ----------------------------------------------------------------------------- dev evaluation
class STSEvaluator:
    """``evaluator(encoder) -> Spearman × 100`` of cosine similarity against gold STS scores.

    The pairs are loaded on the first call (so building the evaluator is free):
    ``pairs`` if given, else STS benchmark ``split`` from ``data_dir``. With ``max_pairs`` it scores a
    fixed random sample (seed 0) of that many pairs — not the first ones: STSb dev opens with 500
    easy video and image captions, which would flatter every model.
    """

    def __init__(self, pairs: Sequence[STSPair] | None = None, split: str = "dev",
                 data_dir: str | os.PathLike | None = None, batch_size: int = 64, max_pairs: int | None = None):
        self.pairs, self.split, self.data_dir = (list(pairs) if pairs is not None else None), split, data_dir
        self.batch_size, self.max_pairs = batch_size, max_pairs

    def _load(self) -> list[STSPair]:
        if self.pairs is None:
            from .data import load_stsb
            self.pairs = load_stsb(self.split, self.data_dir)
        from .analysis import sample_pairs
        return sample_pairs(self.pairs, self.max_pairs)

    @property
    def n_pairs(self) -> int:
        """How many pairs a call scores (loads them if needed)."""
        return len(self._load())

    def __call__(self, encoder) -> float:
        from scipy.stats import spearmanr
        pairs = self._load()
        emb = encoder.encode([p.sentence1 for p in pairs] + [p.sentence2 for p in pairs],
                             batch_size=self.batch_size, show_progress_bar=False, convert_to="torch")
        cos = torch.cosine_similarity(emb[:len(pairs)], emb[len(pairs):], dim=1)
        return float(spearmanr(cos.numpy(), [p.score for p in pairs]).statistic) * 100

    def __repr__(self) -> str:
        what = f"{len(self.pairs)} pairs" if self.pairs is not None else f"stsb-{self.split} (not loaded yet)"
        return f"STSEvaluator({what}, cosine Spearman x100)"


def stsb_dev_evaluator(data_dir: str | os.PathLike | None = None, batch_size: int = 64,
                       max_pairs: int | None = None) -> STSEvaluator:
    """The default dev evaluator: cosine Spearman × 100 on STS benchmark dev (loaded lazily)."""
    return STSEvaluator(split="dev", data_dir=data_dir, batch_size=batch_size, max_pairs=max_pairs)
