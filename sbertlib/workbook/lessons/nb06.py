"""Self-checks for notebook 06: triplets from NLI, the triplet loss and objective, held-out distances and scores."""
from dataclasses import astuple

import numpy as np
import torch
import torch.nn.functional as F

from ...data import NLIPair, Triplet, nli_triplets
from ...losses import TripletLoss
from . import Exercise, Objective, _guarded, call, guard, require, require_gradient, two_items, within
from .kinds import as_number, close
from .nb03 import MNRL
from .nb04 import HiddenEncoder, _any, _either

EUCLIDEAN = lambda x, y: (((x - y) ** 2).sum(1)) ** 0.5  # noqa: E731 - row by row, for numpy and torch alike
COSINE = lambda x, y: 1 - (x * y).sum(1) / ((x * x).sum(1) * (y * y).sum(1)) ** 0.5  # noqa: E731
MANHATTAN, SQUARED = (lambda x, y: abs(x - y).sum(1)), (lambda x, y: ((x - y) ** 2).sum(1))
CDIST = lambda x, y: (((x[:, None] - y[None]) ** 2).sum(2)) ** 0.5  # noqa: E731 - every row against every row, B × B


# ----------------------------------------------------------------------------- triplets from NLI
def _triplets(pairs, pos=("entailment",), neg=("contradiction",), once=True, order=list, hyps=list, each=None,
              out=lambda k, h, n: (k, h, n), once_neg=True, sort_negs=False):
    """data.nli_triplets; a slip: other labels, repeats kept (``once``: entailed, ``once_neg``: contradicting), another
    ``order``, ``hyps``, ``each`` or ``out``, or negatives sorted."""
    by: dict = {}
    for p in pairs:
        for side, labels, o in zip(by.setdefault(p.premise, ([], [])), (pos, neg), (once, once_neg)):
            if p.label in labels and not (o and p.hypothesis in side):
                side.append(p.hypothesis)
    each = each or (lambda ns, j: ns[j % len(ns):][:1] if ns else [])
    return [out(k, h, n) for k in order(by) for ps, ns in [by[k]] for j, h in enumerate(hyps(ps))
            for n in each(sorted(ns) if sort_negs else ns, j)]




def _triples(got, what: str = "") -> list[tuple]:
    """The student's triplets as plain tuples (a Triplet or a tuple of three texts, each right)."""
    got = list(got)   # a generator is read once
    require(not any(isinstance(t, dict) for t in got), f"{what} returned dicts",
            "return a data.Triplet(anchor, positive, negative) for each, not a dict")
    return [astuple(t) if isinstance(t, Triplet) else tuple(t) for t in got]


_n = lambda *alt, **slip: lambda pairs: _any(*(_triplets(pairs, **s) for s in alt or [slip]))  # noqa: E731
# premises P6 … P1 in that order; out of alphabetical order; P3 repeats an entailed pair, P2 a contradiction (harmless
# there: one entailed hypothesis); "e0" is entailed by P6 and P2; P4 contradicts nothing, P5 entails nothing; P1 wraps
# round. The second input's P7 repeats a contradiction that shifts the turns: negatives c1, c2, c1 (kept: c1, c1, c2)
ROWS7 = "7e1 7c1 7c1 7e2 7c2 7e3 7e1".split()   # its e1 again, apart from the first: one hypothesis
ROWS, LABEL = ("6e3 5c1 6n1 6c2 4e1 6e1 6c1 4n1 3c1 3e2 5n1 3e2 6e0 6c3 2e0 2c1 2c1 3e1 3c2 2c2 1e2 1e1 1c2 2n1 1e3 "
               "1c1").split(), {"e": "entailment", "n": "neutral", "c": "contradiction"}
def _premises_off(fn, got, pairs) -> str:
    """The premises that got more or fewer triplets than they should, each as the input has it (never the count)."""
    from collections import Counter
    want, mine = Counter(t.anchor for t in nli_triplets(pairs)), Counter(t[0] for t in _triples(got))
    off = [q for q in dict.fromkeys(x.premise for x in pairs) if mine[q] != want[q]]

    def rows(q, label):
        hyps = [x.hypothesis for x in pairs if x.premise == q and x.label == label]
        return f"{len(hyps)} {label}" + (f" ({len(set(hyps))} distinct)" if len(set(hyps)) < len(hyps) else "")
    return "; ".join(f"{q!r} gets {'more' if mine[q] > want[q] else 'fewer'} triplets than it should — its rows: "
                     + ", ".join(rows(q, label) for label in ("entailment", "contradiction", "neutral"))
                     for q in off[:2]) + (": one triplet per distinct entailed hypothesis, none for a premise that "
                                          "lacks either kind" if off else "")


