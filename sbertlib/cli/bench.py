"""Benchmark command: sentences/s of ``encode`` with smart batching on and off.

    python -m sbertlib bench encode                      # packaged MiniLM, STSb test sentences
    python -m sbertlib bench encode --corpus varied --save bench.json
    python -m sbertlib bench speedlab                    # everything notebook 11 shows
    python -m sbertlib bench train                       # training pairs/s
    python -m sbertlib.bench encode --precision fp32,bf16 --json   # ours vs sentence-transformers per precision
    python -m sbertlib.bench train --precision fp32,bf16            # training pairs/s under bf16 autocast

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

from .. import config
from ..data.corpora import corpus
from ..errors import SettingError
from ..evaluation import speed
from ..model import casting, hardware, precision as precisions
from ..model.encoder import SentenceEncoder
from .common import add_device, command, parser

REFERENCE_SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "st_reference.py"
REFERENCE_MODELS = ("minilm", "all-MiniLM-L6-v2")  # the reference loads the packaged MiniLM only
TRAIN_PRECISIONS = ("fp32", "bf16", "fp16")  # fp32 weights, with or without autocast
TORCHAO_INT8 = "int8-torchao"  # bench encode only: int8 through torchao, beside int8's torch.ao


class ReferenceUnavailable(RuntimeError):
    """sentence-transformers could not be timed here."""


def run_reference(kind: str, job: dict) -> dict:
    """Run ``benchmarks/st_reference.py KIND`` in a subprocess; ReferenceUnavailable saying why if it fails."""
    if not REFERENCE_SCRIPT.is_file():
        raise ReferenceUnavailable(f"{REFERENCE_SCRIPT} is missing (sbertlib installed without its repository)")
    with tempfile.TemporaryDirectory() as tmp:
        job_file = Path(tmp) / "job.json"
        job_file.write_text(json.dumps({"threads": torch.get_num_threads(), **job}))
        prefix = str(Path(tmp) / "ref")
        env = {**os.environ, "PYTHONPATH": str(REFERENCE_SCRIPT.parents[1])}
        proc = subprocess.run([sys.executable, str(REFERENCE_SCRIPT), kind, str(job_file), prefix],
                              capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
            raise ReferenceUnavailable(f"{REFERENCE_SCRIPT.name} {kind} failed: {last}")
        out = json.loads(Path(prefix + ".json").read_text())
        if Path(prefix + ".npy").is_file():
            out["embeddings"] = np.load(prefix + ".npy")
        return out


def reference(args, kind: str, job: dict) -> tuple[dict | None, str | None]:
    """``(sentence-transformers' figures, None)``, or ``(None, why it did not run)``: the print_*
    functions show that note beside the table, and the JSON records it as ``reference_note``."""
    if not args.reference:
        return None, "not run: --no-reference"
    if args.model not in REFERENCE_MODELS:
        why = f"not run: it loads the packaged all-MiniLM-L6-v2 only (--model minilm), not {args.model!r}"
    else:
        from ..model.backbones import BackboneNotAvailable, minilm_path
        try:
            return run_reference(kind, {"model_path": str(minilm_path()), **job}), None
        except (ReferenceUnavailable, BackboneNotAvailable) as err:
            why = f"not run: {err}"
    return None, why


def bench_encode(args) -> dict:
    """sentences/s of our encode with smart batching on and off, and of sentence-transformers'."""
    encoder = SentenceEncoder.from_pretrained(args.model, device=args.device)
    sentences = corpus(args.corpus, args.n, args.data_dir)
    lengths = speed.token_lengths(encoder, sentences)
    rows = speed.compare_modes(encoder, sentences, args.batch_size, args.repeats, args.warmup_runs)
    for r in rows:
        r["label"] = f"sbertlib encode, {r['label']}"
    ours = encoder.encode(sentences, args.batch_size)
    result = {"model": encoder.name, "corpus": args.corpus, "n_sentences": len(sentences),
              "mean_tokens": float(np.mean(lengths)), "batch_size": args.batch_size,
              **speed.environment(encoder.device), "rows": rows}
    ref, why = reference(args, "encode", {"sentences": sentences, "batch_size": args.batch_size,
                                          "repeats": args.repeats, "warmup_runs": args.warmup_runs,
                                          "device": str(encoder.device), "max_seq_length": encoder.max_seq_length})
    if ref is None:
        result["reference_note"] = why
    else:
        emb = ref.pop("embeddings")
        result["rows"].append({**ref, "padding_share": None})
        result["max_abs_diff_vs_reference"] = float(np.abs(emb - ours).max())
    return result


def bench_precisions(args) -> dict:
    """Ours and sentence-transformers at each precision: same sentences, threads and batch size;
    our STSb test Spearman at each precision against fp32's. ``auto`` is timed as ``auto`` and its
    entry says what it ran as (``runs_as``); the reference runs that concrete precision. ``int8-torchao`` is
    int8 through torchao (the replacement of the deprecated ``quantize_dynamic`` that ``int8`` runs), on an
    encoder of its own, beside ``int8``; sentence-transformers' int8 is ``quantize_dynamic`` (its users' way)."""
    from .. import data
    wanted = _names(args.precision)
    encoder = SentenceEncoder.from_pretrained(args.model, device=args.device)
    for name in wanted:
        if name != TORCHAO_INT8:
            precisions.check_precision(name, encoder.device)
    sentences, stsb = corpus(args.corpus, args.n, args.data_dir), data.load_stsb("test", args.data_dir)
    rows = speed.precision_comparison(encoder, sentences, stsb, [n for n in wanted if n != TORCHAO_INT8],
                                      args.batch_size, args.repeats, args.warmup_runs, args.emulated_sample)
    encoders = {row["precision"]: encoder for row in rows}
    if TORCHAO_INT8 in wanted:
        encoders[TORCHAO_INT8], row = _torchao_int8(args, sentences, stsb)   # spearman_diff: against the same fp32
        rows.append({**row, "precision": TORCHAO_INT8})
    result = {"model": encoder.name, "corpus": args.corpus, "n_sentences": len(sentences), "batch_size": args.batch_size,
              "hardware": hardware.describe_hardware(encoder.device),
              **speed.environment(encoder.device), "precisions": {}}
    references: dict[str, tuple] = {}  # sentence-transformers' figures per precision it ran, run once each
    for row in sorted(rows, key=lambda r: wanted.index(r["precision"])):
        name, ours_encoder = row["precision"], encoders[row["precision"]]
        timed = sentences[:row["timed_sentences"]]   # fewer where the precision is emulated here
        entry = {"ours": row["sent_per_s"], "sentence_transformers": None, "spearman_diff": row["spearman_diff"],
                 "spearman": row["spearman"], "max_abs_diff_vs_fp32": row["max_abs_diff"],
                 "timed_sentences": len(timed), "estimated_s_all": row["estimated_s_all"]}
        runs_as = "int8" if name == TORCHAO_INT8 else encoder.resolved_precision(name)
        if runs_as != name and name != TORCHAO_INT8:
            entry["runs_as"] = runs_as
        if runs_as not in references:
            sampled = len(timed) < len(sentences)
            references[runs_as] = reference(args, "encode", {
                "sentences": timed, "precision": runs_as, "batch_size": args.batch_size,
                "repeats": 1 if sampled else args.repeats, "warmup_runs": 0 if sampled else args.warmup_runs,
                "device": str(encoder.device), "max_seq_length": encoder.max_seq_length})
        ref, why = references[runs_as]
        if ref is None:
            entry["reference_note"] = why
        else:
            with casting.int8_backend("torchao" if name == TORCHAO_INT8 else "torch.ao"):
                ours = ours_encoder.encode(timed, args.batch_size,
                                           precision="int8" if name == TORCHAO_INT8 else name, show_progress_bar=False)
            entry["sentence_transformers"] = ref["sent_per_s"]
            entry["max_abs_diff_vs_sentence_transformers"] = float(np.abs(ref["embeddings"] - ours).max())
        result["precisions"][name] = entry
    return result


def _torchao_int8(args, sentences, stsb) -> tuple[SentenceEncoder, dict]:
    """``(encoder, row)``: int8 through torchao, timed and scored as :func:`speed.precision_comparison`
    does every precision (on a fresh encoder: one keeps the int8 copy it has made)."""
    with casting.int8_backend("torchao"):
        old = SentenceEncoder.from_pretrained(args.model, device=args.device)
        rows = speed.precision_comparison(old, sentences, stsb, ["fp32", "int8"], args.batch_size, args.repeats,
                                          args.warmup_runs)
    return old, rows[1]


def print_precisions(result: dict, out=sys.stdout) -> None:
    print(f"model: {result['model']}  corpus: {result['corpus']} ({result['n_sentences']:,} sentences)  batch size: "
          f"{result['batch_size']}  threads: {result['threads']}  torch {result['torch']}\n{result['hardware']}", file=out)
    print(f"{'precision':13s} {'ours sent/s':>12s} {'ST sent/s':>10s} {'ours/ST':>8s} {'Spearman':>9s} {'diff':>7s}", file=out)
    table = result["precisions"]
    for name, e in table.items():
        st = e["sentence_transformers"]
        name = f"{name}={e['runs_as']}" if "runs_as" in e else name
        print(f"{name:13s} {e['ours']:12.1f} {st or float('nan'):10.1f} {e['ours'] / st if st else float('nan'):8.2f} "
              f"{e['spearman']:9.2f} {e['spearman_diff']:+7.2f}", file=out)
    if "fp32" in table:
        for name in (n for n in table if n != "fp32"):
            print(f"ours {name} / ours fp32: {table[name]['ours'] / table['fp32']['ours']:.2f}x", file=out)
    for name, e in table.items():
        if e["timed_sentences"] < result["n_sentences"]:
            print(f"{name}, emulated here: both libraries timed it once, on the first {e['timed_sentences']} "
                  f"sentences (one pass over all {result['n_sentences']:,} would take about "
                  f"{e['estimated_s_all']:.0f} s); its Spearman is on all STSb test pairs", file=out)
    for note in dict.fromkeys(e["reference_note"] for e in table.values() if "reference_note" in e):
        print(f"sentence-transformers: {note}", file=out)


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
    if "reference_note" in result:
        print(f"sentence-transformers: {result['reference_note']}")


def bench_speedlab(args) -> dict:
    """Everything the speed lab shows, in one run: modes on both corpora, cross vs bi, and on a GPU
    (CUDA, else Apple's mps: ``--device`` or what :func:`config.pick_device` picks) its precision and
    batch-size sweeps; ``accelerator`` names the GPU they ran on (None: no GPU, no sweeps)."""
    encoder = SentenceEncoder.from_pretrained(args.model, device=args.device)
    result = {"model": encoder.name, "stand_in": encoder.info.get("stand_in"), **speed.environment(encoder.device),
              "corpora": {}}
    for name in ("stsb", "varied"):
        sentences = corpus(name, args.n, args.data_dir)
        result["corpora"][name] = {"n_sentences": len(sentences),
                                   "rows": speed.compare_modes(encoder, sentences, args.batch_size, args.repeats)}
    pool = corpus("varied", None, args.data_dir)
    result["cross_vs_bi"] = speed.cross_vs_bi(encoder, pool, n=args.pairs_n)
    result.update(gpu_sweeps(encoder, args))
    return result


def gpu_precisions(device: torch.device) -> tuple[str, ...]:
    """The precisions the GPU half sweeps on ``device``: fp32, fp16, and bf16 where it runs there."""
    return tuple(p for p in ("fp32", "fp16", "bf16") if p in precisions.available_precisions(device))


def gpu_sweeps(encoder, args) -> dict:
    """The speed lab's GPU half on the encoder's device (CUDA or mps): precisions and batch sizes on all
    STSb test sentences, and ``accelerator`` naming the device; on a CPU only ``accelerator: None``."""
    if encoder.device.type not in ("cuda", "mps"):
        return {"accelerator": None}
    from .. import data
    stsb = corpus("stsb", None, args.data_dir)
    return {"accelerator": str(encoder.device),
            "precisions": speed.precision_comparison(encoder, stsb, data.load_stsb("test", args.data_dir),
                                                     gpu_precisions(encoder.device), batch_size=args.gpu_batch_size),
            "batch_sizes": speed.batch_size_sweep(encoder, stsb, sizes=(32, 64, 128, 256, 512))}


def bench_train(args) -> dict:
    """Training pairs/s: our fit() with and without length grouping, and sentence-transformers, at
    each ``--precision`` (fp32, or bf16/fp16 autocast), all on ``--device``.

    All rows run the same SoftmaxLoss steps on the same NLI pairs with the same batch size; the
    first ``--warmup-steps`` steps of each are not timed.
    """
    import time
    from .. import losses, training
    from ..workbook.profiles import get_profile, load_nli_train
    device = config.pick_device(args.device)
    pairs = load_nli_train(get_profile("offline"), args.data_dir)
    pairs = pairs[: min(args.steps, len(pairs) // args.batch_size) * args.batch_size]
    warmup = max(0, min(args.warmup_steps, len(pairs) // args.batch_size - 1))
    result = {"model": args.model, "pairs": len(pairs), "batch_size": args.batch_size, "warmup_steps": warmup,
              "max_seq_length": args.max_seq_length, **speed.environment(device), "rows": []}
    amps = _names(args.precision)
    for amp, grouping in ((a, g) for a in amps for g in (False, True)):
        encoder = SentenceEncoder.from_pretrained(args.model, max_seq_length=args.max_seq_length, device=device)
        loss = losses.SoftmaxLoss(encoder)
        clock = {"start": time.perf_counter(), "pairs": 0}

        def tick(step, history, clock=clock):
            if step == warmup:  # steps count from 1: with no warm-up the clock started above
                clock["start"], clock["pairs"] = time.perf_counter(), 0
            elif step > warmup:
                clock["pairs"] += args.batch_size  # every batch is full: pairs is a multiple of it

        training.fit(encoder, loss, pairs, batch_size=args.batch_size, length_grouping=grouping,
                     show_progress_bar=False, callback=tick, mixed_precision=None if amp == "fp32" else amp)
        seconds = time.perf_counter() - clock["start"]
        result["rows"].append({"label": f"sbertlib fit, length grouping {'on' if grouping else 'off'}"
                                        + ("" if amp == "fp32" else f", {amp} autocast"),
                               "precision": amp, "pairs_per_s": clock["pairs"] / seconds})
    batches = [[(p.premise, p.hypothesis, p.label_id) for p in pairs[i:i + args.batch_size]]
               for i in range(0, len(pairs), args.batch_size)]
    notes = []
    for amp in amps:
        ref, why = reference(args, "train", {"batches": batches, "warmup_steps": warmup, "precision": amp,
                                             "max_seq_length": args.max_seq_length, "device": str(device)})
        if ref is not None:
            result["rows"].append({**ref, "precision": amp})
        elif why not in notes:
            notes.append(why)
    if notes:
        result["reference_note"] = "; ".join(notes)
    return result


def print_train(result: dict) -> None:
    print(f"model: {result['model']}  {result['pairs']:,} NLI pairs, batch {result['batch_size']}, "
          f"first {result['warmup_steps']} steps untimed, "
          f"max_seq_length {result['max_seq_length']}  device: {result['device']}  threads: {result['threads']}")
    for r in result["rows"]:
        print(f"  {r['label']:60s} {r['pairs_per_s']:8.1f} pairs/s")
    if "reference_note" in result:
        print(f"  sentence-transformers: {result['reference_note']}")


def print_speedlab(result: dict) -> None:
    from .. import paper
    print(f"model: {result['model']}{' [stand-in]' if result['stand_in'] else ''}  device: {result['device']}  "
          f"threads: {result['threads']}  torch {result['torch']}")
    for name, block in result["corpora"].items():
        print(f"\ncorpus {name} ({block['n_sentences']:,} sentences)")
        base = block["rows"][0]["sent_per_s"]
        for r in block["rows"]:
            print(f"  {r['label']:16s} {r['sent_per_s']:9.1f} sent/s  x{r['sent_per_s'] / base:4.2f}  "
                  f"padding {100 * r['padding_share']:5.1f}%  spread {100 * r['spread']:4.1f}%")
    print(f"\nGPU sweeps on {result['accelerator']}: {result['device']}" if result.get("accelerator")
          else f"\nGPU sweeps: not run (they need a CUDA or mps device; this run used {result['device_type']})")
    for block in ("precisions", "batch_sizes"):
        for r in result.get(block, []):
            mem = speed.memory_note(r)
            print(f"  {block[:-1]} {r['label']:10s} batch {r['batch_size']:4d}: {r['sent_per_s']:10.1f} sent/s"
                  + (f"  {mem}" if mem else ""))
    cb = result["cross_vs_bi"]
    print(f"\nmost similar pair among {cb['n']:,} sentences: cross-encoder {cb['cross_pairs_per_s']:.0f} pairs/s "
          f"-> {cb['cross_hours_extrapolated']:.1f} h (extrapolated); bi-encoder {cb['bi_seconds_measured']:.1f} s "
          f"(measured). Paper: {paper.CROSS_ENCODER_HOURS_10K:.0f} h vs ~{paper.SBERT_SECONDS_10K:.0f} s on a V100.")
    print("paper, Table 7 (sent/s; CPU i7-5820K, GPU V100):")
    for name, (cpu, gpu) in paper.TABLE7.items():
        print(f"  {name:32s} CPU {cpu:>6}  GPU {gpu if gpu is not None else '-':>6}")


@command("bench")
def main(argv: list[str] | None = None) -> int:
    ap = parser("bench", __doc__)
    sub = ap.add_subparsers(dest="what", required=True)
    enc = sub.add_parser("encode", help="encode throughput, smart batching on/off, vs sentence-transformers")
    enc.add_argument("--model", default="minilm")
    enc.add_argument("--corpus", default="stsb", choices=("stsb", "varied"))
    enc.add_argument("--n", type=int, default=None, help="use only the first N sentences")
    enc.add_argument("--batch-size", type=int, default=32)
    enc.add_argument("--repeats", type=int, default=3)
    enc.add_argument("--warmup-runs", type=int, default=1, help="untimed passes over the corpus first")
    add_device(enc)
    enc.add_argument("--data-dir", default=None)
    enc.add_argument("--no-reference", dest="reference", action="store_false")
    enc.add_argument("--precision", default=None,
                     help="comma-separated precisions (fp32,bf16,int8 on a CPU; fp32,bf16,fp16 on a GPU; auto: "
                          "what encode(precision='auto') picks here; int8-torchao: int8 through torchao, beside "
                          "int8's deprecated torch.ao quantize_dynamic): ours and sentence-transformers at each, "
                          "and the STSb Spearman difference from fp32")
    enc.add_argument("--emulated-sample", type=int, default=128, metavar="N",
                     help="with --precision: time a precision this machine only emulates (bf16 without AMX or "
                          "AVX512-BF16) once on the first N sentences, with the estimate for all (default 128)")
    enc.add_argument("--json", action="store_true",
                     help="print one JSON object (with --precision: {precision: {ours, sentence_transformers, "
                          "spearman_diff, ...}})")
    enc.add_argument("--save", metavar="FILE", default=None, help="also write every figure, as JSON, to FILE")
    lab = sub.add_parser("speedlab", help="all speed-lab figures: batching modes, cross vs bi, GPU (CUDA, mps) sweeps")
    lab.add_argument("--model", default="minilm", help="e.g. minilm, or random-bert-base for bert-base cost")
    lab.add_argument("--n", type=int, default=2000, help="sentences per corpus for the mode comparison")
    lab.add_argument("--pairs-n", type=int, default=10_000, help="n for the most-similar-pair comparison")
    lab.add_argument("--batch-size", type=int, default=32)
    lab.add_argument("--gpu-batch-size", type=int, default=256)
    lab.add_argument("--repeats", type=int, default=3)
    add_device(lab)
    lab.add_argument("--data-dir", default=None)
    lab.add_argument("--json", action="store_true", help="print one JSON object")
    lab.add_argument("--save", metavar="FILE", default=None, help="also write every figure, as JSON, to FILE")
    tr = sub.add_parser("train", help="training pairs/s, length grouping on/off, vs sentence-transformers")
    tr.add_argument("--model", default="minilm")
    tr.add_argument("--steps", type=int, default=30)
    tr.add_argument("--batch-size", type=int, default=16)
    tr.add_argument("--warmup-steps", type=int, default=3, help="training steps run before the clock starts")
    tr.add_argument("--max-seq-length", type=int, default=128)
    add_device(tr)
    tr.add_argument("--data-dir", default=None)
    tr.add_argument("--no-reference", dest="reference", action="store_false")
    tr.add_argument("--precision", default="fp32",
                    help="comma-separated: fp32, bf16 (autocast; CPU or GPU), fp16 (autocast; GPU only)")
    tr.add_argument("--json", action="store_true", help="print one JSON object")
    tr.add_argument("--save", metavar="FILE", default=None, help="also write every figure, as JSON, to FILE")
    args = ap.parse_args(argv)
    _check_settings(sub.choices[args.what], args)
    to_stdout = args.json
    human = sys.stderr if to_stdout else sys.stdout  # JSON alone on stdout, the table beside it on stderr
    if args.what == "train":
        result = bench_train(args)
        _quietly(print_train, result, human)
    elif args.what == "speedlab":
        result = bench_speedlab(args)
        _quietly(print_speedlab, result, human)
    elif args.precision:
        result = bench_precisions(args)
        print_precisions(result, human)
    else:
        result = bench_encode(args)
        _quietly(print_encode, result, human)
    if to_stdout:
        print(json.dumps(result["precisions"] if args.what == "encode" and args.precision else result))
    if args.save:
        Path(args.save).write_text(json.dumps(result, indent=2))
    return 0


def _names(spec: str) -> list[str]:
    """The precisions of a comma-separated ``--precision`` value."""
    return [p.strip() for p in spec.split(",") if p.strip()]


def _check_settings(ap: argparse.ArgumentParser, args) -> None:
    """Exit with a usage error naming the setting when ``--device`` or ``--precision`` cannot run."""
    try:
        device = config.pick_device(args.device)
    except SettingError as err:
        ap.error(f"--device {args.device!r}: {err}")
    spec = getattr(args, "precision", None)
    if spec is None:
        return
    if not _names(spec):
        ap.error(f"--precision {spec!r} names no precision; e.g. --precision fp32,bf16")
    for name in _names(spec):
        why = _train_precision_problem(name, device) if args.what == "train" else _encode_precision_problem(name, device)
        if why:
            ap.error(f"--precision {name}: {why}")


def _encode_precision_problem(name: str, device: torch.device) -> str | None:
    """Why ``encode`` cannot run at ``name`` on ``device`` (None if it can)."""
    try:
        if name == TORCHAO_INT8:
            with casting.int8_backend("torchao"):
                precisions.check_precision("int8", device)
        else:
            precisions.check_precision(name, device)
    except SettingError as err:
        return str(err)
    return None


def _train_precision_problem(name: str, device: torch.device) -> str | None:
    """Why ``fit`` cannot train under ``name`` on ``device`` (None if it can)."""
    if name not in TRAIN_PRECISIONS:
        return (f"bench train runs fp32 weights with or without autocast: one of {TRAIN_PRECISIONS}"
                + ("; int8 and auto are for bench encode" if name in ("int8", "auto") else ""))
    if name == "fp16" and device.type != "cuda":
        return f"fp16 autocast needs a CUDA GPU (device: {device}); on a CPU use --precision bf16"
    if name == "bf16" and device.type not in ("cpu", "cuda"):
        return f"bf16 autocast runs on a CPU or a CUDA GPU, not {device}"
    return None


def _quietly(printer, result: dict, out) -> None:
    """Run a print_* function with its output sent to ``out``."""
    import contextlib
    with contextlib.redirect_stdout(out):
        printer(result)


if __name__ == "__main__":
    sys.exit(main())
