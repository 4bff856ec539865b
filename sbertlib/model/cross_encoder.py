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

Its STS evaluator (Spearman of the predicted scores) is
:class:`sbertlib.evaluation.cross_encoder.CrossEncoderSTSEvaluator`.
"""
from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import numpy as np
import torch
from tqdm.auto import tqdm

from .. import config
from ..util import atomic_write_dir
from . import backbones, tokenising
from .tokenising import check_pairs
from ..errors import MissingPath, SettingError

META_FILE = "sbertlib_cross_encoder.json"
SIGMOID = "torch.nn.modules.activation.Sigmoid"  # how sentence-transformers names its default activation


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
        raise SettingError(f"backbone weights do not fit {type(model).__name__}: missing {missing}, "
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
            raise SettingError(f"a CrossEncoder here has one output (a score); the model has "
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

    @classmethod
    def from_encoder(cls, encoder, max_seq_length: int | None = None, seed: int = 0) -> "CrossEncoder":
        """A cross-encoder over a :class:`~sbertlib.model.encoder.SentenceEncoder`'s network: a copy of its
        backbone's weights and its tokenizer, a new pooler and head drawn with ``seed``, on its device.
        Untrained as a cross-encoder, but the same network at the same cost per pass: what the speed lab
        times. ``max_seq_length``: a pair's, by default twice the encoder's (capped at the backbone's positions)."""
        positions = int(getattr(encoder.backbone.config, "max_position_embeddings", 512))
        with backbones.quiet_transformers():
            model = _sequence_classifier(encoder.backbone, seed)
        length = max_seq_length or min(2 * encoder.max_seq_length, positions)
        return cls(model, copy.deepcopy(encoder.tokenizer), max_seq_length=length, name=encoder.name,
                   stand_in=bool(encoder.info.get("stand_in")), device=encoder.device,
                   info={"head_seed": seed, "from_encoder": True})

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
        """``[CLS] a [SEP] b [SEP]`` per pair (segment ids 0 then 1), cut to ``max_seq_length`` tokens (the
        longer text loses tokens first) and padded on the right to the batch's longest
        (:mod:`sbertlib.model.tokenising`, as :meth:`predict`); on the model's device.
        :func:`sbertlib.training.collate` calls this for a model that has it."""
        return tokenising.pad(self.tokenizer, self.pair_ids(pairs), self.device)

    def pair_ids(self, pairs) -> list[dict[str, list[int]]]:
        """Each pair's token ids and segment ids, read jointly and cut to ``max_seq_length``."""
        return tokenising.pair_ids(self.tokenizer, pairs, self.max_seq_length)

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
            raise SettingError(f"batch_size must be >= 1, got {batch_size}")
        if convert_to not in ("numpy", "torch"):
            raise SettingError(f"convert_to must be 'numpy' or 'torch', not {convert_to!r}")
        out = torch.empty(len(items), dtype=torch.float32)
        rows = self.pair_ids(items)
        was_training = self.training
        self.eval()
        try:
            with torch.inference_mode():
                bar = tqdm(total=len(items), desc="predict", unit="pair", disable=not show_progress_bar)
                for pos, feats in tokenising.padded_batches(self.tokenizer, rows, batch_size, self.device):
                    logits = self(feats).float()
                    out[torch.as_tensor(pos)] = (torch.sigmoid(logits) if activation else logits).cpu()
                    bar.update(len(pos))
                bar.close()
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
            raise MissingPath(f"{path} holds neither {META_FILE} nor a one-label sequence-classification "
                              "model: not a saved cross-encoder")
        meta = json.loads((path / META_FILE).read_text()) if (path / META_FILE).is_file() else {}
        with backbones.quiet_transformers():
            model = AutoModelForSequenceClassification.from_pretrained(str(path))
            tokenizer = AutoTokenizer.from_pretrained(str(path))
        info = dict(meta.get("info", {}))
        length = max_seq_length or meta.get("max_seq_length") or min(int(tokenizer.model_max_length), 512)
        return cls(model, tokenizer, max_seq_length=length, name=info.pop("backbone", str(path)),
                   stand_in=info.pop("stand_in", False), device=device, info=info)


def is_cross_encoder(model) -> bool:
    """True for a model that reads a pair's two texts together (a :class:`CrossEncoder`): training tokenises its
    pairs jointly, its loss is :class:`~sbertlib.losses.CrossEncoderLoss`, and it saves in its own format."""
    return isinstance(model, CrossEncoder)
