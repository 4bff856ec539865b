"""Self-checks for ``12_applications_search_and_clustering``: six declared exercises and ``check_nprobe``."""
from itertools import permutations
from types import SimpleNamespace

import numpy as np

from . import Exercise, _guarded, as_array as _f64, guard, ok, require, unit as _unit
from ...search import community_detection, faiss_search, recall_at_k

_cos = lambda a, b: _unit(a) @ _unit(b).T  # noqa: E731


def _same_hits(got, want, tol: float = 1e-4) -> bool:
    """(scores, ids) alike within float32 rounding, ids tied in score in any order; a slip's (None, ids) by its ids."""
    (s, i), (ws, wi) = (_f64(x) for x in got), (None if x is None else _f64(x) for x in want)
    if ws is None or s.shape != ws.shape or i.shape != wi.shape or not np.allclose(s, ws, atol=tol):
        return ws is None and i.shape == wi.shape and np.allclose(i, wi, atol=tol)
    return all(np.allclose(np.sort(x[g]), np.sort(y[g]), atol=tol) for r, x, y in zip(ws, i, wi)
               for v in r[np.abs(r - r[-1:]) > tol] for g in [np.abs(r - v) <= tol])


def _top(q, c, k: int, rank="cos", score="cos", axis=1, skip=0, flip=False):
    """Each query's k best corpus rows by the matrix ``rank``, best first: (their ``score``, or None; ids)."""
    m = {"cos": _cos(q, c), "-cos": -_cos(q, c), "1-cos": 1 - _cos(q, c), "dot": _f64(q) @ _f64(c).T,
         "-euclid": -np.linalg.norm(_f64(q)[:, None] - _f64(c)[None], axis=-1)}
    ids = np.take(np.argsort(-m[rank], axis=axis, kind="stable"), range(k + skip), axis=axis)[:, skip:]
    ids = ids[:, ::-1] if flip else ids
    return (np.take_along_axis(m[score], ids, axis) if score else None), ids


def _vectors():   # lengths far apart; corpus rows 3 and 5 tie as query 0's best
    rng = np.random.default_rng(12)
    q, c = rng.normal(size=(6, 16)), rng.normal(size=(40, 16)) * rng.uniform(0.1, 10.0, size=(40, 1))
    c[3] = q[0] + 0.3 * c[3] / np.linalg.norm(c[3])
    return q.astype(np.float32), np.float32(np.r_[c[:5], 2.5 * c[3:4], c[6:]])


TOP_K = Exercise("top_k", probe="""
            _rng = _np.random.default_rng(2032)
            _scores, _ids = top_k(_rng.normal(size=(3, 5)).astype("float32"), _rng.normal(size=(10, 5)).astype("float32"), 4)
            _result = {"scores": _scores, "ids": _ids}
            """, reference=_top, inputs=lambda: [(*_vectors(), k) for k in (1, 3, 10)], compare=_same_hits, slips={
    "off by one: k + 1 columns where k were asked for": lambda q, c, k: _top(q, c, k + 1),
    "off by one: k − 1 columns where k were asked for": lambda q, c, k: _top(q, c, k - 1),
    "off by one: you skipped the best hit (column 0); the queries are not in the corpus": lambda *a: _top(*a, skip=1),
    "you ranked along axis 0, over the queries: rank along axis 1 (dim=1)": lambda *a: _top(*a, axis=0),
    "those are the LEAST similar rows: sort by cosine, highest first": lambda *a: _top(*a, rank="-cos"),
    "argsort sorts ascending: the k best, but worst first — best first": lambda *a: _top(*a, flip=True),
    "a dot product ranks long vectors first: normalise both sides": lambda *a: _top(*a, rank="dot", score="dot"),
    "the right rows, but 1 − cosine as their scores: return the cosines": lambda *a: _top(*a, score="1-cos"),
    "a Euclidean distance of unnormalised vectors is not a cosine": lambda *a: _top(*a, rank="-euclid", score=None)},
    hint="the cosine of every query with every corpus row (q × n), then each query's k largest, best first, with ids")


