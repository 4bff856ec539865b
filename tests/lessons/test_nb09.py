"""The checks of notebook 09 (visualising embeddings): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb09)."""
from __future__ import annotations

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")

from sbertlib.workbook.lessons import ExerciseError, nb09  # noqa: E402
from lesson_helpers import not_done


# ============================================================================= 09: cosine_by_label, pca, chance
def good_cosine_by_label(premise, hypothesis, gold, labels):
    p = premise / np.linalg.norm(premise, axis=1, keepdims=True)
    h = hypothesis / np.linalg.norm(hypothesis, axis=1, keepdims=True)
    cos, gold = np.sum(p * h, axis=1), np.asarray(gold)
    return {label: float(cos[gold == label].mean()) for label in labels}


def test_cosine_by_label_right(capsys):
    nb09.check_cosine_by_label(good_cosine_by_label)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda p, h, g, labels: {lab: float(np.sum(p * h, axis=1)[np.asarray(g) == lab].mean()) for lab in labels},
     "dot product"),
    (lambda p, h, g, labels: {lab: float((nb09._unit(p)[np.asarray(g) == lab] @ nb09._unit(h)[np.asarray(g) == lab].T)
                                         .mean()) for lab in labels}, "row i with row i"),
    (lambda p, h, g, labels: {lab: float(np.sum(nb09._unit(p) * nb09._unit(h), axis=1).mean()) for lab in labels},
     "only over the pairs"),
    (lambda p, h, g, labels: [0.1, 0.2, 0.3], "return a dict"),
    (not_done, "not done yet"),
])
def test_cosine_by_label_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb09.check_cosine_by_label(wrong)


def good_pca(emb, k=2):
    x = np.asarray(emb, dtype=np.float64)
    centred = x - x.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:k].T, (s ** 2 / np.sum(s ** 2))[:k]


def _svd(emb, centre=True):
    x = np.asarray(emb, dtype=np.float64)
    x = x - x.mean(axis=0) if centre else x
    return (x, *np.linalg.svd(x, full_matrices=False))


def test_pca_right_either_sign(capsys):
    x = np.random.default_rng(0).normal(size=(20, 5))
    nb09.check_pca(good_pca, x)
    nb09.check_pca(lambda e, k=2: (-good_pca(e, k)[0], good_pca(e, k)[1]))
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda e, k=2: (lambda x, u, s, vt: (x @ vt[:k].T, (s ** 2 / np.sum(s ** 2))[:k]))(*_svd(e, False)), "centre"),
    (lambda e, k=2: (lambda x, u, s, vt: (u[:, :k], (s ** 2 / np.sum(s ** 2))[:k]))(*_svd(e)), "unit length"),
    (lambda e, k=2: (lambda x, u, s, vt: (x @ vt[:, :k], (s ** 2 / np.sum(s ** 2))[:k]))(*_svd(e)), "rows, not its columns"),
    (lambda e, k=2: (good_pca(e, k)[0], (lambda x, u, s, vt: (s / s.sum())[:k])(*_svd(e))), "square"),
    (lambda e, k=2: (good_pca(e, k)[0], (lambda x, u, s, vt: s[:k] ** 2 / np.sum(s[:k] ** 2))(*_svd(e))), "all"),
    (lambda e, k=2: good_pca((np.asarray(e) - np.mean(e, 0)) / np.std(e, 0), k), "centres only"),
    (lambda e, k=2: good_pca(e, k)[0], "pair"),
    (not_done, "not written yet"),
])
def test_pca_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb09.check_pca(wrong)


def good_chance(labels):
    shares = np.unique(labels, return_counts=True)[1] / len(labels)
    return float((shares ** 2).sum())


def test_chance_right_with_or_without_replacement(capsys):
    nb09.check_chance(good_chance)
    assert "Σ share² — a random neighbour drawn with replacement" in capsys.readouterr().out
    nb09.check_chance(nb09._chance_other)  # issue 29: its OK named the other formula
    out = capsys.readouterr().out
    assert "Σ n_c(n_c − 1) / (n(n − 1)) — a random *other* sentence" in out and "[OK] chance is right: Σ share²" not in out


def test_chance_mixing_the_two_formulas_is_refused():
    calls = []

    def mixed(labels):
        calls.append(1)
        return good_chance(labels) if len(calls) == 1 else nb09._chance_other(labels)
    with pytest.raises(ExerciseError, match="one formula on some labellings and the other"):
        nb09.check_chance(mixed)


def test_chance_fallback_hint_does_not_give_the_formula():
    with pytest.raises(ExerciseError) as err:
        nb09.check_chance(lambda labels: 0.123)
    assert "share²" not in str(err.value) and "sum share" not in str(err.value)


