"""Self-checks for ``01_broken_baselines``: the pair-count warm-up, averaged word vectors (Table 1's GloVe row) and
the anisotropy measure.

(Mean pooling is built once, in notebook 02: its check lives in ``nb02``.)
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch

from . import guard, Exercise, ExerciseError, call, named_slip, ok, require
from .questions import choice, number

__all__ = ["check_pair_count", "check_cross_encoder_hours", "check_anisotropy", "anisotropy_truth",
           "check_average_word_vectors", "average_word_vectors_truth", "check_bi_encoder_seconds", "check_centre",
           "centre_truth", "check_speedup", "speedup_truth"]

PAPER_HOURS_10K = 65.0  # paper, Section 1: 10,000 sentences with a BERT cross-encoder on a V100
_PAIR_NS = (0, 1, 2, 3, 4, 10, 100, 10_000, 123_457)


def _reference_pairs(n: int) -> int:
    return n * (n - 1) // 2


def _number(x, what: str) -> float:
    require(x is not None and x is not NotImplemented, f"{what} is {x!r}", "return a number")
    if isinstance(x, (torch.Tensor, np.ndarray)):
        size = x.numel() if isinstance(x, torch.Tensor) else np.size(x)
        require(size == 1, f"{what} has shape {tuple(x.shape)}, not a single number")
        x = float(x.item() if hasattr(x, "item") else x)
    require(isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool),
            f"{what} is a {type(x).__name__}, not a number")
    return float(x)


def check_pair_count(pair_count: Callable[[int], int]) -> None:
    """Check ``pair_count(n)``: the number of unordered pairs of distinct sentences among ``n``."""
    require(callable(pair_count), "pass your function itself: check_pair_count(pair_count)")
    got = {n: _number(call(pair_count, n), f"pair_count({n})") for n in _PAIR_NS}
    wrong = [n for n in _PAIR_NS if got[n] != _reference_pairs(n)]
    if wrong:  # the slip is named from every n (at n = 1, n² and n·(n+1)/2 are both 1)
        slips = {"n² counts every ordered pair and each sentence with itself": lambda n: n * n,
                 "n·(n−1) counts (a, b) and (b, a) separately — a similarity is symmetric": lambda n: n * (n - 1),
                 "n·(n+1)/2 includes each sentence paired with itself": lambda n: n * (n + 1) // 2,
                 "n²/2 halves the ordered pairs, but n² still holds each sentence paired with itself (n of them)":
                     lambda n: n * n / 2,
                 "n²//2 halves the ordered pairs, but n² still holds each sentence paired with itself (n of them)":
                     lambda n: n * n // 2}
        hint = named_slip(got, {h: (lambda f=f: {n: f(n) for n in _PAIR_NS}) for h, f in slips.items()},
                          "count each unordered pair of two different sentences once", close=lambda a, b: a == b)
        n = wrong[0]
        raise ExerciseError(f"pair_count({n}) = {got[n]:g}, expected {_reference_pairs(n):,}\nHint: {hint}")
    ok(f"pair_count is right: 10,000 sentences give {_reference_pairs(10_000):,} pairs")


def _isclose(got: float, want: float) -> bool:
    return math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-12)


CROSS_ENCODER_HOURS = Exercise(
    "cross_encoder_hours",
    reference=lambda n, pps: _reference_pairs(n) / pps / 3600,
    inputs=lambda: [(10_000, 213.65), (10_000, 50.0), (1_000, 10.0), (2, 1.0), (40_000, 2_000.0), (1, 5.0)],
    slips={"that is in seconds: divide by 3600 for hours": lambda n, pps: _reference_pairs(n) / pps,
           "that is in minutes: divide by 60 once more": lambda n, pps: _reference_pairs(n) / pps / 60,
           "use the number of unordered pairs n·(n−1)/2, not n²": lambda n, pps: n * n / pps / 3600,
           "n·(n−1) counts each pair twice": lambda n, pps: n * (n - 1) / pps / 3600,
           "that is upside down (speed × time / pairs): the time is the pairs divided by how many are scored per second":
               lambda n, pps: pps * 3600 / max(_reference_pairs(n), 1),
           "that is rounded down to whole hours: // drops the fraction — use / for a time":
               lambda n, pps: _reference_pairs(n) / pps // 3600},
    hint="work out n = 3 by hand: how many forward passes does the cross-encoder make, how many seconds do they take "
         "at its speed, and how many hours is that?",
    ok=f"cross_encoder_hours is right: the paper's 65 h for 10,000 sentences means about "
       f"{_reference_pairs(10_000) / (PAPER_HOURS_10K * 3600):.0f} pairs per second on a V100",
    returns=_number, compare=_isclose,
    probe="_result = [cross_encoder_hours(n, p) for n, p in ((10_000, 65), (500, 12.5), (2, 1))]")


def check_cross_encoder_hours(cross_encoder_hours: Callable[[int, float], float]) -> None:
    """Check ``cross_encoder_hours(n, pairs_per_second)``: hours to score every pair among ``n`` sentences."""
    CROSS_ENCODER_HOURS.check(cross_encoder_hours)


def anisotropy_truth(vectors) -> float:
    """Mean cosine over all pairs of *different* rows (i ≠ j): Ethayarajh's (2019) anisotropy measure,
    applied to sentence vectors. Near 0 for directions spread out evenly; near 1 inside a narrow cone."""
    x = np.asarray(vectors.detach().cpu().numpy() if isinstance(vectors, torch.Tensor) else vectors, dtype=np.float64)
    require(x.ndim == 2 and len(x) >= 2, f"need an (n, dim) matrix with n ≥ 2 rows, got shape {x.shape}")
    x = x / np.clip(np.linalg.norm(x, axis=1, keepdims=True), 1e-12, None)
    n = len(x)
    total = x.sum(axis=0)
    return float((total @ total - n) / (n * (n - 1)))  # Σ_ij cos − Σ_i cos(i, i), over n(n−1) ordered pairs


def _anisotropy_cases():
    rng = np.random.default_rng(2019)
    cases = []
    for n, dim, offset in ((12, 6, 2.0), (30, 16, 0.0), (5, 3, -1.0), (50, 8, 5.0)):
        x = rng.standard_normal((n, dim)) + offset                 # a shared direction when offset != 0
        x *= rng.uniform(0.1, 8.0, size=(n, 1))                    # very different norms
        cases.append((f"{n} random vectors of dimension {dim}" + (f" around a shared offset {offset:+g}" if offset else ""), x))
    return cases


def _anisotropy_hint(got: float, x: np.ndarray) -> str:
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = unit @ unit.T
    raw = x @ x.T
    n = len(x)
    if abs(got - cos.mean()) < 1e-6:
        return "you included the diagonal (each sentence with itself, cosine 1): average over pairs i ≠ j only"
    if abs(got - raw[~np.eye(n, dtype=bool)].mean()) < 1e-6 or abs(got - raw.mean()) < 1e-6:
        return "that is the mean dot product: normalise the rows first, so that dot products are cosines"
    off = cos[~np.eye(n, dtype=bool)].sum()
    if abs(got - off / n ** 2) < 1e-6:
        return (f"you left the diagonal out of the sum but divided by n² = {n * n}: there are n·(n−1) = {n * (n - 1)} "
                f"pairs i ≠ j")
    if abs(got - off / 2 / (n * (n - 1))) < 1e-6:
        return ("you summed each pair once (i < j) but divided by n·(n−1), the number of ordered pairs: count the pairs "
                "you summed")
    centred = x - x.mean(axis=0)
    if abs(got - anisotropy_truth(centred)) < 1e-6:
        return "you centred the vectors first: measure the vectors as they are (centring is what removes anisotropy)"
    return ("try a tiny example you can do by hand (3 short vectors): is each of your values a cosine between −1 and 1, "
            "do you average only pairs of *different* sentences, and is that average what you return?")


def check_anisotropy(anisotropy: Callable) -> None:
    """Check ``anisotropy(vectors) -> float``: the mean cosine over all pairs of different rows of an
    ``(n, dim)`` array, on hidden data whose rows have very different norms and a shared offset."""
    require(callable(anisotropy), f"pass your function itself, not {type(anisotropy).__name__}",
            "check_anisotropy(anisotropy) — no parentheses after the name")
    for name, x in _anisotropy_cases():
        got = _number(call(anisotropy, x.copy()), f"anisotropy on {name}")
        want = anisotropy_truth(x)
        require(abs(got - want) < 1e-6, f"on {name} you returned {got:.6f}, the mean cosine over pairs i ≠ j is {want:.6f}",
                _anisotropy_hint(got, x))
    ok("anisotropy is right: the mean cosine over all pairs of different sentences")


# ----------------------------------------------------------------------------- average word vectors (Table 1's GloVe row)
_HIDDEN_WORDS = ("a", "man", "is", "playing", "guitar", ".", ",", "!", "the", "cat", "sleeps", "on", "sofa",
                 "someone", "music", "loud")
_HIDDEN_SENTENCES = ("A man is playing a guitar.",           # capitals, punctuation glued on, a word twice
                     "The cat sleeps on the sofa!",
                     "Zebras juggle quietly",                 # no word in the vocabulary
                     "Someone plays MUSIC, loud and clear.")  # unknown words among known ones


def _hidden_table(seed: int = 58) -> tuple[dict, np.ndarray]:
    """A small word-vector table: ``vocab`` word → row, ``vectors`` (V, 6) float32, lower-case words as GloVe 6B's."""
    rng = np.random.default_rng(seed)
    vectors = (rng.standard_normal((len(_HIDDEN_WORDS), 6)) + 0.5).astype(np.float32)
    return {w: i for i, w in enumerate(_HIDDEN_WORDS)}, vectors


