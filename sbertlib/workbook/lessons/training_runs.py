"""Checking a training exercise by what it trains: the student's function — ``train_regression`` (notebook 05),
``train_distillation`` (14), each ``fn(start, data, recipe) -> (objective, step_losses, seconds)`` — run on recipes
of the check's own and compared, loss by loss and weight by weight, with the library's ``fit`` of the same recipe.

The recipes use settings no profile holds and that differ from notebook 03's loop defaults, so a function that
hard-codes a value instead of reading ``recipe`` trains another run, and the message names the setting. The clipping
norm of the first is chosen from the run's own gradient norms (about half the steps clipped): AdamW is almost blind
to a gradient scaled the same at every step, so a norm that clips every step, or none, would look like any other.
"""
from __future__ import annotations

import functools
import json
import math
import time
import weakref
from contextlib import contextmanager
from typing import Callable

import torch

from ... import losses
from . import NUMERICS_DEFAULT, ExerciseError, call, numerics_state, require

PROBE_EXAMPLES = 40
# Each setting differs between the two (a value hard-coded from one fails the other): 8 steps warmed up over 2, and
# 7 over none — no single warm-up ratio gives both; a seed or warm-up of 0 catches `recipe.seed or 42`.
PROBES = (dict(epochs=2, batch_size=10, lr=3.7e-3, warmup_ratio=0.25, seed=7, length_grouping=True),
          dict(epochs=1, batch_size=6, lr=2.9e-3, warmup_ratio=0.0, seed=0, length_grouping=False, max_grad_norm=1e3))
LOOP_DEFAULTS = dict(epochs=1, batch_size=16, lr=2e-5, warmup_ratio=0.1, max_grad_norm=1.0, seed=42,
                     length_grouping=False)  # notebook 03's train_loop, as its signature writes them


SETTINGS = ("pooling", "max_seq_length", "normalize", "precision", "info", "training")   # an encoder's, besides weights
RUN_FREE = ("training", "info")   # settings that change no run: the loop sets the mode; a row's label trains nothing


def fingerprint(model) -> tuple:
    """A cheap summary of a model: one sum per parameter tensor (changes when training steps it), then its settings
    (:data:`SETTINGS`: pooling, length limit, normalisation, encoding precision, the info a table row reads, the mode;
    then the weights' dtypes and :func:`_how_trained`'s: which weights train, the dropout rates, the tokenizer's
    settings and text rules, the backbone config) as the last item."""
    with torch.no_grad():
        weights = tuple(float(p.double().sum()) for p in model.parameters())
    dtypes = ("weights", repr(sorted({str(p.dtype).replace("torch.", "") for p in model.parameters()})))
    return weights + (tuple((k, repr(getattr(model, k, None))) for k in SETTINGS) + (dtypes,) + _how_trained(model),)


TOKENIZER_SETTINGS = ("truncation_side", "padding_side", "model_max_length", "do_lower_case")
# The backbone config's entries that say where it came from, not how it runs; every other one is saved with the model
# and read again when it loads (trial 17: dropout set to 0 in the config changed nothing in memory, every reload).
CONFIG_NOT_RUN = ("_name_or_path", "transformers_version", "_commit_hash", "_attn_implementation_autoset")


def _how_trained(model) -> tuple:
    """What else decides how a copy trains and encodes, as five settings: the weights training may update (none
    frozen), the dropout rates (trial 15: a layer frozen, or dropout set to 0, was told only 'pass every setting'), the
    tokenizer's settings and its text rules (trial 16: `truncation_side = "left"` set after the loop kept each long
    sentence's end), and the backbone's config as it would be saved (trial 17)."""
    params = list(model.parameters())
    frozen = sum(not p.requires_grad for p in params)
    dropout = sorted({float(m.p) for m in model.modules() if isinstance(m, torch.nn.Dropout)})
    tok = getattr(model, "tokenizer", None)
    tokenizer = "none" if tok is None else repr(
        {**{k: getattr(tok, k) for k in TOKENIZER_SETTINGS if hasattr(tok, k)}, "word pieces": len(tok)})
    backend = getattr(tok, "backend_tokenizer", None)
    text = "none" if backend is None else " ".join(   # how text is cleaned and split: accents, case, …
        part.__getstate__().decode() for part in (backend.normalizer, backend.pre_tokenizer) if part is not None)
    config = getattr(getattr(model, "backbone", None), "config", None)
    config = "none" if config is None else json.dumps(
        {k: v for k, v in config.to_dict().items() if k not in CONFIG_NOT_RUN}, sort_keys=True, default=str)
    return (("trainable", "every weight" if not frozen else f"{frozen} of {len(params)} weight tensors frozen"),
            ("dropout", repr(dropout)), ("tokenizer", tokenizer), ("tokenizer's text rules", text),
            ("backbone config", config))


def own_weights(objective) -> list[str]:
    """The names of the weights an objective holds besides its model's: training would update them too (trial 16: a
    learnable scale in place of STSb's 5 passed the objective's check, which runs no step)."""
    model = getattr(objective, "model", None)
    theirs = {id(p) for p in model.parameters()} if isinstance(model, torch.nn.Module) else set()
    return [name for name, p in objective.named_parameters() if id(p) not in theirs]


def require_no_weights_of_its_own(objective, yours: str) -> None:
    """Fail where the student's objective ``yours`` holds weights of its own (:func:`own_weights`)."""
    extra = own_weights(objective)
    require(not extra, f"your {yours} holds weights of its own ({', '.join(extra)}): training would update them with "
            f"the model's, and the loss would drift away from the paper's",
            "the objective has nothing to learn: every number in its loss is fixed by the paper (or the data)")


def require_untouched(start, before: tuple, row: str) -> None:
    """Fail unless ``start`` still has the :func:`fingerprint` ``before``: its weights (trained in place) and its
    settings (changed before the copy) are named apart; ``row`` says which of the notebook's rows reads it."""
    now = fingerprint(start)
    if now[:-1] != before[:-1]:
        raise ExerciseError(f"training changed the model you started from: {row} needs it as it was\nHint: train a "
                            f"copy (copy.deepcopy) of the start, and leave the start itself alone. If an earlier "
                            f"attempt trained it, build it again first: run the cell that made it")
    changed = [f"{k} {b} → {a}" for (k, b), (_, a) in zip(before[-1], now[-1]) if a != b]
    if changed:
        raise ExerciseError(f"your function changed the start's settings ({'; '.join(changed)}): {row} needs it as it "
                            f"was\nHint: set anything on your copy, after copying — never on `start`")


