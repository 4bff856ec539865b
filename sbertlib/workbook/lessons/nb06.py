"""Self-checks for ``06_triplet_objective``."""
from __future__ import annotations

from typing import Callable

import torch

from ...data import NLIPair, Triplet, nli_triplets
from ...losses import TripletLoss
from . import guard, Exercise, ExerciseError, call, ok, require, require_gradient, require_own_class
from .questions import choice, number

__all__ = ["check_nli_triplets", "check_triplet_loss", "check_triplet_objective", "check_triplet_distances", "check_triplet_scores",
           "reference_triplet_loss", "triplet_distances_truth", "triplet_scores_truth"]

MARGINS = (1.0, 0.1, 0.5, 5.0)


# ----------------------------------------------------------------------------- triplets from NLI
def _hidden_nli_pairs() -> list[NLIPair]:
    """NLI pairs built so that each usual slip gives other triplets: a premise with two entailed and
    three contradicting hypotheses (the negatives must be taken in turn), one with only neutral and
    entailed ones, one with a contradiction but no entailment, an entailed and a contradicting pair that
    appear twice (a repeated contradiction shifts the turns), and premises interleaved in the file."""
    e, n, c = "entailment", "neutral", "contradiction"
    rows = [("P1", "P1 e1", e), ("P2", "P2 c1", c), ("P1", "P1 n1", n), ("P1", "P1 c1", c), ("P3", "P3 e1", e),
            ("P1", "P1 e2", e), ("P1", "P1 c2", c), ("P3", "P3 n1", n), ("P2", "P2 n1", n), ("P4", "P4 c1", c),
            ("P4", "P4 e1", e), ("P4", "P4 e1", e), ("P1", "P1 c3", c), ("P5", "P5 e1", e), ("P5", "P5 c1", c),
            ("P5", "P5 c1", c), ("P5", "P5 e2", e), ("P5", "P5 e3", e), ("P4", "P4 e2", e), ("P4", "P4 c2", c),
            ("P5", "P5 c2", c), ("P6", "P6 e1", e)]
    rename = {f"P{i}": f"P{7 - i}" for i in range(1, 7)}         # first appearance is not alphabetical order
    return [NLIPair(rename[a], rename[a] + b[2:], label) for a, b, label in rows]


def _as_triplets(got, what: str) -> list[tuple[str, str, str]]:
    require(got is not None and got is not Ellipsis, f"{what} returned {got!r}", "return the list of triplets")
    try:
        items = list(got)
    except TypeError:
        raise ExerciseError(f"{what} returned a {type(got).__name__}, not a list of triplets") from None
    out = []
    for i, t in enumerate(items):
        if isinstance(t, Triplet):
            t = (t.anchor, t.positive, t.negative)
        require(isinstance(t, (tuple, list)) and len(t) == 3 and all(isinstance(x, str) for x in t),
                f"item {i} of what {what} returned is {t!r}, not a triplet",
                "each triplet is data.Triplet(anchor, positive, negative) (or a tuple of three sentences)")
        out.append(tuple(t))
    return out


def _nli_triplets_hint(got: list, pairs: list[NLIPair], want: list) -> str:
    label = {(p.premise, p.hypothesis): p.label for p in pairs}
    roles = [(label.get((a, pos)), label.get((a, neg))) for a, pos, neg in got]
    if any(r == ("contradiction", "entailment") for r in roles):
        return ("some triplets have positive and negative swapped: the positive is a hypothesis the premise "
                "entails, the negative one it contradicts")
    if any("neutral" in r for r in roles):
        return ("a neutral hypothesis is neither a positive nor a negative: the negative is a hypothesis the "
                "premise contradicts")
    if any(None in r for r in roles):
        return ("some triplets pair a premise with a sentence that is not one of its hypotheses (or the anchor is not "
                "the premise): every triplet is (premise, its entailed hypothesis, its contradicting hypothesis)")
    if len(got) > len(set(got)) or len(got) > len(want):
        return ("some triplets are repeated: a pair that appears twice in the file is still one hypothesis — take "
                "each distinct entailed hypothesis once")
    if set(got) != set(want) and {(a, pos) for a, pos, _ in got} == {(a, pos) for a, pos, _ in want}:
        return ("the right anchors and positives, but not the negatives asked for: when a premise has several "
                "distinct contradicting hypotheses (a repeated pair counts once), its 1st entailed hypothesis takes "
                "the 1st, the 2nd the 2nd, and so on, starting again from the 1st when they run out")
    if len(got) < len(want):
        missing = sorted({a for a, _, _ in want} - {a for a, _, _ in got})
        return ("some premises that have both an entailed and a contradicting hypothesis gave no triplet"
                + (f" (here: {', '.join(missing)})" if missing else ": one triplet per distinct entailed hypothesis"))
    if set(got) == set(want):
        return ("the right triplets in another order: go through the premises in the order they first appear in "
                "the file, and each premise's hypotheses in file order")
    return "one triplet per distinct entailed hypothesis of each premise that also has a contradicting one"


