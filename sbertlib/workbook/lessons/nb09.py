"""Self-checks for notebook 09 (visualising embeddings): two scores of how well labels group in a space.

* :func:`separation_truth` — mean cosine of same-label pairs minus mean cosine of different-label pairs
  (a global score, in cosine units);
* :func:`nn_agreement_truth` — share of sentences whose nearest neighbour (by cosine, itself excluded)
  has the same label (a local score: what a UMAP picture mostly shows).

The checks run the student's function on small hidden data sets built so that the usual slips give
different numbers, then on the notebook's own embeddings.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

import numpy as np

from . import guard, Exercise, ExerciseError, _brief, call, named_slip, ok, require
from .questions import choice

TOLERANCE = 1e-4


# ----------------------------------------------------------------------------- reference computations
def _unit(emb) -> np.ndarray:
    x = np.asarray(emb.detach().cpu().numpy() if hasattr(emb, "detach") else emb, dtype=np.float64)
    require(x.ndim == 2 and len(x) >= 2, f"Embeddings must have shape (n, dim) with n ≥ 2, got {x.shape}.")
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.clip(norms, 1e-12, None)


def _labels(labels: Sequence, n: int) -> np.ndarray:
    lab = np.asarray([str(v) for v in labels])
    require(len(lab) == n, f"{len(lab)} labels for {n} embeddings.")
    return lab


def separation_truth(emb, labels: Sequence) -> float:
    """Mean cosine over pairs (i ≠ j) with the same label minus mean cosine over pairs with different labels."""
    x = _unit(emb)
    lab = _labels(labels, len(x))
    cos = x @ x.T
    same = lab[:, None] == lab[None, :]
    off_diag = ~np.eye(len(x), dtype=bool)
    require((same & off_diag).any() and (~same).any(),
            "Need at least one same-label pair and one different-label pair.")
    return float(cos[same & off_diag].mean() - cos[~same].mean())


def nn_agreement_truth(emb, labels: Sequence) -> float:
    """Fraction of rows whose nearest other row (highest cosine, itself excluded) has the same label."""
    x = _unit(emb)
    lab = _labels(labels, len(x))
    cos = x @ x.T
    np.fill_diagonal(cos, -np.inf)
    return float(np.mean(lab[cos.argmax(axis=1)] == lab))


# ----------------------------------------------------------------------------- hidden test data
def _hidden_cases() -> list[tuple[np.ndarray, list]]:
    """Small data sets where the usual mistakes change the answer.

    Rows have very different norms (so skipping normalisation shows), a common offset (so cosines are
    not centred at 0), unequal class sizes (so averaging per class differs from averaging per pair),
    and string as well as integer labels.
    """
    rng = np.random.default_rng(9)
    cases = []
    for n, dim, k, labels_as in ((30, 8, 3, "str"), (41, 16, 4, "int"), (12, 5, 2, "str")):
        centres = rng.standard_normal((k, dim))
        sizes = np.maximum(1, (rng.dirichlet(np.ones(k) * 0.7) * n).astype(int))
        sizes[0] += n - sizes.sum() if n > sizes.sum() else 0
        lab = np.repeat(np.arange(k), sizes)[:n]
        x = centres[lab] + 0.9 * rng.standard_normal((len(lab), dim)) + 1.5  # shared offset
        x *= rng.uniform(0.2, 5.0, size=(len(lab), 1))  # very different norms
        perm = rng.permutation(len(lab))
        labels = [f"class-{v}" for v in lab[perm]] if labels_as == "str" else lab[perm].tolist()
        cases.append((x[perm], labels))
    return cases


def _one_number(value, what: str) -> float:
    """The student's score as a float, or an ExerciseError: one finite number is what both scores return."""
    if hasattr(value, "item") and np.size(value) == 1:
        value = value.item()
    require(isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value),
            f"{what} must return one finite number, got {_brief(value)}.")
    return float(value)


def _close(got: float, want: float) -> bool:
    return abs(got - want) <= TOLERANCE


def _raw(emb) -> np.ndarray:
    return np.asarray(emb.detach().cpu().numpy() if hasattr(emb, "detach") else emb, dtype=np.float64)


