"""Ours beside the paper: results tables that name what produced each of our rows.

Every table puts the paper's rows (``paper: …``, from :mod:`sbertlib.paper`) above ours, and each of
our row labels names the backbone, pooling and profile (:func:`label_for`) — a stand-in's number is
never shown as the paper's. Tables are pandas DataFrames (pandas comes with the ``workbook`` extra).
"""
from __future__ import annotations

from typing import Sequence

from .. import paper
from ..losses import DEFAULT_CONCAT
from ..util import optional_import
from ..errors import SettingError

TRANSFER_COLUMN = {"SST2": "SST"}  # our SentEval task name -> the column of paper.TABLE5


def label_for(encoder, profile: str | None = None, what: str = "") -> str:
    """A row label naming backbone, pooling and profile, marked when the backbone is a stand-in.

    The packaged all-MiniLM-L6-v2 is not marked: its weights are the published model's, so a row of it
    (the workbook's fully trained reference) is that model's real score, not a stand-in's."""
    info = getattr(encoder, "info", {})
    stand_in = info.get("stand_in") and not is_published_checkpoint(info.get("backbone", ""))
    tags = [t for t in (profile, "stand-in" if stand_in else None) if t]
    pooling = getattr(encoder, "pooling", None)
    parts = [what or (f"{pooling} pooling" if pooling else ""), info.get("backbone", "?")]
    return "ours: " + ", ".join(p for p in parts if p) + (f" [{', '.join(tags)}]" if tags else "")


def is_published_checkpoint(backbone: str) -> bool:
    """True for a backbone that is a published sentence encoder's own weights (the packaged
    all-MiniLM-L6-v2), which the model registry flags as a stand-in only for the paper's plain BERT."""
    from ..model.backbones import MINILM_NAMES
    return backbone.removesuffix(" (packaged)") in MINILM_NAMES


def beside_paper(ours: dict[str, dict[str, float]], paper_table: dict, columns: Sequence[str],
                 paper_rows: Sequence[str] | None = None):
    """A table of the paper's rows (``paper: …``) followed by ours, the paper's column order first,
    plus an ``avg`` column (NaN when a row lacks a column)."""
    pd = optional_import("pandas", "workbook")
    rows = {f"paper: {name}": dict(zip(columns, paper_table[name]))
            for name in (paper_rows if paper_rows is not None else paper_table)}
    rows.update(ours)
    table = pd.DataFrame.from_dict(rows, orient="index")
    table = table[[c for c in columns if c in table.columns] + [c for c in table.columns if c not in columns]]
    table["avg"] = table.mean(axis=1, skipna=False)
    return table.round(2)


def table1(ours: dict[str, dict[str, float]], paper_rows: Sequence[str] | None = None):
    """Our STS rows beside the paper's Table 1 rows. ``ours`` maps a row label (see
    :func:`label_for`) to ``{dataset: Spearman ×100}``."""
    return beside_paper(ours, paper.TABLE1, paper.TABLE1_COLUMNS, paper_rows)


def table2(ours: dict[str, dict[str, tuple[float, int]]], paper_rows: dict[str, Sequence[str]] | None = None):
    """Our STSb test rows beside the paper's Table 2, block by block (its three blocks, in its order).

    ``ours`` maps a block (a key of ``paper.TABLE2``) to ``{row label: (Spearman ×100, test pairs)}``;
    ``paper_rows`` picks the paper's rows shown in a block (default: all of them). The paper's rows
    are means over 10 seeds with their standard deviation, on the 1,379 test pairs; ours are one seed."""
    pd = optional_import("pandas", "workbook")
    unknown = sorted(set(ours) - set(paper.TABLE2))
    if unknown:
        raise SettingError(f"unknown Table 2 block(s) {unknown}; the blocks are {list(paper.TABLE2)}")
    rows = []
    for block, figures in paper.TABLE2.items():
        for name in (paper_rows or {}).get(block, figures):
            mean, std = figures[name]
            rows.append({"block": block, "model": f"paper: {name}", "STSb test Spearman ×100": mean,
                         "±": "—" if std is None else f"{std:.2f} (10 seeds)", "test pairs": paper.STSB_TEST_PAIRS})
        for label, (score, n_pairs) in ours.get(block, {}).items():
            rows.append({"block": block, "model": label, "STSb test Spearman ×100": round(float(score), 2),
                         "±": "one seed", "test pairs": n_pairs})
    return pd.DataFrame(rows).set_index(["block", "model"])


