"""The checks of notebook 06 (triplet objective): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb06)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from sbertlib import data, losses
from sbertlib.data import Triplet
from sbertlib.workbook import profiles
from sbertlib.workbook.lessons import ExerciseError, nb06
from sbertlib.workbook.profiles import PROFILES


def _d(x, y):
    return torch.linalg.vector_norm(x - y, dim=1)


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


@pytest.mark.parametrize("wrong, says", [
    (lambda a, p, n, margin: float(good_triplet_loss(a, p, n, margin)), "detached"),
    (lambda a, p, n, margin: good_triplet_loss(a, p.detach(), n, margin), "gradient into the positives"),
    (lambda a, p, n, margin: 0.5 * good_triplet_loss(a, p, n, margin) + 0.5 * good_triplet_loss(a, p, n, margin).detach(),
     "0.5× the loss's gradient"),
])
def test_nb06_triplet_loss_right_in_value_only_fails(wrong, says):
    with pytest.raises(ExerciseError, match=says):
        nb06.check_triplet_loss(wrong)


def test_nb06_triplet_objective_right_passes(tiny_encoder, capsys):
    nb06.check_triplet_objective(make_triplet_objective(), tiny_encoder)
    assert capsys.readouterr().out.count("[OK]") == 1
    with pytest.raises(ExerciseError, match="you passed the library's TripletLoss, not your TripletObjective"):
        nb06.check_triplet_objective(losses.TripletLoss, tiny_encoder)


@pytest.mark.parametrize("wrong, hint", [
    (make_triplet_objective(use_margin=False), "computed the loss for margin 1: the objective must pass its own margin"),
    (make_triplet_objective(n_texts=(2,)), "training refuses triplets"),
    (make_triplet_objective(order=(0, 2, 1)), r"order \(anchor, positive, negative\)"),
    (make_triplet_objective(keep_margin=False), "AttributeError"),
    (losses.MultipleNegativesRankingLoss, "you passed the library's MultipleNegativesRankingLoss"),
    (type("TripletObjective", (losses.TripletLoss,), {}), "extends the library's TripletLoss"),
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


def _grouped(pairs, labels=("entailment", "contradiction"), distinct=True):
    by = {}
    for p in pairs:
        hyps = by.setdefault(p.premise, {k: [] for k in labels})
        if p.label in hyps and not (distinct and p.hypothesis in hyps[p.label]):
            hyps[p.label].append(p.hypothesis)
    return by


def right(pairs):
    out = []
    for premise, h in _grouped(pairs).items():
        pos, neg = h["entailment"], h["contradiction"]
        out += [Triplet(premise, x, neg[k % len(neg)]) for k, x in enumerate(pos)] if neg else []
    return out


def as_tuples(pairs):
    return [(t.anchor, t.positive, t.negative) for t in right(pairs)]


def always_first_negative(pairs):
    return [(a, pos, h["contradiction"][0]) for a, h in _grouped(pairs).items() if h["contradiction"]
            for pos in h["entailment"]]


def neutral_as_negative(pairs):
    out = []
    for a, h in _grouped(pairs, ("entailment", "contradiction", "neutral")).items():
        neg = h["contradiction"] + h["neutral"]
        out += [(a, x, neg[k % len(neg)]) for k, x in enumerate(h["entailment"])] if neg else []
    return out


def swapped(pairs):
    return [(t.anchor, t.negative, t.positive) for t in right(pairs)]


def repeated_pairs_kept(pairs):
    out = []
    for a, h in _grouped(pairs, distinct=False).items():
        neg = h["contradiction"]
        out += [(a, x, neg[k % len(neg)]) for k, x in enumerate(h["entailment"])] if neg else []
    return out


def contradictions_not_deduplicated(pairs):
    out = []
    for a, h in _grouped(pairs, distinct=False).items():
        pos = list(dict.fromkeys(h["entailment"]))
        neg = h["contradiction"]
        out += [(a, x, neg[k % len(neg)]) for k, x in enumerate(pos)] if neg else []
    return out


def sorted_order(pairs):
    return sorted(as_tuples(pairs))


def one_per_premise(pairs):
    return [t for t in as_tuples(pairs) if t[1] == _grouped(pairs)[t[0]]["entailment"][0]]


def test_right_answers_pass(capsys):
    nb06.check_nli_triplets(right)
    nb06.check_nli_triplets(as_tuples)               # plain tuples are fine
    nb06.check_nli_triplets(data.nli_triplets)
    assert capsys.readouterr().out.count("[OK]") == 3


@pytest.mark.parametrize("wrong, hint", [
    (always_first_negative, "1st entailed hypothesis takes the 1st"),
    (contradictions_not_deduplicated, "a repeated pair counts once"),
    (neutral_as_negative, "neutral hypothesis is neither"),
    (swapped, "swapped"),
    (repeated_pairs_kept, "repeated"),
    (sorted_order, "another order"),
    (one_per_premise, "gave no triplet"),
    (lambda pairs: [], "gave no triplet"),
])
def test_usual_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint) as err:
        nb06.check_nli_triplets(wrong)
    assert "Triplet(premise, h" not in str(err.value)       # the answer's code is not printed


def test_stub_and_bad_returns():
    def stub(pairs):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb06.check_nli_triplets(stub)
    with pytest.raises(ExerciseError, match="returned None"):
        nb06.check_nli_triplets(lambda pairs: None)
    with pytest.raises(ExerciseError, match="not a triplet"):
        nb06.check_nli_triplets(lambda pairs: [(p.premise, p.hypothesis) for p in pairs])
    with pytest.raises(ExerciseError, match="function itself"):
        nb06.check_nli_triplets(right([]))


def test_the_pools_are_made_by_the_function_given(shared_data):
    """triplet_pools(make_triplets=...) builds both pools with the student's function (tuples become Triplets)."""
    calls = []

    def mine(pairs):
        calls.append(len(pairs))
        return as_tuples(pairs)
    train, heldout, _ = profiles.triplet_pools(PROFILES["offline"], shared_data, make_triplets=mine)
    assert len(calls) == 2 and all(isinstance(t, Triplet) for t in train + heldout)
    assert (train, heldout) == profiles.triplet_pools(PROFILES["offline"], shared_data)[:2]


def test_n_texts_given_as_a_number_is_named(tiny_encoder):
    """A student trial: `n_texts = 3` (a number, not a tuple) gave a bare TypeError from the library."""
    from sbertlib import losses
    from sbertlib.training import prepare_examples

    class NumberNTexts(losses.SBERTLoss):
        n_texts = 3

        def __init__(self, model, margin=1.0):
            super().__init__(model)
            self.margin = margin
    with pytest.raises(ExerciseError, match=r"n_texts is 3, a int: training reads it as a tuple"):
        nb06.check_triplet_objective(NumberNTexts, tiny_encoder)
    with pytest.raises(TypeError, match=r"NumberNTexts.n_texts must be a tuple"):
        prepare_examples([Triplet("a", "b", "c")], NumberNTexts(tiny_encoder))
