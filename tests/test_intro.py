"""sbertlib.workbook.intro: notebooks 00-01's tables, figures and verdicts, built from the functions given."""
from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import torch

matplotlib.use("Agg")

from sbertlib.workbook import intro  # noqa: E402


# ============================================================================= sbertlib.workbook.intro (moved out of 00 and 01)
def test_profile_card_and_device_report():
    from sbertlib import config
    from sbertlib.workbook.profiles import get_profile
    card = intro.profile_card(get_profile("smoke", dry_run=False), ["minilm", "tiny-random-bert"])
    assert card.splitlines()[0].split() == ["profile:", "smoke"]
    assert "[stand-in]" in card and "MNRL, in-batch negatives" in card and "minilm, tiny-random-bert" in card
    report = intro.device_report(config.pick_device())
    assert report.startswith(f"[OK] torch {torch.__version__}, device: ") and "CPU threads torch uses" in report


def test_cross_vs_bi_table_extrapolates_with_the_students_functions(tiny):
    sentences = [f"Sentence number {k} is about topic {k % 7}." for k in range(40)]
    table = intro.cross_vs_bi_table([tiny], sentences, lambda n, pps: 1.0, lambda n, sps: 2.0,
                                    cross_pairs=4, bi_sentences=10, repeats=1)
    ours, paper_row = table.iloc[0], table.iloc[1]
    assert table.index[0].startswith("ours: tiny-random-bert (") and table.index[1].startswith("paper (Section 1)")
    assert ours[intro.CROSS_HOURS] == 1.0 and ours.iloc[-1] == 2.0      # the functions given, not a formula of ours
    assert ours.iloc[0] > 0 and ours.iloc[2] > 0
    assert paper_row[intro.CROSS_HOURS] == 65.0 and paper_row.iloc[-1] == 5.0 and paper_row.iloc[2] == 2000.0


def test_table1_bars_verdicts_and_saved_rows(tmp_path, monkeypatch):
    from sbertlib import evaluation
    monkeypatch.setenv("SBERTLIB_OUTPUT_DIR", str(tmp_path))
    ours = {"glove": {"stsb-test": 50.0}, "mean": {"stsb-test": 30.0}, "cls": {"stsb-test": 35.0}}
    rows = ["Avg. GloVe embeddings", "BERT CLS-vector"]
    table = evaluation.table1(ours, paper_rows=rows)
    fig = intro.table1_bars(table, ours, rows, ["stsb-test"], "smoke")
    assert [ax.get_title() for ax in fig.axes] == ["paper, Table 1", "ours — profile smoke"]
    lines = intro.baseline_verdicts({k: v["stsb-test"] for k, v in ours.items()}, "glove", "mean", "cls", None,
                                    "tiny", n_pairs=200, profile_name="smoke")
    assert lines[0] == "STS benchmark test, 200 pairs, profile smoke:"
    assert "- Mean pooling beats the CLS vector here: no (-5.00); in the paper: yes (+29.85)." in lines
    assert "- Averaged GloVe beats the untrained network's mean pooling here: yes (+20.00); in the paper: yes (+11.67)." in lines
    assert not any("reference" in line for line in lines)
    path = intro.save_table1_rows(ours, {"stsb-test": [0] * 200}, "smoke")
    import json
    assert json.loads(path.read_text()) == {"profile": "smoke", "pairs": {"stsb-test": 200}, "ours": ours}


def test_centring_histograms_use_the_given_centre():
    rng = np.random.default_rng(1)
    vectors = {"shifted": rng.normal(size=(50, 8)) + 3.0}
    seen = []
    fig = intro.centring_histograms(vectors, lambda v: (seen.append(v.shape), v - v.mean(axis=0))[1], n_pairs=100,
                                    title="before")
    assert seen == [(50, 8)] and [ax.get_title() for ax in fig.axes][0] == "before"
    centred_mean = float(fig.axes[1].get_legend().get_texts()[0].get_text().split("mean ")[1].rstrip(")"))
    raw_mean = float(fig.axes[0].get_legend().get_texts()[0].get_text().split("mean ")[1].rstrip(")"))
    assert raw_mean > 0.8 and abs(centred_mean) < 0.2
    assert isinstance(intro.gap_table({"m": np.eye(3)}), pd.DataFrame)
