"""The build-it exercises (02 pooling and classification head, 03 training loop and MNRL, …):
each check passes a right answer and rejects the usual wrong ones with a hint that names them."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from sbertlib import losses
from sbertlib.model.encoder import SentenceEncoder
from sbertlib.workbook.lessons import ExerciseError, nb02


@pytest.fixture(scope="module")
def encoder():
    return SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=32)


# ----------------------------------------------------------------------------- 02: pooling
def good_pool(t, mask, mode="mean"):
    m = mask.unsqueeze(-1).to(t.dtype)
    if mode == "mean":
        return (t * m).sum(1) / m.sum(1)
    if mode == "max":
        return t.masked_fill(m == 0, float("-inf")).max(1).values
    return t[:, 0]


def test_pooling_right(capsys):
    nb02.check_pooling(good_pool)
    assert "[OK]" in capsys.readouterr().out


def _with(mode_fn, mode):
    return lambda t, mask, m="mean": mode_fn(t, mask) if m == mode else good_pool(t, mask, m)


@pytest.mark.parametrize("wrong, hint", [
    (_with(lambda t, mask: t.mean(1), "mean"), "padding was counted"),
    (_with(lambda t, mask: (t * mask.unsqueeze(-1)).sum(1), "mean"), "masked sum"),
    (_with(lambda t, mask: (t * mask.unsqueeze(-1)).sum(1) / t.shape[1], "mean"), "padded length"),
    (_with(lambda t, mask: t.max(1).values, "max"), "padding won the max"),
    (_with(lambda t, mask: (t * mask.unsqueeze(-1)).max(1).values, "max"), "negative"),
    (_with(lambda t, mask: t[:, -1], "cls"), "last position; the \\[CLS\\] token is the first"),
    (_with(lambda t, mask: t[torch.arange(len(mask)), mask.sum(1) - 1], "cls"), r"\[SEP\]"),
    (_with(lambda t, mask: t.mean(2), "mean"), "shape"),
    (lambda t, mask, m="mean": None, "not a tensor"),
])
def test_pooling_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint) as err:
        nb02.check_pooling(wrong)
    assert not any(code in str(err.value) for code in ("[:, 0]", "masked_fill", "mask.sum(dim=1)", "unsqueeze"))


# ----------------------------------------------------------------------------- 02: the classification head
def make_head(features=lambda u, v: torch.cat([u, v, (u - v).abs()], 1), bias=True, width=3,
              loss=lambda logits, labels: F.cross_entropy(logits, labels)):
    class Head(losses.SBERTLoss):
        label_kind = "class"

        def __init__(self, model, num_labels=3):
            super().__init__(model)
            self.classifier = nn.Linear(width * model.dim, num_labels, bias=bias)

        def loss_from_embeddings(self, embeddings, labels):
            u, v = embeddings
            return loss(self.classifier(features(u, v)), labels)
    return Head


def test_siamese_classifier_right(encoder, capsys):
    nb02.check_siamese_classifier(make_head(), encoder)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (make_head(features=lambda u, v: torch.cat([u, v, u - v], 1)), "absolute value"),
    (make_head(features=lambda u, v: torch.cat([v, u, (u - v).abs()], 1)), "wrong order"),
    (make_head(features=lambda u, v: torch.cat([(u - v).abs(), u, v], 1)), "wrong order"),
    (make_head(loss=lambda lg, y: F.cross_entropy(lg.softmax(1), y)), "softmax was applied twice"),
    (make_head(loss=lambda lg, y: F.cross_entropy(lg, y, reduction="sum")), "sum over the batch"),
    (make_head(bias=False), "no bias"),
    (make_head(features=lambda u, v: torch.cat([u, v, u * v], 1)), "element-wise product"),
    (make_head(loss=lambda lg, y: F.nll_loss(lg, y)), "negative log-likelihood"),
    (make_head(loss=lambda lg, y: F.cross_entropy(lg, y) * 0.5), "raw scores for the features"),
    (make_head(features=lambda u, v: torch.cat([u, v], 1), width=2), "expected"),
    (nn.Linear, "subclass of losses.SBERTLoss"),
])
def test_siamese_classifier_wrong(encoder, wrong, hint):
    with pytest.raises(ExerciseError, match=hint) as err:
        nb02.check_siamese_classifier(wrong, encoder)
    assert not any(code in str(err.value) for code in ("nn.Linear(3", "F.cross_entropy(self", "torch.cat(["))


def test_siamese_classifier_that_is_not_a_linear_layer_is_told_without_the_answer(encoder):
    class NoLinear(losses.SBERTLoss):
        def __init__(self, model, num_labels=3):
            super().__init__(model)
            self.classifier = nn.Sequential(nn.Linear(3 * model.dim, num_labels))
    with pytest.raises(ExerciseError, match="linear layer from the features") as err:
        nb02.check_siamese_classifier(NoLinear, encoder)
    assert "3 * model.dim" not in str(err.value)


# ----------------------------------------------------------------------------- 03: the training loop
import math  # noqa: E402

from sbertlib import data  # noqa: E402
from sbertlib.training import epoch_batches, make_optimizer  # noqa: E402
from sbertlib.workbook.lessons import nb03  # noqa: E402


def make_loop(zero_grad=True, train_mode=True, clip=True, off_by_one=False, one_epoch_plan=False,
              shuffle=True, reseed=True, drop_last=False):
    """The notebook's solution, with switches that reproduce the usual mistakes."""
    def train_loop(loss, examples, *, epochs=1, batch_size=16, lr=2e-5, warmup_ratio=0.1, max_grad_norm=1.0,
                   seed=42, length_grouping=False):
        model = loss.model
        if reseed:
            torch.manual_seed(seed)
        optimizer = make_optimizer(loss, lr)
        per_epoch = len(examples) // batch_size if drop_last else math.ceil(len(examples) / batch_size)
        total = per_epoch * (1 if one_epoch_plan else epochs)
        warmup = math.ceil(warmup_ratio * total)

        def factor(step):
            step += 1 if off_by_one else 0
            return step / max(1, warmup) if step < warmup else max(0.0, (total - step) / max(1, total - warmup))
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
        if train_mode:
            loss.train()
        values = []
        lengths = [sum(len(t) for t in ex.texts) for ex in examples] if length_grouping else None
        for epoch in range(epochs):
            batches = epoch_batches(len(examples), batch_size, seed, epoch, lengths=lengths) if shuffle else \
                [list(range(i, min(i + batch_size, len(examples)))) for i in range(0, len(examples), batch_size)]
            for ids in batches[:per_epoch]:
                if drop_last and len(ids) < batch_size:
                    continue
                batch = [examples[i] for i in ids]
                features = [model.tokenize(list(col)) for col in zip(*(ex.texts for ex in batch))]
                embeddings = [model(f) for f in features]
                labels = None if batch[0].label is None else torch.tensor([ex.label for ex in batch])
                value = loss.loss_from_embeddings(embeddings, labels)
                if zero_grad:
                    optimizer.zero_grad()
                value.backward()
                if clip:
                    torch.nn.utils.clip_grad_norm_(loss.parameters(), max_grad_norm)
                optimizer.step()
                scheduler.step()
                values.append(value.item())
        return values
    return train_loop