# ----------------------------------------------------------------------------- the usual slips, each a function
def _gap(emb, labels, normalise: bool = True, keep_diagonal: bool = False) -> float:
    """Separation by cosines (``normalise``) or dot products, with or without each row paired with itself."""
    x = _unit(emb) if normalise else _raw(emb)
    lab = _labels(labels, len(x))
    same = lab[:, None] == lab[None, :]
    s = same if keep_diagonal else same & ~np.eye(len(x), dtype=bool)
    score = x @ x.T
    return float(score[s].mean() - score[~same].mean())


def _gap_per_label(emb, labels) -> float:
    """Separation averaged per label first: each label's mean within and mean to the rest, then their means."""
    x = _unit(emb)
    lab = _labels(labels, len(x))
    cos = x @ x.T
    intra, inter = [], []
    for c in np.unique(lab):
        m = lab == c
        if m.sum() > 1:
            intra.append(cos[np.ix_(m, m)][~np.eye(m.sum(), dtype=bool)].mean())
        inter.append(cos[np.ix_(m, ~m)].mean())
    return float(np.mean(intra) - np.mean(inter))


def _agreement(emb, labels, score: str = "cosine", exclude_self: bool = True, largest: bool = True) -> float:
    """1-NN agreement with the neighbour found by ``score`` (cosine, dot or euclidean distance of the raw rows),
    itself excluded or not, the most (``largest``) or least similar."""
    from scipy.spatial.distance import cdist
    raw = _raw(emb)
    lab = _labels(labels, len(raw))
    m = (_unit(emb) @ _unit(emb).T if score == "cosine" else raw @ raw.T if score == "dot" else cdist(raw, raw))
    if exclude_self:
        np.fill_diagonal(m, -np.inf if largest else np.inf)
    nearest = m.argmax(axis=1) if largest else m.argmin(axis=1)
    return float(np.mean(lab[nearest] == lab))


# ----------------------------------------------------------------------------- checks
SEPARATION = Exercise(
    "separation",
    probe="""
            _rng = _np.random.default_rng(2030)
            _result = separation(_rng.normal(size=(12, 5)) + 0.5, [0, 1, 2] * 4)
            """,
    reference=separation_truth, inputs=_hidden_cases,
    slips={"that is with dot products: normalise the rows first, a cosine ignores the vectors' lengths":
               lambda emb, labels: _gap(emb, labels, normalise=False),
           "the same-label pairs include each sentence with itself (cosine 1): leave the diagonal out":
               lambda emb, labels: _gap(emb, labels, keep_diagonal=True),
           "that averages per label first: average over all same-label pairs, each pair counting once": _gap_per_label,
           "the wrong way round: same-label pairs minus different-label pairs":
               lambda emb, labels: -separation_truth(emb, labels)},
    hint="the mean cosine of the same-label pairs (two different sentences) minus that of the different-label pairs",
    ok=f"separation matches the reference on {len(_hidden_cases())} hidden sets",
    compare=_close, returns=_one_number)

NN_AGREEMENT = Exercise(
    "nn_agreement",
    probe="""
            _rng = _np.random.default_rng(2031)
            _result = nn_agreement(_rng.normal(size=(15, 4)), [0, 1, 1, 2, 0] * 3)
            """,
    reference=nn_agreement_truth, inputs=_hidden_cases,
    slips={"every row is its own nearest neighbour (cosine 1): exclude it before the argmax (-inf on the diagonal)":
               lambda emb, labels: _agreement(emb, labels, exclude_self=False),
           "that is the nearest by dot product: normalise the rows first (cosine)":
               lambda emb, labels: _agreement(emb, labels, "dot"),
           "that is the nearest by Euclidean distance of the raw vectors: use the cosine":
               lambda emb, labels: _agreement(emb, labels, "euclidean", largest=False),
           "a count, not a share: divide by the number of rows":
               lambda emb, labels: nn_agreement_truth(emb, labels) * len(labels),
           "that is the *least* similar other row: take the highest cosine (argmax)":
               lambda emb, labels: _agreement(emb, labels, largest=False)},
    hint="for each row, the other row of highest cosine: does it carry the same label? The share of rows where it does",
    ok=f"nn_agreement matches the reference on {len(_hidden_cases())} hidden sets",
    compare=_close, returns=_one_number)


