"""NLI training data: SNLI (SentEval format), AllNLI (SNLI+MultiNLI) and SICK's entailment labels."""
from __future__ import annotations

import os
from pathlib import Path

from . import hub
from .files import _check_split, _lines, _nli_label, _rows, _same_length, local_or_hub, locate
from .records import DataFormatError, NLIPair, Triplet
from .sts import _sick_records


def load_snli(split: str = "dev", data_dir: str | os.PathLike | None = None) -> list[NLIPair]:
    """SNLI in SentEval format: ``snli/s1.<split>``, ``s2.<split>``, ``labels.<split>``; else the
    Hub's copy (``stanfordnlp/snli``: sentences untokenised, pairs without a gold label dropped)."""
    _check_split(split, ("train", "dev", "test"))

    def local(_: Path) -> list[NLIPair]:
        files = [locate(f"snli/{name}.{split}", data_dir) for name in ("s1", "s2", "labels")]
        s1, s2, labels = (_lines(f) for f in files)
        _same_length(files, (s1, s2, labels))
        return [NLIPair(a.strip(), b.strip(), _nli_label(lab, files[2], i))
                for i, (a, b, lab) in enumerate(zip(s1, s2, labels), start=1)]
    return local_or_hub(f"snli/labels.{split}", data_dir, local, lambda hint: _nli_from_hub("snli", split, hint))


def _nli_from_hub(name: str, split: str, hint: str) -> list[NLIPair]:
    """Rows premise, hypothesis, label (0 entailment, 1 neutral, 2 contradiction; -1 = no gold label, dropped)."""
    path, rows = hub.rows(name, split, hint)
    return [NLIPair(r["premise"].strip(), r["hypothesis"].strip(), hub.nli_label(r["label"], path, i))
            for i, r in enumerate(rows, start=1) if r["label"] != -1]


def load_allnli(split: str = "train", data_dir: str | os.PathLike | None = None,
                path: str | os.PathLike | None = None) -> list[NLIPair]:
    """SNLI+MultiNLI: sentence-transformers' ``AllNLI.tsv.gz`` (given, or in a data folder), else the
    Hub's ``sentence-transformers/all-nli`` (pair-class), the same pairs."""
    _check_split(split, ("train", "dev", "test"))

    def local(file: Path) -> list[NLIPair]:
        pairs = []
        for i, r in _rows(file, ("split", "sentence1", "sentence2", "label")):
            label = _nli_label(r["label"], file, i)
            if r["split"] == split:
                pairs.append(NLIPair(r["sentence1"].strip(), r["sentence2"].strip(), label))
        if not pairs:
            raise DataFormatError(f"{file} holds no rows of split {split!r} (its 'split' column): that part is "
                                  "empty; copy or download the file again")
        return pairs
    if path is not None:
        return local(Path(path))
    return local_or_hub("AllNLI.tsv.gz", data_dir, local, lambda hint: _nli_from_hub("allnli", split, hint))


def nli_triplets(pairs: list[NLIPair]) -> list[Triplet]:
    """(premise, entailed hypothesis, contradicting hypothesis) triplets.

    One triplet per distinct entailment hypothesis of a premise; its negative cycles through the
    premise's distinct contradiction hypotheses in file order. Premises lacking either are skipped.
    """
    by_premise: dict[str, dict[str, dict[str, None]]] = {}
    for p in pairs:
        by_premise.setdefault(p.premise, {}).setdefault(p.label, {})[p.hypothesis] = None
    out = []
    for premise, hyps in by_premise.items():
        pos, neg = list(hyps.get("entailment", ())), list(hyps.get("contradiction", ()))
        out += [Triplet(premise, h, neg[k % len(neg)]) for k, h in enumerate(pos)] if neg else []
    return out


def load_sick_nli(split: str = "train", data_dir: str | os.PathLike | None = None) -> list[NLIPair]:
    """SICK pairs with their entailment judgement as NLI labels."""
    def local(path, rows):
        return [NLIPair(r["sentence_A"].strip(), r["sentence_B"].strip(),
                        _nli_label(r["entailment_judgment"], path, i)) for i, r in rows]

    def from_hub(path, rows):
        return [NLIPair(r["sentence_A"].strip(), r["sentence_B"].strip(), hub.nli_label(r["label"], path, i))
                for i, r in enumerate(rows, start=1)]
    return _sick_records(split, data_dir, local, from_hub)