@pytest.fixture(scope="module")
def nli_data():
    pairs = data.load_snli("dev")[:400]
    return pairs, data.nli_triplets(pairs)


def test_train_loop_right(encoder, nli_data, capsys):
    nb03.check_train_loop(make_loop(), encoder, *nli_data)
    assert "your loop is fit's loop" in capsys.readouterr().out


@pytest.mark.parametrize("mistake, hint", [
    (dict(zero_grad=False), "zero_grad"),
    (dict(train_mode=False), "eval mode"),
    (dict(clip=False), "clip_grad_norm_"),
    (dict(off_by_one=True), "off by one"),
    (dict(one_epoch_plan=True), "not one epoch"),
    (dict(shuffle=False), "other sentences than fit's"),
    (dict(drop_last=True), "last, smaller batch"),
    (dict(reseed=False), "torch.manual_seed"),
])
def test_train_loop_mistakes_are_named(encoder, nli_data, mistake, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb03.check_train_loop(make_loop(**mistake), encoder, *nli_data)


# ----------------------------------------------------------------------------- 03: MNRL
def make_mnrl(score=lambda a, c: F.normalize(a, dim=1) @ F.normalize(c, dim=1).T * 20.0,
              candidates=lambda e: torch.cat(e[1:]), targets=lambda b: torch.arange(b), reduction="mean"):
    class MNRL(losses.SBERTLoss):
        n_texts = (2, 3)

        def __init__(self, model, scale=20.0):
            super().__init__(model)

        def loss_from_embeddings(self, embeddings, labels=None):
            a = embeddings[0]
            return F.cross_entropy(score(a, candidates(embeddings)), targets(len(a)), reduction=reduction)
    return MNRL


def test_mnrl_right(encoder, capsys):
    nb03.check_mnrl(make_mnrl(), encoder)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (make_mnrl(score=lambda a, c: F.normalize(a, dim=1) @ F.normalize(c, dim=1).T), "no scale"),
    (make_mnrl(score=lambda a, c: a @ c.T * 20.0), "dot products"),
    (make_mnrl(candidates=lambda e: e[1]), "hard negatives were left out"),
    (make_mnrl(targets=lambda b: torch.zeros(b, dtype=torch.long)), "column i"),
    (make_mnrl(score=lambda a, c: -F.normalize(a, dim=1) @ F.normalize(c, dim=1).T * 20.0), "distance"),
    (make_mnrl(reduction="sum"), "not the sum"),
])
def test_mnrl_wrong(encoder, wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb03.check_mnrl(wrong, encoder)