def average_word_vectors_truth(sentences, vocab: dict, vectors) -> np.ndarray:
    """:class:`sbertlib.model.word_average.AverageWordEmbeddings` (lower-cased, as GloVe 6B): each sentence's
    known tokens' vectors averaged, every occurrence counted; the zero vector where no token is known."""
    from ...model.word_average import AverageWordEmbeddings
    return AverageWordEmbeddings(vocab, np.asarray(vectors), lowercase=True, name="hidden").encode(list(sentences))


def _average_slips(sentences, vocab: dict, vectors: np.ndarray) -> dict[str, np.ndarray]:
    """hint -> what a usual slip gives on the hidden sentences."""
    from ...model.word_average import simple_tokenize
    dim = vectors.shape[1]

    def variant(tokenise, known_only=True, reduce="mean", unique=False):
        out = np.zeros((len(sentences), dim))
        for k, s in enumerate(sentences):
            toks = tokenise(s)
            toks = list(dict.fromkeys(toks)) if unique else toks
            rows = [vectors[vocab[t]] if t in vocab else np.zeros(dim) for t in toks if t in vocab or not known_only]
            if rows:
                out[k] = np.sum(rows, axis=0) if reduce == "sum" else np.mean(rows, axis=0)
        return out
    return {
        "GloVe 6B is lower-case: lower-case each sentence before looking its words up ('A' is not in the "
        "vocabulary, 'a' is)": variant(simple_tokenize),
        "'guitar.' is not a word of the vocabulary: split with simple_tokenize, which cuts punctuation off "
        "('guitar', '.'), not with str.split": variant(lambda s: s.lower().split()),
        "unknown words were counted as zero vectors: average over the words found in the vocabulary only":
            variant(lambda s: simple_tokenize(s.lower()), known_only=False),
        "that is the sum of the word vectors: divide by how many were found (the mean)":
            variant(lambda s: simple_tokenize(s.lower()), reduce="sum"),
        "every occurrence counts: a word used twice ('a man … a guitar') weighs twice, so do not de-duplicate":
            variant(lambda s: simple_tokenize(s.lower()), unique=True),
        "you left out the punctuation tokens ('.', ','): they are words of GloVe's vocabulary and count like any "
        "other": variant(lambda s: [t for t in simple_tokenize(s.lower()) if any(ch.isalnum() for ch in t)]),
        "you scaled each average to length 1: return the mean itself (the cosine ignores its length later)":
            _unit_rows(variant(lambda s: simple_tokenize(s.lower()))),
    }