PAPER_SAW = {  # what the paper's rows were trained on, by Table 2's block (Table 1's rows saw no STS data)
    "Not trained for STS": "no STS data (paper)",
    "Trained on STS benchmark (STSb)": "STSb train (paper)",
    "Trained on NLI data + STSb": "NLI, then STSb train (paper)",
}
SEEN_COLUMN = "training saw (of these sets)"


def with_seen(table, seen: dict, datasets: Sequence[str] | None = None, paper_saw: str = "no STS data (paper)"):
    """``table`` (from :func:`table1`, :func:`table2`, ...) with a column saying what each row's training saw
    of the evaluation sets it shows (:func:`~sbertlib.evaluation.contamination.seen_note`): ``seen`` maps
    our row labels to their runs' recorded contamination (``history.contamination``), ``None`` for an
    untrained model, or a string. The paper's rows say ``paper_saw`` (Table 2: its block's data) unless
    ``seen`` names them too. A row
    of ours that ``seen`` does not name is refused: every score of ours says what its model saw."""
    from .contamination import seen_note
    datasets = list(datasets if datasets is not None else [c for c in table.columns if c != "avg"])
    out = table.copy()
    notes = []
    for index in out.index:
        block, label = index if isinstance(index, tuple) else (None, index)
        if label in seen:
            notes.append(seen_note(seen[label], datasets))
        elif str(label).startswith("paper: "):
            notes.append(PAPER_SAW.get(block, paper_saw))
        else:
            raise SettingError(f"row {label!r}: say what its model saw (seen[{label!r}] = history.contamination, "
                               f"None if it was not trained, or a sentence)")
    out[SEEN_COLUMN] = notes
    return out


def table5(ours: dict[str, dict[str, float]], paper_rows: Sequence[str] | None = None):
    """Our transfer rows beside the paper's Table 5, in its columns (SST2 shown as ``SST``)."""
    renamed = {label: {TRANSFER_COLUMN.get(k, k): v for k, v in scores.items()} for label, scores in ours.items()}
    return beside_paper(renamed, paper.TABLE5, paper.TABLE5_COLUMNS, paper_rows)


def table6(results, label: str):
    """An ablation grid (:func:`sbertlib.evaluation.ablation.run_grid`) beside Table 6:
    ``(pooling table, concatenation table)``.

    ``label`` names what produced our rows (profile and backbone). Pooling rows are those with
    the default concatenation; concatenation rows those with mean pooling. Columns: our mean and
    std (Spearman ×100 on STSb dev) and the paper's figure (SBERT-base trained on NLI).
    """
    pd = optional_import("pandas", "workbook")
    pooling, concat = [], []
    for _, row in results.iterrows():
        parts = tuple(row["concat"].strip("()").split(", "))
        if parts == DEFAULT_CONCAT:
            pooling.append({"pooling": row["pooling"], f"ours: mean — {label}": row["mean"],
                            "ours: std": row["std"],
                            "paper: SBERT-base, NLI": paper.TABLE6_POOLING[row["pooling"]][0]})
        if row["pooling"] == "mean":
            concat.append({"concatenation": row["concat"], f"ours: mean — {label}": row["mean"],
                           "ours: std": row["std"], "paper: SBERT-base, NLI": paper.TABLE6_CONCAT.get(parts)})
    pool_table = pd.DataFrame(pooling).set_index("pooling") if pooling else pd.DataFrame()
    concat_table = pd.DataFrame(concat).set_index("concatenation") if concat else pd.DataFrame()
    return pool_table.round(2), concat_table.round(2)