@pytest.mark.parametrize("wrong, hint", [
    (lambda labels: 1 / len(set(labels)), "equal classes"),
    (lambda labels: max(np.unique(labels, return_counts=True)[1]) / len(labels), "majority class"),
    (lambda labels: 100 * good_chance(labels), "not a percentage"),
    (lambda labels: 1.0, "square each share"),
    (not_done, "not done yet"),
])
def test_chance_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb09.check_chance(wrong)


@pytest.mark.parametrize("check", [nb09.check_pca, nb09.check_chance, nb09.check_cosine_by_label])
def test_09_non_functions_refused(check):
    with pytest.raises(ExerciseError, match="pass your function itself"):
        check(42)


# ============================================================================= the moved plumbing
def test_figures_draw_and_tabulate():
    from sbertlib.workbook import figures
    rng = np.random.default_rng(1)
    emb = {"before": rng.normal(size=(12, 4)), "after": rng.normal(size=(12, 4))}
    labels = ["a", "b", "c"] * 4
    titles = {"before": "before", "after": "after"}
    fig = figures.projection_panels(emb, labels, titles, "pca", project=lambda x: good_pca(x)[0])
    assert len(fig.axes) == 2
    fig = figures.heatmap_panels([f"s{i}" for i in range(3)], {k: np.eye(3) for k in emb}, titles, "sims")
    assert len(fig.axes) >= 2
    gold = np.array(["entailment", "neutral", "contradiction"] * 4)
    _, table = figures.nli_cosine_panels({k: rng.uniform(-1, 1, 12) for k in emb}, gold, titles, "nli")
    assert list(table.columns)[-1] == "entailment − contradiction"
    scores = figures.label_scores({"set": ("part", labels)}, {k: {"part": v} for k, v in emb.items()},
                                  {"1-NN label agreement": nb09.nn_agreement_truth}, good_chance)
    assert scores.loc[("set", "after"), "chance agreement"] == pytest.approx(1 / 3)
    assert "1-NN agreement before" in figures.agreement_verdicts(scores, {"set": 12})[0]
    import matplotlib.pyplot as plt
    plt.close("all")


def good_separation(emb, labels):
    x = np.asarray(emb, dtype=np.float64)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = x @ x.T
    lab = np.asarray(labels)
    same = lab[:, None] == lab[None, :]
    return float(cos[same & ~np.eye(len(x), dtype=bool)].mean() - cos[~same].mean())


def sep_with_diagonal(emb, labels):  # counts each sentence paired with itself
    x = np.asarray(emb, dtype=np.float64)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos, lab = x @ x.T, np.asarray(labels)
    same = lab[:, None] == lab[None, :]
    return float(cos[same].mean() - cos[~same].mean())


def sep_dot_product(emb, labels):  # forgets to normalise
    x = np.asarray(emb, dtype=np.float64)
    cos, lab = x @ x.T, np.asarray(labels)
    same = lab[:, None] == lab[None, :]
    return float(cos[same & ~np.eye(len(x), dtype=bool)].mean() - cos[~same].mean())


def sep_per_label(emb, labels):  # averages the per-label means instead of all pairs
    x = np.asarray(emb, dtype=np.float64)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos, lab = x @ x.T, np.asarray(labels)
    intra, inter = [], []
    for c in np.unique(lab):
        m = lab == c
        block = cos[np.ix_(m, m)]
        if m.sum() > 1:
            intra.append(block[~np.eye(m.sum(), dtype=bool)].mean())
        inter.append(cos[np.ix_(m, ~m)].mean())
    return float(np.mean(intra) - np.mean(inter))


def _data(seed: int = 0, n: int = 40):
    rng = np.random.default_rng(seed)
    labels = rng.choice(["a", "b", "c"], size=n).tolist()
    centres = {k: rng.standard_normal(16) for k in "abc"}
    x = np.stack([centres[l] for l in labels]) + rng.standard_normal((n, 16)) + 2.0
    return x.astype(np.float32), labels


def test_nb09_separation_right_answer_passes_and_returns_truth(capsys):
    x, labels = _data()
    value = nb09.check_separation(good_separation, x, labels)
    assert value == pytest.approx(nb09.separation_truth(x, labels))
    nb09.check_separation(good_separation)  # hidden data only
    nb09.check_separation(good_separation, torch.from_numpy(x), labels)  # a tensor works too
    assert capsys.readouterr().out.count("[OK]") == 3


def test_nb09_separation_truth_on_a_tiny_case():
    x = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    # same-label pairs have cosine 1, different-label pairs cosine 0
    assert nb09.separation_truth(x, ["p", "p", "q", "q"]) == pytest.approx(1.0)
    # same-label pairs (0,2), (1,3): cosine 0; different-label pairs: two of cosine 1, two of 0
    assert nb09.separation_truth(x, [0, 1, 0, 1]) == pytest.approx(-0.5)


