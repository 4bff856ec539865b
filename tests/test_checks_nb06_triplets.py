"""Notebook 06, Exercise 1: triplets from NLI pairs — the right answer passes, each usual slip is named."""
from __future__ import annotations

import pytest

from sbertlib import data
from sbertlib.data import Triplet
from sbertlib.workbook import profiles
from sbertlib.workbook.lessons import ExerciseError, nb06
from sbertlib.workbook.profiles import PROFILES


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


@pytest.fixture(scope="module")
def tiny_encoder():
    from sbertlib.model.encoder import SentenceEncoder
    return SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=32, device="cpu")
