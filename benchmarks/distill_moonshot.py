"""Issue 27's moonshot, offline: distil the random 2-layer, 128-wide student from the packaged
all-MiniLM-L6-v2 teacher (teacher vectors only: no STS labels, no evaluation sentence distilled) and
score it on all 1,379 pairs of STSb test, timing the teacher's encoding and the training.

    SBERTLIB_DATA_DIR=/work/shared/data HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \\
    SBERTLIB_OUTPUT_DIR=/tmp/moonshot-runs flock /tmp/sbert-heavy.lock \\
    .venv/bin/python benchmarks/distill_moonshot.py --epochs 3 --lr 1e-3        # notebook 14's recipe

Prints one JSON line per run (``recipe``, ``n_sentences``, ``eval_sentences_left`` — must be 0 —,
``teacher_seconds``, ``train_seconds``, ``total_seconds`` = student built + teacher encoding + training,
``stsb_test`` = cosine Spearman x 100 at the profile's inference precision, ``machine``).
``--speed`` also times the student's and the teacher's encoding of STSb test's distinct sentences at
that precision (sentences/s and their ratio; the goal asks for >= 5x).
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from sbertlib import data, losses  # noqa: E402
from sbertlib.evaluation import evaluate_sts, speed  # noqa: E402
from sbertlib.evaluation.contamination import normalise  # noqa: E402
from sbertlib.training import TrainingArguments, fit, seed_everything  # noqa: E402
from sbertlib.training.distillation import distinct, make_student, teacher_examples  # noqa: E402
from sbertlib.workbook import stages  # noqa: E402
from sbertlib.workbook.profiles import get_profile, inference_precision, load_reference, with_precision  # noqa: E402


def machine() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        name = next((line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name")), "?")
    except (OSError, subprocess.CalledProcessError):
        name = "?"
    return f"{name}, {torch.get_num_threads()} threads"


def evaluation_sentences() -> set[str]:
    """Every sentence of every evaluation set the notebooks report, normalised as distillation_sentences does."""
    return {normalise(s) for pairs in stages.evaluation_sets().values() for p in pairs for s in (p.sentence1, p.sentence2)}


def senteval_sentences() -> list[str]:
    """Every sentence of SentEval's tasks (MRPC's two sides included), in task order."""
    out = []
    for task in data.SENTEVAL_TASKS:
        for text in data.load_senteval(task).texts:
            out.extend(text if isinstance(text, (tuple, list)) else (text,))
    return out


def build_sentences(args, profile) -> tuple[list[str], int, dict]:
    evaluated = evaluation_sentences()
    course = profile.stage("distill").sentences()
    info = {"course": len(course)}
    sentences = course
    if args.sentences == "course+senteval":
        extra = distinct(senteval_sentences())
        kept = [s for s in extra if normalise(s) not in evaluated]
        info.update(senteval_distinct=len(extra), senteval_dropped_as_evaluation=len(extra) - len(kept))
        if args.senteval_max and len(kept) > args.senteval_max:
            kept = random.Random(args.seed).sample(kept, args.senteval_max)
        info["senteval_kept"] = len(kept)
        sentences = distinct(course + kept)
    if args.min_chars:
        sentences = [s for s in sentences if len(s) >= args.min_chars]
    if args.max_sentences and len(sentences) > args.max_sentences:
        if args.select == "longest":
            sentences = sorted(sentences, key=len, reverse=True)[:args.max_sentences]
        else:
            sentences = random.Random(args.seed).sample(sentences, args.max_sentences)
    left = sum(normalise(s) in evaluated for s in sentences)
    return sentences, left, info


def encode_speed(encoder, sentences, precision, repeats) -> float:
    timing = speed.measure(encoder.name, lambda: encoder.encode(sentences, batch_size=32, precision=precision),
                           len(sentences), repeats=repeats, warmup=1)
    return float(timing.sent_per_s)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sentences", choices=("course", "course+senteval"), default="course")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--init", choices=("pca", "random"), default="pca")
    p.add_argument("--max-sentences", type=int, default=0, help="keep at most N sentences (0: all)")
    p.add_argument("--select", choices=("random", "longest"), default="random", help="which N --max-sentences keeps")
    p.add_argument("--senteval-max", type=int, default=0,
                   help="with course+senteval: add at most N SentEval sentences, a random sample (0: all)")
    p.add_argument("--min-chars", type=int, default=0, help="drop sentences shorter than this")
    p.add_argument("--warmup-ratio", type=float, default=0.1)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--mixed-precision", choices=("none", "bf16"), default="none", help="training autocast")
    p.add_argument("--teacher-batch-size", type=int, default=128)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--speed", action="store_true", help="also time student vs teacher encoding of STSb test")
    p.add_argument("--speed-repeats", type=int, default=3)
    args = p.parse_args()
    warnings.filterwarnings("ignore", message=".*longer than max_seq_length.*")

    started = time.perf_counter()
    profile = get_profile("offline")
    shown = inference_precision(profile)
    sentences, left, info = build_sentences(args, profile)
    print(f"{len(sentences):,} distillation sentences ({info}); evaluation sentences among them: {left}",
          file=sys.stderr)
    if left:
        raise SystemExit(f"refusing to train: {left} evaluation sentences among the distilled ones")

    teacher = load_reference(profile)
    t0 = time.perf_counter()
    student = make_student(profile.distill_student, teacher, init=args.init)
    t1 = time.perf_counter()
    examples = teacher_examples(teacher, sentences, batch_size=args.teacher_batch_size)
    t2 = time.perf_counter()
    seed_everything(args.seed)
    targs = TrainingArguments(epochs=args.epochs, lr=args.lr, batch_size=args.batch_size, seed=args.seed,
                              length_grouping=True, warmup_ratio=args.warmup_ratio, weight_decay=args.weight_decay,
                              mixed_precision=None if args.mixed_precision == "none" else args.mixed_precision)
    history = fit(student, losses.DistillationLoss(student), examples, targs, show_progress_bar=False)
    t3 = time.perf_counter()

    student = with_precision(student, profile)
    test = data.load_stsb("test")
    score = evaluate_sts(student, test, ("cosine",)).spearman["cosine"]
    student.precision = "fp32"
    score_fp32 = evaluate_sts(student, test, ("cosine",)).spearman["cosine"]
    student = with_precision(student, profile)

    recipe = {k: v for k, v in vars(args).items() if k not in ("speed", "speed_repeats")}
    result = {"recipe": recipe, "n_sentences": len(examples), "sentence_sources": info,
              "eval_sentences_left": left, "steps": history.total_steps,
              "loss_first_last": [round(history.records[0]["loss"], 6), round(history.records[-1]["loss"], 6)],
              "student_build_seconds": round(t1 - t0, 2), "teacher_seconds": round(t2 - t1, 2),
              "train_seconds": round(t3 - t2, 2), "total_seconds": round(t3 - t0, 2),
              "stsb_test": round(score, 4), "stsb_test_pairs": len(test), "precision": shown,
              "stsb_test_fp32": round(score_fp32, 4), "machine": machine()}
    if args.speed:
        texts = distinct(s for pr in test for s in (pr.sentence1, pr.sentence2))
        s_sps = encode_speed(student, texts, shown, args.speed_repeats)
        t_sps = encode_speed(teacher, texts, shown, args.speed_repeats)
        result["speed"] = {"sentences": len(texts), "precision": shown, "batch_size": 32,
                           "student_sentences_per_s": round(s_sps, 1), "teacher_sentences_per_s": round(t_sps, 1),
                           "ratio": round(s_sps / t_sps, 2)}
    result["wall_seconds"] = round(time.perf_counter() - started, 2)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
