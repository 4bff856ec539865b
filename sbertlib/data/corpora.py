"""Sentences to time encoders on (the speed lab, ``python -m sbertlib bench``), from the data sets here.

``stsb``: the STSb test sentences (short, fairly uniform). ``varied``: STSb + SICK + STS12–16 +
SentEval (MR, SUBJ, TREC) sentences — from 3-word questions to 60-word reviews, the length spread
where smart batching gains most (paper, §7).
"""
from __future__ import annotations

import numpy as np

from .senteval import load_senteval
from .sts import load_sick, load_sts_dataset, load_stsb
from ..errors import SettingError

CORPORA = ("stsb", "varied")


def _sides(pairs) -> list[str]:
    return [s for p in pairs for s in (p.sentence1, p.sentence2)]


def corpus(name: str, n: int | None = None, data_dir=None) -> list[str]:
    """The distinct sentences of corpus ``name`` (see :data:`CORPORA`), shuffled with a fixed seed so
    input order carries no length pattern; the first ``n`` of them where ``n`` is given."""
    if name == "stsb":
        texts = _sides(load_stsb("test", data_dir))
    elif name == "varied":
        texts = _sides(load_stsb("test", data_dir)) + _sides(load_sick("test", data_dir))
        for year in ("sts12", "sts14", "sts15", "sts16"):
            texts += _sides(load_sts_dataset(year, data_dir))
        for task in ("MR", "SUBJ", "TREC"):
            texts += [t for t in load_senteval(task, data_dir).texts if t]
    else:
        raise SettingError(f"unknown corpus {name!r}: use one of {', '.join(CORPORA)}")
    texts = list(dict.fromkeys(texts))
    texts = [texts[i] for i in np.random.default_rng(0).permutation(len(texts))]
    return texts[:n] if n else texts
