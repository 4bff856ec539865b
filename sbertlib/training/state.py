"""Everything a resumed run needs to continue exactly: random-number states and checkpoints.

A checkpoint holds the weights, the loss's own head, optimizer, scheduler, grad scaler, every RNG
state and the history, plus a *fingerprint* of the run (data digest, settings, the loss and its
hyper-parameters, the encoder's architecture): resuming with anything different is refused.
"""
from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import torch

from ..losses import TrainingLoss
from ..util import atomic_write, digest
from .examples import Example
from .history import History
from ..errors import SettingError

CHECKPOINT_DIR, CHECKPOINT_FILE = "checkpoint", "state.pt"


# ----------------------------------------------------------------------------- RNG state
def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def rng_state() -> dict:
    """Every random-number state training touches (dropout uses torch's), as plain lists/tensors.

    The data order needs no state here: each epoch's order is a pure function of ``(seed, epoch)``
    (:func:`epoch_batches`), and the position in the epoch follows from the step.
    """
    py = random.getstate()
    np_state = np.random.get_state()
    state = {"python": [py[0], list(py[1]), py[2]],
             "numpy": [np_state[0], np_state[1].tolist(), *np_state[2:]],
             "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
    name, keys, *rest = state["numpy"]
    np.random.set_state((name, np.array(keys, dtype=np.uint32), *rest))
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


# ----------------------------------------------------------------------------- checkpoints
def checkpoint_path(output_dir: str | os.PathLike) -> Path:
    return Path(output_dir) / CHECKPOINT_DIR / CHECKPOINT_FILE


def fingerprint(examples: list[Example], loss: TrainingLoss, **settings) -> dict:
    """What a checkpoint must match to be resumed: the data, the settings, the loss with its
    hyper-parameters, and the encoder's architecture (every weight's name and shape), pooling,
    normalisation and sequence length. The starting weights need not match: all come from the
    checkpoint."""
    model = loss.model
    shapes = [(k, tuple(v.shape)) for k, v in model.state_dict().items()]
    return {"loss": type(loss).__name__, "loss_settings": loss.settings(),
            "architecture": f"{type(getattr(model, 'backbone', model)).__name__}, {len(shapes)} tensors",
            "pooling": getattr(model, "pooling", None), "normalize": getattr(model, "normalize", None),
            "max_seq_length": getattr(model, "max_seq_length", None), "weight_shapes": digest(shapes, 12),
            "n_examples": len(examples), "data_sha1": digest(examples), **settings}


def save_checkpoint(path: Path, step: int, loss: TrainingLoss, optimizer, scheduler, scaler,
                    history: History, fingerprint: dict, rank_rngs: list[dict] | None = None) -> None:
    """Write everything a resumed run needs to ``path``, atomically (the old checkpoint stays
    valid until the new one is complete). Under several processes ``rank_rngs`` holds every rank's
    random state (rank 0's first), so one file holds the whole run at one step."""
    rngs = rank_rngs or [rng_state()]
    state = {"step": step, "model": loss.model.state_dict(), "head": loss.head_state(),
             "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
             "scaler": scaler.state_dict() if scaler is not None else None,
             "rng": rngs[0], "other_ranks_rng": rngs[1:], "history": history.to_dict(), "fingerprint": fingerprint}
    atomic_write(path, lambda tmp: torch.save(state, tmp))


def load_checkpoint(path: Path, loss: TrainingLoss, optimizer, scheduler, scaler,
                    fingerprint: dict, rank: int = 0) -> tuple[int, History]:
    """Restore everything :func:`save_checkpoint` wrote (the random state of process ``rank``);
    returns ``(step, history)``.

    ValueError, naming each difference, when the checkpoint was written for another run.
    """
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        state["fingerprint"], state["step"]  # noqa: B018  (a file of another kind is damaged for us)
    except (RuntimeError, EOFError, OSError, KeyError, TypeError, ValueError) as err:
        raise SettingError(f"cannot resume from {path}: the checkpoint is damaged or incomplete ({type(err).__name__}: "
                           f"{str(err).splitlines()[0][:120] if str(err) else 'no detail'}); delete it (or the "
                           "folder) and start again with resume=False") from None
    saved = state["fingerprint"]
    missing = object()  # a key one side lacks differs (a run of 2 processes vs one that never said)
    changed = {k: (saved.get(k, missing), fingerprint.get(k, missing)) for k in {**saved, **fingerprint}
               if saved.get(k, missing) != fingerprint.get(k, missing)}
    if changed:
        shown = lambda v: "(not recorded)" if v is missing else repr(v)  # noqa: E731
        desc = "; ".join(f"{k}: checkpoint {shown(old)}, now {shown(new)}" for k, (old, new) in sorted(changed.items()))
        raise SettingError(f"cannot resume from {path}: it was written for other settings ({desc}). "
                           "Use the same data and settings, or resume=False to start over.")
    loss.model.load_state_dict(state["model"])
    loss.load_head_state(state["head"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    if scaler is not None and state["scaler"] is not None:
        scaler.load_state_dict(state["scaler"])
    rngs = [state["rng"], *state.get("other_ranks_rng", [])]
    if rank >= len(rngs):
        raise SettingError(f"cannot resume rank {rank} from {path}: it holds the random state of "
                           f"{len(rngs)} process(es); resume with as many processes as wrote it")
    set_rng_state(rngs[rank])
    return int(state["step"]), History.from_dict(state["history"])
