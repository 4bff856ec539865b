"""The exercise checks of notebooks 03–05: each passes a right answer and rejects wrong ones."""
from __future__ import annotations


import numpy as np
import pytest
import torch
import torch.nn.functional as F
from scipy.stats import pearsonr, rankdata

from sbertlib.workbook.lessons import ExerciseError, nb04, nb05


def _unfinished(*args):
    raise NotImplementedError


# ----------------------------------------------------------------------------- nb04: spearman
def good_spearman(x, y):
    return float(pearsonr(rankdata(x), rankdata(y))[0])


def good_spearman_numpy(x, y):
    def ranks(a):
        a = np.asarray(a)
        order = np.argsort(a, kind="stable")
        r = np.empty(len(a))
        r[order] = np.arange(1, len(a) + 1)
        for value in np.unique(a):  # average the ranks of tied values
            r[a == value] = r[a == value].mean()
        return r
    return float(np.corrcoef(ranks(x), ranks(y))[0, 1])


def test_nb04_spearman_right_answers_pass(capsys):
    nb04.check_spearman(good_spearman)
    nb04.check_spearman(good_spearman_numpy)
    assert capsys.readouterr().out.count("[OK]") == 2


def _ordinal(a):
    return np.argsort(np.argsort(a, kind="stable"), kind="stable")


@pytest.mark.parametrize("wrong, hint", [
    (lambda x, y: float(pearsonr(x, y)[0]), "Pearson"),
    (lambda x, y: float(pearsonr(_ordinal(x), _ordinal(y))[0]), "average"),
    (lambda x, y: 100 * good_spearman(x, y), "100"),
    (lambda x, y: 1 - 6 * np.sum((rankdata(x) - rankdata(y)) ** 2) / (len(x) * (len(x) ** 2 - 1)), "shortcut"),
    (lambda x, y: np.corrcoef(rankdata(x), rankdata(y)), "single number"),
    (lambda x, y: None, None),
    (lambda x, y: ..., None),
    (_unfinished, "not done"),
])
def test_nb04_spearman_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb04.check_spearman(wrong)


def test_nb04_hidden_cases_have_ties():
    assert any(len(np.unique(x)) < len(x) for _, x, _ in nb04.hidden_cases())


# ----------------------------------------------------------------------------- nb04: your STS evaluation
def _sides(model, pairs, **kw):
    return (np.asarray(model.encode([p.sentence1 for p in pairs], **kw), dtype=float),
            np.asarray(model.encode([p.sentence2 for p in pairs], **kw), dtype=float))


def make_sts_evaluate(similarity="cosine", correlate=good_spearman, times=100.0, zero_guard=True):
    """The notebook's answer, with switches for the usual mistakes."""
    def sts_evaluate(model, pairs):
        u, v = _sides(model, pairs, show_progress_bar=False)
        dot = (u * v).sum(axis=1)
        norms = np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = dot / (np.maximum(norms, 1e-8) if zero_guard else norms)   # an all-zero vector: cosine 0, not NaN
        sim = {"cosine": cos, "dot": dot}[similarity]
        return times * correlate(sim, [p.score for p in pairs]), sim
    return sts_evaluate


def torch_sts_evaluate(model, pairs):
    u = model.encode([p.sentence1 for p in pairs], convert_to="torch")
    v = model.encode([p.sentence2 for p in pairs], convert_to="torch")
    cos = F.cosine_similarity(u, v, dim=1)
    return 100 * good_spearman_numpy(cos.numpy(), [p.score for p in pairs]), cos


def test_nb04_sts_evaluate_right_answers_pass(capsys):
    nb04.check_sts_evaluate(make_sts_evaluate())
    nb04.check_sts_evaluate(torch_sts_evaluate)
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb04_sts_evaluate_truth_is_evaluate_sts():
    from sbertlib import evaluation
    model, pairs = nb04.hidden_sts()
    score, cos = nb04.sts_evaluate_truth(model, pairs)
    assert score == evaluation.evaluate_sts(model, pairs, ("cosine",)).main
    assert score == pytest.approx(make_sts_evaluate()(model, pairs)[0], abs=1e-9)


