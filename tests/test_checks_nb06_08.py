"""The exercise checks of notebooks 06–08: each passes a right answer and rejects wrong ones."""
from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import torch

from sbertlib import paper
from sbertlib.workbook.lessons import ExerciseError, nb06, nb07, nb08


def _d(x, y):
    return torch.linalg.vector_norm(x - y, dim=1)


# ----------------------------------------------------------------------------- nb06: triplet loss
def good_triplet_loss(anchor, positive, negative, margin=1.0):
    return torch.relu(_d(anchor, positive) - _d(anchor, negative) + margin).mean()


def test_nb06_right_answer_passes(capsys):
    nb06.check_triplet_loss(good_triplet_loss)
    nb06.check_triplet_loss(lambda a, p, n, margin: torch.clamp(
        torch.norm(a - p, dim=-1) - torch.norm(a - n, dim=-1) + margin, min=0).mean())
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda a, p, n, margin: (_d(a, p) - _d(a, n) + margin).mean(), "hinge"),           # no relu
    (lambda a, p, n, margin: torch.relu(_d(a, p) - _d(a, n) + 1.0).mean(), "hard-code"),  # margin fixed at 1
    (lambda a, p, n, margin: torch.relu(_d(a, p) - _d(a, n) + 5.0).mean(), "hard-code"),  # s-t's default
    (lambda a, p, n, margin: torch.relu(_d(a, p) - _d(a, n)).mean(), None),              # no margin
    (lambda a, p, n, margin: torch.relu(_d(a, n) - _d(a, p) + margin).mean(), "swapped"),
    (lambda a, p, n, margin: torch.relu(_d(a, p) ** 2 - _d(a, n) ** 2 + margin).mean(), "squared"),
    (lambda a, p, n, margin: torch.relu(_d(a, p) - _d(a, n) + margin).sum(), "mean"),
    (lambda a, p, n, margin: torch.relu(_d(a, p) - _d(a, n) + margin), "scalar"),        # per-triplet vector
    (lambda a, p, n, margin: None, None),
    (lambda a, p, n, margin: ..., None),
])
def test_nb06_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb06.check_triplet_loss(wrong)


def test_nb06_stub_and_non_callable_fail():
    def stub(anchor, positive, negative, margin=1.0):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb06.check_triplet_loss(stub)
    with pytest.raises(ExerciseError):
        nb06.check_triplet_loss(good_triplet_loss(torch.zeros(2, 3), torch.ones(2, 3), torch.ones(2, 3)))


def test_nb06_reference_equals_library_loss():
    a, p, n = (torch.randn(5, 4, generator=torch.Generator().manual_seed(i)) for i in range(3))
    assert torch.allclose(nb06.reference_triplet_loss(a, p, n, 0.3), good_triplet_loss(a, p, n, 0.3))


# ----------------------------------------------------------------------------- nb07: classifier size
# ----------------------------------------------------------------------------- nb06: the objective, the distances
from sbertlib import losses  # noqa: E402


@pytest.fixture(scope="module")
def tiny_encoder():
    from sbertlib.model.encoder import SentenceEncoder
    return SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=32)


def make_triplet_objective(n_texts=(3,), use_margin=True, order=(0, 1, 2), keep_margin=True):
    class TripletObjective(losses.SBERTLoss):
        def __init__(self, model, margin=1.0):
            super().__init__(model)
            if keep_margin:
                self.margin = margin

        def loss_from_embeddings(self, embeddings, labels=None):
            a, p, n = (embeddings[i] for i in order)
            return good_triplet_loss(a, p, n, margin=self.margin if use_margin else 1.0)
    TripletObjective.n_texts = n_texts
    return TripletObjective