def _check(exercise: Exercise, fn: Callable, emb, labels, shown: str) -> float:
    """``exercise``'s check of ``fn`` on its hidden sets and then, if given, on the notebook's own ``emb`` and
    ``labels``; the reference's value on the notebook's data (on the first hidden set without it)."""
    require(fn is not None and fn is not Ellipsis and callable(fn),
            f"`{exercise.name}` must be a function (emb, labels) -> float; got {type(fn).__name__}.",
            "Define it with `def` in the solution cell and run that cell first.")
    if emb is None:
        exercise.check(fn)
        return exercise.reference(*exercise.inputs()[0])
    value = exercise.reference(emb, labels)
    replace(exercise, inputs=lambda: [*exercise.inputs(), (emb, labels)],
            ok=f"{exercise.ok} and on your data ({value:{shown}})").check(fn)
    return value


def check_separation(separation: Callable, emb=None, labels: Sequence | None = None) -> float:
    """Pass when ``separation(emb, labels)`` equals :func:`separation_truth` on hidden data (and on ``emb``)."""
    return _check(SEPARATION, separation, emb, labels, "+.4f")


def check_nn_agreement(nn_agreement: Callable, emb=None, labels: Sequence | None = None) -> float:
    """Pass when ``nn_agreement(emb, labels)`` equals :func:`nn_agreement_truth` on hidden data (and on ``emb``)."""
    return _check(NN_AGREEMENT, nn_agreement, emb, labels, ".3f")


# ----------------------------------------------------------------------------- PCA by SVD
def pca_truth(emb, k: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """``(coords (n, k), explained (k,))``: the rows of ``emb`` centred (the mean row subtracted) and
    projected on the first ``k`` right singular vectors of the centred matrix, and the share of the total
    variance each of those directions holds (``S² / ΣS²``). Each direction's sign is arbitrary."""
    x = np.asarray(emb.detach().cpu().numpy() if hasattr(emb, "detach") else emb, dtype=np.float64)
    centred = x - x.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:k].T, (s ** 2 / np.sum(s ** 2))[:k]


def _pca_cases() -> list[tuple[str, np.ndarray, int]]:
    """Hidden embeddings with a large shared offset (so centring matters), dimensions on unequal scales (so
    scaling them changes the directions), rows of unequal norm (so normalising them does) and distinct
    singular values."""
    rng = np.random.default_rng(19)
    cases = []
    for n, dim, k in ((40, 6, 2), (25, 10, 3), (60, 4, 2)):
        x = rng.normal(size=(n, dim)) * np.linspace(3.0, 0.4, dim) @ np.linalg.qr(rng.normal(size=(dim, dim)))[0]
        x = x * rng.uniform(0.3, 3.0, size=(n, 1)) + rng.normal(4.0, 1.0, size=dim)
        cases.append((f"hidden embeddings {len(cases) + 1} ({n} × {dim}, k = {k})", x, k))
    return cases


