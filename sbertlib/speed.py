"""Measuring encoding speed honestly: warm-up, repeats, median and spread, padding share."""
from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np
import torch


@dataclass
class Timing:
    """Sentences per second over ``repeats`` timed runs (after ``warmup`` untimed ones)."""
    label: str
    n_sentences: int
    seconds: list[float]

    @property
    def median_s(self) -> float:
        return statistics.median(self.seconds)

    @property
    def sent_per_s(self) -> float:
        return self.n_sentences / self.median_s

    @property
    def spread(self) -> float:
        """(max − min) / median of the run times: how much the runs disagree."""
        return (max(self.seconds) - min(self.seconds)) / self.median_s

    def as_dict(self) -> dict:
        return {**asdict(self), "median_s": self.median_s, "sent_per_s": self.sent_per_s,
                "spread": self.spread}


def _sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def measure(label: str, run: Callable[[], object], n_sentences: int, repeats: int = 3,
            warmup: int = 1) -> Timing:
    """Time ``run()`` ``repeats`` times after ``warmup`` calls; GPU work is synchronised."""
    for _ in range(warmup):
        run()
    seconds = []
    for _ in range(repeats):
        _sync()
        start = time.perf_counter()
        run()
        _sync()
        seconds.append(time.perf_counter() - start)
    return Timing(label, n_sentences, seconds)


def padding_share(lengths: Sequence[int], batch_size: int, smart_batching: bool) -> float:
    """Share of the token slots in all padded batches that are padding."""
    lengths = np.asarray(lengths)
    order = np.argsort(-lengths, kind="stable") if smart_batching else np.arange(len(lengths))
    slots = real = 0
    for start in range(0, len(order), batch_size):
        batch = lengths[order[start:start + batch_size]]
        slots += int(batch.max()) * len(batch)
        real += int(batch.sum())
    return 1 - real / slots if slots else 0.0


def token_lengths(encoder, sentences: Sequence[str]) -> list[int]:
    """Token count of each sentence after truncation to the encoder's ``max_seq_length``."""
    return [min(len(x), encoder.max_seq_length) for x in
            encoder.tokenizer(list(sentences), add_special_tokens=True)["input_ids"]]


def environment() -> dict:
    """What a timing depends on: device, threads, torch version."""
    info = {"torch": torch.__version__, "threads": torch.get_num_threads()}
    if torch.cuda.is_available():
        info["device"] = torch.cuda.get_device_name(0)
    else:
        import platform
        info["device"] = f"CPU ({platform.processor() or platform.machine()})"
    return info


# --------------------------------------------------------------------- cross- vs bi-encoder
def pair_count(n: int) -> int:
    """Pairs a cross-encoder must score to find the most similar pair among ``n`` sentences."""
    return n * (n - 1) // 2


def cross_encoder_pairs_per_s(encoder, sentences: Sequence[str], n_pairs: int = 64,
                              batch_size: int = 16, repeats: int = 3) -> float:
    """Pairs per second of a BERT cross-encoder: both sentences in one input, one forward each.

    Uses the encoder's backbone on ``[CLS] a [SEP] b [SEP]`` inputs (the classifier on top costs
    nothing by comparison), so the timing is that of the same network as a cross-encoder.
    """
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(sentences), size=(n_pairs, 2))
    a, b = [sentences[i] for i in idx[:, 0]], [sentences[j] for j in idx[:, 1]]

    def run():
        with torch.inference_mode():
            for s in range(0, n_pairs, batch_size):
                feats = encoder.tokenizer(a[s:s + batch_size], b[s:s + batch_size], padding=True,
                                          truncation=True, max_length=2 * encoder.max_seq_length,
                                          return_tensors="pt").to(encoder.device)
                encoder.backbone(**feats)
    return measure("cross-encoder", run, n_pairs, repeats=repeats).sent_per_s


def bi_encoder_most_similar_pair(encoder, sentences: Sequence[str], batch_size: int = 64) -> tuple[float, tuple[int, int]]:
    """Seconds to embed ``sentences`` and find their most similar pair with one cosine matrix."""
    from .similarity import cos_sim
    _sync()
    start = time.perf_counter()
    emb = encoder.encode(list(sentences), batch_size=batch_size, convert_to="torch")
    sims = cos_sim(emb, emb)
    sims.fill_diagonal_(-2.0)
    flat = int(torch.argmax(sims))
    _sync()
    return time.perf_counter() - start, divmod(flat, len(sentences))