def check_nli_triplets(make_triplets: Callable) -> None:
    """Pass when ``make_triplets(pairs)`` equals :func:`sbertlib.data.nli_triplets` on hidden NLI pairs:
    (premise, entailed hypothesis, contradicting hypothesis), one per distinct entailed hypothesis, the
    premise's contradictions taken in turn, premises lacking either skipped, in file order."""
    require(callable(make_triplets), f"pass your function itself, not {type(make_triplets).__name__}",
            "check_nli_triplets(nli_to_triplets) — no parentheses after the name")
    pairs = _hidden_nli_pairs()
    want = [(t.anchor, t.positive, t.negative) for t in nli_triplets(pairs)]
    got = _as_triplets(call(make_triplets, list(pairs)), "your function")
    if got != want:
        raise ExerciseError(f"on {len(pairs)} hidden NLI pairs you made {len(got)} triplets; they are not the ones "
                            f"asked for ({len(want)} triplets)\nHint: {_nli_triplets_hint(got, pairs, want)}")
    require(_as_triplets(call(make_triplets, []), "your function on no pairs") == [],
            "with no NLI pairs your function made some triplets", "no pairs, no triplets: return an empty list")
    ok(f"{len(want)} triplets from {len(pairs)} hidden NLI pairs, equal to data.nli_triplets: premises without an "
       "entailed or a contradicting hypothesis skipped, repeated pairs taken once, negatives taken in turn")


def reference_triplet_loss(anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor,
                           margin: float = 1.0) -> torch.Tensor:
    """The library's triplet loss (Euclidean, mean over the batch) — what the answer must equal."""
    return TripletLoss(torch.nn.Identity(), distance="euclidean", margin=margin).loss_from_embeddings(
        [anchor, positive, negative])


def _hidden_cases() -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """Random triplets of a few shapes; in the last one most negatives are far away, so that many
    triplets already satisfy the margin (zero loss) and the hinge matters."""
    g = torch.Generator().manual_seed(2019)
    cases = []
    for b, n in ((8, 5), (3, 16), (16, 4)):
        cases.append((torch.randn(b, n, generator=g), torch.randn(b, n, generator=g), torch.randn(b, n, generator=g)))
    a = torch.randn(12, 6, generator=g)
    p = a + 0.3 * torch.randn(12, 6, generator=g)
    neg = a + torch.where(torch.arange(12).unsqueeze(1) % 3 == 0, 0.2, 4.0) * torch.randn(12, 6, generator=g)
    cases.append((a, p, neg))
    return cases


