"""What one notebook trains and a later one reuses: train-or-load of the workbook's models.

``trained_model(profile, objective)`` trains the profile's stage ``objective``
(``profile.stage(objective)``, :mod:`~sbertlib.workbook.stages`: what it starts from, its data, its
arguments, its recipe) the first time, saves it under ``output_dir()`` with its history, and simply
loads it on later calls (any notebook, any kernel), or from the class's read-only store when the
lecturer trained it with the same recipe.

``nli_model(profile)`` is "the model trained on NLI" that later notebooks use: the paper's
objective on ``paper``/``laptop``, MNRL offline (where the classification objective cannot teach a
random encoder: notebook 03).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from .. import places
from . import recipes, stages
from ..util import release_memory, safe_name
from ..errors import SettingError
from ..training.arguments import DEFAULT_SEED

OUTPUT_DIR_ENV = places.OUTPUT_DIR_ENV
OBJECTIVES = stages.NAMES


def output_dir(*parts: str, dry_run: bool | None = None, root: str | os.PathLike | None = None,
               create: bool = True) -> Path:
    """The user's output folder joined with ``parts``, created: ``root`` when given (the CLI's
    ``--output-dir``), else ``$SBERTLIB_OUTPUT_DIR``, else the user's data folder — never beside the
    installed package (:mod:`sbertlib.places`); ``dry-run/`` inside it in a dry run (``dry_run``,
    default ``$SBERTLIB_DRY_RUN``), so random-weight models never mix with trained ones."""
    from .profiles import dry_run_requested
    return places.output_dir(*parts, dry_run=dry_run_requested() if dry_run is None else dry_run, root=root,
                             create=create)


_output_dir = output_dir  # for the functions whose ``output_dir=`` argument hides its name


def eval_limit(profile) -> int | None:
    """How many pairs of an evaluation set this profile uses (None = all)."""
    return profile.eval_pairs


def model_dir(profile, objective: str, seed: int = DEFAULT_SEED, pooling: str = "mean",
              mixed_precision: str | None = None, overrides: dict | None = None,
              output_dir: str | os.PathLike | None = None, create: bool = True) -> Path:
    """Where ``objective``'s model lives (created unless ``create=False``); a mixed-precision run has its own folder
    (``...-bf16``), and so has a run with changed training arguments (``...-epochs2-lr0.001``). Under ``output_dir``
    when given, else under :func:`output_dir`'s default (``$SBERTLIB_OUTPUT_DIR``, ...); ``dry-run/`` inside
    it for a dry-run profile (or with ``$SBERTLIB_DRY_RUN`` set)."""
    return _output_dir(profile.name, _run_name(profile, objective, seed, pooling, mixed_precision, overrides),
                       dry_run=_dry(profile), root=output_dir, create=create)


def _run_name(profile, objective: str, seed: int, pooling: str, mixed_precision: str | None,
              overrides: dict | None) -> str:
    """The folder name of a run: objective, backbone, pooling, seed, and what differs from the profile."""
    profile.stage(objective)   # an unknown objective: a SettingError naming the known ones
    amp = f"-{mixed_precision}" if mixed_precision else ""
    changed = "".join(f"-{k.replace('_', '')}{v}" for k, v in sorted((overrides or {}).items()))
    return f"{objective}-{safe_name(profile.backbone)}-{pooling}-seed{seed}{amp}{safe_name(changed) if changed else ''}"


def _dry(profile) -> bool | None:
    """A dry-run profile's models go to dry-run/ whatever the environment says; else $SBERTLIB_DRY_RUN decides."""
    return True if getattr(profile, "dry_run", False) else None


def shared_run(profile, objective: str, seed: int = DEFAULT_SEED, pooling: str = "mean",
               mixed_precision: str | None = None, overrides: dict | None = None) -> Path | None:
    """The class's copy of this run in the read-only store ``$SBERTLIB_SHARED_RUNS``
    (:func:`sbertlib.places.shared_runs_dir`), when it is complete and its recipe is the one the profile
    gives now; else None. Nothing is written there."""
    root = places.shared_runs_dir()
    if root is None:
        return None
    from .profiles import dry_run_requested
    dry = _dry(profile) or (_dry(profile) is None and dry_run_requested())
    folder = (root / "dry-run" if dry else root) / profile.name / _run_name(
        profile, objective, seed, pooling, mixed_precision, overrides)
    recorded = _recorded(folder)
    recipe = profile.stage(objective).recipe(seed, pooling, mixed_precision, overrides)
    same = recorded is not None and recipes.fingerprint(recorded.recipe) == recipes.fingerprint(recipe)
    return folder if same else None


