"""Transfer evaluation in the style of SentEval (paper, Section 5, Table 5).

The sentence encoder stays **frozen**: each sentence is embedded once, and a logistic-regression
classifier (scikit-learn, fixed seed) is trained on the embeddings to predict the task's label.
The score is the classifier's accuracy ×100 on held-out data:

=====  ==================================  ===========================================
task   what                                evaluated with
=====  ==================================  ===========================================
MR     movie-review snippets, +/−          stratified k-fold cross-validation (k = 10)
CR     product reviews, +/−                stratified k-fold cross-validation
SUBJ   subjective / objective sentences    stratified k-fold cross-validation
MPQA   opinion polarity of phrases         stratified k-fold cross-validation
SST2   Stanford Sentiment Treebank, binary train → test (C chosen on dev)
TREC   question type, 6 coarse classes     train → test
MRPC   paraphrase pairs (sentence pairs)   train → test, pair features (|u−v|, u*v)
=====  ==================================  ===========================================

How this differs from SentEval itself (so that a CPU runs it in minutes):

* SentEval picks the logistic regression's ``C`` from a grid of powers of 2 (e.g. 2^-2 … 2^3) by
  an inner cross-validation on raw features; here the features are standardised (on the training
  part) and ``C`` comes from a grid of three (:data:`DEFAULT_CS`) by an inner 3-fold
  cross-validation of each training part (SST2: on its dev split, as SentEval). Pass one number
  as ``C`` to skip the search.
* ``max_examples`` takes a stratified random subset (per split for tasks with a split) — the
  paper uses every example.
* For MRPC, SentEval's features are ``(|u−v|, u*v)`` (``np.c_[np.abs(A - B), A * B]`` in its
  ``mrpc.py``); ``pair_features`` chooses others, e.g. ``("u", "v", "|u-v|", "u*v")``.

Main entry point::

    scores = evaluate_transfer(encoder, ["MR", "CR"], max_examples=1000)   # {"MR": 81.2, ...}
"""
from __future__ import annotations

import os
import time
from dataclasses import replace
from typing import Iterable, Sequence

import numpy as np

from .. import data
from ..data import SentEvalTask
from ..losses import pair_features as _pair_features
from ..errors import SettingError

TASKS: tuple[str, ...] = data.SENTEVAL_TASKS  # MR, CR, SUBJ, MPQA, SST2, TREC, MRPC
PAIR_FEATURES: tuple[str, ...] = ("|u-v|", "u*v")  # SentEval's features for MRPC
DEFAULT_CS: tuple[float, ...] = (0.01, 0.1, 1.0)  # L2 penalties searched on the training part


# ----------------------------------------------------------------------------- data
def _stratified_pick(labels: Sequence[int], n: int, seed: int) -> np.ndarray:
    """Sorted positions of a stratified random subset of size ``n`` (all positions if n >= len)."""
    total = len(labels)
    if n is None or n >= total:
        return np.arange(total)
    if n < 1:
        raise SettingError(f"max_examples must be >= 1, got {n}")
    from sklearn.model_selection import train_test_split
    y = np.asarray(labels)
    try:
        picked, _ = train_test_split(np.arange(total), train_size=n, stratify=y, random_state=seed)
    except ValueError:  # a class too rare to stratify (or n smaller than the number of classes)
        picked, _ = train_test_split(np.arange(total), train_size=n, random_state=seed)
    return np.sort(picked)


def subsample(task: SentEvalTask, max_examples: int | None, seed: int = 0) -> SentEvalTask:
    """A stratified random subset of ``task``: at most ``max_examples`` examples in all for a task
    without a split, at most ``max_examples`` per split otherwise. Order is kept; ``None`` = all."""
    if max_examples is None:
        return task
    if not task.splits:
        keep = _stratified_pick(task.labels, max_examples, seed)
        return replace(task, texts=[task.texts[i] for i in keep], labels=[task.labels[i] for i in keep])
    texts, labels, splits = [], [], {}
    for name, r in task.splits.items():
        keep = _stratified_pick(task.labels[r.start:r.stop], max_examples, seed) + r.start
        splits[name] = range(len(labels), len(labels) + len(keep))
        texts += [task.texts[i] for i in keep]
        labels += [task.labels[i] for i in keep]
    return replace(task, texts=texts, labels=labels, splits=splits)


def load_tasks(tasks: Iterable[str] = TASKS, data_dir: str | os.PathLike | None = None,
               max_examples: int | None = None, seed: int = 0,
               missing: dict[str, str] | None = None) -> dict[str, SentEvalTask]:
    """Load (and subsample, see :func:`subsample`) SentEval tasks by name: ``{name: task}``.

    A task whose files cannot be had raises :class:`~sbertlib.data.DataNotFoundError` — unless a dict
    is passed as ``missing``: then the task is left out and ``missing[name]`` says why (MPQA has no
    copy on the Hub, so a machine without the course's data folder has six tasks).
    """
    out = {}
    for name in tasks:
        try:
            task = data.load_senteval(name, data_dir)
        except data.DataNotFoundError as exc:
            if missing is None:
                raise
            missing[name] = str(exc).splitlines()[0]
            continue
        out[task.name] = subsample(task, max_examples, seed)
    return out


