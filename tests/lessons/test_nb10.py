"""The checks of notebook 10 (similarity explorer), beyond what their declarations say (test_declared.py runs every
declared slip): right answers written another way pass, and the word-overlap judge of the paraphrase exercise."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from sbertlib.model.similarity import similarity_matrix
from sbertlib.workbook.lessons import ExerciseError, nb10
from lesson_helpers import good_similarity, not_done


@pytest.mark.parametrize("right", [
    good_similarity,
    lambda a, b, m="cosine": similarity_matrix(torch.as_tensor(a), torch.as_tensor(b), m),   # the library's, float32
    lambda a, b, m="cosine": good_similarity(a, b, m).astype(np.float32).tolist(),           # nested lists
    lambda a, b, m="cosine": (-torch.cdist(torch.as_tensor(a), torch.as_tensor(b), p=2 if m == "euclidean" else 1)
                              if m in ("euclidean", "manhattan") else good_similarity(a, b, m)),
])
def test_similarity_written_another_way_passes(right, capsys):
    nb10.check_similarity(right)
    assert "[OK] similarity is right" in capsys.readouterr().out


def test_similarity_wrong_shapes_stubs_and_non_functions():
    with pytest.raises(ExerciseError, match="raised ValueError"):
        nb10.check_similarity(lambda a, b, m="cosine": np.asarray(a) @ np.asarray(b))
    with pytest.raises(ExerciseError, match="returned None"):
        nb10.check_similarity(lambda a, b, m="cosine": None)
    with pytest.raises(ExerciseError, match="not written yet"):
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
def test_pairs_sharing_a_word_up_to_inflection_are_refused(a, b):
    with pytest.raises(ExerciseError, match="share") as err:
        nb10.check_paraphrase_without_overlap(a, b, _Constant())
    assert "e.g." not in str(err.value) and "puppy" not in str(err.value)  # the hint holds no passing answer


@pytest.mark.parametrize("a, b", [
    ("The kid is laughing.", "A child giggles."),
    ("A man is playing a guitar.", "Someone strums an instrument."),
    ("A puppy sleeps.", "The young dog naps."),
])
def test_a_paraphrase_without_overlap_passes_and_a_low_cosine_fails(a, b, capsys):
    assert nb10.check_paraphrase_without_overlap(a, b, _Constant()) == pytest.approx(1.0)
    assert "[OK]" in capsys.readouterr().out
    with pytest.raises(ExerciseError, match="Cosine is only"):
        nb10.check_paraphrase_without_overlap(a, b, type("Orthogonal", (), {"encode": lambda s, x: np.eye(2, 4)})())


def test_the_stemmer_and_stop_words():
    assert nb10.stem("kids") == nb10.stem("kid") == "kid"
    assert nb10.stem("playing") == nb10.stem("plays") == nb10.stem("played") == "play"
    assert nb10.stem("running") == nb10.stem("runs") == "run" and nb10.stem("children") == "child"
    assert nb10.stem("giggles") == nb10.stem("giggling") and nb10.stem("classes") == "class"
    assert nb10.content_words("Someone is strumming an instrument.") == {"strum": ["strumming"],
                                                                        "instrument": ["instrument"]}
