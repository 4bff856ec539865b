"""Timing the units a training run is made of — one training step, one encode batch — on sentences of
realistic lengths, synthesised where no data set is at hand (a GPU machine without the course data).

Both timings go through :func:`sbertlib.evaluation.speed.measure` (warm-up, repeats, median, GPU
synchronised). A training step is exactly one of ``fit``'s: collate (tokenize), forward, backward,
clip, AdamW, schedule (:func:`sbertlib.training.train_step`).

Synthetic sentences are made of :data:`sbertlib.model.architectures.WORDS` (one token each in
bert-base-uncased and in :func:`~sbertlib.model.architectures.word_tokenizer`) and end in ``.``; their
token counts follow :data:`LENGTH_QUANTILES`, measured on the real sentences.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
import torch

from ..data import NLI_LABELS, NLIPair, STSPair
from ..model.architectures import WORDS
from .speed import Timing, measure
from ..errors import SettingError

# Tokens per sentence under bert-base-uncased, [CLS]/[SEP] not counted, at the percentiles of
# PERCENTILES; measured 2026-11-25 on the offline data. NLI: the premises and hypotheses of SNLI dev+test
# and SICK train, one per pair (as training batches draw them); AllNLI's MultiNLI half has longer
# premises, so these are on the short side for AllNLI. stsb: STSb test's distinct sentences.
PERCENTILES = (*range(0, 100, 5), 97.5, 99, 100)
LENGTH_QUANTILES: dict[str, tuple[int, ...]] = {
    "nli-premise": (2, 7, 8, 8, 9, 10, 10, 11, 12, 12, 13, 14, 15, 16, 17, 19, 20, 22, 24, 27, 31, 37, 61),
    "nli-hypothesis": (2, 4, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 10, 11, 11, 12, 14, 16, 18, 20, 55),
    "stsb": (3, 6, 6, 7, 7, 7, 8, 8, 9, 9, 10, 10, 11, 12, 13, 14, 17, 20, 23, 29, 33, 36, 44),
}
MEAN_TOKENS = {"nli-premise": 14.78, "nli-hypothesis": 8.85, "stsb": 12.38}  # the same sentences' means


def synthetic_lengths(kind: str, n: int, seed: int = 0) -> np.ndarray:
    """``n`` token counts drawn from :data:`LENGTH_QUANTILES` ``[kind]`` (inverse-CDF, linear between
    the percentiles)."""
    if kind not in LENGTH_QUANTILES:
        raise SettingError(f"unknown length distribution {kind!r}; choose one of {', '.join(LENGTH_QUANTILES)}")
    u = np.random.default_rng(seed).uniform(0, 100, n)
    return np.rint(np.interp(u, PERCENTILES, LENGTH_QUANTILES[kind])).astype(int)


def synthetic_sentences(kind: str, n: int, seed: int = 0) -> list[str]:
    """``n`` sentences of random common words with token counts drawn like :func:`synthetic_lengths`."""
    rng = np.random.default_rng(seed + 1)
    return [" ".join(rng.choice(WORDS, max(1, k - 1))) + "." for k in synthetic_lengths(kind, n, seed)]


def synthetic_nli_pairs(n: int, seed: int = 0) -> list[NLIPair]:
    """``n`` premise/hypothesis pairs with NLI-like lengths, the labels in turn."""
    premises = synthetic_sentences("nli-premise", n, seed)
    hypotheses = synthetic_sentences("nli-hypothesis", n, seed + 100)
    return [NLIPair(p, h, NLI_LABELS[i % len(NLI_LABELS)]) for i, (p, h) in enumerate(zip(premises, hypotheses))]


def synthetic_sts_pairs(n: int, seed: int = 0) -> list[STSPair]:
    """``n`` STSb-like pairs with random gold scores (for timings: any correlation with them is noise)."""
    a, b = synthetic_sentences("stsb", n, seed), synthetic_sentences("stsb", n, seed + 100)
    scores = np.random.default_rng(seed).uniform(0, 5, n)
    return [STSPair(x, y, float(s)) for x, y, s in zip(a, b, scores)]


def train_step_timing(loss, train_data: Sequence, args=None, repeats: int = 3, warmup: int = 1,
                      **overrides) -> Timing:
    """One of ``fit``'s steps with ``loss`` on consecutive batches of ``train_data`` (a new batch every
    step), timed ``repeats`` times after ``warmup`` steps: ``median_s`` is seconds per step, ``sent_per_s``
    examples per second. The weights change (it trains): use a throw-away model.

    How it steps is ``args`` (a :class:`~sbertlib.training.TrainingArguments`, default its defaults) with
    ``overrides`` (``batch_size=8``, ``mixed_precision="bf16"``, ...): its batch size, learning rate, weight
    decay, gradient clipping and mixed precision, as ``fit`` reads them; no warm-up (every timed step
    updates at the full learning rate)."""
    from ..training import TrainingArguments, linear_warmup, make_optimizer, prepare_examples
    from ..training.examples import collate
    from ..training.loop import autocast_dtype, train_step
    args = (args or TrainingArguments()).replace(**overrides)
    batch_size = args.batch_size
    model, examples = loss.model, prepare_examples(train_data, loss)
    if len(examples) < batch_size:
        raise SettingError(f"{len(examples)} examples do not fill one batch of {batch_size}")
    device = next(loss.parameters()).device
    amp = autocast_dtype(args.mixed_precision, device)
    optimizer = make_optimizer(loss, args.lr, args.weight_decay)
    scheduler = linear_warmup(optimizer, 0, warmup + repeats + 1)
    scaler = torch.amp.GradScaler("cuda") if amp == torch.float16 else None
    starts = itertools.cycle(range(0, len(examples) - batch_size + 1, batch_size))
    step = itertools.count(1)

    def run() -> None:
        first = next(starts)
        batch = collate(examples[first:first + batch_size], model)
        train_step(loss, batch, optimizer, scheduler, scaler, amp, args.max_grad_norm, next(step))
    return measure("training step", run, batch_size, repeats, warmup)


def encode_batch_timing(encoder, sentences: Sequence[str], batch_size: int = 64, repeats: int = 3,
                        warmup: int = 1) -> Timing:
    """``encoder.encode`` of one batch: the first ``batch_size`` of ``sentences`` (in a random order they
    pad as a random batch does, a little more than smart-batched evaluation's length-sorted batches)."""
    batch = list(sentences)[:batch_size]
    if len(batch) < batch_size:
        raise SettingError(f"{len(batch)} sentences do not fill one batch of {batch_size}")
    return measure("encode batch", lambda: encoder.encode(batch, batch_size, show_progress_bar=False),
                   batch_size, repeats, warmup)