@pytest.mark.parametrize("wrong, hint", [
    (make_sts_evaluate(correlate=lambda x, y: float(pearsonr(x, y)[0])), "Pearson's r of the cosines"),
    (make_sts_evaluate(times=1.0), r"Spearman × 100 \(77.03, not 0.7703\)"),
    (make_sts_evaluate(similarity="dot"), "dot product u·v: these vectors are not normalised"),
    (make_sts_evaluate(zero_guard=False), r"cosine of hidden pair 7 is NaN: one of its sentence vectors is all zeros"),
    (make_sts_evaluate(correlate=lambda x, y: float(pearsonr(_ordinal(x), _ordinal(y))[0])),
     "same gold score got different ranks"),
    (make_sts_evaluate(correlate=lambda x, y: -good_spearman(x, y)), "distance"),
    (lambda model, pairs: make_sts_evaluate()(model, pairs)[0], "two things"),          # the score alone
    (lambda model, pairs: (42.0, np.zeros(len(pairs))), "never called model.encode"),
    (_unfinished, "not done"),
])
def test_nb04_sts_evaluate_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb04.check_sts_evaluate(wrong)


def test_nb04_sts_evaluate_hidden_data_tell_the_mistakes_apart():
    """Each wrong answer's score is more than a point away from the truth and from the others."""
    model, pairs = nb04.hidden_sts()
    scores = [make_sts_evaluate(**kw)(model, pairs)[0] for kw in (
        {}, {"similarity": "dot"}, {"correlate": lambda x, y: float(pearsonr(x, y)[0])},
        {"correlate": lambda x, y: float(pearsonr(_ordinal(x), _ordinal(y))[0])})]
    assert min(abs(a - b) for i, a in enumerate(scores) for b in scores[i + 1:]) > 0.5, scores
    assert len({p.score for p in pairs}) < len(pairs) / 3  # many ties


def good_pooled_and_wmean(pairs, cosines):
    gold, cos = np.array([p.score for p in pairs]), np.asarray(cosines)
    sources = np.array([p.source for p in pairs])
    pooled = 100 * good_spearman(cos, gold)
    wmean = sum(100 * good_spearman(cos[sources == s], gold[sources == s]) * np.sum(sources == s)
                for s in np.unique(sources)) / len(pairs)
    return pooled, wmean


def _subset_scores(pairs, cosines):
    gold, cos, sources = np.array([p.score for p in pairs]), np.asarray(cosines), np.array([p.source for p in pairs])
    return [100 * good_spearman(cos[sources == s], gold[sources == s]) for s in np.unique(sources)]


def test_nb04_pooled_and_wmean_right_passes(capsys):
    nb04.check_pooled_and_wmean(good_pooled_and_wmean)
    assert "[OK] pooled_and_wmean is right" in capsys.readouterr().out


def test_nb04_pooled_and_wmean_truth_is_the_librarys():
    from sbertlib import evaluation
    pairs, cos = nb04.hidden_year()
    model = nb04.HiddenEncoder({})
    for i, p in enumerate(pairs):  # vectors whose cosine is the hidden cosine: (1, 0) and (c, sqrt(1 - c²))
        model.vectors[p.sentence1] = np.array([1.0, 0.0])
        model.vectors[p.sentence2] = np.array([cos[i], np.sqrt(1 - cos[i] ** 2)])
    subsets = {}
    for p in pairs:
        subsets.setdefault(p.source, []).append(p)
    lib = evaluation.evaluate_sts_subsets(model, subsets)
    assert nb04.pooled_and_wmean_truth(pairs, cos) == pytest.approx((lib["all"], lib["wmean"]), abs=1e-3)


@pytest.mark.parametrize("wrong, hint", [
    (lambda pairs, cos: good_pooled_and_wmean(pairs, cos)[::-1], "other order"),
    (lambda pairs, cos: (good_pooled_and_wmean(pairs, cos)[0], float(np.mean(_subset_scores(pairs, cos)))),
     "plain mean of the subsets' scores: each subset must count by its number of pairs"),
    (lambda pairs, cos: (good_pooled_and_wmean(pairs, cos)[0],) * 2, "pooled score again"),
    (lambda pairs, cos: tuple(x / 100 for x in good_pooled_and_wmean(pairs, cos)), "× 100"),
    (lambda pairs, cos: good_pooled_and_wmean(pairs, cos)[0], "two numbers"),
])
def test_nb04_pooled_and_wmean_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb04.check_pooled_and_wmean(wrong)