NLI_TRIPLETS = Exercise(
    "nli_to_triplets", reference=nli_triplets, returns=_triples, compare=_either(lambda g, w: g == _triples(w)),
    inputs=lambda: [([NLIPair(f"P{r[0]}", r[1:] if r[2] == "0" else f"P{r[0]} {r[1:]}", LABEL[r[1]]) for r in rows],)
                    for rows in (ROWS, ROWS7)] + [([],)], diagnose=_premises_off,
    slips={"positive and negative swapped: the positive is the entailed hypothesis, the negative a contradicting one":
               _n(out=lambda k, h, n: (k, n, h)),
           "one triplet per contradicting hypothesis: make one per distinct entailed hypothesis, the positive":
               _n(pos=("contradiction",), neg=("entailment",)),
           "a neutral hypothesis is not a negative: the negative is one the premise contradicts":
               _n({"neg": ("neutral",)}, {"neg": ("contradiction", "neutral")}),
           "a neutral hypothesis is not a positive: the positive is entailed": _n(pos=("entailment", "neutral")),
           "a premise that contradicts nothing gave triplets with no negative (None): it gives no triplet":
               _n(each=lambda ns, j: ns[j % len(ns):][:1] if ns else [None]),
           "some triplets repeat: a pair twice in the file is one hypothesis — take each once": _n(once=False),
           "a contradiction twice in the file is one hypothesis: kept twice, it takes two turns and shifts the "
           "negatives after it — take each contradicting hypothesis once": _n(once_neg=False),
           "every triplet took the premise's first contradiction: take them in turn": _n(each=lambda ns, j: ns[:1]),
           "the premises are in alphabetical order: keep the order they first appear in": _n(order=sorted),
           "a premise's hypotheses are sorted (sorted(set(…)) is alphabetical): keep its entailed and contradicting "
           "ones in file order": _n({"hyps": sorted}, {"sort_negs": True}, {"hyps": sorted, "sort_negs": True}),
           "the turns start at the premise's second contradiction: its first entailed hypothesis takes the first "
           "(index j % len, j from 0)": _n(each=lambda ns, j: ns[(j + 1) % len(ns):][:1] if ns else []),
           "you paired only rows next to each other in the file: gather each premise's hypotheses over the whole file "
           "first (a dict by premise)": lambda ps: [(a.premise, a.hypothesis, b.hypothesis) for a, b in zip(ps, ps[1:])
               if (a.premise, a.label, b.label) == (b.premise, "entailment", "contradiction")],
           "one triplet per entailed hypothesis, not one per (entailed, contradicting) pair": _n(each=lambda ns, j: ns),
           "a premise with more entailed hypotheses than contradictions lost some: zip stops at the shorter list — "
           "take the contradictions in turn, starting again at the first": _n(each=lambda ns, j: ns[j:j + 1]),
           "after its last contradiction a premise kept taking that one: start again at the first (j % len)":
               _n(each=lambda ns, j: ns[min(j, len(ns) - 1):][:1]),
           "every triplet took the premise's last contradiction: take them in turn": _n(each=lambda ns, j: ns[-1:]),
           "one triplet per premise: make one per distinct entailed hypothesis": _n(hyps=lambda ps: ps[:1]),
           "the anchor is the premise, the positive its entailed hypothesis: you swapped them":
               _n(out=lambda k, h, n: (h, k, n))},
    hint="(premise, entailed, contradicting): one per distinct entailed hypothesis, premises lacking either skipped; "
         "each premise's negatives in turn, counted from its own first")


# ----------------------------------------------------------------------------- the triplet loss and objective
def reference_triplet_loss(anchor, positive, negative, margin: float = 1.0, d=EUCLIDEAN, hinge=torch.relu,
                           reduce=torch.mean):
    """``mean(max(d(a,p) − d(a,n) + ε, 0))``, Euclidean, as TripletLoss; a slip: another ``d``, hinge, reduction."""
    return reduce(hinge(d(anchor, positive) - d(anchor, negative) + margin))