def _recall_inputs():   # (approx, exact, k); the last: pooled, every id is a hit
    rng = np.random.default_rng(12)
    exact = np.stack([rng.permutation(1000)[:10] for _ in range(20)])
    approx = np.stack([np.where(rng.random(10) < .3, rng.integers(2000, 3000, 10), rng.permutation(r)) for r in exact])
    short = np.c_[exact[:5, :5], exact[:5, :1], np.full((5, 4), -1)]          # -1 fillers, an id twice
    mine = np.stack([rng.permutation(500)[:6] for _ in range(8)])
    theirs = np.stack([np.r_[rng.permutation(r[:3]), [x for x in n if x not in r][:3]] for r, n in zip(mine, mine[1:])])
    return [(approx, exact, 10), (approx, exact, 5), (approx[:, :8], exact[:, :8], 3), (exact[:4], exact[:4], 10),
            (exact[:4] + 5000, exact[:4], 7), (short, exact[:5], 10), (theirs, mine[:-1], 6)]


_sets = lambda a, e, n: [(set(x[:n].tolist()), set(y[:n].tolist())) for x, y in zip(a, e)]  # noqa: E731 first n ids
_hit = lambda a, e, n, by=lambda x, y: 1: np.mean([len(x & y) / by(x, y) for x, y in _sets(a, e, n)])  # noqa: E731
_seen = lambda x, y: max(1, len(x))  # noqa: E731 - the distinct ids of an approximate list
POOLED = "you pooled the queries: an id counts only in the exact top-k of its *own* query"
MY_RECALL = Exercise("my_recall", probe="""
            _approx = _np.array([[1, 2, 3, 4, 5], [9, 8, 7, 6, 5], [0, 1, 2, 3, 4]])
            _exact = _np.array([[1, 2, 3, 4, 6], [5, 6, 7, 8, 9], [10, 11, 12, 13, 0]])
            _result = [my_recall(_approx, _exact, 5), my_recall(_approx, _exact, 3)]
            """, reference=recall_at_k, inputs=_recall_inputs, slips={
    "you compared position by position: an id counts anywhere in the top-k": lambda a, e, k: (a == e)[:, :k].mean(),
    "you used the whole lists, where only the first k ids of each count": lambda a, e, k: _hit(a, e, None) / k,
    "you divided by the length of the lists, not by k": lambda a, e, k: _hit(a, e, k) / a.shape[1],
    "you divided by the distinct ids found (-1 fillers, repeats): out of k": lambda a, e, k: _hit(a, e, k, _seen),
    "that is |∩| / |∪| (Jaccard): recall divides by k": lambda a, e, k: _hit(a, e, k, lambda x, y: len(x | y)),
    "that is a count of ids found per query: recall is a share of the k": lambda a, e, k: _hit(a, e, k),
    "that is a sum over the queries: recall is the mean over them": lambda a, e, k: _hit(a, e, k) * len(a) / k,
    "off by one: the first k − 1 ids, out of k (a slice [:k] holds k)": lambda a, e, k: _hit(a, e, k - 1) / k,
    "off by one: the first k − 1 ids, out of k − 1 ([:k] holds k)": lambda a, e, k: recall_at_k(a, e, k - 1),
    "off by one: the first k + 1 ids (a slice [:k] holds k)": lambda a, e, k: _hit(a, e, k + 1) / k,
    POOLED + " — recall per query, then the mean": lambda a, e, k: np.isin(a[:, :k], e[:, :k]).mean(),
    POOLED + ", not in one set": lambda a, e, k: len(set(a[:, :k].flat) & set(e[:, :k].flat)) / a[:, :k].size},
    hint="per query, the share of the exact top-k ids that the approximate top-k also holds; then the mean")


def _mine(emb, top: int, cells="above", score="cos") -> list:
    """The ``top`` pairs (score, i, j) of highest ``score``, best first, among the ``cells`` of the matrix."""
    n, m = len(emb), {"cos": _cos(emb, emb), "dot": _f64(emb) @ _f64(emb).T, "-cos": -_cos(emb, emb)}[score]
    m = np.triu(m, 1) if cells == "zeroed" else m
    keep = {"above": np.triu(np.ones((n, n)), 1), "diagonal": np.triu(np.ones((n, n))), "both": 1 - np.eye(n)}
    i, j = np.nonzero(keep.get(cells, np.ones((n, n))))
    return [(float(m[i[t], j[t]]), int(i[t]), int(j[t])) for t in np.argsort(-m[i, j], kind="stable")[:top]]


