"""Data sets from the Hugging Face Hub: each pinned to a commit, downloaded once into the Hub cache
(resumable, with a progress bar; ``HF_HUB_OFFLINE`` honoured), checked against the hash the Hub
announced for that commit, and read into plain rows.

A file in a local data folder always wins (see :mod:`sbertlib.data.files`); the Hub is asked only
for what no local folder holds. ``$SBERTLIB_DATA_SOURCE=local`` never asks it. The catalogue
(:data:`CATALOGUE`) names every repository, revision and file; ``data/README.md`` tells how each
Hub copy differs from the paper-era file.

For a class on one server: every download is bounded (:func:`bounded`: ``$SBERTLIB_HUB_REQUEST_TIMEOUT``
per request, ``$SBERTLIB_HUB_WAIT`` without progress, a long ``Retry-After`` refused at once) and fails
saying what happened and that the lecturer should fill a shared cache with ``python -m sbertlib fetch``;
a damaged file in a cache this process may not write is named, not removed. A data set whose Hub
revision is gone falls back to its original files (``HubDataset.fallback``), saying so.
"""
from __future__ import annotations

import gzip
import hashlib
import importlib
import json
import logging
import os
import re
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

from .. import config
from ..util import sha256_file
from .records import ChecksumError, DataFormatError, DataNotFoundError
from .sources import original_url
from ..errors import SettingError

SOURCE_ENV = "SBERTLIB_DATA_SOURCE"  # "auto" (local folder, then the Hub), "local" (never the Hub)
T = TypeVar("T")


@dataclass(frozen=True)
class HubDataset:
    """One data set on the Hub at one commit: ``files`` maps a split to a file of the repository."""

    name: str
    repo_id: str
    revision: str  # a full commit hash: the same bytes for every student, whatever is pushed later
    files: dict[str, str]
    licence: str
    differs: str = ""  # how this copy differs from the paper-era file, if it does
    columns: tuple[str, ...] = field(default=())  # the columns the loaders read
    # Where the data come from when this Hub copy is gone (its revision or repository not found): the
    # original files, whose URLs data.sources.SOURCES / ARCHIVE_SOURCES list. Every entry whose revision is
    # not a commit that could be checked holds one (a test asserts it): a branch can move or vanish.
    fallback: str = ""
    revision_note: str = ""  # what kind of commit the revision is, where that matters (shown in data/README.md)

    def filename(self, split: str) -> str:
        if split not in self.files:
            raise SettingError(f"{self.name} ({self.repo_id}) has splits {sorted(self.files)}, not {split!r}")
        return self.files[split]


def _mteb_sts(year: int, revision: str) -> HubDataset:
    return HubDataset(f"sts{year}", f"mteb/sts{year}-sts", revision, {"test": "test.jsonl.gz"},
                      "per subset, see the SemEval task page", columns=("sentence1", "sentence2", "score"),
                      differs=f"MTEB's copy: subsets pooled into one test split without their names "
                              f"(records carry source 'STS{year}'); sentences raw, as released")


_NLI_IDS = ("entailment", "neutral", "contradiction")  # the Hub's label ids (SNLI, AllNLI, SICK)