def _hidden_cases() -> list[tuple]:
    g = torch.Generator().manual_seed(2019)      # first: most negatives far (the hinge), a third of the positives
    a, far = torch.randn(12, 6, generator=g), torch.where(torch.arange(12).unsqueeze(1) % 3 == 0, 4.0, 0.3)
    cases = [(a, a + far * torch.randn(12, 6, generator=g), a + (4.3 - far) * torch.randn(12, 6, generator=g))]
    cases += [tuple(torch.randn(b, n, generator=g) for _ in range(3)) for b, n in ((8, 5), (3, 16), (16, 4))]
    u = torch.randn(2, 4, 6, generator=g)   # first of all: the mean gap under −ε, the whole batch's norms' over it
    gaps = torch.tensor([[4, 2.5, .3, .1], [2, 2.2, 2.9, 2.9]]).unsqueeze(2) * u / u.norm(dim=2, keepdim=True)
    return [(a[:4], a[:4] + gaps[0], a[:4] + gaps[1], 0.45)] + [(*c, m) for c in cases for m in (1.0, 0.1, 0.5, 5.0)] \
        + [cases[1]]   # no margin given: the default's


def _t(m=None, swap=False, **slip):
    return lambda a, p, n, margin=1.0: reference_triplet_loss(a, *((n, p) if swap else (p, n)),
                                                              margin if m is None else m(margin), **slip)


TRIPLET_LOSS = Exercise(
    "triplet_loss", reference=reference_triplet_loss, kept=True, inputs=_hidden_cases, returns=as_number,
    compare=lambda got, want: close(float(got), float(want)),
    slips={"that is the cosine distance 1 − cos: the paper's triplet loss is Euclidean, ‖a − p‖": _t(d=COSINE),
           "that is the Manhattan (L1) distance, a sum of |differences|: use the Euclidean one": _t(d=MANHATTAN),
           "those are squared distances: the Euclidean distance is the square root": _t(d=SQUARED),
           "the hinge max(·, 0) is missing: a triplet meeting the margin adds 0, not less": _t(hinge=lambda v: v),
           "abs() is no hinge: a triplet meeting the margin (a negative value) adds 0": _t(hinge=torch.abs),
           "clamp(max=0) keeps the negative side: the hinge is max(·, 0), clamp(min=0)": _t(hinge=lambda v: v.clamp(
               max=0)),
           "the margin is subtracted: max(d(a,p) − d(a,n) + ε, 0)": _t(m=lambda e: -e),
           "clamp(min=ε) makes ε the floor of each triplet's loss: add ε to the gap, then clamp at 0, "
           "max(d(a,p) − d(a,n) + ε, 0)": lambda a, p, n, margin=1.0: (EUCLIDEAN(a, p) - EUCLIDEAN(a, n)).clamp(
               min=margin).mean(),
           "that is the largest triplet's loss: take the mean over the batch": _t(reduce=torch.max),
           "those distances are root-mean-squares (a mean over the numbers): ‖a − p‖ sums the squares": _t(
               d=lambda x, y: ((x - y) ** 2).mean(1) ** 0.5),
           "positive and negative are swapped: max(‖a−p‖ − ‖a−n‖ + ε, 0)": _t(swap=True),
           "that distance is the positive's to the negative: both are the anchor's, ‖a − p‖ and ‖a − n‖":
               lambda a, p, n, margin=1.0: torch.relu(EUCLIDEAN(a, p) - EUCLIDEAN(p, n) + margin).mean(),
           "the margin ε is missing: add it inside the max": _t(m=lambda e: 0.0),
           "that is the loss for margin 1: use the `margin` argument, not a number": _t(m=lambda e: 1.0),
           "you summed over the batch: take the mean": _t(reduce=torch.sum),
           "your vectors were normalised first: the triplet loss is of the vectors as they are": lambda a, p, n, margin=1.0:
               reference_triplet_loss(*(F.normalize(x, dim=1) for x in (a, p, n)), margin),
           "softplus is a smooth hinge: the paper's is max(·, 0) (torch.relu, clamp(min=0))": _t(hinge=F.softplus),
           "keepdim=True on one distance: (B, 1) − (B,) broadcasts to every pair (B × B); keep both of shape (B,)":
               lambda a, p, n, margin=1.0: torch.relu(EUCLIDEAN(a, p)[:, None] - EUCLIDEAN(a, n) + margin).mean(),
           "the mean is over every triplet, the 0s of those meeting the margin included": lambda a, p, n, margin=1.0: (
               lambda v: v.sum() / (v > 0).sum())(torch.relu(EUCLIDEAN(a, p) - EUCLIDEAN(a, n) + margin)),
           "called without a margin, your triplet_loss used another ε: the paper's, the stub's default, is margin=1.0":
               lambda a, p, n, margin=5.0: reference_triplet_loss(a, p, n, margin),
           "the margin was added after the hinge: ε goes inside, max(d(a,p) − d(a,n) + ε, 0)":
               lambda a, p, n, margin=1.0: torch.relu(EUCLIDEAN(a, p) - EUCLIDEAN(a, n)).mean() + margin,
           "your distances are per column (dim=0): a triplet's distance is over its own row's numbers (dim=1)":
               lambda a, p, n, margin=1.0: torch.relu((a - p).norm(dim=0) - (a - n).norm(dim=0) + margin).mean(),
           "the hinge after the mean: clamp each triplet's loss, then average": _t(hinge=lambda v: v,
                                                                                   reduce=lambda v: v.mean().relu()),
           "one distance over the whole batch (a norm with no dim): a distance per triplet, per row (dim=1)":
               lambda a, p, n, margin=1.0: torch.relu((a - p).norm() - (a - n).norm() + margin),
           "torch.cdist gives every anchor against every positive (B × B): a triplet's distance is row i's with row "
           "i (the diagonal, or F.pairwise_distance)": _t(d=CDIST)},
    hint="per row d(a,p) = ‖a−p‖ and d(a,n) = ‖a−n‖, then max(d(a,p) − d(a,n) + ε, 0), then the mean",
    probe="""
            _rng = _np.random.default_rng(2028)
            _a, _p, _n = (_torch.tensor(_rng.normal(size=(6, 5)), dtype=_torch.float32) for _ in range(3))
            _result = [triplet_loss(_a, _p, _n), triplet_loss(_a, _p, _n, margin=0.5),
                       triplet_loss(_a, _p, _n, margin=3.0)]
            """)


