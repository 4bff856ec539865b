"""Self-checks for notebook 12 (applications: search, mining, clustering, indexes).

* :func:`check_top_k` — the student's brute-force search, compared with
  :func:`sbertlib.search.semantic_search` on hidden vectors of unequal lengths (so a dot product,
  an ascending order or a distance give other neighbours, and each slip is named);
* :func:`check_recall_at_k` — the student's recall@k, compared with :func:`sbertlib.search.recall_at_k`
  on hidden id lists built so that the usual slips give different numbers;
* :func:`check_mine_pairs` — the student's paraphrase mining (the ``top`` most similar pairs, each once,
  never a row with itself), against the whole cosine matrix of hidden vectors of unequal lengths;
* :func:`check_rerank` — the student's retrieve-and-re-rank (their top-k, then a cross-encoder on those
  candidates only), against :func:`sbertlib.search.rerank` with a stand-in cross-encoder that counts the
  pairs it is asked about;
* :func:`check_communities` — the student's community detection ("fast clustering"), against
  :func:`sbertlib.search.community_detection` on hidden groups;
* :func:`check_purity` — the student's cluster purity, against the library's on hidden labels and cluster ids;
* :func:`check_nprobe` — re-measures an IVF index at the student's ``nprobe``: recall@k against the
  exact ids must reach the target, and no smaller ``nprobe`` may reach it (the *smallest* is asked for;
  visiting every cell is brute force).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import guard, Exercise, ExerciseError, call, ok, require, two_items
from .questions import choice, number
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


AXIS_0 = ("you ranked along axis 0, over the queries (each corpus row's best queries): a query's neighbours are "
          "the corpus rows of its own row of the (queries × corpus) similarity matrix — rank along axis 1 (dim=1)")


def _top_k_shape_hint(shape: tuple, queries, corpus, k: int) -> str:
    """What a result of the wrong shape says about the mistake: k ± 1 columns, or a ranking over the queries."""
    q, n = len(queries), len(corpus)
    if shape in ((q, k + 1), (q, k - 1)):
        return (f"off by one: {shape[1]} columns where k = {k} were asked for — one row per query, its k best corpus "
                "rows")
    if shape in ((k, n), (n, k)):
        return AXIS_0
    return "one row per query, k columns: the k best corpus rows"


def _top_k_hint(ids: np.ndarray, scores: np.ndarray, queries, corpus, k: int) -> str:
    cos = (queries / np.linalg.norm(queries, axis=1, keepdims=True)) @ \
        (corpus / np.linalg.norm(corpus, axis=1, keepdims=True)).T
    known = {
        "off by one: you skipped the best hit (column 0) — the queries are not in the corpus, so the most similar "
        "row is a real neighbour, and the k best are the first k": np.argsort(-cos, axis=1)[:, 1:k + 1],
        AXIS_0: np.argsort(-cos, axis=0)[:, :k],
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
        result = call(top_k, queries.copy(), corpus.copy(), k,
                      what=f"`top_k` (queries {queries.shape}, corpus {corpus.shape}, k={k})")
        scores, ids = (_as_array(x, w) for x, w in zip(two_items(result, "`top_k` returned",
                                                                  "return (scores, ids), each of shape (queries, k)"),
                                                        ("scores", "ids")))
        require(not (_whole_numbers(scores) and not _whole_numbers(ids)),
                f"k={k}: `top_k` returned the row ids first and the scores second — the first item holds whole "
                f"numbers ({_sample(scores)}), the second fractions in [−1, 1] ({_sample(ids)})",
                "return them in the order (scores, ids)")
        require(scores.shape == ids.shape == (len(queries), k),
                f"k={k}: scores {scores.shape} and ids {ids.shape}, expected ({len(queries)}, {k}) each",
                _top_k_shape_hint(ids.shape if ids.shape != (len(queries), k) else scores.shape, queries, corpus, k))
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
    short = exact[:5].copy()               # an IVF search with a small nprobe: -1 fillers, one id found twice
    short[:, 6:] = -1
    short[0, 5] = short[0, 0]
    cases.append((short, exact[:5], 10))   # recall divides by k, whatever the list holds
    mine = np.stack([rng.permutation(500)[:6] for _ in range(8)])   # half of each list: the next query's neighbours
    theirs = np.stack([np.concatenate([rng.permutation(row[:3]), [x for x in nxt if x not in row][:3]])
                       for row, nxt in zip(mine, np.roll(mine, -1, axis=0))])
    cases.append((theirs, mine, 6))        # pooled over the queries, every id is somebody's neighbour
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
        "you divided by the number of distinct ids found in each list: an approximate search may return fewer "
        "than k real ids (-1 fillers, an id twice), and recall still counts out of k":
            float(np.mean([t / max(1, len(set(a[:k].tolist()))) for t, a in zip(top, approx)])),
    }
    if k > 1:
        short = found(approx[:, :k - 1], exact[:, :k - 1])
        slips[f"off by one: you counted the first k − 1 = {k - 1} ids of each list, out of k; the top-k is the "
              f"first k = {k} (a slice [:k] holds k ids)"] = float(np.mean(short) / k)
        slips[f"off by one: you counted the first k − 1 = {k - 1} ids of each list, out of k − 1; the top-k is the "
              f"first k = {k} (a slice [:k] holds k ids)"] = float(np.mean(short) / (k - 1))
    pooled = ("you pooled the queries: an id counts only when it is in the exact top-k of the *same* query (another "
              "query's neighbour is no hit) — recall per query, then the mean over the queries")
    slips[pooled] = float(np.isin(approx[:, :k], exact[:, :k]).mean())
    slips[pooled + " "] = len(set(approx[:, :k].ravel().tolist()) & set(exact[:, :k].ravel().tolist())) / exact[:, :k].size
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
        got = call(my_recall, approx.copy(), exact.copy(), k,
                   what=f"`my_recall` (hidden case {idx})")
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


# ----------------------------------------------------------------------------- paraphrase mining
def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _mining_case(seed: int = 1212) -> np.ndarray:
    """20 vectors of very different lengths (a dot product ranks long ones first) in random directions
    (so many cosines are negative), three of them near-copies of others (the top pairs)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(20, 12))
    x[7] = x[2] * 3.0 + rng.normal(scale=0.05, size=12)
    x[15] = x[4] * 0.2 + rng.normal(scale=0.02, size=12)
    x[18] = x[11] + rng.normal(scale=0.3, size=12)
    return (x * rng.uniform(0.1, 10.0, size=(20, 1))).astype(np.float32)


