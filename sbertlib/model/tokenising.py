"""One way from text to a model's input: token ids cut to ``max_seq_length``, batches padded on the right.

Every path goes through here — training (:meth:`SentenceEncoder.tokenize`,
:meth:`CrossEncoder.tokenize_pairs`, which :func:`sbertlib.training.collate` calls), inference
(:meth:`SentenceEncoder.encode`, :meth:`CrossEncoder.predict`) and the speed lab — so what a model is
trained on is what it later runs on:

1. :func:`text_ids` / :func:`pair_ids`: each text, or each pair read as ``[CLS] a [SEP] b [SEP]``
   (segment ids 0 then 1), as a row of token ids, cut to ``max_length`` tokens (a pair's longer text
   loses tokens first). No padding yet: a row's length is its real token count, which is what
   smart batching sorts by.
2. :func:`length_batches`: positions of the rows in each batch — in input order, or sorted by length
   (smart batching, §7), or sized by a token budget.
3. :func:`pad`: one batch's rows padded to the batch's longest, with the attention mask.

Padding always goes on the **right**, whatever the tokenizer's ``padding_side``: BERT's position ids
and CLS pooling assume a text starts at position 0, and so a text's vector does not depend on the
batch it travels in. (Left padding moved every shorter text of a batch to other positions: its vector
changed by up to 1.8 with the batch, and ``forward(tokenize(s))`` differed from ``encode(s)``.)
"""
from __future__ import annotations

import contextlib
import logging
import warnings
from typing import Iterator, Sequence

import numpy as np
import torch

from .text import replace_lone_surrogates
from ..errors import SettingError

Row = dict[str, list[int]]  # "input_ids" and, where the tokenizer makes them, "token_type_ids"


