"""Where things live and what hardware we run on: data directory, device, hub reachability."""
from __future__ import annotations

import os
import socket
import sys
import time
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import SettingError

if TYPE_CHECKING:  # torch is imported where a device is picked: `import sbertlib.data` stays quick
    import torch

DATA_DIR_ENV = "SBERTLIB_DATA_DIR"
HUB_HOST = "huggingface.co"
# How long sbertlib waits for the Hub (seconds); each is read at each call, so a change takes effect at once.
HUB_TIMEOUT_ENV = "SBERTLIB_HUB_TIMEOUT"  # the reachability check: one TCP connect (name lookup included)
HUB_REQUEST_TIMEOUT_ENV = "SBERTLIB_HUB_REQUEST_TIMEOUT"  # each request huggingface_hub sends (its etag/download)
HUB_WAIT_ENV = "SBERTLIB_HUB_WAIT"  # one download, all retries together, while no byte arrives
HUB_TIMEOUT_DEFAULT, HUB_REQUEST_TIMEOUT_DEFAULT, HUB_WAIT_DEFAULT = 5.0, 10.0, 60.0


def default_data_dir() -> Path:
    """``data/`` of this checkout when sbertlib runs from one — whatever the working directory (a
    notebook's kernel runs in ``notebooks/``) — else ``./data``."""
    project = Path(__file__).resolve().parent.parent
    return project / "data" if (project / "pyproject.toml").is_file() else Path("data")


def data_dir(explicit: str | os.PathLike | None = None) -> Path:
    """Resolve the data directory: explicit argument > ``$SBERTLIB_DATA_DIR`` > :func:`default_data_dir`.

    A relative ``$SBERTLIB_DATA_DIR`` is read from the working directory of each process; the
    notebook runners (``make workbook``, the tests) and ``make lab`` pass it on made absolute.
    """
    if explicit is not None:
        return Path(explicit).expanduser()
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser()
    return default_data_dir()


def data_dir_candidates(explicit: str | os.PathLike | None = None) -> list[Path]:
    """Every place searched for a data file, in order (named in error messages).

    An explicit argument is the only place searched; else ``$SBERTLIB_DATA_DIR`` alone; else the
    checkout's ``data/``, then ``./data``. A file is never read from a place the caller did not name.
    """
    if explicit is not None:
        return [Path(explicit).expanduser()]
    if os.environ.get(DATA_DIR_ENV):
        return [Path(os.environ[DATA_DIR_ENV]).expanduser()]
    places = [default_data_dir(), Path("data")]
    return places[:1] if places[0].absolute() == places[1].absolute() else places


def absolute_data_dir_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's environment) with ``$SBERTLIB_DATA_DIR`` made absolute
    against the current directory — for a child process that starts somewhere else (a kernel)."""
    env = dict(os.environ if env is None else env)
    if env.get(DATA_DIR_ENV):
        env[DATA_DIR_ENV] = str(Path(env[DATA_DIR_ENV]).expanduser().absolute())
    return env


def pick_device(preferred: str | torch.device | None = None) -> torch.device:
    """The device to run on: ``preferred`` if given, else cuda > mps > cpu. A process started by
    ``torchrun`` on a GPU machine gets its own GPU, ``cuda:LOCAL_RANK``."""
    import torch
    if preferred is not None:
        return check_device(preferred)
    if torch.cuda.is_available():
        return torch.device(f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def check_device(name: str | torch.device) -> torch.device:
    """``name`` as a device this machine has; ValueError naming it and what there is otherwise."""
    import torch
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError) as err:
        raise SettingError(f"unknown device {name!r}: use cpu, cuda, cuda:N or mps ({err})") from None
    there = "cpu" + (f", cuda:0 … cuda:{torch.cuda.device_count() - 1}" if torch.cuda.is_available() else "")
    mps = getattr(torch.backends, "mps", None)
    there += ", mps" if mps is not None and mps.is_available() else ""
    if device.type == "cuda" and (not torch.cuda.is_available() or (device.index or 0) >= torch.cuda.device_count()):
        raise SettingError(f"device {str(name)!r} is not on this machine (torch {torch.__version__}); it has {there}")
    if device.type == "mps" and not (mps is not None and mps.is_available()):
        raise SettingError(f"device {str(name)!r} is not on this machine (no Apple GPU); it has {there}")
    if device.type not in ("cpu", "cuda", "mps"):
        raise SettingError(f"device {str(name)!r} is not supported by sbertlib; this machine has {there}")
    return device


def hub_offline_flag() -> bool:
    """True when the user asked Hugging Face libraries to stay offline."""
    return any(os.environ.get(k, "").lower() in {"1", "true", "yes", "on"}
               for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def hub_endpoint() -> str:
    """The Hugging Face Hub's address: ``$HF_ENDPOINT`` (a mirror, or a local stand-in in the tests),
    else https://huggingface.co — read at each call, so a change takes effect at once."""
    return (os.environ.get("HF_ENDPOINT") or f"https://{HUB_HOST}").rstrip("/")