def mine_pairs_truth(emb, top: int) -> list[tuple[float, int, int]]:
    """The ``top`` pairs ``(cosine, i, j)``, ``i < j``, of highest cosine, best first, from the whole matrix."""
    x = _unit(np.asarray(emb, dtype=np.float64))
    sim = x @ x.T
    i, j = np.triu_indices(len(x), k=1)
    order = np.argsort(-sim[i, j], kind="stable")[:top]
    return [(float(sim[i[t], j[t]]), int(i[t]), int(j[t])) for t in order]


def _as_triples(result, what: str) -> list[tuple[float, int, int]]:
    require(result is not None and result is not Ellipsis and not isinstance(result, (str, bytes)),
            f"{what} returned {result!r}", "return a list of (cosine, i, j) triples, best first")
    try:
        rows = [tuple(r) for r in result]
    except TypeError:
        raise ExerciseError(f"{what} returned {type(result).__name__}, not a list of (cosine, i, j)\n"
                            "Hint: return a list of (cosine, i, j) triples, best first") from None
    for r in rows:
        require(len(r) == 3, f"{what} returned an item with {len(r)} values: {r!r}",
                "each item is one pair: (cosine, i, j)")
    try:
        triples = [tuple(float(v.item() if hasattr(v, "item") else v) for v in r) for r in rows]
    except (TypeError, ValueError):
        raise ExerciseError(f"{what} returned items that are not numbers, e.g. {rows[0]!r}\n"
                            "Hint: each item is (cosine, i, j): a number and two row ids") from None
    if triples and all(_whole(t[0]) for t in triples) and not all(_whole(t[2]) for t in triples):
        raise ExerciseError(f"{what}: your items start with a row id and end with a fraction, e.g. {rows[0]!r}\n"
                            "Hint: put the cosine first: (cosine, i, j)")
    for t in triples:
        require(_whole(t[1]) and _whole(t[2]), f"{what}: {rows[triples.index(t)]!r} — i and j must be row ids",
                "each item is (cosine, i, j), with i and j whole numbers")
    return [(s, int(i), int(j)) for s, i, j in triples]


def _whole(v: float) -> bool:
    return np.isfinite(v) and float(v) == round(float(v))


