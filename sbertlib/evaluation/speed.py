"""Measuring encoding speed honestly: warm-up, repeats, median and spread, padding share.

Timing only. The sentences timed come from :mod:`sbertlib.data.corpora` and the choice of a precision
from measured rows is :func:`sbertlib.model.precision.pick_precision`.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np
import torch

from .. import config
from ..model import tokenising
from ..model.cross_encoder import CrossEncoder
from ..model.hardware import mps_available


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


def _sync(device: torch.device | str | None = None) -> None:
    """Wait until the GPU has done what was queued: CUDA's or Apple's (mps); ``device``'s only where given
    (a CPU has nothing to wait for)."""
    kind = None if device is None else torch.device(device).type
    if kind in (None, "cuda") and torch.cuda.is_available():
        torch.cuda.synchronize(device if kind else None)
    if kind in (None, "mps") and mps_available():
        torch.mps.synchronize()


def measure(label: str, run: Callable[[], object], n_sentences: int, repeats: int = 3,
            warmup: int = 1, device: torch.device | str | None = None) -> Timing:
    """Time ``run()`` ``repeats`` times after ``warmup`` calls; GPU work (CUDA, mps) is synchronised —
    ``device``'s only where given, else every GPU's."""
    for _ in range(warmup):
        run()
    seconds = []
    for _ in range(repeats):
        _sync(device)
        start = time.perf_counter()
        run()
        _sync(device)
        seconds.append(time.perf_counter() - start)
    return Timing(label, n_sentences, seconds)


def reset_memory(device: torch.device | str) -> None:
    """Start a memory count for :func:`memory_used`: CUDA's peak reset; mps's cache emptied."""
    kind = torch.device(device).type
    if kind == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    elif kind == "mps" and hasattr(torch.mps, "empty_cache"):
        torch.mps.empty_cache()


def memory_used(device: torch.device | str) -> dict[str, float]:
    """GPU memory in MiB, each under the name of what it is: CUDA ``peak_memory_mib`` (the most tensors
    held since :func:`reset_memory`); mps has no peak: ``mps_allocated_mib`` (tensors held now) and
    ``mps_driver_mib`` (what Metal holds for this process now, the allocator's cache included). CPU: {}."""
    kind, mib = torch.device(device).type, 2 ** 20
    if kind == "cuda":
        return {"peak_memory_mib": torch.cuda.max_memory_allocated(device) / mib}
    names = {"mps_allocated_mib": "current_allocated_memory", "mps_driver_mib": "driver_allocated_memory"}
    if kind != "mps":
        return {}
    return {key: getattr(torch.mps, fn)() / mib for key, fn in names.items() if hasattr(torch.mps, fn)}


def memory_note(row: dict) -> str:
    """The memory figures of a :func:`precision_comparison` row, in words ("" where there are none)."""
    if "peak_memory_mib" in row:
        return f"peak {row['peak_memory_mib']:.0f} MiB"
    if "mps_driver_mib" in row:
        tensors, held = row.get("mps_allocated_mib", float("nan")), row["mps_driver_mib"]
        return f"mps after the runs: {tensors:.0f} MiB in tensors, Metal holds {held:.0f} MiB (not a peak)"
    return ""


def padding_share(encoder, sentences: Sequence[str], batch_size: int, smart_batching: bool,
                  max_tokens: int | None = None) -> float:
    """Share of the token slots in the encoder's padded batches that are padding."""
    slots = real = 0
    for _, feats in encoder.batches(list(sentences), batch_size, smart_batching, max_tokens):
        mask = feats["attention_mask"]
        slots += mask.numel()
        real += int(mask.sum())
    return 1 - real / slots if slots else 0.0


def token_lengths(encoder, sentences: Sequence[str]) -> list[int]:
    """Token count of each sentence after truncation to the encoder's ``max_seq_length`` (as ``encode`` cuts it)."""
    return [len(r["input_ids"]) for r in tokenising.text_ids(encoder.tokenizer, sentences, encoder.max_seq_length)]


def environment(device: torch.device | str | None = None) -> dict:
    """What a timing depends on: device (``device``, else the one :func:`config.pick_device` picks:
    cuda > mps > cpu), threads, torch version."""
    from ..model.hardware import cpu_name
    kind = config.pick_device(device).type
    info = {"torch": torch.__version__, "threads": torch.get_num_threads(), "device_type": kind}
    if kind == "cuda":
        info["device"] = torch.cuda.get_device_name(config.pick_device(device))
    elif kind == "mps":
        info["device"] = f"Metal GPU (mps; CPU {cpu_name()})"
    else:
        info["device"] = f"CPU ({cpu_name()})"
    return info


# --------------------------------------------------------------------- cross- vs bi-encoder
def pair_count(n: int) -> int:
    """Pairs a cross-encoder must score to find the most similar pair among ``n`` sentences."""
    return n * (n - 1) // 2


def as_cross_encoder(model) -> CrossEncoder:
    """``model`` if it is a :class:`CrossEncoder`; a sentence encoder's network as one otherwise
    (:meth:`CrossEncoder.from_encoder`: its backbone's weights, a new head, pairs up to twice its length)."""
    return model if isinstance(model, CrossEncoder) else CrossEncoder.from_encoder(model)


def cross_encoder_pairs_per_s(model, sentences: Sequence[str], n_pairs: int = 64,
                              batch_size: int = 16, repeats: int = 3) -> float:
    """Pairs per second of a BERT cross-encoder: :meth:`CrossEncoder.predict` on ``n_pairs`` random pairs
    of ``sentences``, both sentences in one input, one forward pass each.

    ``model``: a :class:`CrossEncoder`, or a sentence encoder whose network is timed as a cross-encoder
    (:func:`as_cross_encoder`; the head's weights do not change the cost).
    """
    cross = as_cross_encoder(model)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(sentences), size=(n_pairs, 2))
    pairs = [(sentences[i], sentences[j]) for i, j in idx]
    return measure("cross-encoder", lambda: cross.predict(pairs, batch_size=batch_size), n_pairs,
                   repeats=repeats, device=cross.device).sent_per_s