CATALOGUE: dict[str, HubDataset] = {d.name: d for d in (
    HubDataset("stsb", "mteb/stsbenchmark-sts", "b0fddb56ed78048fa8b90373c8a3cfc37b684831",
               {"train": "train.jsonl.gz", "dev": "validation.jsonl.gz", "test": "test.jsonl.gz"},
               "CC BY-SA 4.0 (scores); texts keep their sources' licences",
               columns=("score", "sentence1", "sentence2"),
               differs="MTEB's copy of sentence-transformers' stsbenchmark.tsv.gz: the same pairs and scores (0-5)"),
    _mteb_sts(12, "a0d554a64d88156834ff5ae9920b964011b16384"),
    _mteb_sts(13, "7e90230a92c190f1bf69ae9002b8cea547a64cca"),
    _mteb_sts(14, "6031580fec1f6af667f0bd2da0a551cf4f0b2375"),
    _mteb_sts(15, "ae752c7c21bf194d8b67fd573edf7ae58183cbe3"),
    _mteb_sts(16, "4d8694f8f0e0100860b497b999b3dbed754a0513"),
    HubDataset("sick", "RobZamp/sick", "refs/convert/parquet",
               {s: f"default/{h}/0000.parquet" for s, h in (("train", "train"), ("dev", "validation"),
                                                             ("test", "test"))},
               "CC BY-NC-SA 3.0", columns=("sentence_A", "sentence_B", "relatedness_score", "label"),
               differs="the full SICK release (9,840 pairs: 4,439 / 495 / 4,906 by its SemEval_set column), "
                       "not SemEval 2014's task files (4,500 / 500 / 4,927); revision: the Hub's Parquet "
                       "conversion branch of a script data set (no commit hash could be verified offline; the Hub "
                       "no longer converts script data sets and deletes that branch when it reprocesses one)",
               fallback="SemEval 2014 task 1's own files (sick_train.zip, sick_trial.zip, sick_test_annotated.zip:"
                        " 4,500 / 500 / 4,927 pairs)"),
    HubDataset("snli", "stanfordnlp/snli", "cdb5c3d5eed6ead6e5a341c8e56e669bb666725b",
               {s: f"plain_text/{h}-00000-of-00001.parquet" for s, h in (("train", "train"), ("dev", "validation"),
                                                                         ("test", "test"))},
               "CC BY-SA 4.0", columns=("premise", "hypothesis", "label"),
               differs="sentences as written (SentEval's copy is tokenised); pairs without a gold label "
                       "(label -1) are dropped, as SentEval does"),
    HubDataset("allnli", "sentence-transformers/all-nli", "323b5a8b4c887a41d9d0041a2262742c902af0cd",
               {s: f"pair-class/{s}-00000-of-00001.parquet" for s in ("train", "dev", "test")},
               "CC BY-SA 4.0 (SNLI), OANC/CC BY-SA 3.0 mix (MultiNLI)", columns=("premise", "hypothesis", "label"),
               differs="the same pairs as sentence-transformers' AllNLI.tsv.gz (942,069 / 19,657 / 19,656)"),
    HubDataset("mr", "cornell-movie-review-data/rotten_tomatoes", "b6059de032aed3fea5bfadcbef8d375559c6bfd9",
               {"train": "train.parquet", "dev": "validation.parquet", "test": "test.parquet"},
               "unspecified (Pang & Lee 2005, research use)", columns=("text", "label"),
               differs="the same 10,662 sentences, in train/validation/test order rather than positive then "
                       "negative (MR has no standard split: SentEval scores it by 10-fold CV); revision: a "
                       "pull-request commit (main's squash-merge of the same files is the stable pin, but its "
                       "hash could not be verified offline)",
               fallback="SentEval's rt-polarity.pos / .neg (datasmall_NB_ACL12.zip)",
               revision_note="a pull-request commit; main's squash-merge could not be verified offline"),
    HubDataset("cr", "SetFit/SentEval-CR", "main", {"pos": "custrev.pos", "neg": "custrev.neg"},
               "research use (Hu & Liu 2004)", differs="SentEval's own files; revision: main (only a short "
                                                      "commit hash could be found offline)",
               fallback="SentEval's custrev.pos / .neg (datasmall_NB_ACL12.zip)"),
    HubDataset("subj", "SetFit/subj", "2eba632847a64707391116d7e9b3cd72c700c5e6",
               {"train": "train.jsonl", "test": "test.jsonl"}, "research use (Pang & Lee 2004)",
               columns=("text", "label_text"),
               differs="the same 10,000 sentences split 8,000 / 2,000 (SentEval scores SUBJ by 10-fold CV)"),
    HubDataset("sst2", "SetFit/sst2", "main", {"train": "train.jsonl", "dev": "dev.jsonl", "test": "test.jsonl"},
               "unspecified (Socher et al. 2013)", columns=("text", "label"),
               differs="binary SST with sentence-level train (6,920 sentences): SentEval's sentiment-train also "
                       "holds the phrases (67,349 lines); dev 872 and test 1,821 as in SentEval; revision: main "
                       "(only a short commit hash could be found offline)",
               fallback="SentEval's sentiment-train / -dev / -test (PrincetonML/SIF; train holds the phrases too: "
                        "67,349 lines)"),
    HubDataset("trec", "CogComp/trec", "refs/convert/parquet",
               {"train": "default/train/0000.parquet", "test": "default/test/0000.parquet"},
               "unspecified (Li & Roth 2002, research use)", columns=("text", "coarse_label"),
               differs="the same 5,452 / 500 questions; coarse label ids in the Hub's order (ABBR, ENTY, DESC, "
                       "HUM, LOC, NUM); revision: the Hub's Parquet conversion branch of a script data set (no "
                       "commit hash could be verified offline; the Hub deletes that branch when it reprocesses one)",
               fallback="Li & Roth's own train_5500.label / TREC_10.label (cogcomp.seas.upenn.edu)"),
    HubDataset("mrpc", "nyu-mll/glue", "a3f3ab759b9d7018046ce361f115ef38276d2e1e",
               {s: f"mrpc/{s}-00000-of-00001.parquet" for s in ("train", "validation", "test")},
               "Microsoft Research Paraphrase Corpus terms", columns=("sentence1", "sentence2", "label"),
               differs="GLUE's copy: SentEval's train file is GLUE's train + validation (4,076 pairs, "
                       "in another order); the test set is the same 1,725 pairs"),
)}
# No Hub copy could be verified offline for MPQA: it ships only inside SentEval's archive
# (data.sources.ARCHIVE_SOURCES), and notebook 08 runs without it.
TREC_HUB_LABELS = ("ABBR", "ENTY", "DESC", "HUM", "LOC", "NUM")  # CogComp/trec's coarse_label ids


