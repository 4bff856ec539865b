"""Download what a profile needs, once: its models and data sets (from the Hugging Face Hub).

    python -m sbertlib fetch --profile smoke           # every data set the notebooks read
    python -m sbertlib fetch --profile laptop          # + google/bert_uncased_L-4_H-256_A-4 and AllNLI
    python -m sbertlib fetch --datasets stsb,sts12     # some data sets (names: data.hub.CATALOGUE)
    python -m sbertlib fetch --model bert-base-uncased

Each data set is read through its loader, so what a local data folder holds is taken from there and
only the rest is downloaded (into the Hugging Face cache, each file pinned to a commit and checked).
It prints what came from where and how much. Offline it stops at once, naming what is missing.
"""
from __future__ import annotations

import sys
from typing import Callable

from .. import config
from .common import add_profile, command, parser
from ..errors import SettingError

# What the notebooks read, by catalogue name (AllNLI only for the profiles that train on it).
_NOTEBOOK_DATA = ("stsb", "sts12", "sts13", "sts14", "sts15", "sts16", "sick", "snli", "mr", "cr", "subj",
                  "sst2", "mrpc", "trec", "mpqa")
_OPTIONAL = {"mpqa": "no Hub copy: notebook 08 runs without it (unpack SentEval's archive into a data folder "
                     "to add it)"}


def _loaders() -> dict[str, Callable[[str | None], object]]:
    from .. import data
    out: dict[str, Callable[[str | None], object]] = {
        "stsb": lambda d: [data.load_stsb(s, d) for s in ("train", "dev", "test")],
        "sick": lambda d: [data.load_sick(s, d) for s in ("train", "dev", "test")],
        "snli": lambda d: [data.load_snli(s, d) for s in ("dev", "test")],
        "allnli": lambda d: [data.load_allnli(s, d) for s in ("train", "dev", "test")],
    }
    out.update({f"sts{y}": (lambda d, y=y: data.load_sts_year(y, d)) for y in range(12, 17)})
    out.update({t.lower(): (lambda d, t=t: data.load_senteval(t, d))
                for t in ("MR", "CR", "SUBJ", "SST2", "MRPC", "TREC", "MPQA")})
    return out


def profile_datasets(nli_source: str) -> list[str]:
    """The data sets a profile's notebooks read."""
    return list(_NOTEBOOK_DATA) + (["allnli"] if nli_source == "allnli" else [])


def fetch_dataset(name: str, data_dir: str | None = None) -> str:
    """Load data set ``name`` through its loader (downloading what no local folder holds); a line
    saying where it came from and how much: the local folder, the Hub (repository and commit; a branch
    is said to be unpinned, with the commit it resolved to) or, where the Hub's copy is gone, the
    original files (their URL)."""
    from ..data import hub
    loaders = _loaders()
    if name not in loaders:
        raise SettingError(f"unknown data set {name!r}; known: {', '.join(sorted(loaders))}")
    with hub.recording() as served:
        loaders[name](data_dir)
    parts = []
    if served.hub:
        files = {f: p for _, f, p in served.hub}
        size = sum(p.stat().st_size for p in files.values())
        ds = served.hub[0][0]
        commits = sorted({c for c in (hub.snapshot_commit(p) for p in files.values()) if c})
        pin = ds.revision[:12] if hub.is_pinned(ds) else (
            f"{ds.revision} (a branch, not pinned; it resolved to commit {', '.join(commits) or '?'})")
        parts.append(f"{len(files)} file(s), {size / 1e6:.1f} MB from the Hub, {ds.repo_id} at {pin}")
    if served.originals:
        files = {p: u for _, u, p, _ in served.originals}
        size = sum(p.stat().st_size for p in files)
        ds, _, _, why = served.originals[0]
        parts.append(f"{len(files)} file(s), {size / 1e6:.1f} MB of the original files ({ds.fallback}) from "
                     f"{', '.join(dict.fromkeys(files.values()))} — {why}")
    if not parts:
        return f"{name}: from the local data folder ({config.data_dir(data_dir)})"
    return f"{name}: " + "; ".join(parts)


def fetch_model(name: str) -> str:
    """Path of ``name`` in the local HF cache (at its revision: model.backbones.MODEL_REVISIONS),
    downloading it if needed."""
    from ..model import backbones
    cached = backbones.cached_model(name)
    damaged = None
    if cached is not None:
        try:
            backbones.check_weights(cached)
            return str(cached)
        except backbones.DamagedWeights as exc:  # fetched again, over the damaged file
            damaged = exc
            print(f"[..] model {name}: {exc}; downloading it again", file=sys.stderr)
    if not config.hub_reachable():
        raise ConnectionError(f"cannot download {name!r}: the Hugging Face Hub ({config.hub_endpoint()}) is not "
                              "reachable from here (offline, or HF_HUB_OFFLINE is set)")
    return str(backbones.download_model(name, force=damaged is not None))


@command("fetch")
def main(argv: list[str] | None = None) -> int:
    from ..workbook import profiles
    ap = parser("fetch", __doc__)
    add_profile(ap, help="fetch this profile's models and data")
    ap.add_argument("--datasets", default="", help="comma-separated data sets to fetch (e.g. stsb,sts12)")
    ap.add_argument("--model", action="append", default=[], help="a Hub model to fetch (repeatable)")
    ap.add_argument("--data-dir", default=None, help="a data folder to read (then the Hub is not asked)")
    args = ap.parse_args(argv)
    if not args.profile and not args.model and not args.datasets:
        ap.error("give --profile, --datasets and/or --model")
    profile = profiles.get_profile(args.profile) if args.profile else None
    models = list(dict.fromkeys((profiles.hub_models(profile) if profile else []) + args.model))
    names = list(dict.fromkeys((profile_datasets(profile.nli_source) if profile else [])
                               + [n.strip() for n in args.datasets.split(",") if n.strip()]))
    unknown = [n for n in names if n not in _loaders()]
    if unknown:
        ap.error(f"unknown data set(s) {unknown}; known: {', '.join(sorted(_loaders()))}")
    failed = []
    for name in models:
        try:
            print(f"[OK] model {name}: {fetch_model(name)}")
        except Exception as exc:  # report every failure, then exit non-zero
            failed.append(f"model {name}: {exc}")
    for name in names:
        try:
            print(f"[OK] data {fetch_dataset(name, args.data_dir)}")
        except (OSError, ValueError) as exc:
            if name in _OPTIONAL:
                print(f"[SKIP] data {name}: {_OPTIONAL[name]}")
            else:
                failed.append(f"data {name}: {exc}")
    for line in failed:
        print(f"[FAIL] {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