def settings_changed(before: tuple, model) -> list[str]:
    """The settings of ``model`` that a run depends on (:data:`SETTINGS` but :data:`RUN_FREE`) and that differ from
    those :func:`fingerprint` recorded in ``before``, as "pooling 'mean' → 'cls'"."""
    return [_change(k, b, a) for (k, b), (_, a) in zip(before[-1], fingerprint(model)[-1])
            if a != b and k not in RUN_FREE]


def _change(key: str, before: str, after: str) -> str:
    """"key before → after"; for a setting that is a dict (the tokenizer's, the backbone config), only the entries
    that differ."""
    import ast

    def read(text: str):
        for parse in (json.loads, ast.literal_eval):
            try:
                return parse(text)
            except (ValueError, SyntaxError):
                continue
        return None
    b, a = read(before), read(after)
    if isinstance(b, dict) and isinstance(a, dict):
        return f"{key}: " + ", ".join(f"{k} {b.get(k, '(none)')!r} → {a.get(k, '(none)')!r}"
                                      for k in sorted(b.keys() | a.keys()) if b.get(k) != a.get(k))
    return f"{key} {before} → {after}"


@contextmanager
def settings_left_alone(model, what: str):
    """Within: code of the student's given ``model`` (an objective's ``__init__``); after it, every setting a run
    depends on must be as before — each is put back, so the notebook's encoder stays as it was, and the change named."""
    values = {k: getattr(model, k) for k in SETTINGS if k not in RUN_FREE and hasattr(model, k)}
    before = fingerprint(model)
    yield
    changed = settings_changed(before, model)
    for k, value in values.items():
        if getattr(model, k) != value:
            setattr(model, k, value)
    require(not changed, f"{what} changed the model's settings ({'; '.join(changed)})",
            "the objective holds the encoder as it is given: how it encodes is the encoder's (and the recipe's) "
            "business, not the loss's")


def require_settings_kept(model, before: tuple) -> None:
    """The trained ``model`` encodes as its start did (``before``, the start's :func:`fingerprint`): a model trained
    right but set afterwards to encode otherwise (CLS pooling, a shorter length limit, int8) would be evaluated and
    saved so (trial 11)."""
    changed = settings_changed(before, model)
    require(not changed, f"the trained model's settings are not its start's ({'; '.join(changed)}): the table "
            f"evaluates, and the run saves, the model as you return it",
            "leave the copy's settings and its weights' dtype as the start has them, before and after training (no "
            ".half() or .to(dtype)): the recipe's run encodes as its start does")


_CHECKED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # objective -> its run as its check passed it


def _as_checked(result) -> tuple:
    return fingerprint(result[0].model), [float(x) for x in result[1]], float(result[2])


def mark_checked(result) -> None:
    """Record that the run ``result`` — (objective, step losses, seconds) — passed its check, as it was then
    (:func:`checked`)."""
    _CHECKED[result[0]] = _as_checked(result)


def checked(result):
    """``result`` — (objective, step losses, seconds) of a training exercise — as it is, once its check said [OK];
    else an ExerciseError. A notebook saves a run for later notebooks through it, so a run its check refused is never
    saved (trial 12: a refused run saved, the function fixed, then loaded with [OK])."""
    objective = result[0] if isinstance(result, (tuple, list)) and len(result) == 3 else None
    require(objective is not None and objective in _CHECKED,
            "this run has not passed its check, so it is not saved: later notebooks would load it",
            "run the check cell above until it prints [OK] for this run (train again after a fix), then this cell")
    require(_as_checked(result) == _CHECKED[objective],
            "this run changed after its check passed (its model trained on or changed, or its losses or seconds "
            "replaced), so it is not saved", "train it again and run the check cell above, then this cell")
    return result


def require_own_objective(objective, yours: str) -> None:
    """Fail where the run trained the library's loss (``sbertlib.losses``) instead of the student's ``yours``."""
    kind = type(objective)
    require(not kind.__module__.startswith("sbertlib.losses"),
            f"your function trained the library's {kind.__name__}, not your {yours}",
            f"build the objective from your {yours} class: the exercise is that your pieces train together")


def require_profile_as_defined(profile, recipe, stage: str) -> None:
    """The notebook's ``profile`` is the course's profile of that name (its reason aside), and ``recipe`` its
    ``stage`` recipe (trial 18: `profile` rebound with other epochs or fewer pairs passed, and the run was saved as the
    profile's)."""
    from dataclasses import fields
    from ..profiles import get_profile
    registered = get_profile(profile.name, dry_run=profile.dry_run)
    differ = [f.name for f in fields(registered) if f.name != "reason"
              and getattr(profile, f.name) != getattr(registered, f.name)]
    require(not differ, f"`profile` is not the course's {profile.name!r} profile: its {', '.join(differ)} differ",
            "run the notebook from its first cell (`profile = get_profile()`) and leave `profile` as it is: the run is "
            "saved as that profile's, and later notebooks load it as such")
    require(recipe == getattr(profile, stage), f"the recipe passed is not profile.{stage}",
            f"pass profile.{stage} itself, as the check cell does")


def require_notebook_examples(got, want, name: str) -> None:
    """``got`` (the notebook's ``name``) holds exactly the examples ``want`` the profile's cell builds, in order
    (trial 18: STSb test pairs appended to `stsb_examples` after it was built passed, and the run was saved)."""
    got = list(got)
    first = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
    require(first is None and len(got) == len(want),
            f"`{name}` is not the notebook's: {len(got):,} examples, the profile's {len(want):,}"
            + (f"; the first that differs is #{first}: {got[first]!r}, the profile's {want[first]!r}"
               if first is not None else ""),
            f"run the cell that builds `{name}` again and leave it as it is: the run is saved as the profile's, "
            "and its contamination notes and later notebooks read it as trained on the profile's data")


