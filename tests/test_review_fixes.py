"""Issue 10's review: one test per bug found, each failing on the code before its fix, and tests
that can now fail where the old ones would have passed with the feature broken."""
from __future__ import annotations

import gzip
import logging

import numpy as np
import pytest
import torch

from sbertlib import data, evaluation
from sbertlib.data import DataFormatError, STSPair, Triplet
from sbertlib.losses import Batch, SoftmaxLoss, TripletLoss
from sbertlib.model.encoder import SentenceEncoder
from sbertlib.model.pooling import pool
from sbertlib.training import fit, linear_warmup, make_optimizer, train_step

TRIPLETS = [Triplet(f"a man plays guitar number {i}", f"someone plays music {i}", f"the market fell {i} points")
            for i in range(8)]


def tiny(seed: int = 0, **kw) -> SentenceEncoder:
    return SentenceEncoder.from_pretrained(f"tiny-random-bert:{seed}", device="cpu", max_seq_length=32, **kw)


# ----------------------------------------------------------------------------- 4. bugs
def test_fp16_scheduler_does_not_step_when_the_grad_scaler_skips_the_update():
    """The GradScaler skips ``optimizer.step()`` on inf gradients; the schedule must not advance."""
    enc = tiny()
    loss = TripletLoss(enc)
    optimizer = make_optimizer(loss, lr=1e-3)
    scheduler = linear_warmup(optimizer, 0, 10)  # no warm-up: the first real step moves the weights
    batch = Batch([enc.tokenize(list(col)) for col in zip(*[(t.anchor, t.positive, t.negative) for t in TRIPLETS])])
    before = {k: v.clone() for k, v in enc.state_dict().items()}
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16)  # the fp16 path, on the CPU
    weight = enc.backbone.embeddings.word_embeddings.weight
    overflow = weight.register_hook(lambda g: g * float("inf"))  # what an fp16 overflow leaves behind
    train_step(loss, batch, optimizer, scheduler, scaler, None, 1.0, step=1)
    overflow.remove()
    assert scaler.get_scale() < 2.0 ** 16  # the scaler saw the overflow and skipped the step
    assert all(torch.equal(v, enc.state_dict()[k]) for k, v in before.items())
    assert scheduler.last_epoch == 0, "the learning-rate schedule advanced although no update was made"
    train_step(loss, batch, optimizer, scheduler, scaler, None, 1.0, step=2)
    assert scheduler.last_epoch == 1  # a real update advances it
    assert not torch.equal(before["backbone.encoder.layer.0.output.dense.weight"],
                           enc.state_dict()["backbone.encoder.layer.0.output.dense.weight"])


def test_trained_model_is_reproducible_and_keeps_its_head(shared_data, tmp_path, monkeypatch):
    from sbertlib.workbook import runs
    from sbertlib.workbook.profiles import PROFILES
    monkeypatch.setenv(runs.OUTPUT_DIR_ENV, str(tmp_path))
    profile = PROFILES["smoke"]
    weights = []
    for disturb in (1, 2):  # whatever ran before must not change the result
        torch.manual_seed(disturb)
        model, _ = runs.trained_model(profile, "nli", seed=42, retrain=True, data_dir=shared_data,
                                      show_progress_bar=False)
        final = runs.model_dir(profile, "nli") / "final"
        head = torch.load(final / "classifier.pt", weights_only=True)["state_dict"]
        weights.append((model.state_dict(), head))
    (w1, h1), (w2, h2) = weights
    assert all(torch.equal(w1[k], w2[k]) for k in w1) and all(torch.equal(h1[k], h2[k]) for k in h1)


def test_from_pretrained_of_a_saved_folder_honours_max_seq_length(tmp_path):
    folder = tiny().save(tmp_path / "enc")
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


def test_invalid_utf8_names_file_and_line(tmp_path):
    folder = tmp_path / "snli"
    folder.mkdir()
    (folder / "s1.dev").write_bytes(b"A man sleeps.\nA bad \xff byte.\n")
    (folder / "s2.dev").write_text("Someone sleeps.\nA byte.\n")
    (folder / "labels.dev").write_text("entailment\nneutral\n")
    with pytest.raises(DataFormatError, match=r"s1\.dev, line 2: not valid utf-8"):
        data.load_snli("dev", tmp_path)


def test_truncated_gz_names_file_and_line(tmp_path):
    rows = "split\tsentence1\tsentence2\tlabel\n" + "train\tA man sleeps.\tSomeone sleeps.\tentailment\n" * 2000
    whole = gzip.compress(rows.encode())
    (tmp_path / "AllNLI.tsv.gz").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DataFormatError, match=r"AllNLI\.tsv\.gz, line \d+: .*truncated or corrupt"):
        data.load_allnli("train", tmp_path)


@pytest.mark.parametrize("other", [dict(margin=5.0), dict(distance="cosine")])
def test_resume_refuses_a_loss_with_other_hyper_parameters(tmp_path, other):
    enc = tiny()
    fit(enc, TripletLoss(enc), TRIPLETS, batch_size=4, max_steps=1, output_dir=tmp_path, checkpoint_steps=1,
        show_progress_bar=False)
    enc2 = tiny()
    with pytest.raises(ValueError, match="loss_settings"):
        fit(enc2, TripletLoss(enc2, **other), TRIPLETS, batch_size=4, max_steps=2, output_dir=tmp_path,
            resume=True, show_progress_bar=False)