_rows = lambda t: np.array([[float(v) for v in p] if len(p) == 3 else [] for p in t]).reshape(-1, 3)  # noqa: E731
_pairs = lambda r: (r[None, :, 0], r[None, :, 1] * 1e4 + r[None, :, 2])  # noqa: E731 - (scores, ids i·10⁴ + j)
MINE_PAIRS = Exercise("mine_pairs", reference=_mine, inputs=lambda: [(_community_case(1215), t) for t in (1, 5, 990)],
                      compare=lambda got, want: _same_hits(_pairs(_rows(got)), _pairs(_rows(want))), slips={
    "a row paired with itself (cosine 1 is always best): leave the diagonal out": lambda e, t: _mine(e, t, "diagonal"),
    "a pair twice, as (i, j) and (j, i): keep only the cells above the diagonal": lambda e, t: _mine(e, t, "both"),
    "zeroed cells still beat every negative cosine: mask with -inf": lambda e, t: _mine(e, t, "zeroed"),
    "give each pair with the smaller row id first: i < j": lambda e, t: [(s, j, i) for s, i, j in _mine(e, t)],
    "put the cosine first: (cosine, i, j)": lambda e, t: [(i, j, s) for s, i, j in _mine(e, t)],
    "a dot product ranks long vectors first: normalise the rows": lambda e, t: _mine(e, t, score="dot"),
    "those are the LEAST similar pairs: the highest cosine comes first": lambda e, t: _mine(e, t, score="-cos"),
    "the right pairs, in the wrong order: best first": lambda e, t: sorted(_mine(e, t), key=lambda p: p[1:]),
    "off by one: one pair too many — exactly `top` pairs": lambda e, t: _mine(e, t + 1)},
    hint="the cosine of every row with every other, each pair once (above the diagonal), the `top` largest first")


def _rerank_inputs():   # the top-k vectors, with texts; a stand-in cross-encoder: a score per ordered pair
    (q, c), rng = _vectors(), np.random.default_rng(1213)
    queries, corpus = [f"hidden query {i}" for i in range(6)], [f"hidden text {j}" for j in range(40)]
    table = {p: float(rng.uniform()) for p in permutations(queries + corpus, 2)}
    judge = SimpleNamespace(predict=lambda pairs, *_, **__: np.float32([table.get(tuple(p), 0) for p in pairs]))
    return [(queries, q, corpus, c, judge, k) for k in (3, 6)]


def _rerank(queries, q_emb, corpus, c_emb, judge, k, rank="cos", swap=False, sort=-1, moved="both", whole=False):
    """Top k by ``rank``, re-scored by ``judge`` on (query, candidate), best first; the slips as named below."""
    cos, ids = _top(q_emb, c_emb, len(corpus) if whole else k, rank=rank)
    s = _f64(judge.predict([(corpus[j], q) if swap else (q, corpus[j]) for q, r in zip(queries, ids) for j in r]))
    o = np.argsort(sort * s.reshape(ids.shape), axis=1, kind="stable")[:, :k]
    new, old = (lambda x: np.take_along_axis(x.reshape(ids.shape), o, 1)), (lambda x: x.reshape(ids.shape)[:, :k])
    return {"both": (new(s), new(ids)), "scores": (new(s), old(ids)), "ids": (old(s), new(ids)),
            "cosines": (new(cos), new(ids))}[moved]


RETRIEVE_AND_RERANK = Exercise("retrieve_and_rerank", reference=_rerank, inputs=_rerank_inputs, compare=_same_hits,
                               slips={
    "that is the retriever's order: sort by the cross-encoder's score": lambda *a: _rerank(*a, sort=0),
    "the lowest cross-encoder score comes first: sort best first": lambda *a: _rerank(*a, sort=1),
    "the scores are in the cross-encoder's order, the ids not": lambda *a: _rerank(*a, moved="scores"),
    "the ids are in the cross-encoder's order, but the scores are not": lambda *a: _rerank(*a, moved="ids"),
    "those are the retriever's cosines: return the cross-encoder's scores": lambda *a: _rerank(*a, moved="cosines"),
    "(candidate, query) pairs: give the cross-encoder (query, candidate)": lambda *a: _rerank(*a, swap=True),
    "the cross-encoder re-scores only each query's k retrieved candidates": lambda *a: _rerank(*a, whole=True),
    "the candidates were retrieved by dot product: retrieve by cosine (top_k)": lambda *a: _rerank(*a, rank="dot")},
    hint="retrieve each query's k candidates by cosine, score (query, candidate) with the cross-encoder, best first")


