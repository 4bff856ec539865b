"""Ablations of SBERT's design choices (paper, Section 6, Table 6): a small grid runner.

Table 6 varies one thing at a time around SBERT's default (mean pooling, features ``(u, v, |u−v|)``):

* the **pooling** — mean, max or CLS — with the default concatenation, under *both* objectives: the
  classification objective on NLI (first column) and the regression objective on STSb (second column);
* the **concatenation** fed to the softmax classifier — seven choices — with mean pooling (NLI only:
  the regression objective has no classifier).

The NLI rows share the default configuration, so they hold 3 + 7 − 1 = 9 distinct trainings; the
regression column adds 3. The paper trains every configuration with **10 random seeds** and reports
the average (§6). :func:`run_grid` trains each configuration once per seed with
:func:`sbertlib.training.fit`, scores it on the STSb development set (as Table 6 does) and returns one
row per configuration with the mean and standard deviation over the seeds::

    configs = table6_configs()                        # 9 AblationConfig
    results = run_grid(configs, seeds=[1, 2, 3], train_pairs=nli_pairs, backbone="tiny-random-bert")
    poolings = run_grid(pooling_configs(), [1, 2, 3], stsb_pairs, objective="regression")
    pooling_table(results, poolings, "ours: …")        # both columns beside the paper's

:func:`grid_cost` says what a grid costs (runs × steps) before it starts. With ``cache_dir`` every
(configuration, seed) result is written as JSON the moment it is known, and a re-run with the same
settings reads it back instead of training again.
"""
from __future__ import annotations

import copy
import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..losses import DEFAULT_CONCAT, check_concat
from ..model.pooling import POOLING_MODES
from ..paper import TABLE6_CONCATS
from ..util import atomic_write_text, digest, optional_import, settings_digest
from .sts import STSEvaluator, stsb_dev_evaluator
from ..errors import SettingError

OBJECTIVES = ("classification", "regression")  # Table 6's two columns: NLI (SoftmaxLoss), STSb (cosine MSE)


@dataclass(frozen=True)
class AblationConfig:
    """One point of the grid: a pooling mode and the parts the classifier sees."""

    pooling: str = "mean"
    concat: tuple[str, ...] = DEFAULT_CONCAT

    def __post_init__(self) -> None:
        if self.pooling not in POOLING_MODES:
            raise SettingError(f"unknown pooling {self.pooling!r}; choose one of {POOLING_MODES}")
        object.__setattr__(self, "concat", check_concat(self.concat))

    @property
    def concat_label(self) -> str:
        """``"(u, v, |u-v|)"``: the concatenation as the paper writes it."""
        return "(" + ", ".join(self.concat) + ")"

    @property
    def label(self) -> str:
        """``"mean pooling, (u, v, |u-v|)"``: a unique, readable row name."""
        return f"{self.pooling} pooling, {self.concat_label}"


def table6_configs(poolings: Sequence[str] = POOLING_MODES,
                   concats: Sequence[Sequence[str]] = TABLE6_CONCATS) -> list[AblationConfig]:
    """The distinct configurations of Table 6: each pooling with the default concatenation, then
    each concatenation with mean pooling (the shared default appears once)."""
    configs = [AblationConfig(p, DEFAULT_CONCAT) for p in poolings]
    configs += [AblationConfig("mean", tuple(c)) for c in concats]
    return list(dict.fromkeys(configs))


def pooling_configs(poolings: Sequence[str] = POOLING_MODES) -> list[AblationConfig]:
    """One configuration per pooling with the default concatenation: the rows of Table 6's pooling
    block (what the regression column varies)."""
    return [AblationConfig(p, DEFAULT_CONCAT) for p in poolings]


def grid_cost(n_configs: int, seeds: Sequence[int] | int, n_pairs: int, batch_size: int = 16,
              epochs: int = 1) -> dict:
    """What a grid costs before it runs: ``{"runs", "steps_per_run", "steps"}`` (steps = optimizer
    steps of :func:`sbertlib.training.fit`, ``ceil(n_pairs / batch_size) × epochs`` per run)."""
    n_seeds = seeds if isinstance(seeds, int) else len(seeds)
    if min(n_configs, n_seeds, n_pairs, batch_size, epochs) < 1:
        raise SettingError("configs, seeds, pairs, batch size and epochs must all be at least 1")
    per_run = math.ceil(n_pairs / batch_size) * epochs
    return {"runs": n_configs * n_seeds, "steps_per_run": per_run, "steps": n_configs * n_seeds * per_run}


def difference(results, label_a: str, label_b: str) -> tuple[float, float]:
    """``(mean_a − mean_b, its standard error)`` for two rows of a :func:`run_grid` table.

    The seeds of two configurations are independent runs, so the standard error of the difference
    of their means is ``sqrt(s_a²/n_a + s_b²/n_b)`` (``s``: sample std over seeds, ``n``: seeds).
    A difference of less than about two standard errors could be seed noise. NaN with one seed.
    """
    a, b = results.loc[label_a], results.loc[label_b]
    se = math.sqrt(a["std"] ** 2 / a["n_seeds"] + b["std"] ** 2 / b["n_seeds"])
    return float(a["mean"] - b["mean"]), float(se)


