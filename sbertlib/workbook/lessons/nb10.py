"""Self-checks for notebook 10 (the similarity explorer).

Exercise 2 asks for two sentences that share **no content word** yet get a high cosine. "Content word"
is judged after lower-casing, dropping stop words (function words: articles, pronouns, auxiliaries,
prepositions, conjunctions) and reducing each word to a crude stem with a small suffix stripper, so that
inflections count as the same word: *kid / kids*, *play / plays / playing / played*, *child / children*.

Exercise 1 (:func:`check_similarity`, before the explorer) asks for the explorer's four measures as one function, the distances
negated so that larger always means more similar; the explorer then scores with it.
"""
from __future__ import annotations

import re

import numpy as np

from . import guard, Exercise, ExerciseError, ok, require
from .questions import choice

STOPWORDS = frozenset("""
a an the this that these those some any each every all both either neither no not nor
is are was were be been being am do does did doing done has have had having will would shall should
can could may might must
i me my mine myself you your yours yourself he him his himself she her hers herself it its itself
we us our ours ourselves they them their theirs themselves one someone somebody something anyone
anybody anything everyone everybody everything nobody nothing who whom whose which what there here
of in on at to for from by with without about above below over under into onto off out up down
through across along around between among against during before after behind near upon via
and or but so yet if then than as because while when where how why also too very just only
""".split())

IRREGULAR = {"children": "child", "men": "man", "women": "woman", "people": "person", "mice": "mouse",
             "feet": "foot", "teeth": "tooth", "geese": "goose", "ran": "run", "sat": "sit", "ate": "eat",
             "went": "go", "gone": "go", "saw": "see", "seen": "see", "took": "take", "taken": "take",
             "made": "make", "rode": "ride", "ridden": "ride", "swam": "swim", "sang": "sing", "sung": "sing"}


def stem(word: str) -> str:
    """A crude stem: irregular forms looked up, then plural/verb/adverb suffixes stripped.

    ``stem("kids") == stem("kid")``, ``stem("playing") == stem("plays") == stem("played") == "play"``,
    ``stem("running") == "run"``, ``stem("giggles") == stem("giggling")``. It over- and under-stems
    now and then; it only has to catch the usual inflections.
    """
    w = word.lower()
    if w in IRREGULAR:
        return IRREGULAR[w]
    if len(w) > 4 and w.endswith(("ies", "ied")):
        return w[:-3] + "y"
    if w.endswith("sses"):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix, shortest in (("ingly", 3), ("edly", 3), ("ing", 3), ("ed", 3), ("ly", 4), ("er", 4), ("est", 4)):
        if w.endswith(suffix) and len(w) - len(suffix) >= shortest:
            w = w[:-len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":  # running → runn → run
                w = w[:-1]
            break
    if len(w) > 3 and w.endswith("e"):  # giggle / giggl(ing), slice / slic(ing)
        w = w[:-1]
    return w


def content_words(sentence: str) -> set[str]:
    """Stems of the sentence's words that are not stop words (lower-cased)."""
    return {stem(w) for w in re.findall(r"[a-z0-9]+", sentence.lower()) if w not in STOPWORDS}


def shared_content_words(a: str, b: str) -> dict[str, tuple[list[str], list[str]]]:
    """Stems the two sentences share, each with the words of ``a`` and of ``b`` that produced it."""
    def by_stem(sentence):
        found: dict[str, list[str]] = {}
        for w in re.findall(r"[a-z0-9]+", sentence.lower()):
            if w not in STOPWORDS:
                found.setdefault(stem(w), []).append(w)
        return found
    sa, sb = by_stem(a), by_stem(b)
    return {s: (sa[s], sb[s]) for s in sorted(sa.keys() & sb.keys())}


def check_paraphrase_without_overlap(a: str, b: str, encoder, threshold: float = 0.6) -> float:
    """Pass when ``a`` and ``b`` share no content word (up to inflection) yet the encoder scores them ≥ ``threshold``."""
    require(isinstance(a, str) and isinstance(b, str) and a.strip() and b.strip(),
            "Give two non-empty sentences (strings).")
    shared = shared_content_words(a, b)
    words = "; ".join(f"{'/'.join(dict.fromkeys(wa + wb))}" for wa, wb in shared.values())
    require(not shared, f"The sentences share the content word(s) {words} (inflections count as the same word).",
            "Keep the scene and change every shared word: another word for each thing and each action, or say it "
            "another way round — a content word left in common is what word overlap would see.")
    u, v = encoder.encode([a, b])
    cos = float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))
    require(cos >= threshold, f"Cosine is only {cos:.2f} (needs ≥ {threshold}).",
            "Make the two sentences mean the same thing, in different words.")
    ok(f"no shared content word, cosine {cos:.2f} — meaning, not word overlap")
    return cos


