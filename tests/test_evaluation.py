"""STS evaluation: definitions, both STS12-16 conventions, baselines, tables and the CLI."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import spearmanr

from sbertlib.cli import evaluate as cli
from sbertlib import data, evaluation, paper
from sbertlib.model.word_average import AverageWordEmbeddings
from sbertlib.data import STSPair
from sbertlib.model.encoder import SentenceEncoder


class LookupEncoder:
    """Fixed vectors per sentence, to test the evaluator without a model."""
    info = {"backbone": "lookup", "stand_in": False}

    def __init__(self, table):
        self.table = table

    def encode(self, sentences, batch_size=32, **_):
        return np.array([self.table[s] for s in sentences], dtype=np.float32)


def test_evaluate_sts_matches_hand_computation():
    rng = np.random.default_rng(0)
    sents = [f"s{i}" for i in range(20)]
    table = {s: rng.normal(size=8) for s in sents}
    pairs = [STSPair(sents[i], sents[(i * 7 + 3) % 20], float(rng.uniform(0, 5))) for i in range(20)]
    res = evaluation.evaluate_sts(LookupEncoder(table), pairs)
    cos = [np.dot(table[p.sentence1], table[p.sentence2]) /
           (np.linalg.norm(table[p.sentence1]) * np.linalg.norm(table[p.sentence2])) for p in pairs]
    assert res.main == pytest.approx(100 * spearmanr(cos, [p.score for p in pairs])[0], abs=1e-6)
    assert set(res.spearman) == {"cosine", "dot", "manhattan", "euclidean"} and res.n == 20
    with pytest.raises(ValueError, match="at least 2 pairs"):
        evaluation.evaluate_sts(LookupEncoder(table), pairs[:1])


def test_sts_year_reports_pooled_and_weighted_mean(shared_data):
    enc = AverageWordEmbeddings.glove_6b_50d()
    res = evaluation.evaluate_sts_year(enc, 16, shared_data)
    assert res["n"] == 1186 and len(res["subsets"]) == 5
    sizes = {"answer-answer": 254, "headlines": 249, "plagiarism": 230, "postediting": 244,
             "question-question": 209}
    wmean = sum(res["subsets"][k] * n for k, n in sizes.items()) / 1186
    assert res["wmean"] == pytest.approx(wmean)
    assert res["all"] != pytest.approx(res["wmean"], abs=1e-3)  # two different conventions


def test_glove_baseline_averages_known_words():
    enc = AverageWordEmbeddings({"cat": 0, "dog": 1}, np.array([[1.0, 0.0], [0.0, 1.0]], np.float32),
                                lowercase=True, name="toy")
    assert np.allclose(enc.encode("The CAT, the dog!"), [0.5, 0.5])
    assert np.allclose(enc.encode("nothing known"), [0.0, 0.0])
    assert enc.encode(["cat", "dog"]).shape == (2, 2)


def test_glove_6b_50d_is_real_glove():
    enc = AverageWordEmbeddings.glove_6b_50d()
    assert len(enc.vocab) == 400_000 and enc.dim == 50
    king, queen, man, woman = enc.encode(["king", "queen", "man", "woman"])
    target = king - man + woman
    cos = lambda a, b: float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
    assert cos(target, queen) > cos(target, man)


def test_results_table_shows_paper_beside_ours():
    table = evaluation.table1({"ours: x [smoke, stand-in]": {"stsb-test": 10.0}},
                                     paper_rows=["SBERT-NLI-base"])
    assert table.loc["paper: SBERT-NLI-base", "stsb-test"] == 77.03
    assert table.loc["ours: x [smoke, stand-in]", "stsb-test"] == 10.0
    assert list(table.columns)[:7] == list(paper.TABLE1_COLUMNS)


def test_label_names_backbone_profile_and_stand_in():
    enc = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")
    label = evaluation.label_for(enc, profile="smoke")
    assert "tiny-random-bert" in label and "smoke" in label and "stand-in" in label and "mean" in label


def test_cli_json(shared_data, capsys):
    code = cli.main(["--model", "tiny-random-bert", "--datasets", "stsb-dev,sts16",
                     "--data-dir", str(shared_data), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and set(out["scores"]) == {"stsb-dev", "sts16"} and out["stand_in"] is True
    enc = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")
    direct = evaluation.evaluate_suite(enc, ["stsb-dev"], data_dir=shared_data).scores["stsb-dev"]
    assert out["scores"]["stsb-dev"] == pytest.approx(direct, abs=1e-3)


def test_cli_table_and_errors(shared_data, capsys, monkeypatch):
    assert cli.main(["--model", "glove", "--datasets", "stsb-test", "--data-dir", str(shared_data)]) == 0
    out = capsys.readouterr().out
    assert "paper: SBERT-NLI-base" in out and "ours: GloVe 6B 50d" in out
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from sbertlib import config
    config.hub_reachable.cache_clear()
    assert cli.main(["--model", "nobody/missing-model", "--datasets", "stsb-test"]) == 2
    assert "not in the local Hugging Face cache" in capsys.readouterr().err
    assert cli.main(["--model", "tiny-random-bert", "--datasets", "nope"]) == 2


# ----------------------------------------------------------------------------- the evaluator fit() calls
def test_training_time_evaluator_is_the_one_sts_evaluation(shared_data):
    enc = SentenceEncoder.from_pretrained("tiny-random-bert:3", device="cpu", max_seq_length=32)
    pairs = data.load_stsb("dev", shared_data)
    evaluator = evaluation.STSEvaluator(pairs, max_pairs=300)
    sample = evaluation.sample_pairs(pairs, 300)
    assert evaluator(enc) == evaluation.evaluate_sts(enc, sample, ("cosine",)).main
    gold = [p.score for p in sample]  # and it is Spearman x100 of cosine, computed here by hand
    emb = enc.encode([p.sentence1 for p in sample] + [p.sentence2 for p in sample])
    a, b = emb[:300], emb[300:]
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert evaluator(enc) == pytest.approx(100 * spearmanr(cos, gold)[0], abs=1e-3)


# ----------------------------------------------------------------------------- the cross-encoder's STS evaluator
def _cross_encoder_sts_evaluator():
    try:  # issue 19 moves it from sbertlib.model.cross_encoder into sbertlib.evaluation
        from sbertlib.evaluation.cross_encoder import CrossEncoderSTSEvaluator
    except ImportError:
        from sbertlib.model.cross_encoder import CrossEncoderSTSEvaluator
    return CrossEncoderSTSEvaluator


class ScoreTable:
    """Stands in for a CrossEncoder: ``predict`` returns a fixed score per (sentence1, sentence2), in
    that order (a pair given the other way round is a KeyError), and records what it was asked."""

    def __init__(self, table):
        self.table, self.asked = table, []

    def predict(self, pairs, batch_size=32, **_):
        pairs = [tuple(p) for p in pairs]
        self.asked.append(pairs)
        return np.array([self.table[p] for p in pairs], dtype=np.float32)


# gold and predictions both with ties, and one runaway prediction: Spearman 43.42, Pearson -8.40,
# ranks with ties broken by position (not averaged) 11.52
CE_GOLD = [2.5, 5.0, 4.0, 2.5, 2.5, 5.0, 2.5, 0.0, 5.0, 1.0]
CE_PRED = [40.0, 0.9, 0.1, 0.9, 0.1, 0.7, 0.2, 0.1, 0.7, 0.1]
CE_PAIRS = [STSPair(f"first {i}", f"second {i}", g) for i, g in enumerate(CE_GOLD)]


def test_cross_encoder_evaluator_is_spearman_of_predictions_with_ties():
    """100 × Spearman (ties averaged) of predict() on (sentence1, sentence2) against the gold scores:
    not Pearson, not ranks without ties averaged, not the label (0–1), not unscaled."""
    from scipy.stats import pearsonr, rankdata
    model = ScoreTable({(p.sentence1, p.sentence2): s for p, s in zip(CE_PAIRS, CE_PRED)})
    score = _cross_encoder_sts_evaluator()(CE_PAIRS)(model)
    want = 100 * spearmanr(CE_PRED, CE_GOLD).statistic
    assert score == pytest.approx(want, abs=1e-9)
    assert model.asked == [[(p.sentence1, p.sentence2) for p in CE_PAIRS]]
    wrong = {"pearson": 100 * pearsonr(CE_PRED, CE_GOLD).statistic,
             "ties not averaged": 100 * pearsonr(rankdata(CE_PRED, "ordinal"), rankdata(CE_GOLD, "ordinal")).statistic,
             "not x100": want / 100, "sign": -want}
    assert all(abs(v - want) > 20 for v in wrong.values()), (want, wrong)  # the data tell them apart


def test_cross_encoder_evaluator_samples_and_agrees_with_the_bi_encoders():
    """Same pairs, same sampling and the same figure as STSEvaluator when the predictions are the cosines."""
    rng = np.random.default_rng(1)
    sents = [f"s{i}" for i in range(40)]
    table = {s: rng.normal(size=6) for s in sents}
    pairs = [STSPair(sents[i], sents[(i * 7 + 3) % 40], float(rng.integers(0, 6))) for i in range(40)]
    cos = {(p.sentence1, p.sentence2): float(table[p.sentence1] @ table[p.sentence2] / np.linalg.norm(
        table[p.sentence1]) / np.linalg.norm(table[p.sentence2])) for p in pairs}
    model = ScoreTable(cos)
    Evaluator = _cross_encoder_sts_evaluator()
    assert Evaluator(pairs)(model) == pytest.approx(evaluation.STSEvaluator(pairs)(LookupEncoder(table)), abs=1e-4)
    sampled = Evaluator(pairs, max_pairs=15)(model)
    sample = evaluation.sample_pairs(pairs, 15)
    assert model.asked[-1] == [(p.sentence1, p.sentence2) for p in sample]
    assert sampled == pytest.approx(evaluation.STSEvaluator(pairs, max_pairs=15)(LookupEncoder(table)), abs=1e-4)


# ----------------------------------------------------------------------------- the speed lab (tests/test_speed.py holds the rest)
SPEED_SENTS = ["short one", "a somewhat longer sentence that goes on for a while longer than the rest",
               "mid sized sentence here", "x", "another fairly long sentence with quite a few words in it",
               "two words", "a cat sleeps on the sofa", "the kitten naps on the couch all afternoon long",
               "stocks fell", "a man is playing a guitar on a stage in front of a small crowd tonight"]


@pytest.fixture(scope="module")
def tiny_encoder():
    return SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")


def fixed_timings(monkeypatch, seconds: dict) -> list:
    """``speed.measure`` runs the work once and reports ``seconds[label]`` as its timed runs."""
    from sbertlib.evaluation import speed
    ran = []

    def measure(label, run, n_sentences, repeats=3, warmup=1, device=None):
        run()
        ran.append((label, n_sentences))
        return speed.Timing(label, n_sentences, list(seconds[label]))
    monkeypatch.setattr(speed, "measure", measure)
    return ran


def test_compare_modes_rows_hold_each_modes_settings_rate_and_padding(tiny_encoder, monkeypatch):
    from sbertlib.evaluation import speed
    enc, sents, bs = tiny_encoder, SPEED_SENTS * 2, 4
    asked = []
    real = enc.encode

    def spy(sentences, batch_size=32, smart_batching=True, max_tokens=None, **kw):
        asked.append((len(sentences), batch_size, smart_batching, max_tokens))
        return real(sentences, batch_size, smart_batching=smart_batching, max_tokens=max_tokens, **kw)
    monkeypatch.setattr(enc, "encode", spy)
    seconds = {"input order": [3.0, 1.0, 2.0], "smart batching": [1.0], "token budget": [0.5, 0.1, 0.25]}
    fixed_timings(monkeypatch, seconds)
    rows = speed.compare_modes(enc, sents, batch_size=bs, repeats=3, warmup=0)

    lengths = [min(len(ids), enc.max_seq_length) for ids in enc.tokenizer(sents)["input_ids"]]
    budget = int(bs * np.mean(lengths) * 1.5)  # the documented default: batch_size × mean tokens × 1.5

    def padding_by_hand(order):
        batches = [[lengths[i] for i in order[s:s + bs]] for s in range(0, len(order), bs)]
        return 1 - sum(map(sum, batches)) / sum(max(b) * len(b) for b in batches)
    in_order = padding_by_hand(list(range(len(sents))))
    by_length = padding_by_hand(sorted(range(len(sents)), key=lambda i: -lengths[i]))
    assert [r["label"] for r in rows] == ["input order", "smart batching", "token budget"]
    assert asked == [(len(sents), bs, False, None), (len(sents), bs, True, None), (len(sents), bs, True, budget)]
    assert [r["max_tokens"] for r in rows] == [None, None, budget] and all(r["batch_size"] == bs for r in rows)
    assert [r["sent_per_s"] for r in rows] == pytest.approx([len(sents) / 2.0, len(sents) / 1.0, len(sents) / 0.25])
    assert rows[0]["padding_share"] == pytest.approx(in_order) and rows[1]["padding_share"] == pytest.approx(by_length)
    assert by_length < in_order  # the sentences are varied enough for sorting to matter
    slots = real_tokens = 0  # the token-budget row: the padding of the batches the budget makes
    for _, feats in enc.batches(sents, bs, True, budget):
        rows_, width = feats["attention_mask"].shape
        assert rows_ * width <= budget or rows_ == 1
        slots, real_tokens = slots + rows_ * width, real_tokens + int(feats["attention_mask"].sum())
    assert rows[2]["padding_share"] == pytest.approx(1 - real_tokens / slots)


def test_cross_vs_bi_extrapolates_the_measured_rate_and_finds_the_most_similar_pair(tiny_encoder, monkeypatch):
    from sbertlib.evaluation import speed
    enc, n = tiny_encoder, 8
    ran = fixed_timings(monkeypatch, {"cross-encoder": [4.0, 2.0, 2.5]})  # median 2.5 s for 10 pairs
    res = speed.cross_vs_bi(enc, SPEED_SENTS + ["never reached"], n=n, cross_pairs=10)
    assert ran == [("cross-encoder", 10)]
    assert res["n"] == n and res["pairs"] == 28  # 8 sentences: 8·7/2 pairs
    assert res["cross_pairs_per_s"] == pytest.approx(10 / 2.5)
    assert res["cross_hours_extrapolated"] == pytest.approx(28 / 4.0 / 3600)
    assert res["bi_seconds_measured"] > 0
    emb = enc.encode(SPEED_SENTS[:n]).astype(np.float64)  # the most similar pair, found here apart
    unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    sims = unit @ unit.T
    np.fill_diagonal(sims, -np.inf)
    i, j = np.unravel_index(np.argmax(sims), sims.shape)
    assert sorted(res["most_similar_pair"]) == sorted([SPEED_SENTS[i], SPEED_SENTS[j]])
    fewer = speed.cross_vs_bi(enc, SPEED_SENTS[:5], n=100, cross_pairs=10)  # n counts the sentences there are
    assert (fewer["n"], fewer["pairs"]) == (5, 10) and fewer["cross_hours_extrapolated"] == pytest.approx(10 / 4.0 / 3600)
    assert speed.pair_count(10_000) == 49_995_000


def test_a_suite_draws_no_progress_bar_unless_asked(capsys, monkeypatch):
    """Issue 29: notebook 14 offline printed 21 empty "encode" bars (7 sets × 3 models): in a kernel, encode
    draws a bar for more than 640 sentences."""
    from sbertlib import evaluation
    from sbertlib.model import encoder as encoder_module
    monkeypatch.setattr(encoder_module, "_interactive", lambda: True)   # as in a Jupyter kernel
    enc = encoder_module.SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu", max_seq_length=16)
    evaluation.evaluate_suite(enc, ["stsb-test"], 400, seed=0)           # 800 sentences
    assert "encode" not in capsys.readouterr().err
    evaluation.evaluate_suite(enc, ["stsb-test"], 400, seed=0, show_progress_bar=True)
    assert "encode" in capsys.readouterr().err
