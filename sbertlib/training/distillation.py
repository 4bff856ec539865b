"""Distilling a fully trained sentence encoder (the teacher) into a small one (the student).

Not in the SBERT paper. Training a small, fast student to reproduce a large teacher goes back to model compression
(Buciluǎ et al., 2006; Ba & Caruana, 2014); Hinton, Vinyals & Dean (2015) named it knowledge distillation and matched
softened outputs. For sentence embeddings the
student is trained to give each sentence the teacher's vector, with a mean-squared-error loss
(:class:`sbertlib.losses.DistillationLoss`) — sentence-transformers' model-distillation example, and the
recipe of Reimers & Gurevych (2020), who use it to distil into *other languages*. The offline teacher,
all-MiniLM-L6-v2, is MiniLM (Wang et al., 2020) fine-tuned by sentence-transformers on about 1.17 billion
sentence pairs.
Offline, the teacher is the packaged all-MiniLM-L6-v2 and the student a small BERT with random weights;
two things let it start from more than nothing:

* :func:`pca_word_embeddings` — the teacher's word-piece embedding matrix reduced to the student's width
  by PCA (the two share bert-base-uncased's vocabulary), copied into the student by
  :func:`make_student`;
* a projection from the student's width to the teacher's (``SentenceEncoder(projection=)``), started as
  the inverse of that PCA, so that the student's first vectors already live in the teacher's space.

:func:`teacher_examples` encodes each distinct training sentence once and pairs it with its vector.
"""
from __future__ import annotations

import copy

from typing import Iterable, Sequence

import numpy as np
import torch

from ..model.encoder import SentenceEncoder
from ..errors import SettingError


def word_embeddings(encoder: SentenceEncoder) -> torch.nn.Embedding:
    """The backbone's word-piece embedding table."""
    return encoder.backbone.get_input_embeddings()


def pca_word_embeddings(teacher: SentenceEncoder, width: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(reduced, components, mean)``: the teacher's word-piece embeddings ``(vocab, H)`` centred and
    projected on their ``width`` principal directions — ``reduced = (E − mean) @ components.T`` of shape
    ``(vocab, width)``, ``components`` ``(width, H)`` with orthonormal rows, each direction's sign fixed
    (:func:`sign_fixed`), ``mean`` ``(H,)``."""
    table = word_embeddings(teacher).weight.detach().float().cpu()
    if not 0 < width <= table.shape[1]:
        raise SettingError(f"width must be in 1..{table.shape[1]} (the teacher's word-piece width), got {width}")
    mean = table.mean(dim=0)
    _, _, v = torch.linalg.svd(table - mean, full_matrices=False)
    components = v[:width]
    return (*sign_fixed((table - mean) @ components.T, components), mean)


def sign_fixed(reduced: torch.Tensor, components: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(reduced, components)`` with each principal direction's sign fixed: its largest entry (in absolute value)
    made positive, scikit-learn's ``svd_flip`` rule on the directions. A direction has no sign of its own (an SVD in
    another precision, numpy's, or an eigendecomposition may give either), but the random network above a student's
    word pieces answers differently to each: one rule makes every right PCA the same start."""
    picked = components.gather(1, components.abs().argmax(dim=1, keepdim=True)).squeeze(1)
    signs = torch.where(picked < 0, -1.0, 1.0).to(components.dtype)
    return reduced * signs, components * signs[:, None]


def make_student(backbone: str | SentenceEncoder, teacher: SentenceEncoder, init: str = "pca",
                 project: bool = True, device: str | torch.device | None = None, seed: int = 0) -> SentenceEncoder:
    """A student encoder for ``teacher``: ``backbone`` (a name such as ``"random-bert-2x128"`` or an
    encoder, which is copied: the encoder given is left as it was and shares nothing with the student), mean pooling, the teacher's normalisation and, when ``project`` and the
    widths differ, a linear projection to the teacher's width.

    ``init="pca"`` copies :func:`pca_word_embeddings` into the student's word pieces and starts the
    projection as the PCA's inverse (``components.T``, bias ``mean``); ``init="random"`` keeps the
    backbone's own weights and a random projection, drawn from ``seed`` (torch's global random state is neither read
    nor moved: the random start is the same whatever ran before it). The two must share a vocabulary."""
    if init not in ("pca", "random"):
        raise SettingError(f"init must be 'pca' or 'random', not {init!r}")
    base = copy.deepcopy(backbone) if isinstance(backbone, SentenceEncoder) else \
        SentenceEncoder.from_pretrained(backbone, device="cpu")
    width, target = int(base.backbone.config.hidden_size), teacher.dim
    projection = None
    if project and width != target:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            projection = torch.nn.Linear(width, target)
    if init == "pca":
        student_table, teacher_table = word_embeddings(base).weight, word_embeddings(teacher).weight
        if student_table.shape[0] != teacher_table.shape[0] or base.tokenizer.get_vocab() != teacher.tokenizer.get_vocab():
            raise SettingError(f"the student's vocabulary ({student_table.shape[0]} word pieces) is not the teacher's "
                               f"({teacher_table.shape[0]}): word-piece initialisation needs the same tokenizer")
        reduced, components, mean = pca_word_embeddings(teacher, width)
        with torch.no_grad():
            student_table.copy_(reduced.to(student_table.dtype))
            if projection is not None:
                projection.weight.copy_(components.T)
                projection.bias.copy_(mean)
    info = {**{k: v for k, v in base.info.items() if k not in ("backbone", "stand_in")},
            "distilled_from": teacher.name, "init": init}
    return SentenceEncoder(base.backbone, base.tokenizer, pooling="mean", normalize=teacher.normalize,
                           max_seq_length=base.max_seq_length, name=base.name, stand_in=base.info.get("stand_in", False),
                           device=device, info=info, projection=projection)


def distinct(sentences: Iterable[str]) -> list[str]:
    """The sentences in first-seen order, each once (empty ones left out)."""
    return list(dict.fromkeys(s for s in sentences if s and s.strip()))


def teacher_examples(teacher: SentenceEncoder, sentences: Sequence[str], batch_size: int = 128,
                     precision: str | None = None, show_progress_bar: bool = False) -> list[tuple[str, np.ndarray]]:
    """``(sentence, teacher vector)`` for each distinct sentence: what :class:`DistillationLoss` trains on."""
    texts = distinct(sentences)
    vectors = teacher.encode(texts, batch_size=batch_size, precision=precision, show_progress_bar=show_progress_bar)
    return list(zip(texts, np.asarray(vectors, dtype=np.float32)))