def test_nb06_triplet_objective_right_passes(tiny_encoder, capsys):
    nb06.check_triplet_objective(make_triplet_objective(), tiny_encoder)
    nb06.check_triplet_objective(losses.TripletLoss, tiny_encoder)
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, hint", [
    (make_triplet_objective(use_margin=False), "computed the loss for margin 1: the objective must pass its own margin"),
    (make_triplet_objective(n_texts=(2,)), "training refuses triplets"),
    (make_triplet_objective(order=(0, 2, 1)), r"order \(anchor, positive, negative\)"),
    (make_triplet_objective(keep_margin=False), "AttributeError"),
    (losses.MultipleNegativesRankingLoss, "TypeError|margin"),
])
def test_nb06_triplet_objective_wrong_fails(tiny_encoder, wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb06.check_triplet_objective(wrong, tiny_encoder)


def good_triplet_distances(model, triplets):
    a, p, n = (model.encode([getattr(t, c) for t in triplets], convert_to="torch") for c in ("anchor", "positive", "negative"))
    return _d(a, p), _d(a, n)


def test_nb06_triplet_distances_right_passes(capsys):
    nb06.check_triplet_distances(good_triplet_distances)
    nb06.check_triplet_distances(lambda m, t: tuple(x.numpy() for x in good_triplet_distances(m, t)))
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda m, t: good_triplet_distances(m, t)[::-1], "swapped"),
    (lambda m, t: tuple(x ** 2 for x in good_triplet_distances(m, t)), "squared distances"),
    (lambda m, t: good_triplet_distances(m, t)[0], "two arrays|two items|not a pair"),
    (lambda m, t: (np.zeros(len(t)), np.zeros(len(t))), "never called model.encode"),
])
def test_nb06_triplet_distances_wrong_fails(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb06.check_triplet_distances(wrong)


def test_nb06_triplet_distances_cosine_and_manhattan_are_named():
    def cosine(m, t):
        a, p, n = (m.encode([getattr(x, c) for x in t], convert_to="torch") for c in ("anchor", "positive", "negative"))
        return 1 - torch.cosine_similarity(a, p), 1 - torch.cosine_similarity(a, n)

    def manhattan(m, t):
        a, p, n = (m.encode([getattr(x, c) for x in t], convert_to="torch") for c in ("anchor", "positive", "negative"))
        return (a - p).abs().sum(1), (a - n).abs().sum(1)
    with pytest.raises(ExerciseError, match="cosine distance"):
        nb06.check_triplet_distances(cosine)
    with pytest.raises(ExerciseError, match="Manhattan"):
        nb06.check_triplet_distances(manhattan)


def good_triplet_scores(d_ap, d_an, margins):
    return 100 * np.mean(d_ap < d_an), {m: 100 * np.mean(d_an - d_ap >= m) for m in margins}


def test_nb06_triplet_scores_right_passes(capsys):
    nb06.check_triplet_scores(good_triplet_scores)
    assert "[OK] triplet_scores is right" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda p, n, ms: (np.mean(p < n), good_triplet_scores(p, n, ms)[1]), "share, not a percentage"),
    (lambda p, n, ms: (100 * np.mean(p <= n), good_triplet_scores(p, n, ms)[1]), "strictly closer"),
    (lambda p, n, ms: (100 * np.mean(p > n), good_triplet_scores(p, n, ms)[1]), "wrong way round"),
    (lambda p, n, ms: (good_triplet_scores(p, n, ms)[0], {m: 100 * np.mean(n - p > m) for m in ms}), "exactly ε"),
    (lambda p, n, ms: (good_triplet_scores(p, n, ms)[0], {m: 100 * np.mean(p - n >= m) for m in ms}), r"d\(a,n\) − d\(a,p\)"),
    (lambda p, n, ms: (good_triplet_scores(p, n, ms)[0], {1.0: 50.0}), "margins"),
    (lambda p, n, ms: good_triplet_scores(p, n, ms)[0], "two things"),
])
def test_nb06_triplet_scores_wrong_fails(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb06.check_triplet_scores(wrong)


def test_nb07_classifier_size_right(capsys):
    nb07.check_classifier_size(lambda concat, n, k: len(concat) * n * k + k)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda concat, n, k: len(concat) * n * k, "bias"),
    (lambda concat, n, k: 3 * n * k + k, "len\\(concat\\)"),
    (lambda concat, n, k: len(concat) * n, "feature size"),
    (lambda concat, n, k: len(concat) * n * 3 + 3, "not 3"),
    (lambda concat, n, k: None, None),
    (lambda concat, n, k: "lots", None),
])
def test_nb07_classifier_size_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb07.check_classifier_size(wrong)