def hub_cache_dir() -> str | None:
    """Where Hub downloads are cached: ``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else the library's
    default (None) — read at each call, unlike huggingface_hub's import-time constant."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.path.expanduser(os.environ["HF_HUB_CACHE"])
    if os.environ.get("HF_HOME"):
        return os.path.join(os.path.expanduser(os.environ["HF_HOME"]), "hub")
    return None


def sync_hub_offline() -> None:
    """huggingface_hub reads ``HF_HUB_OFFLINE`` once, when it is imported; sbertlib decides from the
    environment as it is at each call (a notebook or a test may set or clear it later), so it tells
    the library the same just before asking the Hub."""
    from huggingface_hub import constants
    constants.HF_HUB_OFFLINE = hub_offline_flag()


def _seconds(env: str, default: float) -> float:
    """A positive number of seconds from ``$env``, else ``default``; anything else is named as an error."""
    text = os.environ.get(env, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value > 0 and value != float("inf")):
        raise SettingError(f"${env}={text!r}: expected a number of seconds above 0 (default {default:g})")
    return value


def hub_timeout() -> float:
    """Seconds the reachability check (:func:`hub_reachable`) waits for the Hub to accept a connection:
    ``$SBERTLIB_HUB_TIMEOUT``, default 5 (a slow campus network may need more)."""
    return _seconds(HUB_TIMEOUT_ENV, HUB_TIMEOUT_DEFAULT)


def hub_request_timeout() -> float:
    """Seconds huggingface_hub waits for an answer to each request it sends (its ``etag_timeout`` and
    ``HF_HUB_DOWNLOAD_TIMEOUT``): ``$SBERTLIB_HUB_REQUEST_TIMEOUT``, default 10 (huggingface_hub's own)."""
    return _seconds(HUB_REQUEST_TIMEOUT_ENV, HUB_REQUEST_TIMEOUT_DEFAULT)


def hub_wait() -> float:
    """Seconds sbertlib lets one download (a file, or a model's files) go on while no byte arrives —
    huggingface_hub's own retries and rate-limit waits included: ``$SBERTLIB_HUB_WAIT``, default 60.
    A download that keeps receiving bytes is never cut, however long it takes."""
    return _seconds(HUB_WAIT_ENV, HUB_WAIT_DEFAULT)


def sync_hub_timeouts() -> None:
    """Tell huggingface_hub sbertlib's per-request time-out (it reads its own once, at import)."""
    from huggingface_hub import constants
    seconds = hub_request_timeout()
    constants.HF_HUB_ETAG_TIMEOUT = seconds
    constants.HF_HUB_DOWNLOAD_TIMEOUT = seconds


def _host_port(endpoint: str) -> tuple[str, int]:
    url = urllib.parse.urlsplit(endpoint)
    return url.hostname or HUB_HOST, url.port or (80 if url.scheme == "http" else 443)


def _can_connect(host: str, port: int, timeout: float) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


_REACHABLE: dict[str, tuple[float, bool]] = {}
_REACHABLE_TTL = 30.0  # seconds an answer is reused (a notebook asks many times)
_SAID_UNREACHABLE: set[tuple[str, float]] = set()  # (endpoint, timeout) already reported as unreachable


def hub_reachable(timeout: float | None = None) -> bool:
    """Whether the Hub (:func:`hub_endpoint`) answers: one TCP connect, ``timeout`` seconds at most
    (default :func:`hub_timeout`, ``$SBERTLIB_HUB_TIMEOUT``) — the name lookup included (a socket
    time-out does not cover DNS, which can hang far longer). False at once when ``HF_HUB_OFFLINE`` is
    set. The answer is reused for 30 s. The first time it decides an endpoint is unreachable it says so
    on one line (stderr): which endpoint, after how long, and how to wait longer."""
    from concurrent.futures import ThreadPoolExecutor, TimeoutError
    if hub_offline_flag():
        return False
    timeout = hub_timeout() if timeout is None else float(timeout)
    endpoint = hub_endpoint()
    when, answer = _REACHABLE.get(endpoint, (-1e9, False))
    if time.monotonic() - when < _REACHABLE_TTL:
        return answer
    pool = ThreadPoolExecutor(max_workers=1)
    start = time.monotonic()
    try:
        answer = pool.submit(_can_connect, *_host_port(endpoint), timeout).result(timeout=timeout)
    except TimeoutError:
        answer = False
    finally:
        pool.shutdown(wait=False)
    _REACHABLE[endpoint] = (time.monotonic(), answer)
    if not answer and (endpoint, timeout) not in _SAID_UNREACHABLE:
        _SAID_UNREACHABLE.add((endpoint, timeout))
        print(f"sbertlib: the Hugging Face Hub at {endpoint} did not accept a connection "
              f"(gave up after {time.monotonic() - start:.1f} s of at most {timeout:g} s): working offline. "
              f"On a slow network allow longer with {HUB_TIMEOUT_ENV}=<seconds>.", file=sys.stderr)
    return answer


def _forget_reachability() -> None:
    _REACHABLE.clear()
    _SAID_UNREACHABLE.clear()


hub_reachable.cache_clear = _forget_reachability  # type: ignore[attr-defined]  # forget the answers (tests)
