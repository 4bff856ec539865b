"""Self-checks for notebook 10 (similarity explorer): four measures, a paraphrase sharing no content word, a guess."""
import re

import numpy as np

from . import Exercise, _guarded, as_array as _f64, guard, ok, require, unit as _unit, within


def similarity_truth(a, b, measure: str = "cosine") -> np.ndarray:
    """The library's :func:`~sbertlib.model.similarity.similarity_matrix` in float64: (n, m), larger = more similar."""
    import torch
    from ...model.similarity import similarity_matrix
    return similarity_matrix(torch.as_tensor(_f64(a)), torch.as_tensor(_f64(b)), measure).numpy()


def _measure_cases() -> list[tuple]:
    """Float32 rows (as ``encode`` returns them) of very different lengths, a (5, 6) and b (4, 6), per measure."""
    rng = np.random.default_rng(10)
    a, b = (rng.standard_normal((n, 6)) * rng.uniform(0.2, 6.0, size=(n, 1)) + 0.3 for n in (5, 4))
    return [(a.astype(np.float32), b.astype(np.float32), m) for m in ("cosine", "dot", "euclidean", "manhattan")]


def _only(measure: str, slip):
    """The right function, but for ``measure``, which ``slip(a, b)`` computes (a string: what that measure gives)."""
    wrong = (lambda a, b: similarity_truth(a, b, slip)) if isinstance(slip, str) else slip
    return lambda a, b, m="cosine": wrong(a, b) if m == measure else similarity_truth(a, b, m)


SIMILARITY = Exercise("similarity", reference=similarity_truth, inputs=_measure_cases, slips={
    "that is the dot product: divide by both lengths (normalise the rows first)": _only("cosine", "dot"),
    "only a's rows normalised: a cosine divides by both lengths": _only("cosine", lambda a, b: _unit(a) @ _f64(b).T),
    "normalised per dimension (axis=0), not per row": _only("cosine", lambda a, b: _unit(a, 0) @ _unit(b, 0).T),
    "that is the cosine: the dot product keeps the vectors' lengths": _only("dot", "cosine"),
    "a distance is smaller for closer vectors: return MINUS the distance (larger = more similar)":
        lambda a, b, m: similarity_truth(a, b, m) * (-1 if m in ("euclidean", "manhattan") else 1),
    "you averaged over the dimensions: a distance sums them":
        lambda a, b, m: similarity_truth(a, b, m) / np.shape(a)[1] ** {"euclidean": .5, "manhattan": 1}.get(m, 0),
    "that is the squared distance: take its square root":
        _only("euclidean", lambda a, b: -similarity_truth(a, b, "euclidean") ** 2),
    "that is the Manhattan (L1) distance: Euclidean is the root of the summed squares": _only("euclidean", "manhattan"),
    "you normalised the vectors first: measure the distance between the vectors as they are":
        _only("euclidean", lambda a, b: similarity_truth(_unit(a), _unit(b), "euclidean")),
    "that is the Euclidean (L2) distance: Manhattan sums the absolute differences": _only("manhattan", "euclidean"),
    "you forgot the absolute value: Manhattan sums |a − b|":
        _only("manhattan", lambda a, b: _f64(b).sum(1) - _f64(a).sum(1)[:, None])},
    compare=within(1e-4, 1e-4), hint="out[i, j] scores a[i] against b[j]: cosine = the dot product of the unit rows, "
                                     "dot = the plain one, euclidean and manhattan = minus the L2 and the L1 distance",
    ok="similarity is right for cosine, dot, euclidean and manhattan — larger is more similar for all four")
check_similarity = _guarded(SIMILARITY.check)


