"""Proof of correctness: our encoder and evaluator agree with sentence-transformers.

sentence-transformers is a test dependency only; sbertlib never imports it.
"""
from __future__ import annotations

import numpy as np
import pytest

st = pytest.importorskip("sentence_transformers")

from sbertlib import data, evaluation  # noqa: E402
from sbertlib.model import backbones
from sbertlib.model.encoder import SentenceEncoder  # noqa: E402

# MTEB leaderboard, all-MiniLM-L6-v2, cosine Spearman x100, all pairs of a year pooled.
MTEB_MINILM = {"sts12": 72.37, "sts13": 80.60, "sts14": 75.59, "sts15": 85.39, "sts16": 78.99,
               "stsb-test": 82.03}


@pytest.fixture(scope="module")
def ours():
    return SentenceEncoder.from_pretrained("minilm", device="cpu")


@pytest.fixture(scope="module")
def reference():
    return st.SentenceTransformer(str(backbones.minilm_path()), device="cpu")


@pytest.fixture(scope="module")
def stsb_test_sentences(shared_data):
    pairs = data.load_stsb("test", shared_data)
    return list(dict.fromkeys(s for p in pairs for s in (p.sentence1, p.sentence2)))


@pytest.fixture(scope="module")
def reference_embeddings(reference, stsb_test_sentences):
    return reference.encode(stsb_test_sentences, batch_size=64)


@pytest.mark.parametrize("smart", [True, False])
def test_same_embeddings_as_sentence_transformers(ours, reference_embeddings, stsb_test_sentences, smart):
    mine = ours.encode(stsb_test_sentences, batch_size=64, smart_batching=smart)
    theirs = reference_embeddings
    assert mine.shape == theirs.shape == (len(stsb_test_sentences), 384)
    assert np.abs(mine - theirs).max() <= 1e-5


@pytest.mark.parametrize("split", ["dev", "test"])
def test_same_spearman_as_embedding_similarity_evaluator(ours, reference, shared_data, split):
    from sentence_transformers.evaluation import EmbeddingSimilarityEvaluator
    pairs = data.load_stsb(split, shared_data)
    ev = EmbeddingSimilarityEvaluator([p.sentence1 for p in pairs], [p.sentence2 for p in pairs],
                                      [p.label for p in pairs], batch_size=64, name="sts",
                                      similarity_fn_names=["cosine"], write_csv=False)
    theirs = 100 * ev(reference)["sts_spearman_cosine"]
    mine = evaluation.evaluate_sts(ours, pairs, ("cosine",)).main
    assert mine == pytest.approx(theirs, abs=1e-4)


@pytest.mark.slow
def test_reproduces_mteb_reference_scores(ours, shared_data):
    for name, published in MTEB_MINILM.items():
        if name.startswith("sts1"):
            ours_score = evaluation.evaluate_sts_year(ours, name, shared_data)["all"]
        else:
            ours_score = evaluation.evaluate_suite(ours, [name], data_dir=shared_data).scores[name]
        assert ours_score == pytest.approx(published, abs=0.02), name


@pytest.mark.parametrize("pooling", ["max", "cls"])
def test_same_embeddings_for_max_and_cls_pooling(stsb_test_sentences, pooling):
    """Parity for every pooling the paper ablates (Table 6), not only mean."""
    from sentence_transformers import models as st_models
    path = str(backbones.minilm_path())
    word = st_models.Transformer(path, max_seq_length=256)
    reference = st.SentenceTransformer(modules=[word, st_models.Pooling(word.get_word_embedding_dimension(),
                                                                         pooling_mode=pooling)], device="cpu")
    sentences = stsb_test_sentences[:300]
    ours = SentenceEncoder.from_pretrained("minilm", pooling=pooling, normalize=False, max_seq_length=256,
                                           device="cpu")
    mine, theirs = ours.encode(sentences, batch_size=32), reference.encode(sentences, batch_size=32)
    assert np.abs(mine - theirs).max() <= 1e-4
    if pooling == "max":  # and it is not mean pooling in disguise
        mean = SentenceEncoder.from_pretrained("minilm", normalize=False, max_seq_length=256, device="cpu")
        assert np.abs(mean.encode(sentences[:20]) - theirs[:20]).max() > 1e-2
