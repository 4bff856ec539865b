"""The checks of notebook 01 (broken baselines): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb01)."""
from __future__ import annotations

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")

from sbertlib.model.word_average import AverageWordEmbeddings, averaged_by, simple_tokenize  # noqa: E402
from sbertlib.workbook.lessons import ExerciseError, nb01  # noqa: E402
from lesson_helpers import IN_PLACE, not_done, unit_rows


# ============================================================================= 01 · average_word_vectors
def good_average(sentences, vocab, vectors):
    out = np.zeros((len(sentences), vectors.shape[1]), dtype=np.float32)
    for k, s in enumerate(sentences):
        rows = [vocab[t] for t in simple_tokenize(s.lower()) if t in vocab]
        if rows:
            out[k] = np.asarray(vectors[rows]).mean(axis=0)
    return out


def average_with(tokenise=lambda s: simple_tokenize(s.lower()), known_only=True, reduce=np.mean, unique=False,
                 empty=np.zeros):
    def average(sentences, vocab, vectors):
        out = []
        for s in sentences:
            toks = tokenise(s)
            toks = list(dict.fromkeys(toks)) if unique else toks
            rows = [vectors[vocab[t]] if t in vocab else np.zeros(vectors.shape[1]) for t in toks
                    if t in vocab or not known_only]
            out.append(reduce(rows, axis=0) if rows else empty(vectors.shape[1]) * (np.nan if empty is np.ones else 1))
        return np.stack(out)
    return average


def test_average_word_vectors_right(capsys):
    nb01.check_average_word_vectors(good_average)
    nb01.check_average_word_vectors(lambda s, v, x: AverageWordEmbeddings(v, x, True, "lib").encode(s))
    nb01.check_average_word_vectors(lambda s, v, x: torch.as_tensor(good_average(s, v, x)))
    assert capsys.readouterr().out.count("[OK] average_word_vectors is right") == 3


@pytest.mark.parametrize("wrong, hint", [
    (average_with(tokenise=simple_tokenize), "lower-case each sentence"),
    (average_with(tokenise=lambda s: s.lower().split()), "not with str.split"),
    (average_with(known_only=False), "unknown words were counted as zero vectors"),
    (average_with(reduce=np.sum), "that is the sum"),
    (average_with(unique=True), "every occurrence counts"),
    (average_with(empty=np.ones), "got NaN"),
    (lambda s, v, x: good_average(s, v, x).mean(axis=0), "expected \\(4, 6\\)"),
    (lambda s, v, x: good_average(s, v, x) + 1, "for 4 of 4 hidden sentences"),
    (lambda s, v, x: [[1, 2], [3]], "not an \\(n, dim\\) array"),
])
def test_average_word_vectors_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_average_word_vectors(wrong)


def test_average_word_vectors_stub_and_non_function():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb01.check_average_word_vectors(not_done)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb01.check_average_word_vectors("average_word_vectors")


def test_averaged_by_encodes_with_the_given_function_over_the_same_table():
    vocab, vectors = nb01._hidden_table()
    words = AverageWordEmbeddings(vocab, vectors, lowercase=True, name="hidden (avg)")
    yours = averaged_by(words, good_average)
    sentences = list(nb01._HIDDEN_SENTENCES)
    np.testing.assert_array_equal(yours.encode(sentences), words.encode(sentences))
    assert yours.encode(sentences[0]).shape == (6,) and yours.dim == 6
    assert yours.name == words.name and yours.info["backbone"] == "hidden (avg)"
    assert averaged_by(words, good_average, name="mine").name == "mine"
    with pytest.raises(ValueError, match="returned shape"):
        averaged_by(words, lambda s, v, x: good_average(s, v, x)[:1]).encode(sentences)