STOPWORDS = frozenset("""a an the this that these those some any each every all both either neither no not nor is are
was were be been being am do does did doing done has have had having will would shall should can could may might must
i me my mine myself you your yours yourself he him his himself she her hers herself it its itself we us our ours
ourselves they them their theirs themselves one someone somebody something anyone anybody anything everyone everybody
everything nobody nothing who whom whose which what there here of in on at to for from by with without about above
below over under into onto off out up down through across along around between among against during before after
behind near upon via and or but so yet if then than as because while when where how why also too very just
only""".split())
IRREGULAR = dict(pair.split(":") for pair in """children:child men:man women:woman people:person mice:mouse feet:foot
teeth:tooth geese:goose ran:run sat:sit ate:eat went:go gone:go saw:see seen:see took:take taken:take made:make
rode:ride ridden:ride swam:swim sang:sing sung:sing""".split())


def stem(word: str) -> str:
    """A crude stem (kids → kid; playing, plays, played → play; running → run; children → child)."""
    w = word.lower()
    if w in IRREGULAR or (len(w) > 4 and w.endswith(("ies", "ied"))):
        return IRREGULAR.get(w) or w[:-3] + "y"
    if w.endswith("sses") or (len(w) > 3 and w[-1] == "s" and w[-2:] not in ("ss", "us", "is")):
        w = w[:-2] if w.endswith("sses") else w[:-1]
    for suffix, shortest in (("ingly", 3), ("edly", 3), ("ing", 3), ("ed", 3), ("ly", 4), ("er", 4), ("est", 4)):
        if w.endswith(suffix) and len(w) - len(suffix) >= shortest:
            w = w[:-len(suffix)]
            w = w[:-1] if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz" else w  # runn(ing) → run
            break
    return w[:-1] if len(w) > 3 and w.endswith("e") else w  # giggle / giggl(ing)


def content_words(sentence: str) -> dict[str, list[str]]:
    """Each content word's stem (lower-cased, stop words dropped) → the sentence's words that give it."""
    found: dict[str, list[str]] = {}
    for w in (w for w in re.findall(r"[a-z0-9]+", sentence.lower()) if w not in STOPWORDS):
        found.setdefault(stem(w), []).append(w)
    return found


def check_paraphrase_without_overlap(a: str, b: str, encoder, threshold: float = 0.6) -> float:
    """Pass when ``a`` and ``b`` share no content word (up to inflection), yet ``encoder`` scores them ≥ threshold."""
    require(isinstance(a, str) and isinstance(b, str) and a.strip() and b.strip(), "Give two non-empty sentences.")
    wa, wb = content_words(a), content_words(b)
    shared = "; ".join("/".join(dict.fromkeys(wa[s] + wb[s])) for s in sorted(wa.keys() & wb.keys()))
    require(not shared, f"The sentences share the content word(s) {shared} (inflections count as the same word).",
            "Keep the scene and change every shared word: another word for each thing and each action, or say it "
            "another way round — a content word left in common is what word overlap would see.")
    u, v = encoder.encode([a, b])
    cos = float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))
    require(cos >= threshold, f"Cosine is only {cos:.2f} (needs ≥ {threshold}).",
            "Make the two sentences mean the same thing, in different words.")
    ok(f"no shared content word, cosine {cos:.2f} — meaning, not word overlap")
    return cos


def check_higher_model(answer: str, scores: dict[str, float]) -> None:
    """The warm-up's prediction (which model gives an unrelated pair the highest cosine): told, never failed."""
    require(isinstance(answer, str) and answer in scores, f"Answer with one of the model names: {list(scores)}.",
            "your prediction, before you look at the scores")
    best = max(scores, key=scores.get)
    print(f"[OK] your prediction held: {answer!r} gives" if answer == best else f"[prediction] {best!r} gives",
          f"this unrelated pair the highest cosine ({scores[best]:.3f})" + ("" if answer == best else
          f", not {answer!r} ({scores[answer]:.3f})") + ": a high cosine for an unrelated pair means the model's "
          "vectors crowd into a narrow cone, whatever the sentence says (anisotropy, notebook 01) — ranking can "
          "still work, absolute values mislead")


EXERCISES = (SIMILARITY, Exercise('a', probe=None), Exercise('b', probe=None), Exercise('answer', probe=None))

guard(globals())   # last: every check above shows its own failures as an ExerciseError
