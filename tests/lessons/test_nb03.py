"""The checks of notebook 03 (finetuning on nli): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb03)."""
from __future__ import annotations

import math
import pytest
import torch
import torch.nn.functional as F
from sbertlib import data, losses
from sbertlib.training import epoch_batches, make_optimizer
from sbertlib.workbook.lessons import ExerciseError, nb03


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


@pytest.mark.parametrize("wrong, says", [
    (make_mnrl(candidates=lambda e: torch.cat([x.detach() for x in e[1:]])), "gradient into the positives"),
    (make_mnrl(score=lambda a, c: F.normalize(a, dim=1).detach() @ F.normalize(c, dim=1).T * 20.0),
     "gradient into the anchors"),
    (type("MNRL", (losses.MultipleNegativesRankingLoss,), {}), "extends the library's MultipleNegativesRankingLoss"),
])
def test_mnrl_right_in_value_only_or_borrowed_fails(encoder, wrong, says):
    """The eighth trial found losses right in value with a cut gradient accepted in 05 and 14; 03's MNRL too."""
    with pytest.raises(ExerciseError, match=says):
        nb03.check_mnrl(wrong, encoder)


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


def loop_with(batches_per_epoch=lambda n, b: math.ceil(n / b), warmup_steps=lambda r, t: math.ceil(r * t),
              clip=lambda loss: loss.parameters()):
    """The notebook's loop, with the step count, the warm-up's rounding and what is clipped as switches."""
    def train_loop(loss, examples, *, epochs=1, batch_size=16, lr=2e-5, warmup_ratio=0.1, max_grad_norm=1.0,
                   seed=42, length_grouping=False):
        model = loss.model
        torch.manual_seed(seed)
        optimizer = make_optimizer(loss, lr)
        total = epochs * batches_per_epoch(len(examples), batch_size)
        warmup = warmup_steps(warmup_ratio, total)
        scheduler = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda s: s / max(1, warmup) if s < warmup else max(0.0, (total - s) / max(1, total - warmup)))
        loss.train()
        values = []
        lengths = [sum(len(t) for t in ex.texts) for ex in examples] if length_grouping else None
        for epoch in range(epochs):
            for ids in epoch_batches(len(examples), batch_size, seed, epoch, lengths=lengths):
                batch = [examples[i] for i in ids]
                embeddings = [model(model.tokenize(list(col))) for col in zip(*(ex.texts for ex in batch))]
                labels = None if batch[0].label is None else torch.tensor([ex.label for ex in batch])
                value = loss.loss_from_embeddings(embeddings, labels)
                optimizer.zero_grad()
                value.backward()
                torch.nn.utils.clip_grad_norm_(clip(loss), max_grad_norm)
                optimizer.step()
                scheduler.step()
                values.append(value.item())
        return values
    return train_loop


def test_nb03_loop_switches_default_to_the_right_loop(encoder, nli_data, one_thread, capsys):
    nb03.check_train_loop(loop_with(), encoder, *nli_data)
    assert "your loop is fit's loop" in capsys.readouterr().out


@pytest.mark.parametrize("mistake, says, never", [
    # the step count rounded down: the schedule is planned over 8 steps where the loop runs 10
    (dict(batches_per_epoch=lambda n, b: n // b), ["planned over 8 steps", "rounded down", "rounds up"],
     ["not one epoch", "ceil(n / batch_size)"]),
    # the warm-up's length rounded down: 2 steps where fit warms up for ceil(0.25 × 10) = 3
    (dict(warmup_steps=lambda r, t: math.floor(r * t)), ["warm-up lasts 2 steps, fit's 3", "rounded down"],
     ["math.ceil("]),
    # clipping the encoder's parameters only: the classifier head of SoftmaxLoss is left out
    (dict(clip=lambda loss: loss.model.parameters()), ["left out the classifier head", "outside loss.model"],
     ["loss.parameters()", "clip_grad_norm_(loss"]),
])
def test_nb03_train_loop_names_the_mistake_without_the_answer(encoder, nli_data, one_thread, mistake, says,
                                                                  never):
    with pytest.raises(ExerciseError) as err:
        nb03.check_train_loop(loop_with(**mistake), encoder, *nli_data)
    message = str(err.value)
    for words in says:
        assert words in message
    for answer in never:
        assert answer not in message


def test_nb03_schedule_plans_rebuild_fits_rates():
    """The rates the hints compare with are fit's own: the right plan reproduces linear_warmup exactly."""
    from sbertlib.training.loop import linear_warmup
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1e-3)
    sched, rates = linear_warmup(opt, 3, 10), []
    for _ in range(10):
        rates.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert nb03._rates(1e-3, 10, 3, 10) == pytest.approx(rates, abs=1e-15)


def _mnrl(score):
    class MNRL(losses.SBERTLoss):
        n_texts = (2, 3)

        def __init__(self, model, scale=20.0):
            super().__init__(model)

        def loss_from_embeddings(self, embeddings, labels=None):
            a, c = embeddings[0], torch.cat(embeddings[1:])
            return F.cross_entropy(score(a, c), torch.arange(len(a)))
    return MNRL


