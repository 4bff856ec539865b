"""Self-checks for ``00_setup_and_tour``."""
from __future__ import annotations

from typing import Callable

import numpy as np
import torch

from . import guard, Exercise, ExerciseError, call, ok, require, two_items
from .questions import choice

__all__ = ["check_most_similar_pair", "most_similar_pair_truth", "check_cosine_matrix", "cosine_matrix_truth",
           "check_nearest_neighbour_hits", "nearest_neighbour_hits_truth"]


def _as_numpy(matrix) -> np.ndarray:
    if isinstance(matrix, torch.Tensor):
        return matrix.detach().cpu().double().numpy()
    return np.asarray(matrix, dtype=np.float64)


def most_similar_pair_truth(matrix) -> tuple[int, int]:
    """The ``(i, j)``, ``i < j``, of the largest off-diagonal entry of a symmetric matrix."""
    m = _as_numpy(matrix).copy()
    require(m.ndim == 2 and m.shape[0] == m.shape[1] and m.shape[0] >= 2,
            f"need a square matrix of at least 2 × 2, got shape {m.shape}")
    np.fill_diagonal(m, -np.inf)
    i, j = divmod(int(np.argmax(m)), m.shape[1])
    return (min(i, j), max(i, j))


def _like(template, array: np.ndarray):
    """``array`` as the same kind of object as ``template`` (torch tensor or numpy array)."""
    if isinstance(template, torch.Tensor):
        return torch.as_tensor(array, dtype=template.dtype)
    return array.astype(np.asarray(template).dtype, copy=False)


def _pair_from(answer, n: int) -> tuple[int, int]:
    items = two_items(answer, "your function returned", "return the pair as a tuple (i, j) of two row indices")
    pair = []
    for x in items:
        if isinstance(x, torch.Tensor):
            x = x.item()
        require(isinstance(x, (int, np.integer)) and not isinstance(x, bool),
                f"index {x!r} is a {type(x).__name__}, not an integer",
                "turn tensor/array indices into Python ints with int(...)")
        require(0 <= int(x) < n, f"index {int(x)} is outside 0..{n - 1}")
        pair.append(int(x))
    return (min(pair), max(pair))




def check_most_similar_pair(most_similar_pair: Callable, sim) -> None:
    """Check ``most_similar_pair(sim) -> (i, j)``: the two *different* sentences with the highest similarity.

    Tested on ``sim`` (the notebook's matrix) and on random symmetric matrices with a unit diagonal,
    against the truth computed here from each input. The order of ``i`` and ``j`` does not matter.
    """
    require(callable(most_similar_pair), f"pass your function itself, not {type(most_similar_pair).__name__}",
            "check_most_similar_pair(most_similar_pair, sim) — no parentheses after the name")
    rng = np.random.default_rng(7)
    cases = [("the notebook's matrix", sim)]
    for n in (2, 5, 9):
        a = rng.uniform(-1, 0.95, size=(n, n))
        m = (a + a.T) / 2
        np.fill_diagonal(m, 1.0)
        cases.append((f"a random {n}×{n} similarity matrix", _like(sim, m)))
    neg = -np.ones((4, 4)) + 0.1 * np.eye(4)[::-1]  # all negative off the diagonal: max is the least negative
    neg = (neg + neg.T) / 2
    np.fill_diagonal(neg, 1.0)
    cases.append(("a matrix whose off-diagonal entries are all negative", _like(sim, neg)))
    for name, m in cases:
        truth = most_similar_pair_truth(m)
        n = _as_numpy(m).shape[0]
        got = _pair_from(call(most_similar_pair, m), n)
        require(got[0] != got[1], f"on {name} you returned ({got[0]}, {got[1]}): a sentence paired with itself",
                "the diagonal holds each sentence's similarity with itself (always the largest); "
                "ignore it, e.g. copy the matrix and fill the diagonal with -inf first")
        require(got == truth, f"on {name} you returned {got}, but the most similar pair is {truth} "
                f"(similarity {_as_numpy(m)[truth]:.3f} vs your pair's {_as_numpy(m)[got]:.3f})",
                "look for the largest entry off the diagonal (argmax, then divmod by the row length)")
    i, j = most_similar_pair_truth(sim)
    ok(f"most_similar_pair is right: in the notebook's matrix, sentences {i} and {j} are the most similar "
       f"(cosine {_as_numpy(sim)[i, j]:.3f})")


