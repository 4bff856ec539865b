"""Losses: hand-computed values on tiny tensors, and per-step parity with sentence-transformers."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest
import torch
from torch import nn

from sbertlib.paper import TABLE6_CONCATS
from sbertlib.losses import (Batch, CosineSimilarityLoss, MultipleNegativesRankingLoss,
                             SoftmaxLoss, TripletLoss)
from sbertlib.model.encoder import SentenceEncoder
from sbertlib.training import fit


class FakeEncoder(nn.Module):
    """Stands in for a SentenceEncoder: features {"ids": (B,)} → fixed rows of ``table``."""

    def __init__(self, table):
        super().__init__()
        self.table = nn.Parameter(torch.tensor(table, dtype=torch.float32))
        self.dim = self.table.shape[1]

    def forward(self, features):
        return self.table[features["ids"]]


pytestmark = pytest.mark.usefixtures("one_thread")


def batch(*columns, labels=None) -> Batch:
    return Batch([{"ids": torch.tensor(c)} for c in columns], None if labels is None else torch.tensor(labels))


# ----------------------------------------------------------------------------- hand-computed values
def test_cosine_similarity_loss_by_hand():
    model = FakeEncoder([[1, 0], [0, 1], [1, 0], [1, 1]])
    loss = CosineSimilarityLoss(model)(batch([0, 2], [1, 3], labels=[0.5, 1.0]))
    expected = ((0 - 0.5) ** 2 + (1 / math.sqrt(2) - 1) ** 2) / 2
    assert loss.item() == pytest.approx(expected, abs=1e-6)


def test_cosine_loss_backpropagates_into_the_encoder():
    model = FakeEncoder([[1, 0], [0, 1]])
    CosineSimilarityLoss(model)(batch([0], [1], labels=[1.0])).backward()
    assert model.table.grad is not None and model.table.grad.abs().sum() > 0


@pytest.mark.parametrize("distance, expected", [("euclidean", (5 - 1 + 1 + 0) / 2),
                                                ("manhattan", (7 - 1 + 1 + 0) / 2)])
def test_triplet_loss_by_hand(distance, expected):
    # triplet 1: a=(0,0) p=(3,4) n=(0,1): max(5-1+1, 0)=5 (euclidean), max(7-1+1, 0)=7 (manhattan)
    # triplet 2: a=(0,0) p=(1,0) n=(0,3): max(1-3+1, 0)=0 in both
    model = FakeEncoder([[0, 0], [3, 4], [0, 1], [1, 0], [0, 3]])
    loss = TripletLoss(model, distance=distance)(batch([0, 0], [1, 3], [2, 4]))
    assert loss.item() == pytest.approx(expected, abs=1e-5)


def test_triplet_cosine_and_margin():
    model = FakeEncoder([[1, 0], [0, 1], [1, 0]])
    # distance = 1 - cos: d(a,p) = 1, d(a,n) = 0 → max(1 - 0 + margin, 0)
    assert TripletLoss(model, "cosine")(batch([0], [1], [2])).item() == pytest.approx(2.0)
    assert TripletLoss(model, "cosine", margin=0.25)(batch([0], [1], [2])).item() == pytest.approx(1.25)
    assert TripletLoss(model).margin == 1.0  # the paper's epsilon (sentence-transformers uses 5)


def test_softmax_loss_by_hand():
    model = FakeEncoder([[1, 2], [3, 5]])
    loss = SoftmaxLoss(model, num_labels=2)  # concat (u, v, |u-v|): 6 features
    assert loss.classifier.in_features == 6
    with torch.no_grad():
        loss.classifier.weight.zero_()
        loss.classifier.bias.zero_()
        loss.classifier.weight[0, 0] = 1  # logit 0 = u[0] = 1
        loss.classifier.weight[1, 3] = 1  # logit 1 = v[1] = 5
    value = loss(batch([0], [1], labels=[0]))
    assert value.item() == pytest.approx(math.log(1 + math.exp(4)), abs=1e-5)
    assert loss(batch([0], [1], labels=[1])).item() == pytest.approx(math.log(1 + math.exp(-4)), abs=1e-5)


def test_softmax_features_follow_concat_order():
    model = FakeEncoder([[1, 2], [3, 5]])
    u, v = model.table[0:1], model.table[1:2]
    feats = SoftmaxLoss(model, concat=("u*v", "|u-v|", "u")).features(u, v)
    assert feats.tolist() == [[3, 10, 2, 3, 1, 2]]



def test_pair_features_one_implementation_for_torch_and_numpy():
    from sbertlib.losses import pair_features
    u, v = torch.tensor([[1.0, -2.0]]), torch.tensor([[3.0, 1.0]])
    want = torch.tensor([[1.0, -2.0, 3.0, 1.0, 2.0, 3.0, 3.0, -2.0]])
    assert torch.equal(pair_features(u, v, ("u", "v", "|u-v|", "u*v")), want)
    assert np.array_equal(pair_features(u.numpy(), v.numpy(), ("u", "v", "|u-v|", "u*v")), want.numpy())
    with pytest.raises(ValueError, match="distinct parts"):
        pair_features(u, v, ("u", "u"))

def test_table6_concatenations():
    model = FakeEncoder([[1, 2]])
    assert len(TABLE6_CONCATS) == 7 and ("u", "v", "|u-v|") in TABLE6_CONCATS
    for concat in TABLE6_CONCATS:
        assert SoftmaxLoss(model, concat=concat).classifier.in_features == 2 * len(concat)
    for bad in [(), ("u", "u"), ("u", "w"), ("u-v",)]:
        with pytest.raises(ValueError, match="concat"):
            SoftmaxLoss(model, concat=bad)


def test_multiple_negatives_ranking_by_hand():
    model = FakeEncoder([[1, 0], [0, 1], [1, 0], [1, 1]])
    loss = MultipleNegativesRankingLoss(model)(batch([0, 1], [2, 3]))  # anchors 0,1; positives 2,3
    c = 20 / math.sqrt(2)  # scaled cos of the 45° pairs
    row1 = math.log(1 + math.exp(c - 20))  # scores (20, c), right answer column 0
    row2 = math.log(1 + math.exp(0 - c))  # scores (0, c), right answer column 1
    assert loss.item() == pytest.approx((row1 + row2) / 2, rel=1e-4)
    with_negatives = MultipleNegativesRankingLoss(model)(batch([0, 1], [2, 3], [1, 0]))
    assert with_negatives.item() > loss.item()  # hard negatives add competitors


def test_softmax_head_save_and_load(tmp_path):
    model = FakeEncoder([[1, 2]])
    a, b = SoftmaxLoss(model, concat=("u", "v")), SoftmaxLoss(model, concat=("u", "v"))
    a.save_head(tmp_path)
    b.load_head(tmp_path)
    assert torch.equal(a.classifier.weight, b.classifier.weight)
    with pytest.raises(ValueError, match="concat"):
        SoftmaxLoss(model).load_head(tmp_path)
    assert a.has_head() and not CosineSimilarityLoss(model).has_head()


# ----------------------------------------------------------------------------- parity
WORDS = ("a man woman child dog cat is are plays eats runs sleeps on the in park street guitar food "
         "quickly happily red blue big small two some near").split()


def sentences(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))).capitalize() + "." for _ in range(n)]


def tiny_folder(tmp_path) -> str:
    """A tiny random BERT with dropout 0, saved by us (so both libraries load the same files)."""
    enc = SentenceEncoder.from_pretrained("tiny-random-bert:3", device="cpu")
    enc.backbone.config.hidden_dropout_prob = 0.0
    enc.backbone.config.attention_probs_dropout_prob = 0.0
    return str(enc.save(tmp_path / "tiny"))


STEPS, BATCH, LR, WARMUP = 20, 8, 5e-4, 2


def st_losses(st_model, st_loss, columns, labels) -> list[float]:
    """Drive a sentence-transformers loss by hand, the way its old fit() did."""
    from transformers import get_linear_schedule_with_warmup
    params = list(st_loss.named_parameters())
    no_decay = ["bias", "LayerNorm.bias", "LayerNorm.weight"]
    groups = [{"params": [p for n, p in params if not any(nd in n for nd in no_decay)], "weight_decay": 0.01},
              {"params": [p for n, p in params if any(nd in n for nd in no_decay)], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=LR)
    sched = get_linear_schedule_with_warmup(opt, WARMUP, STEPS)
    st_model.train()
    out = []
    for step in range(STEPS):
        rows = slice(step * BATCH, (step + 1) * BATCH)
        feats = [st_model.preprocess(col[rows]) for col in columns]
        lab = torch.tensor(labels[rows]) if labels is not None else None
        value = st_loss(feats, lab)
        value.backward()
        torch.nn.utils.clip_grad_norm_(st_loss.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        out.append(value.item())
    return out


@pytest.mark.parametrize("kind", ["softmax", "cosine", "triplet", "mnrl"])
def test_per_step_parity_with_sentence_transformers(tmp_path, kind):
    st = pytest.importorskip("sentence_transformers")
    from sentence_transformers import losses as st_losses_mod
    from sentence_transformers import models as st_models
    folder = tiny_folder(tmp_path)
    ours = SentenceEncoder.load(folder, device="cpu")
    st_model = st.SentenceTransformer(modules=[st_models.Transformer(folder), st_models.Pooling(ours.dim, "mean")],
                                      device="cpu")
    n = STEPS * BATCH
    a, b, c = sentences(n, 1), sentences(n, 2), sentences(n, 3)
    rng = random.Random(0)
    if kind == "softmax":
        labels = [rng.randrange(3) for _ in range(n)]
        st_loss = st_losses_mod.SoftmaxLoss(st_model, ours.dim, num_labels=3)
        loss = SoftmaxLoss(ours, num_labels=3)
        loss.classifier.load_state_dict(st_loss.classifier.state_dict())
        data, columns = list(zip(a, b, labels)), [a, b]
    elif kind == "cosine":
        labels = [rng.random() for _ in range(n)]
        st_loss, loss = st_losses_mod.CosineSimilarityLoss(st_model), CosineSimilarityLoss(ours)
        data, columns = list(zip(a, b, labels)), [a, b]
    else:
        labels = None
        if kind == "triplet":
            st_loss = st_losses_mod.TripletLoss(st_model, st_losses_mod.TripletDistanceMetric.EUCLIDEAN,
                                                triplet_margin=1.0)
            loss = TripletLoss(ours, "euclidean", margin=1.0)
        else:
            st_loss, loss = st_losses_mod.MultipleNegativesRankingLoss(st_model), MultipleNegativesRankingLoss(ours)
        data, columns = list(zip(a, b, c)), [a, b, c]
    history = fit(ours, loss, data, batch_size=BATCH, lr=LR, shuffle=False, show_progress_bar=False)
    theirs = st_losses(st_model, st_loss, columns, labels)
    diffs = [abs(x - y) for x, y in zip(history.losses, theirs)]
    print(f"{kind}: max per-step |loss difference| over {STEPS} steps = {max(diffs):.2e}")
    assert len(history.losses) == STEPS == len(theirs)
    assert max(diffs) < 1e-4, f"max per-step difference {max(diffs):.2e}"
    assert abs(history.losses[-1] - history.losses[0]) > 1e-3  # the weights really moved
