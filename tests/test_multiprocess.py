"""EncodePool: worker processes give the embeddings of one process, in input order; failures are named."""
from __future__ import annotations

import numpy as np
import pytest

from sbertlib.model.encoder import SentenceEncoder
from sbertlib.model.multiprocess import EncodePool

WORDS = "a man woman dog cat is plays eats runs on the in park guitar food red big two".split()


def corpus(n: int = 150) -> list[str]:
    rng = np.random.default_rng(0)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(2, 30)))) for _ in range(n)]


def test_pool_matches_one_process_in_input_order():
    enc = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")
    texts = corpus()
    single = enc.encode(texts, batch_size=16)
    with EncodePool(enc, processes=2, threads_per_process=1) as pool:
        pooled = pool.encode(texts, batch_size=16, chunk_size=40)  # 4 chunks, uneven last one
        again = pool.encode(texts[:7], batch_size=4)  # the pool serves several calls
    assert pooled.shape == single.shape and pooled.dtype == np.float32
    np.testing.assert_allclose(pooled, single, atol=1e-5)
    np.testing.assert_allclose(again, single[:7], atol=1e-5)
    with pytest.raises(RuntimeError, match="closed"):
        pool.encode(texts)


def test_pool_names_bad_input_and_failing_chunks():
    enc = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")
    with EncodePool(enc, processes=1, threads_per_process=1) as pool:
        with pytest.raises(TypeError, match="item 1"):
            pool.encode(["fine", 3])
        with pytest.raises(RuntimeError, match=r"chunk 0 .*batch_size"):
            pool.encode(["fine", "also fine"], batch_size=0)


class _FakeTasks:
    def __init__(self):
        self.sent = []

    def put(self, task):
        self.sent.append(task)


def _pool_without_workers(results, precision="fp32") -> EncodePool:
    """An EncodePool whose workers answer ``results`` in the order given (no processes started)."""
    pool = EncodePool.__new__(EncodePool)
    pool.devices, pool.precision, pool._workers, pool._tasks = ["cpu"], precision, [], _FakeTasks()
    answers = iter(results)
    pool._next_result = lambda n_done, n_chunks: next(answers)
    pool.close = lambda: None
    return pool


def test_chunks_that_come_back_out_of_order_are_put_back_in_input_order():
    rows = {i: np.full((1, 2), float(i), dtype=np.float32) for i in range(3)}
    pool = _pool_without_workers([(2, rows[2]), (0, rows[0]), (1, rows[1])])
    out = pool.encode(["a", "b", "c"], chunk_size=1)
    np.testing.assert_array_equal(out[:, 0], [0.0, 1.0, 2.0])


def test_pool_encodes_at_the_encoders_precision_and_takes_one_string():
    pool = _pool_without_workers([(0, np.ones((1, 2), dtype=np.float32))], precision="bf16")
    vec = pool.encode("one sentence")
    assert vec.shape == (2,)
    (chunk_id, sentences, kwargs), = pool._tasks.sent
    assert sentences == ["one sentence"] and kwargs["precision"] == "bf16"


def test_an_interrupted_call_closes_the_pool():
    def interrupted(n_done, n_chunks):
        raise KeyboardInterrupt
    pool = _pool_without_workers([])
    closed = []
    pool._next_result, pool.close = interrupted, lambda: closed.append(True)
    with pytest.raises(KeyboardInterrupt):
        pool.encode(["a", "b"])
    assert closed == [True]
