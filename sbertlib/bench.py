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
    sentences = speed.corpus(args.corpus, args.n, args.data_dir)
    lengths = speed.token_lengths(encoder, sentences)
    rows = speed.compare_modes(encoder, sentences, args.batch_size, args.repeats, args.warmup)
    for r in rows:
        r["label"] = f"sbertlib encode, {r['label']}"
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
    speeds = {r["label"]: r["sent_per_s"] for r in result["rows"]}
    off, on = speeds["sbertlib encode, input order"], speeds["sbertlib encode, smart batching"]
    print(f"smart batching speed-up: {on / off:.2f}x (paper, Table 7: CPU 83/44 = 1.89x, V100 2042/1378 = 1.48x)")
    if "max_abs_diff_vs_reference" in result:
        ref = speeds["sentence-transformers encode"]
        print(f"ours (smart) vs sentence-transformers: {on / ref:.2f}x; "
              f"max |embedding difference| = {result['max_abs_diff_vs_reference']:.2e}")


def bench_speedlab(args) -> dict:
    """Everything the speed lab shows, in one run: modes on both corpora, cross vs bi, GPU sweeps."""
    encoder = SentenceEncoder.from_pretrained(args.model, device=args.device)
    result = {"model": encoder.name, "stand_in": encoder.info.get("stand_in"), **speed.environment(),
              "corpora": {}}
    for name in ("stsb", "varied"):
        sentences = speed.corpus(name, args.n, args.data_dir)
        result["corpora"][name] = {"n_sentences": len(sentences),
                                   "rows": speed.compare_modes(encoder, sentences, args.batch_size, args.repeats)}
    pool = speed.corpus("varied", None, args.data_dir)
    result["cross_vs_bi"] = speed.cross_vs_bi(encoder, pool, n=args.pairs_n)
    if encoder.device.type == "cuda":
        stsb = speed.corpus("stsb", None, args.data_dir)
        result["precisions"] = speed.precision_sweep(encoder, stsb, batch_size=args.gpu_batch_size)
        result["batch_sizes"] = speed.batch_size_sweep(encoder, stsb, sizes=(32, 64, 128, 256, 512))
    return result


def print_speedlab(result: dict) -> None:
    from . import paper
    print(f"model: {result['model']}{' [stand-in]' if result['stand_in'] else ''}  device: {result['device']}  "
          f"threads: {result['threads']}  torch {result['torch']}")
    for name, block in result["corpora"].items():
        print(f"\ncorpus {name} ({block['n_sentences']:,} sentences)")
        base = block["rows"][0]["sent_per_s"]
        for r in block["rows"]:
            print(f"  {r['label']:16s} {r['sent_per_s']:9.1f} sent/s  x{r['sent_per_s'] / base:4.2f}  "
                  f"padding {100 * r['padding_share']:5.1f}%  spread {100 * r['spread']:4.1f}%")
    for block in ("precisions", "batch_sizes"):
        for r in result.get(block, []):
            mem = f"  peak {r['peak_memory_mib']:.0f} MiB" if "peak_memory_mib" in r else ""
            print(f"  {block[:-1]} {r['label']:10s} batch {r['batch_size']:4d}: {r['sent_per_s']:10.1f} sent/s{mem}")
    cb = result["cross_vs_bi"]
    print(f"\nmost similar pair among {cb['n']:,} sentences: cross-encoder {cb['cross_pairs_per_s']:.0f} pairs/s "
          f"-> {cb['cross_hours_extrapolated']:.1f} h (extrapolated); bi-encoder {cb['bi_seconds_measured']:.1f} s "
          f"(measured). Paper: {paper.CROSS_ENCODER_HOURS_10K:.0f} h vs ~{paper.SBERT_SECONDS_10K:.0f} s on a V100.")
    print("paper, Table 7 (sent/s; CPU i7-5820K, GPU V100):")
    for name, (cpu, gpu) in paper.TABLE7.items():
        print(f"  {name:32s} CPU {cpu:>6}  GPU {gpu if gpu is not None else '-':>6}")


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
    lab = sub.add_parser("speedlab", help="all speed-lab figures: batching modes, cross vs bi, GPU sweeps")
    lab.add_argument("--model", default="minilm", help="e.g. minilm, or random-bert-base for bert-base cost")
    lab.add_argument("--n", type=int, default=2000, help="sentences per corpus for the mode comparison")
    lab.add_argument("--pairs-n", type=int, default=10_000, help="n for the most-similar-pair comparison")
    lab.add_argument("--batch-size", type=int, default=32)
    lab.add_argument("--gpu-batch-size", type=int, default=256)
    lab.add_argument("--repeats", type=int, default=3)
    lab.add_argument("--device", default=None)
    lab.add_argument("--data-dir", default=None)
    lab.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if args.what == "speedlab":
        result = bench_speedlab(args)
        print_speedlab(result)
    else:
        result = bench_encode(args)
        print_encode(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