def nli_label(value, path: Path, row: int) -> str:
    """The Hub's NLI label id (0 entailment, 1 neutral, 2 contradiction) as our label name."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(_NLI_IDS):
        raise DataFormatError(f"{path}, row {row}: NLI label {value!r} is not 0, 1 or 2")
    return _NLI_IDS[value]


def is_pinned(ds: HubDataset) -> bool:
    """True when the revision is a full commit hash (a branch name can move)."""
    return len(ds.revision) == 40 and all(c in "0123456789abcdef" for c in ds.revision)


def dataset(name: str) -> HubDataset:
    """The catalogue entry ``name``; an unknown name is an error listing the known ones."""
    if name not in CATALOGUE:
        raise SettingError(f"no Hub data set named {name!r}; known: {', '.join(sorted(CATALOGUE))}")
    return CATALOGUE[name]


def hub_allowed() -> bool:
    """False when ``$SBERTLIB_DATA_SOURCE=local`` forbids asking the Hub for data."""
    value = os.environ.get(SOURCE_ENV, "auto").strip().lower()
    if value not in {"auto", "local"}:
        raise SettingError(f"${SOURCE_ENV}={value!r}: expected 'auto' (local folder, then the Hub) or 'local'")
    return value == "auto"


# ----------------------------------------------------------------------------- huggingface_hub's errors
def hub_error_class(name: str) -> type[BaseException]:
    """huggingface_hub's error class ``name`` wherever the installed version keeps it:
    ``huggingface_hub.errors`` from 0.25, ``huggingface_hub.utils`` before (0.23 and 0.24). A name no
    module holds gives a class no exception is an instance of — never an ImportError while a failed
    download is being explained."""
    for module in ("huggingface_hub.errors", "huggingface_hub.utils", "huggingface_hub.utils._errors"):
        try:
            cls = getattr(importlib.import_module(module), name, None)
        except ImportError:
            continue
        if isinstance(cls, type) and issubclass(cls, BaseException):
            return cls
    return type(f"Absent{name}", (Exception,), {})


def _chain(exc: BaseException | None):
    """``exc`` and every exception it was raised from or during (``__cause__`` / ``__context__``)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _status(exc: BaseException) -> tuple[int | None, str | None]:
    """The HTTP status and ``Retry-After`` header of the response an exception carries, if it does."""
    response = getattr(exc, "response", None)
    code = getattr(response, "status_code", None)
    headers = getattr(response, "headers", None) or {}
    return (code if isinstance(code, int) else None), headers.get("Retry-After") if code is not None else None


# ----------------------------------------------------------------------------- errors we raise
class HubCopyMissing(DataNotFoundError):
    """A Hub file that cannot be had: not cached and the Hub not asked or not answering (``gone`` False),
    or its revision or repository no longer there (``gone`` True). ``dataset`` names the catalogue entry,
    whose ``fallback`` (if any) the loaders then use (data.files.local_or_hub)."""

    def __init__(self, message: str, dataset: "HubDataset | None" = None, gone: bool = False) -> None:
        super().__init__(message)
        self.dataset, self.gone = dataset, gone


class HubUnavailableError(DataNotFoundError):
    """The Hub rate-limited sbertlib (HTTP 429) beyond what it waits, or sent no answer in time."""


SHARED_CACHE_HINT = (
    "A whole class asking the Hub at once gets rate-limited or left waiting: the lecturer should download once "
    "into a shared cache — `HF_HUB_CACHE=/shared/hf-cache python -m sbertlib fetch --profile <profile>` — and "
    "each student set HF_HUB_CACHE=/shared/hf-cache (read-only for them is fine).")


def shared_cache_fix(what: str) -> str:
    """What the lecturer does about a file missing from, or damaged in, a shared Hugging Face cache."""
    cache = config.hub_cache_dir() or "<the shared cache>"
    return (f"The lecturer (whoever fills the cache) should run `python -m sbertlib fetch {what}` again with "
            f"HF_HUB_CACHE={cache}.")


# ----------------------------------------------------------------------------- bounded downloads
def cache_root() -> Path:
    """The Hugging Face cache folder in use (``$HF_HUB_CACHE``, ``$HF_HOME/hub``, else the library's)."""
    cache = config.hub_cache_dir()
    if cache:
        return Path(cache)
    from huggingface_hub import constants
    return Path(constants.HF_HUB_CACHE)


