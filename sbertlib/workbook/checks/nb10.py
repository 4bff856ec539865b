"""Self-checks for notebook 10 (the similarity explorer)."""
from __future__ import annotations

import re

import numpy as np

from . import ok, require

STOPWORDS = frozenset("a an the is are was were be been of in on at to for and or but with by from "
                      "it its this that these those as into over under his her their our your my".split())


def content_words(sentence: str) -> set[str]:
    """Lower-cased words of a sentence, without stop words."""
    return {w for w in re.findall(r"[a-z0-9]+", sentence.lower()) if w not in STOPWORDS}


def check_paraphrase_without_overlap(a: str, b: str, encoder, threshold: float = 0.6) -> float:
    """Pass when ``a`` and ``b`` share no content word yet the encoder scores them ≥ ``threshold``."""
    require(isinstance(a, str) and isinstance(b, str) and a.strip() and b.strip(),
            "Give two non-empty sentences (strings).")
    shared = content_words(a) & content_words(b)
    require(not shared, f"The sentences share the word(s) {sorted(shared)}.",
            "Rephrase with synonyms, e.g. a puppy sleeps / a young dog naps.")
    u, v = encoder.encode([a, b])
    cos = float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))
    require(cos >= threshold, f"Cosine is only {cos:.2f} (needs ≥ {threshold}).",
            "Make the two sentences mean the same thing, in different words.")
    ok(f"no shared content word, cosine {cos:.2f} — meaning, not word overlap")
    return cos


def check_higher_model(answer: str, scores: dict[str, float]) -> None:
    """Pass when ``answer`` names the model that gave the higher score in ``scores``."""
    require(isinstance(answer, str) and answer in scores,
            f"Answer with one of the model names: {list(scores)}.")
    best = max(scores, key=scores.get)
    require(answer == best, f"{answer!r} scored {scores[answer]:.3f}, but another model scored higher.",
            "Look at comparer.scores.")
    ok(f"{answer!r} gives this unrelated pair the higher cosine ({scores[answer]:.3f})")