def _diagnose(value: float, a, p, n, margin: float) -> str:
    d_ap, d_an = torch.linalg.vector_norm(a - p, dim=1), torch.linalg.vector_norm(a - n, dim=1)
    close = lambda x: abs(value - float(x)) <= 1e-4 * max(1.0, abs(float(x)))  # noqa: E731
    candidates = [
        ((d_ap - d_an + margin).mean(), "you are missing the hinge max(·, 0): triplets that already satisfy the "
                                        "margin must contribute 0, not a negative number (use torch.relu or clamp(min=0))"),
        (torch.relu(d_an - d_ap + margin).mean(), "positive and negative are swapped: the loss is "
                                                  "max(‖a−p‖ − ‖a−n‖ + ε, 0)"),
        (torch.relu(d_ap ** 2 - d_an ** 2 + margin).mean(), "you used squared distances; the paper uses the "
                                                            "Euclidean distance itself, ‖a−p‖ (torch.linalg.vector_norm)"),
        (torch.relu(d_ap - d_an + margin).sum(), "you summed over the batch; take the mean"),
        (torch.relu(d_ap - d_an).mean(), "the margin ε is missing: add it inside the max"),
        (torch.relu(d_ap - d_an - margin).mean(), "the margin has the wrong sign: max(‖a−p‖ − ‖a−n‖ + ε, 0)"),
    ]
    for fixed in (1.0, 5.0, 0.0):
        if fixed != margin:
            candidates.append((torch.relu(d_ap - d_an + fixed).mean(),
                               f"this is the loss for margin {fixed:g}, but the margin passed was {margin:g}: "
                               "use the `margin` argument, do not hard-code it"))
    for want, hint in candidates:
        if close(want):
            return hint
    return "compare step by step: d(a,p) = ‖a−p‖ per row, d(a,n) likewise, then max(d(a,p) − d(a,n) + ε, 0), then the mean"


def check_triplet_loss(triplet_loss: Callable) -> None:
    """Check ``triplet_loss(anchor, positive, negative, margin) -> scalar`` against the library.

    Hidden random batches of several shapes and margins ε ∈ {1, 0.1, 0.5, 5}; the answer must be
    ``mean(max(‖a−p‖ − ‖a−n‖ + ε, 0))`` with Euclidean distances, as
    :class:`sbertlib.losses.TripletLoss` computes it.
    """
    require(callable(triplet_loss), f"pass your function itself, not {type(triplet_loss).__name__}",
            "check_triplet_loss(triplet_loss) — no parentheses after the name")
    for a, p, n in _hidden_cases():
        for margin in MARGINS:
            ag, pg, ng = (x.clone().requires_grad_(True) for x in (a, p, n))
            got = call(triplet_loss, ag, pg, ng, margin)
            require(got is not None and got is not Ellipsis and got is not NotImplemented,
                    f"triplet_loss returned {got!r}", "return the loss, a scalar tensor")
            if isinstance(got, (int, float)) and not isinstance(got, bool):
                got = torch.tensor(float(got))
            require(isinstance(got, torch.Tensor), f"triplet_loss returned a {type(got).__name__}, not a tensor",
                    "compute it with torch operations on the input tensors")
            require(got.numel() == 1,
                    f"for a batch of {a.shape[0]} triplets you returned shape {tuple(got.shape)}, not a scalar",
                    "the loss is the *mean* over the batch of the per-triplet hinge: add .mean()")
            want = reference_triplet_loss(a, p, n, margin)
            value = float(got.detach().reshape(()))
            if abs(value - float(want)) > 1e-4 * max(1.0, abs(float(want))):
                raise ExerciseError(f"for a batch of {a.shape[0]} triplets of size {a.shape[1]} and margin {margin:g} "
                                    f"you returned {value:.5f}, expected {float(want):.5f}\n"
                                    f"Hint: {_diagnose(value, a, p, n, margin)}")
            require_gradient(got, {"the anchors": ag, "the positives": pg, "the negatives": ng},
                             lambda a_, p_, n_: reference_triplet_loss(a_, p_, n_, margin),
                             f"for a batch of {a.shape[0]} triplets and margin {margin:g} your loss")
    ok("triplet_loss equals sbertlib.losses.TripletLoss (Euclidean, hinge, margin) on every hidden batch")