# ============================================================================= 01 · the warm-up's two new functions
def test_bi_encoder_seconds_right_stub_and_slips(capsys):
    nb01.check_bi_encoder_seconds(lambda n, sps: n / sps)
    assert "[OK] bi_encoder_seconds is right" in capsys.readouterr().out
    for wrong, hint in [(lambda n, sps: n * (n - 1) / 2 / sps, "encodes every sentence once"),
                        (lambda n, sps: n / sps / 3600, "that is in hours"),
                        (lambda n, sps: sps / n, "upside down"),
                        (lambda n, sps: n * sps, "do not multiply"),
                        (lambda n, sps: None, "return a number")]:
        with pytest.raises(ExerciseError, match=hint):
            nb01.check_bi_encoder_seconds(wrong)
    with pytest.raises(ExerciseError, match="not done yet"):
        nb01.check_bi_encoder_seconds(not_done)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb01.check_bi_encoder_seconds(5.0)


def test_speedup_right_stub_and_slips(capsys):
    def hours(n, pps):
        return n * (n - 1) // 2 / pps / 3600

    nb01.check_speedup(lambda n, pps, sps: hours(n, pps) * 3600 / (n / sps))
    assert "[OK] speedup is right" in capsys.readouterr().out
    for wrong, hint in [(lambda n, pps, sps: (n / sps) / (hours(n, pps) * 3600), "upside down"),
                        (lambda n, pps, sps: hours(n, pps) / (n / sps), "same unit"),
                        (lambda n, pps, sps: n * n / pps / (n / sps), "each unordered pair once"),
                        (lambda n, pps, sps: sps / pps, "one pass with one pass")]:
        with pytest.raises(ExerciseError, match=hint):
            nb01.check_speedup(wrong)
    with pytest.raises(ExerciseError, match="not done yet"):
        nb01.check_speedup(not_done)


# ============================================================================= 01 · centre
def test_centre_right(capsys):
    nb01.check_centre(lambda x: x - x.mean(axis=0))
    nb01.check_centre(nb01.centre_truth)
    assert capsys.readouterr().out.count("[OK] centre is right") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda x: x - x.mean(axis=1, keepdims=True), "each row's own mean"),
    (lambda x: x - x.mean(), "one number"),
    (lambda x: unit_rows(x) - unit_rows(x).mean(axis=0), "normalised the rows first"),
    (lambda x: x.mean(axis=0) - x, "the wrong way round"),
    (lambda x: np.broadcast_to(x.mean(axis=0), x.shape), "the mean vector itself"),
    (lambda x: x.mean(axis=0), "expected"),
    (lambda x: x * 2, "the rows. average is the zero vector"),  # no slip named: a way to see it, not the answer
])
def test_centre_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_centre(wrong)


def test_centre_stub_and_non_function():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb01.check_centre(not_done)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb01.check_centre(np.zeros(3))


def test_nb01_pair_count_right(capsys):
    nb01.check_pair_count(lambda n: n * (n - 1) // 2)
    nb01.check_pair_count(lambda n: n * (n - 1) / 2)  # a float with the right value is fine
    assert "49,995,000" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda n: n * n, "ordered"),
    (lambda n: n * (n - 1), "symmetric"),
    (lambda n: n * (n + 1) // 2, r"n·\(n\+1\)/2 includes each sentence paired with itself"),  # got n²'s hint
    (lambda n: n * (n + 1) / 2, r"n·\(n\+1\)/2 includes"),
    (lambda n: n * n / 2, r"n²/2 halves the ordered pairs, but n² still holds each sentence paired with itself"),
    (lambda n: n ** 2 // 2, r"n²//2 halves"),
    (lambda n: 49_995_000, None),  # the one number, hard-coded
    (lambda n: None, None),
])
def test_nb01_pair_count_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_pair_count(wrong)


def test_nb01_hours_right(capsys):
    nb01.check_cross_encoder_hours(lambda n, pps: n * (n - 1) / 2 / pps / 3600)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda n, pps: n * (n - 1) / 2 / pps, "seconds"),
    (lambda n, pps: n * (n - 1) / 2 / pps / 60, "minutes"),
    (lambda n, pps: n * n / pps / 3600, "n²"),
    (lambda n, pps: pps * 3600 / (n * (n - 1) / 2) if n > 1 else pps * 3600, "upside down"),
    (lambda n, pps: n * (n - 1) / 2 / pps // 3600, "rounded down to whole hours"),
    (lambda n, pps: 65.0, None),
    (lambda n, pps: NotImplemented, None),
])
def test_nb01_hours_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_cross_encoder_hours(wrong)