# ----------------------------------------------------------------------------- nb04: the largest rank errors
def make_worst_k(rank=rankdata, size=np.abs, sign=1, stable=True):
    def worst_k(gold, predicted, k=10):
        errors = sign * (rank(predicted) - rank(gold))
        order = np.argsort(-size(errors), kind="stable" if stable else "quicksort")[:k]
        return order, errors[order]
    return worst_k


def test_nb04_worst_k_right_passes_and_is_worst_pairs(capsys):
    from sbertlib import data, evaluation
    nb04.check_worst_k(make_worst_k())
    assert "[OK] worst_k is right" in capsys.readouterr().out
    gold, pred = nb04.hidden_ranking()
    pairs = [data.STSPair(f"a{i}", f"b{i}", float(g)) for i, g in enumerate(gold)]
    table = evaluation.worst_pairs(pairs, pred, k=6)
    idx, err = nb04.worst_k_truth(gold, pred, 6)
    assert list(table.index) == list(idx) and np.allclose(table["rank_diff"], err)


@pytest.mark.parametrize("wrong, hint", [
    (make_worst_k(sign=-1), "sign is flipped"),
    (make_worst_k(size=lambda e: e), "not the largest in size"),
    (make_worst_k(rank=lambda a: _ordinal(a) + 1.0), "same gold score got different ranks"),
    (lambda gold, pred, k=10: (np.argsort(-np.abs(pred - gold / 5), kind="stable")[:k],
                               (pred - gold / 5)[np.argsort(-np.abs(pred - gold / 5), kind="stable")[:k]]),
     "differences of the scores themselves"),
    (lambda gold, pred, k=10: make_worst_k()(gold, pred, k)[0], "two things"),
    (lambda gold, pred, k=10: make_worst_k()(gold, pred, k + 2), "for k = 6 you returned 8"),
])
def test_nb04_worst_k_wrong_fails(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb04.check_worst_k(wrong)


# ----------------------------------------------------------------------------- nb05: regression loss
def good_loss(u, v, scores):
    return ((F.cosine_similarity(u, v, dim=1) - scores / 5) ** 2).mean()


def test_nb05_regression_loss_right_answer_passes(capsys):
    nb05.check_regression_loss(good_loss)
    nb05.check_regression_loss(lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v), s / 5.0))
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v), s), "divide"),
    (lambda u, v, s: ((F.cosine_similarity(u, v) - s / 5) ** 2).sum(), "sum"),
    (lambda u, v, s: torch.sqrt(good_loss(u, v, s)), "RMSE"),
    (lambda u, v, s: F.mse_loss((u * v).sum(dim=1), s / 5), "dot"),
    (lambda u, v, s: (F.cosine_similarity(u, v) - s / 5).abs().mean(), "absolute"),
    (lambda u, v, s: (F.cosine_similarity(u, v) - s / 5) ** 2, "scalar"),
    (lambda u, v, s: ((F.cosine_similarity(u, v).unsqueeze(1) - s / 5) ** 2).mean(), None),  # (B, B) broadcast
    (lambda u, v, s: good_loss(u, v, s).item(), "tensor"),
    (lambda u, v, s: good_loss(u, v, s).detach(), "detached"),
    (lambda u, v, s: None, None),
    (_unfinished, "not done"),
])
def test_nb05_regression_loss_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb05.check_regression_loss(wrong)


def test_nb05_truth_is_the_library_loss():
    from sbertlib.losses import CosineSimilarityLoss
    g = torch.Generator().manual_seed(0)
    u, v = torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g)
    s = torch.tensor([0.0, 2.5, 4.0, 5.0])
    lib = CosineSimilarityLoss(torch.nn.Identity()).loss_from_embeddings([u, v], s / 5)
    assert torch.allclose(nb05.regression_loss_truth(u, v, s), lib)


# ----------------------------------------------------------------------------- nb05: the objective and the runs
from sbertlib import losses as _losses  # noqa: E402


@pytest.fixture(scope="module")
def tiny_encoder():
    from sbertlib.model.encoder import SentenceEncoder
    return SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=32)


