"""Fine-tuning a SentenceEncoder: ``fit(model, loss, train_data) -> History``.

How it trains is one :class:`~sbertlib.training.TrainingArguments`; its defaults are the paper's
recipe (§3.1): batch size 16, Adam with learning rate 2e-5, a linear learning-rate warm-up over
the first 10% of the steps, one epoch. As sentence-transformers: AdamW with weight decay 0.01 on
all but biases and LayerNorm weights, a linear decay to 0 after the warm-up, gradient clipping at
norm 1 (the paper states none of these three).

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

import math
import os
import time
import warnings
from contextlib import nullcontext
from pathlib import Path
from typing import Callable, Sequence

import torch
from tqdm.auto import tqdm

from ..losses import Batch, TrainingLoss
from ..model import hardware
from ..model.cross_encoder import is_cross_encoder
from . import distributed
from .arguments import TrainingArguments
from .examples import batch_stream, collate, prepare_examples
from .history import History
from .state import (CHECKPOINT_DIR, checkpoint_path, fingerprint, load_checkpoint, rng_state, save_checkpoint,
                    seed_everything)
from ..errors import PathExists, SettingError
from ..util import release_memory

BEST_DIR, FINAL_DIR = "best", "final"
NO_DECAY = ("bias", "LayerNorm.weight", "LayerNorm.bias")  # as sentence-transformers' fit()


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


# ----------------------------------------------------------------------------- saving models
def save_model(loss: TrainingLoss, path: Path, save_head: bool, history: History) -> Path:
    """Save the encoder in sentence-transformers' format as well (``SentenceTransformer(path)`` loads it),
    and, if asked, the loss's classifier head inside the same folder."""
    extra = {"training": {"loss": history.loss, "profile": history.profile, "steps": len(history.records)}}
    bi_encoder = not is_cross_encoder(loss.model)  # a cross-encoder's own save writes its format already
    loss.model.save(path, extra=extra, **({"format": "sentence-transformers"} if bi_encoder else {}))
    if save_head and hasattr(loss, "save_head"):
        loss.save_head(path)
    return path


# ----------------------------------------------------------------------------- one step
def autocast_dtype(mixed_precision: str | None, device: torch.device) -> torch.dtype | None:
    """The autocast dtype ``fit`` trains under for ``mixed_precision`` (a :class:`TrainingArguments`
    field) on ``device``: bf16 on a GPU or a CPU, fp16 on a GPU only; the weights stay float32."""
    if mixed_precision is None or device.type == "cuda":
        return {None: None, "bf16": torch.bfloat16, "fp16": torch.float16}[mixed_precision]
    if mixed_precision == "fp16":
        raise SettingError(f"mixed_precision='fp16' needs a CUDA GPU (this model is on {device.type}); "
                           "on a CPU use mixed_precision='bf16'")
    if device.type != "cpu":
        warnings.warn(f"mixed_precision='bf16' is not supported on {device.type}; training in float32", stacklevel=3)
        return None
    if not hardware.bf16_is_fast(device):
        warnings.warn(f"bf16 autocast is emulated on this CPU ({hardware.describe_hardware()}): "
                      "slower than float32 here", stacklevel=3)
    return torch.bfloat16


def train_step(loss: TrainingLoss, batch: Batch, optimizer, scheduler, scaler, amp_dtype,
               max_grad_norm: float | None, step: int, forward: torch.nn.Module | None = None,
               share: float = 1.0, world: int = 1) -> float:
    """Forward, backward, clip, update; returns the loss value. Raises on a NaN/inf loss.

    Under several processes ``forward`` is the DistributedDataParallel wrapper of ``loss``, the
    batch is this rank's ``share`` of the global batch, and the value returned is the global one.
    """
    loss.train()
    device_type = next(loss.parameters()).device.type
    autocast = torch.autocast(device_type, dtype=amp_dtype) if amp_dtype is not None else nullcontext()
    with autocast:
        value = (forward or loss)(batch)
    number = distributed.global_loss(value, share, world)
    if not math.isfinite(number):
        raise FloatingPointError(f"training loss is {number} at step {step}; the weights are those "
                                 f"after step {step - 1} (lower the learning rate or check the data)")
    optimizer.zero_grad(set_to_none=True)
    if world > 1:  # DDP averages over ranks: weight each shard by its share of the global batch
        value = value * (share * world)
    if scaler is not None:
        scaler.scale(value).backward()
        scaler.unscale_(optimizer)
    else:
        value.backward()
    if max_grad_norm:
        torch.nn.utils.clip_grad_norm_(loss.parameters(), max_grad_norm)
    if scaler is None:
        optimizer.step()
        scheduler.step()
        return number
    scale = scaler.get_scale()
    scaler.step(optimizer)  # skipped when the scaled gradients hold inf/NaN ...
    scaler.update()  # ... and then the scale is lowered
    if scaler.get_scale() >= scale:  # the step was taken: advance the schedule (as HF Trainer)
        scheduler.step()
    return number


