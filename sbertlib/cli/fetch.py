"""Download what a profile needs, once, on a machine with internet.

    python -m sbertlib fetch --profile laptop          # google/bert_uncased_L-4_H-256_A-4 + AllNLI + STSb
    python -m sbertlib fetch --profile paper           # bert-base-uncased + AllNLI + STSb
    python -m sbertlib fetch --backbone bert-base-uncased

Models go to the Hugging Face cache (``huggingface_hub.snapshot_download``), data files to the
data folder (``--data-dir``, ``$SBERTLIB_DATA_DIR`` or the checkout's ``data/``) via :func:`sbertlib.data.locate`.
Offline, it stops at once with a message saying what could not be fetched.
"""
from __future__ import annotations

import argparse
import sys

from .. import config


def fetch_model(name: str) -> str:
    """Path of ``name`` in the local HF cache, downloading it if needed."""
    from huggingface_hub import snapshot_download
    try:
        return snapshot_download(name, local_files_only=True)
    except Exception:
        pass
    if not config.hub_reachable():
        raise ConnectionError(f"cannot download {name!r}: the Hugging Face hub ({config.HUB_HOST}) is not "
                              "reachable from here (offline, or HF_HUB_OFFLINE is set)")
    return snapshot_download(name)


def data_files(nli_source: str | None, data_dir=None) -> list[str]:
    """Data files to fetch: AllNLI for ``allnli`` profiles, STSb unless its csv files are already there."""
    files = ["AllNLI.tsv.gz"] if nli_source == "allnli" else []
    has_stsb_csv = any((d / "stsbenchmark" / "sts-dev.csv").is_file() for d in config.data_dir_candidates(data_dir))
    return files + ([] if has_stsb_csv else ["stsbenchmark.tsv.gz"])


def main(argv: list[str] | None = None) -> int:
    from .. import data
    from ..workbook import profiles
    ap = argparse.ArgumentParser(prog="python -m sbertlib fetch", description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", choices=sorted(profiles.PROFILES), help="fetch this profile's model and data")
    ap.add_argument("--backbone", action="append", default=[], help="a hub model to fetch (repeatable)")
    ap.add_argument("--data-dir", default=None, help="data folder (default: $SBERTLIB_DATA_DIR, else the checkout's data/)")
    args = ap.parse_args(argv)
    if not args.profile and not args.backbone:
        ap.error("give --profile and/or --backbone")
    profile = profiles.get_profile(args.profile) if args.profile else None
    models = list(dict.fromkeys((profiles.hub_models(profile) if profile else []) + args.backbone))
    files = data_files(profile.nli_source, args.data_dir) if profile else []
    failed = []
    for name in models:
        try:
            print(f"[OK] model {name}: {fetch_model(name)}")
        except Exception as exc:  # report every failure, then exit non-zero
            failed.append(f"model {name}: {exc}")
    for rel in files:
        try:
            print(f"[OK] data {rel}: {data.locate(rel, args.data_dir)}")
        except (data.DataNotFoundError, OSError) as exc:
            failed.append(f"data {rel}: {exc}")
    if not models and not files:
        print("nothing to fetch: everything this profile needs is packaged or already local")
    for line in failed:
        print(f"[FAIL] {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