def make_objective(label_kind="score", score_range=(0.0, 5.0), scale=1.0, loss_fn=good_loss):
    class RegressionObjective(_losses.SBERTLoss):
        def loss_from_embeddings(self, embeddings, labels):
            u, v = embeddings
            return loss_fn(u, v, labels * scale)
    RegressionObjective.label_kind, RegressionObjective.score_range = label_kind, score_range
    return RegressionObjective


@pytest.mark.parametrize("right", [make_objective(), nb05.ReferenceRegressionObjective], ids=["student's", "reference"])
def test_nb05_regression_objective_right_passes(right, tiny_encoder, capsys):
    nb05.check_regression_objective(right, tiny_encoder)
    assert capsys.readouterr().out.startswith("[OK]")


@pytest.mark.parametrize("wrong, hint", [
    (make_objective(score_range=(-1.0, 1.0)), "(?s)training refuses STSb's examples.*score_range"),
    (make_objective(label_kind=None), "label_kind is None"),
    (make_objective(label_kind="class"), "label_kind is 'class'"),
    (make_objective(scale=0.2), "divided by 5 twice"),
    (make_objective(loss_fn=lambda u, v, s: F.mse_loss((u * v).sum(1), s / 5)), "your regression_loss of the two"),
    (_losses.CosineSimilarityLoss, "training refuses"),
    (torch.nn.Linear, "subclass of losses.SBERTLoss"),
])
def test_nb05_regression_objective_wrong_fails(tiny_encoder, wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb05.check_regression_objective(wrong, tiny_encoder)


def _run(start, copy_first=True, steps=4, objective_cls=None):
    import copy
    model = copy.deepcopy(start) if copy_first else start
    objective = (objective_cls or nb05.ReferenceRegressionObjective)(model)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.01)
    return objective, [0.5] * steps, 1.5


def test_nb05_regression_run_right_passes(tiny_encoder, capsys):
    before = nb05.fingerprint(tiny_encoder)
    nb05.check_regression_run(_run(tiny_encoder), tiny_encoder, before, epochs=2, batch_size=16, n_examples=20)
    assert "trained a copy for 4 steps" in capsys.readouterr().out


@pytest.mark.parametrize("result, hint", [
    (lambda enc: _run(enc, copy_first=False), "training changed the model you started from"),
    (lambda enc: _run(enc, steps=2), "ran 2 steps; the profile's recipe is 2 epochs of 2 batches = 4"),
    (lambda enc: _run(enc, steps=5), "ran 5 steps"),
    (lambda enc: _run(enc)[:2], "return three things"),
    (lambda enc: (enc, [0.5] * 4, 1.0), "not the objective you trained"),
])
def test_nb05_regression_run_wrong_fails(tiny_encoder, result, hint):
    import copy
    start = copy.deepcopy(tiny_encoder)
    before = nb05.fingerprint(start)
    with pytest.raises(ExerciseError, match=hint):
        nb05.check_regression_run(result(start), start, before, epochs=2, batch_size=16, n_examples=20)


# ----------------------------------------------------------------------------- nb03: the training loop and MNRL
# Each usual mistake is told in the student's terms — and the message never holds the line that fixes it.
import math  # noqa: E402

from sbertlib import data, losses  # noqa: E402
from sbertlib.training import epoch_batches, make_optimizer  # noqa: E402
from sbertlib.workbook.lessons import nb03  # noqa: E402


@pytest.fixture(scope="module")
def encoder():
    from sbertlib.model.encoder import SentenceEncoder
    return SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=32)


@pytest.fixture(scope="module")
def nli_data():
    pairs = data.load_snli("dev")[:400]
    return pairs, data.nli_triplets(pairs)


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
    nb = json.loads(next(Path(__file__).resolve().parents[1].glob("notebooks/03_*.ipynb")).read_text())
    text = next("".join(c["source"]) for c in nb["cells"]
                if c["cell_type"] == "markdown" and "compares the loss of every step" in "".join(c["source"]))
    s = nb03.SETTINGS
    per_objective = s["epochs"] * math.ceil(nb03.N_EXAMPLES / s["batch_size"])
    text = " ".join(text.split())
    assert f"{s['epochs'] if s['epochs'] != 2 else 'two'} epochs of {nb03.N_EXAMPLES} examples in batches of " \
           f"{s['batch_size']}" in text
    assert f"{per_objective} steps per objective, {2 * per_objective} in all" in text
    assert "dozen" not in text