# ----------------------------------------------------------------------------- fit
def fit(model, loss: TrainingLoss, train_data: Sequence, args: TrainingArguments | None = None, *,
        evaluator: Callable[[object], float] | None = None, output_dir: str | os.PathLike | None = None,
        resume: bool = False, profile: str | None = None, show_progress_bar: bool = True,
        callback: Callable[[int, History], None] | None = None, **overrides) -> History:
    """Train ``model`` (a SentenceEncoder) with ``loss`` on ``train_data``; returns a :class:`History`.

    How it trains is ``args`` (a :class:`TrainingArguments`, the paper's recipe by default); keyword
    ``overrides`` change its fields (``fit(model, loss, data, epochs=4, lr=1e-3)``). What it trains
    on, where it writes and who watches are the other arguments:

    * ``train_data``: NLIPair / STSPair / Triplet records or ``(text_a, text_b, label)`` tuples
      (see :func:`as_example`). Every item is checked first: an unknown label raises ValueError
      naming the item; an empty list raises ValueError. A ``batch_size`` larger than the data
      raises ValueError. Steps: :meth:`TrainingArguments.total_steps`; the warm-up and the decay
      are planned for that length.
    * ``seed`` seeds python/numpy/torch at the start (dropout) and fixes the data order (a
      ``torch.Generator`` per epoch); ``length_grouping`` batches items of similar length in
      characters (less padding, faster; the batch order stays random).
    * ``evaluator(model) -> float`` (higher is better, e.g. :func:`stsb_dev_evaluator`) runs every
      ``evaluation_steps`` steps and at the end; with ``output_dir`` the best model is saved to
      ``output_dir/best`` and the final one to ``output_dir/final`` (``save_head`` adds the loss's
      classifier, ``classifier.pt``).
    * ``checkpoint_steps``: every so many steps (and at the end) write ``output_dir/checkpoint/state.pt``
      atomically: weights, loss head, optimizer, scheduler, all RNG states, data position, history,
      and a fingerprint of the run (the data, every training argument, the number of processes,
      the loss and the architecture). ``resume=True`` continues from it (a warning and a fresh start
      if there is none) and ends bit-identical to an uninterrupted run; a checkpoint of another run
      is refused naming each difference. Without ``resume``, an ``output_dir`` that already holds a
      checkpoint or a final model is refused: pass ``resume=True`` or another folder.
    * ``mixed_precision``: ``"bf16"`` autocast on a CUDA GPU or a CPU (on a CPU without AMX or
      AVX512-BF16 it warns: emulated bf16 is slower), ``"fp16"`` (with a GradScaler) on CUDA only.
    * Several processes: under ``torchrun`` every rank trains on its shard of each global batch of
      ``batch_size`` with gradients all-reduced (DistributedDataParallel); only rank 0 evaluates,
      shows progress and writes checkpoints and models. See :mod:`sbertlib.training.distributed`.
    * KeyboardInterrupt: returns the History so far with ``interrupted=True`` (the last checkpoint
      stays valid). A NaN/inf loss raises FloatingPointError naming the step.
    * ``callback(step, history)`` runs after every step (after evaluation and checkpointing).
    """
    args = (args or TrainingArguments()).replace(**overrides)
    if getattr(loss, "model", None) is not model:
        raise SettingError("the loss was built for a different model: pass the same encoder to the loss and to fit()")
    examples = prepare_examples(train_data, loss)
    _check_setting(len(examples), args, output_dir, resume)
    total = args.total_steps(len(examples))
    device = next(model.parameters()).device
    amp_dtype = autocast_dtype(args.mixed_precision, device)
    rank, world = distributed.setup(device)
    if world > 1:
        _check_world(len(examples), args.batch_size, world)
        if getattr(loss, "in_batch_negatives", False) and rank == 0:
            warnings.warn(f"{type(loss).__name__} on {world} processes: each scores its anchors against its own "
                          f"shard only ({args.batch_size // world - 1} in-batch negatives each instead of "
                          f"{args.batch_size - 1}), so the loss differs from one process's; raise batch_size "
                          f"{world}-fold to keep the negatives per anchor", stacklevel=2)
    optimizer = make_optimizer(loss, args.lr, args.weight_decay)
    scheduler = linear_warmup(optimizer, math.ceil(args.warmup_ratio * total), total)
    scaler = torch.amp.GradScaler("cuda") if amp_dtype == torch.float16 else None
    settings = {**args.to_dict(), "total_steps": total, "world_size": world}
    history = History(profile=profile, backbone=str(getattr(model, "info", {}).get("backbone", "")),
                      loss=type(loss).__name__, total_steps=total, settings=settings)
    ckpt = checkpoint_path(output_dir) if output_dir is not None else None
    run_print = fingerprint(examples, loss, **settings) if (args.checkpoint_steps or resume) else {}
    if resume and ckpt.is_file():
        step, history = load_checkpoint(ckpt, loss, optimizer, scheduler, scaler, run_print, rank)
        history.interrupted = False
    else:
        if resume:
            warnings.warn(f"resume=True but there is no checkpoint at {ckpt}: starting from scratch", stacklevel=2)
        step = 0
        seed_everything(args.seed + rank)  # other dropout masks on every rank; the data order depends on seed only
    forward = loss if world == 1 else torch.nn.parallel.DistributedDataParallel(
        loss, device_ids=[device.index] if device.type == "cuda" else None, find_unused_parameters=True)
    main = rank == 0
    lengths = [sum(len(t) for t in ex.texts) for ex in examples] if args.length_grouping else None
    stream = batch_stream(len(examples), args.batch_size, args.seed, step, total, args.shuffle, lengths)
    was_training, started = model.training, time.perf_counter() - history.seconds
    bar = tqdm(total=total, initial=step, desc="fit", unit="step", disable=not (show_progress_bar and main))
    try:
        for epoch, ids in stream:
            mine = distributed.shard(ids, rank, world)
            batch = collate([examples[i] for i in mine], model)
            lr_now = scheduler.get_last_lr()[0]
            value = train_step(loss, batch, optimizer, scheduler, scaler, amp_dtype, args.max_grad_norm, step + 1,
                               forward, len(mine) / len(ids), world)
            step += 1
            history.records.append({"step": step, "epoch": epoch, "loss": value, "lr": lr_now})
            history.seconds = time.perf_counter() - started
            if main and evaluator is not None and _due(step, total, args.evaluation_steps):
                _evaluate(model, loss, evaluator, history, output_dir, args.save_head)
            if ckpt is not None and args.checkpoint_steps and _due(step, total, args.checkpoint_steps):
                rngs = distributed.gather_to_main(rng_state(), world)  # every rank's, into the one file
                if main:
                    save_checkpoint(ckpt, step, loss, optimizer, scheduler, scaler, history, run_print, rngs)
                distributed.barrier(world)
            bar.update(1)
            bar.set_postfix(loss=f"{value:.4f}", refresh=False)
            if callback is not None:
                callback(step, history)
        if output_dir is not None and main:
            save_model(loss, Path(output_dir) / FINAL_DIR, args.save_head, history)
        distributed.barrier(world)
    except KeyboardInterrupt:
        history.interrupted = True
        where = f"; fit(..., resume=True) continues from {ckpt}" if ckpt is not None and ckpt.is_file() else ""
        warnings.warn(f"training interrupted after step {step} of {total}{where}", stacklevel=2)
    finally:
        bar.close()
        model.train(was_training)
        optimizer = scheduler = scaler = None   # noqa: F841 - their state (twice the weights) is freed, then given back
        release_memory()
    return history


