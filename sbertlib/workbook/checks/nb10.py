"""Self-checks for notebook 10 (the similarity explorer).

Exercise 1 asks for two sentences that share **no content word** yet get a high cosine. "Content word"
is judged after lower-casing, dropping stop words (function words: articles, pronouns, auxiliaries,
prepositions, conjunctions) and reducing each word to a crude stem with a small suffix stripper, so that
inflections count as the same word: *kid / kids*, *play / plays / playing / played*, *child / children*.
"""
from __future__ import annotations

import re

import numpy as np

from . import ok, require

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