def _mining_hint(got: list[tuple[float, int, int]], emb: np.ndarray, top: int) -> str:
    pairs = [(i, j) for _, i, j in got]
    if any(i == j for i, j in pairs):
        same = next(t for t in got if t[1] == t[2])
        if same[0] == 0:
            return ("a pair of a row with itself (or in the wrong order) scored 0: zeroing the masked cells is not "
                    "enough — zero still beats every negative cosine. Mask with -inf, or take only the cells above "
                    "the diagonal")
        return (f"({same[1]}, {same[2]}) pairs a sentence with itself (cosine 1 is always the best): leave the "
                "diagonal out")
    unordered = [frozenset(p) for p in pairs]
    if len(set(unordered)) < len(unordered):
        return ("a pair is in your list twice, once as (i, j) and once as (j, i): the similarity matrix is symmetric, "
                "so keep only the cells above its diagonal")
    if any(i > j for i, j in pairs):
        zeros = [t for t in got if t[1] > t[2] and t[0] == 0]
        if zeros:
            return ("cells below the diagonal came back with cosine 0: zeroing the masked cells is not enough — zero "
                    "still beats every negative cosine. Mask with -inf, or take only the cells above the diagonal")
        return "give each pair with the smaller row id first: (cosine, i, j) with i < j"
    x = np.asarray(emb, dtype=np.float64)
    dot = x @ x.T
    i, j = np.triu_indices(len(x), k=1)
    by_dot = np.argsort(-dot[i, j], kind="stable")[:top]
    if pairs == [(int(i[t]), int(j[t])) for t in by_dot]:
        return "a dot product ranks long vectors first: normalise the rows first, so the product is the cosine"
    cos = _unit(x) @ _unit(x).T
    worst = np.argsort(cos[i, j], kind="stable")[:top]
    if pairs == [(int(i[t]), int(j[t])) for t in worst]:
        return "those are the LEAST similar pairs: the highest cosine comes first"
    want = mine_pairs_truth(emb, top)
    if sorted(pairs) == sorted((a, b) for _, a, b in want):
        return "the right pairs, in the wrong order: best first, the highest cosine at position 0"
    return ("the cosine of every row with every other (an n × n matrix), each pair once (above the diagonal), "
            "then the `top` largest")


