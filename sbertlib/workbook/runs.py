"""What one notebook trains and a later one reuses: train-or-load of the workbook's models.

``trained_model(profile, "nli")`` fine-tunes the profile's backbone with the classification
objective on the profile's NLI data the first time, saves it under ``output_dir()`` with its
history, and simply loads it on later calls (any notebook, any kernel). ``"stsb"`` trains with
the regression objective on STSb train; ``"nli+stsb"`` continues the NLI model on STSb (the
paper's two-stage set-up, Table 2).
"""
from __future__ import annotations

import os
import random
from pathlib import Path

OUTPUT_DIR_ENV = "SBERTLIB_OUTPUT_DIR"
OBJECTIVES = ("nli", "stsb", "nli+stsb")


def output_dir(*parts: str) -> Path:
    """``$SBERTLIB_OUTPUT_DIR`` (default ``runs/`` at the repository root), joined with ``parts``."""
    base = os.environ.get(OUTPUT_DIR_ENV) or str(Path(__file__).resolve().parents[2] / "runs")
    path = Path(base).joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def eval_limit(profile) -> int | None:
    """How many pairs of an evaluation set this profile uses (None = all)."""
    return profile.eval_pairs


def model_dir(profile, objective: str, seed: int = 42, pooling: str = "mean") -> Path:
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}; choose one of {OBJECTIVES}")
    safe_backbone = profile.backbone.replace("/", "__")
    return output_dir(profile.name, f"{objective.replace('+', '_')}-{safe_backbone}-{pooling}-seed{seed}")


def trained_model(profile, objective: str = "nli", seed: int = 42, pooling: str = "mean",
                  retrain: bool = False, data_dir=None, show_progress_bar: bool = True):
    """(encoder, history) for ``objective`` on ``profile``: loaded if trained before, else trained now.

    Reproducible: the same profile, objective and seed give the same weights whatever ran before
    (everything is seeded before the classifier head is built). The NLI classifier head is saved
    beside the encoder (``classifier.pt``), so a notebook can reload it.
    """
    from ..model.encoder import SentenceEncoder
    from ..training import History
    folder = model_dir(profile, objective, seed, pooling)
    final, hist_file = folder / "final", folder / "history.json"
    if final.is_dir() and hist_file.is_file() and not retrain:
        return SentenceEncoder.load(final), History.load(hist_file)
    if objective == "nli+stsb":
        start, _ = trained_model(profile, "nli", seed, pooling, False, data_dir, show_progress_bar)
    else:
        from .profiles import load_encoder
        start = load_encoder(profile)
        start.pooling = pooling
    history = _train(profile, objective, start, folder, seed, data_dir, show_progress_bar)
    history.save(hist_file)
    return start, history


def training_setup(profile, objective: str, model, seed: int = 42, data_dir=None):
    """``(loss, train_data, fit keyword arguments)`` of ``objective`` on ``profile`` — what
    :func:`trained_model` runs, for a notebook that runs it in the open. Seeds everything first,
    so the classifier head starts from the same weights every time."""
    from .. import data, losses
    from ..evaluation import stsb_dev_evaluator
    from ..training import seed_everything
    from .profiles import load_nli_train
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}; choose one of {OBJECTIVES}")
    seed_everything(seed)
    evaluator = stsb_dev_evaluator(data_dir, max_pairs=profile.dev_pairs_during_training)
    kwargs = dict(batch_size=profile.batch_size, seed=seed, evaluator=evaluator,
                  evaluation_steps=profile.evaluation_steps, profile=profile.name)
    if objective == "nli":
        train = load_nli_train(profile, data_dir)
        loss = losses.SoftmaxLoss(model, num_labels=len(data.NLI_LABELS))
        return loss, train, {**kwargs, "epochs": profile.epochs, "save_head": True}
    train = data.load_stsb("train", data_dir)
    random.Random(seed).shuffle(train)
    train = train[:profile.stsb_train_pairs] if profile.stsb_train_pairs else train
    return losses.CosineSimilarityLoss(model), train, {**kwargs, "epochs": profile.stsb_epochs}


def _train(profile, objective: str, model, folder: Path, seed: int, data_dir, show_progress_bar: bool):
    from ..training import fit
    loss, train, kwargs = training_setup(profile, objective, model, seed, data_dir)
    return fit(model, loss, train, output_dir=folder, show_progress_bar=show_progress_bar, **kwargs)