def run_parts(result, start, before: tuple, function: str, yours: str, row: str):
    """(objective, step_losses) of what a training exercise's ``function`` returned — (objective, step losses,
    seconds) — each checked for its kind: the objective the student's ``yours``, holding a trained copy of ``start``
    with its settings (``start`` itself untouched since ``before``; ``row`` is the table that reads it), the losses
    one finite number per step, the seconds a positive number."""
    require(isinstance(result, (tuple, list)) and len(result) == 3,
            f"{function} returned {type(result).__name__}"
            + (f" of {len(result)} items" if hasattr(result, "__len__") else ""),
            "return three things: the trained objective, the loss of every step, the seconds it took")
    objective, step_losses, seconds = result
    require(isinstance(objective, losses.SBERTLoss),
            f"the first thing returned is a {type(objective).__name__}, not the objective you trained",
            f"return the {yours} whose model your loop trained")
    require_own_objective(objective, yours)
    require_untouched(start, before, row)
    require(objective.model is not start, "the objective holds the start model itself, not the trained copy")
    _require_step_losses(step_losses)
    require(trained(objective.model, before), "the objective's model has the start's weights: nothing was trained",
            "train the copy that the objective holds")
    require_settings_kept(objective.model, before)
    require(all(math.isfinite(float(x)) for x in step_losses), "a step's loss is not a finite number",
            "a learning rate too high? pass recipe.lr")
    require(isinstance(seconds, (int, float)) and seconds > 0, f"the seconds returned are {seconds!r}",
            "time the run with time.perf_counter()")
    return objective, step_losses


def _require_step_losses(step_losses) -> None:
    """The losses as the loop gives them: a list (a tuple or a 1-D tensor also read as one); a numpy array is
    named as such (trial 14: "not the loss of every step" read as if the values were wrong)."""
    if isinstance(step_losses, (list, tuple)) or (isinstance(step_losses, torch.Tensor) and step_losses.ndim == 1):
        return
    kind = type(step_losses).__name__
    if type(step_losses).__module__ == "numpy":
        raise ExerciseError(f"the second thing returned holds the losses as a numpy {kind}, not as the loop gave them\n"
                            "Hint: return train_loop's list itself (the notebook saves it and later notebooks read it)")
    raise ExerciseError(f"the second thing returned is a {kind}, not the loss of every step\n"
                        "Hint: return the list your train_loop gave: one loss per step")


def trained(model, before: tuple) -> bool:
    """Whether ``model``'s weights differ from those :func:`fingerprint` recorded in ``before``."""
    return fingerprint(model)[:-1] != before[:-1]


def _grad_norm(loss) -> float:
    grads = [p.grad.detach().float().norm() for p in loss.parameters() if p.grad is not None]
    return float(torch.linalg.vector_norm(torch.stack(grads))) if grads else 0.0


def _rounding_of_own_objective(got: list[float], objective, start, part: list, args, want: list[float]) -> bool:
    """Whether a run that is not the library's differs from it only by the rounding of the student's own objective
    (trial 18: a cosine written out by hand, equal to F.cosine_similarity's to 1e-6, moved some weights by 6e-4 through
    AdamW): the library's run of the recipe with a fresh objective of the student's class is the student's run, and
    its losses are the reference objective's, step by step, to 1e-4."""
    try:
        own, own_model = recipe_run(start, part, args, lambda model: type(objective)(model))
    except Exception:  # noqa: BLE001 - a class the check cannot build again: the reference's verdict stands
        return False
    return (same_run(got, objective.model, own, own_model) and len(own) == len(want)
            and all(math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-7) for a, b in zip(own, want)))


def recipe_run(start, data, args, make_loss: Callable, grad_norms: list | None = None, steps: int | None = None):
    """The library's run of the recipe ``args`` (``fit``, the objective ``make_loss(model)``) from a copy of
    ``start``: (its step losses, the trained model). ``grad_norms``, a list, receives each step's gradient norm
    (before clipping only where ``args`` clips nothing); ``steps`` stops the run after its first so many steps
    (the schedule stays the whole run's)."""
    import copy

    from ...training import fit
    model = copy.deepcopy(start)
    loss = make_loss(model)

    def record(step, history):
        if grad_norms is not None:
            grad_norms.append(_grad_norm(loss))
        if steps is not None and step >= steps:
            raise KeyboardInterrupt   # fit returns the history so far
    history = fit(model, loss, data, args, show_progress_bar=False, callback=record)
    return [float(x) for x in history.losses][:steps], model


RUN_STEPS = 6   # the notebook's own run: its first losses (its weights too, when it is no longer) against the library's


def check_notebook_run(objective, step_losses, start, data, recipe, make_loss: Callable) -> str:
    """The notebook's own run — ``objective`` trained from ``start`` on ``data`` with ``recipe`` — against the library's
    run of the same: its first :data:`RUN_STEPS` losses and, for a run no longer than that (smoke's), its trained
    weights. A function that passed the check's recipes but changed a setting only for some (a clamp, a condition on
    the data) fails here. Returns what was compared, for the OK message."""
    n = len(step_losses)
    k = min(RUN_STEPS, n)
    want, model = recipe_run(start, data, recipe, make_loss, steps=k if k < n else None)   # the whole run: no stop
    got = [float(x) for x in step_losses[:k]]
    whole = n <= RUN_STEPS
    if not (same_run(got, objective.model, want, model) if whole else
            all(math.isclose(g, w, rel_tol=1e-4, abs_tol=1e-7) for g, w in zip(got, want))):
        raise ExerciseError(f"your run's first {k} losses ({', '.join(f'{g:.5f}' for g in got)})"
                            f"{' or its trained weights' if whole else ''} are not those of the library's run of the "
                            f"notebook's recipe ({', '.join(f'{w:.5f}' for w in want)})\nHint: your function followed "
                            f"the check's recipes but not this one: a setting changed only for some recipes (a max, a "
                            f"min, a condition on the data)? Pass each of the recipe's settings as it is")
    return f"its first {k} losses{' and trained weights' if whole else ''} are the library's run of the recipe"


