"""SentenceEncoder: pooling, encode's documented edge cases, smart batching, save/load, offline errors."""
from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
import torch

from sbertlib.model import backbones
from sbertlib.model.encoder import SentenceEncoder
from sbertlib.model.pooling import pool


@pytest.fixture(scope="module")
def tiny() -> SentenceEncoder:
    return SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")


def test_pooling_ignores_padding():
    tokens = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, -100.0]]])
    mask = torch.tensor([[1, 1, 0]])
    assert torch.allclose(pool(tokens, mask, "mean"), torch.tensor([[2.0, 3.0]]))
    assert torch.allclose(pool(tokens, mask, "max"), torch.tensor([[3.0, 4.0]]))
    assert torch.allclose(pool(tokens, mask, "cls"), torch.tensor([[1.0, 2.0]]))
    with pytest.raises(ValueError, match="unknown pooling"):
        pool(tokens, mask, "median")


def test_tiny_random_bert_is_deterministic_and_uses_bert_vocab(tiny):
    other = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")
    assert np.array_equal(tiny.encode(["a cat"]), other.encode(["a cat"]))
    seeded = SentenceEncoder.from_pretrained("tiny-random-bert:1", device="cpu")
    assert not np.allclose(tiny.encode(["a cat"]), seeded.encode(["a cat"]))
    assert tiny.tokenizer.convert_tokens_to_ids("[CLS]") == 101  # bert-base-uncased ids
    assert tiny.tokenizer.tokenize("Hello World") == ["hello", "world"]
    assert tiny.info["stand_in"] is True


def test_encode_shapes_and_edge_cases(tiny):
    assert tiny.encode("one sentence").shape == (tiny.dim,)
    assert tiny.encode([]).shape == (0, tiny.dim)
    assert isinstance(tiny.encode(["x"], convert_to="torch"), torch.Tensor)
    empty = tiny.encode([""])  # encoded as [CLS] [SEP]: a real vector, not NaN
    assert np.isfinite(empty).all()
    with pytest.raises(TypeError, match="item 1 is NoneType"):
        tiny.encode(["fine", None])
    with pytest.raises(TypeError, match="item 0 is int"):
        tiny.encode([3])
    with pytest.raises(ValueError, match="batch_size"):
        tiny.encode(["x"], batch_size=0)


