"""Self-checks for ``00_setup_and_tour``: the cosine matrix, the most similar pair, nearest-neighbour hits."""
from dataclasses import replace

import numpy as np
import torch

from . import Exercise, as_array as _f64, guard, two_items, unit as _unit, within

_off = lambda m, fill=-np.inf: np.where(np.eye(len(m), dtype=bool), fill, _f64(m))   # the diagonal set to fill
_at = lambda m: tuple(sorted(divmod(int(np.argmax(m)), m.shape[1])))   # (row, column) of the largest
_nn = lambda m, fill=-np.inf: [(i, int(j)) for i, j in enumerate(_off(m, fill).argmax(axis=1))]
_as = lambda like, m: torch.as_tensor(m, dtype=like.dtype) if torch.is_tensor(like) else m   # as the notebook's
_hit = lambda m, p, fill=-np.inf, key=sorted: sum(tuple(key(x)) in p for x in _nn(m, fill))
cosine_matrix_truth = lambda a, b: _unit(a) @ _unit(b).T   # out[i, j] = cos(a[i], b[j]), in float64
most_similar_pair_truth = lambda matrix: _at(_off(matrix))   # (i, j), i < j, of the largest cosine off the diagonal
nearest_neighbour_hits_truth = lambda sim, paraphrases: _hit(sim, {tuple(sorted(q)) for q in paraphrases})
_sym = lambda rng, n: _off((lambda a: (a + a.T) / 2)(rng.uniform(-1, 0.95, (n, n))), 1)   # as cosines


def _rows() -> list[tuple[np.ndarray, np.ndarray]]:   # float32, as encode gives, of very unequal lengths
    rng = np.random.default_rng(2019)
    a, b, c = (((rng.standard_normal((n, d)) + o) * rng.uniform(0.1, 9.0, (n, 1))).astype(np.float32)
               for n, d, o in ((5, 8, 0.7), (7, 8, 0.7), (6, 4, -0.3)))
    return [(a, b), (c, c.copy()), (a[:1].copy(), b)]


COSINE_MATRIX = Exercise(
    "cosine_matrix", reference=cosine_matrix_truth, inputs=_rows, compare=within(1e-5, 1e-5), slips={
        "you compared `a` with itself: out[i, j] = cos(a[i], b[j])": lambda a, b: cosine_matrix_truth(a, a),
        "that is the dot product a·b: normalise each row to length 1 first": lambda a, b: _f64(a) @ _f64(b).T,
        "only the rows of `a` were normalised: normalise the rows of `b` too": lambda a, b: _unit(a) @ _f64(b).T,
        "only the rows of `b` were normalised: normalise the rows of `a` too": lambda a, b: _f64(a) @ _unit(b).T,
        "you divided by the squared length: a unit vector is x / |x|":
            lambda a, b: _unit(a) @ _unit(b).T / np.outer(*(np.linalg.norm(_f64(x), axis=1) for x in (a, b))),
        "you divided by the norm of the whole matrix, not of each row": lambda a, b: _unit(a, None) @ _unit(b, None).T,
        "you normalised the columns (axis 0): normalise each row (axis=1)": lambda a, b: _unit(a, 0) @ _unit(b, 0).T},
    hint="try vectors you can do by hand: [3, 4] against [6, 8] and [4, -3] gives cosines 1 and 0",
    ok="cosine_matrix is right: every entry is a cosine, whatever the vectors' lengths")
check_cosine_matrix = lambda cosine_matrix: COSINE_MATRIX.check(cosine_matrix)   # on hidden float32 rows