# ----------------------------------------------------------------------------- nb07: what a part is worth
def _results(scores: dict[tuple[str, ...], float]) -> pd.DataFrame:
    rows = {"max pooling, (u, v, |u-v|)": {"pooling": "max", "concat": "(u, v, |u-v|)", "n_seeds": 2,
                                           "mean": 99.0, "std": 0.1}}  # first, as a table may order it
    for concat, score in scores.items():
        label = "(" + ", ".join(concat) + ")"
        rows[f"mean pooling, {label}"] = {"pooling": "mean", "concat": label, "n_seeds": 2,
                                          "mean": score, "std": 0.5 + score / 1000}
    return pd.DataFrame.from_dict(rows, orient="index")


RESULTS = _results({("u", "v"): 50.0, ("u", "v", "|u-v|"): 53.5, ("u", "v", "u*v"): 48.0, ("|u-v|",): 51.0})


def good_gain(results, part, base=("u", "v")):
    return nb07.grid_mean(results, base + (part,)) - nb07.grid_mean(results, base)


def _rows(results, concat):
    return results[results["concat"] == "(" + ", ".join(concat) + ")"]


def test_nb07_gain_right(capsys):
    nb07.check_gain(good_gain, "|u-v|", RESULTS)
    nb07.check_gain(lambda r, p, b=("u", "v"): torch.tensor(good_gain(r, p, b)), "|u−v|", RESULTS)  # a tensor, a − sign
    out = capsys.readouterr().out
    assert out.count("[OK]") == 4 and "|u-v| is worth more" in out and "+3.50" in out and "-2.00" in out


# Each wrong gain: the student's function written with that mistake, and the words its message must hold.
def _mean_row(r, concat, column="mean"):
    rows = _rows(r, concat)
    return float(rows[rows["pooling"] == "mean"][column].iloc[0])


@pytest.mark.parametrize("wrong, says", [
    (lambda r, p, b=("u", "v"): good_gain(r, p, b) * -1, "sign is flipped"),
    (lambda r, p, b=("u", "v"): good_gain(r, p, b) / nb07.grid_mean(r, b), "relative change"),
    (lambda r, p, b=("u", "v"): 100 * good_gain(r, p, b) / nb07.grid_mean(r, b), "in per cent"),
    (lambda r, p, b=("u", "v"): nb07.grid_mean(r, b + (p,)) / nb07.grid_mean(r, b), "ratio of the two scores"),
    (lambda r, p, b=("u", "v"): nb07.grid_mean(r, b + (p,)) - nb07.grid_mean(r, ("u", "v", "|u-v|")),
     "compared with the default"),
    (lambda r, p, b=("u", "v"): nb07.grid_mean(r, (p,)) - nb07.grid_mean(r, b), "the part alone"),
    (lambda r, p, b=("u", "v"): nb07.grid_mean(r, b + (p,)) - nb07.grid_mean(r, ("u", "v")), "always compared with (u, v)"),
    (lambda r, p, b=("u", "v"): nb07.grid_mean(r, ("u", "v", p)) - nb07.grid_mean(r, ("u", "v")), "left `base` out"),
    (lambda r, p, b=("u", "v"): _rows(r, b + (p,))["mean"].mean() - _rows(r, b)["mean"].mean(), "averaged every pooling"),
    (lambda r, p, b=("u", "v"): _rows(r, b + (p,))["mean"].iloc[0] - _rows(r, b)["mean"].iloc[0], "another pooling's"),
    (lambda r, p, b=("u", "v"): nb07.grid_mean(r, b + (p,)), "the score with the part itself"),
    (lambda r, p, b=("u", "v"): _mean_row(r, b + (p,), "std") - _mean_row(r, b, "std"), "'std' column"),
    (lambda r, p, b=("u", "v"): paper.TABLE6_CONCAT[b + (p,)] - paper.TABLE6_CONCAT[b], "the paper's gain"),
])
def test_nb07_gain_wrong_answers_are_named(wrong, says):
    with pytest.raises(ExerciseError, match=r"gain\(<DataFrame of shape") as err:
        nb07.check_gain(wrong, "|u-v|", RESULTS)
    assert says in str(err.value)