# ----------------------------------------------------------------------------- the objective
def check_triplet_objective(cls, encoder) -> None:
    """Check ``TripletObjective(model, margin=1.0)``: a ``losses.SBERTLoss`` on (anchor, positive, negative)
    examples whose loss is :class:`sbertlib.losses.TripletLoss` with the same margin — on hidden
    embeddings and end to end through ``encoder``."""
    from ...data import Triplet
    from ...losses import SBERTLoss
    from ...training import collate, prepare_examples
    require(isinstance(cls, type) and issubclass(cls, SBERTLoss),
            f"pass your class itself, a subclass of losses.SBERTLoss (got {cls!r})",
            "check_triplet_objective(TripletObjective, encoder)")
    require_own_class(cls, SBERTLoss, "TripletObjective")
    try:
        objectives = {m: cls(encoder, margin=m) for m in (1.0, 0.3, 5.0)}
    except NotImplementedError:
        raise ExerciseError("TripletObjective is not written yet\nHint: fill in the YOUR CODE HERE parts") from None
    except TypeError as exc:
        raise ExerciseError(f"TripletObjective(model, margin=0.3) fails: {exc}\nHint: the margin is an argument "
                            "of the objective, kept for loss_from_embeddings") from None
    require(all(o.model is encoder for o in objectives.values()), "the objective's .model is not the encoder it was given",
            "call super().__init__(model) first: SBERTLoss keeps the one encoder as self.model")
    triplets = [Triplet("a man plays a guitar", "a man plays music", "nobody plays anything"),
                Triplet("two dogs run", "dogs are running", "the dogs sleep"),
                Triplet("a child reads", "a kid is reading a book", "a child is swimming")]
    n_texts = getattr(cls, "n_texts", None)
    require(isinstance(n_texts, tuple), f"n_texts is {n_texts!r}, a {type(n_texts).__name__}: training reads it as a "
            "tuple, one entry per number of texts an example may hold", "as in your MNRL of notebook 03: a tuple")
    try:
        examples = prepare_examples(triplets, objectives[1.0])
    except ValueError as exc:
        raise ExerciseError(f"training refuses triplets: {exc}\nHint: an example holds three texts (anchor, positive, "
                            "negative) and no label: n_texts and label_kind say so") from None
    g = torch.Generator().manual_seed(6)
    a, p, n = (torch.randn(10, 8, generator=g) for _ in range(3))
    n[:4] = a[:4] + 3.0 * torch.randn(4, 8, generator=g)          # far negatives: the hinge matters
    for margin, objective in objectives.items():
        ag, pg, ng = (x.clone().requires_grad_(True) for x in (a, p, n))
        try:
            got = call(objective.loss_from_embeddings, [ag, pg, ng], None)
        except ExerciseError as exc:
            raise ExerciseError(f"loss_from_embeddings(embeddings, labels=None): {exc}") from None
        want = reference_triplet_loss(a, p, n, margin)
        value = float(got) if isinstance(got, torch.Tensor) and got.numel() == 1 else None
        require(value is not None, f"loss_from_embeddings returned {got!r}", "return your triplet_loss's value")
        if abs(value - float(want)) > 1e-5:
            used = next((m for m in (1.0, 0.3, 5.0) if abs(value - float(reference_triplet_loss(a, p, n, m))) < 1e-5), None)
            if used is not None and used != margin:
                hint = (f"TripletObjective(model, margin={margin:g}) computed the loss for margin {used:g}: the "
                        "objective must pass its own margin on")
            elif abs(value - float(reference_triplet_loss(a, n, p, margin))) < 1e-5:
                hint = "the columns come in the order (anchor, positive, negative)"
            else:
                hint = "loss_from_embeddings gets [anchor, positive, negative] embeddings: give them to your triplet_loss"
            raise ExerciseError(f"with margin {margin:g} your objective gives {value:.5f}, TripletLoss "
                                f"{float(want):.5f}\nHint: {hint}")
        require_gradient(got, {"the anchors": ag, "the positives": pg, "the negatives": ng},
                         lambda a_, p_, n_: reference_triplet_loss(a_, p_, n_, margin),
                         f"with margin {margin:g} your objective's loss")
    with torch.no_grad():
        got, want = objectives[0.3](collate(examples, encoder)), TripletLoss(encoder, margin=0.3)(collate(examples, encoder))
    require(torch.allclose(got, want, atol=1e-5), f"end to end (three triplets through the encoder) your objective "
            f"gives {float(got):.5f}, TripletLoss {float(want):.5f}")
    ok("TripletObjective wraps your triplet_loss: three texts per example, its own margin, equal to TripletLoss")


# ----------------------------------------------------------------------------- held-out distances
def triplet_distances_truth(model, triplets):
    """``(d(a,p), d(a,n))`` of every triplet: Euclidean distances of the model's sentence vectors (numpy)."""
    import numpy as np
    cols = [model.encode([getattr(t, c) for t in triplets], show_progress_bar=False) for c in
            ("anchor", "positive", "negative")]
    a, p, n = (np.asarray(c, dtype=np.float64) for c in cols)
    return np.linalg.norm(a - p, axis=1), np.linalg.norm(a - n, axis=1)


