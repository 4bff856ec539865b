"""Self-checks for notebook 09: cosines by label, separation, 1-NN agreement, PCA by SVD, the chance agreement."""
from dataclasses import replace
from functools import partial
from typing import Callable, Sequence

import numpy as np

from . import (Exercise, _brief, _guarded, as_array as _raw, call, guard, ok, one_number, require, two_items,
               unit as _unit, within)

_close = within(0, 1e-4)   # a number's compare: equal within 1e-4


def _labels(labels: Sequence) -> np.ndarray:
    return np.asarray([str(v) for v in labels])


def _one_number(value, what: str) -> float:
    x = one_number(value, what, "return one finite number")
    require(np.isfinite(x), f"{what} must return one finite number, got {x}.")
    return x


def cosine_by_label_truth(premise, hypothesis, gold: Sequence, labels: Sequence[str], sim=None) -> dict[str, float]:
    """The mean cosine of pair i's premise and hypothesis over the pairs of each gold label (``sim``: a slip's)."""
    cos = (sim or (lambda p, h: np.sum(_unit(p) * _unit(h), axis=1)))(_raw(premise), _raw(hypothesis))
    return {lab: float(cos[_labels(gold) == lab].mean()) for lab in labels}


def _nli_cases():
    rng, labels = np.random.default_rng(29), ("entailment", "neutral", "contradiction")
    for n, dim in ((12, 5), (30, 8)):
        p = rng.normal(size=(n, dim)) + 1.0
        h = p * rng.uniform(0.2, 4.0, size=(n, 1)) + rng.normal(size=(n, dim)) * np.linspace(0.2, 2.0, n)[:, None]
        yield p * rng.uniform(0.2, 5.0, size=(n, 1)), h, [labels[i % 3] for i in rng.permutation(n)], labels


def _by_label(got, what: str) -> dict:
    require(isinstance(got, dict), f"{what} returned {type(got).__name__} {_brief(got)}",
            "return a dict {label: mean cosine}, one entry per label")
    return {str(k): _one_number(v, what) for k, v in got.items()}


COSINE_BY_LABEL = Exercise("cosine_by_label", reference=cosine_by_label_truth, inputs=lambda: [*_nli_cases()], slips={
    "that is the dot product: normalise both rows first (cosine)":
        partial(cosine_by_label_truth, sim=lambda p, h: np.sum(p * h, axis=1)),
    "only one side was normalised: the cosine divides by both lengths":
        partial(cosine_by_label_truth, sim=lambda p, h: np.sum(_unit(p) * h, axis=1)),
    "you normalised each column (axis=0): a vector's length is its row's norm (axis=1, keepdims=True)":
        partial(cosine_by_label_truth, sim=lambda p, h: np.sum(_unit(p, 0) * _unit(h, 0), axis=1)),
    "compare pair i's premise with pair i's hypothesis only (row i with row i), not every premise with every "
    "hypothesis": lambda p, h, g, labels: {lab: float((_unit(p)[_labels(g) == lab] @ _unit(h)[_labels(g) == lab].T)
                                                      .mean()) for lab in labels},
    "average only over the pairs whose gold label is that label":
        lambda p, h, g, labels: dict.fromkeys(labels, float(np.sum(_unit(p) * _unit(h), axis=1).mean()))},
    hint="cosine of row i of premise with row i of hypothesis, averaged over the pairs of each label",
    ok="cosine_by_label is right: the mean cosine of each pair's premise and hypothesis, per gold label",
    compare=lambda a, b: a.keys() == b.keys() and all(abs(a[k] - b[k]) <= 1e-6 for k in a), returns=_by_label)
check_cosine_by_label = _guarded(COSINE_BY_LABEL.check)


def separation_truth(emb, labels: Sequence, unit=_unit, keep_diagonal=False, against_all=False) -> float:
    """Mean cosine over pairs (i ≠ j) with the same label minus mean cosine over pairs with different labels; the
    keywords are slips' (rows made unit by ``unit``, the pair of a row with itself kept, all pairs subtracted)."""
    x, lab = unit(emb), _labels(labels)
    same, score = lab[:, None] == lab[None, :], x @ x.T
    return float(score[same if keep_diagonal else same & ~np.eye(len(x), dtype=bool)].mean()
                 - (score.mean() if against_all else score[~same].mean()))


