"""The workbook's measured durations, each recorded once: what ran, the command, the machine, the date.

The README, BENCHMARKS.md, the notebooks' Cost lines and notebook 00's expected time quote these figures, as
:func:`duration` formats them; ``tests/test_measurements.py`` holds every duration written in those texts ("3 min
08 s") and every seconds figure of a Cost line ("23 s") to a value recorded here, and BENCHMARKS.md's register to
:func:`register` (``python -m sbertlib.workbook.measurements`` prints it). A record says only what its source says (an
unrecorded date is :data:`NOT_RECORDED`, never a guess); a new measurement gets a new record, never an edited figure
in an old one: its key, what ran, the command, the machine, the date, and its seconds (``total``, and parts).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from ..errors import UnknownName

XEON = "2-core Intel Xeon with AMX (AMX-BF16, AVX512-BF16)"
EPYC = "2-core AMD EPYC with AVX512-BF16, no AMX"
EPYC_AVX2 = "2-core AMD EPYC with AVX2 only (no AVX-512, no AMX)"
BUILD = "python -m sbertlib build --profile {profile} (make workbook), empty output folder"
SIZING = "python benchmarks/class_sizing.py --profile {profile} {args}"
NOT_RECORDED = "not recorded"
# The Cost lines' single-notebook runs on the offline profile, 2026-11-24/25: each machine as its line states it.
XEON_24 = "2-core CPU (Xeon with AMX)"
XEON_SHARED = "shared 2-core Intel Xeon with AMX"
XEON_IDLE = "2-core Intel Xeon (KVM; AVX512-BF16 and AMX), otherwise idle"
XEON_SHARED_AMX = "shared 2-core Intel Xeon (AMX)"
XEON_LIGHT_JOBS = "2-core Xeon (AMX), shared with other light jobs (under the heavy-job lock)"
TRIAL_CPU = "a 2-core CPU (not further recorded)"
ALONE = "notebook {nb} run on its own, offline; command not recorded"


@dataclass(frozen=True)
class Measurement:
    """One measured run: ``seconds`` maps ``"total"`` and any measured part to seconds."""

    key: str
    what: str
    command: str
    machine: str
    date: str
    seconds: dict[str, float] = field(default_factory=dict)

    def figure(self, part: str = "total") -> str:
        """A part's (default: the total's) duration as the texts write it."""
        if part not in self.seconds:
            raise UnknownName(f"measurement {self.key!r} has no part {part!r}; it has {', '.join(self.seconds)}")
        return duration(self.seconds[part])


def _nb(*seconds: float, first: int = 0) -> dict[str, float]:
    return {f"{first + i:02d}": s for i, s in enumerate(seconds)}


MEASUREMENTS: tuple[Measurement, ...] = (
    Measurement("build-offline-xeon-2026-11-24", "every notebook of that day (00-13) and the site, offline",
                BUILD.format(profile="offline"), XEON, "2026-11-24",
                {"total": 490, **_nb(9, 12, 5, 102, 16, 98, 28, 68, 20, 21, 9, 21, 54, 18), "site": 9}),
    Measurement("build-offline-epyc-2026-11-25", "every notebook of that day (00-13) and the site, offline",
                "python -m sbertlib build --out /tmp/full-build --profile offline, empty SBERTLIB_OUTPUT_DIR",
                EPYC, "2026-11-25",
                {"total": 660, "notebooks": 647, **_nb(11, 17, 7, 131, 28, 135, 36, 81, 26, 29, 12, 32, 80, 22)}),
    Measurement("build-offline-xeon-2026-11-25", "notebooks 00-13 in one build, offline (before notebook 14 ran)",
                BUILD.format(profile="offline"), XEON, "2026-11-25", {"total": 488}),
    Measurement("build-offline-fresh-clone-2026-11-25",
                "a fresh clone with no data folder, its data from a stand-in Hub, offline (00-13)",
                "make workbook on a fresh clone (tests/test_fresh_clone.py's set-up)", EPYC, "2026-11-25",
                {"total": 428}),
    Measurement("build-laptop-dry-run-2026-11-25",
                "every notebook (00-13) in a laptop dry run: the real architecture with random weights, full-size "
                "data (the time does not depend on the weights)",
                BUILD.format(profile="laptop") + ", SBERTLIB_DRY_RUN=1", EPYC, "2026-11-25",
                {"total": 2271, **_nb(9, 11, 5, 188, 38, 346, 984, 368, 93, 17, 7, 27, 150, 19)}),
    Measurement("build-offline-xeon-fresh-clone-2026-11-24",
                "every notebook of that day (00-12) on a fresh clone, offline; 12 with 03's and 05's models saved by "
                "the build, about 42 s of its time training the cross-encoder",
                "export SBERTLIB_DATA_DIR=../shared/data; make workbook (on a fresh clone)",
                "2-core course machine, Intel Xeon with AMX", "2026-11-24",
                {"total": 519, **_nb(10, 17, 6, 119, 25, 107, 30, 69, 23, 23, 11, 10, 60), "12 cross-encoder": 42}),
    Measurement("nb11-offline-xeon-2026-11-24", "notebook 11 with its new precision lesson, measured alone, offline",
                ALONE.format(nb=11), XEON_24, "2026-11-24", {"total": 21}),
    Measurement("nb13-offline-xeon-2026-11-24", "notebook 13 measured alone with notebook 05's two-stage model saved, "
                "offline", ALONE.format(nb=13), XEON_24, "2026-11-24", {"total": 18}),
    Measurement("nb00-offline-xeon-2026-11-25", "notebook 00 with its three exercises, the notebook alone, offline",
                ALONE.format(nb="00"), XEON_SHARED, "2026-11-25", {"total": 13}),
    Measurement("nb01-offline-xeon-2026-11-25", "notebook 01 with the student's GloVe average, the notebook alone, "
                "offline; once more while other jobs loaded the machine",
                ALONE.format(nb="01"), XEON_SHARED, "2026-11-25",
                {"total": 15, "while other jobs loaded it": 52}),
    Measurement("nb10-offline-xeon-2026-11-25", "notebook 10 with the student's similarity, the notebook alone, "
                "offline, with 03's NLI model saved; once when it first had to train that model",
                ALONE.format(nb=10), XEON_SHARED, "2026-11-25", {"total": 11, "training 03's model first": 120}),
    Measurement("nb04-offline-xeon-2026-11-25", "notebook 04 once notebook 03 had saved its NLI model, offline; "
                "and opened alone (it trains that model first)",
                ALONE.format(nb="04"), XEON_IDLE, "2026-11-25", {"total": 23, "opened alone": 74}),
    Measurement("build-03-04-offline-epyc-2026-11-27",
                "notebook 04 with its section 5 (what each model saw: every evaluation set measured against STSb "
                "train and the NLI lesson), right after notebook 03 in one build, offline, empty output folder "
                "(03's time is not recorded: other work ran beside it)",
                "python -m sbertlib build --profile offline --only 03,04 --out /tmp/m04, empty SBERTLIB_OUTPUT_DIR",
                EPYC, "2026-11-27", {"total": 26}),
    Measurement("nb05-offline-xeon-2026-11-25", "notebook 05 after notebook 03 (its NLI model and the student's "
                "loop loaded), offline; and opened alone (the NLI stage trained first, the reference loop)",
                ALONE.format(nb="05"), XEON_IDLE, "2026-11-25", {"total": 106, "opened alone": 164}),
    Measurement("nb06-offline-xeon-2026-11-25", "notebook 06 after notebooks 03 and 04, offline; and opened alone",
                ALONE.format(nb="06"), XEON_IDLE, "2026-11-25", {"total": 34, "opened alone": 29}),
    Measurement("nb07-offline-xeon-2026-11-25", "notebook 07 alone with the student's train_and_score and loop "
                "(27 runs), offline", ALONE.format(nb="07"), XEON_SHARED_AMX, "2026-11-25", {"total": 75}),
    Measurement("build-07-offline-epyc-2026-11-27",
                "notebook 07 alone with the reference loop and train_and_score (27 runs), offline, with the check of "
                "train_and_score at its 2026-11-27 settings (9 small runs: 5 of the student's, 4 references)",
                "python -m sbertlib build --profile offline --only 07 --out /tmp/w/b07, empty SBERTLIB_OUTPUT_DIR "
                "(under the heavy-job lock; a student trial's idle kernels beside it)",
                EPYC, "2026-11-27", {"total": 81}),
    Measurement("nb08-offline-xeon-2026-11-25", "notebook 08 with notebook 03's NLI model saved, offline; and "
                "when it trains that model first", ALONE.format(nb="08"), XEON_SHARED_AMX, "2026-11-25",
                {"total": 24, "training 03's model first": 74}),
    Measurement("nb09-offline-xeon-2026-11-25", "notebook 09 after notebook 08 (03's NLI model saved), offline",
                ALONE.format(nb="09"), XEON_SHARED_AMX, "2026-11-25", {"total": 23}),
    Measurement("nb12-offline-xeon-2026-11-25", "notebook 12 alone from scratch, no model on disk, with the "
                "student's mining, re-ranking, purity and communities, offline: it trains 03's and 05's models first",
                ALONE.format(nb=12), XEON_LIGHT_JOBS, "2026-11-25",
                {"total": 179, "03's NLI model": 65, "cross-encoder and 05's STSb model": 95}),
    Measurement("nb13-offline-xeon-2026-11-25", "notebook 13 with the student's reading and training, after notebook "
                "12 had saved 03's and 05's STSb models (05's two-stage model trained first), offline",
                ALONE.format(nb=13), XEON_LIGHT_JOBS, "2026-11-25", {"total": 80}),
    Measurement("nb03-offline-student-trial", "notebook 03 in a student trial, offline; about 80 s of it the check "
                "of the student's loop (as the Cost line gives it)",
                "notebook 03 run alone in a student trial, timed by its cells; command not recorded", TRIAL_CPU,
                NOT_RECORDED, {"total": 249, "check of your loop": 80}),
    Measurement("nb13-offline-student-trial", "notebook 13 run alone from scratch, no model on disk, in a student "
                "trial, offline: about 130 s (as the Cost line gives it), most of it training 05's model first",
                "notebook 13 run alone in a student trial; command not recorded", TRIAL_CPU, NOT_RECORDED,
                {"total": 130}),
    Measurement("build-03-05-14-offline-epyc-2026-11-27-trials",
                "notebooks 03, 05 and 14 in one build with the checks after student trials 11-16 (at aacf769: the "
                "run-through after the loop, the data at the loop, 14's PCA-start check, process-wide settings; 14's "
                "random start drawn from seed 0), offline, empty output folder, machine otherwise idle; each check "
                "cell's time from nbclient's cell timings",
                "python -m sbertlib build --profile offline --only 03,05,14 --out /tmp/offc, empty SBERTLIB_OUTPUT_DIR",
                EPYC, "2026-11-27", {"total": 448, "03": 128, "05": 106, "14": 202, "05 check": 3.5,
                                     "14 check": 4.6}),
    Measurement("build-03-05-14-offline-epyc-2026-11-27-checks",
                "notebooks 03, 05 and 14 in one build with issue 29's training and loss checks (at 94ea934), offline, "
                "empty output folder, machine otherwise idle; each check cell's time from nbclient's cell timings",
                "python -m sbertlib build --profile offline --only 03,05,14 --out /tmp/offb, empty SBERTLIB_OUTPUT_DIR",
                EPYC, "2026-11-27", {"total": 444, "03": 120, "05": 111, "14": 213, "05 check": 4.1,
                                     "14 check": 3.6}),
    Measurement("build-03-05-14-offline-epyc-2026-11-27",
                "notebooks 03, 05 and 14 in one build, offline, empty output folder (14 after 03's and 05's models "
                "were saved; its distillation set without evaluation sentences: 19,408 sentences); the site after",
                "python -m sbertlib build --profile offline --only 03,05,14 --out /tmp/m14, empty SBERTLIB_OUTPUT_DIR",
                EPYC, "2026-11-27", {"total": 435, "notebooks": 406, "03": 113, "05": 100, "14": 193, "14 cells": 186}),
    Measurement("estimate-paper-epyc-2026-11-25",
                "the paper lesson's estimate: one bert-base step timed here (2.85 s), times 58,880 steps, plus "
                "dev evaluations, the STSb stage and STSb test (an estimate, not a run)",
                "python -m sbertlib estimate --profile paper", EPYC, "2026-11-25", {"total": 173880}),
    Measurement("sizing-offline-alone-2026-11-27", "one student, notebooks 02-06 in order, offline",
                SIZING.format(profile="offline", args="--alone 02-06"), EPYC + ", 23.5 GiB", "2026-11-27",
                {"total": 315, "02-05": 281, **_nb(8, 134, 26, 113, 34, first=2)}),
    Measurement("sizing-smoke-alone-2026-11-27", "one student, notebooks 02-06 in order, smoke",
                SIZING.format(profile="smoke", args="--alone 02-06"), EPYC + ", 23.5 GiB", "2026-11-27",
                {"total": 65, **_nb(10, 21, 13, 12, 10, first=2)}),
    Measurement("sizing-smoke-students-2026-11-27",
                "N students at once, 02-06 each, smoke, torch's default threads: mean and slowest per student",
                SIZING.format(profile="smoke", args="--students 1,2,4,8"), EPYC + ", 23.5 GiB", "2026-11-27",
                {"total": 65, "1": 65, "1 slowest": 65, "2": 148, "2 slowest": 152, "4": 448, "4 slowest": 456,
                 "8": 1258, "8 slowest": 1282}),
    Measurement("sizing-one-thread-2026-11-27",
                "students at once with OMP_NUM_THREADS=1: 4 on smoke, 2 on offline (02-06 each): mean and slowest",
                SIZING.format(profile="{smoke,offline}", args="--threads 1 --students {4,2}"), EPYC + ", 23.5 GiB",
                "2026-11-27", {"total": 424, "smoke 4": 139, "smoke 4 slowest": 140, "offline 2": 424,
                               "offline 2 slowest": 426}),
    Measurement("sizing-offline-two-default-threads-2026-11-27",
                "2 students at once on offline with torch's default threads, 02-05 (stopped in 05): at least",
                SIZING.format(profile="offline", args="--students 2"), EPYC + ", 23.5 GiB", "2026-11-27",
                {"total": 2130, "03": 888, "05 at least": 1000}),
    Measurement("sizing-smoke-store-2026-12-07", "one student, notebooks 02-06 in order, smoke, the lecturer's shared "
                "runs filled (train --objective sts and two-stage)", SIZING.format(
                    profile="smoke", args="--alone 02-06 --shared-runs /tmp/store-smoke"), EPYC_AVX2, "2026-12-07",
                {"total": 110, **_nb(12, 38, 23, 20, 17, first=2)}),
    Measurement("sizing-smoke-no-store-2026-12-07", "the same, right after it, no shared runs",
                SIZING.format(profile="smoke", args="--alone 02-06"), EPYC_AVX2, "2026-12-07",
                {"total": 107, **_nb(12, 37, 22, 19, 17, first=2)}),
    Measurement("tests-default-avx2-2026-12-07", "the README's test command: the default tier (2,081 tests)",
                "make test", EPYC_AVX2 + ", idle", "2026-12-07", {"total": 650}),
    Measurement("tests-default-avx2-2026-12-07-c509ec7", "the README's test command at c509ec7 (2,110 tests)",
                "make test", EPYC_AVX2 + ", idle", "2026-12-07", {"total": 720}),
    Measurement("tests-default-avx2-2026-12-07-7de3558", "the README's test command at 7de3558 (2,133 tests)",
                "make test", EPYC_AVX2 + ", idle", "2026-12-07", {"total": 557}),
    Measurement("tests-default-avx2-2026-12-07-b17265d", "the README's test command at b17265d (2,150 tests)",
                "make test", EPYC_AVX2 + ", idle", "2026-12-07", {"total": 558}),
    Measurement("tests-default-avx2-2026-12-07-0bef6fa", "the README's test command at 0bef6fa (2,185 tests)",
                "make test", EPYC_AVX2 + ", idle", "2026-12-07", {"total": 523}),
    Measurement("tests-default-avx2-2026-12-07-4823d66", "the README's test command at 4823d66 (2,194 tests)",
                "make test", EPYC_AVX2 + ", idle", "2026-12-07", {"total": 522}),
    Measurement("tests-integration-avx2-2026-12-07-04a70e7", "the integration tier at 04a70e7 (41 tests)",
                "make test-integration", EPYC_AVX2 + ", idle", "2026-12-07", {"total": 1156}),
    Measurement("tests-integration-avx2-2026-12-07-6bcf388", "the integration tier at 6bcf388 (41 tests)",
                "make test-integration", EPYC_AVX2 + ", idle", "2026-12-07", {"total": 1223}),
    Measurement("tests-integration-avx2-2026-12-07", "the integration tier (38 tests)", "make test-integration",
                EPYC_AVX2 + ", another test run beside it for its first 15 min", "2026-12-07", {"total": 1258}),
)


def duration(seconds: float) -> str:
    """``45 s``, ``3 min 08 s`` or ``48 h 18 min``: how every text writes a measured duration."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    hours, minutes = divmod(round(seconds / 60), 60)
    return f"{hours} h {minutes:02d} min"


def get(key: str) -> Measurement:
    """The measurement recorded under ``key``."""
    for m in MEASUREMENTS:
        if m.key == key:
            return m
    raise UnknownName(f"no measurement {key!r}; recorded: {', '.join(m.key for m in MEASUREMENTS)}")


def figures() -> set[str]:
    """Every duration the register holds, formatted as the texts write it."""
    return {duration(s) for m in MEASUREMENTS for s in m.seconds.values()}


def register() -> str:
    """The register as a Markdown table (BENCHMARKS.md holds it verbatim)."""
    rows = ["| key | what | command | machine | date | total | parts |", "|---|---|---|---|---|---|---|"]
    for m in MEASUREMENTS:
        parts = ", ".join(f"{k}: {duration(v)}" for k, v in m.seconds.items() if k != "total")
        rows.append(f"| `{m.key}` | {m.what} | `{m.command}` | {m.machine} | {m.date} | {m.figure()} | "
                    f"{parts or '—'} |")
    return "\n".join(rows)


if __name__ == "__main__":
    sys.stdout.write(register() + "\n")