# ----------------------------------------------------------------------------- the cosine-similarity matrix
def cosine_matrix_truth(a, b) -> np.ndarray:
    """``out[i, j] = cos(a[i], b[j])`` (float64): :func:`sbertlib.model.similarity.cos_sim`, as numpy."""
    from ...model.similarity import cos_sim
    return cos_sim(torch.as_tensor(np.asarray(a, dtype=np.float64)), torch.as_tensor(np.asarray(b, dtype=np.float64))).numpy()


def _cosine_cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Float32 rows (as ``encode`` returns them) of very different lengths around a shared offset, so that a
    dot product, a column-wise normalisation or a one-sided one give other numbers than the cosine."""
    rng = np.random.default_rng(2019)

    def rows(n, d, offset):
        x = rng.standard_normal((n, d)) + offset
        return (x * rng.uniform(0.1, 9.0, size=(n, 1))).astype(np.float32)
    a, b = rows(5, 8, 0.7), rows(7, 8, 0.7)
    c = rows(6, 4, -0.3)
    return [("a (5, 8) against b (7, 8)", a, b), ("a (6, 4) against itself", c, c.copy()),
            ("one row (1, 8) against b (7, 8)", a[:1].copy(), b)]


def _f64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _unit(x, axis: int = 1) -> np.ndarray:
    """``x`` in float64, each row (``axis=1``) or each column (``axis=0``) divided by its length."""
    return _f64(x) / np.linalg.norm(_f64(x), axis=axis, keepdims=True)


def _matrix(got, what: str) -> np.ndarray:
    """The student's matrix as float64 numpy (from an array, a tensor or nested lists), holding no NaN or inf."""
    require(got is not None, f"{what} returned None", "return the (n, m) matrix of cosines")
    try:
        got = _as_numpy(got)
    except (TypeError, ValueError, RuntimeError):
        raise ExerciseError(f"{what} returned a {type(got).__name__}, not an array\n"
                            "Hint: return the (n, m) matrix of cosines, a numpy array or a torch tensor") from None
    require(bool(np.all(np.isfinite(got))), f"{what} returned a matrix holding NaN or inf",
            "divide by the rows' lengths, which are never 0 here")
    return got


COSINE_MATRIX = Exercise(
    "cosine_matrix",
    reference=cosine_matrix_truth,
    inputs=lambda: [(a, b) for _, a, b in _cosine_cases()],
    slips={"rows of `a`, columns of `b`: out[i, j] = cos(a[i], b[j]), so a @ bᵀ, not b @ aᵀ":
               lambda a, b: cosine_matrix_truth(a, b).T,
           "that is the dot product a·b: divide by both lengths — normalise each row to length 1 first":
               lambda a, b: _f64(a) @ _f64(b).T,
           "only the rows of `a` were normalised: normalise the rows of `b` too":
               lambda a, b: _unit(a) @ _f64(b).T,
           "only the rows of `b` were normalised: normalise the rows of `a` too":
               lambda a, b: _f64(a) @ _unit(b).T,
           "that is the cosine *distance* 1 − cos; the similarity is the cosine itself":
               lambda a, b: 1 - cosine_matrix_truth(a, b),
           "you divided by the norm of the whole matrix: divide each row (each sentence vector) by its own length":
               lambda a, b: (_f64(a) / np.linalg.norm(_f64(a))) @ (_f64(b) / np.linalg.norm(_f64(b))).T,
           "you normalised the columns (axis 0): normalise each row, one sentence vector, to length 1 (axis=1)":
               lambda a, b: _unit(a, 0) @ _unit(b, 0).T if len(a) > 1 and len(b) > 1 else float("nan")},
    hint="normalise every row of a and of b to length 1, then one matrix product a_unit @ b_unitᵀ",
    ok="cosine_matrix is right: every entry is a cosine, whatever the vectors' lengths",
    compare=lambda got, want: np.shape(got) == np.shape(want) and bool(np.allclose(got, want, atol=1e-5)),
    returns=_matrix)


def check_cosine_matrix(cosine_matrix: Callable) -> None:
    """Check ``cosine_matrix(a, b) -> (n, m)`` with ``out[i, j] = cos(a[i], b[j])``, against
    :func:`sbertlib.model.similarity.cos_sim` on hidden float32 rows of very different lengths (a numpy
    array or a torch tensor may come back)."""
    COSINE_MATRIX.check(cosine_matrix)


# ----------------------------------------------------------------------------- nearest-neighbour hits
def nearest_neighbour_hits_truth(sim, paraphrases) -> int:
    """How many sentences (rows) have as nearest *other* sentence the one written as their paraphrase;
    ``paraphrases``: pairs ``(i, j)``, ``i < j``."""
    m = _as_numpy(sim).copy()
    np.fill_diagonal(m, -np.inf)
    pairs = {tuple(sorted(p)) for p in paraphrases}
    return sum(tuple(sorted((i, int(j)))) in pairs for i, j in enumerate(m.argmax(axis=1)))