def _hidden_triplets(seed: int = 8):
    import numpy as np

    from ...data import Triplet
    from .nb04 import HiddenEncoder
    rng = np.random.default_rng(seed)
    vectors, triplets = {}, []
    for i in range(20):
        a = rng.normal(size=6) * np.exp(rng.uniform(-1, 1.5))
        names = [f"anchor {i}", f"positive {i}", f"negative {i}"]
        for name, vec in zip(names, (a, a + rng.normal(scale=0.5, size=6), a + rng.normal(scale=1.2, size=6))):
            vectors[name] = vec
        triplets.append(Triplet(*names))
    return HiddenEncoder(vectors), triplets


def check_triplet_distances(triplet_distances: Callable) -> None:
    """Check ``triplet_distances(model, triplets) -> (d_ap, d_an)``: the Euclidean distance of each anchor's
    vector to its positive's and to its negative's, on a hidden encoder."""
    import numpy as np

    from . import two_items
    require(callable(triplet_distances), f"pass your function itself, not {type(triplet_distances).__name__}",
            "check_triplet_distances(triplet_distances)")
    model, triplets = _hidden_triplets()
    got = two_items(call(triplet_distances, model, list(triplets)), "your function returned",
                    "return two arrays: d(a,p) and d(a,n), one number per triplet each")
    require(model.calls > 0, "your function never called model.encode",
            "encode with the `model` it is given, not with a model of the notebook")
    try:
        d_p, d_n = (np.asarray(x.detach().cpu() if hasattr(x, "detach") else x, dtype=float).ravel() for x in got)
    except (TypeError, ValueError):
        raise ExerciseError("your function returned something that is not two lists of numbers") from None
    want_p, want_n = triplet_distances_truth(model, triplets)
    require(len(d_p) == len(d_n) == len(triplets), f"you returned {len(d_p)} and {len(d_n)} distances for "
            f"{len(triplets)} triplets", "one distance per triplet, in the order of the triplets")
    if np.allclose(d_p, want_p, atol=1e-4) and np.allclose(d_n, want_n, atol=1e-4):
        ok("triplet_distances is right: ‖a − p‖ and ‖a − n‖ of each triplet's sentence vectors")
        return
    cols = {c: np.asarray(model.encode([getattr(t, c) for t in triplets]), dtype=np.float64)
            for c in ("anchor", "positive", "negative")}
    a, p, n = cols["anchor"], cols["positive"], cols["negative"]
    cosd = lambda x, y: 1 - (x * y).sum(1) / np.linalg.norm(x, axis=1) / np.linalg.norm(y, axis=1)  # noqa: E731
    known = [
        ((want_n, want_p), "the two are swapped: first the distance to the positive, then to the negative"),
        ((want_p ** 2, want_n ** 2), "those are squared distances: the Euclidean distance is the square root"),
        ((cosd(a, p), cosd(a, n)), "that is the cosine distance 1 − cos: the triplet objective here is Euclidean"),
        ((np.abs(a - p).sum(1), np.abs(a - n).sum(1)), "that is the Manhattan distance (sum of |differences|): use "
                                                       "the Euclidean one"),
        ((np.linalg.norm(p - n, axis=1), want_n), "the first distance is the anchor's to its positive"),
    ]
    for (kp, kn), hint in known:
        if np.allclose(d_p, kp, atol=1e-4) and np.allclose(d_n, kn, atol=1e-4):
            raise ExerciseError(f"triplet 0: you returned d(a,p) = {d_p[0]:.4f}, d(a,n) = {d_n[0]:.4f}; the Euclidean "
                                f"distances are {want_p[0]:.4f} and {want_n[0]:.4f}\nHint: {hint}")
    k = int(np.argmax(np.abs(d_p - want_p) + np.abs(d_n - want_n)))
    raise ExerciseError(f"triplet {k}: you returned d(a,p) = {d_p[k]:.4f}, d(a,n) = {d_n[k]:.4f}; the Euclidean "
                        f"distances are {want_p[k]:.4f} and {want_n[k]:.4f}\nHint: encode each column (anchors, "
                        "positives, negatives) with the model, then the length of each row's difference")