def _gap_per_label(emb, labels) -> float:
    x, lab = _unit(emb), _labels(labels)
    cos, labs = x @ x.T, np.unique(lab)
    intra = [cos[np.ix_(m, m)][~np.eye(m.sum(), dtype=bool)].mean() for m in (lab == c for c in labs) if m.sum() > 1]
    return float(np.mean(intra) - np.mean([cos[np.ix_(lab == c, lab != c)].mean() for c in labs]))


def nn_agreement_truth(emb, labels: Sequence, score="cosine", exclude_self=True, largest=True) -> float:
    """Share of rows whose nearest other row (highest cosine, itself excluded) has the same label; keywords: slips'."""
    from scipy.spatial.distance import cdist
    raw, lab = _raw(emb), _labels(labels)
    m = {"cosine": lambda: _unit(raw) @ _unit(raw).T, "dot": lambda: raw @ raw.T,
         "euclidean": lambda: cdist(raw, raw)}[score]()
    if exclude_self:
        np.fill_diagonal(m, -np.inf if largest else np.inf)
    return float(np.mean(lab[m.argmax(axis=1) if largest else m.argmin(axis=1)] == lab))


def _hidden_cases() -> list[tuple[np.ndarray, list]]:
    """Rows of very different norms with a shared offset, classes of unequal sizes, string and integer labels."""
    rng, cases = np.random.default_rng(9), []
    for n, dim, k, labels_as in ((30, 8, 3, "str"), (41, 16, 4, "int"), (12, 5, 2, "str")):
        centres = rng.standard_normal((k, dim))
        sizes = np.maximum(1, (rng.dirichlet(np.ones(k) * 0.7) * n).astype(int))
        sizes[0] += n - sizes.sum() if n > sizes.sum() else 0
        lab = np.repeat(np.arange(k), sizes)[:n]
        x = (centres[lab] + 0.9 * rng.standard_normal((len(lab), dim)) + 1.5) * rng.uniform(0.2, 5.0, (len(lab), 1))
        perm = rng.permutation(len(lab))
        cases.append((x[perm], [f"class-{v}" for v in lab[perm]] if labels_as == "str" else lab[perm].tolist()))
    return cases


SEPARATION = Exercise("separation", probe="""
            _rng = _np.random.default_rng(2030)
            _result = separation(_rng.normal(size=(12, 5)) + 0.5, [0, 1, 2] * 4)
            """,
    reference=separation_truth, inputs=_hidden_cases,
    slips={"that is with dot products: normalise the rows first, a cosine ignores the vectors' lengths":
               lambda emb, labels: separation_truth(emb, labels, _raw),
           "you normalised each column (axis=0): a vector's length is its row's norm (axis=1, keepdims=True)":
               lambda emb, labels: separation_truth(emb, labels, lambda e: _unit(e, 0)),
           "the same-label pairs include each sentence with itself (cosine 1): leave the diagonal out":
               lambda emb, labels: separation_truth(emb, labels, keep_diagonal=True),
           "you subtracted the mean over all pairs: subtract the mean over the different-label pairs":
               lambda emb, labels: separation_truth(emb, labels, against_all=True),
           "that averages per label first: average over all same-label pairs, each pair counting once": _gap_per_label,
           "the wrong way round: same-label pairs minus different-label pairs":
               lambda emb, labels: -separation_truth(emb, labels)},
    hint="the mean cosine of the same-label pairs (two different sentences) minus that of the different-label pairs",
    ok=f"separation matches the reference on {len(_hidden_cases())} hidden sets",
    compare=_close, returns=_one_number)

NN_AGREEMENT = Exercise("nn_agreement", probe="""
            _rng = _np.random.default_rng(2031)
            _result = nn_agreement(_rng.normal(size=(15, 4)), [0, 1, 1, 2, 0] * 3)
            """,
    reference=nn_agreement_truth, inputs=_hidden_cases,
    slips={"every row is its own nearest neighbour (cosine 1): exclude it before the argmax (-inf on the diagonal)":
               partial(nn_agreement_truth, exclude_self=False),
           "that is the nearest by dot product: normalise the rows first (cosine)":
               partial(nn_agreement_truth, score="dot"),
           "that is the nearest by Euclidean distance of the raw vectors: use the cosine":
               partial(nn_agreement_truth, score="euclidean", largest=False),
           "a count, not a share: divide by the number of rows":
               lambda emb, labels: nn_agreement_truth(emb, labels) * len(labels),
           "that is the *least* similar other row: take the highest cosine (argmax)":
               partial(nn_agreement_truth, largest=False)},
    hint="for each row, the other row of highest cosine: does it carry the same label? The share of rows where it does",
    ok=f"nn_agreement matches the reference on {len(_hidden_cases())} hidden sets",
    compare=_close, returns=_one_number)


