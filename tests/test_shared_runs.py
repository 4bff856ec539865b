"""A class's shared runs ($SBERTLIB_SHARED_RUNS): the lecturer trains the library's runs once into a store;
a student's kernel loads a run from it when its recipe is the one asked for, never writes there, and
trains its own run, in its own folder, when the recipe differs."""
from __future__ import annotations

import dataclasses

import numpy as np

from sbertlib import places
from sbertlib.workbook import profiles, runs


def _files(root):
    return {p: p.stat().st_mtime_ns for p in root.rglob("*")}


def test_a_student_loads_the_lecturers_run_and_trains_only_a_changed_recipe(monkeypatch, tmp_path, shared_data,
                                                                            capsys):
    store, student = tmp_path / "srv-sbert-runs", tmp_path / "student"
    smoke = profiles.get_profile("smoke")
    monkeypatch.delenv(places.SHARED_RUNS_ENV, raising=False)
    monkeypatch.setenv(places.OUTPUT_DIR_ENV, str(store))               # the lecturer fills the store
    lecturers, trained = runs.trained_model(smoke, "stsb", data_dir=shared_data, show_progress_bar=False)
    before = _files(store)

    monkeypatch.setenv(places.OUTPUT_DIR_ENV, str(student))             # a student, the store shared
    monkeypatch.setenv(places.SHARED_RUNS_ENV, str(store))
    assert runs.is_trained(smoke, "stsb") and not runs.is_trained(smoke, "stsb", shared=False)
    model, loaded = runs.trained_model(smoke, "stsb", data_dir=shared_data, show_progress_bar=False)
    assert loaded.records == trained.records and loaded.recipe == trained.recipe
    texts = ["A man is playing a guitar.", "Two dogs run."]
    np.testing.assert_array_equal(model.encode(texts), lecturers.encode(texts))
    assert "training your own" not in capsys.readouterr().err
    assert not runs.model_dir(smoke, "stsb", create=False).exists()     # not even an empty folder of the student's

    changed = dataclasses.replace(smoke, stsb=smoke.stsb.replace(lr=smoke.stsb.lr * 2))
    assert not runs.is_trained(changed, "stsb")
    own = runs.trained_model(changed, "stsb", data_dir=shared_data, show_progress_bar=False)[1]
    err = capsys.readouterr().err
    assert f"hold no 'stsb' run of this recipe: training your own, in {runs.model_dir(changed, 'stsb')}" in err
    assert own.recipe["args"]["lr"] == smoke.stsb.lr * 2 and runs.is_trained(changed, "stsb", shared=False)
    assert _files(store) == before                                      # nothing written to the store
    assert "SBERTLIB_SHARED_RUNS" in places.describe()["shared runs"]
