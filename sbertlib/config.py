"""Where things live and what hardware we run on: data directory, device, hub reachability."""
from __future__ import annotations

import functools
import os
import socket
from pathlib import Path

import torch

DATA_DIR_ENV = "SBERTLIB_DATA_DIR"
HUB_HOST = "huggingface.co"


def data_dir(explicit: str | os.PathLike | None = None) -> Path:
    """Resolve the data directory: explicit argument > ``$SBERTLIB_DATA_DIR`` > ``./data``."""
    if explicit is not None:
        return Path(explicit).expanduser()
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser()
    return Path("data")


def data_dir_candidates(explicit: str | os.PathLike | None = None) -> list[Path]:
    """Every place searched for a data file, in order (used in error messages)."""
    places = []
    if explicit is not None:
        places.append(Path(explicit).expanduser())
    if os.environ.get(DATA_DIR_ENV):
        places.append(Path(os.environ[DATA_DIR_ENV]).expanduser())
    places.append(Path("data"))
    out: list[Path] = []
    for p in places:
        if p not in out:
            out.append(p)
    return out


def pick_device(preferred: str | torch.device | None = None) -> torch.device:
    """The device to run on: ``preferred`` if given, else cuda > mps > cpu."""
    if preferred is not None:
        return torch.device(preferred)
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def hub_offline_flag() -> bool:
    """True when the user asked Hugging Face libraries to stay offline."""
    return any(os.environ.get(k, "").lower() in {"1", "true", "yes", "on"}
               for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def _can_connect(host: str, timeout: float) -> bool:
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            return True
    except OSError:
        return False


@functools.lru_cache(maxsize=1)
def hub_reachable(timeout: float = 1.5) -> bool:
    """Quick check whether the HF hub is reachable: one TCP connect, ``timeout`` seconds at most —
    the name lookup included (a socket time-out does not cover DNS, which can hang far longer)."""
    from concurrent.futures import ThreadPoolExecutor, TimeoutError
    if hub_offline_flag():
        return False
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        return pool.submit(_can_connect, HUB_HOST, timeout).result(timeout=timeout)
    except TimeoutError:
        return False
    finally:
        pool.shutdown(wait=False)
