"""Self-checks for notebook 12 (applications: search, mining, clustering, indexes).

* :func:`check_top_k` — the student's brute-force search, compared with
  :func:`sbertlib.search.semantic_search` on hidden vectors of unequal lengths (so a dot product,
  an ascending order or a distance give other neighbours, and each slip is named);
* :func:`check_recall_at_k` — the student's recall@k, compared with :func:`sbertlib.search.recall_at_k`
  on hidden id lists built so that the usual slips give different numbers;
* :func:`check_nprobe` — re-measures an IVF index at the student's ``nprobe``: recall@k against the
  exact ids must reach the target, and no smaller ``nprobe`` may reach it (the *smallest* is asked for;
  visiting every cell is brute force).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import ExerciseError, ok, require, student_raised, two_items, unfinished
from ...search import faiss_search, recall_at_k, semantic_search

TOLERANCE = 1e-9


# ----------------------------------------------------------------------------- top-k search
def _top_k_case(seed: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Queries and a corpus whose vectors have very different lengths: a dot product ranks by length."""
    rng = np.random.default_rng(seed)
    queries = rng.normal(size=(6, 16)).astype(np.float32)
    corpus = rng.normal(size=(40, 16)).astype(np.float32) * rng.uniform(0.1, 10.0, size=(40, 1)).astype(np.float32)
    return queries, corpus