def train_test_parts(task: SentEvalTask) -> tuple[str, str] | None:
    """The (train, test) split names a task is evaluated on, or None for k-fold CV tasks."""
    if not task.splits:
        return None
    if "train" not in task.splits or "test" not in task.splits:
        raise SettingError(f"{task.name}: splits {sorted(task.splits)} lack 'train' and 'test'")
    return "train", "test"


# ----------------------------------------------------------------------------- features
def embed_task(encoder, task: SentEvalTask, batch_size: int = 64,
               parts: Sequence[str] = PAIR_FEATURES) -> np.ndarray:
    """Features ``(len(task), dim)`` of every example: the sentence embedding, or for a pair task
    the :func:`sbertlib.losses.pair_features` of both sentences' embeddings. Each distinct text is encoded once."""
    if task.is_pair:
        unique = list(dict.fromkeys(s for pair in task.texts for s in pair))
    else:
        unique = list(dict.fromkeys(task.texts))
    if not unique:
        raise SettingError(f"{task.name} holds no examples")
    emb = np.asarray(encoder.encode(unique, batch_size=batch_size, show_progress_bar=False), dtype=np.float64)
    index = {s: i for i, s in enumerate(unique)}
    if task.is_pair:
        u = emb[[index[a] for a, _ in task.texts]]
        v = emb[[index[b] for _, b in task.texts]]
        return _pair_features(u, v, parts)
    return emb[[index[t] for t in task.texts]]


# ----------------------------------------------------------------------------- classifier
def kfold_indices(labels: Sequence[int], folds: int = 10, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stratified k-fold ``(train positions, test positions)`` pairs, shuffled with ``seed``."""
    from sklearn.model_selection import StratifiedKFold
    y = np.asarray(labels)
    if folds < 2:
        raise SettingError(f"folds must be >= 2, got {folds}")
    smallest = np.bincount(y)[np.bincount(y) > 0].min()
    if smallest < folds:
        raise SettingError(f"{folds}-fold CV needs at least {folds} examples of every class; "
                           f"the rarest class has {smallest}")
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    return [(tr, te) for tr, te in skf.split(np.zeros(len(y)), y)]


def make_classifier(C: float = 1.0, seed: int = 0):
    """Standardise the features, then logistic regression (L2 penalty ``1/C``, fixed ``seed``)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    return make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=2000, random_state=seed))