def pooling_table(nli_results, regression_results, label: str):
    """Table 6's pooling block, both columns, ours beside the paper's: one row per pooling with our
    mean ± std after NLI (classification objective, default concatenation) and after STSb
    (regression objective), and the paper's figures. ``label`` names what produced our rows."""
    pd = optional_import("pandas", "workbook")
    from .. import paper
    rows = {}
    for pooling in POOLING_MODES:
        row = {}
        for name, results, col in (("NLI", nli_results, 0), ("STSb", regression_results, 1)):
            hit = _rows(results, pooling, DEFAULT_CONCAT)
            if len(hit):
                row[f"ours: {name} mean"] = float(hit.iloc[0]["mean"])
                row[f"ours: {name} std"] = float(hit.iloc[0]["std"])
            row[f"paper: {name}"] = paper.TABLE6_POOLING[pooling][col]
        if any(k.startswith("ours") for k in row):
            rows[pooling] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = f"pooling — {label}"
    return table.round(2)


def _rows(results, pooling: str, concat: tuple[str, ...]):
    """The rows of a :func:`run_grid` table (or None: no rows) with this pooling and concatenation."""
    if results is None:
        return []
    return results[(results["pooling"] == pooling) & (results["concat"] == AblationConfig(pooling, concat).concat_label)]


def _slug(concat: tuple[str, ...]) -> str:
    """A file-name-safe name of a concatenation: ("u", "v", "|u-v|") -> "u_v_absdiff"."""
    return "_".join({"|u-v|": "absdiff", "u*v": "prod"}.get(part, part) for part in concat)


def _summary(runs, configs: Sequence[AblationConfig], seeds: Sequence[int]):
    pd = optional_import("pandas", "workbook")
    rows = []
    for cfg in configs:
        scores = runs[runs["config"] == cfg.label].set_index("seed")["score"]
        values = np.array([scores[s] for s in seeds], dtype=float)
        row = {"pooling": cfg.pooling, "concat": cfg.concat_label, "n_seeds": len(values),
               "mean": float(values.mean()),
               "std": float(values.std(ddof=1)) if len(values) > 1 else math.nan}
        row.update({f"seed {s}": float(v) for s, v in zip(seeds, values)})
        rows.append((cfg.label, row))
    table = pd.DataFrame.from_dict(dict(rows), orient="index")
    table.index.name = "configuration"
    return table


def _evaluator_key(evaluator) -> str:
    """A description of the evaluator that stays the same across runs (for the cache key)."""
    if isinstance(evaluator, STSEvaluator):
        pairs = evaluator._load()
        return f"STSEvaluator(split={evaluator.split}, n={len(pairs)}, data={digest(pairs, 12)})"
    return repr(evaluator)