def bi_encoder_most_similar_pair(encoder, sentences: Sequence[str], batch_size: int = 64) -> tuple[float, tuple[int, int]]:
    """Seconds to embed ``sentences`` and find their most similar pair with one cosine matrix."""
    from ..model.similarity import cos_sim
    _sync(encoder.device)
    start = time.perf_counter()
    emb = encoder.encode(list(sentences), batch_size=batch_size, convert_to="torch", show_progress_bar=False)
    sims = cos_sim(emb, emb)
    sims.fill_diagonal_(-2.0)
    flat = int(torch.argmax(sims))
    _sync(encoder.device)
    return time.perf_counter() - start, divmod(flat, len(sentences))


# --------------------------------------------------------------------- the speed lab
MODES = {  # label: (smart_batching, token budget)
    "input order": (False, None),
    "smart batching": (True, None),
    "token budget": (True, "auto"),
}


def compare_modes(encoder, sentences: Sequence[str], batch_size: int = 32, repeats: int = 3,
                  warmup: int = 1, modes: Sequence[str] = tuple(MODES)) -> list[dict]:
    """Sentences/s and padding share of ``encode`` in each batching mode, same sentences.

    The token budget defaults to ``batch_size × mean token length × 1.5``: on average the same
    amount of real text per batch as fixed-size batches, but sized by tokens.
    """
    sentences = list(sentences)
    budget = int(batch_size * np.mean(token_lengths(encoder, sentences)) * 1.5)
    rows = []
    for mode in modes:
        smart, tokens = MODES[mode]
        tokens = budget if tokens == "auto" else tokens
        t = measure(mode, lambda: encoder.encode(sentences, batch_size, smart_batching=smart, max_tokens=tokens,
                                                 show_progress_bar=False), len(sentences), repeats, warmup,
                    encoder.device)
        rows.append({**t.as_dict(), "padding_share": padding_share(encoder, sentences, batch_size, smart, tokens),
                     "batch_size": batch_size, "max_tokens": tokens})
    return rows


