"""A trained run is loaded only when it was trained with the recipe its profile gives now
(sbertlib.workbook.recipes): change the recipe and train-or-load says what changed and trains again."""
from __future__ import annotations

import dataclasses
import json

import pytest

from sbertlib import losses
from sbertlib.workbook import profiles, recipes, runs, stages


@pytest.fixture
def smoke(monkeypatch, tmp_path):
    monkeypatch.setenv("SBERTLIB_OUTPUT_DIR", str(tmp_path))
    return profiles.get_profile("smoke")


def _save(profile, objective="stsb", lr=None):
    model = profiles.load_encoder(profile)
    return runs.save_run(profile, objective, losses.CosineSimilarityLoss(model), [0.5, 0.25], 1.0,
                         lr=profile.stsb.lr if lr is None else lr)


def test_a_changed_learning_rate_retrains_and_says_what_changed(smoke, shared_data, capsys):
    model, first = runs.trained_model(smoke, "stsb", data_dir=shared_data, show_progress_bar=False)
    assert first.recipe["args"]["lr"] == smoke.stsb.lr and runs.is_trained(smoke, "stsb")
    again = runs.trained_model(smoke, "stsb", data_dir=shared_data, show_progress_bar=False)[1]
    assert again.records == first.records and "another recipe" not in capsys.readouterr().err  # loaded
    changed = dataclasses.replace(smoke, stsb=smoke.stsb.replace(lr=smoke.stsb.lr * 2))
    assert not runs.is_trained(changed, "stsb")
    retrained = runs.trained_model(changed, "stsb", data_dir=shared_data, show_progress_bar=False)[1]
    err = capsys.readouterr().err
    assert "was trained with another recipe" in err and f"args.lr: {smoke.stsb.lr!r} -> {smoke.stsb.lr * 2!r}" in err
    assert "training it again" in err and retrained.recipe["args"]["lr"] == smoke.stsb.lr * 2
    assert runs.is_trained(changed, "stsb") and not runs.is_trained(smoke, "stsb")


def test_a_run_without_a_recipe_is_not_loaded_as_the_profiles(smoke):
    _save(smoke)
    assert runs.is_trained(smoke, "stsb")
    hist = runs.model_dir(smoke, "stsb") / "history.json"
    recorded = json.loads(hist.read_text())
    del recorded["recipe"]  # what sbertlib wrote before it recorded recipes
    hist.write_text(json.dumps(recorded))
    assert not runs.is_trained(smoke, "stsb")
    assert "recorded no recipe" in recipes.differences(None, smoke.stage("stsb").recipe())


@pytest.mark.parametrize("change", [
    {"max_train_pairs": 32}, {"nli_source": "allnli"}, {"max_seq_length": 16}, {"stsb_train_pairs": 10},
    {"backbone": "random-bert-2x128"}, {"nli.lr": 0.5}, {"distill.lr": 0.5}, {"reference_backbone": "other/model"},
    {"nli.warmup_ratio": 0.2}, {"stsb.warmup_ratio": 0.2}, {"distill.warmup_ratio": 0.2}, {"stsb.weight_decay": 0.1},
])
def test_every_input_of_a_run_is_in_its_fingerprint(smoke, change):
    """What the data, backbone or training arguments of a stage (or of the stage it starts from, or of
    its teacher) depend on changes its fingerprint; a setting another stage reads does not. ``stage.field``
    changes one field of a stage's TrainingArguments: every one of them is fingerprinted, not only the
    epochs, batch size and learning rate."""
    (key, value), = change.items()
    stage, _, field = key.rpartition(".")
    touched = {  # which runs each profile field (or stage) feeds
        "max_train_pairs": {"nli", "mnrl", "two-stage", "distill", "distill-stsb"},
        "nli_source": {"nli", "mnrl", "two-stage", "distill", "distill-stsb"},
        "max_seq_length": set(runs.OBJECTIVES), "stsb_train_pairs": {"stsb", "two-stage", "distill", "distill-stsb"},
        "backbone": {"nli", "mnrl", "stsb", "two-stage"}, "nli": {"nli", "mnrl", "two-stage"},
        "stsb": {"stsb", "two-stage", "distill-stsb"},
        "distill": {"distill", "distill-stsb"}, "reference_backbone": {"distill", "distill-stsb"},
    }[stage or field]
    other = dataclasses.replace(smoke, **({stage: getattr(smoke, stage).replace(**{field: value})} if stage else change))
    for objective in runs.OBJECTIVES:
        same = recipes.fingerprint(smoke.stage(objective).recipe()) == recipes.fingerprint(
            other.stage(objective).recipe())
        assert same == (objective not in touched), (objective, change)


def test_a_new_data_rule_retires_the_runs_trained_under_the_old_one(smoke, monkeypatch):
    _save(smoke)
    assert runs.is_trained(smoke, "stsb")
    rule, *sizes = stages.DATA_RULES["stsb"]
    monkeypatch.setitem(stages.DATA_RULES, "stsb", (rule + ", less STS12-16's pairs", *sizes))
    assert not runs.is_trained(smoke, "stsb")
    assert "data.rule changed" in recipes.differences(
        runs._recorded(runs.model_dir(smoke, "stsb")).recipe, smoke.stage("stsb").recipe())


def test_the_students_loop_run_with_other_settings_is_not_the_profiles_model(smoke):
    _save(smoke, lr=smoke.stsb.lr * 10)
    assert not runs.is_trained(smoke, "stsb")
    _save(smoke)
    assert runs.is_trained(smoke, "stsb")
    assert runs.trained_model(smoke, "stsb")[1].settings["trained_by"] == "notebook"