def run_grid(configs: Sequence[AblationConfig], seeds: Sequence[int], train_pairs: Sequence, *,
             backbone: str = "tiny-random-bert", max_seq_length: int = 32,
             evaluator: Callable[[object], float] | None = None, batch_size: int = 16, epochs: int = 1,
             lr: float = 2e-5, num_labels: int = 3, cache_dir: str | os.PathLike | None = None,
             show_progress_bar: bool = True, encoder_factory: Callable[[], object] | None = None,
             objective: str = "classification", args=None):
    """Train every configuration once per seed and score it on STSb dev.

    * ``configs``: :class:`AblationConfig` items (e.g. :func:`table6_configs`); ``seeds``: the
      training seeds (data order, dropout, classifier initialisation). The backbone's starting
      weights are the same for every run.
    * ``objective``: ``"classification"`` — :class:`~sbertlib.losses.SoftmaxLoss` with the
      configuration's concatenation on NLI pairs (:class:`~sbertlib.data.NLIPair` or
      ``(a, b, label)`` tuples), Table 6's first column; ``"regression"`` —
      :class:`~sbertlib.losses.CosineSimilarityLoss` on scored pairs (:class:`~sbertlib.data.STSPair`),
      Table 6's second column: only the pooling varies (configurations must keep the default
      concatenation, which this objective does not use).
    * ``train_pairs``: the training records of that objective.
    * ``backbone`` / ``max_seq_length``: what :meth:`SentenceEncoder.from_pretrained` loads, once;
      each run trains a fresh copy with the configuration's pooling. ``encoder_factory()`` (a
      function returning a fresh encoder) replaces that when given.
    * ``evaluator(encoder) -> float`` (higher is better): default STSb dev cosine Spearman ×100,
      the score of Table 6.
    * ``args``: the :class:`~sbertlib.training.TrainingArguments` of every run (its seed replaced by each
      run's); default: ``TrainingArguments(epochs=epochs, batch_size=batch_size, lr=lr)``.
    * ``cache_dir``: store each run's score there and reuse it when the settings, data and
      configuration are the same — every training argument included (warm-up, weight decay, clipping,
      length grouping...): change any of them, or a default of ``TrainingArguments``, and the runs are
      trained again, never reused.

    Returns one row per configuration (index: ``config.label``, in the order given) with columns
    ``pooling``, ``concat``, ``n_seeds``, ``mean``, ``std`` (sample std over seeds; NaN for one
    seed) and ``seed <s>`` for each seed. ``table.attrs["runs"]`` lists one record per training
    (config, seed, score, seconds, cached): ``pd.DataFrame(table.attrs["runs"])``.
    """
    from tqdm.auto import tqdm

    pd = optional_import("pandas", "workbook")

    from ..losses import CosineSimilarityLoss, SoftmaxLoss
    from ..training import fit, seed_everything

    configs, seeds = list(configs), [int(s) for s in seeds]
    if not configs:
        raise SettingError("configs is empty: nothing to run")
    if objective not in OBJECTIVES:
        raise SettingError(f"unknown objective {objective!r}; choose one of {OBJECTIVES}")
    if objective == "regression" and any(c.concat != DEFAULT_CONCAT for c in configs):
        raise SettingError("the regression objective has no classifier, so no concatenation to vary: "
                           "use pooling_configs() (the default concatenation) for the regression column")
    if not seeds or len(set(seeds)) != len(seeds):
        raise SettingError(f"seeds must be a non-empty list of distinct integers, got {seeds}")
    labels = [c.label for c in configs]
    if len(set(labels)) != len(labels):
        raise SettingError("configs holds the same configuration twice")
    if evaluator is None:
        evaluator = stsb_dev_evaluator()
    from ..training import TrainingArguments
    args = (args if args is not None else TrainingArguments(epochs=epochs, batch_size=batch_size, lr=lr))
    training = {k: v for k, v in args.to_dict().items() if k not in ("seed", "evaluation_steps", "checkpoint_steps")}
    settings = {"backbone": backbone if encoder_factory is None else getattr(encoder_factory, "__name__", "custom"),
                "max_seq_length": max_seq_length, "training": training,
                "num_labels": num_labels, "data": digest(train_pairs, 12), "n_pairs": len(train_pairs),
                "evaluator": _evaluator_key(evaluator), "objective": objective}
    cache = Path(cache_dir) / settings_digest(settings) if cache_dir is not None else None

    base = None

    def fresh(pooling: str):
        nonlocal base
        if encoder_factory is not None:
            enc = encoder_factory()
        else:
            if base is None:
                from ..model.encoder import SentenceEncoder
                base = SentenceEncoder.from_pretrained(backbone, max_seq_length=max_seq_length)
            enc = copy.deepcopy(base)
        enc.pooling = pooling
        return enc

    records = []
    jobs = [(cfg, seed) for cfg in configs for seed in seeds]
    bar = tqdm(jobs, desc="ablation grid", unit="run", disable=not show_progress_bar)
    for cfg, seed in bar:
        bar.set_postfix_str(f"{cfg.label}, seed {seed}", refresh=False)
        file = cache / f"{cfg.pooling}-{_slug(cfg.concat)}-seed{seed}.json" if cache is not None else None
        if file is not None and file.is_file():
            saved = json.loads(file.read_text())
            records.append({"config": cfg.label, "seed": seed, "score": saved["score"],
                            "seconds": saved["seconds"], "cached": True})
            continue
        started = time.perf_counter()
        encoder = fresh(cfg.pooling)
        seed_everything(seed)  # the classifier's initial weights depend on the seed, not on the run order
        loss = (SoftmaxLoss(encoder, num_labels=num_labels, concat=cfg.concat) if objective == "classification"
                else CosineSimilarityLoss(encoder))
        history = fit(encoder, loss, train_pairs, args.replace(seed=seed), show_progress_bar=False)
        if history.interrupted:  # fit() swallowed a Ctrl-C: stop the grid, record nothing half-trained
            bar.close()
            raise KeyboardInterrupt(f"ablation grid stopped during {cfg.label}, seed {seed}")
        score = float(evaluator(encoder))
        seconds = time.perf_counter() - started
        records.append({"config": cfg.label, "seed": seed, "score": score, "seconds": seconds, "cached": False})
        if file is not None:
            atomic_write_text(file.parent / "settings.json", json.dumps(settings, indent=1, default=str))
            atomic_write_text(file, json.dumps({"config": cfg.label, "seed": seed, "score": score, "seconds": seconds}))
        del encoder, loss
    bar.close()
    table = _summary(pd.DataFrame(records), configs, seeds)
    table.attrs["runs"] = records  # plain records (not a DataFrame: pandas compares attrs when combining frames)
    table.attrs["settings"] = settings
    return table
