"""Self-checks for ``01_broken_baselines``: the cost of pairs, Table 1's GloVe row, anisotropy and centring."""
import numpy as np

from ...model.word_average import AverageWordEmbeddings, simple_tokenize
from . import Exercise, as_array as _f64, guard, one_number as _number, unit as _unit, within

_cos = lambda x, axis=1: _unit(x, axis) @ _unit(x, axis).T
_offdiag = lambda c: c[~np.eye(len(c), dtype=bool)]   # the entries i ≠ j
_pairs = lambda n: n * (n - 1) // 2
_close = within(1e-6, 1e-12)
_known = lambda sentences, vocab=None: np.array([[sum(vocab is None or t in vocab for t in simple_tokenize(s.lower()))]
                                                 for s in sentences])   # how many tokens of each (are in vocab)
_WORDS = "a man is playing guitar . , ! the cat sleeps on sofa someone music loud".split()   # the hidden vocabulary

PAIR_COUNT = Exercise(
    "pair_count", reference=_pairs, inputs=lambda: [(n,) for n in (4, 0, 1, 2, 3, 5, 10, 100, 10_000, 123_457)],
    returns=_number, compare=lambda got, want: got == want, slips={
        "n² counts every ordered pair and each sentence with itself": lambda n: n * n,
        "n·(n−1) counts (a, b) and (b, a) separately — a similarity is symmetric": lambda n: n * (n - 1),
        "n·(n+1)/2 includes each sentence paired with itself": lambda n: n * (n + 1) // 2,
        "n²/2 (or n²//2) halves the ordered pairs, but n² still holds each sentence with itself": lambda n: n * n / 2},
    hint="count each unordered pair of two different sentences once: try n = 3 by hand",
    ok=f"pair_count is right: 10,000 sentences give {_pairs(10_000):,} pairs",
    probe="_result = [pair_count(n) for n in (0, 1, 2, 3, 10, 10_000, 1_000_000)]")