@pytest.mark.parametrize("wrong", [lambda r, p, b=("u", "v"): None, lambda r, p, b=("u", "v"): "big",
                                   lambda r, p, b=("u", "v"): good_gain(RESULTS, p, b)])   # not the table passed in
def test_nb07_gain_other_wrong_answers_fail_with_the_generic_hint(wrong):
    with pytest.raises(ExerciseError, match="from the table passed in"):
        nb07.check_gain(wrong, "|u-v|", RESULTS)


def test_nb07_gain_stub_and_its_error_are_reported_as_everywhere():
    def stub(results, part, base=("u", "v")):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb07.check_gain(stub, "|u-v|", RESULTS)
    with pytest.raises(ExerciseError, match="raised KeyError"):
        nb07.check_gain(lambda r, p, b=("u", "v"): r.loc[p, "mean"], "|u-v|", RESULTS)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb07.check_gain(3.5, "|u-v|", RESULTS)


@pytest.mark.parametrize("pick, says", [
    ("u*v", "gains +3.50, adding u*v -2.00"),
    (("u", "v", "|u-v|"), "the part alone, as a string"),
    ("diff", '"|u-v|" or "u*v"'),
    (..., '"|u-v|" or "u*v"'),
])
def test_nb07_most_important_wrong(pick, says):
    with pytest.raises(ExerciseError, match=re.escape(says)):
        nb07.check_gain(good_gain, pick, RESULTS)


def test_nb07_most_important_names_the_paper_and_the_size_slips(capsys):
    product_wins = _results({("u", "v"): 50.0, ("u", "v", "|u-v|"): 51.0, ("u", "v", "u*v"): 56.0})
    with pytest.raises(ExerciseError, match="that is the paper's finding"):
        nb07.check_gain(good_gain, "|u-v|", product_wins)
    nb07.check_gain(good_gain, "u*v", product_wins)
    out = capsys.readouterr().out
    assert "u*v first, unlike the paper" in out and "beyond 2 standard errors: u*v is worth more" in out
    costs_more = _results({("u", "v"): 50.0, ("u", "v", "|u-v|"): 46.0, ("u", "v", "u*v"): 51.0})
    with pytest.raises(ExerciseError, match="ranked the gains by their size"):
        nb07.check_gain(good_gain, "|u-v|", costs_more)


def test_nb07_gain_compares_the_two_with_their_standard_error(capsys):
    close = _results({("u", "v"): 50.0, ("u", "v", "|u-v|"): 50.05, ("u", "v", "u*v"): 49.1})
    nb07.check_gain(good_gain, "|u-v|", close)  # |u-v| − u*v = 0.95, se ≈ 0.55: within the seed noise
    out = capsys.readouterr().out
    assert "changes nothing measurable" in out and "worth more" not in out
    nb07.check_gain(good_gain, "|u-v|", close.assign(n_seeds=1, std=np.nan))
    assert "no standard error" in capsys.readouterr().out