@pytest.mark.parametrize("score", [
    lambda a, c: a @ c.T,                       # raw dot products, no scale
    lambda a, c: a @ c.T * 20.0,                # dot products times the scale
    lambda a, c: a @ c.T / a.shape[1] ** 0.5,   # scaled like attention: still dot products
])
def test_nb03_mnrl_unnormalised_scores_are_told_to_normalise(encoder, score):
    with pytest.raises(ExerciseError) as err:
        nb03.check_mnrl(_mnrl(score), encoder)
    message = str(err.value)
    assert "normalise" in message and "dot products, not cosines" in message
    assert "F.normalize" not in message and "F.cross_entropy(" not in message


def test_nb03_mnrl_fallback_does_not_spell_out_the_loss(encoder):
    with pytest.raises(ExerciseError) as err:   # cosines with the wrong scale: none of the named slips
        nb03.check_mnrl(_mnrl(lambda a, c: F.normalize(a, dim=1) @ F.normalize(c, dim=1).T * 5.0), encoder)
    assert "torch.arange" not in str(err.value) and "cross_entropy(scores" not in str(err.value)


def test_nb03_notebook_says_how_many_steps_the_check_runs():
    """Notebook 03 tells the student what the loop check runs: its numbers are the check's own settings."""
    import json
    from pathlib import Path
    nb = json.loads(next(Path(__file__).resolve().parents[2].glob("notebooks/03_*.ipynb")).read_text())
    text = next("".join(c["source"]) for c in nb["cells"]
                if c["cell_type"] == "markdown" and "compares the loss of every step" in "".join(c["source"]))
    s = nb03.SETTINGS
    per_objective = s["epochs"] * math.ceil(nb03.N_EXAMPLES / s["batch_size"])
    text = " ".join(text.split())
    assert f"{s['epochs'] if s['epochs'] != 2 else 'two'} epochs of {nb03.N_EXAMPLES} examples in batches of " \
           f"{s['batch_size']}" in text
    assert f"{per_objective} steps per objective, {2 * per_objective} in all" in text
    assert "dozen" not in text


def test_nb03_a_loop_or_loss_that_raises_is_told_as_the_students_error(encoder, nli_data, one_thread):
    def broken_loop(loss, examples, **settings):
        return [loss.model(ex.texts) for ex in examples]      # texts straight into the encoder, untokenised
    with pytest.raises(ExerciseError, match="your train_loop raised") as err:
        nb03.check_train_loop(broken_loop, encoder, *nli_data)
    shown = "\n".join(err.value._render_traceback_())
    assert "In your code:" in shown and "broken_loop" in shown and "lessons/nb03.py" not in shown
    with pytest.raises(ExerciseError, match=r"your loss_from_embeddings \(3 columns of shape \(6, 8\)\) raised"):
        nb03.check_mnrl(_mnrl(lambda a, c: a @ c), encoder)    # (6, 8) @ (12, 8): c not transposed


def _mnrl_normalising_in_place():
    from sbertlib import losses

    class MNRL(losses.SBERTLoss):
        def loss_from_embeddings(self, embeddings, labels=None):
            anchors = torch.nn.functional.normalize(embeddings[0], dim=1)
            embeddings[1:] = [torch.nn.functional.normalize(torch.cat(embeddings[1:]), dim=1)]  # the caller's list
            scores = anchors @ embeddings[1].T * 20.0
            return torch.nn.functional.cross_entropy(scores, torch.arange(len(anchors)))
    return MNRL


def test_nb03_mnrl_that_rewrites_the_list_it_was_given_is_refused():
    from sbertlib.workbook.lessons import nb03
    with pytest.raises(ExerciseError, match=r"your loss_from_embeddings \(3 columns .*changed its first argument"):
        nb03.check_mnrl(_mnrl_normalising_in_place(), torch.nn.Linear(2, 2))


def test_nb03_mnrl_stub_is_reported_as_everywhere():
    from sbertlib import losses
    from sbertlib.workbook.lessons import nb03

    class MNRL(losses.SBERTLoss):
        def loss_from_embeddings(self, embeddings, labels=None):
            raise NotImplementedError
    with pytest.raises(ExerciseError, match="the exercise is not done yet: your loss_from_embeddings"):
        nb03.check_mnrl(MNRL, torch.nn.Linear(2, 2))


def test_nb03_a_loop_that_changes_its_examples_list_is_refused(encoder, nli_data):
    """Issue 29: the loop was called directly, so a loop that changed the notebook's examples passed."""
    right = make_loop()

    def appending(loss, examples, **settings):
        values = right(loss, examples, **settings)
        examples.append(examples[0])
        return values
    with pytest.raises(ExerciseError, match="changed its second argument .* in place"):
        nb03.check_train_loop(appending, encoder, *nli_data)