CROSS_ENCODER_HOURS = Exercise(
    "cross_encoder_hours", reference=lambda n, pps: _pairs(n) / pps / 3600, returns=_number, compare=_close,
    inputs=lambda: [(10_000, 213.65), (10_000, 50.0), (1_000, 10.0), (2, 1.0), (40_000, 2_000.0), (1, 5.0)],
    slips={"that is in seconds: divide by 3600 for hours": lambda n, pps: _pairs(n) / pps,
           "that is in minutes: divide by 60 once more": lambda n, pps: _pairs(n) / pps / 60,
           "use the number of unordered pairs n·(n−1)/2, not n²": lambda n, pps: n * n / pps / 3600,
           "n·(n−1) counts each pair twice": lambda n, pps: n * (n - 1) / pps / 3600,
           "a cross-encoder makes one pass per pair, not per sentence": lambda n, pps: n / pps / 3600,
           "upside down: the time is the pairs / (pairs per second)": lambda n, pps: pps * 3600 / max(_pairs(n), 1),
           "that is rounded down to whole hours: // drops the fraction": lambda n, pps: _pairs(n) / pps // 3600},
    hint="work out n = 3 by hand: how many passes does the cross-encoder make, how long do they take, how many hours?",
    ok=f"cross_encoder_hours is right: the paper's 65 h for 10,000 sentences: {_pairs(10**4) / 65 / 3600:.0f} pairs/s",
    probe="_result = [cross_encoder_hours(n, p) for n, p in ((10_000, 65), (500, 12.5), (2, 1))]")
BI_ENCODER_SECONDS = Exercise(
    "bi_encoder_seconds", reference=lambda n, sps: n / sps, returns=_number, compare=_close,
    inputs=lambda: [(10_000, 2_000.0), (10_000, 137.0), (1_000, 50.0), (2, 4.0), (123_457, 830.5), (1, 5.0)],
    slips={"a bi-encoder encodes every sentence once — n passes, not n·(n−1)/2": lambda n, sps: _pairs(n) / sps,
           "that is in hours: this one asks for seconds": lambda n, sps: n / sps / 3600,
           "upside down: divide the number of sentences by the speed": lambda n, sps: sps / n,
           "divide by the speed, do not multiply": lambda n, sps: n * sps},
    hint="work out n = 3 by hand: how many passes does a bi-encoder make for n sentences, and how long do they take?",
    ok="bi_encoder_seconds is right: encodings grow as n, pairs as n²")
speedup_truth = lambda n, pps, sps: (_pairs(n) / pps) / (n / sps)   # the cross-encoder's time over the bi-encoder's
SPEEDUP = Exercise(
    "speedup", reference=speedup_truth, returns=_number, compare=_close,
    inputs=lambda: [(10_000, 213.65, 2e3), (10_000, 50, 50), (1_000, 10, 400), (2, 1, 1), (40_000, 2e3, 1e3)],
    slips={"upside down: the cross-encoder's time over the bi-encoder's": lambda *a: 1 / speedup_truth(*a),
           "hours divided by seconds: put both times in the same unit first": lambda *a: speedup_truth(*a) / 3600,
           "seconds divided by hours: put both times in the same unit first": lambda *a: speedup_truth(*a) * 3600,
           "count each unordered pair once, n·(n−1)/2": lambda n, pps, sps: n * n / pps / (n / sps),
           "count each unordered pair once, n·(n−1)/2 (n·(n−1) counts each twice)": lambda *a: 2 * speedup_truth(*a),
           "one pass over one pass: the cross-encoder makes n·(n−1)/2, a bi-encoder n": lambda n, pps, sps: sps / pps},
    hint="work out n = 3 by hand: each encoder's time for the same n sentences, both in seconds, and their ratio",
    ok=f"speedup is right: it grows with n — {speedup_truth(10_000, 1, 1):,.1f}× at equal speeds for 10,000 sentences")
_spread = lambda: [((r.standard_normal((n, d)) + o) * r.uniform(0.1, 8.0, (n, 1)),) for r in [np.random.default_rng(
    2019)] for n, d, o in ((12, 6, 2.0), (30, 16, 0.0), (5, 3, -1.0), (50, 8, 5.0))]   # unequal norms, an offset
anisotropy_truth = lambda vectors: float(_offdiag(_cos(vectors)).mean())
ANISOTROPY = Exercise(
    "anisotropy", reference=anisotropy_truth, inputs=_spread, returns=_number, compare=lambda a, b: abs(a - b) < 1e-5,
    slips={"you included the diagonal (each sentence with itself): average pairs i ≠ j": lambda x: _cos(x).mean(),
           "that is the mean dot product: normalise the rows first": lambda x: _offdiag(_f64(x) @ _f64(x).T).mean(),
           "the mean dot product, diagonal included: normalise the rows": lambda x: (_f64(x) @ _f64(x).T).mean(),
           "you left out the diagonal but divided by n², not n·(n−1)": lambda x: _offdiag(_cos(x)).sum() / len(x) ** 2,
           "you summed each pair once (i < j) but divided by n·(n−1)": lambda x: anisotropy_truth(x) / 2,
           "you centred the vectors first: measure them as they are": lambda x: anisotropy_truth(x - x.mean(axis=0)),
           "you normalised the columns (axis 0): normalise each row": lambda x: _offdiag(_cos(x, 0)).mean(),
           "that is the sum over the pairs: divide by how many pairs i ≠ j": lambda x: _offdiag(_cos(x)).sum()},
    hint="try 3 short vectors by hand: is each value you average a cosine of two *different* sentences?",
    ok="anisotropy is right: the mean cosine over all pairs of different sentences", probe="""
            _rng = _np.random.default_rng(2021)
            _result = [anisotropy(_rng.normal(size=(7, 5)) + 0.8), anisotropy(_rng.normal(size=(3, 4)))]
            """)
centre_truth = lambda vectors: _f64(vectors) - _f64(vectors).mean(axis=0)   # every row minus the mean row
CENTRE = Exercise(
    "centre", reference=centre_truth, inputs=lambda: _spread()[:2], compare=within(1e-5, 1e-4), slips={
        "you subtracted each row's own mean (axis=1): the mean vector is axis=0": lambda x: x - x.mean(1)[:, None],
        "you subtracted one number, the mean of every entry: the mean *vector* (axis=0)": lambda x: x - x.mean(),
        "you normalised the rows first: centre the vectors as they are": lambda x: centre_truth(_unit(x)),
        "you divided by the standard deviation too: only subtract the mean": lambda x: centre_truth(x) / x.std(0),
        "the sign is the wrong way round: each vector minus the mean": lambda x: -centre_truth(x),
        "that is the mean vector itself: subtract it from every row": lambda x: x.mean(axis=0)},
    hint="after centring, the rows' average is the zero vector: print your result's mean over the sentences",
    ok="centre is right: the shared direction (the mean vector) removed from every sentence vector")
average_word_vectors_truth = _avg = lambda sentences, vocab, vectors, lower=True: AverageWordEmbeddings(
    vocab, np.asarray(vectors), lowercase=lower, name="hidden").encode(list(sentences)).astype(float)
AVERAGE_WORD_VECTORS = Exercise(
    "average_word_vectors", reference=average_word_vectors_truth, compare=within(1e-5, 1e-5, nan=True),
    inputs=lambda: [(["A man is playing a guitar.", "The cat sleeps on the sofa!", "Zebras juggle quietly",
                      "Someone plays MUSIC, loud and clear."], {w: i for i, w in enumerate(_WORDS)},
                     (np.random.default_rng(58).standard_normal((len(_WORDS), 6)) + 0.5).astype(np.float32))],
    slips={"GloVe 6B is lower-case: lower-case each sentence ('A' is not in it)": lambda *a: _avg(*a, lower=False),
           "'guitar.' is not a word: split with simple_tokenize, not str.split": lambda s, v, x:
               _avg([" ".join(w for w in u.split() if w.lower() in v) for u in s], v, x),
           "a sentence none of whose words is known got NaN (a mean of nothing): give it the zero vector":
               lambda s, v, x: np.where(_known(s, v) > 0, _avg(s, v, x), np.nan),
           "unknown words counted as zero vectors: skip them": lambda s, v, x: _avg(s, v, x) * _known(s, v) / _known(s),
           "that is the sum: divide by how many words were found": lambda s, v, x: _avg(s, v, x) * _known(s, v),
           "every occurrence counts: a word used twice weighs twice, so do not de-duplicate": lambda s, v, x:
               _avg([" ".join(dict.fromkeys(simple_tokenize(u.lower()))) for u in s], v, x),
           "you left out the punctuation tokens ('.', ','): they are GloVe words like any other": lambda s, v, x:
               _avg(s, {w: i for w, i in v.items() if w.isalnum()}, x),
           "you scaled each average to length 1: return the mean itself": lambda *a: _unit(_avg(*a))},
    hint="take one sentence by hand: print the tokens your function makes of it and which of them it finds in vocab",
    ok="average_word_vectors is right: the mean of the known words' vectors, the zero vector for none")
EXERCISES = (PAIR_COUNT, CROSS_ENCODER_HOURS, BI_ENCODER_SECONDS, SPEEDUP, ANISOTROPY, CENTRE, AVERAGE_WORD_VECTORS)
check_pair_count, check_cross_encoder_hours, check_bi_encoder_seconds, check_speedup, check_anisotropy, check_centre, \
    check_average_word_vectors = (lambda fn, ex=ex: ex.check(fn) for ex in EXERCISES)   # check_<name>(<name>)

guard(globals())   # last: every check above shows its own failures as an ExerciseError
