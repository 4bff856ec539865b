"""Command line: train a profile's lesson and print STSb test Spearman ×100 before and after.

    python -m sbertlib train --profile offline                      # the profile's NLI lesson
    python -m sbertlib train --profile offline --objective two-stage --json
    python -m sbertlib train --profile offline --objective distill --json   # a small, fast student
    python -m sbertlib train --profile paper --objective nli        # the paper's SBERT-NLI (a GPU)
    python -m sbertlib train --profile offline --mixed-precision bf16   # under bf16 autocast
    torchrun --nproc_per_node 4 -m sbertlib.train --profile paper   # 4 GPUs, one process each (DDP)
    python -m sbertlib train --profile laptop --dry-run             # random weights: the time it takes, offline

Objectives: ``nli`` (the paper's classification objective on NLI pairs), ``mnrl`` (in-batch
negatives on NLI triplets), ``sts`` (regression on STSb train), ``two-stage`` (the profile's NLI
lesson, then STSb), ``distill`` (a small student distilled from the profile's teacher, then STSb:
notebook 14; not in the paper). The default is the profile's NLI lesson (``mnrl`` offline, ``nli`` on
laptop/paper). Models are written under ``--output-dir`` (default ``$SBERTLIB_OUTPUT_DIR``, else your
data folder: ``python -m sbertlib where``), where the notebooks find them; every stage is trained afresh unless ``--reuse``.
``--json`` carries ``"contamination"``: for each evaluation set, the share of its sentences and of its
pairs that the run's training data (all its stages) held (:mod:`sbertlib.evaluation.contamination`).
The training arguments (``--epochs``, ``--batch-size``, ``--lr``, ...; one flag per field of
``sbertlib.training.TrainingArguments``) change the profile's for every stage trained; such a run
is saved in its own folder.
"""
from __future__ import annotations

import json
import sys
import time

from ..errors import SettingError
from ..training.arguments import DEFAULT_SEED, add_arguments, from_namespace
from .common import add_profile, command, parser

OBJECTIVES = {"nli": "nli", "mnrl": "mnrl", "sts": "stsb", "two-stage": "two-stage", "distill": "distill-stsb"}