def test_nb07_gain_needs_the_grid_rows():
    with pytest.raises(ExerciseError, match=r"no single row for mean pooling with \(u, v, u\*v\)"):
        nb07.check_gain(good_gain, "|u-v|", RESULTS.drop(index="mean pooling, (u, v, u*v)"))
    assert nb07.grid_mean(RESULTS, ("u", "v")) == 50.0


def test_nb07_gain_reference_and_probe_agree():
    import textwrap
    ex = next(e for e in nb07.EXERCISES if e.name == "gain")
    scope = {"_pd": pd, "_np": np, "gain": nb07.gain_truth}
    exec(textwrap.dedent(ex.probe_code).strip(), scope)
    assert scope["_result"] == pytest.approx([9.25, -2.25, -0.75, 3.5])
    assert next(e for e in nb07.EXERCISES if e.name == "most_important").probe is None


# ----------------------------------------------------------------------------- nb07: difference ± se
def good_diff(results, a, b):
    ra, rb = results.loc[a], results.loc[b]
    return ra["mean"] - rb["mean"], math.sqrt(ra["std"] ** 2 / ra["n_seeds"] + rb["std"] ** 2 / rb["n_seeds"])


def _seed_grid() -> pd.DataFrame:
    rows = {}
    for pooling, scores in (("mean", (71.6, 69.8, 70.4)), ("max", (28.9, 20.0, 17.2)), ("cls", (16.6, 19.3, 40.1))):
        s = pd.Series(scores)
        rows[f"{pooling} pooling, (u, v, |u-v|)"] = {"pooling": pooling, "concat": "(u, v, |u-v|)", "n_seeds": 3,
                                                      "mean": s.mean(), "std": s.std(ddof=1),
                                                      **{f"seed {i}": v for i, v in enumerate(scores, 1)}}
    return pd.DataFrame.from_dict(rows, orient="index")


def test_nb07_difference_right(capsys):
    nb07.check_difference(good_diff, _seed_grid())
    nb07.check_difference(lambda r, a, b: [np.float64(x) for x in good_diff(r, a, b)])  # any pair of numbers
    assert capsys.readouterr().out.count("[OK]") == 2


def _s(r, a, b):
    return r.loc[a], r.loc[b]


@pytest.mark.parametrize("wrong, hint", [
    (lambda r, a, b: (-good_diff(r, a, b)[0], good_diff(r, a, b)[1]), "sign"),
    (lambda r, a, b: (good_diff(r, a, b)[0], math.hypot(_s(r, a, b)[0]["std"], _s(r, a, b)[1]["std"])), "number of seeds"),
    (lambda r, a, b: (good_diff(r, a, b)[0], _s(r, a, b)[0]["std"] / math.sqrt(_s(r, a, b)[0]["n_seeds"])
                      + _s(r, a, b)[1]["std"] / math.sqrt(_s(r, a, b)[1]["n_seeds"])), "quadrature"),
    (lambda r, a, b: (good_diff(r, a, b)[0], _s(r, a, b)[0]["std"] + _s(r, a, b)[1]["std"]), "adds the two stds"),
    (lambda r, a, b: (good_diff(r, a, b)[0], _s(r, a, b)[0]["std"] / math.sqrt(_s(r, a, b)[0]["n_seeds"])), "second row"),
    (lambda r, a, b: (good_diff(r, a, b)[0], math.sqrt(sum(
        pd.Series([x[c] for c in r.columns if c.startswith("seed ")]).dropna().std(ddof=0) ** 2 / x["n_seeds"]
        for x in _s(r, a, b)))), "sample std"),
    (lambda r, a, b: good_diff(r, a, b)[0], "pair"),
    (lambda r, a, b: None, None),
    (lambda r, a, b: (..., 1.0), None),
])
def test_nb07_difference_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb07.check_difference(wrong, _seed_grid())


def test_nb07_difference_not_a_function():
    with pytest.raises(ExerciseError):
        nb07.check_difference(3.0)