def check_triplet_loss(fn) -> None:
    """The value on hidden inputs; before, where its value is right, the gradient: .item() or numpy trains nothing."""
    g = torch.Generator().manual_seed(7)
    leaves = {k: torch.randn(5, 4, generator=g).requires_grad_() for k in ("anchor", "positive", "negative")}
    with torch.no_grad():   # values only: float() of a tensor that requires grad warns, and shows the check's line
        want = float(reference_triplet_loss(*leaves.values(), 0.5))
    got = call(fn, *(x * 1 for x in leaves.values()), 0.5, what="your triplet_loss")   # * 1: may change in place
    value = got.detach() if isinstance(got, torch.Tensor) else got
    if (isinstance(got, torch.Tensor) and got.numel() == 1 or isinstance(got, (float, np.floating))) and close(
            float(value), want):
        require(isinstance(got, torch.Tensor), f"your triplet_loss returned a {type(got).__name__}: no gradient "
                "reaches the loss", "stay in torch end to end: no .item() or numpy — return the mean, a tensor")
        require_gradient(got.reshape(()), leaves, lambda *x: reference_triplet_loss(*x, 0.5), "your triplet_loss")
    TRIPLET_LOSS.check(fn)


TRIPLET_OBJECTIVE = Objective(   # its gradient check covers the student's triplet_loss's too (a right value, detached)
    "TripletObjective", reference=TripletLoss, kept=True, settings=({}, {"margin": 0.3}, {"margin": 5.0}),
    batches=lambda: [(lambda a, p, n: ([a, p, torch.cat([a[:4] + 3 * n[:4], n[4:]])], None))(
        *torch.randn(3, 10, 8, generator=torch.Generator().manual_seed(6)))],
    examples=MNRL.examples, columns=("the anchors", "the positives", "the negatives"),
    slips={"that is the cosine distance 1 − cos (distance='cosine'): the triplet objective is Euclidean, ‖a − p‖":
           lambda e, labels, margin=1.0: reference_triplet_loss(*e, margin, d=COSINE),
           "int(margin) cut the margin to a whole number (0.5 becomes 0): keep self.margin as given, a float":
           lambda e, labels, margin=1.0: reference_triplet_loss(*e, int(margin)),
           "anchors and positives swapped: give your triplet_loss the columns in their order (anchors, positives, "
           "negatives)": lambda e, labels, margin=1.0: reference_triplet_loss(e[1], e[0], e[2], margin),
           "positives and negatives swapped: give your triplet_loss the columns in their order (anchors, positives, "
           "negatives)": lambda e, labels, margin=1.0: reference_triplet_loss(e[0], e[2], e[1], margin),
           "your loss is the margin itself: its positives and negatives are one column (embeddings[1] twice, or every "
           "column the anchors): the columns are embeddings[0], [1], [2]": lambda e, labels, margin=1.0:
               reference_triplet_loss(*e[:1] * 3, margin),
           "the margin's sign is flipped: pass self.margin as it is": lambda e, labels, margin=1.0: reference_triplet_loss(
               *e, -margin),
           "your vectors were normalised first: the triplet loss is of the model's vectors as they are":
               lambda e, labels, margin=1.0: reference_triplet_loss(*(F.normalize(x, dim=1) for x in e), margin)},
    hint="give your triplet_loss the columns in their order (anchors, positives, negatives) and self.margin",
    probe="""
            _rng = _np.random.default_rng(2035)
            _a, _p, _n = (_torch.tensor(_rng.normal(size=(4, 8)), dtype=_torch.float32) for _ in range(3))
            _result = {"n_texts": list(TripletObjective(_Model()).n_texts),
                       "loss": TripletObjective(_Model()).loss_from_embeddings([_a, _p, _n]),
                       "margin 0.3": TripletObjective(_Model(), margin=0.3).loss_from_embeddings([_a, _p, _n])}
            """)


