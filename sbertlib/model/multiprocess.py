"""Encoding a large corpus with several worker processes: :class:`EncodePool`.

Each worker loads its own copy of the encoder (from a folder the pool saves once), on its own
device or with its own share of the CPU threads. The corpus is cut into chunks; the chunks go
to whichever worker is free; the results come back tagged with their chunk number and are put
back in input order. The embeddings are those of a single process (to float rounding: a chunk's
batches can differ from a single call's, so the matrix multiplications have other shapes).

    with EncodePool(encoder, processes=4) as pool:            # or devices=["cuda:0", "cuda:1"]
        emb = pool.encode(corpus, batch_size=64, chunk_size=5_000)

sentence-transformers' ``start_multi_process_pool`` / ``encode_multi_process`` is the model.
Worth it when one process cannot use the hardware: several GPUs, or many CPU cores where one
process's threads stop scaling. On two cores, two processes of one thread each roughly match one
process of two threads.
"""
from __future__ import annotations

import math
import queue
import tempfile
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
import torch.multiprocessing as mp

from .encoder import SentenceEncoder
from .tokenising import check_texts
from ..errors import SettingError


def _worker(path: str, device: str, threads: int | None, tasks, results) -> None:
    """Load the encoder, then encode chunks until a ``None`` task arrives."""
    try:
        if threads:
            torch.set_num_threads(threads)
        encoder = SentenceEncoder.load(path, device=device)
    except Exception as err:  # noqa: BLE001 - reported to the parent, which raises
        results.put((-1, f"worker on {device} could not load the encoder: {type(err).__name__}: {err}"))
        return
    while True:
        task = tasks.get()
        if task is None:
            return
        chunk_id, sentences, kwargs = task
        try:
            results.put((chunk_id, encoder.encode(sentences, convert_to="numpy", show_progress_bar=False, **kwargs)))
        except Exception as err:  # noqa: BLE001
            results.put((chunk_id, f"{type(err).__name__}: {err}"))


class EncodePool:
    """Worker processes that each hold the encoder; :meth:`encode` spreads chunks over them.

    * ``devices``: one worker per entry (``["cuda:0", "cuda:1"]``); default ``processes`` workers on
      the encoder's device.
    * ``threads_per_process``: CPU threads of each worker (default: this process's threads divided
      among the workers, at least one).
    """

    def __init__(self, encoder: SentenceEncoder, devices: Sequence[str] | None = None, processes: int = 2,
                 threads_per_process: int | None = None, timeout: float = 600.0):
        devices = list(devices) if devices else [str(encoder.device)] * processes
        if not devices:
            raise SettingError("EncodePool needs at least one device or processes >= 1")
        self.devices, self.timeout = devices, timeout
        self.precision = encoder.precision  # workers encode as the encoder would ("auto": per worker's device)
        self._tmp = tempfile.TemporaryDirectory(prefix="sbertlib-pool-")
        encoder.save(Path(self._tmp.name) / "encoder")
        threads = threads_per_process or max(1, torch.get_num_threads() // len(devices))
        ctx = mp.get_context("spawn")  # a fresh interpreter: safe with CUDA and with threads
        self._tasks, self._results = ctx.Queue(), ctx.Queue()
        self._workers = [ctx.Process(target=_worker, daemon=True,
                                     args=(str(Path(self._tmp.name) / "encoder"), d, threads, self._tasks,
                                           self._results)) for d in devices]
        for w in self._workers:
            w.start()

    def encode(self, sentences: str | Sequence[str], batch_size: int = 32, chunk_size: int | None = None,
               **kwargs) -> np.ndarray:
        """Float32 embeddings ``(n, dim)`` of ``sentences`` in input order; ``kwargs`` go to ``encode``
        (``precision`` defaults to the encoder's). One string gives one vector ``(dim,)``.

        ``chunk_size`` defaults to an even split into four chunks per worker (at most 5,000 sentences),
        so that a slow worker holds up little. A failing chunk raises RuntimeError naming it; an
        interruption (Ctrl-C) closes the pool, so no half-done call can answer the next one.
        """
        if isinstance(sentences, str):
            return self.encode([sentences], batch_size, chunk_size, **kwargs)[0]
        kwargs.setdefault("precision", self.precision)
        texts = list(sentences)
        check_texts(texts)
        if self._workers is None:
            raise RuntimeError("this EncodePool is closed")
        if not texts:
            raise SettingError("EncodePool.encode got no sentences")
        chunk_size = chunk_size or min(5_000, math.ceil(len(texts) / (4 * len(self.devices))))
        chunks = [texts[i:i + chunk_size] for i in range(0, len(texts), chunk_size)]
        for i, chunk in enumerate(chunks):
            self._tasks.put((i, chunk, {"batch_size": batch_size, **kwargs}))
        try:
            done = self._collect(len(chunks), chunk_size, len(texts))
        except BaseException:
            self.close()  # what is still queued or running would answer the next call
            raise
        return np.concatenate([done[i] for i in range(len(chunks))])

    def _collect(self, n_chunks: int, chunk_size: int, n_texts: int) -> dict[int, np.ndarray]:
        """Every chunk's embeddings by chunk number; RuntimeError naming the first chunk that failed."""
        done: dict[int, np.ndarray] = {}
        while len(done) < n_chunks:
            chunk_id, value = self._next_result(len(done), n_chunks)
            if isinstance(value, str):
                where = "" if chunk_id < 0 else f"chunk {chunk_id} (sentences {chunk_id * chunk_size}–" \
                                                f"{min(n_texts, (chunk_id + 1) * chunk_size) - 1}): "
                raise RuntimeError(f"EncodePool: {where}{value} (the pool is closed)")
            done[chunk_id] = value
        return done

    def _next_result(self, n_done: int, n_chunks: int):
        """The next ``(chunk_id, embeddings or error text)``; a worker that died is an error."""
        waited = 0.0
        while True:
            try:
                return self._results.get(timeout=1.0)
            except queue.Empty:
                waited += 1.0
            dead = [d for d, w in zip(self.devices, self._workers) if not w.is_alive()]
            if dead or waited >= self.timeout:
                why = (f"a worker on {dead[0]} stopped (exit code "
                       f"{next(w.exitcode for w in self._workers if not w.is_alive())})" if dead
                       else f"no chunk came back within {self.timeout:.0f} s")
                return -1, f"{why}; {n_done} of {n_chunks} chunks done"

    def close(self) -> None:
        """Stop the workers and delete the saved encoder."""
        if self._workers is None:
            return
        for _ in self._workers:
            self._tasks.put(None)
        for w in self._workers:
            w.join(timeout=30)
            if w.is_alive():
                w.terminate()
        self._workers = None
        self._tmp.cleanup()

    def __enter__(self) -> "EncodePool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:  # a pool nobody closed must not leave processes behind
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass
