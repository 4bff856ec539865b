"""The SentEval transfer tasks of the paper's Table 5: MR, CR, SUBJ, MPQA, SST2, TREC, MRPC."""
from __future__ import annotations

import os
import re
from pathlib import Path

from . import hub
from .files import _bad, _fields, _lines, _rows, local_or_hub, locate
from .records import SentEvalTask
from ..errors import SettingError

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


_HUB_BINARY = {"MR": "mr", "CR": "cr", "SUBJ": "subj"}  # MPQA: no Hub copy verified (see data.hub)


def _binary_task(name: str, data_dir) -> SentEvalTask:
    """One sentence a line, latin-1 like SentEval; empty lines are kept (as SentEval does)."""
    folder, pos, neg, names = _BINARY[name]

    def local(found: Path) -> SentEvalTask:  # the other file beside the one found (a data folder, or the originals)
        files = [found.parent / f if (found.parent / f).is_file() else locate(f"senteval/{folder}/{f}", data_dir)
                 for f in (pos, neg)]
        texts = [[s.strip() for s in _lines(path, "latin-1")] for path in files]
        return SentEvalTask(name, texts[0] + texts[1], [1] * len(texts[0]) + [0] * len(texts[1]), names)
    if name not in _HUB_BINARY:
        return local(locate(f"senteval/{folder}/{pos}", data_dir))
    return local_or_hub(f"senteval/{folder}/{pos}", data_dir, local,
                        lambda hint: _binary_from_hub(name, names, hint))


def _binary_from_hub(name: str, names: tuple[str, ...], hint: str) -> SentEvalTask:
    """The Hub's copy of a binary task: label 1 (positive / objective) first, then label 0, as SentEval's files."""
    ds = hub.dataset(_HUB_BINARY[name])
    if set(ds.files) == {"pos", "neg"}:  # SentEval's own files
        texts = [[s.strip() for s in _lines(hub.hub_file(ds.name, part, hint), "latin-1")] for part in ("pos", "neg")]
    else:
        texts = [[], []]
        for split in ds.files:
            path, rows = hub.rows(ds.name, split, hint)
            for i, r in enumerate(rows, start=1):
                texts[1 - _hub_binary_label(r, names, path, i)].append(r["text"].strip())
    return SentEvalTask(name, texts[0] + texts[1], [1] * len(texts[0]) + [0] * len(texts[1]), names)


def _hub_binary_label(row: dict, names: tuple[str, ...], path: Path, i: int) -> int:
    """1 or 0: from ``label_text`` where the row has it (its ids vary by repository), else ``label``."""
    if "label_text" in row:
        if row["label_text"] not in names:
            raise _bad(path, i, f"label_text {row['label_text']!r} is not one of {names}")
        return names.index(row["label_text"])
    return _int_label(str(row["label"]), path, i, 2)


def _int_label(text: str, path: Path, lineno: int, n: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < n:
        raise _bad(path, lineno, f"label {text!r} is not one of 0..{n - 1}")
    return value


def _sst2_split(split: str, data_dir) -> tuple[list[str], list[int]]:
    def local(path: Path) -> tuple[list[str], list[int]]:
        rows = [_fields(line, path, i, (2,)) for i, line in enumerate(_lines(path), start=1)]
        return [t.strip() for t, _ in rows], [_int_label(y, path, i, 2) for i, (_, y) in enumerate(rows, start=1)]

    def from_hub(hint: str) -> tuple[list[str], list[int]]:
        path, rows = hub.rows("sst2", split, hint)
        return [r["text"].strip() for r in rows], [_int_label(str(r["label"]), path, i, 2)
                                                   for i, r in enumerate(rows, start=1)]
    return local_or_hub(f"senteval/SST/binary/sentiment-{split}", data_dir, local, from_hub)


def _trec_split(filename: str, data_dir) -> tuple[list[str], list[int]]:
    """Lines like ``NUM:dist How far is it from Denver to Aspen ?`` (coarse label kept); else the Hub's copy."""
    def local(path: Path) -> tuple[list[str], list[int]]:
        texts, labels = [], []
        for i, line in enumerate(_lines(path, "latin-1"), start=1):
            m = re.fullmatch(r"([A-Z]+):\S+ (.+)", line.strip())
            if m is None or m.group(1) not in TREC_LABELS:
                raise _bad(path, i, f"expected 'COARSE:fine question' with COARSE in {TREC_LABELS}, got {line!r}")
            texts.append(m.group(2).strip())
            labels.append(TREC_LABELS.index(m.group(1)))
        return texts, labels

    def from_hub(hint: str) -> tuple[list[str], list[int]]:
        path, rows = hub.rows("trec", "train" if filename.startswith("train") else "test", hint)
        ids = [_int_label(str(r["coarse_label"]), path, i, len(hub.TREC_HUB_LABELS)) for i, r in enumerate(rows, 1)]
        return [r["text"].strip() for r in rows], [TREC_LABELS.index(hub.TREC_HUB_LABELS[k]) for k in ids]
    return local_or_hub(f"senteval/TREC/{filename}", data_dir, local, from_hub)


def _mrpc_split(split: str, data_dir) -> tuple[list[tuple[str, str]], list[int]]:
    def local(path: Path) -> tuple[list[tuple[str, str]], list[int]]:
        rows = list(_rows(path, ("Quality", "#1 String", "#2 String"), encoding="utf-8-sig"))
        return ([(r["#1 String"].strip(), r["#2 String"].strip()) for _, r in rows],
                [_int_label(r["Quality"], path, i, 2) for i, r in rows])

    def from_hub(hint: str) -> tuple[list[tuple[str, str]], list[int]]:
        texts, labels = [], []
        for part in (("train", "validation") if split == "train" else ("test",)):  # SentEval's train = GLUE's two
            path, rows = hub.rows("mrpc", part, hint)
            texts += [(r["sentence1"].strip(), r["sentence2"].strip()) for r in rows]
            labels += [_int_label(str(r["label"]), path, i, 2) for i, r in enumerate(rows, start=1)]
        return texts, labels
    return local_or_hub(f"senteval/MRPC/msr_paraphrase_{split}.txt", data_dir, local, from_hub)


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
    raise SettingError(f"unknown SentEval task {task!r}; known: {', '.join(SENTEVAL_TASKS)}")
