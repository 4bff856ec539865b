"""CrossEncoder: joint input, predictions equal to sentence-transformers' on the same weights (both
ways round), training through the one loop (fit + CrossEncoderLoss), save/load, bad inputs. Its STS
evaluator (sbertlib.evaluation.cross_encoder) is tested in tests/test_evaluation.py."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from sbertlib import losses
from sbertlib.data import STSPair
from sbertlib.model.cross_encoder import CrossEncoder, check_pairs
from sbertlib.training import collate, fit, prepare_examples

PAIRS = [("A man plays a guitar.", "A man plays music."),
         ("A dog runs in the park.", "A cat sleeps on a very soft and warm blanket by the fire."),
         ("Kids run in a park.", "Children play outside."),
         ("A chef cooks pasta.", "The stock market fell."),
         ("Two women talk.", "Two ladies are chatting."),
         ("", "An empty first sentence.")]
TRAIN = [STSPair(a, b, s) for (a, b), s in zip(PAIRS, (4.2, 0.4, 3.8, 0.0, 4.6, 1.0))]


@pytest.fixture(scope="module")
def ce() -> CrossEncoder:
    return CrossEncoder.from_pretrained("tiny-random-bert", max_seq_length=24, seed=3)


def test_joint_input_is_cls_a_sep_b_sep_with_segment_ids(ce):
    feats = ce.tokenize_pairs([("a man", "a dog")])
    tokens = ce.tokenizer.convert_ids_to_tokens(feats["input_ids"][0].tolist())
    assert tokens == ["[CLS]", "a", "man", "[SEP]", "a", "dog", "[SEP]"]
    assert feats["token_type_ids"][0].tolist() == [0, 0, 0, 0, 1, 1, 1]
    long = ce.tokenize_pairs([(" ".join(["word"] * 40), "short one")])
    assert long["input_ids"].shape[1] == 24  # cut to max_seq_length, the longer text first


def test_predict_gives_sigmoid_scores_in_input_order(ce):
    scores = ce.predict(PAIRS, batch_size=2)
    assert scores.shape == (len(PAIRS),) and scores.dtype == np.float32
    assert ((scores > 0) & (scores < 1)).all()
    logits = ce.predict(PAIRS, activation=False)
    np.testing.assert_allclose(scores, 1 / (1 + np.exp(-logits)), atol=1e-6)
    one_by_one = np.array([ce.predict(p) for p in PAIRS])  # a single pair gives a float
    np.testing.assert_allclose(scores, one_by_one, atol=1e-6)
    assert isinstance(ce.predict(PAIRS[0]), float)
    assert ce.predict([]).shape == (0,)
    assert isinstance(ce.predict(PAIRS, convert_to="torch"), torch.Tensor)


def test_same_weights_same_predictions_as_sentence_transformers(ce, tmp_path):
    st = pytest.importorskip("sentence_transformers")
    ce.save(tmp_path / "ours")
    theirs = st.CrossEncoder(str(tmp_path / "ours"), device="cpu")
    np.testing.assert_allclose(theirs.predict(PAIRS, batch_size=4), ce.predict(PAIRS), atol=1e-5)


def test_a_sentence_transformers_cross_encoder_loads_with_the_same_predictions(ce, tmp_path):
    """The other way round: a folder written by sentence-transformers (its own layout) opens here."""
    st = pytest.importorskip("sentence_transformers")
    ce.save(tmp_path / "ours")
    theirs = st.CrossEncoder(str(tmp_path / "ours"), device="cpu")
    theirs.save(str(tmp_path / "theirs"))
    back = CrossEncoder.from_pretrained(tmp_path / "theirs")
    assert back.max_seq_length == ce.max_seq_length
    np.testing.assert_allclose(back.predict(PAIRS), theirs.predict(PAIRS), atol=1e-5)


def test_fit_trains_it_with_joint_batches_and_the_loss_matches_bce_by_hand(tmp_path):
    model = CrossEncoder.from_pretrained("tiny-random-bert", max_seq_length=24, seed=0)
    loss = losses.CrossEncoderLoss(model)
    batch = collate(prepare_examples(TRAIN[:4], loss), model)
    assert len(batch.features) == 1  # one jointly tokenised column
    gold = torch.tensor([p.label for p in TRAIN[:4]])
    with torch.no_grad():
        p = torch.sigmoid(model(batch.features[0]))
        by_hand = -(gold * torch.log(p) + (1 - gold) * torch.log(1 - p)).mean()
        assert float(loss(batch)) == pytest.approx(float(by_hand), abs=1e-5)
    before = model.predict(PAIRS)
    history = fit(model, loss, TRAIN, batch_size=3, epochs=4, lr=1e-3, show_progress_bar=False,
                  output_dir=tmp_path / "run")
    assert len(history.records) == 8 and all(math.isfinite(r["loss"]) for r in history.records)
    assert not np.allclose(before, model.predict(PAIRS))
    again = CrossEncoder.load(tmp_path / "run" / "final")
    np.testing.assert_allclose(again.predict(PAIRS), model.predict(PAIRS), atol=1e-6)


def test_training_is_reproducible_from_the_seed():
    def run():
        model = CrossEncoder.from_pretrained("tiny-random-bert", max_seq_length=24, seed=0)
        return fit(model, losses.CrossEncoderLoss(model, "mse"), TRAIN, batch_size=3, lr=1e-3,
                   show_progress_bar=False).losses
    assert run() == run()


@pytest.mark.parametrize("bad, error", [
    ("one string", TypeError), ([("a", "b", "c")], ValueError), ([("a",)], ValueError),
    ([("a", 3)], TypeError), ([None], TypeError), (["ab"], TypeError)])
def test_bad_pairs_are_rejected_naming_the_item(ce, bad, error):
    with pytest.raises(error, match="item 0|one string"):
        ce.predict(bad)
    with pytest.raises(error):
        check_pairs(bad)


def test_bad_settings_and_models_are_rejected(ce, tmp_path):
    with pytest.raises(ValueError, match="batch_size"):
        ce.predict(PAIRS, batch_size=0)
    with pytest.raises(ValueError, match="convert_to"):
        ce.predict(PAIRS, convert_to="list")
    with pytest.raises(ValueError, match="objective"):
        losses.CrossEncoderLoss(ce, "hinge")
    from sbertlib.model import SentenceEncoder
    with pytest.raises(TypeError, match="CosineSimilarityLoss"):
        losses.CrossEncoderLoss(SentenceEncoder.from_pretrained("tiny-random-bert"))
    with pytest.raises(FileNotFoundError):
        CrossEncoder.load(tmp_path)
    loss = losses.CrossEncoderLoss(ce)
    with pytest.raises(ValueError, match="0–1"):
        loss.loss_from_logits(torch.zeros(2), torch.tensor([0.5, 4.0]))
    with pytest.raises(ValueError, match="-1, 1|outside"):
        fit(ce, loss, [("a", "b", 4.0)], batch_size=1, show_progress_bar=False)


def test_workbook_trains_once_then_loads(shared_data, tmp_path, monkeypatch):
    """cross_runs.trained_cross_encoder: the smoke profile's STSb pairs and settings, saved under the
    output folder, loaded (same predictions, same history) on the next call."""
    from sbertlib.workbook import cross_runs, runs
    from sbertlib.workbook.profiles import get_profile
    monkeypatch.setenv("SBERTLIB_OUTPUT_DIR", str(tmp_path))
    monkeypatch.setenv("SBERTLIB_DATA_DIR", str(shared_data))
    profile = get_profile("smoke")
    model, history = cross_runs.trained_cross_encoder(profile)
    steps = math.ceil(profile.stsb_train_pairs / profile.stsb.batch_size) * profile.stsb.epochs   # 64 / 8, 1 epoch
    assert history.loss == "CrossEncoderLoss" and len(history.records) == steps == 8
    assert model.max_seq_length == 2 * profile.max_seq_length
    assert cross_runs.cross_encoder_dir(profile).is_relative_to(tmp_path)
    again, history2 = cross_runs.trained_cross_encoder(profile)
    np.testing.assert_allclose(again.predict(PAIRS), model.predict(PAIRS), atol=1e-6)
    assert history2.losses == history.losses
    assert len(profile.stage("stsb").examples()) == profile.stsb_train_pairs == 64


def test_a_label_outside_0_1_is_refused_before_the_first_step(ce):
    """The up-front check accepted [-1, 1] (a cosine's range); the loss needs [0, 1]."""
    loss = losses.CrossEncoderLoss(ce)
    with pytest.raises(ValueError, match=r"item 1: gold score -0.5 is outside \[0, 1\], the range CrossEncoderLoss"):
        prepare_examples([STSPair(*PAIRS[0], 2.5, 0.0, 5.0), (*PAIRS[1], -0.5)], loss)


def test_gold_scores_stay_fp32_under_bf16_logits(ce):
    """bf16 has 8 bits of mantissa: 0.123456 would become 0.123535 if the targets followed the logits."""
    loss = losses.CrossEncoderLoss(ce, objective="mse")
    logits = torch.zeros(2, dtype=torch.bfloat16)
    gold = torch.tensor([0.123456, 0.987654])
    want = torch.mean((0.5 - gold) ** 2)
    got = loss.loss_from_logits(logits, gold)
    assert got.dtype == torch.float32 and float(got) == pytest.approx(float(want), abs=1e-7)


def test_its_loss_is_not_a_siamese_loss():
    """CrossEncoderLoss is a TrainingLoss (what fit needs) but no SBERTLoss: no loss_from_embeddings."""
    model = CrossEncoder.from_pretrained("tiny-random-bert", max_seq_length=24, seed=0)
    loss = losses.CrossEncoderLoss(model)
    assert isinstance(loss, losses.TrainingLoss) and not isinstance(loss, losses.SBERTLoss)
    assert not hasattr(loss, "loss_from_embeddings")
    assert loss.n_texts == (2,) and loss.score_range == (0.0, 1.0) and loss.head_state() == {} and not loss.has_head()


def test_training_and_predict_see_the_same_batch_with_a_left_padding_tokenizer():
    """One tokenising path: with a tokenizer that pads on the left, a pair's score depended on the
    batch it was predicted in (by 0.005 here): pads go on the right now, the score is the pair's own."""
    model = CrossEncoder.from_pretrained("tiny-random-bert", max_seq_length=24, seed=3)
    model.tokenizer.padding_side = "left"
    with torch.no_grad():
        trained_on = model(model.tokenize_pairs(PAIRS)).numpy()
    predicted = model.predict(PAIRS, activation=False, batch_size=len(PAIRS))
    alone = np.array([model.predict(p, activation=False) for p in PAIRS])
    np.testing.assert_allclose(trained_on, predicted, atol=1e-5)
    np.testing.assert_allclose(predicted, alone, atol=1e-5)


def test_pairs_are_cut_as_the_tokenizer_cuts_them_with_longest_first(ce):
    """Our ids equal the tokenizer's own joint encoding with truncation="longest_first"."""
    pairs = PAIRS + [(" ".join(["word"] * 40), "short one"), ("tiny", " ".join(["long"] * 30))]
    want = ce.tokenizer([a for a, _ in pairs], [b for _, b in pairs], truncation="longest_first", max_length=24)
    rows = ce.pair_ids(pairs)
    assert [r["input_ids"] for r in rows] == want["input_ids"]
    assert [r["token_type_ids"] for r in rows] == want["token_type_ids"]


def test_from_encoder_is_the_encoders_network_as_a_cross_encoder():
    from sbertlib.model import SentenceEncoder
    enc = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu", max_seq_length=20)
    cross = CrossEncoder.from_encoder(enc, seed=1)
    assert cross.max_seq_length == 40 and cross.device == enc.device and cross.tokenizer is not enc.tokenizer
    body = getattr(cross.model, cross.model.base_model_prefix)
    for name, weight in enc.backbone.state_dict().items():
        assert torch.equal(body.state_dict()[name], weight), name
    assert cross.predict(PAIRS).shape == (len(PAIRS),)