# ----------------------------------------------------------------------------- held-out distances and scores
def triplet_distances_truth(model, triplets, d=EUCLIDEAN, ends=((0, 1), (0, 2))):
    """``(d(a,p), d(a,n))``: Euclidean distances of the model's vectors (numpy); a slip: another ``d`` or ``ends``."""
    cols = np.asarray([model.encode(list(c), show_progress_bar=False) for c in zip(*map(astuple, triplets))], float)
    return tuple(d(cols[i], cols[j]) for i, j in ends)


def _hidden_triplets(n: int = 130):   # more than a batch of 64 or 128, or the 100 of smoke's held-out set
    rng, names = np.random.default_rng(8), [(f"anchor {i}", f"positive {i}", f"negative {i}") for i in range(n)]
    a = rng.normal(size=(n, 1, 6)) * np.exp(rng.uniform(-1, 1.5, size=(n, 1, 1)))  # lengths from 0.4 to 4.5
    vectors = (a + rng.normal(size=(n, 3, 6)) * np.array([0, 0.5, 1.2])[:, None]).reshape(3 * n, 6)
    return [(HiddenEncoder(dict(zip(sum(names, ()), vectors))), [Triplet(*t) for t in names])]


_d = lambda **slip: lambda model, triplets: triplet_distances_truth(model, triplets, **slip)  # noqa: E731
TRIPLET_DISTANCES = Exercise(
    "triplet_distances", probe="_result = triplet_distances(encoder, heldout[:12])", reference=triplet_distances_truth,
    kept=True, inputs=_hidden_triplets, compare=within(1e-4, 1e-5),
    slips={"those are squared distances: the Euclidean distance is the square root": _d(d=SQUARED),
           "that is the cosine distance 1 − cos: the triplet objective here is Euclidean": _d(d=COSINE),
           "that is the Manhattan distance (a sum of |differences|): use the Euclidean one": _d(d=MANHATTAN),
           "the first distance is the anchor's to its positive, not the positive's": _d(ends=((1, 2), (0, 2))),
           "the second distance is the anchor's to its negative, not the positive's": _d(ends=((0, 1), (1, 2))),
           "those are per column (dim=0): one distance per triplet, over its row's numbers (dim=1)":
               _d(d=lambda x, y: ((x - y) ** 2).sum(0) ** 0.5),
           "your vectors were normalised first: the distance is of the model's vectors as they are":
               _d(d=lambda x, y: EUCLIDEAN(*(v / (v * v).sum(1, keepdims=True) ** 0.5 for v in (x, y)))),
           "the negatives were encoded from the positives column: encode t.negative": _d(ends=((0, 1), (0, 1))),
           "the positives were encoded from the negatives column: encode t.positive": _d(ends=((0, 2), (0, 2))),
           "the triplets were sorted: keep them in the order given, row i for triplet i":
               lambda m, ts: triplet_distances_truth(m, sorted(ts, key=lambda t: t.anchor)),
           "those are every anchor against every positive (torch.cdist, B × B): one distance per triplet, the "
           "diagonal": _d(d=CDIST),
           "the anchors were sorted: keep the triplets' order, row i's anchor with row i's positive and negative":
               lambda m, ts: triplet_distances_truth(m, [Triplet(a, *astuple(t)[1:]) for a, t in zip(sorted(
                   t.anchor for t in ts), ts)]),
           "those are the means over the triplets: give one distance per triplet, no .mean()":
               lambda m, ts: tuple(x.mean() for x in triplet_distances_truth(m, ts)),
           "dot products are similarities: give the distances ‖a − p‖, ‖a − n‖": _d(d=lambda x, y: (x * y).sum(1)),
           "those are cosine similarities: give the Euclidean distances ‖a − p‖, ‖a − n‖": _d(d=lambda x, y: 1 - COSINE(
               x, y)),
           "those distances are root-mean-squares (a mean over the numbers): ‖a − p‖ sums the squares": _d(
               d=lambda x, y: ((x - y) ** 2).mean(1) ** 0.5)},
    diagnose=lambda fn, got, m, ts: m.misaligned(got, lambda x, y: np.linalg.norm(x - y, axis=-1), "distances") or
    m.unused("triplet_distances"), parts=("distances to the positives", "distances to the negatives"),
    hint="encode each column (anchors, positives, negatives); each row's ‖a − p‖, ‖a − n‖")