def good_anisotropy(v):
    x = np.asarray(v, dtype=float)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = x @ x.T
    n = len(x)
    return (cos.sum() - n) / (n * (n - 1))


def test_nb01_anisotropy_right(capsys):
    nb01.check_anisotropy(good_anisotropy)
    nb01.check_anisotropy(lambda v: torch.tensor(good_anisotropy(v)))  # a 0-d tensor is accepted too
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb01_anisotropy_truth():
    assert nb01.anisotropy_truth(np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 3.0]])) == pytest.approx(1 / 3)
    assert nb01.anisotropy_truth(np.eye(4)) == pytest.approx(0.0)


def _unit(v):
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.mark.parametrize("wrong, hint", [
    (lambda v: (_unit(v) @ _unit(v).T).mean(), "diagonal"),                      # each sentence with itself
    (lambda v: (v @ v.T)[~np.eye(len(v), dtype=bool)].mean(), "dot product"),    # not normalised
    (lambda v: good_anisotropy(v - v.mean(axis=0)), "centred"),                  # measures the fixed vectors
    (lambda v: ((_unit(v) @ _unit(v).T).sum() - len(v)) / len(v) ** 2, r"divided by n² = \d+: there are n·\(n−1\)"),
    (lambda v: np.triu(_unit(v) @ _unit(v).T, 1).sum() / (len(v) * (len(v) - 1)), r"summed each pair once \(i < j\)"),
    (lambda v: 0.9, None),
    (lambda v: None, None),
])
def test_nb01_anisotropy_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_anisotropy(wrong)


def centre_in_place(vectors):
    vectors -= vectors.mean(axis=0)  # the right numbers, returned — and the caller's vectors centred too
    return vectors


def test_centre_in_place_is_refused_though_it_returns_the_right_numbers():
    with pytest.raises(ExerciseError, match=IN_PLACE) as err:
        nb01.check_centre(centre_in_place)
    assert "x - m" in str(err.value) and "x -= m" in str(err.value)
    nb01.check_centre(lambda x: x - x.mean(axis=0))  # the same numbers, the input left alone: passes


@pytest.mark.parametrize("check, wrong", [
    (nb01.check_cross_encoder_hours, lambda n, pps: 7.0),
    (nb01.check_bi_encoder_seconds, lambda n, sps: 7.0),
    (nb01.check_speedup, lambda n, pps, sps: 7.0),
])
def test_a_wrong_number_no_slip_explains_gets_a_way_to_find_it_not_the_formula(check, wrong):
    """The trial of 2026-11-27 found these fallbacks were the answer in words ("hours = pairs / … / 3600")."""
    with pytest.raises(ExerciseError) as err:
        check(wrong)
    hint = str(err.value).split("Hint:", 1)[1]
    assert "by hand" in hint and "/" not in hint and "divided" not in hint and "3600" not in hint


def test_average_word_vectors_without_punctuation_is_named():
    """The trial of 2026-11-27: dropping '.' and ',' got only the general hint."""
    from sbertlib.model.word_average import simple_tokenize

    def no_punctuation(sentences, vocab, vectors):
        out = np.zeros((len(sentences), vectors.shape[1]))
        for k, s in enumerate(sentences):
            rows = [vectors[vocab[t]] for t in simple_tokenize(s.lower()) if t in vocab and any(c.isalnum() for c in t)]
            if rows:
                out[k] = np.mean(rows, axis=0)
        return out
    with pytest.raises(ExerciseError, match="left out the punctuation tokens"):
        nb01.check_average_word_vectors(no_punctuation)


def test_average_word_vectors_scaled_to_length_one_is_named():
    """The third trial (2026-11-27): normalised averages got a hint about tokenising."""
    def normalised(sentences, vocab, vectors):
        out = nb01.average_word_vectors_truth(sentences, vocab, vectors)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)
    with pytest.raises(ExerciseError, match="scaled each average to length 1"):
        nb01.check_average_word_vectors(normalised)