def _aligned(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """``got`` with each column's sign flipped to agree with ``want``'s (a direction's sign is arbitrary)."""
    signs = np.sign(np.sum(got * want, axis=0))
    return got * np.where(signs == 0, 1.0, signs)


def _pca_slips(x: np.ndarray, k: int) -> dict[str, tuple[np.ndarray | None, np.ndarray | None]]:
    """(coords, explained) of the usual slips; None where a slip leaves that part right."""
    centred = x - x.mean(axis=0)
    u, s, vt = np.linalg.svd(centred, full_matrices=False)
    ur, sr, vtr = np.linalg.svd(x, full_matrices=False)
    z = centred / x.std(axis=0)
    uz, sz, vtz = np.linalg.svd(z, full_matrices=False)
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    unit = unit - unit.mean(axis=0)
    uu, su, vtu = np.linalg.svd(unit, full_matrices=False)
    slips = {
        "the embeddings not centred before the SVD": (x @ vtr[:k].T, (sr ** 2 / np.sum(sr ** 2))[:k]),
        "the columns of U, not scaled by the singular values": (u[:, :k], None),
        "the columns of Vt taken as the directions": (centred @ vt[:, :k], None) if vt.shape[0] == x.shape[1] else (None, None),
        "the last directions instead of the first": (centred @ vt[::-1][:k].T, (s ** 2 / np.sum(s ** 2))[::-1][:k]),
        "shares of the singular values, not of their squares": (None, (s / np.sum(s))[:k]),
        "variances instead of shares of the total variance": (None, (s ** 2 / (len(x) - 1))[:k]),
        "each dimension divided by its standard deviation": (z @ vtz[:k].T, (sz ** 2 / np.sum(sz ** 2))[:k]),
        "the rows normalised to unit length first": (unit @ vtu[:k].T, (su ** 2 / np.sum(su ** 2))[:k]),
        "shares of the k kept directions, not of all of them": (None, (s[:k] ** 2 / np.sum(s[:k] ** 2))),
    }
    return slips


PCA_HINTS = {
    "the embeddings not centred before the SVD": "centre the embeddings first (subtract the mean row): uncentred, the first direction points at the mean",
    "the columns of U, not scaled by the singular values": "U's columns have unit length, so the picture loses each direction's spread: scale them by their singular values",
    "the columns of Vt taken as the directions": "numpy's svd returns Vt: the principal directions are its rows, not its columns",
    "the last directions instead of the first": "numpy's svd sorts the singular values largest first: take the first k directions",
    "shares of the singular values, not of their squares": "a direction's variance grows with the *square* of its singular value",
    "variances instead of shares of the total variance": "explained is a share of the total variance: divide S² by ΣS² (all directions)",
    "each dimension divided by its standard deviation": "PCA here centres only: do not divide each dimension by its standard deviation",
    "the rows normalised to unit length first": "do not normalise the rows: PCA works on the embeddings as they are, centred",
    "shares of the k kept directions, not of all of them": "divide by the variance of *all* directions (ΣS² over every singular value), not of the k kept",
}


def check_pca(pca: Callable, emb=None, k: int = 2) -> None:
    """Check ``pca(emb, k) -> (coords (n, k), explained (k,))`` against :func:`pca_truth` on hidden embeddings
    (and on ``emb`` if given); each direction's sign may differ."""
    require(callable(pca), f"pass your function itself, not {type(pca).__name__}", "check_pca(pca, emb)")
    cases = _pca_cases() + ([("the notebook's embeddings", np.asarray(emb, dtype=np.float64), k)] if emb is not None else [])
    for name, x, kk in cases:
        out = call(pca, x.copy(), kk, what=f"pca on {name}")
        from . import two_items
        coords, explained = two_items(out, f"on {name} pca returned", "return a pair: (coords, explained)")
        coords = np.asarray(coords.detach().cpu().numpy() if hasattr(coords, "detach") else coords, dtype=np.float64)
        explained = np.ravel(np.asarray(explained.detach().cpu().numpy() if hasattr(explained, "detach") else explained,
                                        dtype=np.float64))
        want_c, want_e = pca_truth(x, kk)
        require(coords.shape == want_c.shape, f"on {name} the coordinates have shape {coords.shape}, expected "
                f"{want_c.shape}", "one row per sentence, one column per kept direction: (n, k)")
        require(explained.shape == want_e.shape, f"on {name} explained has {explained.size} values, expected {kk}",
                "one share per kept direction")
        coords_ok = np.allclose(_aligned(coords, want_c), want_c, atol=1e-6)
        explained_ok = np.allclose(explained, want_e, atol=1e-8)
        if coords_ok and explained_ok:
            continue
        slips = _pca_slips(x, kk)
        hint = None
        for slip, (c, e) in slips.items():
            same_c = c is not None and c.shape == coords.shape and np.allclose(_aligned(coords, c), c, atol=1e-6)
            same_e = e is not None and e.shape == explained.shape and np.allclose(explained, e, atol=1e-8)
            if (not coords_ok and same_c) or (not explained_ok and same_e):
                hint = PCA_HINTS[slip]
                break
        what = "the coordinates" if not coords_ok else "explained"
        raise ExerciseError(f"on {name} {what} differ from PCA's\nHint: "
                            + (hint or ("centre, take the SVD of the centred matrix, project on its first k directions; explained: each "
                                        "kept direction's share of the total variance")))
    ok(f"pca matches PCA by SVD on {len(_pca_cases())} hidden sets" + (" and on your embeddings" if emb is not None else "")
       + " (each direction up to its sign)")


# ----------------------------------------------------------------------------- chance agreement
def chance_truth(labels: Sequence) -> float:
    """Σ share²: the probability that a sentence and a random sentence (drawn with replacement) share a label."""
    shares = np.unique(np.asarray([str(v) for v in labels]), return_counts=True)[1] / len(labels)
    return float((shares ** 2).sum())


def _chance_other(labels: Sequence) -> float:
    """Σ n_c(n_c − 1) / (n(n − 1)): the same for a random *other* sentence (without replacement) — also right."""
    counts = np.unique(np.asarray([str(v) for v in labels]), return_counts=True)[1]
    n = counts.sum()
    return float((counts * (counts - 1)).sum() / (n * (n - 1)))


def check_chance(chance: Callable) -> None:
    """Check ``chance(labels) -> float``, the 1-NN agreement a model gets when its neighbours ignore the labels:
    Σ share² (with replacement), or Σ n_c(n_c − 1)/(n(n − 1)) (a random *other* sentence); on hidden labellings
    with unequal classes, as strings and as integers."""
    require(callable(chance), f"pass your function itself, not {type(chance).__name__}", "check_chance(chance)")
    cases = [["a"] * 6 + ["b"] * 3 + ["c"], [0, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 0], ["x"] * 9 + ["y"] * 1]
    used = set()
    for labels in cases:
        got = call(chance, list(labels), what="`chance`")
        if hasattr(got, "item") and np.size(got) == 1:
            got = got.item()
        require(isinstance(got, (int, float)) and not isinstance(got, bool), f"`chance` returned {got!r}",
                "return one number between 0 and 1")
        want, other = chance_truth(labels), _chance_other(labels)
        if abs(got - want) <= 1e-9 or abs(got - other) <= 1e-9:
            used.add("with" if abs(got - want) <= 1e-9 else "without")
            continue
        counts = np.unique(np.asarray([str(v) for v in labels]), return_counts=True)[1]
        shares = counts / counts.sum()
        hints = {1 / len(counts): "that is 1/(number of labels): it assumes equal classes; weight each label by its share",
                 float(shares.max()): "that is the largest share (the majority class); a random neighbour matches "
                                      "label c with probability share_c, for a sentence of label c",
                 float((shares ** 2).sum() * 100): "give a share (0 … 1), not a percentage",
                 1.0: "the shares sum to 1: square each share before summing"}
        hint = next((h for v, h in hints.items() if abs(got - v) <= 1e-9),
                    "a sentence has label c with probability share_c; with what probability does a neighbour drawn "
                    "at random share it? Add that up over the labels")
        raise ExerciseError(f"chance({labels}) returned {got:.4f}, expected {want:.4f}\nHint: {hint}")
    require(len(used) == 1, "`chance` used one formula on some labellings and the other on the rest",
            "draw the random neighbour the same way every time")
    if used == {"with"}:
        ok("chance is right: Σ share² — a random neighbour drawn with replacement (it may be the sentence itself)")
    else:
        ok("chance is right: Σ n_c(n_c − 1) / (n(n − 1)) — a random *other* sentence (drawn without replacement), "
           "as 1-NN agreement's neighbour is; Σ share² (with replacement) is the same for a large n")


# ----------------------------------------------------------------------------- premise–hypothesis cosines
def cosine_by_label_truth(premise, hypothesis, gold: Sequence, labels: Sequence[str]) -> dict[str, float]:
    """The mean cosine of pair i's premise and hypothesis (row i with row i) over the pairs of each gold label."""
    p, h = _unit(premise), _unit(hypothesis)
    cos = np.sum(p * h, axis=1)
    gold = np.asarray([str(g) for g in gold])
    return {lab: float(cos[gold == lab].mean()) for lab in labels}


def check_cosine_by_label(cosine_by_label: Callable, labels: Sequence[str] = ("entailment", "neutral", "contradiction")) -> None:
    """Check ``cosine_by_label(premise, hypothesis, gold, labels) -> {label: mean cosine}`` on hidden pairs
    whose rows have very different norms and a shared offset."""
    require(callable(cosine_by_label), f"pass your function itself, not {type(cosine_by_label).__name__}",
            "check_cosine_by_label(cosine_by_label)")
    rng = np.random.default_rng(29)
    for n, dim in ((12, 5), (30, 8)):
        p = rng.normal(size=(n, dim)) + 1.0
        h = p * rng.uniform(0.2, 4.0, size=(n, 1)) + rng.normal(size=(n, dim)) * np.linspace(0.2, 2.0, n)[:, None]
        p *= rng.uniform(0.2, 5.0, size=(n, 1))
        gold = [labels[i % len(labels)] for i in rng.permutation(n)]
        got = call(cosine_by_label, p.copy(), h.copy(), list(gold), tuple(labels), what="`cosine_by_label`")
        require(isinstance(got, dict) and set(map(str, got)) == set(labels),
                f"`cosine_by_label` returned {type(got).__name__} {str(got)[:80]}",
                "return a dict {label: mean cosine}, one entry per label")
        want = cosine_by_label_truth(p, h, gold, labels)
        got = {str(k): float(np.asarray(v).item()) for k, v in got.items()}
        bad = next((lab for lab in labels if abs(got[lab] - want[lab]) > 1e-6), None)
        if bad is None:
            continue
        gold_a = np.asarray(gold)
        unit_p, unit_h = _unit(p), _unit(h)
        slips = {"dot": np.sum(p * h, axis=1)[gold_a == bad].mean(),
                 "matrix": (unit_p[gold_a == bad] @ unit_h[gold_a == bad].T).mean(),
                 "all": np.sum(unit_p * unit_h, axis=1).mean()}
        hints = {"dot": "that is the dot product: normalise both rows first (cosine)",
                 "matrix": "compare pair i's premise with pair i's hypothesis only (row i with row i), not every "
                           "premise with every hypothesis",
                 "all": "average only over the pairs whose gold label is that label"}
        hint = named_slip(got[bad], {hints[s]: v for s, v in slips.items()},
                          "cosine of row i of premise with row i of hypothesis, averaged over the pairs of each label",
                          close=lambda a, b: abs(a - b) <= 1e-6)
        raise ExerciseError(f"for {bad!r} you gave {got[bad]:.4f}, expected {want[bad]:.4f}\nHint: {hint}")
    ok("cosine_by_label is right: the mean cosine of each pair's premise and hypothesis, per gold label")


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    SEPARATION,
    NN_AGREEMENT,
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "09.1a": choice(
        "Where does the paper call BERT's space 'rather unsuitable' for cosine similarity?",
        "In the conclusion (Section 8)",
        {"In the abstract, as its motivation":
            "The abstract speaks of speed and of SBERT. Look at the end of the paper.",
         "In Section 3 (Model), before the objectives":
            "Section 3 describes SBERT's architecture. Look at the end of the paper.",
         "In Table 1's caption":
            "The table gives the numbers; the sentence is in the paper's closing section."}),
    "09.1b": choice(
        "Which measurements back it?",
        "Table 1: BERT vectors below averaged GloVe",
        {"Table 5: averaged BERT loses on SentEval":
            "In Table 5 averaged BERT does well: a classifier can re-weight dimensions.",
         "Table 7: plain BERT is slow to run":
            "Speed says nothing about cosine similarity."}),
    "09.2": choice(
        "The classification objective never computes a cosine. Why does it still change cosine similarities?",
        "Its classifier reads |u−v|: entailed pairs are pulled close",
        {"It does not: only MNRL changes the cosines":
            "Compare the untrained and trained pictures of this notebook.",
         "The classifier's weights are copied into the encoder":
            "Nothing is copied. Which feature of (u, v, |u−v|) measures distance?"}),
    "09.3": choice(
        "Why can a negation stay close to its sentence in a well-trained similarity space?",
        "Cosine measures shared content, and it shares almost all",
        {"The tokenizer drops 'not' as a stop word before encoding":
            "The tokenizer keeps 'not'. What do the two sentences share?",
         "NLI labels are too noisy to teach what negation means":
            "The labels are fine. What does a cosine measure?"}),
    "09.4": choice(
        "What does a UMAP picture preserve?",
        "Neighbourhoods",
        {"Distances between islands":
            "UMAP does not preserve distances between islands.",
         "The sizes of the islands":
            "UMAP does not preserve sizes or shapes of islands.",
         "The model's own classes":
            "The colours are our labels; the model never saw them."}),
    "09.5": choice(
        "Why can the separation score be small for an anisotropic model whose neighbourhoods are sensible?",
        "It is in cosine units; squeezed cosines give small gaps",
        {"Anisotropic models have no sensible neighbourhoods":
            "The question says they do. What does separation measure, in which units?",
         "Separation looks only at the nearest neighbour":
            "That is the 1-NN agreement. Separation compares mean cosines within and between groups."}),
    "09.6": choice(
        "Why is an untrained network grouping TREC questions by type no evidence of understanding?",
        "The type is in the first words, and averaging keeps them",
        {"The TREC labels are assigned at random, so any grouping is luck":
            "The labels are real. What do questions of one type have in common on the surface?",
         "UMAP invents groups that are not there in the vectors":
            "The 1-NN agreement is measured in the embedding itself, not in the picture."}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
