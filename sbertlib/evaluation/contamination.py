"""What a training set saw of each evaluation set: its sentences, and its pairs.

The paper is careful about what each model saw: Table 1's rows saw no STS data, Table 2 separates
"trained on STSb" from "not trained for STS". STS benchmark train was compiled from STS 2012–2017, so
a model fine-tuned on it has seen a third to a half of the STS12–15 *pairs*, with their scores: it is
not "unsupervised" on them, whatever it is called. This module measures that, for any training set
and any evaluation set, after normalising case and white space:

* ``sentences`` — the share of the evaluation set's distinct sentences that training holds;
* ``pairs`` — the share of its pairs whose two sentences training both holds (the model may have
  been shown that very pair, or been pulled towards both of its sentences);
* ``same_pairs`` — the share of its pairs that training holds as a pair (either order); 0 for a
  training set of single sentences.

``contamination(training, {"stsb-test": pairs, ...})`` returns those figures per set;
:func:`runs.trained_model <sbertlib.workbook.runs.trained_model>` records them with every run.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

from ..data.records import NLIPair, STSPair, Triplet
from ..errors import SettingError


# What the models whose training we did not run saw, said where their rows stand beside the paper's.
GLOVE_SAW = "no pairs, no scores: word vectors from Wikipedia and Gigaword text"
REFERENCE_SAW = "1.17B pairs: NLI, captions, forums (STS's kinds of source, overlap unmeasured); no STS scores"
UNTRAINED_SAW = "no training of ours: random or pre-trained weights, no STS data"
MATERIAL = 0.01  # a share of an evaluation set's very pairs from which a score is no longer unsupervised


def normalise(sentence: str) -> str:
    """Lower case, white space collapsed: ``"A  man\\tsings."`` and ``"a man sings."`` are one sentence."""
    return " ".join(str(sentence).lower().split())


def texts_of(example) -> tuple[str, ...]:
    """The sentences of one training or evaluation example: an STS or NLI pair, a triplet, a
    ``(sentence, vector)`` distillation example, a plain string, or a tuple of strings (a label last)."""
    if isinstance(example, str):
        return (example,)
    if isinstance(example, STSPair):
        return example.sentence1, example.sentence2
    if isinstance(example, NLIPair):
        return example.premise, example.hypothesis
    if isinstance(example, Triplet):
        return example.anchor, example.positive, example.negative
    if isinstance(example, (tuple, list)):
        return tuple(x for x in example if isinstance(x, str))
    texts = getattr(example, "texts", None)  # sentence-transformers' InputExample
    if texts is not None:
        return tuple(t for t in texts if isinstance(t, str))
    raise TypeError(f"cannot read the sentences of a {type(example).__name__} training example: give pairs, "
                    f"triplets, (sentence, ...) tuples or strings")


@dataclass(frozen=True)
class Overlap:
    """What training saw of one evaluation set (shares between 0 and 1, and the counts behind them)."""

    sentences: float
    pairs: float
    same_pairs: float
    eval_sentences: int
    eval_pairs: int

    def as_dict(self) -> dict:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(self).items()}

    @property
    def clean(self) -> bool:
        """True when training saw no sentence of this set."""
        return self.sentences == 0.0


class TrainingTexts:
    """A training set's normalised sentences and pairs, built once and compared with many sets."""

    def __init__(self, examples: Iterable) -> None:
        self.sentences: set[str] = set()
        self.pairs: set[frozenset[str]] = set()
        for example in examples:
            texts = [normalise(t) for t in texts_of(example)]
            self.sentences.update(texts)
            if len(texts) >= 2:  # every pair the example names (a triplet names three)
                self.pairs.update(frozenset((a, b)) for i, a in enumerate(texts) for b in texts[i + 1:])

    def overlap(self, items: Sequence) -> Overlap:
        """How much of an evaluation set this training set holds: its items are pairs (two sentences each,
        an STS set) or single sentences (a SentEval task), whose pair shares are then 0 of 0 pairs."""
        if not items:
            raise SettingError("the evaluation set is empty: there is nothing to compare training with")
        texts = [tuple(normalise(t) for t in texts_of(item)[:2]) for item in items]
        eval_pairs = [t for t in texts if len(t) == 2]
        distinct = {s for t in texts for s in t}
        seen = self.sentences
        both = sum(a in seen and b in seen for a, b in eval_pairs)
        same = sum(frozenset((a, b)) in self.pairs for a, b in eval_pairs)
        n = max(len(eval_pairs), 1)
        return Overlap(sentences=len(distinct & seen) / len(distinct), pairs=both / n,
                       same_pairs=same / n, eval_sentences=len(distinct), eval_pairs=len(eval_pairs))


