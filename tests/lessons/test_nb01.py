"""Notebook 01's checks beyond their declarations (test_declared.py runs every slip): right answers written another
way (floats, numpy, torch, float32, math.comb), an input changed in place, what a fallback hint says, and the
notebook's own use of the student's average (averaged_by)."""
import math

import numpy as np
import pytest
import torch

from sbertlib.model.word_average import AverageWordEmbeddings, averaged_by, simple_tokenize
from sbertlib.workbook.lessons import ExerciseError, nb01
from lesson_helpers import IN_PLACE, not_done


def good_average(sentences, vocab, vectors):
    out = torch.zeros(len(sentences), vectors.shape[1])          # torch, float32, from numpy rows
    for k, s in enumerate(sentences):
        rows = [vocab[t] for t in simple_tokenize(s.lower()) if t in vocab]
        if rows:
            out[k] = torch.as_tensor(vectors[rows]).mean(0)
    return out


def torch_anisotropy(v):
    x = torch.nn.functional.normalize(torch.as_tensor(v, dtype=torch.float32), dim=1)
    n = len(x)
    return ((x @ x.T).sum() - n) / (n * (n - 1))                # a 0-d float32 tensor


@pytest.mark.parametrize("check, answers", [
    (nb01.check_pair_count, [lambda n: n * (n - 1) / 2, lambda n: math.comb(n, 2), lambda n: np.int64(n) * (n - 1) // 2,
                             lambda n: sum(range(n))]),
    (nb01.check_cross_encoder_hours, [lambda n, pps: math.comb(n, 2) / pps / 60 / 60,
                                      lambda n, pps: torch.tensor(n * (n - 1) / 2) / (pps * 3600)]),
    (nb01.check_bi_encoder_seconds, [lambda n, sps: np.float32(n) / np.float32(sps)]),
    (nb01.check_speedup, [lambda n, pps, sps: (n - 1) / 2 * sps / pps]),
    (nb01.check_anisotropy, [torch_anisotropy, lambda v: np.array([nb01.anisotropy_truth(v)])]),
    (nb01.check_centre, [lambda x: torch.as_tensor(x, dtype=torch.float32) - torch.as_tensor(x).float().mean(0),
                         lambda x: (x - x.mean(axis=0, keepdims=True)).tolist()]),
    (nb01.check_average_word_vectors, [good_average, lambda s, v, x: AverageWordEmbeddings(v, x, True, "lib").encode(s)]),
])
def test_right_answers_written_another_way_pass(check, answers, capsys):
    for answer in answers:
        check(answer)
    assert capsys.readouterr().out.count("[OK]") == len(answers)


def test_centre_in_place_is_named_though_it_returns_the_right_numbers():
    def centre_in_place(vectors):
        vectors -= vectors.mean(axis=0)
        return vectors
    with pytest.raises(ExerciseError, match=IN_PLACE) as err:
        nb01.check_centre(centre_in_place)
    assert "x - m" in str(err.value) and "x -= m" in str(err.value)


@pytest.mark.parametrize("check, wrong", [
    (nb01.check_cross_encoder_hours, lambda n, pps: 7.0), (nb01.check_bi_encoder_seconds, lambda n, sps: 7.0),
    (nb01.check_speedup, lambda n, pps, sps: 7.0), (nb01.check_pair_count, lambda n: 49_995_000)])
def test_a_wrong_number_no_slip_explains_gets_a_way_to_find_it_not_the_formula(check, wrong):
    """The trial of 2026-11-27 found these fallbacks were the answer in words ("hours = pairs / … / 3600")."""
    with pytest.raises(ExerciseError) as err:
        check(wrong)
    hint = str(err.value).split("Hint:", 1)[1]
    assert "by hand" in hint and "/" not in hint and "divided" not in hint and "3600" not in hint
    assert "expected" not in str(err.value)


@pytest.mark.parametrize("check, wrong, says", [
    (nb01.check_pair_count, lambda n: None, r"returned None, not one number"),
    (nb01.check_anisotropy, lambda v: np.ones(3), r"not one number"),
    (nb01.check_centre, lambda x: x.mean(axis=0), "the mean vector itself"),
    (nb01.check_average_word_vectors, not_done, "not done yet"),
    (nb01.check_centre, lambda x: x * 2, "print your result's mean"),
])
def test_what_comes_back_is_read_and_named(check, wrong, says):
    with pytest.raises(ExerciseError, match=says):
        check(wrong)


def test_averaged_by_encodes_with_the_given_function_over_the_same_table():
    (sentences, vocab, vectors), = nb01.AVERAGE_WORD_VECTORS.inputs()
    words = AverageWordEmbeddings(vocab, vectors, lowercase=True, name="hidden (avg)")
    yours = averaged_by(words, good_average)
    np.testing.assert_allclose(yours.encode(sentences), words.encode(sentences), atol=1e-6)
    assert yours.encode(sentences[0]).shape == (6,) and yours.dim == 6 and yours.name == words.name
    assert averaged_by(words, good_average, name="mine").name == "mine"
    with pytest.raises(ValueError, match="returned shape"):
        averaged_by(words, lambda s, v, x: good_average(s, v, x)[:1]).encode(sentences)


def test_the_reference_means_pairs_of_different_sentences():
    assert nb01.anisotropy_truth(np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 3.0]])) == pytest.approx(1 / 3)
    assert nb01.anisotropy_truth(np.eye(4)) == pytest.approx(0.0)
