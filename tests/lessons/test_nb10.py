"""The checks of notebook 10 (similarity explorer): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb10)."""
from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from sbertlib.model.similarity import similarity_matrix  # noqa: E402
from sbertlib.workbook.lessons import ExerciseError, nb10  # noqa: E402
from lesson_helpers import good_similarity, not_done, unit_rows


def one_measure(measure, fn):
    """The right function, except for ``measure``, which ``fn(a, b)`` computes."""
    return lambda a, b, m="cosine": (fn(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)) if m == measure
                                     else good_similarity(a, b, m))


def _diff(a, b):
    return a[:, None, :] - b[None, :, :]


def test_similarity_right(capsys):
    nb10.check_similarity(good_similarity)
    nb10.check_similarity(lambda a, b, m="cosine": similarity_matrix(a, b, m))   # the library's, tensors
    assert capsys.readouterr().out.count("[OK] similarity is right") == 2


@pytest.mark.parametrize("wrong, hint", [
    (one_measure("cosine", lambda a, b: a @ b.T), "(?s)'cosine'\\) returned .*that is the dot product"),
    (one_measure("cosine", lambda a, b: 1 - good_similarity(a, b)), "cosine distance"),
    (one_measure("cosine", lambda a, b: good_similarity(a, b).T), "rows of a, columns of b"),
    (one_measure("dot", lambda a, b: good_similarity(a, b)), "(?s)'dot'\\) returned .*that is the cosine"),
    (one_measure("euclidean", lambda a, b: np.sqrt((_diff(a, b) ** 2).sum(-1))), "(?s)'euclidean'\\) returned .*MINUS the distance"),
    (one_measure("euclidean", lambda a, b: -(_diff(a, b) ** 2).sum(-1)), "squared distance"),
    (one_measure("euclidean", lambda a, b: good_similarity(a, b, "manhattan")), "that is the Manhattan"),
    (one_measure("euclidean", lambda a, b: good_similarity(unit_rows(a), unit_rows(b), "euclidean")),
     "normalised the vectors first"),
    (one_measure("manhattan", lambda a, b: np.abs(_diff(a, b)).sum(-1)), "(?s)'manhattan'\\) returned .*MINUS the distance"),
    (one_measure("manhattan", lambda a, b: good_similarity(a, b, "euclidean")), "that is the Euclidean"),
    (one_measure("manhattan", lambda a, b: -_diff(a, b).sum(-1)), "absolute value"),
    (one_measure("dot", lambda a, b: a @ b), r"raised ValueError"),
    (one_measure("dot", lambda a, b: None), "returned None"),
    (one_measure("manhattan", lambda a, b: good_similarity(a, b, "manhattan")[:2]), "expected an array of shape \\(5, 4\\)"),
])
def test_similarity_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb10.check_similarity(wrong)


def test_similarity_stub_and_non_function():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb10.check_similarity(not_done)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb10.check_similarity("cosine")


class _Constant:
    """An encoder that gives every sentence the same vector: cosine 1 for any pair."""
    def encode(self, sentences):
        return np.ones((len(sentences), 4))


@pytest.mark.parametrize("a, b", [
    ("A kid plays.", "Kids playing."),                     # kid/kids, plays/playing
    ("The children are running.", "A child runs."),        # irregular plural, doubled consonant
    ("A dog barked loudly.", "The dogs bark."),
    ("A woman slices onions.", "Someone is slicing an onion."),
])
def test_nb10_rejects_pairs_sharing_a_word_up_to_inflection(a, b):
    with pytest.raises(ExerciseError, match="share") as err:
        nb10.check_paraphrase_without_overlap(a, b, _Constant())
    assert "e.g." not in str(err.value) and "puppy" not in str(err.value)  # issue 29: the hint held a passing answer


@pytest.mark.parametrize("a, b", [
    ("The kid is laughing.", "A child giggles."),
    ("A man is playing a guitar.", "Someone strums an instrument."),
    ("A puppy sleeps.", "The young dog naps."),
])
def test_nb10_accepts_a_paraphrase_without_overlap(a, b, capsys):
    assert nb10.check_paraphrase_without_overlap(a, b, _Constant()) == pytest.approx(1.0)
    assert "[OK]" in capsys.readouterr().out


def test_nb10_stemmer_and_stopwords():
    assert nb10.stem("kids") == nb10.stem("kid") == "kid"
    assert nb10.stem("playing") == nb10.stem("plays") == nb10.stem("played") == "play"
    assert nb10.stem("running") == nb10.stem("runs") == "run"
    assert nb10.stem("giggles") == nb10.stem("giggling")
    assert nb10.content_words("Someone is strumming an instrument.") == {"strum", "instrument"}
    assert nb10.shared_content_words("A kid plays.", "Kids playing.") == {"kid": (["kid"], ["kids"]),
                                                                        "play": (["plays"], ["playing"])}


def test_nb10_low_cosine_still_fails():
    class Orthogonal:
        def encode(self, sentences):
            return np.eye(len(sentences), 4)
    with pytest.raises(ExerciseError, match="Cosine"):
        nb10.check_paraphrase_without_overlap("The kid is laughing.", "Stocks fell sharply.", Orthogonal())