@pytest.mark.parametrize("wrong, hint", [  # issue 29: each slip got the same recipe hint
    (sep_with_diagonal, "leave the diagonal out"),
    (sep_dot_product, "dot products: normalise the rows"),
    (sep_per_label, "averages per label first"),
    (lambda emb, labels: -good_separation(emb, labels), "the wrong way round"),
    (lambda emb, labels: None, "one finite number"),
    (lambda emb, labels: [good_separation(emb, labels)] * 2, "one finite number"),  # not one number
])
def test_nb09_separation_wrong_answers_fail(wrong, hint):
    x, labels = _data()
    with pytest.raises(ExerciseError, match=hint):
        nb09.check_separation(wrong, x, labels)


@pytest.mark.parametrize("not_a_function", [None, Ellipsis, 0.12])
def test_nb09_separation_non_functions_fail(not_a_function):
    with pytest.raises(ExerciseError, match="function"):
        nb09.check_separation(not_a_function)


def test_nb09_unfinished_stub_fails_with_a_clear_message():
    def stub(emb, labels):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb09.check_separation(stub)
    with pytest.raises(ExerciseError, match="not done yet"):
        nb09.check_nn_agreement(stub)


def test_nb09_wrong_shape_data_is_rejected():
    x, labels = _data()
    with pytest.raises(ExerciseError):
        nb09.check_separation(good_separation, x, labels[:-3])  # labels do not match rows
    with pytest.raises(ExerciseError):
        nb09.check_separation(good_separation, x[0], labels)  # one vector, not a matrix


def good_nn(emb, labels):
    x = np.asarray(emb, dtype=np.float64)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = x @ x.T
    np.fill_diagonal(cos, -np.inf)
    lab = np.asarray(labels)
    return float(np.mean(lab[cos.argmax(axis=1)] == lab))


def nn_including_self(emb, labels):
    x = np.asarray(emb, dtype=np.float64)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    lab = np.asarray(labels)
    return float(np.mean(lab[(x @ x.T).argmax(axis=1)] == lab))


def nn_dot_product(emb, labels):
    x = np.asarray(emb, dtype=np.float64)
    s = x @ x.T
    np.fill_diagonal(s, -np.inf)
    lab = np.asarray(labels)
    return float(np.mean(lab[s.argmax(axis=1)] == lab))


def nn_farthest(emb, labels):
    x = np.asarray(emb, dtype=np.float64)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = x @ x.T
    np.fill_diagonal(cos, np.inf)
    lab = np.asarray(labels)
    return float(np.mean(lab[cos.argmin(axis=1)] == lab))


def test_nb09_nn_agreement_right_answer_passes(capsys):
    x, labels = _data(3)
    value = nb09.check_nn_agreement(good_nn, x, labels)
    assert value == pytest.approx(nb09.nn_agreement_truth(x, labels))
    assert "[OK]" in capsys.readouterr().out


def test_nb09_nn_truth_on_a_tiny_case():
    x = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    assert nb09.nn_agreement_truth(x, ["a", "a", "b", "b"]) == pytest.approx(1.0)
    assert nb09.nn_agreement_truth(x, ["a", "b", "a", "b"]) == pytest.approx(0.0)


@pytest.mark.parametrize("wrong, hint", [  # issue 29: each slip got the same recipe hint
    (nn_including_self, "its own nearest neighbour"),
    (nn_dot_product, "nearest by dot product"),
    (nn_farthest, "least\\* similar"),
    (lambda emb, labels: 1.0, "expected"),
    (lambda emb, labels: "0.5", "one finite number"),
    (lambda emb, labels: ..., "one finite number"),
])
def test_nb09_nn_agreement_wrong_answers_fail(wrong, hint):
    x, labels = _data(3)
    with pytest.raises(ExerciseError, match=hint):
        nb09.check_nn_agreement(wrong, x, labels)


def test_pca_and_cosine_by_label_that_change_their_input_in_place_are_refused():
    """Issue 29: these checks passed copies, so a function centring or normalising the notebook's embeddings in
    place passed, and the notebook's own embeddings changed behind its back."""
    from lesson_helpers import IN_PLACE

    def pca_in_place(emb, k=2):
        emb -= emb.mean(axis=0)
        return good_pca(emb, k)

    def cosine_by_label_in_place(premise, hypothesis, gold, labels):
        premise /= np.linalg.norm(premise, axis=1, keepdims=True)
        return good_cosine_by_label(premise, hypothesis, gold, labels)
    with pytest.raises(ExerciseError, match=IN_PLACE):
        nb09.check_pca(pca_in_place)
    with pytest.raises(ExerciseError, match=IN_PLACE):
        nb09.check_cosine_by_label(cosine_by_label_in_place)
