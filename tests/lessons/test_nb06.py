"""Notebook 06's checks beyond their declarations (sbertlib.workbook.lessons.nb06): right answers written other ways
pass, and what a declaration cannot say is named. Each declared slip is run by tests/lessons/test_declared.py."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from sbertlib import data, losses
from sbertlib.workbook.lessons import ExerciseError, nb06


def hinge(d_ap, d_an, margin):
    return torch.relu(d_ap - d_an + margin).mean()


@pytest.mark.parametrize("triplet_loss", [
    lambda a, p, n, margin=1.0: hinge(torch.linalg.vector_norm(a - p, dim=1), torch.linalg.vector_norm(a - n, dim=1),
                                      margin),
    lambda a, p, n, margin=1.0: hinge(F.pairwise_distance(a, p), F.pairwise_distance(a, n), margin),
    lambda a, p, n, margin=1.0: hinge(torch.cdist(a, p).diagonal(), torch.cdist(a, n).diagonal(), margin),
    lambda a, p, n, margin=1.0: hinge(torch.norm(a - p, dim=-1), torch.norm(a - n, dim=-1), margin),
    lambda a, p, n, margin=1.0: hinge(((a - p) ** 2).sum(1).sqrt(), ((a - n) ** 2).sum(1).sqrt(), margin).double(),
    lambda a, p, n, margin=1.0: F.triplet_margin_loss(a, p, n, margin=margin),
    lambda a, p, n, margin=1.0: torch.clamp((a - p).norm(dim=1) - (a - n).norm(dim=1) + margin, min=0).mean(),
], ids=["vector_norm", "pairwise_distance", "cdist", "torch.norm", "float64", "triplet_margin_loss", "clamp"])
def test_a_triplet_loss_written_another_way_passes_even_after_a_tutorials_matmul_precision(triplet_loss,
                                                                                          high_precision, capsys):
    nb06.check_triplet_loss(triplet_loss)
    assert "[OK]" in capsys.readouterr().out


def objective(loss_of=lambda self, a, p, n: nb06.reference_triplet_loss(a, p, n, self.margin), n_texts=(3,)):
    class TripletObjective(losses.SBERTLoss):
        def __init__(self, model, margin=1.0):
            super().__init__(model)
            self.margin = margin

        def loss_from_embeddings(self, embeddings, labels=None):
            return loss_of(self, *embeddings)
    TripletObjective.n_texts = n_texts
    return TripletObjective


@pytest.mark.parametrize("loss_of", [
    lambda self, a, p, n: F.triplet_margin_loss(a, p, n, margin=self.margin),
    lambda self, a, p, n: nb06.reference_triplet_loss(a.double(), p.double(), n.double(), self.margin),
], ids=["triplet_margin_loss", "float64"])
def test_a_triplet_objective_written_another_way_passes(loss_of, tiny_encoder, high_precision, capsys):
    nb06.check_triplet_objective(objective(loss_of), tiny_encoder)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("cls, says", [
    # issue 37: MNRL's n_texts was accepted on a triplet objective
    (objective(n_texts=(2, 3)), r"n_texts is \(2, 3\)"),
    (objective(lambda self, a, p, n: nb06.reference_triplet_loss(a, p, n)),
     "that is the loss for margin=1.0, but this objective was built with margin=0.3: use self.margin"),
    # a triplet_loss right in value that returns a plain number or a detached tensor trains nothing
    (objective(lambda self, a, p, n: float(nb06.reference_triplet_loss(a, p, n, self.margin))), "plain number"),
    (objective(lambda self, a, p, n: nb06.reference_triplet_loss(a, p, n, self.margin).detach()), "detached"),
    (objective(lambda self, a, p, n: nb06.reference_triplet_loss(a, n, p, self.margin)),
     "the columns in their order"),
    (type("TripletObjective", (objective(),), {"__init__": lambda self, model, margin=1.0: setattr(self, "model", model)}),
     r"never called super\(\).__init__\(model\)"),      # trial t0406 06.3-07: nn.Module refuses self.model first
])
def test_a_triplet_objectives_mistakes_are_named(cls, says, tiny_encoder):
    with pytest.raises(ExerciseError, match=says):
        nb06.check_triplet_objective(cls, tiny_encoder)


def test_triplets_from_nli_as_tuples_or_triplets_pass(capsys):
    nb06.check_nli_triplets(lambda pairs: [(t.anchor, t.positive, t.negative) for t in data.nli_triplets(pairs)])
    nb06.check_nli_triplets(lambda pairs: (t for t in data.nli_triplets(pairs)))
    assert capsys.readouterr().out.count("[OK]") == 2


def literal_triplets(pairs):
    """Contradicting hypotheses not de-duplicated (a repeated contradiction pair kept): trial t0406's 06.1-02."""
    by = {}
    for p in pairs:
        entailed, contradicting = by.setdefault(p.premise, ([], []))
        if p.label == "entailment" and p.hypothesis not in entailed:
            entailed.append(p.hypothesis)
        elif p.label == "contradiction":
            contradicting.append(p.hypothesis)
    return [data.Triplet(k, h, c[i % len(c)]) for k, (e, c) in by.items() if c for i, h in enumerate(e)]


