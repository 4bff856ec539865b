"""Benchmark command: sentences/s of ``encode`` with smart batching on and off.

    python -m sbertlib.bench encode                      # packaged MiniLM, STSb test sentences
    python -m sbertlib.bench encode --corpus varied --json bench.json

Same model, sentences, batch size and thread count for every row. sentence-transformers'
``encode`` is timed as the outside reference in a separate process (``benchmarks/st_reference.py``),
so this package never imports it; its embeddings are compared with ours.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

from . import data, speed
from .models import SentenceEncoder

REFERENCE_SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "st_reference.py"


def corpus(name: str, n: int | None, data_dir=None) -> list[str]:
    """``stsb``: STSb test sentences (short). ``varied``: SICK + STS12–16 + STSb sentences mixed,
    a wider spread of lengths (where smart batching gains most)."""
    if name == "stsb":
        pairs = data.load_stsb("test", data_dir)
    elif name == "varied":
        pairs = data.load_sick("test", data_dir) + data.load_stsb("test", data_dir)
        for year in ("sts12", "sts14", "sts15", "sts16"):
            pairs += data.load_sts_dataset(year, data_dir)
    else:
        raise ValueError(f"unknown corpus {name!r}: use 'stsb' or 'varied'")
    sentences = list(dict.fromkeys(s for p in pairs for s in (p.sentence1, p.sentence2)))
    rng = np.random.default_rng(0)  # a fixed shuffle: input order carries no length pattern
    sentences = [sentences[i] for i in rng.permutation(len(sentences))]
    return sentences[:n] if n else sentences


def run_reference(encoder: SentenceEncoder, model_path: str, sentences: list[str], batch_size: int,
                  repeats: int, warmup: int) -> tuple[dict, np.ndarray] | None:
    """Time sentence-transformers in a subprocess; None if it is not installed."""
    if not REFERENCE_SCRIPT.is_file():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.json"
        job.write_text(json.dumps({"model_path": model_path, "sentences": sentences,
                                   "batch_size": batch_size, "threads": torch.get_num_threads(),
                                   "repeats": repeats, "warmup": warmup, "device": str(encoder.device),
                                   "max_seq_length": encoder.max_seq_length}))
        prefix = str(Path(tmp) / "ref")
        env = {**os.environ, "PYTHONPATH": str(REFERENCE_SCRIPT.parents[1])}
        proc = subprocess.run([sys.executable, str(REFERENCE_SCRIPT), str(job), prefix],
                              capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print(f"(reference skipped: {proc.stderr.strip().splitlines()[-1:]})", file=sys.stderr)
            return None
        return json.loads(Path(prefix + ".json").read_text()), np.load(prefix + ".npy")


def bench_encode(args) -> dict:
    from .backbones import minilm_path
    encoder = SentenceEncoder.from_pretrained(args.model, device=args.device)
    sentences = corpus(args.corpus, args.n, args.data_dir)
    lengths = speed.token_lengths(encoder, sentences)
    rows = []
    for smart in (False, True):
        t = speed.measure(f"sbertlib encode, smart batching {'on' if smart else 'off'}",
                          lambda: encoder.encode(sentences, args.batch_size, smart_batching=smart),
                          len(sentences), args.repeats, args.warmup)
        rows.append({**t.as_dict(), "padding_share": speed.padding_share(lengths, args.batch_size, smart)})
    ours = encoder.encode(sentences, args.batch_size)
    result = {"model": encoder.name, "corpus": args.corpus, "n_sentences": len(sentences),
              "mean_tokens": float(np.mean(lengths)), "batch_size": args.batch_size,
              **speed.environment(), "rows": rows}
    if args.reference and args.model in ("minilm", "all-MiniLM-L6-v2"):
        ref = run_reference(encoder, str(minilm_path()), sentences, args.batch_size, args.repeats, args.warmup)
        if ref is not None:
            timing, emb = ref
            result["rows"].append({**timing, "padding_share": None})
            result["max_abs_diff_vs_reference"] = float(np.abs(emb - ours).max())
    return result


def print_encode(result: dict) -> None:
    print(f"model: {result['model']}  corpus: {result['corpus']} ({result['n_sentences']:,} sentences, "
          f"{result['mean_tokens']:.1f} tokens on average)  batch size: {result['batch_size']}  "
          f"threads: {result['threads']}  device: {result['device']}  torch {result['torch']}")
    print(f"{'':48s} {'sent/s':>9s} {'spread':>7s} {'padding':>8s}")
    for r in result["rows"]:
        pad = "-" if r["padding_share"] is None else f"{100 * r['padding_share']:.1f}%"
        print(f"{r['label']:48s} {r['sent_per_s']:9.1f} {100 * r['spread']:6.1f}% {pad:>8s}")
    base = result["rows"][0]["sent_per_s"]
    print(f"smart batching speed-up: {result['rows'][1]['sent_per_s'] / base:.2f}x "
          f"(paper, Table 7: CPU 83/44 = 1.89x, V100 2042/1378 = 1.48x)")
    if "max_abs_diff_vs_reference" in result:
        ref = result["rows"][2]["sent_per_s"]
        print(f"ours (smart) vs sentence-transformers: {result['rows'][1]['sent_per_s'] / ref:.2f}x; "
              f"max |embedding difference| = {result['max_abs_diff_vs_reference']:.2e}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sbertlib.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    enc = sub.add_parser("encode", help="encode throughput, smart batching on/off, vs sentence-transformers")
    enc.add_argument("--model", default="minilm")
    enc.add_argument("--corpus", default="stsb", choices=("stsb", "varied"))
    enc.add_argument("--n", type=int, default=None, help="use only the first N sentences")
    enc.add_argument("--batch-size", type=int, default=32)
    enc.add_argument("--repeats", type=int, default=3)
    enc.add_argument("--warmup", type=int, default=1)
    enc.add_argument("--device", default=None)
    enc.add_argument("--data-dir", default=None)
    enc.add_argument("--no-reference", dest="reference", action="store_false")
    enc.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    result = bench_encode(args)
    print_encode(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