# ----------------------------------------------------------------------------- 04/05: row labels
def test_the_reference_is_not_labelled_a_stand_in():
    """04 and 05 labelled the packaged all-MiniLM-L6-v2 — the published model's own weights — "[offline, stand-in]"."""
    from sbertlib import evaluation
    from sbertlib.model.encoder import SentenceEncoder
    reference = SentenceEncoder.from_pretrained("minilm", device="cpu")
    label = evaluation.label_for(reference, "offline", "reference: fully trained, not fine-tuned here")
    assert label.endswith("all-MiniLM-L6-v2 (packaged) [offline]") and "stand-in" not in label
    tiny = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")
    assert evaluation.label_for(tiny, "smoke", "untrained").endswith("[smoke, stand-in]")


def test_nb03_a_loop_or_loss_that_raises_is_told_as_the_students_error(encoder, nli_data, one_thread):
    def broken_loop(loss, examples, **settings):
        return [loss.model(ex.texts) for ex in examples]      # texts straight into the encoder, untokenised
    with pytest.raises(ExerciseError, match="your train_loop raised") as err:
        nb03.check_train_loop(broken_loop, encoder, *nli_data)
    shown = "\n".join(err.value._render_traceback_())
    assert "In your code:" in shown and "broken_loop" in shown and "lessons/nb03.py" not in shown
    with pytest.raises(ExerciseError, match=r"your loss_from_embeddings \(3 columns of shape \(6, 8\)\) raised"):
        nb03.check_mnrl(_mnrl(lambda a, c: a @ c), encoder)    # (6, 8) @ (12, 8): c not transposed


def test_nb05_regression_runs_name_the_run_and_pass_when_loaded(tiny_encoder, capsys):
    import copy
    nb05.check_regression_runs({}, 2, 16, 20)
    assert "trained before and are loaded" in capsys.readouterr().out
    good, bad = copy.deepcopy(tiny_encoder), copy.deepcopy(tiny_encoder)
    runs = {"stsb": (good, nb05.fingerprint(good), _run(good)), "two-stage": (bad, nb05.fingerprint(bad), _run(bad, copy_first=False))}
    with pytest.raises(ExerciseError, match="the 'two-stage' run: training changed the model you started from"):
        nb05.check_regression_runs(runs, epochs=2, batch_size=16, n_examples=20)
    del runs["two-stage"]
    nb05.check_regression_runs(runs, epochs=2, batch_size=16, n_examples=20)
    assert "trained a copy for 4 steps" in capsys.readouterr().out


def test_nb05_a_run_the_notebook_saves_is_where_trained_model_looks(tiny_encoder, tmp_path, monkeypatch):
    """05 trains with the student's loop and saves with runs.save_run: later notebooks' trained_model loads it,
    with its record, and nothing of an earlier run in that folder stays beside it."""
    from sbertlib.workbook import runs
    from sbertlib.workbook.profiles import get_profile
    monkeypatch.setenv("SBERTLIB_OUTPUT_DIR", str(tmp_path))
    smoke = get_profile("smoke")
    stale = runs.model_dir(smoke, "stsb") / "checkpoint"
    stale.mkdir(parents=True)
    (stale / "state.pt").write_text("an interrupted fit run")
    objective, step_losses, seconds = _run(tiny_encoder)
    recipe = {"lr": smoke.stsb.lr, "epochs": smoke.stsb.epochs, "batch_size": smoke.stsb.batch_size}  # as 05 passes them
    runs.save_run(smoke, "stsb", objective, step_losses, seconds, trained_by="notebook 05: your train_loop", **recipe)
    assert runs.is_trained(smoke, "stsb") and not stale.exists()
    model, history = runs.trained_model(smoke, "stsb")
    assert history.losses == step_losses and history.loss == "ReferenceRegressionObjective"
    assert history.settings == {"trained_by": "notebook 05: your train_loop", **recipe}
    probe = ["A man plays a guitar."]
    assert np.allclose(model.encode(probe), objective.model.encode(probe), atol=1e-6)
    with pytest.raises(ValueError, match="no training steps"):
        runs.save_run(smoke, "two-stage", objective, [], 1.0, lr=1e-3)