def check_mine_pairs(mine_pairs: Callable) -> None:
    """Pass when ``mine_pairs(emb, top)`` returns the ``top`` pairs ``(cosine, i, j)``, ``i < j``, of highest
    cosine, best first, on hidden vectors of unequal lengths — for ``top`` = 1, 5 and every pair. A pair of
    a row with itself, a pair counted twice, a dot product, the lowest cosines, a zero where a cell was
    masked and the wrong order are each named."""
    require(callable(mine_pairs), f"`mine_pairs` must be a function (emb, top); got {type(mine_pairs).__name__}",
            "define it with `def` in the solution cell and run that cell first")
    emb = _mining_case()
    n = len(emb)
    for top in (1, 5, n * (n - 1) // 2):
        result = call(mine_pairs, emb.copy(), top,
                      what=f"`mine_pairs` ({n} vectors, top={top})")
        got = _as_triples(result, f"top={top}: `mine_pairs`")
        require(len(got) == top, f"top={top}: `mine_pairs` returned {len(got)} pairs, expected {top}",
                "return exactly `top` pairs (there are n·(n−1)/2 in all)")
        want = mine_pairs_truth(emb, top)
        if [(i, j) for _, i, j in got] != [(i, j) for _, i, j in want]:
            raise ExerciseError(f"top={top}: other pairs than the {top} most similar\nHint: "
                                + _mining_hint(got, emb, top))
        scores = np.array([s for s, _, _ in got])
        require(np.allclose(scores, [s for s, _, _ in want], atol=1e-4),
                f"top={top}: the right pairs, but scores {scores[:3].round(4)} where the cosines are "
                f"{np.round([s for s, _, _ in want][:3], 4)}", "give each pair's cosine similarity (in [−1, 1])")
    ok(f"mine_pairs finds the most similar pairs, each once and never a sentence with itself, best first "
       f"(top 1, 5 and all {n * (n - 1) // 2} pairs of {n} hidden vectors)")


# ----------------------------------------------------------------------------- retrieve and re-rank
class _Judge:
    """A stand-in cross-encoder: ``predict`` scores each (query, candidate) pair from a hidden table and
    counts the pairs it was given (and those given the other way round)."""

    def __init__(self, queries: list[str], corpus: list[str], seed: int = 1213):
        rng = np.random.default_rng(seed)
        self.table = {(q, c): float(rng.uniform(0, 1)) for q in queries for c in corpus}
        self.queries = set(queries)
        self.scored = 0
        self.reversed = 0

    def predict(self, pairs, batch_size: int = 32, **_) -> np.ndarray:
        out = []
        for pair in pairs:
            a, b = tuple(pair)
            self.scored += 1
            if (a, b) not in self.table and (b, a) in self.table:
                self.reversed += 1
                out.append(self.table[(b, a)])
            else:
                out.append(self.table.get((a, b), 0.0))
        return np.asarray(out, dtype=np.float32)


def _rerank_case(seed: int = 1214):
    rng = np.random.default_rng(seed)
    queries = [f"hidden query {i}" for i in range(5)]
    corpus = [f"hidden candidate {j}" for j in range(30)]
    q_emb = rng.normal(size=(5, 10)).astype(np.float32)
    c_emb = (rng.normal(size=(30, 10)) * rng.uniform(0.2, 5.0, size=(30, 1))).astype(np.float32)
    return queries, q_emb, corpus, c_emb


def rerank_truth(queries, query_emb, corpus, corpus_emb, cross_encoder, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The library's retrieve-and-re-rank as ``(scores, ids)`` arrays of shape ``(q, k)``."""
    from ...search import rerank
    hits = rerank(semantic_search(query_emb, corpus_emb, top_k=k), queries, corpus, cross_encoder)
    return (np.array([[h["score"] for h in row] for row in hits]),
            np.array([[h["corpus_id"] for h in row] for row in hits]))


def check_rerank(retrieve_and_rerank: Callable) -> None:
    """Pass when ``retrieve_and_rerank(queries, query_emb, corpus, corpus_emb, cross_encoder, k)`` returns
    ``(scores, ids)`` of shape ``(q, k)`` equal to :func:`sbertlib.search.rerank` of the cosine top-k, on
    hidden vectors and a stand-in cross-encoder that counts the pairs it scores. The retriever's order
    kept, the lowest score first, ids left in retrieval order, the retriever's cosines returned, (candidate,
    query) pairs and a cross-encoder run over the whole corpus are each named."""
    require(callable(retrieve_and_rerank),
            f"`retrieve_and_rerank` must be a function; got {type(retrieve_and_rerank).__name__}",
            "define it with `def` in the solution cell and run that cell first")
    queries, q_emb, corpus, c_emb = _rerank_case()
    for k in (3, 6):
        judge = _Judge(queries, corpus)
        result = call(retrieve_and_rerank, list(queries), q_emb.copy(), list(corpus), c_emb.copy(), judge, k,
                      what=f"`retrieve_and_rerank` ({len(queries)} queries, {len(corpus)} candidates, k={k})")
        scores, ids = (_as_array(x, w) for x, w in zip(two_items(result, "`retrieve_and_rerank` returned",
                                                                  "return (scores, ids), each of shape (queries, k)"),
                                                        ("scores", "ids")))
        require(scores.shape == ids.shape == (len(queries), k),
                f"k={k}: scores {scores.shape} and ids {ids.shape}, expected ({len(queries)}, {k}) each",
                "one row per query, k columns: its k candidates in the cross-encoder's order")
        require(judge.scored > 0, f"k={k}: the cross-encoder was never asked (its predict was not called)",
                "score each (query, candidate) pair with cross_encoder.predict")
        require(judge.scored <= len(queries) * k,
                f"k={k}: the cross-encoder scored {judge.scored} pairs for {len(queries)} queries — more than their "
                f"{len(queries) * k} retrieved candidates",
                "the cross-encoder re-scores only each query's k retrieved candidates: that is what makes re-ranking "
                "cheap. Retrieve with your top_k first")
        require(judge.reversed == 0,
                f"k={k}: {judge.reversed} pairs went to the cross-encoder as (candidate, query)",
                "give it (query, candidate): the order it was trained on")
        want_scores, want_ids = rerank_truth(queries, q_emb, corpus, c_emb, _Judge(queries, corpus), k)
        ids = ids.astype(np.int64)
        if not np.array_equal(ids, want_ids):
            retrieved = np.array([[h["corpus_id"] for h in row] for row in semantic_search(q_emb, c_emb, top_k=k)])
            if np.array_equal(ids, retrieved) and np.allclose(scores, want_scores, atol=1e-5):
                hint = ("the scores are in the cross-encoder's order, but the ids are still in the retriever's: sort the "
                        "ids with the scores (the same order for both)")
            elif np.array_equal(ids, retrieved):
                hint = "that is the retriever's order: sort each query's candidates by the cross-encoder's score"
            elif np.array_equal(ids, want_ids[:, ::-1]):
                hint = "the lowest cross-encoder score comes first: sort best first (descending)"
            elif np.array_equal(np.sort(ids, axis=1), np.sort(retrieved, axis=1)):
                hint = ("the right candidates, in another order than the cross-encoder's scores: sort the ids with "
                        "the scores (the same order for both)")
            else:
                hint = ("retrieve each query's k candidates by cosine (your top_k), score (query, candidate) with the "
                        "cross-encoder, then sort them by that score, best first")
            raise ExerciseError(f"k={k}: other candidates or another order than retrieve-then-re-rank gives\nHint: {hint}")
        if not np.allclose(scores, want_scores, atol=1e-5):
            cosines = np.array([[h["score"] for h in row] for row in semantic_search(q_emb, c_emb, top_k=k)])
            if np.allclose(np.sort(scores, axis=1), np.sort(cosines, axis=1), atol=1e-4):
                hint = "those are the retriever's cosines: return the cross-encoder's scores, which set the new order"
            elif np.allclose(np.sort(scores, axis=1), np.sort(want_scores, axis=1), atol=1e-5):
                hint = ("the ids are in the cross-encoder's order but the scores are not: sort the scores with the ids, "
                        "best first")
            else:
                hint = "return the cross-encoder's score of each (query, candidate) pair, in the re-ranked order"
            raise ExerciseError(f"k={k}: the right candidates in the right order, but other scores\nHint: {hint}")
    ok("retrieve_and_rerank retrieves each query's top k by cosine and re-orders them by the cross-encoder's "
       "scores, asking it only about those k (k = 3 and 6)")


# ----------------------------------------------------------------------------- communities
def _community_case(seed: int = 1215) -> np.ndarray:
    """Three tight groups (12, 8, 5 rows) around their centres, of very different lengths, a loose ring
    around the first group, and scattered rows; a star whose leaves in later rows propose groups of their
    own (so proposals must be taken largest first and claimed rows dropped)."""
    rng = np.random.default_rng(seed)
    dim = 16
    centres = rng.normal(size=(3, dim))
    rows = []
    for c, (size, spread) in enumerate(((12, 0.25), (8, 0.25), (5, 0.2))):
        rows += [centres[c] + rng.normal(scale=spread, size=dim) for _ in range(size)]
    rows += [centres[0] + rng.normal(scale=0.7, size=dim) for _ in range(6)]        # a loose ring: overlaps
    rows += [centres[1] * 0.5 + centres[2] * 0.5 + rng.normal(scale=0.3, size=dim) for _ in range(4)]  # between two
    rows += [rng.normal(size=dim) for _ in range(10)]                               # scattered
    x = np.array(rows)[rng.permutation(len(rows))]
    return (x * rng.uniform(0.2, 8.0, size=(len(x), 1))).astype(np.float32)


def communities_truth(emb, threshold: float, min_size: int) -> list[list[int]]:
    from ...search import community_detection
    return community_detection(emb, threshold=threshold, min_community_size=min_size)


def _as_groups(result, what: str) -> list[list[int]]:
    require(result is not None and result is not Ellipsis and not isinstance(result, (str, bytes)),
            f"{what} returned {result!r}", "return a list of communities, each a list of row ids")
    try:
        groups = [[int(i) for i in (g.tolist() if hasattr(g, "tolist") else g)] for g in result]
    except (TypeError, ValueError):
        raise ExerciseError(f"{what} returned something other than lists of row ids: {type(result).__name__}\n"
                            "Hint: return a list of communities, each a list of row ids") from None
    return groups


def _community_hint(got: list[list[int]], emb: np.ndarray, threshold: float, min_size: int) -> str:
    members = [i for g in got for i in g]
    if len(members) != len(set(members)):
        twice = next(i for i in members if members.count(i) > 1)
        return (f"row {twice} is in two communities: once a community is kept, its rows are claimed — drop them from "
                "every later proposal")
    small = [g for g in got if len(g) < min_size]
    if small:
        return (f"a community of {len(small[0])} rows, fewer than min_size = {min_size}: after dropping the claimed "
                "rows, keep a proposal only if min_size rows are left")
    as_sets = {frozenset(g) for g in got}
    x = np.asarray(emb, dtype=np.float64)
    dot = _detect_with(x @ x.T, threshold, min_size)
    if as_sets == {frozenset(g) for g in dot}:
        return "a dot product is not a cosine on vectors of different lengths: normalise the rows first"
    in_order = _detect_with(_unit(x) @ _unit(x).T, threshold, min_size, largest_first=False)
    if as_sets == {frozenset(g) for g in in_order}:
        return ("you took the proposals in row order: take the largest first (sort them by size), so a big group "
                "is not broken up by a smaller proposal that came earlier")
    cos = _unit(x) @ _unit(x).T
    if as_sets in ({frozenset(g) for g in _detect_with(cos, threshold, min_size + 1)},
                   {frozenset(g) for g in _detect_with(cos, threshold, min_size, count_self=False)}):
        return ("a row is its own neighbour (cosine 1): count it among the rows within the threshold, and keep it in "
                "the community it proposes")
    return ("every row whose neighbours within the threshold (itself included) number at least min_size proposes "
            "them; take the proposals largest first, drop the rows already claimed, keep what still has min_size")


def _detect_with(sim: np.ndarray, threshold: float, min_size: int, largest_first: bool = True,
                 count_self: bool = True) -> list[list[int]]:
    """Community detection on a given similarity matrix (for the slips: a dot product, row order, a row
    left out of its own proposal)."""
    proposals = []
    for r in range(len(sim)):
        members = np.flatnonzero(sim[r] >= threshold)
        if not count_self:
            members = members[members != r]
        if len(members) >= min_size:
            proposals.append(members[np.argsort(-sim[r, members], kind="stable")].tolist())
    if largest_first:
        proposals.sort(key=len, reverse=True)
    out, taken = [], set()
    for p in proposals:
        rest = [m for m in p if m not in taken]
        if len(rest) >= min_size:
            out.append(rest)
            taken.update(rest)
    return out


def check_communities(communities: Callable) -> None:
    """Pass when ``communities(emb, threshold, min_size)`` finds the same communities as
    :func:`sbertlib.search.community_detection` (compared as sets of rows, largest first) on hidden
    vectors, for several thresholds and sizes. Overlapping communities, one below ``min_size``, a dot
    product, proposals in row order and a row not counted as its own neighbour are each named."""
    require(callable(communities),
            f"`communities` must be a function (emb, threshold, min_size); got {type(communities).__name__}",
            "define it with `def` in the solution cell and run that cell first")
    # the last case: a proposal that lost claimed rows ends smaller than a later one (the result must be re-sorted)
    cases = [(_community_case(), t, m) for t, m in ((0.8, 4), (0.6, 5), (0.9, 5), (0.99, 3))]
    cases.append((_community_case(1203), 0.6, 5))
    for emb, threshold, min_size in cases:
        where = f"threshold={threshold}, min_size={min_size}"
        result = call(communities, emb.copy(), threshold, min_size,
                      what=f"`communities` ({len(emb)} vectors, {where})")
        got = _as_groups(result, f"{where}: `communities`")
        want = communities_truth(emb, threshold, min_size)
        if {frozenset(g) for g in got} != {frozenset(g) for g in want} or len(got) != len(want):
            raise ExerciseError(f"{where}: you found {len(got)} communities of sizes {[len(g) for g in got]}; "
                                f"other ones than community detection gives\nHint: "
                                + _community_hint(got, emb, threshold, min_size))
        require([len(g) for g in got] == sorted((len(g) for g in got), reverse=True),
                f"{where}: the right communities, but not largest first (sizes {[len(g) for g in got]})",
                "a proposal that lost rows already claimed can end smaller than one after it: sort the communities "
                "you keep by size, largest first, at the end")
        _check_member_order(got, want, emb, where)
    ok("communities groups the hidden vectors as community detection does: proposals largest first, each row in at "
       "most one community, none smaller than min_size, each community's rows most similar first (five cases)")


def _descending(values) -> bool:
    return all(a >= b - 1e-6 for a, b in zip(values, values[1:]))


def _check_member_order(got: list[list[int]], want: list[list[int]], emb, where: str) -> None:
    """Each community's rows must come most similar first to the row that proposed it (the order community
    detection gives; the proposer itself may have been claimed by a larger community)."""
    x = _unit(np.asarray(emb, dtype=np.float64))
    sim = x @ x.T
    wanted = {frozenset(g): g for g in want}
    for g in got:
        w = wanted[frozenset(g)]
        proposers = [r for r in range(len(sim)) if _descending(sim[r, w])]
        if not any(_descending(sim[r, g]) for r in proposers):
            by_id = g == sorted(g)
            raise ExerciseError(
                f"{where}: the right rows in a community of {len(g)}, but {'by row id' if by_id else 'in another order'}"
                f" ({g[:6]}{' …' if len(g) > 6 else ''})\nHint: list each community's rows most similar first to "
                "the row that proposed it — that row leads (its cosine with itself is 1)")


# ----------------------------------------------------------------------------- purity
def _purity_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    """(labels, clusters): question types as strings, cluster ids that are not 0..k−1 (−1, 7, 42), clusters of
    very different sizes (so an unweighted mean of per-cluster purities differs), more clusters than types
    and fewer (so purity per type differs from purity per cluster)."""
    rng = np.random.default_rng(1216)
    types = np.array(["ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"])
    cases = []
    labels = rng.choice(types, size=60, p=[0.05, 0.3, 0.25, 0.2, 0.1, 0.1])
    clusters = np.where(rng.random(60) < 0.7, np.searchsorted(types, labels), rng.integers(0, 6, size=60))
    cases.append((labels, np.array([-1, 7, 42, 3, 11, 5])[clusters]))
    cases.append((labels, np.array([-1, 7, 7, 42, 42, 42])[clusters]))        # fewer clusters than types
    big = rng.integers(0, 9, size=60)
    big[:30] = 4                                                                # one large mixed cluster
    cases.append((labels, big * 10))
    return cases


def _purity_slips(labels: np.ndarray, clusters: np.ndarray) -> dict[str, float]:
    from sklearn.metrics.cluster import contingency_matrix
    m = contingency_matrix(labels, clusters)        # rows: labels, columns: clusters
    n = len(labels)
    return {
        "that is each TYPE's largest cluster (purity the other way round): take each CLUSTER's majority type":
            float(m.max(axis=1).sum() / n),
        "that is the plain mean of the clusters' purities: weight each cluster by its size (sum the majority "
        "counts, then divide by all items)": float(np.mean(m.max(axis=0) / m.sum(axis=0))),
        "that is a count of items: divide by the number of items, so purity is a share between 0 and 1":
            float(m.max(axis=0).sum()),
        "that is the share of the largest type overall, as if everything were one cluster: take the majority "
        "within each cluster": float(m.sum(axis=1).max() / n),
        "that is a percentage: purity is a share between 0 and 1": float(100 * m.max(axis=0).sum() / n),
        "you counted the clusters 0, 1, …, max id: cluster ids are labels, not positions — here some are negative "
        "or skip numbers; group by the ids that occur": _purity_by_range(labels, clusters, int(np.max(clusters)) + 1),
        "you counted the clusters 0, 1, …, k−1: cluster ids are labels, not positions — here some are negative "
        "or skip numbers; group by the ids that occur": _purity_by_range(labels, clusters, len(np.unique(clusters))),
    }


def _purity_by_range(labels: np.ndarray, clusters: np.ndarray, upto: int) -> float:
    """Purity as a slip computes it when it takes the cluster ids to be 0, 1, …, ``upto`` − 1."""
    total = 0
    for c in range(max(upto, 0)):
        members = labels[clusters == c]
        if len(members):
            total += max(np.unique(members, return_counts=True)[1])
    return float(total / len(labels))


def check_purity(purity: Callable) -> None:
    """Pass when ``purity(labels, clusters)`` equals the library's purity on hidden labels (strings) and
    cluster ids (not 0..k−1). Purity per type instead of per cluster, an unweighted mean over clusters, a
    count instead of a share and the largest type overall are each named."""
    from ..applications import purity as purity_truth
    require(callable(purity), f"`purity` must be a function (labels, clusters); got {type(purity).__name__}",
            "define it with `def` in the solution cell and run that cell first")
    for idx, (labels, clusters) in enumerate(_purity_cases(), start=1):
        got = call(purity, labels.copy(), clusters.copy(),
                   what=f"`purity` (hidden case {idx}: {len(labels)} items, " f"cluster ids {sorted(set(clusters.tolist()))})")
        if hasattr(got, "item") and np.size(got) == 1:
            got = got.item()
        require(isinstance(got, (int, float)) and not isinstance(got, bool),
                f"`purity` must return one number, got {got!r}.")
        want = purity_truth(labels, clusters)
        if abs(got - want) > 1e-9:
            hint = next((h for h, v in _purity_slips(labels, clusters).items() if abs(got - v) <= 1e-9),
                        "for each cluster, count its items of its most common type; add those counts over the "
                        "clusters and divide by the number of items")
            raise ExerciseError(f"Hidden case {idx} ({len(labels)} items, {len(set(clusters.tolist()))} clusters with "
                                f"ids {sorted(set(clusters.tolist()))}): you give {got:.4f}, expected {want:.4f}."
                                f"\nHint: {hint}")
    ok(f"purity agrees with the library's on {len(_purity_cases())} hidden clusterings (labels as strings, "
       "cluster ids that are not 0…k−1)")


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    Exercise('top_k', probe="""
            _rng = _np.random.default_rng(2032)
            _scores, _ids = top_k(_rng.normal(size=(3, 5)).astype("float32"), _rng.normal(size=(10, 5)).astype("float32"), 4)
            _result = {"scores": _scores, "ids": _ids}
            """),
    Exercise('my_recall', probe="""
            _approx = _np.array([[1, 2, 3, 4, 5], [9, 8, 7, 6, 5], [0, 1, 2, 3, 4]])
            _exact = _np.array([[1, 2, 3, 4, 6], [5, 6, 7, 8, 9], [10, 11, 12, 13, 0]])
            _result = [my_recall(_approx, _exact, 5), my_recall(_approx, _exact, 3)]
            """),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "12.1a": number(
        "How many forward passes does a cross-encoder need to find the most similar pair among 1,000 sentences?",
        499_500, 0,
        "One pass for every unordered pair of different sentences.",
        "Count each unordered pair once, and no sentence with itself.",
        {1_000_000: "n² counts ordered pairs and each sentence with itself.",
         999_000: "(A, B) and (B, A) are one pair.",
         500_500: "A sentence with itself is no pair."}),
    "12.1b": number(
        "And a bi-encoder?",
        1_000, 0,
        "Each sentence must be encoded.",
        "The network encodes each sentence once; comparing vectors needs no pass.",
        {499_500: "Comparing two vectors is a cosine, not a network pass."}),
    "12.2": choice(
        "Why can a cross-encoder be more accurate than a bi-encoder of the same size on STS?",
        "Its attention compares the two sentences token by token",
        {"It has more parameters than the bi-encoder it beats":
            "Same size, by the question.",
         "It is trained on more data than the bi-encoder is":
            "More data would help a bi-encoder too. What can it look at that a bi-encoder cannot?"}),
    "12.3": choice(
        "What does a positive 'seen − test' gap mean, and why should a bi-encoder show a smaller one?",
        "Over-fitting; one vector per sentence must serve all its pairs",
        {"Seen pairs are harder; the bi-encoder has fewer parameters":
            "Seen pairs are not harder. What does scoring higher on them than on new pairs mean?",
         "The test set is noisier; a bi-encoder is scored on more pairs":
            "Noise moves the gap either way. What does a systematically positive gap mean?"}),
    "12.4": choice(
        "Retrieve-and-re-rank with k = 20: the best recall@1 re-ranking can reach is …",
        "the retriever's recall@20",
        {"1.0":
            "Re-ranking only reorders the 20 candidates it is given.",
         "the retriever's recall@1":
            "Re-ranking can move a target from rank 20 to rank 1."}),
    "12.5": choice(
        "Why is nprobe = nlist no answer to 'the smallest nprobe with recall ≥ 0.95'?",
        "It visits every cell: brute force, not the fewest cells",
        {"nprobe cannot be as large as nlist: FAISS refuses it":
            "It can. What does the question ask to minimise?",
         "It gives a recall below 0.95, since cells overlap":
            "Visiting every cell finds every neighbour. What does the question ask to minimise?"}),
    "12.6": choice(
        "Threshold 0.75 puts nearly every sentence in one community. What would you change?",
        "Raise the threshold, or calibrate it on the cosines",
        {"Lower the threshold, so that fewer pairs join":
            "A lower threshold joins even more pairs.",
         "Cluster fewer sentences at a time, in batches":
            "The cosines stay as high. What is wrong with an absolute 0.75 in this space?"}),
    "12.7": choice(
        "What goes wrong with a plain dot product on vectors that are not normalised?",
        "Long vectors come first for every query",
        {"Nothing: it ranks like the cosine":
            "u·v = |u| |v| cos(u, v): what else does it grow with?",
         "It is much slower than the cosine to compute":
            "Same matrix product. What does it rank by besides the angle?"}),
    "12.8a": choice(
        "Four shards, each with an exact index: why is the merged top-k exactly the global top-k?",
        "Each global top-k item is in its own shard's top-k",
        {"Each shard holds exactly a quarter of the top-k":
            "All of the top-k may sit in one shard. What does each shard return?",
         "The merger re-scores the whole corpus at the end":
            "It only sees what the shards return."}),
    "12.8b": choice(
        "Would that still hold with an IVF index on each shard?",
        "No: a shard may miss neighbours in unvisited cells",
        {"Yes: merging is exact whatever index each shard has":
            "Merging is exact only over what the shards return. Does an IVF shard return its own exact top-k?"}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
