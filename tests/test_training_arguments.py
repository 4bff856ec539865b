"""TrainingArguments: the one description of a run that fit reads, checkpoints fingerprint whole,
History records, the profiles build and the command line exposes."""
from __future__ import annotations

import dataclasses
import json
import re

import pytest
import torch

from sbertlib.losses import CosineSimilarityLoss
from sbertlib.training import TrainingArguments, fit
from sbertlib.training.arguments import add_arguments, from_namespace, names
from sbertlib.workbook import profiles, runs

@pytest.fixture
def tiny_encoder():
    from sbertlib.model.encoder import SentenceEncoder
    return SentenceEncoder.from_pretrained("tiny-random-bert:0", device="cpu")


PAIRS = [("a man plays", "a woman plays", 0.8), ("a dog runs", "the cat eats", 0.1)] * 4


def quiet_fit(enc, out=None, **kw):
    return fit(enc, CosineSimilarityLoss(enc), PAIRS, batch_size=2, output_dir=out, show_progress_bar=False, **kw)


@pytest.mark.parametrize("field, value, message", [
    ("batch_size", 0, "batch_size must be an integer >= 1, got 0"),
    ("epochs", 1.5, "epochs must be an integer >= 1, got 1.5"),
    ("max_steps", 0, "max_steps must be an integer >= 1"),
    ("lr", 0.0, "lr must be > 0"),
    ("warmup_ratio", 1.5, "warmup_ratio must be between 0 and 1"),
    ("mixed_precision", "fp8", "mixed_precision must be None, 'bf16' or 'fp16', not 'fp8'"),
    ("checkpoint_steps", -1, "checkpoint_steps must be an integer >= 0"),
])
def test_a_bad_value_is_refused_naming_the_field(field, value, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        TrainingArguments(**{field: value})


def test_arguments_are_frozen_and_unknown_names_are_refused(tiny_encoder):
    args = TrainingArguments()
    with pytest.raises(dataclasses.FrozenInstanceError):
        args.lr = 1.0
    assert args.replace(lr=1e-3).lr == 1e-3 and args.lr == 2e-5  # a copy; the original unchanged
    with pytest.raises(TypeError, match="unknown training argument.*learning_rate.*TrainingArguments has epochs"):
        quiet_fit(tiny_encoder, learning_rate=1e-3)


def test_fit_reads_the_arguments_and_history_records_all_of_them(tiny_encoder):
    args = TrainingArguments(epochs=2, lr=1e-3, seed=7, warmup_ratio=0.5)
    history = quiet_fit(tiny_encoder, args=args, max_steps=5)  # keyword overrides change a copy
    assert history.settings == {**args.replace(batch_size=2, max_steps=5).to_dict(), "total_steps": 5,
                                "world_size": 1}
    assert len(history.records) == 5 and max(history.lrs) == pytest.approx(1e-3)
    assert history.lrs[:3] == pytest.approx([0.0, 1e-3 / 3, 2e-3 / 3])  # warm-up over ceil(0.5 * 5) = 3 steps


def test_every_argument_is_fingerprinted(tiny_encoder, tmp_path):
    """Resuming with any argument changed is refused naming it — not only the ones once copied by hand."""
    quiet_fit(tiny_encoder, tmp_path, checkpoint_steps=2, max_steps=2)
    with pytest.raises(ValueError, match=r"length_grouping: checkpoint False, now True"):
        quiet_fit(tiny_encoder, tmp_path, checkpoint_steps=2, max_steps=2, resume=True, length_grouping=True)
    with pytest.raises(ValueError, match=r"max_grad_norm: checkpoint 1.0, now 0.5"):
        quiet_fit(tiny_encoder, tmp_path, checkpoint_steps=2, max_steps=2, resume=True, max_grad_norm=0.5)


def test_a_checkpoint_missing_a_key_is_not_resumed_silently(tiny_encoder, tmp_path):
    """The comparison covers the keys of both sides: a key only the checkpoint holds (or only the new run)
    is a difference."""
    quiet_fit(tiny_encoder, tmp_path, checkpoint_steps=2, max_steps=2)
    path = tmp_path / "checkpoint" / "state.pt"
    state = torch.load(path, weights_only=True)
    state["fingerprint"]["world_size"] = 2
    state["fingerprint"]["only_in_the_checkpoint"] = 1
    torch.save(state, path)
    with pytest.raises(ValueError) as err:
        quiet_fit(tiny_encoder, tmp_path, checkpoint_steps=2, max_steps=2, resume=True)
    assert "world_size: checkpoint 2, now 1" in str(err.value)
    assert "only_in_the_checkpoint: checkpoint 1, now (not recorded)" in str(err.value)


def test_a_checkpoint_of_two_processes_is_not_resumed_by_one(tmp_path):
    """Before, a 2-process checkpoint carried world_size and a 1-process run did not, so nothing
    compared them and the run resumed with another process count."""
    from test_distributed import train, two_processes
    two_processes(tmp_path, dropout=0.0, stop_at=2)
    assert (tmp_path / "checkpoint" / "state.pt").is_file()
    with pytest.raises(ValueError, match="world_size: checkpoint 2, now 1"):
        train(str(tmp_path), dropout=0.0, resume=True)


def test_a_second_run_into_the_same_folder_is_refused(tiny_encoder, tmp_path):
    quiet_fit(tiny_encoder, tmp_path, max_steps=2)
    with pytest.raises(FileExistsError, match=f"{tmp_path} already holds final from an earlier run: pass "
                                              "resume=True"):
        quiet_fit(tiny_encoder, tmp_path, max_steps=2)
    assert quiet_fit(tiny_encoder, tmp_path, max_steps=2, resume=True).records  # no checkpoint: warns, trains


@pytest.mark.parametrize("damage", ["truncated", "not a checkpoint"])
def test_a_damaged_checkpoint_is_named(tiny_encoder, tmp_path, damage):
    quiet_fit(tiny_encoder, tmp_path, checkpoint_steps=2, max_steps=2)
    path = tmp_path / "checkpoint" / "state.pt"
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:5000])
    else:
        torch.save({"weights": torch.zeros(2)}, path)
    with pytest.raises(ValueError, match=f"cannot resume from {path}: the checkpoint is damaged or incomplete"):
        quiet_fit(tiny_encoder, tmp_path, checkpoint_steps=2, max_steps=2, resume=True)