def check_texts(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list; TypeError naming the first item that is not a string."""
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a list of strings, not one string")
    texts = list(texts)
    for i, s in enumerate(texts):
        if not isinstance(s, str):
            raise TypeError(f"texts must be strings; item {i} is {type(s).__name__}: {s!r}")
    return texts


def check_pairs(pairs) -> list[tuple[str, str]]:
    """``pairs`` as a list of ``(text_a, text_b)`` string tuples; TypeError/ValueError naming the item."""
    if isinstance(pairs, (str, bytes)):
        raise TypeError("pairs must be a list of (text_a, text_b) pairs, not one string")
    out = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence):
            raise TypeError(f"item {i} is {type(pair).__name__} {pair!r}: each item must be a (text_a, text_b) pair")
        if len(pair) != 2:
            raise SettingError(f"item {i} holds {len(pair)} texts: a cross-encoder scores exactly two")
        for t in pair:
            if not isinstance(t, str):
                raise TypeError(f"item {i}: texts must be strings, got {type(t).__name__}: {t!r}")
        out.append((pair[0], pair[1]))
    if not out:
        return out
    first, second = (replace_lone_surrogates([p[k] for p in out]) for k in (0, 1))  # U+FFFD, with a warning
    return list(zip(first, second))


@contextlib.contextmanager
def _quiet_logger(name: str):
    """Raise one logger's level to ERROR for the duration, then put it back."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _ids(tokenizer, first: list[str], second: list[str] | None, max_length: int, warn: bool) -> list[Row]:
    """The rows of ``first`` (paired with ``second`` where given), cut to ``max_length`` tokens."""
    def run(idx: Sequence[int] | None, **cut) -> list[Row]:
        a = first if idx is None else [first[i] for i in idx]
        b = None if second is None else (second if idx is None else [second[i] for i in idx])
        enc = tokenizer(a, b, add_special_tokens=True, return_attention_mask=False, **cut)
        keys = [k for k in ("input_ids", "token_type_ids") if k in enc]
        return [{k: list(enc[k][j]) for k in keys} for j in range(len(a))]

    with _quiet_logger("transformers.tokenization_utils_base"):  # "sequence longer than ..." is ours to say
        rows = run(None, truncation=False)
    too_long = [i for i, r in enumerate(rows) if len(r["input_ids"]) > max_length]
    if too_long:
        for i, row in zip(too_long, run(too_long, truncation="longest_first", max_length=max_length)):
            rows[i] = row
        if warn:
            what = "texts" if second is None else "pairs"
            warnings.warn(f"{len(too_long)} of {len(rows)} {what} are longer than max_seq_length={max_length} "
                          f"tokens and were truncated (first: item {too_long[0]})", stacklevel=warn_level())
    return rows


def warn_level() -> int:
    """The stack level of the first frame outside sbertlib's model package: the user's call."""
    import sys
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("sbertlib.model"):
        frame, level = frame.f_back, level + 1
    return level


def text_ids(tokenizer, texts: Sequence[str], max_length: int, warn: bool = False) -> list[Row]:
    """Each text's token ids (``[CLS] text [SEP]`` for BERT), cut to ``max_length``; ``warn``: one
    warning saying how many were cut."""
    texts = check_texts(texts)
    return _ids(tokenizer, texts, None, int(max_length), warn) if texts else []


def pair_ids(tokenizer, pairs, max_length: int, warn: bool = False) -> list[Row]:
    """Each pair's token ids, read jointly (``[CLS] a [SEP] b [SEP]``, segment ids 0 then 1), cut to
    ``max_length`` with the longer text losing tokens first."""
    pairs = check_pairs(pairs)
    if not pairs:
        return []
    return _ids(tokenizer, [a for a, _ in pairs], [b for _, b in pairs], int(max_length), warn)


def pad(tokenizer, rows: Sequence[Row], device: torch.device | str | None = None) -> dict[str, torch.Tensor]:
    """One batch: ``rows`` padded on the right to the longest, plus ``attention_mask`` (1 on real tokens)."""
    if not rows:
        raise SettingError("pad needs at least one row")
    width = max(len(r["input_ids"]) for r in rows)
    fill = {"input_ids": tokenizer.pad_token_id or 0, "token_type_ids": getattr(tokenizer, "pad_token_type_id", 0)}
    feats = {}
    for key in rows[0]:
        values = np.full((len(rows), width), fill.get(key, 0), dtype=np.int64)
        for i, r in enumerate(rows):
            values[i, :len(r[key])] = r[key]
        feats[key] = values
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for i, r in enumerate(rows):
        mask[i, :len(r["input_ids"])] = 1
    feats["attention_mask"] = mask
    return {k: torch.from_numpy(v).to(device, non_blocking=True) if device is not None else torch.from_numpy(v)
            for k, v in feats.items()}


def _group(order: np.ndarray, lengths: Sequence[int], batch_size: int, max_tokens: int | None):
    """Cut ``order`` into batches: ``batch_size`` rows each, or by a token budget (sorted input)."""
    if not max_tokens:
        for start in range(0, len(order), batch_size):
            yield order[start:start + batch_size]
        return
    batch: list[int] = []
    for i in order:
        width = max([lengths[j] for j in batch[:1]] + [lengths[i]])  # sorted: first is longest
        if batch and (len(batch) + 1) * width > max_tokens:
            yield np.asarray(batch)
            batch = []
        batch.append(int(i))
    if batch:
        yield np.asarray(batch)


def length_batches(lengths: Sequence[int], batch_size: int, smart_batching: bool = True,
                   max_tokens: int | None = None) -> Iterator[np.ndarray]:
    """Positions of each batch: in input order, or longest first (``smart_batching``: each batch pads
    only to its own longest member).

    ``max_tokens`` (beyond the paper) sizes batches by tokens instead: a batch grows while
    ``rows × longest row`` stays within the budget, so short texts travel in big batches. It works on
    length-sorted input, so it needs ``smart_batching=True`` (ValueError otherwise).
    """
    if batch_size < 1:
        raise SettingError(f"batch_size must be >= 1, got {batch_size}")
    if max_tokens and not smart_batching:
        raise SettingError(f"max_tokens={max_tokens} batches sentences sorted by length, which is smart "
                           "batching: pass smart_batching=True, or max_tokens=None for fixed-size batches")
    lengths = list(lengths)
    order = np.argsort([-n for n in lengths], kind="stable") if smart_batching else np.arange(len(lengths))
    yield from _group(order, lengths, batch_size, max_tokens)


def padded_batches(tokenizer, rows: Sequence[Row], batch_size: int, device=None, smart_batching: bool = True,
                   max_tokens: int | None = None) -> Iterator[tuple[np.ndarray, dict[str, torch.Tensor]]]:
    """``(positions, features)`` of each batch of ``rows`` (see :func:`length_batches`), padded by :func:`pad`."""
    for pos in length_batches([len(r["input_ids"]) for r in rows], batch_size, smart_batching, max_tokens):
        yield pos, pad(tokenizer, [rows[i] for i in pos], device)