# ----------------------------------------------------------------------------- nb08: majority baseline
def good_majority(task):
    if task.splits:
        train, test = task.split("train")[1], task.split("test")[1]
        top = Counter(train).most_common(1)[0][0]
        return 100.0 * sum(y == top for y in test) / len(test)
    return 100.0 * Counter(task.labels).most_common(1)[0][1] / len(task.labels)


def test_nb08_right_answer_passes(capsys, shared_data):
    nb08.check_majority_baseline(good_majority)
    from sbertlib.evaluation import transfer as senteval
    tasks = senteval.load_tasks(["MR", "TREC"], data_dir=shared_data, max_examples=60)
    nb08.check_majority_baseline(good_majority, tasks)
    assert capsys.readouterr().out.count("[OK]") == 2


def _test_majority(task):  # majority of the test split: peeking
    labels = task.split("test")[1] if task.splits else task.labels
    return 100.0 * Counter(labels).most_common(1)[0][1] / len(labels)


def _all_labels_majority(task):  # majority over every split
    top = Counter(task.labels).most_common(1)[0][0]
    test = task.split("test")[1] if task.splits else task.labels
    return 100.0 * sum(y == top for y in test) / len(test)


@pytest.mark.parametrize("wrong, hint", [
    (lambda task: good_majority(task) / 100, "fraction"),
    (_test_majority, "test"),
    (_all_labels_majority, "every split"),
    (lambda task: 50.0, None),
    (lambda task: None, None),
    (lambda task: "majority", None),
])
def test_nb08_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb08.check_majority_baseline(wrong)


# ----------------------------------------------------------------------------- nb08: standardise (§5)
def good_standardise(reference, vectors, ddof=0):
    reference, vectors = np.asarray(reference, dtype=np.float64), np.asarray(vectors, dtype=np.float64)
    std = reference.std(axis=0, ddof=ddof)
    return (vectors - reference.mean(axis=0)) / np.where(std > 0, std, 1.0)


def test_nb08_standardise_right(capsys):
    nb08.check_standardise(good_standardise)
    nb08.check_standardise(lambda r, x: good_standardise(r, x, ddof=1))                 # either ddof
    nb08.check_standardise(lambda r, x: torch.from_numpy(good_standardise(r, x)))      # a tensor is fine
    assert capsys.readouterr().out.count("[OK]") == 3


def test_nb08_standardise_truth_centres_and_scales_with_the_reference():
    ref = np.array([[0.0, 10.0], [2.0, 30.0]])
    assert np.allclose(nb08.standardise_truth(ref, np.array([[1.0, 20.0], [3.0, 40.0]])), [[0, 0], [2, 2]])


@pytest.mark.parametrize("wrong, hint", [
    (lambda r, x: (x - x.mean(axis=0)) / x.std(axis=0), "vectors"),          # statistics of the scored vectors
    (lambda r, x: x / r.std(axis=0), "subtract"),                             # not centred
    (lambda r, x: (x - r.mean(axis=0)) / r.var(axis=0), "variance"),
    (lambda r, x: (x - r.mean()) / r.std(), "per dimension"),                 # one number for all dimensions
    (lambda r, x: x - r.mean(axis=0), "scale"),
    (lambda r, x: good_standardise(r, x).mean(axis=0), "shape"),
    (lambda r, x: None, None),
    # issue 29: these passed before
    (lambda r, x: (x - r.mean(axis=0)) / r.std(axis=0), "no spread"),                 # divides by zero: nan, inf
    (lambda r, x: (x - r.mean(axis=0)) / np.clip(r.std(axis=0), 1e-12, None), "no spread"),  # huge, not centred
    (lambda r, x: (x - r.mean(axis=0)) / np.where(r.std(axis=0) > 0, r.std(axis=0), 1.0), "float64"),  # float32 kept
])
def test_nb08_standardise_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb08.check_standardise(wrong)
