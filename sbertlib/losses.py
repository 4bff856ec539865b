"""Training objectives of SBERT (paper, Section 3), one ``nn.Module`` each.

Every loss holds the :class:`~sbertlib.model.encoder.SentenceEncoder` as ``self.model`` and is called
as ``loss(batch)`` with a :class:`Batch` as built by :func:`sbertlib.training.collate`:

* ``batch.features`` — one tokenized column per text position (e.g. premise, hypothesis),
  each a dict of ``(batch, seq)`` tensors that ``model(features)`` turns into ``(batch, dim)``;
* ``batch.labels`` — ``(batch,)`` class ids (long) or gold scores (float), ``(batch, dim)`` target
  vectors (float: distillation), or ``None``.

The maths lives in ``loss_from_embeddings(embeddings, labels)`` so it can be checked by hand on
small tensors without any transformer. Each class also says what data it wants:
``n_texts`` (how many text columns) and ``label_kind`` (``"class"``, ``"score"``, ``"vector"`` or ``None``).

:class:`TrainingLoss` is what ``fit`` needs of any loss; the siamese losses above are
:class:`SBERTLoss` subclasses. The cross-encoder's :class:`CrossEncoderLoss` (end of this module) is a
``TrainingLoss`` but not an ``SBERTLoss``: it reads each pair jointly and scores logits, not embeddings.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .model.similarity import MEASURES
from .util import atomic_write
from .errors import SettingError

CONCAT_PARTS = ("u", "v", "|u-v|", "u*v")
DEFAULT_CONCAT: tuple[str, ...] = ("u", "v", "|u-v|")  # the paper's (u, v, |u−v|)
TRIPLET_DISTANCES = ("euclidean", "manhattan", "cosine")
HEAD_FILE = "classifier.pt"


@dataclass
class Batch:
    """One training batch: tokenized text columns plus labels (``None`` for label-free losses)."""

    features: list[dict[str, torch.Tensor]]
    labels: torch.Tensor | None = None

    def __len__(self) -> int:
        return int(self.features[0]["attention_mask"].shape[0]) if self.features else 0


class TrainingLoss(nn.Module):
    """What :func:`sbertlib.training.fit` needs of any loss, siamese or cross-encoder:

    * ``self.model`` — the model it trains (``fit(model, loss, ...)`` checks it is the same one);
    * ``loss(batch)`` — a scalar for a :class:`Batch` built by :func:`sbertlib.training.collate`;
    * what data it takes: ``n_texts`` (how many texts an example holds), ``label_kind`` (``"class"``,
      ``"score"`` or ``None``) and, for scores, ``score_range`` (checked for every item before the
      first step; a cosine's ``[-1, 1]`` unless a loss says otherwise);
    * :meth:`settings` (what a resumed run must share with its checkpoint) and its own weights
      (:meth:`head_state` / :meth:`load_head_state`; a loss with a classifier also has ``save_head``).
    """

    n_texts: tuple[int, ...] = (2,)
    label_kind: str | None = None
    score_range: tuple[float, float] = (-1.0, 1.0)

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def settings(self) -> dict:
        """The loss's hyper-parameters (what a resumed run must share with the checkpoint)."""
        return {}

    def has_head(self) -> bool:
        """True when the loss owns trainable weights of its own (a classifier head)."""
        return any(not name.startswith("model.") for name, _ in self.named_parameters())

    def head_state(self) -> dict[str, torch.Tensor]:
        """The loss's own weights (everything that is not the model)."""
        return {k: v for k, v in self.state_dict().items() if not k.startswith("model.")}

    def load_head_state(self, state: dict[str, torch.Tensor]) -> None:
        self.load_state_dict({**{f"model.{k}": v for k, v in self.model.state_dict().items()}, **state})


class SBERTLoss(TrainingLoss):
    """A siamese loss: embed every text column with the shared encoder, then score the embeddings
    (``loss_from_embeddings``, which each loss defines)."""

    def forward(self, batch: Batch) -> torch.Tensor:
        embeddings = [self.model(features) for features in batch.features]
        return self.loss_from_embeddings(embeddings, batch.labels)

    def loss_from_embeddings(self, embeddings: list[torch.Tensor], labels: torch.Tensor | None) -> torch.Tensor:
        raise NotImplementedError(f"{type(self).__name__} defines no loss_from_embeddings(embeddings, labels)")


class SoftmaxLoss(SBERTLoss):
    """Classification objective, used for NLI (paper, Section 3: its equations are not numbered).

    ``o = softmax(W_t · (u, v, |u-v|))`` and cross-entropy against the gold class.

    Shapes, for a batch of ``B`` pairs, embedding size ``n`` and ``k`` classes:

    * ``u, v``: ``(B, n)`` — embeddings of sentence A and sentence B;
    * features: the parts named in ``concat`` side by side, ``(B, len(concat)·n)``;
      parts are ``"u"``, ``"v"``, ``"|u-v|"`` (element-wise distance) and ``"u*v"``
      (element-wise product), see :func:`pair_features`; ``paper.TABLE6_CONCATS`` lists Table 6's seven;
    * ``W_t`` (``self.classifier``): a linear layer ``len(concat)·n → k`` with a bias
      (as sentence-transformers; the paper writes ``W_t ∈ R^{3n×k}``);
    * logits ``(B, k)``; labels ``(B,)`` class ids; loss: mean cross-entropy, a scalar.

    The classifier is thrown away after training: only the encoder is kept. It is written next to
    the encoder (``classifier.pt``) only when asked (``fit(..., save_head=True)`` or :meth:`save_head`).
    """

    label_kind = "class"

    def __init__(self, model: nn.Module, num_labels: int = 3, concat: tuple[str, ...] = DEFAULT_CONCAT):
        super().__init__(model)
        self.concat = check_concat(concat)
        if int(num_labels) < 2:
            raise SettingError(f"num_labels must be at least 2, got {num_labels}")
        self.num_labels = int(num_labels)
        dim = int(model.dim)
        self.classifier = nn.Linear(len(self.concat) * dim, self.num_labels, device=_device_of(model))

    def settings(self) -> dict:
        return {"num_labels": self.num_labels, "concat": list(self.concat)}

    def features(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """``(B, n)`` and ``(B, n)`` → ``(B, len(concat)·n)``, parts in the order of ``concat``."""
        return pair_features(u, v, self.concat)

    def logits(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        feats = self.features(u, v)
        return self.classifier(feats.to(self.classifier.weight.dtype))

    def loss_from_embeddings(self, embeddings, labels):
        u, v = embeddings
        return F.cross_entropy(self.logits(u, v), labels.view(-1).long())

    def save_head(self, folder: str | os.PathLike) -> Path:
        """Write the classifier (weights + ``concat`` + ``num_labels``) to ``folder/classifier.pt``."""
        head = {"concat": list(self.concat), "num_labels": self.num_labels,
                "state_dict": {k: v.cpu() for k, v in self.classifier.state_dict().items()}}
        return atomic_write(Path(folder) / HEAD_FILE, lambda tmp: torch.save(head, tmp))

    def load_head(self, folder: str | os.PathLike) -> None:
        """Load a classifier written by :meth:`save_head` (its ``concat`` must match)."""
        saved = torch.load(Path(folder) / HEAD_FILE, weights_only=True)
        if tuple(saved["concat"]) != self.concat or saved["num_labels"] != self.num_labels:
            raise SettingError(f"saved head has concat={tuple(saved['concat'])}, num_labels={saved['num_labels']}; "
                               f"this loss has concat={self.concat}, num_labels={self.num_labels}")
        self.classifier.load_state_dict(saved["state_dict"])


class CosineSimilarityLoss(SBERTLoss):
    """Regression objective (paper, Section 3): MSE between ``cos(u, v)`` and the gold score.

    Shapes: ``u, v`` ``(B, n)``; ``cos(u, v)`` ``(B,)``; gold ``(B,)`` scaled to 0–1
    (``STSPair.label`` does this: STSb's 0–5 becomes 0–1); loss ``mean((cos - gold)²)``, a scalar.
    """

    label_kind = "score"

    def loss_from_embeddings(self, embeddings, labels):
        u, v = embeddings
        cos = torch.cosine_similarity(u, v, dim=1)
        return F.mse_loss(cos, labels.view(-1).to(cos.dtype))


class TripletLoss(SBERTLoss):
    """Triplet objective (paper, Section 3): ``max(‖s_a − s_p‖ − ‖s_a − s_n‖ + ε, 0)``.

    The anchor should be closer to the positive than to the negative by at least the margin ``ε``.
    Shapes: ``s_a, s_p, s_n`` ``(B, n)``; distances ``(B,)``; loss: mean over the batch, a scalar.

    * ``distance``: ``"euclidean"`` (the paper's), ``"manhattan"`` or ``"cosine"`` (``1 − cos``).
    * ``margin``: ``ε = 1`` as in the paper. Note: sentence-transformers' ``TripletLoss``
      defaults to ``triplet_margin=5``; pass ``margin=5`` to match that library's default.
    """

    n_texts = (3,)

    def __init__(self, model: nn.Module, distance: str = "euclidean", margin: float = 1.0):
        super().__init__(model)
        if distance not in TRIPLET_DISTANCES:
            raise SettingError(f"unknown distance {distance!r}; choose one of {TRIPLET_DISTANCES}")
        self.distance, self.margin = distance, float(margin)

    def settings(self) -> dict:
        return {"distance": self.distance, "margin": self.margin}

    def loss_from_embeddings(self, embeddings, labels=None):
        anchor, positive, negative = embeddings
        dist = MEASURES[self.distance].distance
        return F.relu(dist(anchor, positive) - dist(anchor, negative) + self.margin).mean()


class MultipleNegativesRankingLoss(SBERTLoss):
    """In-batch negatives (not in the paper; the usual successor of SoftmaxLoss for NLI).

    For anchors ``a_i`` and positives ``p_j`` (optionally hard negatives ``n_j``) of a batch of ``B``:

    * scores ``S = scale · cos(a_i, c_j)`` with candidates ``c = (p_1..p_B [, n_1..n_B])``:
      ``(B, B)`` or ``(B, 2B)``;
    * the right candidate of anchor ``i`` is ``p_i`` (column ``i``): loss = cross-entropy of
      ``S`` with targets ``0..B-1``, a scalar. Every other positive in the batch is a negative.

    ``scale = 20`` (a softmax temperature of 0.05), as sentence-transformers. Bigger batches give
    more negatives and usually better embeddings.

    Under several processes (``torchrun``) each process scores its anchors against its own shard's
    candidates only: with ``batch_size`` 16 on 4 processes an anchor meets 3 other positives, not 15,
    so the loss (and what it teaches) differs from one process's; ``fit`` warns.
    """

    n_texts = (2, 3)
    in_batch_negatives = True  # the batch is part of the objective: sharding it changes the loss

    def __init__(self, model: nn.Module, scale: float = 20.0):
        super().__init__(model)
        if not scale > 0:
            raise SettingError(f"scale must be positive, got {scale}")
        self.scale = float(scale)

    def settings(self) -> dict:
        return {"scale": self.scale}

    def loss_from_embeddings(self, embeddings, labels=None):
        anchors, candidates = embeddings[0], torch.cat(embeddings[1:], dim=0)
        scores = F.normalize(anchors, p=2, dim=1) @ F.normalize(candidates, p=2, dim=1).T * self.scale
        targets = torch.arange(anchors.shape[0], device=scores.device)
        return F.cross_entropy(scores, targets)


def check_concat(concat) -> tuple[str, ...]:
    """``concat`` as a tuple of distinct parts out of :data:`CONCAT_PARTS`; ValueError otherwise."""
    if isinstance(concat, str):
        concat = (concat,)
    concat = tuple(concat)
    unknown = [c for c in concat if c not in CONCAT_PARTS]
    if not concat or unknown or len(set(concat)) != len(concat):
        raise SettingError(f"concat must be distinct parts out of {CONCAT_PARTS}, got {concat!r}")
    return concat


def pair_features(u, v, parts=DEFAULT_CONCAT):
    """The named parts of a sentence pair side by side: ``(B, n), (B, n) → (B, len(parts)·n)``.

    ``"u"``, ``"v"``, ``"|u-v|"`` (element-wise distance), ``"u*v"`` (element-wise product), in the
    order given. Torch tensors (the classifier of :class:`SoftmaxLoss`) or numpy arrays (transfer
    tasks on sentence pairs) alike.
    """
    parts = check_concat(parts)
    table = {"u": lambda: u, "v": lambda: v, "|u-v|": lambda: abs(u - v), "u*v": lambda: u * v}
    cat = torch.cat if isinstance(u, torch.Tensor) else np.concatenate
    return cat([table[p]() for p in parts], 1)


class DistillationLoss(SBERTLoss):
    """Knowledge distillation (model compression, Buciluǎ et al. 2006; named by Hinton et al. 2015) for sentence
    embeddings — not in the SBERT paper:
    the mean squared error between the student's sentence vector and the teacher's vector of the same
    sentence, averaged over every number (sentence-transformers' ``MSELoss``, as in its model-distillation
    example and in Reimers & Gurevych, 2020, "Making Monolingual Sentence Embeddings Multilingual using
    Knowledge Distillation", which distils into other languages).

    One text per example, its label the teacher's vector (``label_kind = "vector"``): ``(sentence,
    teacher_vector)``. Student vectors ``(B, d)`` and teacher vectors ``(B, d)`` must have the same width:
    a student narrower than its teacher reaches it through a projection (``SentenceEncoder(projection=)``).
    """

    n_texts = (1,)
    label_kind = "vector"

    def loss_from_embeddings(self, embeddings: list[torch.Tensor], labels: torch.Tensor) -> torch.Tensor:
        (student,) = embeddings
        if labels is None or labels.shape != student.shape:
            got = None if labels is None else tuple(labels.shape)
            raise SettingError(f"DistillationLoss: the teacher's vectors have shape {got}, the student's "
                               f"{tuple(student.shape)}; give each sentence its teacher vector of the student's width")
        return F.mse_loss(student, labels.to(student.dtype))


def _device_of(model: nn.Module) -> torch.device | None:
    try:
        return next(model.parameters()).device
    except StopIteration:
        return None


class CrossEncoderLoss(TrainingLoss):
    """Regression objective of a *cross-encoder* (Table 2's BERT rows; not SBERT): both texts of a pair
    are read together, one logit per pair, compared with the gold score scaled to 0–1. Not a siamese
    :class:`SBERTLoss`: there are no sentence embeddings, only logits.

    The model is a :class:`sbertlib.model.cross_encoder.CrossEncoder`; :func:`sbertlib.training.collate`
    then tokenises each pair jointly (``[CLS] a [SEP] b [SEP]``), so ``batch.features`` holds *one*
    column. Shapes: logits ``(B,)``; gold ``(B,)`` in 0–1 (``STSPair.label``); loss a scalar:

    * ``objective="bce"`` (default, as sentence-transformers' cross-encoder with one label):
      binary cross-entropy of ``sigmoid(logit)`` against the gold score (``BCEWithLogits``);
    * ``objective="mse"``: mean squared error of ``sigmoid(logit)`` against the gold score.
    """

    n_texts = (2,)
    label_kind = "score"
    score_range = (0.0, 1.0)  # checked for every item before the first step (training.prepare_examples)
    OBJECTIVES = ("bce", "mse")

    def __init__(self, model: nn.Module, objective: str = "bce"):
        from .model.cross_encoder import is_cross_encoder
        if not is_cross_encoder(model):
            raise TypeError(f"CrossEncoderLoss needs a cross-encoder, "
                            f"not a {type(model).__name__}: for a SentenceEncoder use CosineSimilarityLoss")
        super().__init__(model)
        if objective not in self.OBJECTIVES:
            raise SettingError(f"unknown objective {objective!r}; choose one of {self.OBJECTIVES}")
        self.objective = objective

    def settings(self) -> dict:
        return {"objective": self.objective}

    def forward(self, batch: Batch) -> torch.Tensor:
        if len(batch.features) != 1:
            raise SettingError(f"a cross-encoder batch holds one jointly tokenised column, got "
                               f"{len(batch.features)}: build it with training.collate(examples, cross_encoder)")
        return self.loss_from_logits(self.model(batch.features[0]), batch.labels)

    def loss_from_logits(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """``(B,)`` logits and ``(B,)`` gold scores in 0–1 → the loss, a scalar."""
        gold = labels.view(-1).float()  # fp32 always: under bf16 autocast the gold scores are not rounded
        if bool(((gold < 0) | (gold > 1)).any()):
            raise SettingError("cross-encoder gold scores must lie in 0–1 (STSPair.label is score / 5)")
        logits = logits.view(-1).float()
        if self.objective == "bce":
            return F.binary_cross_entropy_with_logits(logits, gold)
        return F.mse_loss(torch.sigmoid(logits), gold)