def probe_recipes(start, data, make_loss: Callable) -> list:
    """The check's recipes (``TrainingArguments``) for ``start`` on ``data``: :data:`PROBES`, the first clipping at
    the median gradient norm of its unclipped run, so that some steps are clipped and some are not."""
    from ...training import TrainingArguments
    norms: list[float] = []
    recipe_run(start, data, TrainingArguments(**PROBES[0], max_grad_norm=None), make_loss, grad_norms=norms)
    middle = sorted(norms)[len(norms) // 2 - 1: len(norms) // 2 + 1]
    clip = float(f"{math.sqrt(middle[0] * middle[1]):.3g}")   # between the two middle norms, written short
    return [TrainingArguments(**PROBES[0], max_grad_norm=clip), TrainingArguments(**PROBES[1])]


def same_run(got: list[float], model, want: list[float], want_model, tol: float = 1e-4) -> bool:
    """The same losses and trained weights, to ``tol`` (relative). The naming of a slip allows more: AdamW's
    epsilon makes two runs clipped at different norms on every step differ a little."""
    if len(got) != len(want) or not all(math.isclose(g, w, rel_tol=tol, abs_tol=1e-7) for g, w in zip(got, want)):
        return False
    mine = dict(model.named_parameters())
    return all(name in mine and torch.allclose(mine[name].detach().float(), p.detach().float(), rtol=tol, atol=tol / 100)
               for name, p in want_model.named_parameters())


def _which_setting(fn: Callable, got: list[float], model, start, data, args, notebook_recipe,
                   make_loss: Callable, want: list[float]) -> str:
    """The hint naming the setting the student's run did not take from ``args``: the same run retrained with one
    setting replaced by what could have been hard-coded instead (the loop's default, the notebook's recipe, any
    profile's learning rate, the check's other recipe), tried in turn; each retraining is made only when the answer is wrong. Failing that,
    the settings the function's source never reads."""
    from dataclasses import replace

    from ..profiles import PROFILES
    rates = {a.lr for p in PROFILES.values() for a in (p.nli, p.stsb, p.distill)}
    tries = []
    for field in ("length_grouping", "seed", "lr", "warmup_ratio", "max_grad_norm"):
        values = ({LOOP_DEFAULTS[field], getattr(notebook_recipe, field)} | (rates if field == "lr" else set())
                  | {p[field] for p in PROBES if field in p})          # the other recipe's value, which a hint showed
        if field == "max_grad_norm" and args.max_grad_norm is not None:
            values |= {None, args.max_grad_norm / 10}   # none, or a fixed norm that clips every step
        for value in sorted(values - {getattr(args, field)}, key=repr):
            tries.append((field, value))
    for field, value in tries:
        if same_run(got, model, *recipe_run(start, data, replace(args, **{field: value}), make_loss), tol=1e-2):
            what = ("another clipping (clipping at a fixed norm, or none)" if field == "max_grad_norm" else
                    f"{field}={value!r}")
            return (f"that is the run with {what}, not the recipe's {field}={getattr(args, field)!r}: your function "
                    f"does not pass recipe.{field} on to your loop")
    if not math.isclose(got[0], want[0], rel_tol=1e-4, abs_tol=1e-7):
        return ("the very first loss differs, before any update: the model or the first batch is not the recipe's, "
                "or the losses are not returned as your loop gave them — a copy of `start` as passed (the check passes "
                "one of its own, its settings left alone), `data` as passed (every example, in its order), "
                "recipe.seed and recipe.length_grouping")
    source = _source(fn)
    import re
    body = (source.split(":", 1)[-1] if getattr(fn, "__name__", "") == "<lambda>"   # without its parameters
            else source.split("\n", 1)[-1])                                          # without the def line
    whole = any(way in source for way in ("getattr(recipe", "vars(recipe", "recipe.__dict__", "asdict(recipe",
                                          "**recipe", "recipe.to_dict")) or bool(   # every field read at once,
        re.search(r"\brecipe\b(?!\s*\.)", body))                                 # or by a helper it is given to
    unread = [] if whole or not source else [f for f in LOOP_DEFAULTS if f".{f}" not in source]   # no source: unknown
    if unread:
        return (f"the run differs from the recipe's in its updates, and your function never reads "
                f"{', '.join('recipe.' + f for f in unread)}: pass every setting the recipe holds on to your loop")
    return ("the run differs from the recipe's in its updates: pass every setting the recipe holds to your loop "
            "(epochs, batch_size, lr, warmup_ratio, max_grad_norm, seed, length_grouping) as it is, and train a fresh "
            "copy of the start with your objective — and nothing else changed about how it trains: no layer frozen, "
            "no dropout changed, no other precision")


def _source(fn: Callable) -> str:
    """The source of the student's function (a notebook cell's too), or "" where Python cannot find it."""
    import inspect
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return ""


def _steps_hint(n: int, args, notebook_recipe, n_data: int, n_notebook: int, data_name: str) -> str:
    steps = lambda n_, epochs=args.epochs, batch=args.batch_size: epochs * math.ceil(n_ / batch)  # noqa: E731
    counts = [(f"it trained on the notebook's {data_name}, not on the `data` passed in", steps(n_notebook))]
    counts += [(f"that is {e} epoch(s): pass recipe.epochs on to your loop", steps(n_data, epochs=e))
               for e in (LOOP_DEFAULTS["epochs"], notebook_recipe.epochs)]
    counts += [(f"those are batches of {b}: pass recipe.batch_size on to your loop", steps(n_data, batch=b))
               for b in (LOOP_DEFAULTS["batch_size"], notebook_recipe.batch_size)]
    return next((h for h, count in counts if count == n),
                "pass recipe.epochs and recipe.batch_size on to your loop, and train on every example of `data`")


def _other_weights(start):
    """A copy of ``start`` with every weight moved a little (fixed noise): not the notebook's model, so a function
    that trains a global (or builds its own student) instead of a copy of ``start`` gives other losses."""
    import copy
    other = copy.deepcopy(start)
    g = torch.Generator().manual_seed(2019)
    with torch.no_grad():
        for p in other.parameters():
            p.add_(0.02 * p.float().std().nan_to_num(0.02).clamp_min(1e-3) * torch.randn(p.shape, generator=g).to(p.dtype))
    return other


def _scrambled(n: int) -> list[int]:
    """0..n-1 in a fixed order that no sort restores (the notebook's own order may already be sorted)."""
    import random
    order = list(range(n))
    random.Random(2019).shuffle(order)
    return order


# Recipes whose settings lie far outside any real run's, together reaching both ends of each: a clamp (min, max, %),
# a default for a falsy value or None, or a condition on the data's size (25,000 examples: more than offline's 19,408
# distillation sentences) changes one of them. (examples, settings): the loop is stopped before its first step, so
# none of them trains.
SPY_RECIPES = ((25_000, dict(epochs=1000, batch_size=1, lr=7.5, warmup_ratio=0.95, max_grad_norm=1e9,
                              seed=2_147_483_647, length_grouping=False)),
               (600, dict(epochs=1, batch_size=500, lr=1e-9, warmup_ratio=0.0, max_grad_norm=1e-9, seed=0,
                          length_grouping=True)),
               (3, dict(epochs=3, batch_size=2, lr=0.5, warmup_ratio=0.5, max_grad_norm=0.0, seed=5,
                        length_grouping=True)),      # 0 and None: no clipping (TrainingArguments)
               (10, dict(epochs=2, batch_size=4, lr=0.05, warmup_ratio=0.3, max_grad_norm=None, seed=11,
                         length_grouping=False)))


class _LoopReached(BaseException):
    """Raised by the stand-in loop once it has seen its settings: the run itself need not happen (a BaseException, so
    that the student's own ``except Exception`` cannot swallow it)."""


class _TrainedElsewhere(BaseException):
    """Raised by a backward pass while the loops are stood in for: the function trains without any of them."""


def is_loop(value) -> bool:
    """Whether ``value`` is a training loop: a function taking every setting of notebook 03's loop (``epochs``,
    ``lr``, …, ``length_grouping``). A Python function is read from its code alone (cheap); anything else callable
    (a ``functools.partial``) from its signature."""
    import inspect
    code = getattr(value, "__code__", None)
    if code is not None:
        return set(LOOP_DEFAULTS) <= set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    try:
        return callable(value) and set(LOOP_DEFAULTS) <= set(inspect.signature(value).parameters)
    except (TypeError, ValueError):
        return False


def loops_named(fn: Callable) -> list[tuple[dict, str, Callable]]:
    """The training loops within ``fn``'s reach by name, as (namespace, name, loop): every global bound to a loop
    (:func:`is_loop`), whatever the name, in ``fn``'s namespace and in those of the functions it holds (its globals
    and closure) — a helper of the student's, or one defined elsewhere, looks its loop up there."""
    import types
    space = getattr(fn, "__globals__", None) or {}
    held = list(space.values()) + [c.cell_contents for c in (getattr(fn, "__closure__", None) or ())
                                   if c.cell_contents is not None]
    spaces = {id(space): space}
    for value in held:
        if isinstance(value, types.FunctionType):
            spaces.setdefault(id(value.__globals__), value.__globals__)
    return [(ns, name, value) for ns in spaces.values() for name, value in list(ns.items())
            if not name.startswith("__") and (isinstance(value, types.FunctionType) or ns is space) and is_loop(value)]


@contextmanager
def _loops_stood_in(fn: Callable, stand_in: Callable):
    """Within: every loop ``fn`` can reach — by name (:func:`loops_named`) and as its own default arguments
    (``loop=train_loop``) — replaced by ``stand_in(real)``, and every backward pass raising
    :class:`_TrainedElsewhere` (a run that trains without them stops at its first step)."""
    loops = loops_named(fn)
    defaults, kwdefaults = fn.__defaults__, fn.__kwdefaults__
    real_backward, real_autograd = torch.Tensor.backward, torch.autograd.backward

    def stop(*_a, **_k):
        raise _TrainedElsewhere
    try:
        for ns, name, value in loops:
            ns[name] = stand_in(value)
        if defaults:
            fn.__defaults__ = tuple(stand_in(d) if is_loop(d) else d for d in defaults)
        if kwdefaults:
            fn.__kwdefaults__ = {k: stand_in(d) if is_loop(d) else d for k, d in kwdefaults.items()}
        torch.Tensor.backward, torch.autograd.backward = stop, stop
        yield
    finally:
        torch.Tensor.backward, torch.autograd.backward = real_backward, real_autograd
        fn.__defaults__, fn.__kwdefaults__ = defaults, kwdefaults
        for ns, name, value in loops:
            ns[name] = value


def _stand_in_doing(on_call: Callable) -> Callable:
    """A factory for :func:`_loops_stood_in`: the stand-in for a loop ``real`` binds what it is given to ``real``'s
    signature (its defaults filled in) and returns ``on_call(real, settings)``. It carries ``real``'s name and
    signature, so a function that reads them (``inspect.signature``) reads its own loop's."""
    import inspect

    def stand_in(real):
        def loop(*a, **kw):
            try:
                bound = inspect.signature(real).bind(*a, **kw)
            except TypeError:
                return real(*a, **kw)   # the student's own call error, as their loop would raise it
            bound.apply_defaults()
            return on_call(real, dict(bound.arguments))
        try:
            return functools.update_wrapper(loop, real)
        except (AttributeError, TypeError):
            return loop
    return stand_in


def settings_at_loop(fn: Callable, args: tuple, what: str, loop_name: str = "train_loop",
                     inputs_checked: bool = True) -> tuple[str, dict] | None:
    """Call the student's ``fn(*args)`` (through :func:`call`, named ``what``) with every loop it can reach replaced
    by a stand-in that records the settings it is given — its signature's defaults filled in — and stops before the
    first step (:func:`_loops_stood_in`). Returns (the loop's name, its settings), or None where ``fn`` returned
    without training. A function that trains with something else (the library's ``fit``, a loop imported inside it)
    fails, stopped at its first backward pass: the exercise trains with the notebook's ``loop_name``. An argument
    changed in place before the loop fails too (``inputs_checked``: where the check looks at them itself, not)."""
    seen: list = []

    def reached(real, arguments: dict):
        seen.append((getattr(real, "__name__", loop_name), arguments))
        numerics.append(numerics_state())
        raise _LoopReached
    numerics: list = []
    stand_in = _stand_in_doing(reached)
    from . import _snapshot, require_unchanged
    before = [_snapshot(a) for a in args] if inputs_checked else []
    try:
        with _loops_stood_in(fn, stand_in):
            call(fn, *args, what=what)
    except _LoopReached:   # stopped inside `call`, before its own look at the arguments: look here
        require_unchanged(args, before, what)
    except _TrainedElsewhere:
        raise ExerciseError(f"{what} trained without a `{loop_name}` the check could find: it stands in for every "
                            f"training loop your function calls by a global name (or takes as a default argument), to "
                            f"read the settings it is given, and your function trained through something else — the "
                            f"library's fit, a loop imported inside the function, or one kept in a dict, a class or "
                            f"a closure\nHint: call `{loop_name}(...)`, the notebook's loop (your notebook 03's), by "
                            f"that name, as the exercise says") from None
    off = {k: v for k, v in (numerics[0] if numerics else {}).items() if v != NUMERICS_DEFAULT[k]}
    require(not off, f"{what}: when its loop started, the process computed otherwise than the recipe: "
            + "; ".join(f"{k} {v} (the recipe's: {NUMERICS_DEFAULT[k]})" for k, v in off.items()),
            "the recipe trains in float32: leave the process's settings (torch.set_autocast_enabled, "
            "torch.set_float32_matmul_precision, the default dtype) as they are")
    return seen[0] if seen else None


LOOP_WAIT_S = 0.25   # how long the run-through's stand-in loop waits before it returns


class _LoopAgain(BaseException):
    """Raised by the run-through stand-in when the function calls its loop a second time."""


def require_nothing_after_the_loop(fn: Callable, args: tuple, what: str, loop_name: str = "train_loop") -> None:
    """Call the student's ``fn(*args)`` with its loop stood in for by one that trains nothing and returns a made-up
    loss for each step: what the function does after its loop shows (trial 13: the model scaled, or trained on, after
    the loop, only for the real recipe's epochs). It must return the objective its loop was given, that model's
    weights and settings as the loop left them, and the loop's losses."""
    seen: list = []

    def run_through(real, settings: dict):
        if seen:
            raise _LoopAgain
        given = list(settings.values())
        steps = int(settings["epochs"]) * math.ceil(len(given[1]) / int(settings["batch_size"]))
        made_up = [round(1.0 / (k + 2), 9) for k in range(steps)]
        model = getattr(given[0], "model", given[0])
        seen.append((given[0], model, fingerprint(model), made_up))
        time.sleep(LOOP_WAIT_S)   # wall time that no CPU clock counts (trial 17: time.thread_time passed)
        return list(made_up)
    stand_in = _stand_in_doing(run_through)
    try:
        with _loops_stood_in(fn, stand_in):
            result = call(fn, *args, what=what)
    except _LoopAgain:
        raise ExerciseError(f"{what} called `{loop_name}` a second time: one call trains the whole recipe, its epochs "
                            f"included\nHint: call your loop once, with every setting of the recipe") from None
    except _TrainedElsewhere:
        raise ExerciseError(f"{what} trained on after its `{loop_name}` returned (the library's fit, or another "
                            f"loop)\nHint: the run is your loop's, once, as the recipe says: nothing more") from None
    if not seen or not (isinstance(result, (tuple, list)) and len(result) == 3):
        return   # no loop, or not three things: the checks after this one name it
    objective, model, at_loop, made_up = seen[0]
    require(result[0] is objective, f"{what} returned another objective than the one its loop trained",
            "return the objective you gave your loop")
    require_settings_kept(model, at_loop)   # the copy's settings were the start's at the loop: named as such
    require(fingerprint(model)[:-1] == at_loop[:-1] and not settings_changed(at_loop, model),
            f"{what} changed the model after its loop returned (the check runs your function with the notebook's "
            f"own recipe and data, its loop standing in and training nothing)",
            "return the model as your loop left it: no scaling, no more training, no setting changed afterwards — "
            "even for some recipes only")
    try:
        losses = [float(x) for x in result[1]]
    except Exception:  # noqa: BLE001 - what the losses are is named by the checks after this one
        return
    require(losses == made_up, f"{what} returned other losses than its loop's (the check's stand-in loop returned "
            f"{len(made_up)} made-up losses; your function returned {len(losses)}, not those)",
            "return the list your loop gave, as it is")
    seconds = result[2]
    require(not isinstance(seconds, (int, float)) or seconds >= LOOP_WAIT_S,
            f"{what} returned {seconds:.3g} seconds for a loop that took {LOOP_WAIT_S} s (the check's stand-in waited "
            f"that long, using no CPU): the seconds are not those of the whole loop, read by a wall clock",
            "read time.perf_counter() just before and just after your loop and return the difference as it is, in "
            "seconds — a CPU-time clock (time.process_time, time.thread_time) leaves out every moment the process "
            "waits")


def settings_differing(given: dict, wanted: dict, source: str | dict) -> list[str]:
    """Each setting of :data:`LOOP_DEFAULTS` that reached the loop (``given``) otherwise than ``wanted``, as
    "lr=0.001 where <source> says 7.5" (``source``: one for all, or one per setting)."""
    says = lambda k: source.get(k, "") if isinstance(source, dict) else source   # noqa: E731
    return [f"{k}={given.get(k)!r} where {says(k)} says {wanted[k]!r}" for k in LOOP_DEFAULTS
            if not _same_setting(given.get(k), wanted[k])]


def check_settings_passed(fn: Callable, name: str, start, data, notebook_recipe=None) -> int:
    """Call the student's ``fn(start, data, recipe)`` on :data:`SPY_RECIPES`, the loop stopped before its first step
    (:func:`settings_at_loop`): each setting must reach the loop as the recipe holds it. A clamp whose threshold no
    real run reaches, or a condition on the data, trains the same run on the check's recipes and shows only here. The
    training checks call it first: it names a setting more exactly than any run can. A function that trains without
    the loop, or not at all, fails. Returns how many recipes were read."""
    from ...training import TrainingArguments
    other = _other_weights(start)   # the check's own start: a function that trains a model of its own shows
    unusual = _unusual_examples(data)
    calls = [(other, TrainingArguments(**settings),
              [data[i % len(data)] for i in range(n - len(unusual) if n > 1000 else n)] + (unusual if n > 1000 else []),
              "TrainingArguments(" + ", ".join(f"{k}={v!r}" for k, v in settings.items()) + ")")
             for n, settings in SPY_RECIPES]
    if notebook_recipe is not None:   # and the notebook's own call: a condition true only there shows too
        calls.append((start, notebook_recipe, list(data), "the notebook's recipe"))
    untouched = {id(m): fingerprint(m) for m in (start, other)}
    for model, recipe, examples, shown in calls:
        what = f"{name}(start, {len(examples)} examples, {shown})"
        reached = settings_at_loop(fn, (model, examples, recipe), what)
        require_untouched(model, untouched[id(model)], "the notebook's rows")
        require(reached is not None, f"{what} returned without training: it never called `train_loop`",
                "train a copy of `start` with train_loop, the notebook's loop, on every call")
        loop, given = reached
        _require_copy_of_start(given, untouched[id(model)], what, loop)
        _require_data_as_passed(given, examples, what, loop)
        wrong = settings_differing(given, {k: getattr(recipe, k) for k in LOOP_DEFAULTS}, "the recipe")
        require(not wrong, f"{what} passed {'; '.join(wrong)} to {loop} (the check stops your loop before its first step "
                f"and reads what it was given)",
                "your function reads the notebook's `profile`: take every setting from `recipe`, the argument — the "
                "check passes recipes of its own" if "profile." in _source(fn) else
                "pass each setting as the recipe holds it: no number of your own, and no min, max, rounding, default "
                "or condition — the recipe decides, even for values no real run uses")
    if notebook_recipe is not None:   # what the function does after its loop, with the notebook's own call
        require_nothing_after_the_loop(fn, (start, list(data), notebook_recipe),
                                       f"{name}(start, {len(data)} examples, the notebook's recipe)")
        require_untouched(start, untouched[id(start)], "the notebook's rows")
    return len(calls)


def _unusual_examples(data) -> list:
    """Examples made from the first of ``data`` with what real data holds and a small profile's may not (trial 14:
    pairs with a non-ASCII character dropped passed on smoke, whose pairs have none): an accented word, two texts
    the same, a text of 300 words. The largest check recipe holds them, so a function that drops them is named."""
    first = data[0] if len(data) else None
    if not isinstance(first, tuple) or not any(isinstance(x, str) for x in first):
        return []
    texts = [x for x in first if isinstance(x, str)]
    variants = [lambda t, k: t + " — à la café", lambda t, k: texts[0], lambda t, k: " ".join([t] * 300)]
    return [tuple(change(x, k) if isinstance(x, str) else x for k, x in enumerate(first)) for change in variants]


def _require_copy_of_start(given: dict, start_print: tuple, what: str, loop: str) -> None:
    """The model reaching the loop — its first argument, or that objective's ``.model`` — has the weights of the
    ``start`` passed in (``start_print``, its :func:`fingerprint`): a copy of it, not a model built anew or the
    notebook's own. Anything else the loop is given is left to the runs to judge."""
    first = next(iter(given.values()), None)
    model = getattr(first, "model", first)
    if not isinstance(model, torch.nn.Module):
        return
    if first is not model and isinstance(first, torch.nn.Module):
        extra = own_weights(first)
        require(not extra, f"{what} gave {loop} an objective with weights of its own ({', '.join(extra)}): they "
                f"would train with the model", "the objective has nothing to learn: build it as your exercise above")
    now = fingerprint(model)
    require(now[:-1] == start_print[:-1],
            f"{what} gave {loop} a model whose weights are not those of the `start` passed in (the check passes a "
            f"start of its own)", "train a copy of `start`, the argument (copy.deepcopy(start)) — not a model "
            "built anew, and not the notebook's own start")
    changed = settings_changed(start_print, model)
    require(not changed, f"{what} gave {loop} a copy of `start` with its settings changed ({'; '.join(changed)})",
            "train the copy as `start` is: its pooling, length limit and normalisation, every weight trainable and "
            "its dropout are part of the run the recipe describes")


def _require_data_as_passed(given: dict, data, what: str, loop: str) -> None:
    """The examples reaching the loop (its second argument) are ``data`` as passed: every example, in its order, its
    texts and label unchanged — both read as training reads them (``prepare_examples`` with the loop's objective).
    Where either cannot be read so, the runs judge."""
    import numpy as np
    values = list(given.values())
    if len(values) < 2:
        return
    try:
        got, want = _as_examples(values[1], values[0]), _as_examples(data, values[0])
    except Exception:  # noqa: BLE001 - examples training cannot read are left to the runs (and their messages)
        return
    require(len(got) == len(want), f"{what} gave {loop} {len(got)} examples where `data` holds {len(want)}",
            "train on every example of `data`, each once: the recipe's epochs repeat them")
    same_label = lambda a, b: (np.array_equal(a, b) if isinstance(a, np.ndarray) or isinstance(b, np.ndarray)  # noqa: E731
                               else a == b)
    first = next((i for i, (a, b) in enumerate(zip(got, want)) if a.texts != b.texts or not same_label(a.label, b.label)),
                 None)
    if first is None:
        return
    by_texts = lambda xs: sorted(xs, key=lambda e: e.texts)   # noqa: E731 - a stable sort: duplicates keep their order
    if all(a.texts == b.texts and same_label(a.label, b.label) for a, b in zip(by_texts(got), by_texts(want))):
        raise ExerciseError(f"{what} gave {loop} the examples of `data` in another order (from example {first} on)"
                            f"\nHint: pass `data` in its own order: the loop's seed (and length grouping) decide the "
                            f"batches, the same for every run of the recipe")
    a, b = got[first], want[first]
    part = (f"its texts {a.texts!r} where `data` holds {b.texts!r}" if a.texts != b.texts else
            _label_change(a.label, b.label))
    raise ExerciseError(f"{what} gave {loop} example {first} changed: {part}\nHint: pass every example as `data` holds "
                        f"it — the texts and labels as they are; the objective reads each label as it is")


def _as_examples(items, objective) -> list:
    """``items`` as training reads them (``as_example``), each distinct item read once (the check's 25,000 examples
    repeat 48) and an ``Example`` taken as it is."""
    from ...training.examples import Example, as_example
    read: dict = {}
    out = []
    for i, item in enumerate(items):
        if isinstance(item, Example):
            out.append(item)
            continue
        if id(item) not in read:
            read[id(item)] = as_example(item, i, objective)
        out.append(read[id(item)])
    return out


def _label_change(got, want) -> str:
    """How the label ``got`` differs from ``want``: for vectors, where they differ most (trial 12: two vectors shown
    by their first numbers looked the same)."""
    import numpy as np
    if isinstance(got, np.ndarray) or isinstance(want, np.ndarray):
        a, b = np.asarray(got, dtype=np.float64).ravel(), np.asarray(want, dtype=np.float64).ravel()
        if a.shape != b.shape:
            return f"its label is a vector of {a.size} numbers where `data` holds one of {b.size}"
        k = int(np.argmax(np.abs(a - b)))
        return (f"its label differs from `data`'s by up to {abs(a[k] - b[k]):.3g} (number {k}: {a[k]:.8g} where `data` "
                f"holds {b[k]:.8g}; dtype {np.asarray(got).dtype} where `data` holds {np.asarray(want).dtype})")
    return f"its label {got!r} where `data` holds {want!r}"


def passed_as_is(read: int) -> str:
    """The OK message's part for :func:`check_settings_passed`'s count (nothing where no loop was read)."""
    return (f"; on {read} more calls, stopped at the loop (settings no real run uses, and the notebook's own), each "
            f"setting reached your loop as the recipe holds it"
            if read else "")


def _same_setting(given, wanted) -> bool:
    """A setting passed as the recipe holds it: equal, and a flag still a flag (``1`` for ``True`` is not). A clipping
    norm of None and one of 0 are the same setting (no clipping)."""
    if {given, wanted} <= {None, 0} and not isinstance(given, bool) and not isinstance(wanted, bool):
        return True
    try:
        return bool(given == wanted) and isinstance(given, bool) == isinstance(wanted, bool)
    except Exception:  # noqa: BLE001 - a value that cannot be compared is not the recipe's
        return False


def check_on_recipes(fn: Callable, name: str, start, data, notebook_recipe, make_loss: Callable,
                     run_parts: Callable, data_name: str) -> list:
    """Run the student's ``fn(start, data, recipe)`` (called ``name``) on the check's recipes over the first
    :data:`PROBE_EXAMPLES` examples of ``data`` (the notebook's ``data_name``, trained with ``notebook_recipe``):
    every loss and the trained weights must be :func:`recipe_run`'s with ``make_loss``. ``run_parts(result, start,
    before)`` checks what came back and gives (objective, step_losses). Returns the recipes used."""
    part = [data[i] for i in _scrambled(min(PROBE_EXAMPLES, len(data)))]   # sorting it in place would show
    start = _other_weights(start)   # a start of the check's own: a function that trains the notebook's global fails
    try:
        probes = probe_recipes(start, part, make_loss)
        for args in probes:
            _check_probe(fn, name, start, part, args, notebook_recipe, make_loss, run_parts, len(data), data_name)
    except ExerciseError as err:
        if "profile." not in _source(fn):
            raise
        raise ExerciseError(str(err).split("\nHint:")[0] + "\nHint: your function reads the notebook's `profile`: "
                            "take every setting from `recipe`, the argument — the check passes recipes of its "
                            "own") from err.__cause__
    return probes


def _check_probe(fn: Callable, name: str, start, part: list, args, notebook_recipe, make_loss: Callable,
                 run_parts: Callable, n_notebook: int, data_name: str) -> None:
    """One of the check's runs: ``fn(start, part, args)`` against :func:`recipe_run`, its seconds against the
    call's own duration."""
    import time
    before = fingerprint(start)
    what = (f"{name}(start, {len(part)} examples, TrainingArguments(epochs={args.epochs}, "
            f"batch_size={args.batch_size}, lr={args.lr:g}, …))")

    def timed():
        t0 = time.perf_counter()
        try:
            result = call(fn, start, part, args, what=what)
        except ExerciseError as err:
            if err.__cause__ is None:   # not done, or an input changed: the message says it all
                raise
            raise ExerciseError(str(err).split("\nHint:")[0] + f"\nHint: the check's recipe is not the notebook's "
                                f"({len(part)} examples, batch_size={args.batch_size}, seed={args.seed}, …): a setting "
                                f"hard-coded instead of read from `recipe` can fail here — otherwise the lines above "
                                f"show where your code stopped") from err.__cause__
        return result, time.perf_counter() - t0

    def fits(result, wall: float) -> bool:   # the loop is nearly all of the call
        try:
            return 0.6 * wall <= float(result[2]) <= 1.1 * wall + 0.05
        except Exception:  # noqa: BLE001 - what came back is judged below, with its own message
            return True
    result, wall = timed()
    if not fits(result, wall):
        result, wall = timed()   # once more: a machine busy elsewhere stretches a short call around its loop
    objective, step_losses = run_parts(result, start, before)
    got = [float(x) for x in step_losses]
    want, want_model = recipe_run(start, part, args, make_loss)
    if len(got) != len(want):   # before the seconds: a run of fewer steps is also a shorter share of the call
        raise ExerciseError(f"{what} ran {len(got)} steps; that recipe on those examples is {args.epochs} "
                            f"epoch(s) of {math.ceil(len(part) / args.batch_size)} batches = {len(want)}\nHint: "
                            + _steps_hint(len(got), args, notebook_recipe, len(part), n_notebook, data_name))
    seconds = float(result[2])
    if not fits(result, wall):
        raise ExerciseError(f"{what} returned {seconds:.4g} seconds, but the whole call took {wall:.2f} s\nHint: "
                            + ("more than the call itself: read time.perf_counter() just before and just after your "
                               "loop, and return the difference as it is, in seconds" if seconds > wall else
                               "far less than the call: the seconds are those of the loop, read with "
                               "time.perf_counter() just before and just after it, as they are, in seconds. If you "
                               "timed it so, something else in the function took most of the call: besides the loop "
                               "it should only copy the start and prepare the examples (the check times the whole "
                               "call; the loop must be nearly all of it)"))
    if not same_run(got, objective.model, want, want_model) and not _rounding_of_own_objective(
            got, objective, start, part, args, want):
        raise ExerciseError(f"{what}: its losses or trained weights are not those of the library's run of that "
                            f"recipe (the same start and seed)\nHint: "
                            + _which_setting(fn, got, objective.model, start, part, args, notebook_recipe, make_loss,
                                             want))