def _unit_rows(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


def check_average_word_vectors(average_word_vectors: Callable) -> None:
    """Check ``average_word_vectors(sentences, vocab, vectors) -> (n, dim)``: each sentence the mean of
    the vectors of its tokens found in ``vocab`` (lower-cased, split by ``simple_tokenize``), the zero
    vector when none is found — Table 1's "Avg. GloVe embeddings" — against
    :class:`sbertlib.model.word_average.AverageWordEmbeddings` on a hidden table and hidden sentences."""
    require(callable(average_word_vectors), f"pass your function itself, not {type(average_word_vectors).__name__}",
            "check_average_word_vectors(average_word_vectors) — no parentheses after the name")
    vocab, vectors = _hidden_table()
    sentences = list(_HIDDEN_SENTENCES)
    got = call(average_word_vectors, list(sentences), dict(vocab), vectors.copy())
    try:
        got = np.asarray(got.detach().cpu().numpy() if isinstance(got, torch.Tensor) else got, dtype=np.float64)
    except (TypeError, ValueError):
        raise ExerciseError(f"your function returned a {type(got).__name__}, not an (n, dim) array\n"
                            "Hint: stack one vector per sentence, e.g. np.stack(rows)") from None
    want = average_word_vectors_truth(sentences, vocab, vectors).astype(np.float64)
    require(got.shape == want.shape, f"for {len(sentences)} sentences and {vectors.shape[1]}-d vectors you returned "
            f"shape {got.shape}, expected {want.shape}", "one row per sentence, one column per dimension")
    empty = _HIDDEN_SENTENCES.index("Zebras juggle quietly")
    require(bool(np.all(np.isfinite(got[empty]))),
            f"the sentence {sentences[empty]!r}, none of whose words is in the vocabulary, got NaN",
            "the mean of no vectors is undefined: give such a sentence the zero vector")
    require(bool(np.all(np.isfinite(got))), "your vectors hold NaN or inf", "average only the vectors found")
    if np.allclose(got, want, atol=1e-5):
        ok("average_word_vectors is right: the mean of the known words' vectors, the zero vector for none")
        return
    hint = named_slip(got, _average_slips(sentences, vocab, vectors), "",
                      close=lambda a, b: np.shape(a) == np.shape(b) and np.allclose(a, b, atol=1e-5))
    if hint:
        raise ExerciseError(f"your vectors differ from the averages of the known words\nHint: {hint}")
    bad = [sentences[k] for k in range(len(sentences)) if not np.allclose(got[k], want[k], atol=1e-5)]
    raise ExerciseError(f"your vectors differ from the averages of the known words for {len(bad)} of "
                        f"{len(sentences)} hidden sentences (e.g. {bad[0]!r})\nHint: take that sentence by hand: print the "
                        "tokens your function makes of it and which of them it finds in vocab, and compare with what "
                        "the exercise says counts as a word")


# ----------------------------------------------------------------------------- the bi-encoder's seconds
BI_ENCODER_SECONDS = Exercise(
    "bi_encoder_seconds",
    reference=lambda n, sps: n / sps,
    inputs=lambda: [(10_000, 2_000.0), (10_000, 137.0), (1_000, 50.0), (2, 4.0), (123_457, 830.5), (1, 5.0)],
    slips={"a bi-encoder encodes every sentence once — n passes, not n·(n−1)/2: the pairs are compared as vectors":
               lambda n, sps: _reference_pairs(n) / sps if n > 2 else float("nan"),
           "that is in hours: this one asks for seconds": lambda n, sps: n / sps / 3600,
           "upside down: divide the number of sentences by the speed": lambda n, sps: sps / n,
           "divide by the speed, do not multiply": lambda n, sps: n * sps},
    hint="work out n = 3 by hand: how many forward passes does a bi-encoder make for n sentences, and how many "
         "seconds do they take at its speed?",
    ok="bi_encoder_seconds is right: encodings grow as n, pairs as n²",
    returns=_number, compare=_isclose)


def check_bi_encoder_seconds(bi_encoder_seconds: Callable[[int, float], float]) -> None:
    """Check ``bi_encoder_seconds(n, sentences_per_second)``: seconds for a bi-encoder to embed ``n`` sentences,
    each once (the cosine matrix is cheap beside it): it grows as n, where the cross-encoder's pairs grow as n²."""
    BI_ENCODER_SECONDS.check(bi_encoder_seconds)


# ----------------------------------------------------------------------------- centring
def centre_truth(vectors) -> np.ndarray:
    """Every row minus the mean row (the mean over the sentences, per dimension)."""
    x = np.asarray(vectors, dtype=np.float64)
    return x - x.mean(axis=0)


def check_centre(centre: Callable) -> None:
    """Check ``centre(vectors) -> (n, dim)``: every row minus the mean vector of all rows, on hidden
    vectors around a shared offset (so that the usual slips give other numbers, each named)."""
    require(callable(centre), f"pass your function itself, not {type(centre).__name__}",
            "check_centre(centre) — no parentheses after the name")
    for name, x in _anisotropy_cases()[:2]:
        got = call(centre, x.copy())
        try:
            got = np.asarray(got.detach().cpu().numpy() if isinstance(got, torch.Tensor) else got, dtype=np.float64)
        except (TypeError, ValueError):
            raise ExerciseError(f"on {name} your function returned a {type(got).__name__}, not an array") from None
        want = centre_truth(x)
        require(got.shape == want.shape, f"on {name} you returned shape {got.shape}, expected {want.shape}",
                "one row per sentence: subtract the mean vector from every row (broadcasting does it)")
        if np.allclose(got, want, atol=1e-8):
            continue
        unit = x / np.linalg.norm(x, axis=1, keepdims=True)
        slips = {
            "you subtracted each row's own mean (axis=1): subtract the mean vector over the sentences, "
            "x.mean(axis=0), one value per dimension": x - x.mean(axis=1, keepdims=True),
            "you subtracted one number, the mean of every entry: subtract the mean *vector* (axis=0)": x - x.mean(),
            "you normalised the rows first: centre the vectors as they are (anisotropy() normalises afterwards)":
                unit - unit.mean(axis=0),
            "the sign is the wrong way round: each vector minus the mean, not the mean minus the vector": x.mean(axis=0) - x,
            "that is the mean vector itself: subtract it from every row": np.broadcast_to(x.mean(axis=0), x.shape),
        }
        hint = named_slip(got, slips, "after centring, the rows' average is the zero vector: print your result's mean over "
                          "the sentences and see what is left",
                          close=lambda a, b: np.shape(a) == np.shape(b) and np.allclose(a, b, atol=1e-8))
        raise ExerciseError(f"on {name} your centred vectors differ from each row minus the mean vector\nHint: {hint}")
    ok("centre is right: the shared direction (the mean vector) removed from every sentence vector")


# ----------------------------------------------------------------------------- how many times faster
def speedup_truth(n: int, pairs_per_second: float, sentences_per_second: float) -> float:
    """Cross-encoder time for all pairs among ``n`` over bi-encoder time for ``n`` encodings: (n−1)/2 · sps/pps."""
    return (_reference_pairs(n) / pairs_per_second) / (n / sentences_per_second)


SPEEDUP = Exercise(
    "speedup",
    reference=lambda n, pps, sps: speedup_truth(n, pps, sps),
    inputs=lambda: [(10_000, 213.65, 2_000.0), (10_000, 50.0, 50.0), (1_000, 10.0, 400.0), (2, 1.0, 1.0),
                    (40_000, 2_000.0, 1_378.0)],
    slips={"upside down: the cross-encoder's time over the bi-encoder's, so that the answer is large":
               lambda n, pps, sps: 1 / speedup_truth(n, pps, sps),
           "hours divided by seconds: put both times in the same unit first":
               lambda n, pps, sps: speedup_truth(n, pps, sps) / 3600,
           "seconds divided by hours: put both times in the same unit first":
               lambda n, pps, sps: speedup_truth(n, pps, sps) * 3600,
           "count each unordered pair once, n·(n−1)/2": lambda n, pps, sps: n * n / pps / (n / sps),
           "count each unordered pair once, n·(n−1)/2 (n·(n−1) counts each twice)":
               lambda n, pps, sps: n * (n - 1) / pps / (n / sps),
           "that compares one pass with one pass; the cross-encoder needs n·(n−1)/2 passes, the bi-encoder n":
               lambda n, pps, sps: sps / pps},
    hint="work out n = 3 by hand: the time each encoder takes for the same n sentences, both in seconds, and how "
         "many times longer the slower one takes",
    ok=f"speedup is right: it grows with n — {speedup_truth(10_000, 1.0, 1.0):,.1f}× at equal speeds for 10,000 sentences",
    returns=_number, compare=lambda got, want: math.isclose(got, want, rel_tol=1e-6))


def check_speedup(speedup: Callable[[int, float, float], float]) -> None:
    """Check ``speedup(n, pairs_per_second, sentences_per_second)``: how many times longer the cross-encoder
    takes than the bi-encoder to find the most similar pair among ``n`` sentences."""
    SPEEDUP.check(speedup)


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    Exercise('pair_count', probe="_result = [pair_count(n) for n in (0, 1, 2, 3, 10, 10_000, 1_000_000)]"),
    CROSS_ENCODER_HOURS,
    BI_ENCODER_SECONDS,
    SPEEDUP,
    Exercise('anisotropy', probe="""
            _rng = _np.random.default_rng(2021)
            _result = [anisotropy(_rng.normal(size=(7, 5)) + 0.8), anisotropy(_rng.normal(size=(3, 4)))]
            """),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "01.1a": number(
        "How many network passes does a cross-encoder need to find the most similar pair among n = 10,000 sentences?",
        49_995_000, 0,
        "Every unordered pair of two different sentences needs a pass of its own.",
        "Count each pair once and leave out pairs of a sentence with itself.",
        {100_000_000: "n² counts ordered pairs and each sentence with itself.",
         99_990_000: "(A, B) and (B, A) are the same pair: count it once.",
         50_005_000: "A sentence paired with itself is not a pair to score."}),
    "01.1b": choice(
        "What, rather than the speed of one pass, decides the 65 hours?",
        "Pairs grow as n², sentences as n",
        {"The V100 is an old, slow GPU":
            "A GPU ten times faster would still need 6.5 hours. What would ten times more sentences do?",
         "A pair input is twice as long, so each pass is slow":
            "Twice as long is a factor of about two. What grows with n?"}),
    "01.2": choice(
        "A model's cosines all lie between 0.9 and 1.0. What does Spearman's ρ make of that by itself?",
        "Nothing: only the order of the cosines counts",
        {"It must be low: cosines near 1 say every pair is similar":
            "Spearman compares ranks. Does squeezing the cosines into a band change their order?",
         "It must be high, because all the cosines are high":
            "High compared with what? Spearman's ρ compares each pair with the other pairs: would adding 0.5 to every "
            "cosine change ρ?",
         "It is undefined for values in such a narrow range":
            "Ranks exist for any set of numbers, however close together."}),
    "01.3": choice(
        "What was the [CLS] output trained for in BERT's pre-training?",
        "Next-sentence prediction",
        {"Masked-language modelling":
            "Masked tokens are predicted from their own output vectors. Which pre-training task needs one vector "
            "for a whole input?",
         "Sentence similarity":
            "If it were, Table 1 would show it near SBERT, not at 16.50.",
         "Nothing: it is never trained":
            "[CLS] feeds one of BERT's two pre-training objectives. Which one reads a pair of sentences at once?"}),
    "01.4a": choice(
        "How did you measure anisotropy?",
        "The mean cosine over all pairs of different sentences",
        {"The mean length of the sentence vectors":
            "Anisotropy is about directions, and a cosine ignores lengths.",
         "The mean of the whole cosine matrix, diagonal included":
            "What does each sentence compared with itself add to the mean?",
         "Spearman's ρ of the cosines against the gold scores":
            "That is the STS score and needs gold labels; anisotropy needs none."}),
    "01.4b": choice(
        "What did Li et al. (2020) find, and what did they do about it?",
        "Anisotropic, partly from word frequency; a learned map to an isotropic Gaussian",
        {"Isotropic, so cosine works on BERT's vectors out of the box":
            "Then why would they need a fix at all? Re-read section 3's literature.",
         "Anisotropic; they fine-tuned BERT on NLI pairs so that cosine means similarity":
            "That is SBERT's answer. Li et al. learn a map of the vectors, with no labels.",
         "Anisotropic in GPT-2 only; BERT's sentence vectors spread out in all directions":
            "Ethayarajh compared BERT, ELMo and GPT-2; Li et al. looked at BERT's sentence embeddings."}),
    "01.5": choice(
        "Subtracting the mean vector brings unrelated pairs' cosines to about 0. Why is that not yet a good encoder?",
        "It removes a shared direction but teaches nothing about meaning",
        {"It is: that post-processing is exactly what SBERT does":
            "SBERT does not post-process vectors. What does it change instead?",
         "It makes every cosine 0, related pairs' too":
            "Only the shared part is removed; look at the right-hand panel again.",
         "It needs the whole corpus in advance; otherwise it would be":
            "A practical snag, but given the corpus, would the order of the pairs improve much?"}),
    "01.6": choice(
        "What can a logistic regression on averaged BERT vectors do that cosine similarity cannot?",
        "Give each dimension its own weight",
        {"Normalise the vectors to unit length":
            "Cosine normalises too. What does a classifier fit that a cosine holds fixed?",
         "Read the tokens of both sentences together":
            "SentEval's classifier sees one fixed sentence vector, not the tokens."}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
