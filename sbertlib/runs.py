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

# STSb regression training per profile: (max training pairs or None for all, epochs).
# The paper trains 4 epochs on all 5,749 pairs; the CPU profiles do less.
STSB_TRAINING = {"smoke": (64, 1), "offline": (1000, 1), "laptop": (None, 2), "paper": (None, 4)}
# Pairs used from each evaluation set (None = all): smoke keeps notebooks to seconds.
EVAL_PAIRS = {"smoke": 200, "offline": None, "laptop": None, "paper": None}
# STSb dev pairs scored *during* training (the final tables always use full sets where EVAL_PAIRS says so).
DEV_PAIRS_DURING_TRAINING = {"smoke": 200, "offline": 500, "laptop": None, "paper": None}


def output_dir(*parts: str) -> Path:
    """``$SBERTLIB_OUTPUT_DIR`` (default ``runs/`` at the repository root), joined with ``parts``."""
    base = os.environ.get(OUTPUT_DIR_ENV) or str(Path(__file__).resolve().parents[1] / "runs")
    path = Path(base).joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def eval_limit(profile) -> int | None:
    """How many pairs of an evaluation set this profile uses (None = all)."""
    return EVAL_PAIRS.get(profile.name)


def model_dir(profile, objective: str, seed: int = 42, pooling: str = "mean") -> Path:
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}; choose one of {OBJECTIVES}")
    safe_backbone = profile.backbone.replace("/", "__")
    return output_dir(profile.name, f"{objective.replace('+', '_')}-{safe_backbone}-{pooling}-seed{seed}")


def trained_model(profile, objective: str = "nli", seed: int = 42, pooling: str = "mean",
                  retrain: bool = False, data_dir=None, show_progress_bar: bool = True):
    """(encoder, history) for ``objective`` on ``profile``: loaded if trained before, else trained now."""
    from .models import SentenceEncoder
    from .training import History
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


def _train(profile, objective: str, model, folder: Path, seed: int, data_dir, show_progress_bar: bool):
    from . import data, losses, training
    from .profiles import load_nli_train
    evaluator = training.stsb_dev_evaluator(data_dir, max_pairs=DEV_PAIRS_DURING_TRAINING.get(profile.name))
    if objective == "nli":
        train = load_nli_train(profile, data_dir)
        loss, epochs = losses.SoftmaxLoss(model, num_labels=3), profile.epochs
    else:
        max_pairs, epochs = STSB_TRAINING[profile.name]
        train = data.load_stsb("train", data_dir)
        random.Random(seed).shuffle(train)
        train = train[:max_pairs] if max_pairs else train
        loss = losses.CosineSimilarityLoss(model)
    return training.fit(model, loss, train, epochs=epochs, batch_size=profile.batch_size, seed=seed,
                        evaluator=evaluator, evaluation_steps=profile.evaluation_steps,
                        output_dir=folder, profile=profile.name, show_progress_bar=show_progress_bar)
