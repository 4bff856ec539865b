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