MOST_SIMILAR_PAIR = Exercise(
    'most_similar_pair', reference=most_similar_pair_truth, probe="""
            _rng = _np.random.default_rng(2020)
            _result = []
            for _n in (3, 6, 10):
                _a = _rng.uniform(-1, 0.95, size=(_n, _n)); _m = (_a + _a.T) / 2; _np.fill_diagonal(_m, 1.0)
                _s = _torch.as_tensor(_m, dtype=sim.dtype) if isinstance(sim, _torch.Tensor) else _m.astype(_np.asarray(sim).dtype)
                _result.append(sorted(int(i) for i in most_similar_pair(_s)))
            """,
    inputs=lambda: [(_sym(np.random.default_rng(n), n),) for n in (5, 9, 2)] + [(_off(-np.eye(4)[::-1], 1),)],
    returns=lambda got, what: tuple(sorted(int(x) for x in two_items(got, f"{what} returned", "return (i, j)"))),
    slips={"where all other cosines are negative, a diagonal set to 0 wins: use -inf": lambda m: _at(_off(m, 0)),
           "a sentence paired with itself: the diagonal holds each sentence's cosine with itself (always the largest); "
           "leave it out, e.g. fill the diagonal of a copy with -inf first": lambda m: _at(_f64(m)),
           "that is the least similar pair: the most similar has the largest cosine": lambda m: _at(-_off(m, np.inf)),
           "you searched the first row only: look at the whole matrix, off its diagonal": lambda m: _at(_off(m)[:1])},
    hint="look for the largest entry off the diagonal (argmax of the whole matrix, then divmod by the row length)")


def check_most_similar_pair(most_similar_pair, sim) -> None:
    i, j = most_similar_pair_truth(sim)
    replace(MOST_SIMILAR_PAIR, inputs=lambda: [(_as(sim, m),) for (m,) in MOST_SIMILAR_PAIR.inputs()] + [(sim,)],
            ok=f"most_similar_pair is right: in the notebook's matrix, sentences {i} and {j} are the most similar "
               f"(cosine {_f64(sim)[i, j]:.3f})").check(most_similar_pair)


def _hits_cases() -> list[tuple[np.ndarray, set]]:
    """8 sentences where each slip counts otherwise (6 right: 0↔5, 2↔4 mutual; 1→3, 7→6 one way; 3→2, 6→1 miss)."""
    m = np.random.default_rng(8).uniform(-0.5, 0.2, size=(8, 8))
    for (i, j), s in {(0, 5): 0.95, (2, 4): 0.9, (3, 2): 0.82, (1, 3): 0.8, (6, 1): 0.6, (6, 7): 0.5}.items():
        m[i, j] = m[j, i] = s
    m[6, [0, 2, 3, 4, 5]] = m[[0, 2, 3, 4, 5], 6] = 0.55   # 6's partner 7 its least similar: argmin gives 1
    return [(_off((m + m.T) / 2, 1), {(0, 5), (1, 3), (2, 4), (6, 7)})]


NEAREST_NEIGHBOUR_HITS = Exercise(
    "nearest_neighbour_hits", reference=nearest_neighbour_hits_truth, inputs=_hits_cases, slips={
        "every sentence is its own nearest (the diagonal, cosine 1): leave it out": lambda m, p: _hit(m, p, np.inf),
        "(5, 0) and (0, 5) are the same pair: sort the two indices first": lambda m, p: _hit(m, p, key=tuple),
        "count sentences, not pairs: each sentence whose nearest neighbour is its partner counts on its own":
            lambda m, p: len({tuple(sorted(x)) for x in _nn(m)} & p),
        "that is a share of the sentences: return how many hit, a count": lambda m, p: _hit(m, p) / len(m),
        "that is the least similar one: the nearest has the largest cosine": lambda m, p: _hit(-_off(m, np.inf), p)},
    hint="for each row: the column of its largest entry off the diagonal; a hit when (row, column) is a written pair",
    ok="nearest_neighbour_hits is right: each sentence scores when its most similar other sentence is its paraphrase")


def check_nearest_neighbour_hits(nearest_neighbour_hits, sim=None, paraphrases=None) -> None:
    cases = [(_as(sim, m), p) for m, p in _hits_cases()] + ([] if sim is None else [(sim, set(paraphrases or ()))])
    replace(NEAREST_NEIGHBOUR_HITS, inputs=lambda: cases).check(nearest_neighbour_hits)


EXERCISES = (COSINE_MATRIX, MOST_SIMILAR_PAIR, NEAREST_NEIGHBOUR_HITS)

guard(globals())   # last: every check above shows its own failures as an ExerciseError