def _due(step: int, total: int, every: int) -> bool:
    """True at the last step and, when ``every`` > 0, at every ``every``-th step."""
    return step == total or bool(every and step % every == 0)


def _check_world(n: int, batch_size: int, world: int) -> None:
    """Every global batch, the last one included, must give each of the ``world`` ranks an example."""
    last = n % batch_size or batch_size
    if min(batch_size, last) < world:
        raise SettingError(f"{world} processes need at least {world} examples in every batch: batch_size="
                           f"{batch_size} leaves a last batch of {last} from {n} examples (drop {last} examples, "
                           f"or choose a batch size that divides {n})")


def _check_setting(n: int, args: TrainingArguments, output_dir, resume: bool) -> None:
    """What the arguments alone cannot know: the data's size and what ``output_dir`` already holds."""
    if args.batch_size > n:
        raise SettingError(f"batch_size={args.batch_size} is larger than the {n} training examples; "
                           f"use batch_size <= {n} or more data")
    if (args.checkpoint_steps or resume) and output_dir is None:
        raise SettingError("checkpoint_steps and resume need output_dir (where the checkpoint lives)")
    if output_dir is not None:  # before step one: a folder that cannot be written fails now, not after a step
        from ..places import writable_dir
        writable_dir(output_dir, "fit(output_dir=...)")
    if output_dir is not None and not resume:
        left = [d for d in (CHECKPOINT_DIR, FINAL_DIR, BEST_DIR) if (Path(output_dir) / d).exists()]
        if left:
            raise PathExists(f"{output_dir} already holds {', '.join(left)} from an earlier run: pass "
                             "resume=True to continue it, or choose another output_dir (or delete it)")


def _evaluate(model, loss: TrainingLoss, evaluator, history: History, output_dir, save_head: bool) -> None:
    score = float(evaluator(model))
    history.records[-1]["dev_score"] = score
    if math.isfinite(score) and (history.best_score is None or score > history.best_score):
        history.best_score, history.best_step = score, history.records[-1]["step"]
        if output_dir is not None:
            history.best_path = str(save_model(loss, Path(output_dir) / BEST_DIR, save_head, history))