def test_long_texts_are_truncated_with_one_warning(tiny):
    long = "word " * (tiny.max_seq_length * 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = tiny.encode([long, long, "short"])
    msgs = [str(w.message) for w in caught if "max_seq_length" in str(w.message)]
    assert len(msgs) == 1 and "2 of 3 texts" in msgs[0]
    direct = tiny(tiny.tokenize([long]))  # forward() truncates the same way
    assert np.allclose(out[0], direct.detach().numpy()[0], atol=1e-5)


def test_smart_batching_restores_order_and_pads_less(tiny):
    sents = ["short", "a much longer sentence with many more words in it", "mid length one", "x y"]
    on = tiny.encode(sents, batch_size=2, smart_batching=True)
    off = tiny.encode(sents, batch_size=2, smart_batching=False)
    one_by_one = np.stack([tiny.encode(s) for s in sents])
    assert np.allclose(on, one_by_one, atol=1e-5) and np.allclose(off, one_by_one, atol=1e-5)
    widths = [f["input_ids"].shape[1] for _, f in tiny.batches(sents, 2, smart_batching=True)]
    assert widths == sorted(widths, reverse=True)


def test_normalize_and_modes():
    enc = SentenceEncoder.from_pretrained("tiny-random-bert", pooling="max", normalize=True, device="cpu")
    v = enc.encode(["a", "b c"])
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    with pytest.raises(ValueError, match="unknown pooling"):
        SentenceEncoder.from_pretrained("tiny-random-bert", pooling="avg")


def test_encode_restores_training_mode(tiny):
    tiny.train()
    tiny.encode(["x"])
    assert tiny.training
    tiny.eval()


def test_save_load_round_trip(tiny, tmp_path):
    path = tiny.save(tmp_path / "enc", extra={"profile": "smoke"})
    again = SentenceEncoder.from_pretrained(path, device="cpu")
    assert again.pooling == tiny.pooling and again.max_seq_length == tiny.max_seq_length
    assert again.info["backbone"] == tiny.info["backbone"] and again.info["stand_in"]
    assert np.allclose(again.encode(["a test"]), tiny.encode(["a test"]), atol=1e-6)
    # overwriting is atomic: no temp folders are left beside the target
    tiny.save(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["enc"]


def test_save_failure_leaves_previous_model_intact(tiny, tmp_path, monkeypatch):
    path = tiny.save(tmp_path / "enc")
    before = sorted(p.name for p in path.iterdir())

    def boom(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr(tiny.tokenizer, "save_pretrained", boom)
    with pytest.raises(OSError, match="disk full"):
        tiny.save(path)
    assert sorted(p.name for p in path.iterdir()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["enc"]


def test_offline_hub_name_fails_fast_with_local_list(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    backbones.config.hub_reachable.cache_clear()
    start = time.perf_counter()
    with pytest.raises(backbones.BackboneNotAvailable) as err:
        SentenceEncoder.from_pretrained("someone/not-a-cached-model")
    assert time.perf_counter() - start < 10
    msg = str(err.value)
    assert "not in the local Hugging Face cache" in msg and "tiny-random-bert" in msg and "minilm" in msg


def test_bad_local_folder(tmp_path):
    with pytest.raises(backbones.BackboneNotAvailable, match="no config.json"):
        backbones.load_backbone(tmp_path)


def test_minilm_packaged_settings():
    enc = SentenceEncoder.from_pretrained("minilm", device="cpu")
    assert enc.normalize and enc.pooling == "mean" and enc.max_seq_length == 256 and enc.dim == 384
    assert "stand-in" in repr(enc)


def test_tokenizer_from_a_vocab_file_equals_the_packaged_one(monkeypatch, tmp_path):
    """A GPU box without the MiniLM package gets the same tokenizer from vocab.txt alone."""
    import shutil
    packaged = backbones.bert_uncased_tokenizer()
    shutil.copy(backbones.minilm_path() / "vocab.txt", tmp_path / "vocab.txt")
    monkeypatch.setenv(backbones.VOCAB_ENV, str(tmp_path / "vocab.txt"))
    from_file = backbones.bert_uncased_tokenizer()
    text = ["Héllo, WORLD! Unaffable tokenizers split 3.14 words.", "A man is playing a guitar."]
    assert from_file(text)["input_ids"] == packaged(text)["input_ids"]
    monkeypatch.setenv(backbones.VOCAB_ENV, str(tmp_path / "missing.txt"))
    with pytest.raises(backbones.BackboneNotAvailable, match="no such file"):
        backbones.bert_uncased_tokenizer()


# ----------------------------------------------------------------------------- one tokenising path
LEFT_TEXTS = ["x", "a much longer sentence with many more words in it than the first one has",
              "mid length one", ""]


@pytest.mark.parametrize("pooling", ["mean", "cls"])
def test_training_and_encode_see_the_same_batch_with_a_left_padding_tokenizer(pooling):
    """forward(tokenize(s)) is what training sees, encode(s) what inference gives: with a tokenizer that
    pads on the left they used to differ (tokenize padded left, encode right) by up to 1.8 (1.82 mean,
    1.69 CLS pooling, tiny-random-bert)."""
    enc = SentenceEncoder.from_pretrained("tiny-random-bert", pooling=pooling, device="cpu")
    enc.tokenizer.padding_side = "left"
    with torch.no_grad():
        trained_on = enc(enc.tokenize(LEFT_TEXTS)).numpy()
    encoded = enc.encode(LEFT_TEXTS, batch_size=len(LEFT_TEXTS))
    alone = np.stack([enc.encode(t) for t in LEFT_TEXTS])  # a text's vector does not depend on its batch
    assert np.abs(trained_on - encoded).max() < 1e-5
    assert np.abs(encoded - alone).max() < 1e-5


# ----------------------------------------------------------------------------- pooling, loading, encode (from issue 10's review)
def test_max_pooling_of_all_negative_values_ignores_padding():
    """``(x * mask).max()`` would return 0 from the padding here instead of the real maximum."""
    tokens = -torch.arange(1.0, 13.0).reshape(1, 4, 3)  # every value negative
    mask = torch.tensor([[1, 1, 0, 0]])
    assert torch.equal(pool(tokens, mask, "max"), torch.tensor([[-1.0, -2.0, -3.0]]))
    tokens2 = torch.cat([tokens, -tokens - 100])  # and a second row with real and padded rows
    mask2 = torch.tensor([[1, 1, 0, 0], [1, 0, 0, 0]])
    assert torch.equal(pool(tokens2, mask2, "max")[1], torch.tensor([-99.0, -98.0, -97.0]))


def test_from_pretrained_of_a_saved_folder_honours_max_seq_length(tmp_path):
    folder = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu", max_seq_length=32).save(tmp_path / "enc")
    assert SentenceEncoder.from_pretrained(folder, device="cpu").max_seq_length == 32
    assert SentenceEncoder.from_pretrained(folder, max_seq_length=7, device="cpu").max_seq_length == 7
    assert SentenceEncoder.load(folder, max_seq_length=9, device="cpu").max_seq_length == 9


def test_every_name_of_minilm_normalises_like_minilm():
    ref = SentenceEncoder.from_pretrained("minilm", device="cpu")
    probe = ["A man plays a guitar.", "The market fell."]
    for name in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        enc = SentenceEncoder.from_pretrained(name, device="cpu")
        assert enc.normalize and enc.pooling == "mean"
        assert np.allclose(enc.encode(probe), ref.encode(probe), atol=1e-6)
        assert np.allclose(np.linalg.norm(enc.encode(probe), axis=1), 1.0, atol=1e-5)


def test_max_tokens_needs_smart_batching():
    enc = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu", max_seq_length=32)
    with pytest.raises(ValueError, match="smart_batching=True"):
        enc.encode(["a", "b c"], max_tokens=64, smart_batching=False)
    assert enc.encode(["a", "b c"], max_tokens=64).shape == (2, enc.dim)


def test_encode_leaves_the_transformers_loggers_as_it_found_them():
    import logging
    logger = logging.getLogger("transformers.tokenization_utils_base")
    before = logger.level
    logger.setLevel(logging.INFO)
    try:
        SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu", max_seq_length=32).encode(["a sentence " * 40])
        assert logger.level == logging.INFO
    finally:
        logger.setLevel(before)