def check_higher_model(answer: str, scores: dict[str, float]) -> None:
    """The warm-up's prediction: which model gives an unrelated pair the highest cosine. Any model name is an
    answer (a prediction is not graded right or wrong); the check says whether it held, and why the winner
    scores high. Anything but one of the model names is refused."""
    require(isinstance(answer, str) and answer in scores,
            f"Answer with one of the model names: {list(scores)}.", "your prediction, before you look at the scores")
    best = max(scores, key=scores.get)
    why = ("a high cosine for an unrelated pair means the model's vectors crowd into a narrow cone, whatever "
           "the sentence says (anisotropy, notebook 01) — ranking can still work, absolute values mislead")
    if answer == best:
        ok(f"your prediction held: {answer!r} gives this unrelated pair the highest cosine ({scores[answer]:.3f}): {why}")
    else:
        print(f"[prediction] {best!r} gives this unrelated pair the highest cosine ({scores[best]:.3f}), not "
              f"{answer!r} ({scores[answer]:.3f}): {why}")


# ----------------------------------------------------------------------------- the explorer's measures
MEASURE_NAMES = ("cosine", "dot", "euclidean", "manhattan")


def similarity_truth(a, b, measure: str = "cosine") -> np.ndarray:
    """:func:`sbertlib.model.similarity.similarity_matrix` as float64 numpy: ``(n, m)``, larger = more similar
    (the distances negated)."""
    import torch

    from ...model.similarity import similarity_matrix
    return similarity_matrix(torch.as_tensor(np.asarray(a, dtype=np.float64)),
                             torch.as_tensor(np.asarray(b, dtype=np.float64)), measure).numpy()