def precision_comparison(encoder, sentences: Sequence[str], pairs: Sequence, precisions: Sequence[str] = ("fp32", "bf16"),
                         batch_size: int = 32, repeats: int = 3, warmup: int = 1,
                         emulated_sample: int | None = 128) -> list[dict]:
    """For each precision: sentences/s of ``encode`` on ``sentences``, STS Spearman ×100 on ``pairs``,
    and how far the vectors move from fp32's (max |difference|, least cosine); on a GPU also its memory
    (:func:`memory_used`: CUDA's peak; on mps what is held after the runs, which is not a peak).

    Same sentences, batch size and threads for every row; ``spearman_diff`` is against the fp32 row
    (measured first whether asked for or not). The encoder's own precision is restored afterwards.
    A precision this device only emulates (:func:`~sbertlib.model.precision.is_emulated`: bf16 on most
    laptops' CPUs, several times slower than fp32) is timed once on the first ``emulated_sample``
    sentences (``None``: all, as the others): its row's ``timed_sentences`` says how many, and
    ``estimated_s_all`` what one pass over all of them would take. Its Spearman is on all ``pairs``.
    """
    from ..model.precision import is_emulated
    from .sts import STSEvaluator
    sentences, evaluator, saved = list(sentences), STSEvaluator(list(pairs)), encoder.precision
    order = ["fp32"] + [p for p in precisions if p != "fp32"]
    probe = sentences[:512]
    rows, ref = [], None
    try:
        for name in order:
            encoder.precision = name
            reset_memory(encoder.device)
            sampled = emulated_sample is not None and is_emulated(name, encoder.device)
            timed = sentences[:emulated_sample] if sampled else sentences
            if sampled:  # one short untimed call instead of a warm-up pass over everything
                encoder.encode(timed[:batch_size], batch_size, show_progress_bar=False)
            t = measure(name, lambda: encoder.encode(timed, batch_size, show_progress_bar=False),
                        len(timed), 1 if sampled else repeats, 0 if sampled else warmup, encoder.device)
            memory = memory_used(encoder.device)
            emb = encoder.encode(probe[:len(timed)], batch_size, convert_to="torch", show_progress_bar=False)
            ref = emb if ref is None else ref
            cos = torch.nn.functional.cosine_similarity(emb, ref[:len(emb)], dim=1)
            row = {**t.as_dict(), "precision": name, "batch_size": batch_size, "spearman": evaluator(encoder),
                   "max_abs_diff": float((emb - ref[:len(emb)]).abs().max()), "min_cosine_to_fp32": float(cos.min()),
                   "timed_sentences": len(timed), "estimated_s_all": len(sentences) / t.sent_per_s, **memory}
            rows.append(row)
    finally:
        encoder.precision = saved
    for row in rows:
        row["spearman_diff"] = row["spearman"] - rows[0]["spearman"]
        row["speedup"] = row["sent_per_s"] / rows[0]["sent_per_s"]
    return [r for r in rows if r["precision"] in precisions]


def batch_size_sweep(encoder, sentences: Sequence[str], sizes: Sequence[int] = (8, 16, 32, 64, 128),
                     repeats: int = 2) -> list[dict]:
    """Sentences/s of smart-batched encode for each batch size (the best is the throughput knee)."""
    return [{**measure(f"batch {b}", lambda b=b: encoder.encode(list(sentences), b, show_progress_bar=False),
                       len(sentences), repeats, device=encoder.device).as_dict(), "batch_size": b} for b in sizes]


def cross_vs_bi(encoder, sentences: Sequence[str], n: int = 10_000, cross_pairs: int = 64,
                cross_encoder: CrossEncoder | None = None) -> dict:
    """The introduction's comparison: most similar pair among ``n`` sentences.

    Cross-encoder (``cross_encoder``, else the encoder's network as one): pairs/s measured on
    ``cross_pairs`` pairs, extrapolated to n(n−1)/2 pairs.
    Bi-encoder: measured in full — embed ``n`` sentences, one cosine matrix, its arg-max.
    """
    sentences = list(sentences)[:n]
    pairs_per_s = cross_encoder_pairs_per_s(cross_encoder or encoder, sentences, cross_pairs)
    bi_seconds, best = bi_encoder_most_similar_pair(encoder, sentences)
    return {"n": len(sentences), "pairs": pair_count(len(sentences)), "cross_pairs_per_s": pairs_per_s,
            "cross_hours_extrapolated": pair_count(len(sentences)) / pairs_per_s / 3600,
            "bi_seconds_measured": bi_seconds, "most_similar_pair": [sentences[best[0]], sentences[best[1]]]}


def saved_size_mb(encoder) -> float:
    """Megabytes of the folder ``encoder.save`` writes (weights, tokenizer, settings), measured by saving
    it to a temporary folder."""
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        folder = encoder.save(Path(tmp) / "model")
        return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20


def encoder_comparison(encoders: dict, sentences: Sequence[str], precisions: Sequence[str] = ("fp32",),
                       batch_size: int = 32, repeats: int = 3, saved: Sequence[str] | None = None):
    """Table 7's method for several encoders: sentences/s of ``encode`` (smart batching) on the same
    ``sentences``, one after the other in one run, at each precision; with each encoder's parameter count
    and, for the labels in ``saved`` (default: all), the size of its saved folder (else NaN). A DataFrame
    indexed by ``(model, precision)``."""
    import pandas as pd
    rows = []
    for label, encoder in encoders.items():
        n_params = sum(p.numel() for p in encoder.parameters())
        on_disk = saved_size_mb(encoder) if saved is None or label in saved else float("nan")
        for prec in precisions:
            t = measure(label, lambda: encoder.encode(sentences, batch_size, show_progress_bar=False, precision=prec),
                        len(sentences), repeats=repeats, device=encoder.device)
            rows.append({"model": label, "precision": prec, "sentences/s": t.sent_per_s, "spread": t.spread,
                         "parameters (M)": n_params / 1e6, "fp32 weights (MB)": n_params * 4 / 2**20,
                         "saved folder (MB)": on_disk})
    return pd.DataFrame(rows).set_index(["model", "precision"])
