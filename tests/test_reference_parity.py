"""Proof of correctness: our encoder and evaluator agree with sentence-transformers.

sentence-transformers is a test dependency only; sbertlib never imports it.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

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
    """Every 4th distinct sentence of STSb test (about 690: every length and genre, a quarter of the time); the
    integration tier compares the Spearman of every pair (``test_same_spearman_as_embedding_similarity_evaluator``)."""
    pairs = data.load_stsb("test", shared_data)
    return list(dict.fromkeys(s for p in pairs for s in (p.sentence1, p.sentence2)))[::4]


@pytest.fixture(scope="module")
def reference_embeddings(reference, stsb_test_sentences):
    return reference.encode(stsb_test_sentences, batch_size=64)


@pytest.mark.parametrize("smart", [True, False])
def test_same_embeddings_as_sentence_transformers(ours, reference_embeddings, stsb_test_sentences, smart):
    mine = ours.encode(stsb_test_sentences, batch_size=64, smart_batching=smart)
    theirs = reference_embeddings
    assert mine.shape == theirs.shape == (len(stsb_test_sentences), 384)
    assert np.abs(mine - theirs).max() <= 1e-5


# test in the default run; dev (the same comparison on another split, ~30 s) with -m slow
@pytest.mark.parametrize("split", [pytest.param("dev", marks=pytest.mark.slow), pytest.param("test", marks=pytest.mark.integration)])
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


@pytest.mark.parametrize("pooling, normalize", [("mean", False), ("mean", True), ("max", False), ("cls", True)])
def test_saved_for_sentence_transformers_loads_there_with_the_same_embeddings(tmp_path, pooling, normalize):
    """save(format="sentence-transformers") → SentenceTransformer(folder) and from_pretrained(folder) agree."""
    import shutil
    texts = ["A man is playing a guitar.", "Two dogs run.", "a", "The stock market fell sharply today after the news."]
    enc = SentenceEncoder.from_pretrained("tiny-random-bert", pooling=pooling, normalize=normalize, device="cpu",
                                          max_seq_length=32)
    with torch.no_grad():  # a "trained" model: weights no longer the seeded start
        enc.backbone.encoder.layer[0].output.dense.weight.mul_(1.5)
    ours = enc.encode(texts)
    folder = enc.save(tmp_path / "model", format="sentence-transformers")
    theirs = st.SentenceTransformer(str(folder), device="cpu").encode(texts, convert_to_numpy=True)
    np.testing.assert_allclose(theirs, ours, atol=1e-5)
    (folder / "sbertlib.json").unlink()  # read it as any sentence-transformers folder: settings from its config
    back = SentenceEncoder.from_pretrained(folder, device="cpu")
    assert (back.pooling, back.normalize, back.max_seq_length) == (pooling, normalize, 32)
    np.testing.assert_allclose(back.encode(texts), ours, atol=1e-6)
    with pytest.raises(ValueError, match="format must be"):
        enc.save(tmp_path / "other", format="onnx")
    shutil.rmtree(folder)


def test_a_folder_saved_by_the_installed_sentence_transformers_loads_with_the_same_embeddings(reference, tmp_path):
    """Today's sentence-transformers writes ``{"pooling_mode": "mean", "include_prompt": true}``; it was
    refused ("pooling ['include_prompt'] is not one of mean, max or cls alone")."""
    import json
    reference.save(str(tmp_path / "st"))
    cfg = json.loads((tmp_path / "st" / "1_Pooling" / "config.json").read_text())
    sentences = ["A man is playing a guitar.", "Two dogs run through the snow.", "Nothing here."]
    loaded = SentenceEncoder.from_pretrained(tmp_path / "st")
    assert loaded.pooling == "mean"
    ours = np.asarray(loaded.encode(sentences, precision="fp32"))
    theirs = reference.encode(sentences, convert_to_numpy=True)
    assert np.abs(ours - theirs).max() < 1e-5, cfg
    for bad in ({"pooling_mode": "lasttoken"}, {"pooling_mode_mean_sqrt_len_tokens": True}):
        (tmp_path / "st" / "1_Pooling" / "config.json").write_text(json.dumps({"embedding_dimension": 384, **bad}))
        with pytest.raises(backbones.BackboneNotAvailable, match="is not one of mean, max or cls alone"):
            SentenceEncoder.from_pretrained(tmp_path / "st")


@pytest.mark.parametrize("normalize", [False, True])
def test_a_projected_encoder_saves_and_loads_in_both_libraries(tmp_path, normalize):
    """An encoder with a projection (a distilled student's Dense layer, identity activation) saves in
    sentence-transformers' format — Transformer, Pooling, Dense, [Normalize] — and gives the same vectors
    there, back here from its sbertlib settings, and here as a plain sentence-transformers folder."""
    texts = ["A man is playing a guitar.", "Two dogs run.", "The stock market fell sharply today after the news."]
    base = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu", max_seq_length=32)
    torch.manual_seed(0)
    enc = SentenceEncoder(base.backbone, base.tokenizer, normalize=normalize, max_seq_length=32, name="tiny",
                          device="cpu", projection=torch.nn.Linear(base.dim, 24))
    assert enc.dim == 24 and enc.encode(texts).shape == (3, 24)
    ours = enc.encode(texts)
    folder = enc.save(tmp_path / "model", format="sentence-transformers")
    model = st.SentenceTransformer(str(folder), device="cpu")
    assert [type(m).__name__ for m in model] == ["Transformer", "Pooling", "Dense"] + (["Normalize"] if normalize else [])
    np.testing.assert_allclose(model.encode(texts, convert_to_numpy=True), ours, atol=1e-5)
    np.testing.assert_allclose(SentenceEncoder.load(folder).encode(texts), ours, atol=1e-6)
    (folder / "sbertlib.json").unlink()
    back = SentenceEncoder.from_pretrained(folder, device="cpu")
    assert (back.dim, back.normalize) == (24, normalize)
    np.testing.assert_allclose(back.encode(texts), ours, atol=1e-6)


def test_a_dense_layer_saved_by_sentence_transformers_loads_and_a_nonlinear_one_is_refused(reference, tmp_path):
    """Their Dense with an identity activation is a linear map we apply; with Tanh (their default) it is
    refused by name."""
    from sentence_transformers import models as stm
    sentences = ["A man is playing a guitar.", "Two dogs run through the snow."]
    for act, name in ((torch.nn.Identity(), "identity"), (torch.nn.Tanh(), "tanh")):
        torch.manual_seed(1)
        model = st.SentenceTransformer(modules=[reference[0], reference[1],
                                                stm.Dense(384, 32, activation_function=act)], device="cpu")
        model.save(str(tmp_path / name))
        if name == "identity":
            loaded = SentenceEncoder.from_pretrained(tmp_path / name, device="cpu")
            ours = loaded.encode(sentences, precision="fp32")
            np.testing.assert_allclose(ours, model.encode(sentences, convert_to_numpy=True), atol=1e-5)
        else:
            with pytest.raises(backbones.BackboneNotAvailable, match="Dense module's activation is .*Tanh"):
                SentenceEncoder.from_pretrained(tmp_path / name, device="cpu")