def _hits_case() -> tuple[np.ndarray, set]:
    """Eight sentences, four written pairs; the nearest neighbours are set so that the usual slips give
    other counts: 6 right (0↔5, 2↔4 mutual; 1→3, 7→6 one way; 3→2 and 6→1 misses), 3 when a pair counts in
    one order only, 4 when each found pair counts once, 0 when the diagonal is left in."""
    rng = np.random.default_rng(8)
    m = rng.uniform(-0.5, 0.2, size=(8, 8))
    m = (m + m.T) / 2
    for (i, j), s in {(0, 5): 0.95, (2, 4): 0.9, (3, 2): 0.82, (1, 3): 0.8, (6, 1): 0.6, (6, 7): 0.5}.items():
        m[i, j] = m[j, i] = s
    np.fill_diagonal(m, 1.0)
    return m, {(0, 5), (1, 3), (2, 4), (6, 7)}


def _hits_hint(got: float, m: np.ndarray, pairs: set) -> str:
    off = m.copy()
    np.fill_diagonal(off, -np.inf)
    nn = off.argmax(axis=1)
    found = [tuple(sorted((i, int(j)))) for i, j in enumerate(nn) if tuple(sorted((i, int(j)))) in pairs]
    known = {
        "every sentence is its own nearest neighbour (the diagonal, cosine 1): leave the diagonal out":
            float(sum((i, i) in pairs for i in range(len(m)))),
        "(5, 0) and (0, 5) are the same pair: sort the two indices (or try both orders) before looking the pair up":
            float(sum((i, int(j)) in pairs for i, j in enumerate(nn))),
        "count sentences, not pairs: each sentence of a pair whose nearest neighbour is its partner counts on its own":
            float(len(set(found))),
    }
    for hint, wrong in known.items():
        if got == wrong:
            return hint
    return "for each row: the column of its largest entry off the diagonal; a hit when (row, column) is a written pair"