def contamination(training: Iterable | TrainingTexts, eval_sets: Mapping[str, Sequence]) -> dict[str, dict]:
    """``{eval set: {"sentences": share, "pairs": share, "same_pairs": share, "eval_sentences": n,
    "eval_pairs": n}}``: what ``training`` (examples, or a :class:`TrainingTexts`) saw of each set."""
    texts = training if isinstance(training, TrainingTexts) else TrainingTexts(training)
    return {name: texts.overlap(pairs).as_dict() for name, pairs in eval_sets.items()}


def note(training: Iterable | TrainingTexts, eval_sets: Mapping[str, Sequence]) -> str:
    """:func:`seen_note` of what ``training`` holds of ``eval_sets``, measured now: one table cell for a
    training set that no run recorded (an ablation's pairs, a lesson's data against SentEval's tasks)."""
    return seen_note(contamination(training, eval_sets), list(eval_sets))


def evaluation_sets(names: Sequence[str] = ("stsb-dev", "stsb-test", "sts12", "sts13", "sts14", "sts15", "sts16",
                                            "sick-r"), data_dir=None) -> dict[str, list]:
    """The evaluation sets the notebooks report, each whole (contamination is measured on every
    pair, not on a profile's sample); a set no data folder holds is left out."""
    from .. import data
    from ..data.records import DataNotFoundError
    found = {}
    for name in names:
        try:
            found[name] = data.load_stsb("dev", data_dir) if name == "stsb-dev" else data.load_sts_dataset(name, data_dir)
        except DataNotFoundError:
            continue
    return found


def frame(figures: Mapping[str, Mapping], title: str = "evaluation set"):
    """:func:`table` as a pandas DataFrame (one row per evaluation set, ``title`` over them): what a notebook
    displays — it renders as a table in JupyterLab and on the course site alike (a Markdown output does not
    on the site)."""
    from ..util import optional_import
    pd = optional_import("pandas", "workbook")
    rows = {name: {"sentences seen": f"{100 * f['sentences']:.1f}% of {f['eval_sentences']:,}",
                   "pairs with both seen": f"{100 * f['pairs']:.1f}% of {f['eval_pairs']:,}",
                   "same pairs": f"{100 * f['same_pairs']:.1f}%"} for name, f in figures.items()}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis(title)


def table(figures: Mapping[str, Mapping]) -> str:
    """A Markdown table of :func:`contamination`'s figures: one row per evaluation set, in percent."""
    rows = ["| evaluation set | sentences seen | pairs with both seen | same pairs |", "|---|---|---|---|"]
    for name, f in figures.items():
        rows.append(f"| {name} | {100 * f['sentences']:.1f}% of {f['eval_sentences']:,} | {100 * f['pairs']:.1f}% "
                    f"of {f['eval_pairs']:,} | {100 * f['same_pairs']:.1f}% |")
    return "\n".join(rows)


def seen_note(figures: Mapping[str, Mapping] | str | None, datasets: Sequence[str]) -> str:
    """One table cell: what a model's training saw of ``datasets`` (the columns a table shows).

    ``figures`` is a run's recorded :func:`contamination` (``history.contamination``; ``{}``: not recorded),
    ``None`` for a model we did not train, or a string said as it is (a model whose training data are not
    known here). A training set that held the very pairs of a set, scores included, for at least
    :data:`MATERIAL` of its pairs (STSb train holds a third to a half of STS12-15's) is said to be not
    unsupervised on it; a smaller share is said as a share (STSb's own splits share 0.9% of test's pairs)."""
    if isinstance(figures, str):
        return figures
    if figures is None:
        return UNTRAINED_SAW
    if not figures:
        return "not recorded (a run from before sbertlib measured it: retrain it to see)"
    shown = [(name, figures[name]) for name in datasets if name in figures]
    if not shown:
        return "not measured for these sets"
    same = [(name, f["same_pairs"]) for name, f in shown if f["same_pairs"] > 0]
    if same:
        name, share = max(same, key=lambda item: item[1])
        if share >= MATERIAL:
            return f"the very pairs, with scores, of up to {_percent(share)} of {name}'s pairs: NOT unsupervised"
        return f"a few of the very pairs, with scores: {_percent(share)} of {name}'s"
    worst = max(shown, key=lambda item: item[1]["sentences"])
    if worst[1]["sentences"] == 0:
        return "no sentence of these sets"
    both_name, both = max(((n, f["pairs"]) for n, f in shown), key=lambda item: item[1])
    pairs = (f"both sentences, never as a pair, of {_percent(both)} of {both_name}'s pairs" if both > 0
             else "no pair with both sentences")
    return f"some sentences (up to {_percent(worst[1]['sentences'])} of {worst[0]}'s); {pairs}"


def _percent(share: float) -> str:
    """A share as a percentage that never reads 0% when it is not 0 (0.04% is said, not rounded away)."""
    if share == 0:
        return "0%"
    return f"{100 * share:.0f}%" if share >= 0.095 else f"{100 * share:.2g}%"

