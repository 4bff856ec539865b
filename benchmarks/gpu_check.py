"""The GPU figures the project lacks, in one run from the checkout: no install, no course data, no network.

    bash benchmarks/gpu_check.sh                      # what to run on the GPU machine
    PYTHONPATH=. python benchmarks/gpu_check.py [--device cuda:0] [--quick] [--save FILE]
    GPU_CHECK_QUICK=1 bash benchmarks/gpu_check.sh --device cpu   # tiny: checks the script itself

Quick (``--quick``, ``GPU_CHECK_QUICK=1``) runs the same code on tiny sizes, fp32 and bf16, the MiniLM-sized
encoder alone and the ``laptop`` profile's 4-layer step instead of bert-base's: seconds, figures meaningless.

Prints the device and versions (torch, transformers, sentence-transformers, CUDA, GPU), then:

* the speed lab for a bert-base-sized and a MiniLM-sized encoder (their real architectures from
  :mod:`sbertlib.model.architectures`, random weights): sentences/s with smart batching off and on at
  every precision the device encodes in (fp32, bf16, fp16 on CUDA), the padding share, the peak GPU
  memory and how far each precision's vectors move from fp32's;
* one ``paper`` training step (bert-base, SoftmaxLoss, batch 16, max_seq_length 128) and one encode
  batch, and the ``paper`` lesson's estimate from them (``python -m sbertlib estimate``).

Sentences are synthesised to the token lengths of STSb and the NLI data (:mod:`sbertlib.evaluation.workload`).
The timing is :mod:`sbertlib.evaluation.speed`'s. The weights are random: the times are real, the vectors mean nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys

import torch

from sbertlib.cli import estimate
from sbertlib.evaluation import speed, workload
from sbertlib.model import architectures, precision
from sbertlib.model.encoder import SentenceEncoder
from sbertlib.workbook import costs, profiles

MODELS = ("bert-base-uncased", "sentence-transformers/all-MiniLM-L6-v2")
FULL = dict(n=10_000, pairs=1_000, batch_size=128, repeats=3, warmup=1, step_repeats=20, step_warmup=3)
QUICK = dict(n=48, pairs=24, batch_size=16, repeats=1, warmup=0, step_repeats=1, step_warmup=0)


def versions(device: torch.device) -> dict:
    """What the figures depend on: python, torch, transformers, sentence-transformers, CUDA, the device."""
    import transformers
    try:
        import sentence_transformers
        st = sentence_transformers.__version__
    except ImportError:
        st = "not installed"
    info = {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
            "sentence_transformers": st, "cuda": torch.version.cuda or "none (CPU build)",
            "cudnn": torch.backends.cudnn.version() if torch.cuda.is_available() else None,
            "gpu": torch.cuda.get_device_name(device) if device.type == "cuda" else "none",
            **speed.environment(), "device_used": str(device), "cpu_count": os.cpu_count()}
    return info


def precisions(device: torch.device, quick: bool) -> tuple[str, ...]:
    """fp32, bf16 and fp16 where the device encodes in them (int8 is a CPU lesson); quick: fp32 and bf16."""
    names = tuple(p for p in precision.available_precisions(device) if p != "int8")
    return names[:2] if quick else names


def speed_lab(name: str, device: torch.device, sizes: dict, quick: bool) -> dict:
    """Smart batching off/on at each precision for NAME's architecture: sent/s, padding, peak memory, drift."""
    encoder = SentenceEncoder.from_pretrained(architectures.random_init_name(name), max_seq_length=128, device=device)
    sentences = workload.synthetic_sentences("stsb", sizes["n"])
    wanted = precisions(device, quick)
    rows = speed.precision_comparison(encoder, sentences, workload.synthetic_sts_pairs(sizes["pairs"]), wanted,
                                      sizes["batch_size"], sizes["repeats"], sizes["warmup"])
    for row in rows:  # precision_comparison times smart batching; add input order at the same precision
        encoder.precision = row["precision"]
        off = speed.compare_modes(encoder, sentences, sizes["batch_size"], sizes["repeats"], sizes["warmup"],
                                  modes=("input order",))[0]
        row.update(input_order_sent_per_s=off["sent_per_s"], input_order_padding=off["padding_share"],
                   smart_padding=speed.padding_share(encoder, sentences, sizes["batch_size"], True))
    encoder.precision = "fp32"
    return {"model": encoder.name, "n_sentences": len(sentences), "batch_size": sizes["batch_size"],
            "mean_tokens": sum(speed.token_lengths(encoder, sentences)) / len(sentences), "rows": rows}


def print_lab(lab: dict) -> None:
    print(f"\n{lab['model']} (random weights): {lab['n_sentences']:,} synthetic STSb-length sentences, "
          f"{lab['mean_tokens']:.1f} tokens on average, batch {lab['batch_size']}")
    print(f"  {'precision':9s} {'input order':>12s} {'smart':>10s} {'speed-up':>8s} {'padding off/on':>15s} "
          f"{'peak MiB':>9s} {'max|diff| vs fp32':>18s}")
    for r in lab["rows"]:
        mem = f"{r['peak_memory_mib']:9.0f}" if "peak_memory_mib" in r else f"{'-':>9s}"
        print(f"  {r['precision']:9s} {r['input_order_sent_per_s']:12.1f} {r['sent_per_s']:10.1f} "
              f"{r['sent_per_s'] / r['input_order_sent_per_s']:7.2f}x "
              f"{100 * r['input_order_padding']:6.1f}%/{100 * r['smart_padding']:5.1f}% {mem} "
              f"{r['max_abs_diff']:18.2e}")


def profile_step(name: str, device: torch.device, sizes: dict, amp: str | None) -> dict:
    """One training step and encode batch of profile NAME here, and its lesson's estimate from them."""
    profile = profiles.get_profile(name, dry_run=False)
    result = estimate.measure(profile, str(device), "synthetic", sizes["step_repeats"], sizes["step_warmup"], amp)
    terms = costs.lesson_terms(profile, result["step_seconds"], result["encode_batch_seconds"])
    print("\n" + estimate.report(result, terms))
    return {**result, "estimate_total_seconds": sum(t.seconds for t in terms)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default=None, help="default: cuda > mps > cpu")
    ap.add_argument("--quick", action="store_true", default=os.environ.get("GPU_CHECK_QUICK", "") not in ("", "0"),
                    help="tiny sizes, fp32 and bf16 only (also GPU_CHECK_QUICK=1): a test of the script")
    ap.add_argument("--save", metavar="FILE", default=None, help="also write every figure, as JSON, to FILE")
    args = ap.parse_args(argv)
    from sbertlib import config
    device = config.pick_device(args.device)
    sizes = QUICK if args.quick else FULL
    info = versions(device)
    print("gpu_check: random weights in the real architectures - the times are real, the vectors mean nothing")
    print(json.dumps(info, indent=1))
    labs = [speed_lab(name, device, sizes, args.quick) for name in (MODELS[1:] if args.quick else MODELS)]
    for lab in labs:
        print_lab(lab)
    steps = [profile_step("laptop" if args.quick else "paper", device, sizes, None)]
    if device.type == "cuda" and not args.quick:
        steps.append(profile_step("paper", device, sizes, "bf16"))  # what a GPU would train in; the profile: fp32
    if args.save:
        with open(args.save, "w") as f:
            json.dump({"versions": info, "quick": args.quick, "speed_lab": labs, "profile_steps": steps}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
