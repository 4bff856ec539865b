"""sbertlib.evaluation.contamination: what a training set saw of each evaluation set (sentences,
pairs with both sentences seen, the same pairs), case- and space-normalised; on the real data,
STSb train holds the same pairs as a third to a half of STS12-15; every training run records it and
``train --json`` carries it."""
from __future__ import annotations

import json

import pytest

from sbertlib.data.records import NLIPair, STSPair, Triplet
from sbertlib.evaluation import contamination as c


def pair(a, b, score=3.0):
    return STSPair(a, b, score)


def test_shares_of_sentences_pairs_and_same_pairs():
    training = [NLIPair("A man  sings.", "A person sings.", "entailment"), Triplet("Dogs run.", "Animals move.",
                "Cats sleep."), ("a cat sits.", [0.1, 0.2]), "Stocks fell."]
    evaluation = [pair("A person sings.", "a MAN sings."),    # the same pair, other order and case: seen
                  pair("Dogs run.", "Stocks fell."),         # both sentences seen, never as a pair
                  pair("A cat sits.", "A bird flies."),      # one sentence seen
                  pair("Nothing here.", "Nor here.")]
    figures = c.contamination(training, {"toy": evaluation})["toy"]
    assert figures["eval_sentences"] == 8 and figures["eval_pairs"] == 4
    assert figures["sentences"] == pytest.approx(5 / 8)
    assert figures["pairs"] == pytest.approx(2 / 4) and figures["same_pairs"] == pytest.approx(1 / 4)
    assert c.contamination(["Unrelated."], {"toy": evaluation})["toy"]["sentences"] == 0.0
    assert "| toy | 62.5% of 8 | 50.0% of 4 | 25.0% |" in c.table({"toy": figures})
    assert c.frame({"toy": figures}).loc["toy"].tolist() == ["62.5% of 8", "50.0% of 4", "25.0%"]


def test_a_table_says_what_each_rows_training_saw_and_refuses_a_row_it_is_not_told(shared_data):
    """Every table that sets our score beside the paper's says what our model saw; an STSb-trained
    model set beside Table 1's unsupervised rows is said to be not unsupervised, in that table."""
    from sbertlib import data, evaluation
    sets = c.evaluation_sets(("sts12", "sts16", "sick-r"), shared_data)
    stsb_trained = c.contamination(data.load_stsb("train", shared_data), sets)
    sick_sentences = c.contamination([sets["sick-r"][0].sentence1], sets)
    ours = {"ours: STSb-trained": {"sts12": 70.0, "sts16": 70.0, "sick-r": 60.0},
            "ours: one SICK sentence": {"sts12": 50.0, "sts16": 50.0, "sick-r": 50.0},
            "ours: untrained": {"sts12": 20.0, "sts16": 20.0, "sick-r": 20.0}}
    table = evaluation.table1(ours, ["SBERT-NLI-base"])[["sts12", "sts16", "sick-r"]]
    seen = {"ours: STSb-trained": stsb_trained, "ours: one SICK sentence": sick_sentences,
            "ours: untrained": None}
    notes = evaluation.with_seen(table, seen)[evaluation.reports.SEEN_COLUMN]
    assert notes["paper: SBERT-NLI-base"] == "no STS data (paper)"
    assert notes["ours: STSb-trained"] == "the very pairs, with scores, of up to 32% of sts12's pairs: NOT unsupervised"
    assert notes["ours: one SICK sentence"] == ("some sentences (up to 0.02% of sick-r's); no pair with both "
                                                "sentences")  # 1 of 5,007: not rounded to 0
    assert notes["ours: untrained"] == c.UNTRAINED_SAW
    assert c.seen_note(c.contamination(["Unrelated."], sets), ["sts12"]) == "no sentence of these sets"
    with pytest.raises(ValueError, match="row 'ours: untrained': say what its model saw"):
        evaluation.with_seen(table, {k: v for k, v in seen.items() if k != "ours: untrained"})
    two = evaluation.table2({"Not trained for STS": {"ours: STSb-trained": (70.0, 1379)}}, {"Not trained for STS": ["SBERT-NLI-base"]})
    notes = evaluation.with_seen(two, {"ours: STSb-trained": stsb_trained}, datasets=["sts12"])[evaluation.reports.SEEN_COLUMN]
    assert list(notes.loc["Not trained for STS"]) == [
        "no STS data (paper)", "the very pairs, with scores, of up to 32% of sts12's pairs: NOT unsupervised"]
    tiny = {"stsb-test": {"sentences": 0.1, "pairs": 0.045, "same_pairs": 0.009, "eval_sentences": 2551, "eval_pairs": 1379}}
    assert c.seen_note(tiny, ["stsb-test"]) == "a few of the very pairs, with scores: 0.9% of stsb-test's"  # STSb's splits
    assert set(notes.loc["Trained on NLI data + STSb"]) == {"NLI, then STSb train (paper)"}