def cache_writable(cache: Path | None = None) -> bool:
    """Whether this process may write the Hugging Face cache (a shared one may be read-only): the cache
    folder, else the nearest folder above it that exists."""
    place = Path(cache) if cache is not None else cache_root()
    while not place.exists() and place.parent != place:
        place = place.parent
    return os.access(place, os.W_OK)


def resolve_url(repo_id: str, repo_type: str, revision: str, filename: str) -> str:
    """The Hub address huggingface_hub asks for ``filename`` (named in errors, probed after a stall)."""
    kind = "" if repo_type == "model" else f"{repo_type}s/"
    return (f"{config.hub_endpoint()}/{kind}{repo_id}/resolve/{urllib.parse.quote(revision, safe='')}/"
            f"{urllib.parse.quote(filename)}")


class _HubLog(logging.Handler):
    """huggingface_hub's warnings while a download runs (from its thread, or the pool it downloads a
    model's files with): a 429 it got, and how long it announced it would wait, and when."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.rate_limited_url: str | None = None
        self.waiting: float | None = None
        self.waiting_at = 0.0

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        m = re.search(r"HTTP Error 429 thrown while requesting \w+ (\S+)", text)
        if m:
            self.rate_limited_url = m.group(1)
        m = re.search(r"Rate limited\. Waiting ([0-9.]+)\s*s", text)
        if m:
            self.waiting, self.waiting_at = float(m.group(1)), time.monotonic()


class _Abandoned(BaseException):
    """Raised inside a download thread sbertlib gave up on, at its next retry (see :class:`_StopAbandoned`)."""


class _StopAbandoned(logging.Handler):
    """Stops a download thread that :func:`bounded` abandoned, at huggingface_hub's next warning in it.

    huggingface_hub retries a failed request after logging a warning, and on a refused connection it closes
    the one HTTP client all its downloads share. An abandoned thread that went on retrying would close that
    client under a later, healthy download in the same kernel ("Bad file descriptor"). Its warnings are its
    retry points: raising there ends it before it sends again or closes anything. A ``BaseException``, so
    huggingface_hub's retry loop does not catch it."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.abandoned: set[int] = set()

    def emit(self, record: logging.LogRecord) -> None:
        if threading.get_ident() in self.abandoned:
            raise _Abandoned(record.getMessage())


_STOP_ABANDONED = _StopAbandoned()