def _as_array(value, what: str) -> np.ndarray:
    try:
        return np.asarray(value.detach().cpu() if hasattr(value, "detach") else value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ExerciseError(f"`top_k` returned {what} that is not an array: {type(value).__name__}") from None


def _whole_numbers(a: np.ndarray) -> bool:
    return a.size > 0 and bool(np.all(np.isfinite(a))) and bool(np.all(a == np.round(a)))


def _sample(a: np.ndarray) -> str:
    first = a.reshape(-1)[:3]
    return ", ".join(f"{x:g}" for x in first) + (", …" if a.size > 3 else "")


def _top_k_hint(ids: np.ndarray, scores: np.ndarray, queries, corpus, k: int) -> str:
    cos = (queries / np.linalg.norm(queries, axis=1, keepdims=True)) @ \
        (corpus / np.linalg.norm(corpus, axis=1, keepdims=True)).T
    known = {
        "a dot product ranks long vectors first: normalise both sides (cosine), then multiply":
            np.argsort(-(queries @ corpus.T), axis=1)[:, :k],
        "those are the LEAST similar rows: sort by cosine, highest first (torch.topk or argsort descending)":
            np.argsort(cos, axis=1)[:, :k],
        "a Euclidean distance between unnormalised vectors is not a cosine: normalise first":
            np.argsort(((queries[:, None, :] - corpus[None]) ** 2).sum(-1), axis=1)[:, :k],
    }
    for hint, wrong in known.items():
        if np.array_equal(ids, wrong):
            return hint
    if np.array_equal(np.sort(ids, axis=1), np.sort(np.argsort(-cos, axis=1)[:, :k], axis=1)):
        return "the right rows, in the wrong order: best first, the highest cosine in column 0"
    return "cosine of every query with every corpus row (q × n matrix), then the k largest per query"


def check_top_k(top_k: Callable) -> None:
    """Pass when ``top_k(query_emb, corpus_emb, k)`` returns ``(scores, ids)`` equal to
    :func:`sbertlib.search.semantic_search` (cosine, best first) on hidden vectors, for several ``k``.
    ``(ids, scores)`` — the pair the other way round — is named as such."""
    require(callable(top_k), f"`top_k` must be a function (query_emb, corpus_emb, k); got {type(top_k).__name__}",
            "define it with `def` in the solution cell and run that cell first")
    queries, corpus = _top_k_case()
    for k in (1, 3, 10):
        try:
            result = top_k(queries.copy(), corpus.copy(), k)
        except Exception as err:  # noqa: BLE001
            if unfinished(err):
                raise ExerciseError("`top_k` is not done yet (it raised NotImplementedError).") from None
            raise student_raised(f"`top_k` (queries {queries.shape}, corpus {corpus.shape}, k={k})", err) from err
        scores, ids = (_as_array(x, w) for x, w in zip(two_items(result, "`top_k` returned",
                                                                  "return (scores, ids), each of shape (queries, k)"),
                                                        ("scores", "ids")))
        require(not (_whole_numbers(scores) and not _whole_numbers(ids)),
                f"k={k}: `top_k` returned the row ids first and the scores second — the first item holds whole "
                f"numbers ({_sample(scores)}), the second fractions in [−1, 1] ({_sample(ids)})",
                "return them in the order (scores, ids)")
        require(scores.shape == ids.shape == (len(queries), k),
                f"k={k}: scores {scores.shape} and ids {ids.shape}, expected ({len(queries)}, {k}) each",
                "one row per query, k columns: the k best corpus rows")
        hits = semantic_search(queries, corpus, top_k=k)
        want_ids = np.array([[h["corpus_id"] for h in row] for row in hits])
        want_scores = np.array([[h["score"] for h in row] for row in hits])
        if not np.array_equal(ids.astype(np.int64), want_ids):
            raise ExerciseError(f"k={k}: other neighbours than semantic_search's\nHint: "
                                + _top_k_hint(ids.astype(np.int64), scores, queries, corpus, k))
        require(np.allclose(scores, want_scores, atol=1e-4),
                f"k={k}: the right neighbours, but scores {scores[0, :3].round(4)} where the cosines are "
                f"{want_scores[0, :3].round(4)}", "return the cosine similarities themselves (in [−1, 1])")
    ok("top_k finds semantic_search's neighbours and cosines for k = 1, 3 and 10")


# ----------------------------------------------------------------------------- recall@k
def _hidden_id_lists() -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(approx_ids, exact_ids, k) cases: neighbours found in another order, lists longer than k,
    a k smaller than the lists, all hits and no hits."""
    rng = np.random.default_rng(12)
    cases = []
    exact = np.stack([rng.permutation(1000)[:10] for _ in range(20)])
    approx = exact.copy()
    for row in approx:  # same neighbours, shuffled order, some replaced by wrong ids
        rng.shuffle(row)
        bad = rng.random(10) < 0.3
        row[bad] = 2000 + rng.integers(0, 1000, size=bad.sum())
    cases.append((approx, exact, 10))
    cases.append((approx, exact, 5))  # only the first 5 of each list count
    cases.append((approx[:, :8], exact[:, :8], 3))
    cases.append((exact[:4].copy(), exact[:4].copy(), 10))  # perfect
    cases.append((exact[:4] + 5000, exact[:4], 7))  # nothing found
    return cases


def _recall_slips(approx: np.ndarray, exact: np.ndarray, k: int) -> dict[str, float]:
    """hint -> what a usual slip gives on this case (the first slip that matches is named)."""
    width = approx.shape[1]
    found = lambda a, e: [len(set(x.tolist()) & set(y.tolist())) for x, y in zip(a, e)]  # noqa: E731
    top = found(approx[:, :k], exact[:, :k])
    slips = {
        "you compared the lists position by position: an id counts wherever it sits in the other top-k list "
        "(the order inside the top-k does not matter)": float((approx[:, :k] == exact[:, :k]).mean()),
        f"you used the whole lists ({width} ids each) where only the first k = {k} of each count":
            float(np.mean(found(approx, exact)) / k),
        f"you divided by the length of the lists ({width}), not by k = {k}": float(np.mean(top) / width),
        "that is a count of ids found per query; recall is a share of the k, between 0 and 1":
            float(np.mean(top)),
        "that is a sum over the queries; recall is the mean over them": float(np.sum(top) / k),
    }
    if width == k:  # the cut changes nothing here: do not name it
        slips = {h: v for h, v in slips.items() if "whole lists" not in h and "length of the lists" not in h}
    return slips


def check_recall_at_k(my_recall: Callable) -> None:
    """Pass when ``my_recall(approx_ids, exact_ids, k)`` equals the library's recall@k on every hidden case."""
    require(my_recall is not None and my_recall is not Ellipsis and callable(my_recall),
            f"`my_recall` must be a function (approx_ids, exact_ids, k) -> float; got {type(my_recall).__name__}.",
            "Define it with `def` in the solution cell and run that cell first.")
    cases = _hidden_id_lists()
    for idx, (approx, exact, k) in enumerate(cases, start=1):
        try:
            got = my_recall(approx.copy(), exact.copy(), k)
        except Exception as err:  # noqa: BLE001
            if unfinished(err):
                raise ExerciseError("`my_recall` is not done yet (it raised NotImplementedError).") from None
            raise student_raised(f"`my_recall` (hidden case {idx})", err) from err
        if hasattr(got, "item") and np.size(got) == 1:
            got = got.item()
        require(isinstance(got, (int, float)) and not isinstance(got, bool),
                f"`my_recall` must return one number, got {got!r}.")
        want = recall_at_k(approx, exact, k)
        if abs(got - want) > TOLERANCE:
            hint = next((h for h, value in _recall_slips(approx, exact, k).items() if abs(got - value) <= TOLERANCE),
                        "per query, the share of the exact top-k ids that the approximate top-k also holds; then the "
                        "mean over the queries")
            raise ExerciseError(f"Hidden case {idx} ({len(approx)} queries, lists of {approx.shape[1]}, k={k}): "
                                f"you give {got:.4f}, expected {want:.4f}.\nHint: {hint}")
    ok(f"my_recall agrees with search.recall_at_k on {len(cases)} hidden cases")


# ----------------------------------------------------------------------------- nprobe
def _recall_at(index, nprobe: int, queries, exact: np.ndarray, k: int) -> float:
    old = index.nprobe
    index.nprobe = nprobe
    try:
        _, ids = faiss_search(index, queries, k)
    finally:
        index.nprobe = old
    return recall_at_k(ids, exact, k)


def check_nprobe(nprobe, index, queries, exact_ids, k: int = 10, target: float = 0.95) -> float:
    """Pass when ``nprobe`` is the **smallest** number of cells whose recall@k reaches ``target``:
    recall@k at ``nprobe`` ≥ ``target``, every smaller ``nprobe`` stays below it, and ``nprobe`` is
    below the index's number of cells (visiting every cell is brute force). The index's own
    ``nprobe`` is left as it was; returns the recall at the student's ``nprobe``."""
    require(nprobe is not None and nprobe is not Ellipsis, "Set `nprobe` to a whole number first.")
    require(isinstance(nprobe, (int, np.integer)) and not isinstance(nprobe, bool),
            f"`nprobe` must be a whole number (an int), got {nprobe!r}.")
    nprobe = int(nprobe)
    nlist = int(index.nlist)
    require(1 <= nprobe, f"`nprobe` must be at least 1, got {nprobe}.")
    require(nprobe < nlist,
            f"nprobe={nprobe} visits all {nlist} cells: that is brute force with extra steps.",
            "Find the smallest nprobe whose recall still reaches the target.")
    exact = np.asarray(exact_ids)
    n_queries = len(queries)
    require(exact.ndim == 2 and exact.shape[0] == n_queries and exact.shape[1] >= k,
            f"exact_ids has shape {exact.shape}; expected ({n_queries}, ≥{k}).")
    recall = _recall_at(index, nprobe, queries, exact, k)
    require(recall >= target, f"With nprobe={nprobe} recall@{k} is {recall:.3f}, below the target {target}.",
            "Visit more cells: try nprobe = 1, 2, 3, … and keep the first that reaches the target.")
    for smaller in range(1, nprobe):
        lower = _recall_at(index, smaller, queries, exact, k)
        require(lower < target,
                f"nprobe={nprobe} reaches recall@{k} = {recall:.3f}, but a smaller nprobe reaches the target "
                f"{target} too: {nprobe} is not the smallest.",
                "try every nprobe from 1 upwards (not only powers of two) and stop at the first one whose "
                "recall reaches the target: each cell visited costs time.")
    ok(f"nprobe={nprobe} is the smallest with recall@{k} ≥ {target} ({recall:.3f}), visiting {nprobe} of "
       f"{nlist} cells (≈{100 * nprobe / nlist:.0f}% of the corpus)")
    return recall