# ----------------------------------------------------------------------------- accuracy and the margins met
def triplet_scores_truth(d_ap, d_an, margins) -> tuple[float, dict]:
    """``(accuracy %, {ε: % meeting ε})``: the share of triplets with d(a,p) < d(a,n) (Table 4's accuracy),
    and for each margin the share with d(a,n) − d(a,p) ≥ ε (zero loss: they stop teaching)."""
    import numpy as np
    d_ap, d_an = np.asarray(d_ap, dtype=float), np.asarray(d_an, dtype=float)
    return 100 * float(np.mean(d_ap < d_an)), {m: 100 * float(np.mean(d_an - d_ap >= m)) for m in margins}


def check_triplet_scores(triplet_scores: Callable) -> None:
    """Check ``triplet_scores(d_ap, d_an, margins) -> (accuracy %, {margin: % meeting it})`` on hidden distances,
    some of them exactly at a margin and some ties."""
    import numpy as np

    from . import two_items
    require(callable(triplet_scores), f"pass your function itself, not {type(triplet_scores).__name__}",
            "check_triplet_scores(triplet_scores)")
    d_ap = np.array([0.5, 1.0, 2.0, 1.5, 0.2, 3.0, 1.0, 0.7, 2.5, 0.4])
    d_an = np.array([1.5, 1.0, 1.0, 6.5, 0.3, 2.0, 2.0, 5.9, 3.5, 0.4])  # gaps 1, 0, −1, 5, 0.1, −1, 1, 5.2, 1, 0
    margins = (0.1, 1.0, 5.0)
    got = two_items(call(triplet_scores, d_ap.copy(), d_an.copy(), margins), "your function returned",
                    "return two things: the accuracy in %, then {margin: % of triplets meeting it}")
    want_acc, want_meets = triplet_scores_truth(d_ap, d_an, margins)
    try:
        acc = float(got[0])
        meets = {float(m): float(v) for m, v in dict(got[1]).items()}
    except (TypeError, ValueError):
        raise ExerciseError(f"your function returned {got!r}: a number, then a dict {{margin: percentage}}") from None
    if abs(acc - want_acc) > 1e-6:
        hint = ("that is a share, not a percentage: × 100" if abs(acc - want_acc / 100) < 1e-6 else
                "a triplet at equal distances is not right yet: the anchor must be strictly closer to its positive"
                if abs(acc - 100 * np.mean(d_ap <= d_an)) < 1e-6 else
                "the comparison is the wrong way round: right means the positive is closer"
                if abs(acc - 100 * np.mean(d_ap > d_an)) < 1e-6 else
                "the share of triplets whose anchor is closer to its positive than to its negative")
        raise ExerciseError(f"accuracy: you returned {acc:.1f}, expected {want_acc:.1f} on 10 hidden triplets\nHint: {hint}")
    require(set(meets) == set(margins), f"you returned the margins {sorted(meets)}, not {list(margins)}",
            "one entry per margin given, keyed by the margin")
    for m in margins:
        if abs(meets[m] - want_meets[m]) > 1e-6:
            gap = d_an - d_ap
            hint = ("a triplet whose gap is exactly ε has zero loss too: it meets the margin"
                    if abs(meets[m] - 100 * np.mean(gap > m)) < 1e-6 else
                    "the gap is d(a,n) − d(a,p): how much further the negative is than the positive"
                    if abs(meets[m] - 100 * np.mean(d_ap - d_an >= m)) < 1e-6 else
                    "that is a share, not a percentage: × 100" if abs(meets[m] - want_meets[m] / 100) < 1e-6 else
                    "the share of triplets whose negative is at least ε further from the anchor than the positive")
            raise ExerciseError(f"meets ε = {m:g}: you returned {meets[m]:.1f}, expected {want_meets[m]:.1f}\nHint: {hint}")
    ok("triplet_scores is right: accuracy = d(a,p) < d(a,n); a margin is met at d(a,n) − d(a,p) ≥ ε")


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    Exercise('triplet_loss', probe="""
            _rng = _np.random.default_rng(2028)
            _a, _p, _n = (_torch.tensor(_rng.normal(size=(6, 5)), dtype=_torch.float32) for _ in range(3))
            _result = [triplet_loss(_a, _p, _n), triplet_loss(_a, _p, _n, margin=0.5),
                       triplet_loss(_a, _p, _n, margin=3.0)]
            """, reference=reference_triplet_loss, kept=True),
    Exercise('TripletObjective', probe="""
            _rng = _np.random.default_rng(2035)
            _a, _p, _n = (_torch.tensor(_rng.normal(size=(4, 8)), dtype=_torch.float32) for _ in range(3))
            _result = {"n_texts": list(TripletObjective(_Model()).n_texts),
                       "loss": TripletObjective(_Model()).loss_from_embeddings([_a, _p, _n]),
                       "margin 0.3": TripletObjective(_Model(), margin=0.3).loss_from_embeddings([_a, _p, _n])}
            """, reference=TripletLoss, kept=True),
    Exercise('triplet_distances', probe="_result = triplet_distances(encoder, heldout[:12])", reference=triplet_distances_truth, kept=True),
    Exercise('triplet_scores', probe="""
            _result = [triplet_scores([0.5, 1.0, 2.0, 0.3, 1.5], [1.0, 0.8, 4.5, 0.3, 3.0], (0.1, 1.0, 2.5)),
                       triplet_scores(_np.array([1.0, 2.0]), _np.array([1.2, 1.0]), [0.2])]
            """),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "06.1a": number(
        "The triplet loss for d(a, p) = 0.8, d(a, n) = 1.5 and ε = 1?",
        0.3, 0.001,
        "Write max(d(a, p) − d(a, n) + ε, 0) and put the numbers in.",
        "Write max(d(a, p) − d(a, n) + ε, 0) and put the numbers in.",
        {1.7: "Check the signs: the loss grows when the positive is far, so d(a, p) comes with +.",
         -0.7: "Add the margin, then apply the hinge."}),
    "06.1b": number(
        "And with ε = 0.5?",
        0, 0.001,
        "A hinge max(·, 0) is never negative.",
        "Write max(d(a, p) − d(a, n) + ε, 0) with the new ε.",
        {1.2: "Check the signs: the loss grows when the positive is far, so d(a, p) comes with +."}),
    "06.2": choice(
        "Why does a sensible margin depend on whether the encoder normalises its vectors?",
        "Unit vectors are at most 2 apart: a larger margin is never met",
        {"Normalised vectors train faster, so they need a smaller one":
            "Speed is not the point. In which units is the margin measured?",
         "The margin is in cosine units, which normalising changes":
            "The loss here uses Euclidean distances. How far apart can two unit vectors be?",
         "It does not: ε = 1 suits every encoder equally well":
            "What is the largest Euclidean distance between two unit-length vectors?"}),
    "06.3": choice(
        "Where do the paper's triplets of Section 4.4 come from?",
        "Wikipedia sections: the negative from another section of the same article",
        {"NLI: a premise, an entailed and a contradicting hypothesis":
            "Those are ours, which is why our accuracies are not comparable with Table 4.",
         "STSb pairs, split into positives and negatives at a gold score of 2.5":
            "Section 4.4 uses no STS data.",
         "Wikipedia sections: the negative from a different, random article":
            "The negative is a hard one: from the same article."}),
    "06.4": choice(
        "Why does MNRL usually train better than the triplet loss for the same compute?",
        "Each anchor must beat many negatives at once",
        {"It is trained with a larger learning rate":
            "The rate is a setting of the run, not of the objective.",
         "It needs no negatives, so no bad ones":
            "Count them: with B triplets, 2B − 1 per anchor.",
         "The triplet loss cannot be batched":
            "Your triplet_loss takes (B, n) tensors."}),
    "06.5": choice(
        "If no training triplet ever reached a gap of 1, why would ε = 1 and ε = 5 train the same model?",
        "With every hinge active, ε is a constant with zero gradient",
        {"Margins above 1 are clipped to 1 by the loss":
            "Nothing clips ε. Differentiate the loss with respect to the weights: where does ε go?",
         "They would not: a larger margin always pushes harder":
            "Differentiate d(a,p) − d(a,n) + ε with respect to the weights: where does ε go?",
         "Because both runs use the same learning rate":
            "Same rate, same seed — but different losses. Why would their gradients agree?"}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
