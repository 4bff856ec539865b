"""CrossEncoder: both sentences read *together* by one transformer, one score out.

This is how the paper uses BERT itself for sentence-pair regression (Section 1, Table 2's ``BERT-…``
rows): the pair goes in as one sequence, ``[CLS] a [SEP] b [SEP]``, attention runs across both
sentences in every layer, and a linear head on the ``[CLS]`` position (through BERT's pooler, a dense
layer with tanh) gives one logit; a sigmoid turns it into a score in 0–1. Reading the pair jointly is
why it is more accurate (Table 2: BERT-NLI-STSb-base 88.33 vs SBERT-NLI-STSb-base 85.35) — and why it
produces no sentence vector: every pair costs a full forward pass, so comparing ``n`` sentences with
each other costs ``n(n−1)/2`` passes instead of ``n`` (the 65 hours of the introduction).

The network is a Hugging Face ``…ForSequenceClassification`` model with one label, the same thing
``sentence_transformers.CrossEncoder`` loads, so a folder written by :meth:`CrossEncoder.save` opens in
that library and a cross-encoder folder written by it opens here, with the same predictions.

Training reuses the one training loop, :func:`sbertlib.training.fit`, with
:class:`sbertlib.losses.CrossEncoderLoss`; ``fit``'s ``collate`` tokenises an example's two texts
jointly when the model has :meth:`CrossEncoder.tokenize_pairs`::

    ce = CrossEncoder.from_pretrained("random-bert-2x128")
    fit(ce, CrossEncoderLoss(ce), data.load_stsb("train"), epochs=4, batch_size=32, lr=1e-3)
    ce.predict([("A man plays a guitar.", "A man plays music.")])   # array([0.8…])
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from tqdm.auto import tqdm

from .. import config
from ..util import atomic_write_dir
from . import backbones

META_FILE = "sbertlib_cross_encoder.json"
SIGMOID = "torch.nn.modules.activation.Sigmoid"  # how sentence-transformers names its default activation


def check_pairs(pairs) -> list[tuple[str, str]]:
    """``pairs`` as a list of ``(text_a, text_b)`` string tuples; TypeError/ValueError naming the item."""
    if isinstance(pairs, (str, bytes)):
        raise TypeError("pairs must be a list of (text_a, text_b) pairs, not one string")
    out = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence):
            raise TypeError(f"item {i} is {type(pair).__name__} {pair!r}: each item must be a (text_a, text_b) pair")
        if len(pair) != 2:
            raise ValueError(f"item {i} holds {len(pair)} texts: a cross-encoder scores exactly two")
        for t in pair:
            if not isinstance(t, str):
                raise TypeError(f"item {i}: texts must be strings, got {type(t).__name__}: {t!r}")
        out.append((pair[0], pair[1]))
    return out


def _sequence_classifier(backbone: torch.nn.Module, seed: int) -> torch.nn.Module:
    """A one-label ``…ForSequenceClassification`` model around ``backbone``'s weights; the parts the
    backbone lacks (BERT's pooler, the linear head) start from random weights drawn with ``seed``."""
    from transformers import AutoModelForSequenceClassification

    cfg = backbone.config.__class__.from_dict({**backbone.config.to_dict(), "num_labels": 1})
    cfg.problem_type = "regression"
    state = torch.random.get_rng_state()
    try:
        torch.manual_seed(seed)
        model = AutoModelForSequenceClassification.from_config(cfg)
    finally:
        torch.random.set_rng_state(state)
    body = getattr(model, model.base_model_prefix)
    missing, unexpected = body.load_state_dict(backbone.state_dict(), strict=False)
    if unexpected or any(not k.startswith("pooler.") for k in missing):
        raise ValueError(f"backbone weights do not fit {type(model).__name__}: missing {missing}, "
                         f"unexpected {unexpected}")
    return model


def _is_cross_encoder_folder(path: Path) -> bool:
    cfg = path / "config.json"
    if not cfg.is_file():
        return False
    c = json.loads(cfg.read_text())
    return any(a.endswith("ForSequenceClassification") for a in c.get("architectures") or []) \
        and len(c.get("id2label") or {"0": 0}) == 1


class CrossEncoder(torch.nn.Module):
    """A transformer over the joint pair + a one-logit head; ``predict`` gives sigmoid scores in 0–1."""

    def __init__(self, model: torch.nn.Module, tokenizer, max_seq_length: int = 128, name: str = "",
                 stand_in: bool = False, device: str | torch.device | None = None, info: dict | None = None):
        super().__init__()
        if int(getattr(model.config, "num_labels", 1)) != 1:
            raise ValueError(f"a CrossEncoder here has one output (a score); the model has "
                             f"{model.config.num_labels} labels")
        self.model, self.tokenizer, self.max_seq_length = model, tokenizer, int(max_seq_length)
        self.info = {"backbone": name, "stand_in": stand_in, "kind": "cross-encoder", **(info or {})}
        self.to(config.pick_device(device))
        self.eval()

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_pretrained(cls, name_or_path: str | os.PathLike, max_seq_length: int | None = None,
                        device: str | torch.device | None = None, seed: int = 0) -> "CrossEncoder":
        """A cross-encoder from a backbone name or folder (see :mod:`sbertlib.model.backbones`: the
        encoder's weights, plus a new pooler and head drawn with ``seed``), a folder written by
        :meth:`save`, or a sentence-transformers cross-encoder folder (one label)."""
        path = Path(str(name_or_path)).expanduser()
        if (path / META_FILE).is_file() or _is_cross_encoder_folder(path):
            return cls.load(path, device=device, max_seq_length=max_seq_length)
        bb = backbones.load_backbone(name_or_path)
        with backbones.quiet_transformers():
            model = _sequence_classifier(bb.model, seed)
        return cls(model, bb.tokenizer, max_seq_length=max_seq_length or bb.max_seq_length, name=bb.name,
                   stand_in=bb.stand_in, device=device, info={"head_seed": seed})

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    @property
    def name(self) -> str:
        return self.info.get("backbone", "")

    def __repr__(self) -> str:
        tag = " [stand-in]" if self.info.get("stand_in") else ""
        return f"CrossEncoder({self.name!r}{tag}, max_seq_length={self.max_seq_length})"

    # ----------------------------------------------------------------- the network
    def tokenize_pairs(self, pairs) -> dict[str, torch.Tensor]:
        """``[CLS] a [SEP] b [SEP]`` per pair (segment ids 0 then 1), padded to the batch's longest and
        cut to ``max_seq_length`` tokens (the longer text loses tokens first); on the model's device.
        :func:`sbertlib.training.collate` calls this for a model that has it."""
        pairs = check_pairs(pairs)
        feats = self.tokenizer([a for a, _ in pairs], [b for _, b in pairs], padding=True,
                               truncation="longest_first", max_length=self.max_seq_length, return_tensors="pt")
        return {k: v.to(self.device) for k, v in feats.items()}

    def forward(self, features: dict[str, torch.Tensor]) -> torch.Tensor:
        """One logit per pair, shape ``(batch,)`` (keeps gradients)."""
        return self.model(**features).logits.squeeze(-1)

    def predict(self, pairs, batch_size: int = 32, activation: bool = True, show_progress_bar: bool = False,
                convert_to: str = "numpy") -> np.ndarray | torch.Tensor | float:
        """Scores of ``pairs`` (a list of ``(text_a, text_b)``; one pair gives one float).

        ``activation=True``: sigmoid of the logit, in 0–1 (as ``sentence_transformers.CrossEncoder``);
        ``False``: the raw logits. Pairs are batched by length (less padding); the output keeps the
        input order. ``convert_to``: ``"numpy"`` (float32) or ``"torch"``.
        """
        single = isinstance(pairs, tuple) and len(pairs) == 2 and all(isinstance(t, str) for t in pairs)
        items = check_pairs([pairs] if single else pairs)
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if convert_to not in ("numpy", "torch"):
            raise ValueError(f"convert_to must be 'numpy' or 'torch', not {convert_to!r}")
        out = torch.empty(len(items), dtype=torch.float32)
        order = np.argsort([-(len(a) + len(b)) for a, b in items], kind="stable")
        was_training = self.training
        self.eval()
        try:
            with torch.inference_mode():
                for start in tqdm(range(0, len(items), batch_size), desc="predict", unit="batch",
                                  disable=not show_progress_bar):
                    pos = order[start:start + batch_size]
                    logits = self(self.tokenize_pairs([items[i] for i in pos])).float()
                    out[torch.as_tensor(pos)] = (torch.sigmoid(logits) if activation else logits).cpu()
        finally:
            self.train(was_training)
        if single:
            return float(out[0])
        return out.numpy() if convert_to == "numpy" else out

    # ----------------------------------------------------------------- persistence
    def save(self, path: str | os.PathLike, extra: dict | None = None) -> Path:
        """Write model, tokenizer and settings to ``path`` atomically. The folder is also a
        sentence-transformers cross-encoder (sigmoid activation, ``max_length`` = ``max_seq_length``)."""
        def write(tmp: Path) -> None:
            self.model.config.sentence_transformers = {"activation_fn": SIGMOID}
            self.tokenizer.model_max_length = self.max_seq_length
            with backbones.quiet_transformers():
                self.model.save_pretrained(tmp)
                self.tokenizer.save_pretrained(tmp)
            meta = {"max_seq_length": self.max_seq_length, "info": self.info, **(extra or {})}
            (tmp / META_FILE).write_text(json.dumps(meta, indent=2))
        return atomic_write_dir(path, write)

    @classmethod
    def load(cls, path: str | os.PathLike, device: str | torch.device | None = None,
             max_seq_length: int | None = None) -> "CrossEncoder":
        """Load a folder written by :meth:`save` or by ``sentence_transformers.CrossEncoder.save``."""
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        path = Path(path)
        if not (path / META_FILE).is_file() and not _is_cross_encoder_folder(path):
            raise FileNotFoundError(f"{path} holds neither {META_FILE} nor a one-label sequence-classification "
                                    "model: not a saved cross-encoder")
        meta = json.loads((path / META_FILE).read_text()) if (path / META_FILE).is_file() else {}
        with backbones.quiet_transformers():
            model = AutoModelForSequenceClassification.from_pretrained(str(path))
            tokenizer = AutoTokenizer.from_pretrained(str(path))
        info = dict(meta.get("info", {}))
        length = max_seq_length or meta.get("max_seq_length") or min(int(tokenizer.model_max_length), 512)
        return cls(model, tokenizer, max_seq_length=length, name=info.pop("backbone", str(path)),
                   stand_in=info.pop("stand_in", False), device=device, info=info)


class CrossEncoderSTSEvaluator:
    """``evaluator(cross_encoder) -> Spearman × 100`` of predicted scores against gold STS scores —
    the cross-encoder's counterpart of :class:`sbertlib.evaluation.STSEvaluator` (same pairs, same
    sampling), usable as ``fit(..., evaluator=...)``."""

    def __init__(self, pairs=None, split: str = "dev", data_dir: str | os.PathLike | None = None,
                 batch_size: int = 64, max_pairs: int | None = None):
        self.pairs, self.split, self.data_dir = pairs, split, data_dir
        self.batch_size, self.max_pairs = batch_size, max_pairs

    def _load(self) -> list:
        from ..data import load_stsb
        from ..evaluation.sts import sample_pairs
        pairs = self.pairs if self.pairs is not None else load_stsb(self.split, self.data_dir)
        return sample_pairs(pairs, self.max_pairs)

    def __call__(self, cross_encoder) -> float:
        from scipy.stats import spearmanr
        pairs = self._load()
        pred = cross_encoder.predict([(p.sentence1, p.sentence2) for p in pairs], batch_size=self.batch_size)
        return 100.0 * float(spearmanr(pred, [p.score for p in pairs]).statistic)

    def __repr__(self) -> str:
        where = "given pairs" if self.pairs is not None else f"STSb {self.split}"
        return f"CrossEncoderSTSEvaluator({where}, max_pairs={self.max_pairs})"
