"""SentenceEncoder: a transformer backbone + pooling (+ an optional linear projection, + optional L2
normalisation).

This is SBERT's inference network (paper, Section 3): BERT reads the sentence, a pooling
step turns the token vectors into one fixed-size vector, and sentences are compared by cosine.
The projection is linear (saved as sentence-transformers' ``Dense`` with an identity activation; that
module's default activation is Tanh, ``activation_function=nn.Tanh()``, so theirs is not linear unless
told) and is not in the paper: a distilled student uses it to reach its teacher's width (notebook 14).
"""
from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import torch
from tqdm.auto import tqdm

from .. import config
from ..util import atomic_write_dir
from . import backbones, casting, hardware, precision as precisions, st_format, tokenising
from .pooling import POOLING_MODES, pool
from .text import replace_lone_surrogates
from ..errors import MissingPath, SettingError

META_FILE = "sbertlib.json"


def _interactive() -> bool:
    """True in a Jupyter kernel or a terminal: where a progress bar helps rather than clutters logs."""
    import sys
    if os.environ.get("TQDM_DISABLE"):
        return False
    return "ipykernel" in sys.modules or sys.stderr.isatty()


class SentenceEncoder(torch.nn.Module):
    """Backbone + pooling. ``forward`` is differentiable (training); ``encode`` is for inference."""

    def __init__(self, backbone: torch.nn.Module, tokenizer, pooling: str = "mean",
                 normalize: bool = False, max_seq_length: int = 128, name: str = "",
                 stand_in: bool = False, device: str | torch.device | None = None,
                 info: dict | None = None, projection: torch.nn.Linear | None = None):
        super().__init__()
        if pooling not in POOLING_MODES:
            raise SettingError(f"unknown pooling {pooling!r}; choose one of {POOLING_MODES}")
        width = int(backbone.config.hidden_size)
        if projection is not None and (not isinstance(projection, torch.nn.Linear) or projection.in_features != width):
            raise SettingError(f"projection must be an nn.Linear from the backbone's width {width}; got {projection!r}")
        self.backbone, self.tokenizer, self.projection = backbone, tokenizer, projection
        self.pooling, self.normalize, self.max_seq_length = pooling, normalize, int(max_seq_length)
        self.info = {"backbone": name, "stand_in": stand_in, **(info or {})}
        self.to(config.pick_device(device))
        self.eval()  # inference by default; fit() switches to training mode
        self._precision, self._cast = "fp32", None

    @property
    def precision(self) -> str:
        """Default precision of :meth:`encode` (``fp32``, ``bf16``, ``fp16``, ``int8``, ``auto``; see
        :mod:`sbertlib.model.precision`). Training always runs on the float32 weights."""
        return self._precision

    def resolved_precision(self, precision: str | None = None) -> str:
        """The precision an :meth:`encode` call runs in: ``precision`` or :attr:`precision`, with ``auto``
        decided for this device and the current pooling."""
        chosen = precisions.check_precision(precision or self._precision, self.device)
        return precisions.auto_precision(self.device, self.pooling) if chosen == "auto" else chosen

    @precision.setter
    def precision(self, value: str) -> None:
        self._precision = precisions.check_precision(value, self.device)

    def inference_backbone(self, precision: str) -> torch.nn.Module:
        """The backbone at ``precision``: a cast copy, made once and remade whenever a weight changes
        (training, ``load_state_dict``) or the encoder moves to another device."""
        precisions.check_precision(precision, self.device)
        if precision == "fp32":
            return self.backbone
        key = (precision, str(self.device), tuple((id(t), t._version) for t in (*self.backbone.parameters(), *self.backbone.buffers())))
        if self._cast is None or self._cast[0] != key:
            self._cast = None  # let the stale copy go before the new one is made
            self._cast = (key, casting.cast_backbone(self.backbone, precision))
        return self._cast[1]

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_pretrained(cls, name_or_path: str | os.PathLike, pooling: str | None = None,
                        normalize: bool | None = None, max_seq_length: int | None = None,
                        device: str | torch.device | None = None) -> "SentenceEncoder":
        """Build an encoder from a backbone name/path (see :mod:`sbertlib.model.backbones`) or a saved encoder.

        Arguments left ``None`` come from the model: a saved encoder's settings, or a
        sentence-transformers folder's pooling and Normalize layer (all-MiniLM-L6-v2 normalises,
        under any of its names); otherwise mean pooling, no normalisation.
        """
        path = Path(str(name_or_path)).expanduser()
        if (path / META_FILE).is_file():
            return cls.load(path, device=device, pooling=pooling, normalize=normalize,
                            max_seq_length=max_seq_length)
        bb = backbones.load_backbone(name_or_path)
        return cls(bb.model, bb.tokenizer, pooling=pooling or bb.pooling or "mean",
                   normalize=bb.normalize if normalize is None else normalize,
                   max_seq_length=max_seq_length or bb.max_seq_length, name=bb.name,
                   stand_in=bb.stand_in, device=device, projection=bb.projection)

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    @property
    def dim(self) -> int:
        """The sentence vector's size: the projection's output, else the backbone's width."""
        return int(self.projection.out_features if self.projection is not None else self.backbone.config.hidden_size)

    @property
    def name(self) -> str:
        return self.info.get("backbone", "")

    def __repr__(self) -> str:
        tag = " [stand-in]" if self.info.get("stand_in") else ""
        return (f"SentenceEncoder({self.name!r}{tag}, pooling={self.pooling!r}, "
                f"normalize={self.normalize}, dim={self.dim}, max_seq_length={self.max_seq_length})")

    # ----------------------------------------------------------------- the network
    def tokenize(self, texts: Sequence[str]) -> dict[str, torch.Tensor]:
        """Token ids of a batch, cut to ``max_seq_length`` and padded on the right to the batch's longest
        (:mod:`sbertlib.model.tokenising`, as :meth:`encode`); tensors on the encoder's device."""
        texts = replace_lone_surrogates(texts)  # U+FFFD, with a warning (sbertlib.model.text)
        return tokenising.pad(self.tokenizer, self.token_ids(texts), self.device)

    def forward(self, features: dict[str, torch.Tensor], backbone: torch.nn.Module | None = None) -> torch.Tensor:
        """Sentence embeddings ``(batch, dim)`` for tokenized ``features`` (keeps gradients).

        ``backbone``: another copy of the backbone to run (e.g. a bf16 one); pooling is in float32.
        """
        out = (backbone or self.backbone)(**features)
        emb = pool(out.last_hidden_state.float(), features["attention_mask"], self.pooling)
        if self.projection is not None:
            emb = self.projection(emb)
        return torch.nn.functional.normalize(emb, p=2, dim=1) if self.normalize else emb

    # ----------------------------------------------------------------- inference
    def token_ids(self, sentences: Sequence[str], warn: bool = False) -> list[dict[str, list[int]]]:
        """Each sentence's token ids, cut to ``max_seq_length`` (``warn``: one warning if any was)."""
        return tokenising.text_ids(self.tokenizer, sentences, self.max_seq_length, warn)

    def batches(self, sentences: list[str], batch_size: int, smart_batching: bool = True,
                max_tokens: int | None = None):
        """Yield ``(positions, features)`` as :meth:`encode` runs them: with smart batching, batches of
        similar token length; ``max_tokens``: sized by a token budget (see
        :func:`sbertlib.model.tokenising.length_batches`)."""
        rows = self.token_ids(sentences, warn=True)
        yield from tokenising.padded_batches(self.tokenizer, rows, batch_size, self.device, smart_batching, max_tokens)

    def encode(self, sentences: str | Iterable[str], batch_size: int = 32, smart_batching: bool = True,
               show_progress_bar: bool | None = None, convert_to: str = "numpy",
               normalize: bool | None = None, max_tokens: int | None = None,
               precision: str | None = None) -> np.ndarray | torch.Tensor:
        """Embed sentences; returns ``(n, dim)`` (or ``(dim,)`` for a single string).

        * ``smart_batching`` sorts by token length so each batch pads only to its own longest
          member; the output is always in input order. Turn it off to see what it saves.
        * An empty list gives shape ``(0, dim)``; an empty string is encoded as ``[CLS] [SEP]``.
        * Items that are not strings raise ``TypeError`` naming their position.
        * Texts longer than ``max_seq_length`` tokens are truncated, with one warning.
        * ``convert_to``: ``"numpy"`` (float32 array) or ``"torch"`` (tensor on the CPU).
        * ``max_tokens``: token-budget batching (see :meth:`batches`); ``batch_size`` is ignored.
        * ``precision``: ``fp32``, ``bf16``, ``fp16`` (CUDA), ``int8`` (CPU) or ``auto`` for this call
          (default: :attr:`precision`); the vectors come back in float32 whatever it is. bf16 on a CPU without
          AMX or AVX512-BF16 is emulated: it warns, since it is slower than fp32 there.
        """
        single = isinstance(sentences, str)
        texts = [sentences] if single else list(sentences)
        if convert_to not in ("numpy", "torch"):
            raise SettingError(f"convert_to must be 'numpy' or 'torch', not {convert_to!r}")
        if batch_size < 1:
            raise SettingError(f"batch_size must be >= 1, got {batch_size}")
        tokenising.check_texts(texts)
        texts = replace_lone_surrogates(texts)  # U+FFFD, with a warning (sbertlib.model.text)
        precision = self.resolved_precision(precision)
        if precision == "bf16" and not hardware.bf16_is_fast(self.device):
            warnings.warn(f"bf16 is emulated on this {self.device.type} ({hardware.describe_hardware(self.device)}); "
                          "fp32 is faster here", stacklevel=2)
        out = torch.empty((len(texts), self.dim), dtype=torch.float32)
        if not texts:
            return out.numpy() if convert_to == "numpy" else out
        if show_progress_bar is None:
            show_progress_bar = len(texts) > 10 * batch_size and _interactive()
        was_training = self.training
        self.eval()
        try:
            backbone = self.inference_backbone(precision)
            with torch.inference_mode():
                bar = tqdm(total=len(texts), desc="encode", unit="sent", disable=not show_progress_bar)
                for pos, feats in self.batches(texts, batch_size, smart_batching, max_tokens):
                    out[torch.as_tensor(pos)] = self(feats, backbone).cpu()
                    bar.update(len(pos))
                bar.close()
        finally:
            self.train(was_training)
        if normalize and not self.normalize:
            out = torch.nn.functional.normalize(out, p=2, dim=1)
        if single:
            out = out[0]
        return out.numpy() if convert_to == "numpy" else out

    # ----------------------------------------------------------------- persistence
    def save(self, path: str | os.PathLike, extra: dict | None = None, format: str = "sbertlib") -> Path:
        """Write backbone, tokenizer and settings to ``path`` atomically (temp folder, then rename).

        ``format="sentence-transformers"`` also writes that library's module files (see
        :mod:`sbertlib.model.st_format`): ``SentenceTransformer(path)`` then loads the folder and gives
        the same embeddings, and :meth:`from_pretrained` still reads it.
        """
        if format not in ("sbertlib", "sentence-transformers"):
            raise SettingError(f"format must be 'sbertlib' or 'sentence-transformers', not {format!r}")

        def write(tmp: Path) -> None:
            with backbones.quiet_transformers():
                self.backbone.save_pretrained(tmp)
                self.tokenizer.save_pretrained(tmp)
            meta = {"pooling": self.pooling, "normalize": self.normalize,
                    "max_seq_length": self.max_seq_length, "info": self.info, **(extra or {})}
            if self.projection is not None:
                meta["projection"] = st_format.DENSE_FOLDER
                st_format.write_dense(tmp / st_format.DENSE_FOLDER, self.projection)
            (tmp / META_FILE).write_text(json.dumps(meta, indent=2))
            if format == "sentence-transformers":
                st_format.write_modules(tmp, self.pooling, self.normalize, int(self.backbone.config.hidden_size),
                                        self.max_seq_length, self.projection)
        return atomic_write_dir(path, write)

    @classmethod
    def load(cls, path: str | os.PathLike, device: str | torch.device | None = None,
             pooling: str | None = None, normalize: bool | None = None,
             max_seq_length: int | None = None) -> "SentenceEncoder":
        """Load an encoder written by :meth:`save`; arguments given override its saved settings."""
        path = Path(path)
        meta_file = path / META_FILE
        if not meta_file.is_file():
            raise MissingPath(f"{path} holds no {META_FILE}: not a saved SentenceEncoder")
        meta = json.loads(meta_file.read_text())
        bb = backbones.load_backbone(path)
        info = dict(meta.get("info", {}))
        projection = bb.projection or (backbones.load_dense(path / meta["projection"]) if meta.get("projection") else None)
        return cls(bb.model, bb.tokenizer, pooling=pooling or meta["pooling"],
                   normalize=meta["normalize"] if normalize is None else normalize,
                   max_seq_length=max_seq_length or meta["max_seq_length"], name=info.pop("backbone", str(path)),
                   stand_in=info.pop("stand_in", False), device=device, info=info, projection=projection)
