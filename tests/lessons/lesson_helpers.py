"""Helpers the lessons' check tests share: stubs, a right answer used by several notebooks' tests."""
from __future__ import annotations

import numpy as np

from sbertlib.workbook.lessons.nb03 import fit_loop as train_loop   # notebook 03's loop, as the library runs it


def not_done(*_args, **_kwargs):
    """A student's untouched stub: raises the bare NotImplementedError the checks call "not done yet"."""
    raise NotImplementedError


# ============================================================================= 00 · cosine_matrix
def unit_rows(x, axis=1):
    x = np.asarray(x, dtype=np.float64)
    return x / np.linalg.norm(x, axis=axis, keepdims=True)


# ============================================================================= 10 · similarity
def good_similarity(a, b, measure="cosine"):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if measure == "cosine":
        return unit_rows(a) @ unit_rows(b).T
    if measure == "dot":
        return a @ b.T
    diff = a[:, None, :] - b[None, :, :]
    if measure == "euclidean":
        return -np.sqrt((diff ** 2).sum(axis=-1))
    if measure == "manhattan":
        return -np.abs(diff).sum(axis=-1)
    raise ValueError(measure)





IN_PLACE = "changed its first argument .* in place"


def recipe_follower(make_objective, notebook_data: list, **hard_coded):
    """A training exercise's function ``(start, data, recipe) -> (objective, step losses, seconds)`` — notebook 05's
    train_regression, 14's train_distillation — written with the student's loop (notebook 03's, as the library runs
    it), taking every setting from ``recipe`` except those ``hard_coded``. ``data="notebook"`` trains on
    ``notebook_data`` (the notebook's global) instead of the ``data`` passed; ``seconds_scale`` returns other units."""
    import copy
    import time
    from sbertlib.training import prepare_examples
    use_notebook_data = hard_coded.pop("data", None) == "notebook"
    scale = hard_coded.pop("seconds_scale", 1.0)

    def train(start, data, recipe):
        objective = make_objective(copy.deepcopy(start))
        examples = prepare_examples(notebook_data if use_notebook_data else data, objective)
        settings = dict(epochs=recipe.epochs, batch_size=recipe.batch_size, lr=recipe.lr,
                        warmup_ratio=recipe.warmup_ratio, max_grad_norm=recipe.max_grad_norm, seed=recipe.seed,
                        length_grouping=recipe.length_grouping)
        t0 = time.perf_counter()
        step_losses = train_loop(objective, examples, **{**settings, **hard_coded})   # a global, as in a notebook
        return objective, step_losses, (time.perf_counter() - t0) * scale
    return train


LOOP_SETTINGS = ("epochs", "batch_size", "lr", "warmup_ratio", "max_grad_norm", "seed", "length_grouping")


def written_as_in_the_notebook(make_objective, **expressions):
    """A training exercise's function as a notebook cell defines it: source text run in a namespace of its own, where
    ``train_loop`` (notebook 03's loop, as the library runs it) is a global the function names. Each of
    ``expressions`` replaces what is passed for that setting (``recipe.<setting>`` otherwise), e.g.
    ``max_grad_norm="min(recipe.max_grad_norm, 0.5)"``. Returns (the function, its namespace)."""
    import copy
    import time

    from sbertlib import training
    from sbertlib.workbook.lessons.nb03 import fit_loop
    passed = ", ".join(f"{k}={expressions.get(k, 'recipe.' + k)}" for k in LOOP_SETTINGS)
    source = ("def train(start, data, recipe):\n"
              "    objective = make_objective(copy.deepcopy(start))\n"
              "    examples = training.prepare_examples(data, objective)\n"
              "    t0 = time.perf_counter()\n"
              f"    step_losses = train_loop(objective, examples, {passed})\n"
              "    return objective, step_losses, time.perf_counter() - t0\n")
    space = dict(copy=copy, time=time, training=training, make_objective=make_objective, train_loop=fit_loop)
    exec(compile(source, "<notebook cell>", "exec"), space)
    return space["train"], space

