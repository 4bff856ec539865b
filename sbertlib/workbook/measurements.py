"""The workbook's measured durations, each recorded once: what ran, the command, the machine, the date.

The README, BENCHMARKS.md, the notebooks' Cost lines and notebook 00's expected time quote these
figures; they are written here once and :func:`duration` formats them, so two places can never
disagree. ``tests/test_measurements.py`` holds every duration written in those texts ("3 min 08 s",
"48 h 18 min") to a value recorded here, and BENCHMARKS.md's register to :func:`register`'s table.

``python -m sbertlib.workbook.measurements`` prints the register as Markdown. A new measurement gets
a new record (never an edited figure in an old one): key, what ran, the command, the machine, the
date, and its seconds — ``total`` and, where they were taken, per part (a notebook's number, ``site``).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from ..errors import UnknownName

XEON = "2-core Intel Xeon with AMX (AMX-BF16, AVX512-BF16)"
EPYC = "2-core AMD EPYC with AVX512-BF16, no AMX"
BUILD = "python -m sbertlib build --profile {profile} (make workbook), empty output folder"
SIZING = "python benchmarks/class_sizing.py --profile {profile} {args}"


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
                {"total": 2271, "02": 5, "03": 188, "05": 346, "06": 984, "07": 368, "08": 93, "12": 150}),
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
                {"total": 2130}),
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