def test_an_evaluation_set_of_single_sentences_is_measured_by_its_sentences():
    figures = c.contamination(["A man sings.", "Dogs run."], {"task": ["a man  sings.", "Cats sleep.", "Birds fly."]})
    assert figures["task"]["sentences"] == pytest.approx(1 / 3, abs=1e-4) and figures["task"]["eval_pairs"] == 0
    assert figures["task"]["pairs"] == 0.0 and figures["task"]["same_pairs"] == 0.0


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="evaluation set is empty"):
        c.contamination(["A."], {"empty": []})
    with pytest.raises(TypeError, match="cannot read the sentences of a int training example"):
        c.contamination([3], {"x": [pair("a", "b")]})


def test_stsb_train_holds_a_third_to_a_half_of_sts12_15s_pairs(shared_data):
    from sbertlib import data
    sets = c.evaluation_sets(("sts12", "sts13", "sts14", "sts15", "sts16", "sick-r"), shared_data)
    figures = c.contamination(data.load_stsb("train", shared_data), sets)
    same = {name: round(f["same_pairs"] * f["eval_pairs"]) for name, f in figures.items()}
    assert same == {"sts12": 1002, "sts13": 597, "sts14": 1861, "sts15": 1102, "sts16": 197, "sick-r": 0}
    assert all(0.32 <= figures[f"sts1{y}"]["same_pairs"] <= 0.50 for y in (2, 3, 4, 5))


def test_every_run_records_what_its_training_saw(tmp_path, monkeypatch, shared_data, capsys):
    from sbertlib.cli import train
    monkeypatch.setenv("SBERTLIB_OUTPUT_DIR", str(tmp_path))
    monkeypatch.setenv("SBERTLIB_DATA_DIR", str(shared_data))
    assert train.main(["--profile", "smoke", "--objective", "sts", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    seen = result["contamination"]
    assert {"stsb-test", "sts12", "sick-r"} <= set(seen) and set(seen["sts12"]) >= {"sentences", "pairs"}
    assert seen["sts12"]["same_pairs"] > 0 and seen["sick-r"]["sentences"] == 0.0  # STSb train: from STS12-16
    from sbertlib.training import History
    history = History.load(tmp_path / "smoke" / result["model"].split("/smoke/")[1].rsplit("/final", 1)[0]
                           / "history.json")
    assert history.contamination == seen


def test_notebook_14s_distillation_set_holds_no_evaluation_sentence(shared_data):
    from sbertlib.workbook import profiles, stages
    sets = stages.evaluation_sets(shared_data)
    assert {"stsb-dev", "stsb-test", "sts12", "sts13", "sts14", "sts15", "sts16", "sick-r"} <= set(sets)
    for name in ("smoke", "offline"):
        sentences = profiles.get_profile(name).stage("distill").sentences(data_dir=shared_data)
        seen = c.contamination(sentences, sets)
        assert sentences and all(f["sentences"] == 0.0 for f in seen.values()), (name, seen)


def test_notebook_14s_ladder_puts_each_row_beside_the_paper_row_that_saw_as_much_and_wants_a_prediction():
    from sbertlib.workbook import figures
    from sbertlib.workbook.lessons import ExerciseError
    stsb = dict(zip("abcdef", (44.0, 70.0, 44.5, 74.4, 77.3, 82.0)))
    table, lines = figures.distillation_ladder(stsb, 1379, "offline", "about the random start")
    assert list(table.index[-2:]) == ["paper: SBERT-NLI-base (Table 2; no STS labels)",
                                      "paper: SBERT-NLI-STSb-base (Table 2; trained on STSb train)"]
    assert lines[2].startswith("Distilled only (no STS score in its own training, no evaluation sentence; its teacher's "
                               "knowledge borrowed): 74.40 beside the paper's SBERT-NLI-base 77.03")
    assert "77.30 beside SBERT-NLI-STSb-base 85.35" in lines[3]
    for unfilled in (..., "about", None):  # the stub's `...`, a typo: the prediction is asked for, by its options
        with pytest.raises(ExerciseError, match="write your prediction before the ladder is measured"):
            figures.distillation_ladder(stsb, 1379, "offline", unfilled)
    for near in ("About the random start", " about the  random start.", "ABOVE THE RANDOM START"):  # trial 14
        with pytest.raises(ExerciseError, match=r"close to '(about|above) the random start' but not written as it"):
            figures.distillation_ladder(stsb, 1379, "offline", near)


def test_a_note_measures_a_training_set_no_run_recorded():
    sets = {"toy": [pair("A man sings.", "A woman dances.")]}
    assert c.note(["a man sings."], sets) == c.seen_note(c.contamination(["a man sings."], sets), ["toy"])
    assert c.note(["a man sings."], sets).startswith("some sentences (up to 50% of toy's)")
    assert c.note(["Unrelated."], sets) == "no sentence of these sets"