def _measure_case(seed: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Float32 rows (as ``encode`` returns them) of very different lengths: a (5, 6), b (4, 6)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((5, 6)) * rng.uniform(0.2, 6.0, size=(5, 1)) + 0.3
    b = rng.standard_normal((4, 6)) * rng.uniform(0.2, 6.0, size=(4, 1)) + 0.3
    return a.astype(np.float32), b.astype(np.float32)


def _f64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _unit(x) -> np.ndarray:
    return _f64(x) / np.linalg.norm(_f64(x), axis=1, keepdims=True)


def _diff(a, b) -> np.ndarray:
    """``(n, m, dim)``: a[i] − b[j]."""
    return _f64(a)[:, None, :] - _f64(b)[None, :, :]


def _l2(a, b) -> np.ndarray:
    return np.sqrt((_diff(a, b) ** 2).sum(-1))


def _l1(a, b) -> np.ndarray:
    return np.abs(_diff(a, b)).sum(-1)


def _scores(got, what: str) -> np.ndarray:
    """The student's scores as float64 numpy (from an array, a tensor or nested lists)."""
    require(got is not None, f"{what} returned None", "return the (n, m) matrix")
    try:
        return np.asarray(got.detach().cpu().numpy() if hasattr(got, "detach") else got, dtype=np.float64)
    except (TypeError, ValueError):
        raise ExerciseError(f"{what} returned a {type(got).__name__}, not an array") from None


def _only(measure: str, slip):
    """A slip of ``measure`` alone: on another measure's input it names nothing."""
    return lambda a, b, m: slip(a, b) if m == measure else None


SIMILARITY = Exercise(
    "similarity",
    reference=similarity_truth,
    inputs=lambda: [(*_measure_case(), measure) for measure in MEASURE_NAMES],
    # {message naming the mistake: the function written with that mistake, for the measure it concerns}
    slips={"rows of a, columns of b: out[i, j] compares a[i] with b[j]":
               lambda a, b, m: similarity_truth(a, b, m).T,
           "that is the dot product: divide by both lengths (normalise the rows first)":
               _only("cosine", lambda a, b: _f64(a) @ _f64(b).T),
           "that is the cosine distance 1 − cos; the explorer wants the similarity, cos itself":
               _only("cosine", lambda a, b: 1 - _unit(a) @ _unit(b).T),
           "that is the cosine: the dot product uses the vectors as they are, lengths included":
               _only("dot", lambda a, b: _unit(a) @ _unit(b).T),
           "a distance is smaller for closer vectors: return MINUS the distance, so that larger = more similar":
               lambda a, b, m: _l2(a, b) if m == "euclidean" else _l1(a, b) if m == "manhattan" else None,
           "that is the squared distance: take the square root (and negate it)":
               _only("euclidean", lambda a, b: -(_l2(a, b) ** 2)),
           "that is the Manhattan (L1) distance: Euclidean is the square root of the sum of squared differences":
               _only("euclidean", lambda a, b: -_l1(a, b)),
           "you normalised the vectors first: measure the distance between the vectors as they are":
               _only("euclidean", lambda a, b: -_l2(_unit(a), _unit(b))),
           "that is the Euclidean (L2) distance: Manhattan sums the absolute differences":
               _only("manhattan", lambda a, b: -_l2(a, b)),
           "you forgot the absolute value: Manhattan sums |a − b| over the dimensions":
               _only("manhattan", lambda a, b: -_diff(a, b).sum(-1))},
    hint="cosine: normalise the rows of a and b to length 1, then a @ bᵀ; dot: a @ bᵀ, the vectors as they are; "
         "euclidean: minus the square root of the summed squared differences of a[i] and b[j]; manhattan: minus the "
         "summed absolute differences of a[i] and b[j]",
    ok="similarity is right for cosine, dot, euclidean and manhattan — larger is more similar for all four",
    compare=lambda got, want: np.shape(got) == np.shape(want) and bool(np.allclose(got, want, atol=1e-4, rtol=1e-5)),
    returns=_scores)


def check_similarity(similarity) -> None:
    """Check ``similarity(a, b, measure) -> (n, m)`` for ``cosine``, ``dot``, ``euclidean`` and ``manhattan``
    (the distances negated: larger = more similar) against :func:`sbertlib.model.similarity.similarity_matrix`,
    on hidden float32 rows of very different lengths."""
    SIMILARITY.check(similarity)


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    SIMILARITY,
    Exercise('a', probe=None),
    Exercise('b', probe=None),  # any paraphrase pair without shared words is right
    Exercise('answer', probe=None),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "10.1": choice(
        "Without stemming, which pair would a word-overlap check wrongly count as sharing no words?",
        "\"A kid plays.\" / \"Kids playing.\"",
        {"\"A man plays guitar.\" / \"A man plays a guitar.\"":
            "Those share words even as raw strings.",
         "\"A cat sleeps.\" / \"The stock market fell.\"":
            "Those share no words with or without stemming: no stemming needed to see it."}),
    "10.2": choice(
        "The raw network gives an unrelated pair a high cosine. What does that say?",
        "Its vectors lie in a narrow cone",
        {"The network ranks pairs badly":
            "Ranking needs only the order of the cosines. Would a high level alone tell you it?",
         "The two sentences are related after all":
            "Unrelated by construction; look at where all its vectors lie (notebook 01)."}),
    "10.3": choice(
        "When do cosine and (negative) Euclidean distance rank pairs identically?",
        "For unit-length vectors",
        {"Always, for any vectors":
            "Long vectors are far from everything by Euclidean distance but not by cosine.",
         "When the vectors are centred":
            "Centring moves every vector, changing both lengths and directions: lengths still differ afterwards. "
            "When does distance depend on the angle only?",
         "Never: they measure different things":
            "Write |u − v|² for vectors of length 1."}),
    "10.4": choice(
        "Why can semantic search answer a query with one encoding and one matrix product?",
        "The corpus vectors were computed once, in advance",
        {"The query is compared with a sample of the corpus":
            "The matrix product covers every corpus sentence.",
         "A cross-encoder pre-computed every pair's score":
            "A cross-encoder has no per-sentence vectors to pre-compute: it runs once per (query, sentence) pair."}),
    "10.5": choice(
        "Offline, what differs between the 'raw' and the 'trained on NLI' model?",
        "Only training: notebook 03's MNRL run",
        {"The architecture: the trained one is larger":
            "Both are the same network. What happened to one of them?",
         "The trained one is all-MiniLM-L6-v2":
            "MiniLM is the reference, never fine-tuned here.",
         "The pooling: CLS against mean":
            "Both pool by the mean."}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