def trained_model(profile, objective: str = "nli", seed: int = DEFAULT_SEED, pooling: str = "mean",
                  retrain: bool = False, data_dir=None, show_progress_bar: bool = True,
                  mixed_precision: str | None = None, overrides: dict | None = None,
                  output_dir: str | os.PathLike | None = None):
    """(encoder, history) for ``objective`` on ``profile``: loaded if trained before, else trained now.

    Reproducible: the same profile, objective and seed give the same weights whatever ran before
    (everything is seeded before the classifier head is built). The NLI classifier head is saved
    beside the encoder (``classifier.pt``), so a notebook can reload it. ``mixed_precision``
    (``"bf16"``/``"fp16"``) trains under autocast (see :func:`sbertlib.training.fit`); ``overrides``
    change the training arguments (:meth:`Stage.arguments <sbertlib.workbook.stages.Stage.arguments>`) of every stage
    trained, each such run in its own folder. ``retrain=True`` replaces an earlier run's folder.
    ``output_dir`` (default ``$SBERTLIB_OUTPUT_DIR``, ...: :func:`model_dir`) holds this run and every
    run it starts from (an earlier stage, a trained teacher). A run not there is loaded from the class's
    read-only store (:func:`shared_run`) when the lecturer trained it with this recipe; else it trains here.
    """
    from ..model.encoder import SentenceEncoder
    from .profiles import with_precision
    stage = profile.stage(objective)
    folder = model_dir(profile, objective, seed, pooling, mixed_precision, overrides, output_dir, create=False)
    recipe = stage.recipe(seed, pooling, mixed_precision, overrides)
    if not retrain:
        recorded = _recorded(folder)
        if recorded is not None and recipes.fingerprint(recorded.recipe) == recipes.fingerprint(recipe):
            return with_precision(SentenceEncoder.load(folder / "final"), profile), recorded
        if recorded is not None:
            print(f"sbertlib: {folder} was trained with another recipe ({recipes.differences(recorded.recipe, recipe)}): "
                  f"training it again.", file=sys.stderr)
        shared = shared_run(profile, objective, seed, pooling, mixed_precision, overrides)
        if shared is not None:
            return with_precision(SentenceEncoder.load(shared / "final"), profile), _recorded(shared)
        if places.shared_runs_dir() is not None:
            print(f"sbertlib: the class's shared runs ({places.shared_runs_dir()}) hold no {objective!r} run of this "
                  f"recipe: training your own, in {folder}.", file=sys.stderr)
    taught_by = teacher(profile, seed, data_dir, output_dir) if stage.teacher else None
    model = _start(stage, seed, pooling, data_dir, show_progress_bar, mixed_precision, overrides, output_dir, taught_by)
    history = stage.train(model, fresh_folder(folder), seed, pooling, data_dir, taught_by, show_progress_bar,
                          mixed_precision, overrides)
    from ..training import distributed
    if distributed.rank() == 0:  # under torchrun every rank trains; one writes
        history.save(folder / "history.json")
    distributed.barrier(distributed.world_size())  # the others see it before they ask is_trained
    return model, history


def nli_model(profile, seed: int = DEFAULT_SEED, pooling: str = "mean", **kwargs):
    """(encoder, history) of the profile's NLI lesson (``profile.nli_objective``): what later
    notebooks call "trained on NLI"."""
    return trained_model(profile, profile.nli_objective, seed, pooling, **kwargs)


def _start(stage, seed: int, pooling: str, data_dir, show_progress_bar: bool, mixed_precision, overrides,
           output_dir, taught_by):
    """What ``stage`` trains from: the run of the stage it goes on from (trained now if it is not yet), a student
    made under its teacher ``taught_by``, or the profile's backbone with ``pooling``."""
    if stage.starts_from:
        return trained_model(stage.profile, stage.starts_from, seed, pooling, False, data_dir, show_progress_bar,
                             mixed_precision, overrides, output_dir)[0]
    if stage.teacher:
        from ..training.distillation import make_student
        return make_student(stage.profile.distill_student, taught_by)
    from .profiles import load_encoder
    model = load_encoder(stage.profile)
    model.pooling = pooling
    return model


def teacher(profile, seed: int = DEFAULT_SEED, data_dir=None, output_dir: str | os.PathLike | None = None):
    """The encoder the profile's distillation learns from: its reference (the packaged MiniLM) or its teacher
    stage's run (``profile.distill_teacher``; trained now if it is not yet, under ``output_dir``)."""
    name = profile.stage("distill").teacher
    if name != "reference":
        return trained_model(profile, name, seed, data_dir=data_dir, show_progress_bar=False, output_dir=output_dir)[0]
    from .profiles import load_reference
    model = load_reference(profile)
    if model is None:
        raise SettingError(f"profile {profile.name!r} has no reference encoder to distil from")
    return model


