"""Training data as the loop sees it: records checked and turned into ``(texts, label)``
examples, tokenised into batches, and the seeded order of the batches in every epoch."""
from __future__ import annotations

import math
from typing import Iterator, NamedTuple, Sequence

import numpy as np
import torch

from ..data import NLI_LABELS, NLIPair, STSPair, Triplet
from ..losses import Batch, TrainingLoss
from ..model.cross_encoder import is_cross_encoder
from ..errors import SettingError

MEGA_BATCHES = 50  # length grouping sorts within groups of this many batches


class Example(NamedTuple):
    texts: tuple[str, ...]
    label: int | float | np.ndarray | None


def as_example(item, index: int, loss: TrainingLoss) -> Example:
    """Turn one training record into ``(texts, label)`` for ``loss``; ValueError names ``index``.

    Accepted: :class:`NLIPair` (class label), :class:`STSPair` (score, ``.label`` in 0–1),
    :class:`Triplet` (no label), an :class:`Example` (already prepared), or a tuple ``(text_a, text_b, label)`` — for label-free
    losses a tuple holds texts only, e.g. ``(anchor, positive, negative)``.
    """
    kind, name = loss.label_kind, type(loss).__name__
    if isinstance(item, Example):  # already prepared (e.g. by prepare_examples)
        texts, label = item.texts, item.label
    elif isinstance(item, NLIPair):
        texts, label = (item.premise, item.hypothesis), item.label
    elif isinstance(item, STSPair):
        texts, label = (item.sentence1, item.sentence2), item.label
    elif isinstance(item, Triplet):
        texts, label = (item.anchor, item.positive, item.negative), None
    elif isinstance(item, (tuple, list)):
        texts, label = (tuple(item), None) if kind is None else (tuple(item[:-1]), item[-1] if item else None)
    else:
        raise SettingError(f"item {index}: cannot train on a {type(item).__name__}; "
                           "use NLIPair, STSPair, Triplet or a (text_a, text_b, label) tuple")
    if not isinstance(loss.n_texts, tuple) or not all(isinstance(n, int) for n in loss.n_texts):
        raise TypeError(f"{name}.n_texts must be a tuple of the numbers of texts an example may hold (one entry per "
                        f"number), not {loss.n_texts!r}")
    if len(texts) not in loss.n_texts:
        want = " or ".join(map(str, loss.n_texts))
        raise SettingError(f"item {index}: {name} needs {want} texts, got {len(texts)} ({type(item).__name__})")
    for t in texts:
        if not isinstance(t, str):
            raise SettingError(f"item {index}: texts must be strings, got {type(t).__name__}: {t!r}")
    return Example(texts, _check_label(label, kind, index, loss))


def _check_label(label, kind: str | None, index: int, loss: TrainingLoss):
    name = type(loss).__name__
    if kind is None:
        if label is not None:
            raise SettingError(f"item {index}: {name} takes no labels; give (anchor, positive[, negative]) texts")
        return None
    if kind == "vector":
        return _check_vector(label, index, loss)
    if kind == "class":
        if isinstance(label, str):
            if label not in NLI_LABELS:
                raise SettingError(f"item {index}: unknown label {label!r}; expected one of {NLI_LABELS}")
            label = NLI_LABELS.index(label)
        if isinstance(label, bool) or not isinstance(label, (int, np.integer)) \
                or not 0 <= label < loss.num_labels:
            raise SettingError(f"item {index}: label {label!r} is not a class id in 0..{loss.num_labels - 1}")
        return int(label)
    try:
        value = float(label)
    except (TypeError, ValueError):
        raise SettingError(f"item {index}: {name} needs a numeric gold score, got {label!r}") from None
    lo, hi = loss.score_range  # a cosine's [-1, 1] unless the loss says otherwise (TrainingLoss)
    if not (math.isfinite(value) and lo <= value <= hi):
        raise SettingError(f"item {index}: gold score {value} is outside [{lo:g}, {hi:g}], the range "
                           f"{type(loss).__name__} takes; scale it to 0–1 first (STSPair.label does: score / 5 for STSb)")
    return value


def _check_vector(label, index: int, loss: TrainingLoss) -> np.ndarray:
    """A target vector (a distillation teacher's): one row of finite numbers, as long as the model's vectors."""
    name = type(loss).__name__
    try:
        vector = np.asarray(label.detach().cpu() if isinstance(label, torch.Tensor) else label, dtype=np.float32)
    except (TypeError, ValueError):
        raise SettingError(f"item {index}: {name} needs a target vector, got {type(label).__name__}") from None
    width = int(getattr(loss.model, "dim", vector.shape[-1] if vector.ndim else 0))
    if vector.ndim != 1 or len(vector) != width:
        raise SettingError(f"item {index}: {name} needs a target vector of {width} numbers (the model's vectors), "
                           f"got shape {tuple(vector.shape)}")
    if not np.all(np.isfinite(vector)):
        raise SettingError(f"item {index}: the target vector holds NaN or infinite numbers")
    return vector


def prepare_examples(train_data: Sequence, loss: TrainingLoss) -> list[Example]:
    """Validate every record up front (before any training) and convert it with :func:`as_example`."""
    examples = [as_example(item, i, loss) for i, item in enumerate(train_data)]
    if not examples:
        raise SettingError("train_data is empty: nothing to train on")
    width = len(examples[0].texts)
    for i, ex in enumerate(examples):
        if len(ex.texts) != width:
            raise SettingError(f"item {i} has {len(ex.texts)} texts but item 0 has {width}: mix of shapes")
    return examples


def collate(examples: Sequence[Example], model) -> Batch:
    """Tokenize each text column with ``model.tokenize``; labels become a tensor (long or float).
    A cross-encoder (:func:`~sbertlib.model.cross_encoder.is_cross_encoder`) gets each example's texts tokenised together,
    as one column."""
    if is_cross_encoder(model):
        features = [model.tokenize_pairs([ex.texts for ex in examples])]
    else:
        features = [model.tokenize(list(col)) for col in zip(*(ex.texts for ex in examples))]
    if examples[0].label is None:
        return Batch(features, None)
    if isinstance(examples[0].label, np.ndarray):  # target vectors (distillation)
        return Batch(features, torch.as_tensor(np.stack([ex.label for ex in examples]), device=model.device))
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