@pytest.mark.parametrize("returns", [
    lambda a, p, n: (torch.linalg.vector_norm(a - p, dim=1), torch.linalg.vector_norm(a - n, dim=1)),
    lambda a, p, n: [np.linalg.norm((a - p).numpy(), axis=1).tolist(), np.linalg.norm((a - n).numpy(), axis=1)],
    lambda a, p, n: (F.pairwise_distance(a, p).numpy(), torch.cdist(a, n).diagonal().numpy()),
], ids=["tensors", "a list and an array", "pairwise_distance and cdist"])
def test_triplet_distances_written_another_way_pass(returns, capsys):
    def triplet_distances(model, triplets):
        a, p, n = (model.encode([getattr(t, c) for t in triplets], convert_to="torch")
                   for c in ("anchor", "positive", "negative"))
        return returns(a, p, n)
    nb06.check_triplet_distances(triplet_distances)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("triplet_scores", [
    lambda d_ap, d_an, margins: (100 * np.mean(np.asarray(d_ap) < np.asarray(d_an)),
                                 {m: 100 * np.mean(np.asarray(d_an) - np.asarray(d_ap) >= m) for m in margins}),
    lambda d_ap, d_an, margins: (float((torch.tensor(d_ap) < torch.tensor(d_an)).double().mean() * 100),
                                 {m: float(((torch.tensor(d_an) - torch.tensor(d_ap)) >= m).double().mean() * 100)
                                  for m in margins}),
    lambda d_ap, d_an, margins: (lambda p, n: (100 * (p < n).float().mean().item(), {  # float32: the ties at ε hold
        m: 100 * (n - p >= m).float().mean().item() for m in margins}))(*(torch.tensor(d).float() for d in (d_ap, d_an))),
], ids=["numpy", "torch", "float32"])
def test_triplet_scores_written_another_way_pass(triplet_scores, capsys):
    nb06.check_triplet_scores(triplet_scores)
    assert "[OK]" in capsys.readouterr().out


def _adjacent_only(pairs):
    """nli_to_triplets whose premises' repeated hypotheses are removed only next to each other (trial 6, 2026-12-08)."""
    groups, once = {}, lambda hs: [h for i, h in enumerate(hs) if i == 0 or h != hs[i - 1]]
    for p in pairs:
        groups.setdefault(p.premise, {}).setdefault(p.label, []).append(p.hypothesis)
    return [data.Triplet(k, h, once(g["contradiction"])[j % len(once(g["contradiction"]))]) for k, g in groups.items()
            if "contradiction" in g for j, h in enumerate(once(g.get("entailment", [])))]


def _distances(cut=lambda cols: cols):
    """triplet_distances of the columns, each encoded in order, as ``cut`` (a mistake's) leaves them."""
    def triplet_distances(model, triplets):
        a, p, n = cut([model.encode([getattr(t, c) for t in triplets]) for c in ("anchor", "positive", "negative")])
        return np.linalg.norm(a - p, axis=1), np.linalg.norm(a - n, axis=1)
    return triplet_distances


@pytest.mark.parametrize("check, fn, says", [
    # issue 37: cosine or L1 distance was told to "compare step by step"; the second trial's TL-W7 "a norm with no dim"
    (nb06.check_triplet_loss, lambda a, p, n, margin=1.0: hinge(1 - F.cosine_similarity(a, p), 1 - F.cosine_similarity(
        a, n), margin), "cosine distance 1 − cos"),
    (nb06.check_triplet_loss, lambda a, p, n, margin=1.0: hinge(F.pairwise_distance(a, p, p=1), F.pairwise_distance(
        a, n, p=1), margin), r"Manhattan \(L1\) distance"),
    (nb06.check_triplet_loss, lambda a, p, n, margin=1.0: torch.relu((a - p).norm(dim=1) - (a - n).norm(dim=1) + margin),
     r"(?s)not one number.*\.mean\(\)"),
    (nb06.check_triplet_loss, lambda a, p, n, margin=1.0: torch.clamp(((a - p).norm(dim=1) - (a - n).norm(dim=1) +
                                                                     margin).mean(), min=0), "the hinge after the mean"),
    (nb06.check_triplet_loss, lambda a, p, n, margin=1.0: hinge((a.sub_(a.mean(0)) - p).norm(dim=1), (a - n).norm(
        dim=1), margin), "changed its first argument .* in place"),
    (nb06.check_nli_triplets, literal_triplets, "a contradiction twice in the file is one hypothesis"),
    # trial 6 (2026-12-08): repeats removed only next to each other passed; a premise without a contradiction got a count
    (nb06.check_nli_triplets, _adjacent_only, "some triplets repeat"),
    (nb06.check_nli_triplets, lambda ps: data.nli_triplets(ps) + [data.Triplet("P4", "P4 e1", "P4 n1")] * any(
        p.premise == "P4" for p in ps), r"'P4' gets more triplets .* 0 contradiction"),
    # trial 5 (2026-12-07): an interleaved encode split as columns, the first anchor against every positive
    (nb06.check_triplet_distances, _distances(lambda c: np.stack([v for t in zip(*c) for v in t]).reshape(3, -1, 6)),
     "your vectors lost their alignment"),
    (nb06.check_triplet_distances, _distances(lambda c: [c[0][:1].repeat(len(c[0]), 0), *c[1:]]), "lost their alignment"),
    # trial 6: the first 64 triplets only passed; float16 was told "a square, a root"
    (nb06.check_triplet_distances, lambda m, ts: nb06.triplet_distances_truth(m, ts[:64]), "64 items where the inputs"),
    (nb06.check_triplet_distances, lambda m, ts: tuple(x.astype(np.float16) for x in nb06.triplet_distances_truth(
        m, ts)), "lower precision"),
    # trial 6: d(p, n) was told "the hinge after the mean" (both 0 on the first input): a slip now fits every input
    (nb06.check_triplet_loss, lambda a, p, n, margin=1.0: hinge(F.pairwise_distance(a, p), F.pairwise_distance(p, n),
                                                               margin), "the positive's to the negative"),
])
def test_a_mistake_written_the_students_way_is_named(check, fn, says):
    with pytest.raises(ExerciseError, match=says) as refused:
        check(fn)
    assert "expected" not in str(refused.value)