def triplet_scores_truth(d_ap, d_an, margins, pct=100, right=np.less, meets=lambda p, n, m: n - p >= m):
    """``(accuracy %, {ε: % with d(a,n) − d(a,p) ≥ ε})``: Table 4's accuracy (% with d(a,p) < d(a,n)), margins met."""
    d_ap, d_an = np.asarray(d_ap, dtype=float), np.asarray(d_an, dtype=float)
    return pct * float(np.mean(right(d_ap, d_an))), {m: pct * float(np.mean(meets(d_ap, d_an, m))) for m in margins}


def _scores(got, what: str = "it"):
    """The student's ``(accuracy, {ε: %})`` as they returned it, once it has that form."""
    acc, meets = two_items(got, what, "return the accuracy in %, then {margin: % of triplets meeting it}")
    require(not isinstance(acc, dict), f"{what} returned the margins' dict first", "the accuracy first, then the dict")
    require(isinstance(meets, dict), f"{what} gave the margins' shares as a {type(meets).__name__}, not a dict",
            "return {ε: % of triplets meeting it}, one entry per margin, its key the margin itself")
    require(not any(isinstance(m, str) for m in meets), f"{what} keyed the shares by text, {list(meets)!r}",
            "key each share by the margin itself, as given: meets[0.5], not meets['0.5']")
    return got