def _purity_inputs():   # types as strings; ids not 0…k−1; a large mixed cluster
    rng = np.random.default_rng(1216)
    labels = rng.choice(["ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"], size=60, p=[.05, .3, .25, .2, .1, .1])
    clusters = np.where(rng.random(60) < 0.7, np.unique(labels, return_inverse=True)[1], rng.integers(0, 6, size=60))
    return [(labels, np.array([-1, 7, 42, 3, 11, 5])[clusters]), (labels, np.array([-1, 7, 7, 42, 42, 42])[clusters]),
            (labels, np.r_[[40] * 30, rng.integers(0, 9, size=30) * 10])]


def _table(labels, clusters) -> np.ndarray:   # counts of each type (rows) in each cluster (columns)
    from sklearn.metrics.cluster import contingency_matrix
    return contingency_matrix(labels, clusters)


_ranged = lambda l, c, n: sum(_table(l[c == i], c[c == i]).max() for i in range(n) if any(c == i)) / len(l)  # noqa
POSITIONS = ": cluster ids are labels, not positions — group by the ids that occur"
PURITY = Exercise("purity", reference=lambda labels, clusters: _table(labels, clusters).max(0).sum() / len(labels),
                  inputs=_purity_inputs, slips={
    "each TYPE's largest cluster: take each CLUSTER's majority": lambda l, c: _table(l, c).max(1).sum() / len(l),
    "that is the plain mean of the clusters' purities: weight each by its size":
        lambda l, c: np.mean(_table(l, c).max(0) / _table(l, c).sum(0)),
    "that is a count of items: divide by the number of items": lambda l, c: _table(l, c).max(0).sum(),
    "you divided by the number of clusters: divide by the number of items": lambda l, c: np.mean(_table(l, c).max(0)),
    "the largest type's share overall: the majority in each cluster": lambda l, c: max(_table(l, c).sum(1)) / len(l),
    "you counted the clusters 0, 1, …, max id" + POSITIONS: lambda l, c: _ranged(l, c, int(np.max(c)) + 1),
    "you counted the clusters 0, 1, …, k−1" + POSITIONS: lambda l, c: _ranged(l, c, len(np.unique(c)))},
    hint="per cluster, the items of its most common type; add those counts, divide by the number of items")


def _community_case(seed: int) -> np.ndarray:
    """Groups of 12, 8 and 5 rows, a loose ring round the first, 4 rows between two, 10 scattered; lengths far apart."""
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(3, 16))
    parts = [(c[0], 12, .25), (c[1], 8, .25), (c[2], 5, .2), (c[0], 6, .7), ((c[1] + c[2]) / 2, 4, .3), (0, 10, 1)]
    x = rng.permutation(np.concatenate([m + rng.normal(scale=s, size=(n, 16)) for m, n, s in parts]))
    return (x * rng.uniform(0.2, 8.0, size=(len(x), 1))).astype(np.float32)


def _detect(emb, t: float, m: int, score="cos", cut=">=", alone=False, size=">=", first="size", drop=True, small=False,
            end="size", by_id=False) -> list:
    """Community detection, each of its steps open to a slip (the defaults: none)."""
    s, op = _cos(emb, emb) if score == "cos" else _f64(emb) @ _f64(emb).T, {">=": np.greater_equal, ">": np.greater}
    props = [p for r, row in enumerate(s) for p in [[j for j in np.argsort(-row, kind="stable")
                                                     if op[cut](row[j], t) and not (alone and j == r)]]
             if op[size](len(p), m)]
    found, taken = [], set()
    for p in sorted(props, key=len, reverse=True) if first == "size" else props:
        rest = [j for j in p if j not in taken] if drop else p
        if rest and (small or len(rest) >= m):
            found.append(sorted(rest) if by_id else rest)
            taken.update(rest)
    return found if end == "row" else sorted(found, key=len, reverse=end == "size")


