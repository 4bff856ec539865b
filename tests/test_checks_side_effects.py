"""Checks see what an answer does, not only what it returns (issue 29): a function that changes the
array, tensor, list or dict it was given, in place, is refused with a message that says so — the
notebook would otherwise run on with its own data changed behind its back."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from sbertlib.workbook.lessons import ExerciseError, call, nb00, nb01

IN_PLACE = "changed its first argument .* in place"


def centre_in_place(vectors):
    vectors -= vectors.mean(axis=0)  # the right numbers, returned — and the caller's vectors centred too
    return vectors


def most_similar_pair_filling_the_callers_matrix(sim):
    m = sim if isinstance(sim, np.ndarray) else sim  # no copy
    if isinstance(m, torch.Tensor):
        m.fill_diagonal_(-float("inf"))
    else:
        np.fill_diagonal(m, -np.inf)
    i, j = divmod(int(np.argmax(np.asarray(m))), len(m))
    return i, j


def test_centre_in_place_is_refused_though_it_returns_the_right_numbers():
    with pytest.raises(ExerciseError, match=IN_PLACE) as err:
        nb01.check_centre(centre_in_place)
    assert "x - m" in str(err.value) and "x -= m" in str(err.value)
    nb01.check_centre(lambda x: x - x.mean(axis=0))  # the same numbers, the input left alone: passes


@pytest.mark.parametrize("as_array", [np.asarray, torch.as_tensor])
def test_filling_the_callers_similarity_matrix_is_refused(as_array):
    x = np.random.default_rng(0).standard_normal((5, 4))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    sim = as_array(x @ x.T)
    with pytest.raises(ExerciseError, match=IN_PLACE):
        nb00.check_most_similar_pair(most_similar_pair_filling_the_callers_matrix, sim)


def test_call_watches_arrays_tensors_lists_and_dicts_and_leaves_other_arguments_alone():
    def appends(items):
        items.append(1)
        return items
    with pytest.raises(ExerciseError, match=IN_PLACE):
        call(appends, [0])
    with pytest.raises(ExerciseError, match="changed its second argument"):
        call(lambda a, d: d.update(k=2), 1, {"k": 1})
    model = torch.nn.Linear(2, 2)
    call(lambda m: torch.nn.init.zeros_(m.weight), model)  # a model may be meant to change (a training step)
    nan = np.array([np.nan, 1.0])
    assert call(lambda v: v + 1, nan)[1] == 2.0  # NaN stays NaN: not taken for a change


def test_shapes_that_do_not_broadcast_get_a_hint_not_only_numpys_message():
    """00's cosine matrix without keepdims: numpy's broadcasting error came bare (issue 29)."""
    def cosine_matrix_without_keepdims(a, b):
        a = a / np.linalg.norm(a, axis=1)  # (n, d) / (n,): a row vector, not a column
        b = b / np.linalg.norm(b, axis=1)
        return a @ b.T
    with pytest.raises(ExerciseError, match=r"two shapes did not line up.*keepdims=True"):
        nb00.check_cosine_matrix(cosine_matrix_without_keepdims)


# ----------------------------------------------------------------------------- 03, 07 and 11 call through `call` too
def _mnrl_normalising_in_place():
    from sbertlib import losses

    class MNRL(losses.SBERTLoss):
        def loss_from_embeddings(self, embeddings, labels=None):
            anchors = torch.nn.functional.normalize(embeddings[0], dim=1)
            embeddings[1:] = [torch.nn.functional.normalize(torch.cat(embeddings[1:]), dim=1)]  # the caller's list
            scores = anchors @ embeddings[1].T * 20.0
            return torch.nn.functional.cross_entropy(scores, torch.arange(len(anchors)))
    return MNRL


def test_nb03_mnrl_that_rewrites_the_list_it_was_given_is_refused():
    from sbertlib.workbook.lessons import nb03
    with pytest.raises(ExerciseError, match=r"your loss_from_embeddings \(3 columns .*changed its first argument"):
        nb03.check_mnrl(_mnrl_normalising_in_place(), torch.nn.Linear(2, 2))


def test_nb03_mnrl_stub_is_reported_as_everywhere():
    from sbertlib import losses
    from sbertlib.workbook.lessons import nb03

    class MNRL(losses.SBERTLoss):
        def loss_from_embeddings(self, embeddings, labels=None):
            raise NotImplementedError
    with pytest.raises(ExerciseError, match="the exercise is not done yet: your loss_from_embeddings"):
        nb03.check_mnrl(MNRL, torch.nn.Linear(2, 2))


def test_nb07_run_ablation_that_empties_the_configs_it_was_given_is_refused():
    from sbertlib.workbook.lessons import nb07

    def run_ablation(configs, seeds, train_and_score):
        rows = {}
        while configs:                      # consumes the caller's list
            c = configs.pop(0)
            s = [train_and_score(c, seed) for seed in seeds]
            rows[c.label] = {"pooling": c.pooling, "concat": c.concat_label, "n_seeds": len(s),
                             "mean": np.mean(s), "std": np.std(s, ddof=1) if len(s) > 1 else np.nan}
        import pandas as pd
        return pd.DataFrame.from_dict(rows, orient="index")
    with pytest.raises(ExerciseError, match=r"run_ablation on a grid .*" + IN_PLACE):
        nb07.check_run_ablation(run_ablation)


def test_nb07_classifier_size_stub_is_reported_as_everywhere():
    from sbertlib.workbook.lessons import nb07

    def classifier_size(concat, n, k=3):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="the exercise is not done yet: classifier_size"):
        nb07.check_classifier_size(classifier_size)


def test_nb11_pick_precision_that_changes_the_table_it_was_given_is_refused():
    from sbertlib.workbook.lessons import nb11

    def pick_precision(rows, tolerance):
        base = rows.pop("fp32")             # the caller's table loses its fp32 row
        ok = [k for k, (_, sp) in rows.items() if abs(sp - base[1]) <= tolerance]
        return max(ok, key=lambda k: rows[k][0]) if ok else "fp32"
    with pytest.raises(ExerciseError, match=r"`pick_precision` \(rows .*" + IN_PLACE):
        nb11.check_pick_precision(pick_precision)


def test_nb11_stubs_are_reported_as_everywhere():
    from sbertlib.workbook.lessons import nb11

    def stub(*args):
        raise NotImplementedError
    for check in (nb11.check_pick_precision, nb11.check_bf16_round):
        with pytest.raises(ExerciseError, match="the exercise is not done yet"):
            check(stub)
