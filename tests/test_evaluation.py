"""STS evaluation: definitions, both STS12-16 conventions, baselines, tables and the CLI."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import spearmanr

from sbertlib.cli import evaluate as cli
from sbertlib import evaluation, paper
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