def _community_inputs(e=np.eye(8)):
    """Four thresholds and sizes; a proposal that lost claimed rows ends smaller than a later one (1203); rows whose
    cosines are binary fractions (exact in float32 and 64): row 3's community holds row 4 at exactly 0.5."""
    exact = np.float32([e[5], 2 * e[[0, 1, 2, 4]].sum(0), e[6] / 2, e[:4].sum(0), 8 * e[3], e[7]])
    return [(_community_case(1215), t, m) for t, m in ((0.8, 4), (0.6, 5), (0.9, 5), (0.99, 3))] + \
        [(_community_case(1203), 0.6, 5), (exact, 0.5, 3)]


_groups = lambda v: ([len(g) for g in v], sorted(tuple(int(i) for i in g) for g in v))  # noqa: E731 sizes, rows
COMMUNITIES = Exercise("communities", reference=lambda e, t, m: community_detection(e, t, m), inputs=_community_inputs,
                       compare=lambda got, want: _groups(got) == _groups(want), slips={
    "a row in two communities: drop the rows already claimed from later proposals": lambda *a: _detect(*a, drop=False),
    "a community under min_size: keep a proposal only if min_size rows are left": lambda *a: _detect(*a, small=True),
    "a dot product is not a cosine on vectors of different lengths: normalise": lambda *a: _detect(*a, score="dot"),
    "you took the proposals in row order: take the largest first": lambda *a: _detect(*a, first="row"),
    "smallest first: return the communities largest first": lambda *a: _detect(*a, end="smallest"),
    "the right communities, but not largest first: sort them by size at the end": lambda *a: _detect(*a, end="row"),
    "a community's rows by row id: most similar to its proposer first": lambda *a: _detect(*a, by_id=True),
    "a cosine equal to the threshold is within it: ≥ threshold, not >": lambda *a: _detect(*a, cut=">"),
    "a row is its own neighbour (cosine 1): count it, keep it in its community": lambda *a: _detect(*a, alone=True),
    "off by one: a proposal needs at least min_size rows (≥, not >)": lambda *a: _detect(*a, size=">")},
    hint="each row proposes its rows within the threshold (itself too); largest first, drop claimed rows, ≥ min_size")
EXERCISES = (TOP_K, MY_RECALL, MINE_PAIRS, RETRIEVE_AND_RERANK, PURITY, COMMUNITIES)
check_top_k, check_recall_at_k, check_mine_pairs, check_rerank, check_purity, check_communities = map(
    _guarded, (exercise.check for exercise in EXERCISES))   # each the check of its declaration


def check_nprobe(nprobe, index, queries, exact_ids, k: int = 10, target: float = 0.95) -> float:
    """Pass when ``nprobe`` is the fewest cells (below nlist: all is brute force) whose recall@k reaches ``target``;
    the index's own nprobe is put back. Returns the recall at the student's nprobe."""
    require(isinstance(nprobe, (int, np.integer)) and not isinstance(nprobe, bool) and 1 <= nprobe < index.nlist,
            f"nprobe = {nprobe!r}: a whole number of cells, 1 to {index.nlist - 1} (all {index.nlist} cells visited "
            "is brute force with extra steps)", "find the smallest nprobe whose recall reaches the target")
    recall, old = {}, index.nprobe
    try:
        for p in range(1, nprobe + 1):
            index.nprobe = p
            recall[p] = recall_at_k(faiss_search(index, queries, k)[1], exact_ids, k)
    finally:
        index.nprobe = old
    require(recall[nprobe] >= target, f"with nprobe={nprobe} recall@{k} is {recall[nprobe]:.3f}, below the target "
            f"{target}", "visit more cells: try nprobe = 1, 2, 3, … and keep the first whose recall reaches it")
    smaller = [r for p, r in recall.items() if p < nprobe and r >= target]
    require(not smaller, f"a smaller nprobe reaches recall@{k} ≥ {target} too: {nprobe} is not the smallest",
            "reaching the target is ≥: a recall equal to it counts" if min(smaller, default=1) <= target + 1e-9 else
            "try every nprobe from 1 upwards (not only powers of two); stop at the first whose recall reaches it")
    ok(f"nprobe={nprobe} is the smallest with recall@{k} ≥ {target} ({recall[nprobe]:.3f}), visiting {nprobe} of "
       f"{index.nlist} cells (≈{100 * nprobe / index.nlist:.0f}% of the corpus)")
    return recall[nprobe]


guard(globals())   # last: every check above shows its own failures as an ExerciseError