def test_retraining_a_lesson_replaces_its_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("SBERTLIB_OUTPUT_DIR", str(tmp_path))
    smoke = profiles.get_profile("smoke")
    _, first = runs.trained_model(smoke, "stsb", show_progress_bar=False, overrides={"max_steps": 2})
    _, again = runs.trained_model(smoke, "stsb", show_progress_bar=False, overrides={"max_steps": 2}, retrain=True)
    assert len(first.records) == len(again.records) == 2 and first.losses == again.losses
    assert again.settings["max_steps"] == 2 and again.settings["lr"] == smoke.stsb.lr


def test_command_line_flags_come_from_the_fields():
    import argparse
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    given = from_namespace(parser.parse_args(["--batch-size", "8", "--no-shuffle", "--max-steps", "none",
                                              "--mixed-precision", "bf16"]))
    assert given == {"batch_size": 8, "shuffle": False, "mixed_precision": "bf16", "max_steps": None}  # none: no cap
    assert from_namespace(parser.parse_args([])) == {}  # nothing given: the profile's every setting
    off = from_namespace(parser.parse_args(["--max-grad-norm", "none"]))
    assert off == {"max_grad_norm": None} and TrainingArguments().replace(**off).max_grad_norm is None
    flags = {a.dest for a in parser._actions}
    assert set(names()) - {"save_head"} <= flags


@pytest.mark.parametrize("field,value,message", [
    ("lr", "1e-3", "lr must be a number, got '1e-3' (str)"),
    ("lr", float("nan"), "lr must be a finite number"),
    ("max_grad_norm", "1", "max_grad_norm must be a number"),
    ("seed", 1.5, "seed must be an integer, got 1.5 (float)"),
    ("seed", True, "seed must be an integer"),
    ("shuffle", "no", "shuffle must be True or False, got 'no'"),
    ("length_grouping", 1, "length_grouping must be True or False"),
])
def test_a_setting_of_the_wrong_type_is_named(field, value, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        TrainingArguments(**{field: value})


def test_train_command_takes_training_arguments(tmp_path, monkeypatch, capsys):
    """In this process (the command's main, as tests/test_cli.py calls it): `python -m sbertlib` reaching it is
    tests/test_cli.py's and tests/test_layers.py's, and a second interpreter would only import torch again."""
    from sbertlib.cli import train
    monkeypatch.setenv("SBERTLIB_OUTPUT_DIR", str(tmp_path))
    with pytest.raises(SystemExit) as bad:
        train.main(["--profile", "smoke", "--epochs", "0"])
    err = capsys.readouterr().err
    assert bad.value.code == 2 and "epochs must be an integer >= 1, got 0" in err and "Traceback" not in err
    assert train.main(["--profile", "smoke", "--objective", "sts", "--max-steps", "2", "--lr", "0.01", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["training_arguments"]["max_steps"] == 2 and result["training_arguments"]["lr"] == 0.01
    assert result["model"].endswith("seed42-lr0.01-maxsteps2/final")