def test_resume_refuses_another_concatenation_or_backbone(tmp_path):
    pairs = [(t.anchor, t.positive, i % 3) for i, t in enumerate(TRIPLETS)]
    enc = tiny()
    fit(enc, SoftmaxLoss(enc), pairs, batch_size=4, max_steps=1, output_dir=tmp_path, checkpoint_steps=1,
        show_progress_bar=False)
    enc2 = tiny()
    with pytest.raises(ValueError, match="concat"):
        fit(enc2, SoftmaxLoss(enc2, concat=("u", "v")), pairs, batch_size=4, max_steps=2, output_dir=tmp_path,
            resume=True, show_progress_bar=False)
    wider = SentenceEncoder.from_pretrained("minilm", device="cpu", max_seq_length=32)
    with pytest.raises(ValueError, match="weight_shapes"):
        fit(wider, SoftmaxLoss(wider), pairs, batch_size=4, max_steps=2, output_dir=tmp_path, resume=True,
            show_progress_bar=False)


def test_max_tokens_needs_smart_batching():
    enc = tiny()
    with pytest.raises(ValueError, match="smart_batching=True"):
        enc.encode(["a", "b c"], max_tokens=64, smart_batching=False)
    assert enc.encode(["a", "b c"], max_tokens=64).shape == (2, enc.dim)


def test_encode_leaves_the_transformers_loggers_as_it_found_them():
    logger = logging.getLogger("transformers.tokenization_utils_base")
    logger.setLevel(logging.INFO)
    tiny().encode(["a sentence " * 40])
    assert logger.level == logging.INFO


# ----------------------------------------------------------------------------- 5. tests that can fail
def test_max_pooling_of_all_negative_values_ignores_padding():
    """``(x * mask).max()`` would return 0 from the padding here instead of the real maximum."""
    tokens = -torch.arange(1.0, 13.0).reshape(1, 4, 3)  # every value negative
    mask = torch.tensor([[1, 1, 0, 0]])
    assert torch.equal(pool(tokens, mask, "max"), torch.tensor([[-1.0, -2.0, -3.0]]))
    tokens2 = torch.cat([tokens, -tokens - 100])  # and a second row with real and padded rows
    mask2 = torch.tensor([[1, 1, 0, 0], [1, 0, 0, 0]])
    assert torch.equal(pool(tokens2, mask2, "max")[1], torch.tensor([-99.0, -98.0, -97.0]))


def test_training_time_evaluator_is_the_one_sts_evaluation(shared_data):
    pairs = data.load_stsb("dev", shared_data)
    enc = tiny(3)
    evaluator = evaluation.STSEvaluator(pairs, max_pairs=300)
    sample = evaluation.sample_pairs(pairs, 300)
    assert evaluator(enc) == evaluation.evaluate_sts(enc, sample, ("cosine",)).main
    gold = [p.score for p in sample]  # and it is Spearman x100 of cosine, computed here by hand
    from scipy.stats import spearmanr
    emb = enc.encode([p.sentence1 for p in sample] + [p.sentence2 for p in sample])
    a, b = emb[:300], emb[300:]
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert evaluator(enc) == pytest.approx(100 * spearmanr(cos, gold)[0], abs=1e-3)


def test_one_table_of_measures_serves_search_evaluation_and_losses():
    from sbertlib.model.similarity import MEASURES, pairwise, similarity_matrix
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(5, 4, generator=g), torch.randn(5, 4, generator=g)
    for name, m in MEASURES.items():
        assert torch.allclose(pairwise(a, b, name), torch.diag(similarity_matrix(a, b, name)), atol=1e-5)
        assert torch.allclose(m.distance(a, b), -m.pairwise(a, b) + (1 if name == "cosine" else 0), atol=1e-6)
    loss = TripletLoss(torch.nn.Linear(1, 1), distance="euclidean", margin=1.0)  # loss on given vectors
    want = torch.relu((a - b).norm(dim=1) - (a - 2 * b).norm(dim=1) + 1).mean()
    assert torch.allclose(loss.loss_from_embeddings([a, b, 2 * b]), want)


def test_pair_features_one_implementation_for_torch_and_numpy():
    from sbertlib.losses import pair_features
    u, v = torch.tensor([[1.0, -2.0]]), torch.tensor([[3.0, 1.0]])
    want = torch.tensor([[1.0, -2.0, 3.0, 1.0, 2.0, 3.0, 3.0, -2.0]])
    assert torch.equal(pair_features(u, v, ("u", "v", "|u-v|", "u*v")), want)
    assert np.array_equal(pair_features(u.numpy(), v.numpy(), ("u", "v", "|u-v|", "u*v")), want.numpy())
    with pytest.raises(ValueError, match="distinct parts"):
        pair_features(u, v, ("u", "u"))


def test_stspair_label_range_reaches_the_regression_loss():
    """STSb's 0–5 gold is scaled to 0–1 before the regression objective sees it."""
    assert STSPair("a", "b", 5.0).label == 1.0 and STSPair("a", "b", 1.0, 1.0, 5.0).label == 0.0
