"""What notebooks 05 and 14's training exercises (a :class:`~sbertlib.workbook.lessons.kinds.Run` each: ``fn(start,
data, recipe) -> (objective, step losses, seconds)``) share: the check's recipes (each setting unlike notebook 03's loop
defaults, :data:`LOOP_DEFAULTS`, so one not passed on trains another run; the first clips every step, the second
none), how a run is read, the notebook's own runs and :func:`checked`."""
import copy
import math
import time
import weakref
from dataclasses import replace

import torch

from ... import losses
from . import ExerciseError, _brief, call, ok, require

RECIPES = (dict(epochs=2, batch_size=4, lr=3.7e-3, warmup_ratio=0.25, max_grad_norm=0.05, seed=7, length_grouping=True),
           dict(epochs=1, batch_size=6, lr=2.9e-3, warmup_ratio=0.0, max_grad_norm=1e3, seed=3, length_grouping=False))
LOOP_DEFAULTS = dict(epochs=1, batch_size=16, lr=2e-5, warmup_ratio=0.1, max_grad_norm=1.0, seed=42,
                     length_grouping=False)   # notebook 03's train_loop: what a setting not passed on becomes
CHECK_EXAMPLES = 20   # the first examples of the notebook's data: more than LOOP_DEFAULTS' batch
_PASSED: weakref.WeakSet = weakref.WeakSet()   # the objectives of the runs whose check passed


def fingerprint(model) -> tuple:
    """One sum per weight tensor: the notebook takes it where a start is built; the check compares."""
    with torch.no_grad():
        return tuple(float(p.double().sum()) for p in model.parameters())


def checked(result):
    """A run — (objective, step losses, seconds) — once its check passed: the notebook saves only such a run."""
    require(isinstance(result, (tuple, list)) and len(result) == 3 and isinstance(result[0], losses.SBERTLoss)
            and result[0] in _PASSED, "this run has not passed its check, so it is not saved",
            "run the check cell above first, until it prints [OK] (train again after a fix)")
    return result


def run_parts(result, start, before: tuple, name: str):
    """(objective, step losses) of what a training exercise returned; ``start`` untouched since ``before``."""
    require(isinstance(result, (tuple, list)) and len(result) == 3, f"your {name} returned {_brief(result)}",
            "return three things: the objective (it holds the trained model), the loss of every step, the seconds")
    objective, step_losses, seconds = result
    require(isinstance(objective, losses.SBERTLoss) and not type(objective).__module__.startswith("sbertlib.losses"),
            f"the first thing your {name} returned is a {type(objective).__name__}, not your objective",
            "return the objective (your own class) whose model your loop trained")
    require(fingerprint(start) == before, "training changed the model you started from: the notebook's table needs "
            "it as it was", "train a copy, copy.deepcopy(start); if an attempt trained it, run the cell that built it")
    require(objective.model is not start, "the objective holds the start model itself, not a trained copy")
    require(isinstance(step_losses, (list, tuple)), f"the second thing returned is a {type(step_losses).__name__}, "
            "not the loss of every step", "return the list your train_loop gave, as it is")
    require(isinstance(seconds, (int, float)) and seconds > 0, f"the seconds returned are {seconds!r}",
            "time the loop with time.perf_counter()")
    return objective, [float(x) for x in step_losses]


def train_and_read(fn, recipe: dict, start, data, name: str, data_name: str):
    """A Run's training: ``fn(start, the first examples of data, the recipe)`` -> (step losses, model, start)."""
    from ...training import TrainingArguments
    part, args, begin = list(data[:CHECK_EXAMPLES]), TrainingArguments(**recipe), start
    before, t0 = fingerprint(begin), time.perf_counter()
    result = call(fn, begin, part, args, what=f"your {name}(start, {len(part)} examples, the check's recipe)")
    wall, (objective, step_losses) = time.perf_counter() - t0, run_parts(result, begin, before, name)
    steps = lambda n: args.epochs * math.ceil(n / args.batch_size)  # noqa: E731
    require(steps(len(data)) == steps(len(part)) or len(step_losses) != steps(len(data)), f"your {name} trained on "
            f"the notebook's {data_name}, not on the `data` it was given", "train on `data`, the argument: the check "
            "passes examples of its own")
    said = f"your {name} returned {result[2]:.4g} seconds for a call of {wall:.2f} s"
    require(result[2] <= 1.05 * wall + 0.05, said, "read the clock inside your function, just before your loop (not "
            "the notebook's `t0`), and return seconds, not milliseconds")
    require(result[2] >= 0.2 * wall, said, "time the loop itself (not prepare_examples alone), in seconds: "
            "time.perf_counter() just before and just after train_loop")
    return step_losses, objective.model, begin


def library_run(objective_class):
    """A training exercise as the library writes it: ``fit`` of a copy of ``start`` with ``objective_class``."""
    def train(start, data, recipe):
        from ...training import fit
        objective, t0 = objective_class(copy.deepcopy(start)), time.perf_counter()
        history = fit(objective.model, objective, data, recipe, show_progress_bar=False)
        return objective, history.losses, time.perf_counter() - t0
    return train


def check_runs(run, fn, new_runs: dict, start, data, recipe, where: str) -> None:
    """The notebook's own runs (``{row: (its start, its fingerprint as built, the run)}``: start untouched, a model
    trained, the recipe's steps), then ``run`` on the check's recipes (a slip: the notebook's recipe ``where`` read)."""
    require(isinstance(new_runs, dict), f"pass the runs as trained above (a dict), not {type(new_runs).__name__}")
    steps = {}
    for row, (begin, before, result) in new_runs.items():
        try:
            objective, step_losses = run_parts(result, begin, before, run.name)
            require(fingerprint(objective.model) != before, "the objective's model has the start's weights: nothing "
                    "was trained", "train the copy the objective holds")
            per_epoch = math.ceil(len(data) / recipe.batch_size)
            require(len(step_losses) == recipe.epochs * per_epoch, f"your {run.name} returned {len(step_losses)} step "
                    f"losses; the recipe is {recipe.epochs} epoch(s) of {per_epoch} batches", "train on every example "
                    "of `data` with the recipe's epochs and batch_size")
        except ExerciseError as exc:
            raise ExerciseError(f"the {row!r} run: {exc}" if len(new_runs) > 1 else str(exc)) from None
        steps[row] = len(step_losses)
    replace(run, slips={**run.slips, f"that is the run of {where}, not of the `recipe` passed in: read every setting "
                        "from `recipe`, the argument — the check passes recipes of its own":
                        lambda s, d, r: run.reference(s, d, recipe)}).check(fn, copy.deepcopy(start), data)
    _PASSED.update(result[0] for _, _, result in new_runs.values())
    if steps:
        said = ", ".join(f"{k}: {n} steps" for k, n in steps.items())
        ok(f"the notebook's run(s) — {said} — kept their start and took the recipe's steps: the next cell saves them")
