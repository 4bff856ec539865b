"""Command line: measure one training step and one encode batch of a profile's real architecture (random
weights) here, and print what its lesson costs on this device, formula and inputs beside every figure.

    python -m sbertlib estimate --profile paper                    # bert-base-uncased, batch 16, 128 tokens
    python -m sbertlib estimate --profile paper --device cuda --sentences synthetic --json
    python -m sbertlib estimate --profile laptop

The step is the paper's classification objective (SoftmaxLoss over ``[u, v, |u-v|]``), one of ``fit``'s
steps on the profile's batch size and ``max_seq_length``; the encode batch is the STSb dev evaluator's
(64 sentences, the profile's encode precision). ``--sentences data``: offline NLI pairs and STSb dev
sentences (real lengths; needs the data); ``synthetic``: sentences drawn to their measured lengths.
What is summed is :mod:`sbertlib.workbook.costs`; the weights are random, so only the times mean anything.
"""
from __future__ import annotations

import json
import random
import sys

from .common import add_device, add_profile, command, parser


def measure(profile, device, sentences: str, repeats: int, warmup: int, mixed_precision: str | None,
            data_dir=None) -> dict:
    """Seconds of one training step and one encode batch of ``profile``'s architecture on ``device``."""
    import numpy as np

    from .. import losses
    from ..evaluation import speed, workload
    from ..model.encoder import SentenceEncoder
    from ..workbook import profiles
    dry = profiles.as_dry_run(profile)
    encoder = profiles.with_precision(SentenceEncoder.from_pretrained(
        dry.backbone, max_seq_length=profile.max_seq_length, device=device), profile)
    args = profile.stage("nli").arguments(mixed_precision=mixed_precision)  # the classification objective's
    pairs, texts = _inputs(dry, sentences, args.batch_size * (repeats + warmup), data_dir)
    step = workload.train_step_timing(losses.SoftmaxLoss(encoder, num_labels=3), pairs, args, repeats, warmup)
    batch = workload.encode_batch_timing(encoder, texts, 64, repeats, warmup)
    lengths = speed.token_lengths(encoder, [s for p in pairs for s in (p.premise, p.hypothesis)])
    return {"profile": profile.name, "architecture": dry.backbone, "weights": "random (timings only)",
            **speed.environment(), "sentences": sentences, "batch_size": args.batch_size,
            "max_seq_length": profile.max_seq_length, "mixed_precision": mixed_precision,
            "encode_precision": encoder.resolved_precision(), "mean_tokens_trained": float(np.mean(lengths)),
            "step_seconds": float(np.mean(step.seconds)), "step_seconds_all": step.seconds,
            "encode_batch_seconds": float(np.mean(batch.seconds)), "encode_batch_seconds_all": batch.seconds}


def _inputs(dry, sentences: str, n_pairs: int, data_dir) -> tuple[list, list[str]]:
    """NLI pairs to train on and STSb-like sentences to encode: the offline data's, or synthetic."""
    from ..evaluation import workload
    if sentences == "synthetic":
        return workload.synthetic_nli_pairs(n_pairs), workload.synthetic_sentences("stsb", 64)
    from .. import data
    from ..workbook import profiles
    pairs = profiles.load_nli_train(dry, data_dir)[:n_pairs]  # the dry run's AllNLI: offline pairs, shuffled
    dev = data.load_stsb("dev", data_dir)
    texts = list(dict.fromkeys([p.sentence1 for p in dev] + [p.sentence2 for p in dev]))
    random.Random(0).shuffle(texts)
    return pairs, texts


def report(result: dict, terms) -> str:
    """The measured figures and the estimate, in words."""
    from ..workbook import costs
    return "\n".join([
        f"{result['profile']} profile, measured with {result['architecture']} "
        f"({result['weights']}) on {result['device']}, {result['threads']} threads, torch {result['torch']}",
        f"one training step (SoftmaxLoss, batch {result['batch_size']}, max_seq_length {result['max_seq_length']}, "
        f"{result['sentences']} sentences, {result['mean_tokens_trained']:.1f} tokens each on average, "
        f"autocast {result['mixed_precision'] or 'off'}): {result['step_seconds']:.3f} s "
        f"{_spread(result['step_seconds_all'])}",
        f"one encode batch (64 sentences, {result['encode_precision']}): {result['encode_batch_seconds']:.3f} s "
        f"{_spread(result['encode_batch_seconds_all'])}",
        f"estimate for the {result['profile']} lesson on this device "
        f"(python -m sbertlib train --profile {result['profile']} --objective two-stage):",
        costs.format_terms(terms)] + _gpu_report(result, terms))


def _gpu_report(result: dict, terms) -> list[str]:
    """Measured on a CPU: the same lesson on the paper's V100, scaled by encoding speed (a rough guide)."""
    from ..workbook import costs
    if not _v100_comparable(result):
        return []
    factor, formula = costs.gpu_scale(result["encode_batch_seconds"])
    return [f"rough estimate on a V100 (every unit time x {factor:.4f} = {formula}; training speeds up "
            "differently from encoding, so read it as a guide, not a measurement):",
            costs.format_terms(costs.gpu_terms(terms, factor))]


def _v100_comparable(result: dict) -> bool:
    """Measured on a CPU with bert-base's architecture: the one Table 7's V100 figure is for."""
    from ..model import architectures
    return (result.get("device_type", "cpu") == "cpu"
            and architectures.hub_name(result["architecture"]) == "bert-base-uncased")


def _spread(seconds: list[float]) -> str:
    """``(mean of 5: 1.20-1.31 s)``: the mean, since a run's total is the sum of its batches' times."""
    return f"(mean of {len(seconds)}: {min(seconds):.3f}-{max(seconds):.3f} s)"


@command("estimate")
def main(argv: list[str] | None = None) -> int:
    ap = parser("estimate", __doc__)
    add_profile(ap, default="paper", only=("paper", "laptop"), help="the profile whose architecture is timed")
    add_device(ap)
    ap.add_argument("--sentences", default="data", choices=("data", "synthetic"))
    ap.add_argument("--repeats", type=int, default=10, help="timed steps (each on its own batch) and encode batches")
    ap.add_argument("--warmup-steps", type=int, default=2, help="untimed training steps and encode batches first")
    ap.add_argument("--mixed-precision", choices=("bf16", "fp16"), default=None,
                    help="train under autocast (the profiles train in fp32)")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.repeats < 1 or args.warmup_steps < 0:
        ap.error("--repeats must be >= 1 and --warmup-steps >= 0")
    from ..workbook import costs, profiles
    profile = profiles.get_profile(args.profile, dry_run=False)
    result = measure(profile, args.device, args.sentences, args.repeats, args.warmup_steps, args.mixed_precision,
                     args.data_dir)
    terms = costs.lesson_terms(profile, result["step_seconds"], result["encode_batch_seconds"])
    result["estimate"] = [{**t.__dict__, "seconds": t.seconds} for t in terms]
    result["estimate_total_seconds"] = sum(t.seconds for t in terms)
    if _v100_comparable(result):
        factor, formula = costs.gpu_scale(result["encode_batch_seconds"])
        result["v100_rough"] = {"factor": factor, "formula": formula,
                                "total_seconds": sum(t.seconds for t in costs.gpu_terms(terms, factor))}
    print(json.dumps(result) if args.json else report(result, terms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