def _check(exercise: Exercise, fn: Callable, emb, labels, shown: str) -> float:
    """``exercise``'s check on its hidden sets and on the notebook's own data if given; the reference's value there."""
    if emb is None:
        exercise.check(fn)
        return exercise.reference(*exercise.inputs()[0])
    require(np.ndim(emb) == 2 and len(emb) >= 2, f"Embeddings must have shape (n, dim) with n ≥ 2, got "
            f"{np.shape(emb)}.")
    require(len(labels) == len(emb), f"{len(labels)} labels for {len(emb)} embeddings.")
    value = exercise.reference(emb, labels)
    replace(exercise, inputs=lambda: [*exercise.inputs(), (emb, labels)],
            ok=f"{exercise.ok} and on your data ({value:{shown}})").check(fn)
    return value


def check_separation(separation: Callable, emb=None, labels: Sequence | None = None) -> float:
    return _check(SEPARATION, separation, emb, labels, "+.4f")


def check_nn_agreement(nn_agreement: Callable, emb=None, labels: Sequence | None = None) -> float:
    return _check(NN_AGREEMENT, nn_agreement, emb, labels, ".3f")


def pca_truth(emb, k: int = 2, prepare=None, coords=None, explained=None, last=False) -> tuple[np.ndarray, np.ndarray]:
    """``(coords (n, k), explained (k,))``: the centred rows projected on the first ``k`` right singular vectors (any
    sign), and each one's share of the total variance (``S² / ΣS²``); each keyword is a slip's."""
    x = (prepare or (lambda x: x - x.mean(axis=0)))(_raw(emb))
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    u, s, vt = (u[:, ::-1], s[::-1], vt[::-1]) if last else (u, s, vt)
    return ((coords or (lambda x, u, s, vt: x @ vt[:k].T))(x, u, s, vt),
            (explained or (lambda s: (s ** 2 / np.sum(s ** 2))[:k]))(s))


def _pca_cases() -> list[tuple[np.ndarray, int]]:
    """A large shared offset (centring matters), dimensions on unequal scales (scaling them changes the directions),
    rows of unequal norm (normalising them does), distinct singular values; k = 2 and 3."""
    rng, cases = np.random.default_rng(19), []
    for n, dim, k in ((40, 6, 2), (25, 10, 3), (60, 4, 2)):
        x = rng.normal(size=(n, dim)) * np.linspace(3.0, 0.4, dim) @ np.linalg.qr(rng.normal(size=(dim, dim)))[0]
        cases.append((x * rng.uniform(0.3, 3.0, size=(n, 1)) + rng.normal(4.0, 1.0, size=dim), k))
    return cases


def _same_pca(got, want) -> bool:
    """Equal coordinates, up to each direction's sign, and equal shares (float32 rounding allowed)."""
    (c, e), (wc, we) = got, want
    if c.shape != wc.shape or e.shape != we.shape:
        return False
    c = c * np.where(np.sum(c * wc, axis=0) < 0, -1.0, 1.0)
    return np.allclose(c, wc, rtol=1e-4, atol=1e-4) and np.allclose(e, we, rtol=1e-4, atol=1e-7)