_flat = lambda got: np.array([got[0], *(x for m, v in sorted(dict(got[1]).items()) for x in (m, v))], float)  # noqa
_s = lambda **slip: lambda d_ap, d_an, margins: triplet_scores_truth(d_ap, d_an, margins, **slip)  # noqa: E731
TRIPLET_SCORES = Exercise(   # the ties at ε are exact in float32 too: 1.5 − 0.5 ≥ 1.0, 2.75 − 1.5 ≥ 1.25
    "triplet_scores", reference=triplet_scores_truth, returns=_scores, parts=("accuracy", "shares per margin"),
    compare=_either(lambda g, w: np.shape(_flat(g)) == np.shape(_flat(w)) and np.allclose(_flat(g), _flat(w))),
    inputs=lambda: [(np.array([0.5, 1.0, 2.0, 1.5, 0.25, 3.0, 1.0, 0.7, 2.5, 0.4]),     # gaps 1, 0, −1, 5, 0.25, −1,
                     np.array([1.5, 1.0, 1.0, 6.5, 0.5, 2.0, 2.0, 5.9, 3.5, 0.4]), (0.25, 1.0, 5.0)),  # 1, 5.2, 1, 0
                    (np.array([0.2, 0.9, 1.5, 0.3, 2.2, 0.8, 1.25]), np.array([0.9, 0.4, 2.75, 1.8, 2.1, 0.8, 1.75]),
                     (0.5, 1.25)),         # 7 triplets: a share rounded to a whole per cent shows
                    (np.array([1.0, 1.0, 2.0, 0.5]), np.array([1.1, 3.5, 1.0, 0.5]), (0.5, 2.0))],  # gap 0.1: right,
                                                                                 # yet no margin met
    slips={"your accuracy is the share meeting the first margin: accuracy counts every triplet with d(a,p) < d(a,n), "
           "however small its gap": lambda p, n, ms: (lambda acc, m: (m[ms[0]], m))(*triplet_scores_truth(p, n, ms)),
           "those are counts (or shares over a number written in, not len): give each as a percentage of all the "
           "triplets": lambda p, n, ms: triplet_scores_truth(
               p, n, ms, pct=len(p)),
           "a triplet at equal distances is not right: the anchor must be strictly closer": _s(right=np.less_equal),
           "the comparison is the wrong way round: right means the positive is closer": _s(right=np.greater),
           "a triplet whose gap is exactly ε has zero loss too: it meets the margin":
               _s(meets=lambda p, n, m: n - p > m),
           "the gap is d(a,n) − d(a,p): how much further the negative is": _s(meets=lambda p, n, m: p - n >= m),
           "those are the triplets NOT meeting ε: give the share with d(a,n) − d(a,p) ≥ ε":
               _s(meets=lambda p, n, m: n - p < m),
           "a negative closer than its positive meets no margin: the gap d(a,n) − d(a,p) keeps its sign, no abs()":
               _s(meets=lambda p, n, m: abs(n - p) >= m),
           "that is a gap relative to d(a,n): the margin is met by the difference itself, d(a,n) − d(a,p) ≥ ε":
               _s(meets=lambda p, n, m: (n - p) / n >= m),
           "the margins are distances, not percentages: compare the gap with ε itself, not ε / 100":
               _s(meets=lambda p, n, m: n - p >= m / 100),
           "each share is over every triplet (divide by len): not over the right ones only, not len + 1":
               lambda p, n, ms: _any((100 * float(np.mean(p < n)), {m: 100 * float(np.mean((n - p)[p < n] >= m))
                                                                     for m in ms}),
                                     triplet_scores_truth(p, n, ms, pct=100 * len(p) / (len(p) + 1))),
           "that is the ratio d(a,n) / d(a,p): the margin is met by the difference, d(a,n) − d(a,p) ≥ ε":
               _s(meets=lambda p, n, m: n / p >= m),
           "those are the notebook's MARGINS, not the margins passed in: one entry per ε of the `margins` argument":
               lambda p, n, ms: triplet_scores_truth(p, n, (0.1, 1.0, 5.0)),
           "your percentages are whole numbers (rounded, or cut by integer division //): give each share as it is, "
           "divided with /": lambda *a: (lambda acc, m: _any(*((f(acc), {k: f(v) for k, v in m.items()}) for f in (
               round, lambda x: np.floor(x + 1e-9)))))(*triplet_scores_truth(*a))},
    hint="the share (%) of triplets with d(a,p) < d(a,n); per ε, the share with d(a,n) − d(a,p) ≥ ε",
    probe="""
            _result = [triplet_scores([0.5, 1.0, 2.0, 0.3, 1.5], [1.0, 0.8, 4.5, 0.3, 3.0], (0.1, 1.0, 2.5)),
                       triplet_scores(_np.array([1.0, 2.0]), _np.array([1.2, 1.0]), [0.2])]
            """)

EXERCISES = (TRIPLET_LOSS, TRIPLET_OBJECTIVE, TRIPLET_DISTANCES, TRIPLET_SCORES, NLI_TRIPLETS)
check_triplet_distances, check_triplet_scores, check_nli_triplets = map(_guarded, (e.check for e in EXERCISES[2:]))
check_triplet_objective = _guarded(TRIPLET_OBJECTIVE.check)


guard(globals())   # last: every check above shows its own failures as an ExerciseError
