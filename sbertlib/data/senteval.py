"""The SentEval transfer tasks of the paper's Table 5: MR, CR, SUBJ, MPQA, SST2, TREC, MRPC."""
from __future__ import annotations

import os
import re
from pathlib import Path

from .files import _bad, _fields, _lines, _rows, locate
from .records import SentEvalTask

SENTEVAL_TASKS: tuple[str, ...] = ("MR", "CR", "SUBJ", "MPQA", "SST2", "TREC", "MRPC")  # paper Table 5

_BINARY = {  # task: (folder, positive file (label 1), negative file (label 0), label names)
    "MR": ("MR", "rt-polarity.pos", "rt-polarity.neg", ("negative", "positive")),
    "CR": ("CR", "custrev.pos", "custrev.neg", ("negative", "positive")),
    "SUBJ": ("SUBJ", "subj.objective", "subj.subjective", ("subjective", "objective")),
    "MPQA": ("MPQA", "mpqa.pos", "mpqa.neg", ("negative", "positive")),
}
TREC_LABELS: tuple[str, ...] = ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")


def _concat(name: str, label_names: tuple[str, ...], parts: dict[str, tuple[list, list[int]]]) -> SentEvalTask:
    texts, labels, splits = [], [], {}
    for split, (t, y) in parts.items():
        splits[split] = range(len(labels), len(labels) + len(y))
        texts += t
        labels += y
    return SentEvalTask(name, texts, labels, label_names, splits)


def _binary_task(name: str, data_dir) -> SentEvalTask:
    """One sentence a line, latin-1 like SentEval; empty lines are kept (as SentEval does)."""
    folder, pos, neg, names = _BINARY[name]
    texts = [[s.strip() for s in _lines(locate(f"senteval/{folder}/{f}", data_dir), "latin-1")] for f in (pos, neg)]
    return SentEvalTask(name, texts[0] + texts[1], [1] * len(texts[0]) + [0] * len(texts[1]), names)


def _int_label(text: str, path: Path, lineno: int, n: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < n:
        raise _bad(path, lineno, f"label {text!r} is not one of 0..{n - 1}")
    return value


def _sst2_split(split: str, data_dir) -> tuple[list[str], list[int]]:
    path = locate(f"senteval/SST/binary/sentiment-{split}", data_dir)
    rows = [_fields(line, path, i, (2,)) for i, line in enumerate(_lines(path), start=1)]
    return [t.strip() for t, _ in rows], [_int_label(y, path, i, 2) for i, (_, y) in enumerate(rows, start=1)]


def _trec_split(filename: str, data_dir) -> tuple[list[str], list[int]]:
    """Lines like ``NUM:dist How far is it from Denver to Aspen ?`` (coarse label kept)."""
    path = locate(f"senteval/TREC/{filename}", data_dir)
    texts, labels = [], []
    for i, line in enumerate(_lines(path, "latin-1"), start=1):
        m = re.fullmatch(r"([A-Z]+):\S+ (.+)", line.strip())
        if m is None or m.group(1) not in TREC_LABELS:
            raise _bad(path, i, f"expected 'COARSE:fine question' with COARSE in {TREC_LABELS}, got {line!r}")
        texts.append(m.group(2).strip())
        labels.append(TREC_LABELS.index(m.group(1)))
    return texts, labels


def _mrpc_split(split: str, data_dir) -> tuple[list[tuple[str, str]], list[int]]:
    path = locate(f"senteval/MRPC/msr_paraphrase_{split}.txt", data_dir)
    rows = list(_rows(path, ("Quality", "#1 String", "#2 String"), encoding="utf-8-sig"))
    return ([(r["#1 String"].strip(), r["#2 String"].strip()) for _, r in rows],
            [_int_label(r["Quality"], path, i, 2) for i, r in rows])


def load_senteval(task: str, data_dir: str | os.PathLike | None = None) -> SentEvalTask:
    """A SentEval transfer task: MR, CR, SUBJ, MPQA (no split), SST2 (train/dev/test),
    TREC (train/test, 6 coarse classes), MRPC (train/test, sentence pairs)."""
    name = {"SST": "SST2"}.get(task.strip().upper(), task.strip().upper())
    if name in _BINARY:
        return _binary_task(name, data_dir)
    if name == "SST2":
        parts = {s: _sst2_split(s, data_dir) for s in ("train", "dev", "test")}
        return _concat(name, ("negative", "positive"), parts)
    if name == "TREC":
        parts = {"train": _trec_split("train_5500.label", data_dir), "test": _trec_split("TREC_10.label", data_dir)}
        return _concat(name, TREC_LABELS, parts)
    if name == "MRPC":
        return _concat(name, ("not_paraphrase", "paraphrase"), {s: _mrpc_split(s, data_dir) for s in ("train", "test")})
    raise ValueError(f"unknown SentEval task {task!r}; known: {', '.join(SENTEVAL_TASKS)}")