PCA = Exercise("pca", reference=pca_truth, inputs=_pca_cases, compare=_same_pca, parts=("coords", "explained"), slips={
    "centre the embeddings first (subtract the mean row): uncentred, the first direction points at the mean":
        lambda x, k: pca_truth(x, k, prepare=lambda x: x),
    "U's columns have unit length, so the picture loses each direction's spread: scale them by their singular values":
        lambda x, k: pca_truth(x, k, coords=lambda x, u, s, vt: u[:, :k]),
    "numpy's svd returns Vt: the principal directions are its rows, not its columns":
        lambda x, k: pca_truth(x, k, coords=lambda x, u, s, vt: x @ vt[:, :k]),
    "numpy's svd sorts the singular values largest first: take the first k directions": partial(pca_truth, last=True),
    "k is ignored: keep the k directions asked for": lambda x, k: pca_truth(x),
    "explained holds every direction's share: keep the k kept directions' ([:k])":
        lambda x, k: pca_truth(x, k, explained=lambda s: s ** 2 / np.sum(s ** 2)),
    "a direction's variance grows with the *square* of its singular value":
        lambda x, k: pca_truth(x, k, explained=lambda s: (s / np.sum(s))[:k]),
    "explained is a share of the total variance: divide S² by ΣS² (all directions)":
        lambda x, k: pca_truth(x, k, explained=lambda s: (s ** 2 / (len(x) - 1))[:k]),
    "divide by the variance of *all* directions (ΣS² over every singular value), not of the k kept":
        lambda x, k: pca_truth(x, k, explained=lambda s: s[:k] ** 2 / np.sum(s[:k] ** 2)),
    "PCA here centres only: do not divide each dimension by its standard deviation":
        lambda x, k: pca_truth(x, k, prepare=lambda x: (x - x.mean(axis=0)) / x.std(axis=0)),
    "do not normalise the rows: PCA works on the embeddings as they are, centred":
        lambda x, k: pca_truth(x, k, prepare=lambda x: _unit(x) - _unit(x).mean(axis=0))},
    hint="centre, take the SVD of the centred matrix, project on its first k directions (coords: (n, k)); explained: "
         "each kept direction's share of the total variance, (k,)",
    ok="pca matches PCA by SVD on the hidden sets (each direction up to its sign)",
    returns=lambda got, what: tuple(_raw(x) for x in two_items(got, f"{what} returned", "return (coords, explained)")))


def check_pca(pca: Callable, emb=None, k: int = 2) -> None:
    extra = [(_raw(emb), k)] if emb is not None else []
    replace(PCA, inputs=lambda: _pca_cases() + extra, ok=PCA.ok + " and on your embeddings" * bool(extra)).check(pca)


_counts = lambda labels: np.unique(_labels(labels), return_counts=True)[1]  # noqa: E731 - each label's


def chance_truth(labels: Sequence) -> float:
    """Σ share²: the probability that a sentence and a random sentence (drawn with replacement) share a label."""
    return float(np.sum((_counts(labels) / len(labels)) ** 2))


def _chance_other(labels: Sequence) -> float:
    """Σ n_c(n_c − 1) / (n(n − 1)): the same for a random *other* sentence (without replacement) — also right."""
    counts = _counts(labels)
    return float((counts * (counts - 1)).sum() / (len(labels) * (len(labels) - 1)))


CHANCE = Exercise("chance", reference=chance_truth, compare=_close, returns=_one_number, inputs=lambda: [
    ([0, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 0],), (["a"] * 6 + ["b"] * 3 + ["c"],), (["x"] * 9 + ["y"],)], slips={
    "that is 1/(number of labels): it assumes equal classes; weight each label by its share":
        lambda labels: 1 / len(set(map(str, labels))),
    "that is the largest share (the majority class); a random neighbour matches label c with probability share_c, "
    "for a sentence of label c": lambda labels: max(_counts(labels)) / len(labels),
    "those are counts: divide each label's count by the number of sentences (a share) before squaring":
        lambda labels: float(np.sum(_counts(labels) ** 2)),
    "the shares sum to 1: square each share before summing": lambda labels: 1.0},
    hint="a sentence has label c with probability share_c; with what probability does a neighbour drawn at random "
         "share it? Add that up over the labels",
    ok="chance is right: Σ share² — a random neighbour drawn with replacement (it may be the sentence itself)")


def check_chance(chance: Callable) -> None:
    if all(_close(_one_number(call(chance, *a, what="your chance"), "chance"), _chance_other(*a))
           for a in CHANCE.inputs()):
        return ok("chance is right: Σ n_c(n_c − 1) / (n(n − 1)) — a random *other* sentence (drawn without "
                  "replacement), as 1-NN agreement's neighbour is; Σ share² (with replacement) is the same for a "
                  "large n")
    CHANCE.check(chance)


EXERCISES = (SEPARATION, NN_AGREEMENT, COSINE_BY_LABEL, PCA, CHANCE)

guard(globals())   # last: every check above shows its own failures as an ExerciseError