def _fit(X: np.ndarray, y: np.ndarray, C: float, seed: int):
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    if len(np.unique(y)) < 2:
        raise SettingError("the training part holds a single class: nothing to learn")
    clf = make_classifier(C, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    return clf


def select_C(X: np.ndarray, y: Sequence[int], Cs: Sequence[float] = DEFAULT_CS, folds: int = 3, seed: int = 0,
             dev: tuple[np.ndarray, Sequence[int]] | None = None) -> float:
    """The ``C`` of ``Cs`` with the best accuracy on ``dev`` if given, else by stratified inner
    ``folds``-fold cross-validation on ``(X, y)`` (ties: the first, i.e. the smallest C)."""
    import warnings

    from sklearn.model_selection import StratifiedKFold
    Cs, y = list(Cs), np.asarray(y)
    if len(Cs) == 1:
        return float(Cs[0])
    scores = []
    for C in Cs:
        if dev is not None:
            scores.append(_fit(X, y, C, seed).score(dev[0], np.asarray(dev[1])))
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "least populated class has only k members"
            splits = list(StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(X, y))
        scores.append(np.mean([_fit(X[tr], y[tr], C, seed).score(X[te], y[te]) for tr, te in splits]))
    return float(Cs[int(np.argmax(scores))])


def fit_score(X_train: np.ndarray, y_train: Sequence[int], X_test: np.ndarray, y_test: Sequence[int],
              C: float | Sequence[float] = DEFAULT_CS, seed: int = 0,
              dev: tuple[np.ndarray, Sequence[int]] | None = None) -> float:
    """Train the classifier on ``(X_train, y_train)``; accuracy ×100 on ``(X_test, y_test)``.

    ``C`` a number: that penalty. ``C`` a sequence: chosen with :func:`select_C` on the training
    part only (on ``dev`` when given) — the test part never influences the choice.
    """
    y_train = np.asarray(y_train)
    if not isinstance(C, (int, float)):
        C = select_C(X_train, y_train, C, seed=seed, dev=dev)
    return 100.0 * float(_fit(X_train, y_train, float(C), seed).score(X_test, np.asarray(y_test)))


def cross_val_accuracy(X: np.ndarray, y: Sequence[int], folds: int = 10, seed: int = 0,
                       C: float | Sequence[float] = DEFAULT_CS) -> float:
    """Mean accuracy ×100 over stratified k folds (each fold trains on the other k − 1; a
    sequence of ``C`` is searched inside each training part, as SentEval's nested CV does)."""
    y = np.asarray(y)
    scores = [fit_score(X[tr], y[tr], X[te], y[te], C, seed) for tr, te in kfold_indices(y, folds, seed)]
    return float(np.mean(scores))


def evaluate_task(encoder, task: SentEvalTask, folds: int = 10, seed: int = 0,
                  C: float | Sequence[float] = DEFAULT_CS, batch_size: int = 64,
                  parts: Sequence[str] = PAIR_FEATURES) -> float:
    """Accuracy ×100 of a logistic regression on ``encoder``'s frozen features for one task:
    k-fold CV when the task has no split, else train on ``train`` and score on ``test`` (``C``
    picked on ``dev`` where the task has one — SST2 — else by inner CV on ``train``)."""
    split = train_test_parts(task)
    if split is None:
        return cross_val_accuracy(embed_task(encoder, task, batch_size, parts), task.labels, folds, seed, C)
    names = [*split, "dev"] if "dev" in task.splits and not isinstance(C, (int, float)) else list(split)
    parts_ = [task.split(s) for s in names]
    texts = [t for ts, _ in parts_ for t in ts]
    labels = [y for _, ys in parts_ for y in ys]
    X = embed_task(encoder, replace(task, texts=texts, labels=labels, splits={}), batch_size, parts)
    bounds = np.cumsum([0] + [len(ys) for _, ys in parts_])
    block = {name: (X[bounds[i]:bounds[i + 1]], parts_[i][1]) for i, name in enumerate(names)}
    return fit_score(*block["train"], *block["test"], C, seed, dev=block.get("dev"))


def evaluate_transfer(encoder, tasks: Iterable[str | SentEvalTask] = TASKS, data_dir: str | os.PathLike | None = None,
                      max_examples: int | None = None, folds: int = 10, *, seed: int = 0,
                      C: float | Sequence[float] = DEFAULT_CS,
                      batch_size: int = 64, pair_features: Sequence[str] = PAIR_FEATURES,
                      verbose: bool = False) -> dict[str, float]:
    """SentEval-style transfer accuracy ×100 of a frozen ``encoder``: ``{task name: accuracy}``.

    * ``encoder``: anything with ``encode(list_of_texts, batch_size=...) -> (n, d) array``
      (a :class:`~sbertlib.model.encoder.SentenceEncoder`, :class:`~sbertlib.model.word_average.AverageWordEmbeddings`).
    * ``tasks``: names (loaded from ``data_dir``, see :func:`sbertlib.data.load_senteval`) or
      already loaded :class:`SentEvalTask` objects (to score several encoders on the same subsets).
    * ``max_examples``: a stratified subset (``seed``) per task — per split where there is one.
    * ``folds``: k of the stratified k-fold CV for tasks without a split (MR, CR, SUBJ, MPQA).
    * ``C``: the logistic regression's inverse L2 penalty — a number, or a sequence searched on
      each training part (SST2: on its dev split); ``pair_features``: MRPC's features.
    """
    out = {}
    for item in tasks:
        task = item if isinstance(item, SentEvalTask) else data.load_senteval(item, data_dir)
        task = subsample(task, max_examples, seed)
        started = time.perf_counter()
        out[task.name] = evaluate_task(encoder, task, folds, seed, C, batch_size, pair_features)
        if verbose:
            how = f"{folds}-fold CV" if not task.splits else "train → test"
            print(f"  {task.name:5s} {out[task.name]:6.2f}  ({len(task)} examples, {how}, "
                  f"{time.perf_counter() - started:.1f}s)")
    return out


def split_features(encoder, task: SentEvalTask, batch_size: int = 64,
                   parts: Sequence[str] = PAIR_FEATURES) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{split name: (features, labels)}`` of a task with splits (``train``, ``test`` and, for SST2, ``dev``):
    the frozen features of :func:`embed_task`, each distinct text encoded once across the splits."""
    if not task.splits:
        raise SettingError(f"{task.name} has no splits: it is scored by k-fold cross-validation (embed_task)")
    names = list(task.splits)
    blocks = [task.split(s) for s in names]
    X = embed_task(encoder, replace(task, texts=[t for ts, _ in blocks for t in ts],
                                    labels=[y for _, ys in blocks for y in ys], splits={}), batch_size, parts)
    bounds = np.cumsum([0] + [len(ys) for _, ys in blocks])
    return {name: (X[bounds[i]:bounds[i + 1]], np.asarray(blocks[i][1])) for i, name in enumerate(names)}
