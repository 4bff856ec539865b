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