def is_trained(profile, objective: str, seed: int = DEFAULT_SEED, pooling: str = "mean",
               mixed_precision: str | None = None, overrides: dict | None = None,
               output_dir: str | os.PathLike | None = None, shared: bool = True) -> bool:
    """True when ``trained_model(profile, objective)`` would load rather than train: a complete run is
    there, trained with the recipe the profile gives now (:mod:`~sbertlib.workbook.recipes`) — in the
    user's own folder, or (``shared=True``) in the class's store (:func:`shared_run`). A notebook whose
    exercise trains the student's own code asks ``shared=False``: the student sees it train."""
    folder = model_dir(profile, objective, seed, pooling, mixed_precision, overrides, output_dir, create=False)
    recorded = _recorded(folder)
    if recorded is not None and recipes.fingerprint(recorded.recipe) == recipes.fingerprint(
            profile.stage(objective).recipe(seed, pooling, mixed_precision, overrides)):
        return True
    return shared and shared_run(profile, objective, seed, pooling, mixed_precision, overrides) is not None


def _recorded(folder: Path):
    """The :class:`History` of the complete run in ``folder``, or None (nothing there, or unreadable)."""
    from ..training import History
    if not ((folder / "final").is_dir() and (folder / "history.json").is_file()):
        return None
    try:
        return History.load(folder / "history.json")
    except (OSError, ValueError, TypeError):
        return None


def save_run(profile, objective: str, loss, step_losses, seconds: float, lr: float, warmup_ratio: float = 0.1,
             seed: int = DEFAULT_SEED, pooling: str = "mean", trained_by: str = "notebook", **settings):
    """Store a model trained in a notebook (e.g. by the student's own loop, checked equal to ``fit``)
    where :func:`trained_model` and :func:`is_trained` find it — ``model_dir(profile, objective, seed,
    pooling)``, emptied first so nothing of an earlier run stays beside it; returns its :class:`History`
    (one record per step, with the learning rate of fit's schedule for ``lr`` and ``warmup_ratio``,
    which that loop follows). ``settings`` (e.g. ``epochs``, ``batch_size``) are recorded with ``trained_by``.
    Its recipe is the profile's for ``objective``, with the ``lr``, ``warmup_ratio``, ``epochs`` and
    ``batch_size`` the loop was given: a loop run with other settings than the profile's is not loaded
    later as the profile's model (:func:`trained_model` trains that one again)."""
    import math

    import torch

    from ..training import History, linear_warmup
    total = len(step_losses)
    if total == 0:
        raise SettingError(f"no training steps to save for {objective!r}: the loop returned no losses")
    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=lr)
    schedule = linear_warmup(optimizer, math.ceil(warmup_ratio * total), total)
    lrs = []
    for _ in range(total):
        lrs.append(schedule.get_last_lr()[0])
        optimizer.step()
        schedule.step()
    given = {"lr": lr, "warmup_ratio": warmup_ratio,
             **{k: settings[k] for k in ("epochs", "batch_size") if k in settings}}
    stage = profile.stage(objective)
    recipe = stage.recipe(seed, pooling)
    recipe["args"].update(given)
    folder = fresh_folder(model_dir(profile, objective, seed, pooling))
    folder.mkdir(parents=True, exist_ok=True)
    history = History(profile=profile.name, backbone=profile.backbone, loss=type(loss).__name__,
                      total_steps=total, seconds=float(seconds),
                      settings={"trained_by": trained_by, "lr": lr, **settings}, recipe=recipe,
                      records=[{"step": k + 1, "loss": float(v), "lr": lrs[k]} for k, v in enumerate(step_losses)])
    history.contamination = stage.contamination(seed)
    loss.model.save(folder / "final")
    history.save(folder / "history.json")
    release_memory()   # the notebook's loop has ended: its optimizer's memory goes back to the system
    return history


def sts_suite(profile) -> tuple[list[str], dict[str, int | None]]:
    """``(datasets, caps)`` of Table 1 as the notebooks evaluate it on ``profile`` (04, 14): smoke, STSb test
    and STS12 on small samples; offline, 500 pairs of each set but all of STSb test; laptop and paper,
    every pair (minutes per model on a CPU)."""
    from .. import data
    if profile.name == "smoke":
        return ["sts12", "stsb-test"], {"sts12": eval_limit(profile), "stsb-test": eval_limit(profile)}
    full = profile.name in ("laptop", "paper")
    datasets = list(data.STS_DATASETS)
    return datasets, {name: None if full or name == "stsb-test" else 500 for name in datasets}


def fresh_folder(folder: Path) -> Path:
    """Empty a run's own folder (under the output directory) before training into it again: ``fit``
    refuses a folder that holds an earlier run. Under several processes rank 0 deletes."""
    import shutil

    from ..training import distributed
    if distributed.rank() == 0 and folder.exists():
        shutil.rmtree(folder)
    distributed.barrier(distributed.world_size())
    return folder