@command("train")
def main(argv: list[str] | None = None) -> int:
    ap = parser("train", __doc__)
    add_profile(ap, help="the profile whose lesson is trained")
    ap.add_argument("--objective", choices=tuple(OBJECTIVES), default=None,
                    help="default: the profile's NLI lesson")
    ap.add_argument("--output-dir", default=None, help="where models are saved (default: $SBERTLIB_OUTPUT_DIR, else your data folder: python -m sbertlib where)")
    ap.add_argument("--data-dir", default=None, help="data folder (default: $SBERTLIB_DATA_DIR)")
    ap.add_argument("--reuse", action="store_true", help="load stages trained before instead of training again")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--dry-run", action="store_true",
                    help="random weights, stand-in NLI data (models under <output folder>/dry-run): time only, scores meaningless")
    add_arguments(ap)
    args = ap.parse_args(argv)
    given = from_namespace(args)
    seed, mixed_precision = given.pop("seed", DEFAULT_SEED), given.pop("mixed_precision", None)
    from .. import data, evaluation
    from ..workbook import profiles, runs
    # --output-dir and --dry-run are passed to what runs, never written to os.environ (a second call in the
    # same process must not inherit them); without them $SBERTLIB_OUTPUT_DIR and $SBERTLIB_DRY_RUN decide.
    # Under torchrun every process runs this command with the same argv, so each gets them the same way.
    output_dir = args.output_dir or None
    profile = profiles.get_profile(args.profile, dry_run=True if args.dry_run else None)
    # a folder that cannot be written: one line now, before any model is loaded or trained
    runs.output_dir(dry_run=True if profile.dry_run else None, root=output_dir)
    objective = OBJECTIVES[args.objective] if args.objective else profile.nli_objective
    try:  # the arguments of the last stage, checked before anything is loaded
        training_args = profile.stage(objective).arguments(seed, mixed_precision=mixed_precision, **given)
    except SettingError as err:
        ap.error(str(err))
    test = evaluation.sample_pairs(data.load_stsb("test", args.data_dir), runs.eval_limit(profile), seed=0)
    before = evaluation.evaluate_sts(start_model(profile, objective, seed, args.data_dir, output_dir), test,
                                     measures=("cosine",)).main
    started = time.perf_counter()
    chain = [profile.stage(objective)]   # the stage, after every stage it goes on from
    while chain[0].earlier:
        chain.insert(0, chain[0].earlier)
    stages = [s.name for s in chain]
    seconds = {}
    for stage in stages:
        model, history = runs.trained_model(profile, stage, seed=seed, retrain=not args.reuse,
                                            data_dir=args.data_dir, show_progress_bar=not args.json,
                                            mixed_precision=mixed_precision, overrides=given, output_dir=output_dir)
        seconds[stage] = round(history.seconds, 1)
        if stage == "distill" and objective == "distill-stsb":  # the student distilled, before its STSb stage
            distilled = evaluation.evaluate_sts(model, test, measures=("cosine",)).main
    after = evaluation.evaluate_sts(model, test, measures=("cosine",)).main
    result = {"profile": profile.name, "dry_run": profile.dry_run, "backbone": profile.backbone,
              "objective": args.objective or objective,
              "training_arguments": training_args.to_dict(),
              "mixed_precision": mixed_precision, "encode_precision": model.resolved_precision(),
              "stsb_test_before": round(before, 2), "stsb_test_after": round(after, 2),
              **({"stsb_test_distilled": round(distilled, 2)} if objective == "distill-stsb" else {}),
              "stsb_dev_best": history.best_score and round(history.best_score, 2),
              "seconds": round(time.perf_counter() - started, 1), "training_seconds": seconds,
              "stsb_test_pairs": len(test),
              "contamination": history.contamination or profile.stage(stages[-1]).contamination(seed, args.data_dir),
              "model": str(runs.model_dir(profile, stages[-1], seed, mixed_precision=mixed_precision,
                                             overrides=given, output_dir=output_dir) / "final")}
    from ..training import distributed
    if distributed.rank() > 0:  # under torchrun: rank 0 reports
        return 0
    if profile.dry_run:
        result["note"] = profiles.DRY_RUN_BANNER
    if args.json:
        print(json.dumps(result))
    else:
        if profile.dry_run:
            print(f"*** {profiles.DRY_RUN_BANNER} ***")
        print(f"{profile.name} profile, {profiles.backbone_label(profile.backbone)}, objective {result['objective']}: "
              f"STSb test ({len(test):,} pairs) {before:.2f} → {after:.2f} ({after - before:+.2f}) "
              f"in {result['seconds']:.0f} s; model in {result['model']}")
        if "stsb_test_distilled" in result:
            print(f"distilled only (no STS labels): {result['stsb_test_distilled']:.2f}; then STSb: {after:.2f}")
        seen = result["contamination"].get("stsb-test")
        if seen:
            print(f"its training data held {100 * seen['sentences']:.1f}% of STSb test's sentences and both sentences "
                  f"of {100 * seen['pairs']:.1f}% of its pairs (every set: --json, \"contamination\")")
    return 0


def start_model(profile, objective: str, seed: int, data_dir, output_dir=None):
    """What the run starts from, for its "before" score: the profile's encoder, or for a distillation the
    student as :func:`~sbertlib.training.distillation.make_student` makes it (not the profile's encoder;
    its teacher trained under ``output_dir`` if it is a run)."""
    from ..workbook import profiles, runs
    if objective in ("distill", "distill-stsb"):
        from ..training.distillation import make_student
        return make_student(profile.distill_student, runs.teacher(profile, seed, data_dir, output_dir))
    return profiles.load_encoder(profile)


if __name__ == "__main__":
    sys.exit(main())