def check_nearest_neighbour_hits(nearest_neighbour_hits: Callable, sim=None, paraphrases=None) -> None:
    """Check ``nearest_neighbour_hits(sim, paraphrases) -> int``: the number of sentences whose most
    similar other sentence is their written paraphrase, on a hidden 8 × 8 matrix built so that each usual
    slip gives another count, on random matrices and on the notebook's (``sim``, ``paraphrases``)."""
    require(callable(nearest_neighbour_hits), f"pass your function itself, not {type(nearest_neighbour_hits).__name__}",
            "check_nearest_neighbour_hits(nearest_neighbour_hits, sim, PARAPHRASES) — no parentheses after the name")
    hidden, pairs = _hits_case()
    like = sim if sim is not None else hidden
    cases = [("a hidden 8 × 8 matrix", hidden, pairs)]
    rng = np.random.default_rng(10)
    for n in (6, 10):
        a = rng.uniform(-1, 0.95, size=(n, n))
        m = (a + a.T) / 2
        np.fill_diagonal(m, 1.0)
        order = rng.permutation(n)
        cases.append((f"a random {n} × {n} matrix", m, {tuple(sorted((int(order[k]), int(order[k + 1]))))
                                                         for k in range(0, n, 2)}))
    if sim is not None:
        cases.append(("the notebook's matrix", sim, set(paraphrases or ())))
    for name, m, p in cases:
        got = call(nearest_neighbour_hits, _like(like, np.asarray(_as_numpy(m))), set(p))
        if isinstance(got, torch.Tensor):
            require(got.numel() == 1, f"on {name} your function returned a tensor of shape {tuple(got.shape)}",
                    "return one number: how many sentences hit")
            got = got.item()
        require(isinstance(got, (int, float, np.integer, np.floating)) and not isinstance(got, bool),
                f"on {name} your function returned {got!r}, not a number", "return the count, an int")
        want = nearest_neighbour_hits_truth(m, p)
        require(float(got) == want, f"on {name} you counted {float(got):g} hits, expected {want}",
                _hits_hint(float(got), _as_numpy(m), {tuple(sorted(x)) for x in p}) if name == cases[0][0] else
                "for each row: the column of its largest entry off the diagonal; a hit when (row, column) is a written pair")
    ok("nearest_neighbour_hits is right: each sentence scores when its most similar other sentence is its written "
       "paraphrase")


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    COSINE_MATRIX,
    Exercise('most_similar_pair', probe="""
            _rng = _np.random.default_rng(2020)
            _result = []
            for _n in (3, 6, 10):
                _a = _rng.uniform(-1, 0.95, size=(_n, _n)); _m = (_a + _a.T) / 2; _np.fill_diagonal(_m, 1.0)
                _s = _torch.as_tensor(_m, dtype=sim.dtype) if isinstance(sim, _torch.Tensor) else _m.astype(_np.asarray(sim).dtype)
                _result.append(sorted(int(i) for i in most_similar_pair(_s)))
            """),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {
    "00.1a": choice(
        "What does `encode` return for a list of n sentences?",
        "An array of shape (n, dim): one vector per sentence",
        {"An array of shape (n, T, dim): one vector per token":
            "That is what the backbone gives before pooling. What does pooling do to the token axis?",
         "An (n, n) matrix: each sentence's cosine with every other":
            "That is what you compute from encode's output (cos_sim), one step later.",
         "One vector of shape (dim,) summing up the whole list":
            "Could you then compare sentence 3 with sentence 5?"}),
    "00.1b": choice(
        "Comparing all n sentences with each other then needs …",
        "n network passes and one matrix product",
        {"n(n−1)/2 network passes, one per pair":
            "That is the cross-encoder's count (notebook 01). Which step of the bi-encoder runs the network?",
         "n² network passes, one per cell of the matrix":
            "Does comparing two vectors need the network at all?"}),
    "00.2": choice(
        "Why must the diagonal be left out when looking for the most similar pair?",
        "Each entry is a sentence with itself: always 1, so it always wins",
        {"The matrix is symmetric, so the diagonal is counted twice":
            "Symmetry repeats (i, j) as (j, i), off the diagonal; each diagonal entry appears once.",
         "Its entries are undefined (NaN), which would break the search":
            "cos(a, a) = a·a / (|a| |a|): is anything undefined for a vector that is not zero?",
         "Its entries are 0, which would drag the search down":
            "Compute cos(a, a) for any non-zero vector a."}),
    "00.3": choice(
        "0.93 for guitar / instrument, 0.90 for guitar / stock market. What should you look at instead of the 0.93?",
        "The gap between related and unrelated pairs' cosines",
        {"Whether 0.93 is above a threshold such as 0.9":
            "The unrelated pair scores 0.90 too: which threshold would separate them reliably?",
         "The lengths of the two sentence vectors":
            "A cosine already ignores lengths. What else would you compare it with?",
         "Nothing: 0.93 > 0.90, the order is right, that settles it":
            "The order is right, but by 0.03. Section 3 of the notebook says what makes a cosine useful for "
            "search and clustering."}),
    "00.4": choice(
        "Offline, why train a random-weight BERT rather than fine-tune the packaged all-MiniLM-L6-v2?",
        "MiniLM is already trained on a billion pairs: a few thousand would only nudge it",
        {"MiniLM is too large to fine-tune on a 2-core CPU within the time budget":
            "It is a 6-layer model; size is not the reason. What has MiniLM already learnt?",
         "MiniLM is the paper's SBERT, whose published weights must stay unchanged":
            "Re-read 'Stand-ins': who trained MiniLM, and is it the paper's model?",
         "A random BERT ends up better than MiniLM after training":
            "It does not. The point is what a before/after comparison can show."}),
    "00.5": choice(
        "Why can the offline profile not follow the paper's recipe?",
        "No pre-trained BERT and no NLI train split can be had offline",
        {"The paper's classification objective needs a GPU to train":
            "The laptop profile runs it on a CPU. What is missing offline?",
         "The paper does not publish its training recipe":
            "Its training details (quoted in notebook 03) give batch, optimizer, rate and warm-up. What cannot be "
            "had offline?",
         "The paper trains with MNRL, which needs more data than that":
            "Which objective does the paper train NLI with (Figure 1)? MNRL is the workbook's choice offline."}),
    "00.6": choice(
        "A row tagged [stand-in] sits beside the paper's row. How do you compare them?",
        "Compare trends (before vs after, which setting wins), not levels",
        {"Ignore the row: it is an estimate, not a measurement":
            "Every row of ours comes from running code. 'Stand-in' says something about the model.",
         "Its level should match the paper's if our code is right":
            "A different network on different data: would an equal level be evidence, or a coincidence?",
         "Subtract a fixed offset from our row, then compare levels":
            "What offset would turn a random 2-layer BERT into bert-base? The measurement is the same, not the model."}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
