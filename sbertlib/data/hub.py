"""Data sets from the Hugging Face Hub: each pinned to a commit, downloaded once into the Hub cache
(resumable, with a progress bar; ``HF_HUB_OFFLINE`` honoured), checked against the hash the Hub
announced for that commit, and read into plain rows.

A file in a local data folder always wins (see :mod:`sbertlib.data.files`); the Hub is asked only
for what no local folder holds. ``$SBERTLIB_DATA_SOURCE=local`` never asks it. The catalogue
(:data:`CATALOGUE`) names every repository, revision and file; ``data/README.md`` tells how each
Hub copy differs from the paper-era file.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from .. import config
from ..util import sha256_file
from .records import ChecksumError, DataFormatError, DataNotFoundError

SOURCE_ENV = "SBERTLIB_DATA_SOURCE"  # "auto" (local folder, then the Hub), "local" (never the Hub)


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

    def filename(self, split: str) -> str:
        if split not in self.files:
            raise ValueError(f"{self.name} ({self.repo_id}) has splits {sorted(self.files)}, not {split!r}")
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
                       "conversion branch (no commit hash could be verified offline)"),
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
                       "negative (MR has no standard split: SentEval scores it by 10-fold CV)"),
    HubDataset("cr", "SetFit/SentEval-CR", "main", {"pos": "custrev.pos", "neg": "custrev.neg"},
               "research use (Hu & Liu 2004)", differs="SentEval's own files; revision: main (only a short "
                                                      "commit hash could be found offline)"),
    HubDataset("subj", "SetFit/subj", "2eba632847a64707391116d7e9b3cd72c700c5e6",
               {"train": "train.jsonl", "test": "test.jsonl"}, "research use (Pang & Lee 2004)",
               columns=("text", "label_text"),
               differs="the same 10,000 sentences split 8,000 / 2,000 (SentEval scores SUBJ by 10-fold CV)"),
    HubDataset("sst2", "SetFit/sst2", "main", {"train": "train.jsonl", "dev": "dev.jsonl", "test": "test.jsonl"},
               "unspecified (Socher et al. 2013)", columns=("text", "label"),
               differs="binary SST with sentence-level train (6,920 sentences): SentEval's sentiment-train also "
                       "holds the phrases (67,349 lines); dev 872 and test 1,821 as in SentEval; revision: main "
                       "(only a short commit hash could be found offline)"),
    HubDataset("trec", "CogComp/trec", "refs/convert/parquet",
               {"train": "default/train/0000.parquet", "test": "default/test/0000.parquet"},
               "unspecified (Li & Roth 2002, research use)", columns=("text", "coarse_label"),
               differs="the same 5,452 / 500 questions; coarse label ids in the Hub's order (ABBR, ENTY, DESC, "
                       "HUM, LOC, NUM); revision: the Hub's Parquet conversion branch (no commit hash could be "
                       "verified offline)"),
    HubDataset("mrpc", "nyu-mll/glue", "a3f3ab759b9d7018046ce361f115ef38276d2e1e",
               {s: f"mrpc/{s}-00000-of-00001.parquet" for s in ("train", "validation", "test")},
               "Microsoft Research Paraphrase Corpus terms", columns=("sentence1", "sentence2", "label"),
               differs="GLUE's copy: SentEval's train file is GLUE's train + validation (4,076 pairs, "
                       "in another order); the test set is the same 1,725 pairs"),
)}
# No Hub copy could be verified offline for MPQA: it ships only inside SentEval's archive
# (data.files.ARCHIVE_SOURCES), and notebook 08 runs without it.
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
        raise ValueError(f"no Hub data set named {name!r}; known: {', '.join(sorted(CATALOGUE))}")
    return CATALOGUE[name]


def hub_allowed() -> bool:
    """False when ``$SBERTLIB_DATA_SOURCE=local`` forbids asking the Hub for data."""
    value = os.environ.get(SOURCE_ENV, "auto").strip().lower()
    if value not in {"auto", "local"}:
        raise ValueError(f"${SOURCE_ENV}={value!r}: expected 'auto' (local folder, then the Hub) or 'local'")
    return value == "auto"


# ----------------------------------------------------------------------------- download and check
def _where(ds: HubDataset, filename: str) -> str:
    return f"{filename!r} of dataset {ds.repo_id} at revision {ds.revision}"


def _missing(ds: HubDataset, filename: str, why: str, local_hint: str) -> DataNotFoundError:
    return DataNotFoundError(
        f"{_where(ds, filename)} is not in the Hugging Face cache and cannot be downloaded: {why}.\n"
        f"To provide it: connect to the internet (the Hub, {config.hub_endpoint()}) and run "
        f"`python -m sbertlib fetch --datasets {ds.name}` once; or {local_hint}")


def _git_blob_sha1(path: Path) -> str:
    h = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


_VERIFIED: dict[tuple[str, int, int], bool] = {}
SERVED: list[tuple[HubDataset, str, Path]] = []  # every (data set, file, cached path) hub_file handed out


def verify(path: Path, ds: HubDataset, filename: str) -> Path:
    """Check a cached file against the hash the Hub announced for the pinned revision — the blob's
    name in the cache: SHA-256 for large (LFS) files, the git blob SHA-1 for small ones. A mismatch
    removes the file from the cache and raises :class:`ChecksumError` naming it."""
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
        Path(path).unlink(missing_ok=True)
        blob.unlink(missing_ok=True)
        raise ChecksumError(f"{_where(ds, filename)}: the downloaded bytes hash to {got}, not to {expected} as "
                            "the Hub announced for that revision; the file was removed from the cache. "
                            "Download it again (a proxy or a broken connection may have altered it).")
    _VERIFIED[key] = True
    return Path(path)


def hub_file(name: str, split: str, local_hint: str = "use a local data folder") -> Path:
    """The cached file of data set ``name``'s ``split``, downloaded first if need be (then checked).

    Offline (``HF_HUB_OFFLINE``, or nothing answering at the Hub's address) it fails at once with a
    :class:`DataNotFoundError` naming the file and how to provide it.
    """
    from huggingface_hub import hf_hub_download, try_to_load_from_cache
    ds = dataset(name)
    filename = ds.filename(split)
    cache = config.hub_cache_dir()
    cached = try_to_load_from_cache(ds.repo_id, filename, cache_dir=cache, revision=ds.revision,
                                    repo_type="dataset")
    if isinstance(cached, str):
        return _served(ds, filename, verify(Path(cached), ds, filename))
    if not hub_allowed():
        raise _missing(ds, filename, f"${SOURCE_ENV}=local forbids the Hub", local_hint)
    if config.hub_offline_flag():
        raise _missing(ds, filename, "HF_HUB_OFFLINE is set", local_hint)
    if not config.hub_reachable():
        raise _missing(ds, filename, f"nothing answers at {config.hub_endpoint()} (offline?)", local_hint)
    config.sync_hub_offline()
    try:
        path = hf_hub_download(ds.repo_id, filename, repo_type="dataset", revision=ds.revision,
                               cache_dir=cache, endpoint=config.hub_endpoint())
    except Exception as exc:  # the library's errors, turned into ours with the repository named
        raise _download_error(exc, ds, filename, local_hint) from exc
    return _served(ds, filename, verify(Path(path), ds, filename))


def _served(ds: HubDataset, filename: str, path: Path) -> Path:
    SERVED.append((ds, filename, path))
    return path


def _download_error(exc: Exception, ds: HubDataset, filename: str, local_hint: str) -> Exception:
    from huggingface_hub.errors import (EntryNotFoundError, LocalEntryNotFoundError, RepositoryNotFoundError,
                                        RevisionNotFoundError)
    if isinstance(exc, RepositoryNotFoundError):
        return DataNotFoundError(f"dataset repository {ds.repo_id!r} not found at {config.hub_endpoint()} "
                                 f"(data set {ds.name!r}); it may have moved or become private")
    if isinstance(exc, RevisionNotFoundError):
        return DataNotFoundError(f"revision {ds.revision} of dataset repository {ds.repo_id!r} not found at "
                                 f"{config.hub_endpoint()} (data set {ds.name!r})")
    if isinstance(exc, EntryNotFoundError) and not isinstance(exc, LocalEntryNotFoundError):
        return DataNotFoundError(f"{_where(ds, filename)}: no such file in that revision")
    return _missing(ds, filename, f"the download failed ({type(exc).__name__}: {str(exc).splitlines()[0]})",
                    local_hint)


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
            raise ValueError(f"catalogue_markdown: no row counts for the {len(ds.files)} file(s) of {ds.name!r}")
        revision = f"`{ds.revision}`" if is_pinned(ds) else f"`{ds.revision}` (a branch, not pinned)"
        files = "<br>".join(f"{split}: `{name}`" for split, name in ds.files.items())
        lines.append(f"| `{ds.name}` | [{ds.repo_id}](https://huggingface.co/datasets/{ds.repo_id}) | {revision} | "
                     f"{files} | {'<br>'.join(f'{n:,}' for n in counts)} | {cell(ds.licence)} | "
                     f"{cell(ds.differs) or '—'} |")
    return "\n".join(lines) + "\n"