def probe(url: str, timeout: float) -> tuple[str, int | None, str | None]:
    """One HEAD request: ``("status", code, Retry-After)``, ``("timeout", None, None)`` when no answer
    comes within ``timeout`` s, or ``("error", None, why)``."""
    request = urllib.request.Request(url, method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            return "status", resp.status, resp.headers.get("Retry-After")
    except urllib.error.HTTPError as exc:
        return "status", exc.code, exc.headers.get("Retry-After")
    except (TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(exc, TimeoutError) or isinstance(reason, TimeoutError) or "timed out" in str(exc):
            return "timeout", None, None
        return "error", None, str(exc)


def _progress(folder: Path) -> tuple[int, int, int]:
    """What grows while a download makes progress: the files under a repository's cache folder, their
    sizes and the disk blocks they hold (a file written at offsets into a pre-sized file, as Xet storage
    may write, gains blocks, not size)."""
    count = size = blocks = 0
    for root, _, names in os.walk(folder / "blobs"):
        for name in names:
            try:
                st = os.stat(os.path.join(root, name))
            except OSError:
                continue
            count, size, blocks = count + 1, size + st.st_size, blocks + getattr(st, "st_blocks", 0)
    return count, size, blocks


def _rate_limited(what: str, url: str, retry_after: str | None, waited: float) -> HubUnavailableError:
    after = f"Retry-After {retry_after} s" if retry_after else "no Retry-After given"
    return HubUnavailableError(
        f"{what}: the Hugging Face Hub ({config.hub_endpoint()}) rate-limited this download (HTTP 429 Too Many "
        f"Requests on {url}, {after}); sbertlib does not wait that long: it gave up after {waited:.0f} s (it "
        f"waits at most {config.hub_wait():g} s without progress, ${config.HUB_WAIT_ENV}). {SHARED_CACHE_HINT}")


def _no_answer(what: str, url: str, seconds: float, setting: str) -> HubUnavailableError:
    return HubUnavailableError(
        f"{what}: the Hugging Face Hub ({config.hub_endpoint()}) accepted the connection but sent no answer "
        f"within {seconds:.1f} s to {url}; sbertlib stopped waiting (${setting}; each request waits "
        f"${config.HUB_REQUEST_TIMEOUT_ENV}={config.hub_request_timeout():g} s, a download without progress "
        f"${config.HUB_WAIT_ENV}={config.hub_wait():g} s). {SHARED_CACHE_HINT}")


def explain_failure(exc: BaseException, what: str, url: str) -> HubUnavailableError | None:
    """A rate limit (HTTP 429) or a time-out somewhere in ``exc``'s chain, as our message; else None."""
    for e in _chain(exc):
        code, retry_after = _status(e)
        if code == 429:
            return _rate_limited(what, url, retry_after, 0)
    for e in _chain(exc):
        if "timeout" in type(e).__name__.lower() or isinstance(e, TimeoutError):
            return _no_answer(what, url, config.hub_request_timeout(), config.HUB_REQUEST_TIMEOUT_ENV)
    return None


def bounded(call: Callable[[], T], *, what: str, url: str, cache_folder: Path) -> T:
    """``call()`` (a huggingface_hub download) in a worker thread, stopped when it makes no progress for
    :func:`config.hub_wait` seconds (no byte lands in ``cache_folder``), or at once when huggingface_hub
    announces a rate-limit wait longer than that: then :class:`HubUnavailableError` says what happened
    (rate-limited with Retry-After N s, or no answer within N s), naming ``what`` and ``url``, and what to
    do. The abandoned thread is a daemon (it never keeps the process alive) and is stopped at its next
    retry, before it can close the HTTP client later downloads share."""
    box: dict[str, object] = {}

    def work() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            _STOP_ABANDONED.abandoned.discard(threading.get_ident())

    worker = threading.Thread(target=work, name="sbertlib-hub-download", daemon=True)
    log = logging.getLogger("huggingface_hub")
    wait = config.hub_wait()
    start = last_move = time.monotonic()
    seen = _progress(cache_folder)
    watch = _HubLog()
    log.addHandler(watch)
    if _STOP_ABANDONED not in log.handlers:
        log.addHandler(_STOP_ABANDONED)
    worker.start()
    finished = False
    try:
        while worker.is_alive():
            worker.join(0.2)
            now = time.monotonic()
            moved = _progress(cache_folder)
            if moved != seen:
                seen, last_move = moved, now
            if watch.waiting is not None:  # a rate-limit wait announced: refused at once if it is too long
                if watch.waiting > wait - (watch.waiting_at - last_move):
                    _, _, retry_after = probe(watch.rate_limited_url or url, min(config.hub_request_timeout(), 5))
                    raise _rate_limited(what, watch.rate_limited_url or url, retry_after, now - start)
                watch.waiting = None
            if worker.is_alive() and now - last_move > wait:
                kind, code, extra = probe(url, min(config.hub_request_timeout(), 5))
                if code == 429 or watch.rate_limited_url:
                    raise _rate_limited(what, watch.rate_limited_url or url, extra if code == 429 else None,
                                        now - start)
                if kind == "timeout":
                    raise _no_answer(what, url, now - last_move, config.HUB_WAIT_ENV)
                raise HubUnavailableError(
                    f"{what}: the download from the Hugging Face Hub ({config.hub_endpoint()}) made no progress "
                    f"for {wait:g} s (${config.HUB_WAIT_ENV}) and sbertlib stopped it ({url} now answers "
                    f"{code if code is not None else extra}). On a slow network allow longer with "
                    f"{config.HUB_WAIT_ENV}=<seconds>; or {SHARED_CACHE_HINT[0].lower()}{SHARED_CACHE_HINT[1:]}")
        finished = True
    finally:
        log.removeHandler(watch)
        if not finished and worker.is_alive() and worker.ident is not None:
            _STOP_ABANDONED.abandoned.add(worker.ident)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


# ----------------------------------------------------------------------------- download and check
def _where(ds: HubDataset, filename: str) -> str:
    return f"{filename!r} of dataset {ds.repo_id} at revision {ds.revision}"


def _missing(ds: HubDataset, filename: str, why: str, local_hint: str, damaged: str = "") -> HubCopyMissing:
    """The file cannot be had from the Hub (``why``); ``damaged``: the cached copy that was there, damaged, and removed."""
    if damaged:
        return HubCopyMissing(
            f"{_where(ds, filename)} was in the Hugging Face cache but damaged ({damaged}: its bytes do not hash to "
            f"what the Hub announced — a half-copied or cut-off file?), so it was removed, and it cannot be "
            f"downloaded again now: {why}.\nOnline, it is fetched again by itself on the next read. Offline, copy "
            f"the cache again from a good copy (or run `python -m sbertlib fetch --datasets {ds.name}` where the Hub "
            f"answers); or {local_hint}", ds)
    return HubCopyMissing(
        f"{_where(ds, filename)} is not in the Hugging Face cache and cannot be downloaded: {why}.\n"
        f"To provide it: connect to the internet (the Hub, {config.hub_endpoint()}) and run "
        f"`python -m sbertlib fetch --datasets {ds.name}` once; or {local_hint}", ds)


def _git_blob_sha1(path: Path) -> str:
    h = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


_VERIFIED: dict[tuple[str, int, int], bool] = {}


@dataclass
class Served:
    """Where the files a loader read came from, while :func:`recording` was open: ``hub`` holds (data set, file,
    cached path) for each file the Hub's copy gave, ``originals`` (data set, url, file, why) for each original
    file used where the Hub's copy is gone."""
    hub: list[tuple[HubDataset, str, Path]] = field(default_factory=list)
    originals: list[tuple[HubDataset, str, Path, str]] = field(default_factory=list)


_RECORDING: list[Served] = []  # the records open now (innermost last): each file served is added to every one


@contextmanager
def recording() -> Iterator[Served]:
    """``with hub.recording() as served: load(...)``: what that load read from the Hub or the original files
    (``fetch`` and ``envcheck`` say where each data set came from). The caller owns the record; nothing is kept
    once the block ends."""
    served = Served()
    _RECORDING.append(served)
    try:
        yield served
    finally:
        _RECORDING.remove(served)


def record_original(ds: HubDataset, url: str, path: Path, why: str) -> None:
    """Note an original file used in place of the Hub's copy in every open :func:`recording`."""
    for served in _RECORDING:
        served.originals.append((ds, url, path, why))
_SAID_UNPINNED: set[str] = set()


def verify(path: Path, ds: HubDataset, filename: str) -> Path:
    """Check a cached file against the hash the Hub announced for the pinned revision — the blob's
    name in the cache: SHA-256 for large (LFS) files, the git blob SHA-1 for small ones. A mismatch
    removes the file from the cache and raises :class:`ChecksumError` naming it; where this process may
    not write the cache (a shared, read-only one) the file stays, and the error names it as damaged and
    says what the lecturer should do."""
    blob = Path(path).resolve()
    stat = blob.stat()
    key = (str(blob), stat.st_size, stat.st_mtime_ns)
    if key in _VERIFIED:
        return Path(path)
    expected = blob.name.lower()
    if len(expected) == 64 and all(c in "0123456789abcdef" for c in expected):
        got = sha256_file(blob)
    elif len(expected) == 40 and all(c in "0123456789abcdef" for c in expected):
        got = _git_blob_sha1(blob)
    else:  # a cache without symlinks (some Windows set-ups) keeps no hash to check against
        return Path(path)
    if got != expected:
        try:
            if not (os.access(blob.parent, os.W_OK) and os.access(Path(path).parent, os.W_OK)):
                raise PermissionError(f"{blob.parent} is not writable here")
            Path(path).unlink(missing_ok=True)
            blob.unlink(missing_ok=True)
        except OSError as exc:
            raise ChecksumError(
                f"{path} is damaged: this cached file ({_where(ds, filename)}; its blob {blob}) hashes to "
                f"{got}, not to {expected} as the Hub announced for that revision. It is in a Hugging Face "
                f"cache this process cannot change ({cache_root()}: read-only here, a shared cache?; "
                f"{type(exc).__name__}), so it was left there. "
                + shared_cache_fix(f"--datasets {ds.name}") + " It replaces the damaged file.") from None
        raise ChecksumError(f"{_where(ds, filename)}: the downloaded bytes hash to {got}, not to {expected} as "
                            "the Hub announced for that revision; the file was removed from the cache. "
                            "Download it again (a proxy or a broken connection may have altered it).")
    _VERIFIED[key] = True
    return Path(path)


def hub_file(name: str, split: str, local_hint: str = "use a local data folder") -> Path:
    """The cached file of data set ``name``'s ``split``, downloaded first if need be (then checked).

    Offline (``HF_HUB_OFFLINE``, or nothing answering at the Hub's address) it fails at once with a
    :class:`HubCopyMissing` naming the file and how to provide it; a Hub that rate-limits or does not
    answer fails within :func:`config.hub_wait` seconds (:class:`HubUnavailableError`).
    """
    from huggingface_hub import hf_hub_download, try_to_load_from_cache
    ds = dataset(name)
    filename = ds.filename(split)
    cache = config.hub_cache_dir()
    cached = try_to_load_from_cache(ds.repo_id, filename, cache_dir=cache, revision=ds.revision,
                                    repo_type="dataset")
    damaged = ""
    if isinstance(cached, str):
        try:
            return _served(ds, filename, verify(Path(cached), ds, filename))
        except ChecksumError:
            if os.path.lexists(cached):
                raise  # left where it is: a cache this process may not change (the error says what to do)
            damaged = cached
            print(f"sbertlib: {cached} was damaged (its hash did not match) and was removed from the cache; "
                  "downloading it again", file=sys.stderr)
    if not hub_allowed():
        raise _missing(ds, filename, f"${SOURCE_ENV}=local forbids the Hub", local_hint, damaged)
    if config.hub_offline_flag():
        raise _missing(ds, filename, "HF_HUB_OFFLINE is set", local_hint, damaged)
    if not config.hub_reachable():
        raise _missing(ds, filename, f"nothing answers at {config.hub_endpoint()} (offline?)", local_hint, damaged)
    root = cache_root()
    if not cache_writable(root):
        raise _missing(ds, filename, f"the Hugging Face cache {root} is read-only here (a shared cache?), and "
                                     f"it does not hold the file. {shared_cache_fix(f'--datasets {ds.name}')}",
                       local_hint)
    config.sync_hub_offline()
    config.sync_hub_timeouts()
    url = resolve_url(ds.repo_id, "dataset", ds.revision, filename)
    if not is_pinned(ds):
        _say_unpinned(ds)
    try:
        path = bounded(lambda: hf_hub_download(ds.repo_id, filename, repo_type="dataset", revision=ds.revision,
                                               cache_dir=cache, endpoint=config.hub_endpoint(),
                                               etag_timeout=config.hub_request_timeout()),
                       what=_where(ds, filename), url=url,
                       cache_folder=root / f"datasets--{ds.repo_id.replace('/', '--')}")
    except HubUnavailableError:
        raise
    except Exception as exc:  # the library's errors, turned into ours with the repository named
        raise _download_error(exc, ds, filename, local_hint, url) from exc
    return _served(ds, filename, verify(Path(path), ds, filename))


def _say_unpinned(ds: HubDataset) -> None:
    if ds.name not in _SAID_UNPINNED:
        _SAID_UNPINNED.add(ds.name)
        print(f"sbertlib: {ds.name}: {ds.repo_id} is read at {ds.revision!r}, a branch, not a pinned commit (none "
              f"could be verified offline): what it serves may change; if it is gone, the loader uses "
              f"{ds.fallback or 'nothing else'}.", file=sys.stderr)


def snapshot_commit(path: Path) -> str | None:
    """The commit a cached file belongs to (its ``snapshots/<commit>/`` folder), if it lies in one."""
    parts = Path(path).parts
    if "snapshots" in parts and parts.index("snapshots") + 1 < len(parts):
        return parts[parts.index("snapshots") + 1]
    return None


def _served(ds: HubDataset, filename: str, path: Path) -> Path:
    for served in _RECORDING:
        served.hub.append((ds, filename, path))
    return path


def _download_error(exc: Exception, ds: HubDataset, filename: str, local_hint: str, url: str) -> Exception:
    repo_missing = hub_error_class("RepositoryNotFoundError")
    revision_missing = hub_error_class("RevisionNotFoundError")
    entry_missing = hub_error_class("EntryNotFoundError")
    local_missing = hub_error_class("LocalEntryNotFoundError")
    if isinstance(exc, repo_missing):
        return HubCopyMissing(f"dataset repository {ds.repo_id!r} not found at {config.hub_endpoint()} "
                              f"(data set {ds.name!r}); it may have moved or become private", ds, gone=True)
    if isinstance(exc, revision_missing):
        return HubCopyMissing(f"revision {ds.revision} of dataset repository {ds.repo_id!r} not found at "
                              f"{config.hub_endpoint()} (data set {ds.name!r})", ds, gone=True)
    if isinstance(exc, entry_missing) and not isinstance(exc, local_missing):
        return DataNotFoundError(f"{_where(ds, filename)}: no such file in that revision")
    explained = explain_failure(exc, _where(ds, filename), url)
    if explained is not None:
        return explained
    if any(isinstance(e, PermissionError) for e in _chain(exc)):
        return _missing(ds, filename, f"this process may not write the Hugging Face cache {cache_root()} (a shared, "
                                      f"read-only cache?). {shared_cache_fix(f'--datasets {ds.name}')}", local_hint)
    first = str(exc).splitlines()[0] if str(exc) else ""
    return _missing(ds, filename, f"the download failed ({type(exc).__name__}: {first})", local_hint)


# ----------------------------------------------------------------------------- reading rows
def read_rows(path: Path) -> list[dict]:
    """The rows of a Hub data file: JSON lines (``.jsonl``, ``.jsonl.gz``) or Parquet."""
    name = Path(path).name
    if name.endswith(".parquet"):
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise ImportError("reading Parquet files from the Hub needs pyarrow: pip install pyarrow") from exc
        try:
            return pq.read_table(path).to_pylist()
        except Exception as exc:
            raise DataFormatError(f"{path}: not a readable Parquet file ({exc})") from None
    if name.endswith((".jsonl", ".jsonl.gz", ".json.gz")):
        opener = gzip.open if name.endswith(".gz") else open
        rows = []
        try:
            with opener(path, "rt", encoding="utf-8") as f:
                for i, line in enumerate(f, start=1):
                    if line.strip():
                        try:
                            rows.append(json.loads(line))
                        except json.JSONDecodeError as exc:
                            raise DataFormatError(f"{path}, line {i}: not valid JSON ({exc.msg})") from None
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise DataFormatError(f"{path}: cannot be read ({exc}); download it again") from None
        return rows
    raise DataFormatError(f"{path}: unknown Hub file format (expected .jsonl, .jsonl.gz or .parquet)")


def rows(name: str, split: str, local_hint: str = "use a local data folder") -> tuple[Path, list[dict]]:
    """``(cached file, rows)`` of data set ``name``'s ``split``; each row must hold the catalogue's
    columns (else :class:`DataFormatError` naming the file, the row and the missing columns)."""
    path = hub_file(name, split, local_hint)
    out = read_rows(path)
    want = dataset(name).columns
    for i, row in enumerate(out, start=1):
        missing = [c for c in want if c not in row]
        if missing:
            raise DataFormatError(f"{path} ({_where(dataset(name), dataset(name).filename(split))}), row {i}: "
                                  f"lacks column(s) {missing}; found {sorted(row)}")
    return path, out


# Each data set's files in a local data folder (data.files' layout), split by split, for the fallback.
LOCAL_FILES: dict[str, dict[str, str]] = {
    "sick": {"train": "sick/SICK_train.txt", "dev": "sick/SICK_trial.txt", "test": "sick/SICK_test_annotated.txt"},
    "mr": {"pos": "senteval/MR/rt-polarity.pos", "neg": "senteval/MR/rt-polarity.neg"},
    "cr": {"pos": "senteval/CR/custrev.pos", "neg": "senteval/CR/custrev.neg"},
    "sst2": {s: f"senteval/SST/binary/sentiment-{s}" for s in ("train", "dev", "test")},
    "trec": {"train": "senteval/TREC/train_5500.label", "test": "senteval/TREC/TREC_10.label"},
}


def original_urls(ds: HubDataset) -> list[str]:
    """Where data set ``ds``'s original files are published (a file, or an archive that holds it)."""
    urls = [original_url(rel) for rel in LOCAL_FILES.get(ds.name, {}).values()]
    return list(dict.fromkeys(u for u in urls if u))


def catalogue_markdown() -> str:
    """The Markdown table of :data:`CATALOGUE` that ``data/README.md`` holds verbatim (a test keeps the
    two equal): each data set's repository, revision (a branch is marked as not pinned), files by split,
    the rows the loaders read from each file, licence and how the copy differs from the paper-era file."""
    rows = {  # per file, in the order of ``files``; the loaders' counts (SNLI: label -1 dropped)
        "stsb": (5749, 1500, 1379), "sts12": (3108,), "sts13": (1500,), "sts14": (3750,), "sts15": (3000,),
        "sts16": (1186,), "sick": (4439, 495, 4906), "snli": (549367, 9842, 9824),
        "allnli": (942069, 19657, 19656), "mr": (8530, 1066, 1066), "cr": (2407, 1368), "subj": (8000, 2000),
        "sst2": (6920, 872, 1821), "trec": (5452, 500), "mrpc": (3668, 408, 1725)}

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| data set | Hub repository | revision | files (split: file) | rows | licence | "
             "how it differs from the paper-era file |", "|---|---|---|---|---|---|---|"]
    for ds in CATALOGUE.values():
        counts = rows.get(ds.name, ())
        if len(counts) != len(ds.files):
            raise SettingError(f"catalogue_markdown: no row counts for the {len(ds.files)} file(s) of {ds.name!r}")
        revision = f"`{ds.revision}`" if is_pinned(ds) else f"`{ds.revision}` (a branch, not pinned)"
        revision += f" ({ds.revision_note})" if ds.revision_note else ""
        differs = ds.differs
        if ds.fallback:
            urls = ", ".join(original_urls(ds))
            differs += (f". If this copy is gone (its revision or repository not found), the loaders use "
                        f"{ds.fallback}: {urls}")
        files = "<br>".join(f"{split}: `{name}`" for split, name in ds.files.items())
        lines.append(f"| `{ds.name}` | [{ds.repo_id}](https://huggingface.co/datasets/{ds.repo_id}) | {revision} | "
                     f"{files} | {'<br>'.join(f'{n:,}' for n in counts)} | {cell(ds.licence)} | "
                     f"{cell(differs) or '—'} |")
    return "\n".join(lines) + "\n"
