"""Profiles: choosing one (env, auto), describing it honestly, its training data, and fetch."""
from __future__ import annotations

import gzip
from dataclasses import replace

import pytest
import torch

from sbertlib import config
from sbertlib.model import architectures, backbones
from sbertlib.cli import fetch
from sbertlib.workbook import profiles
from sbertlib.data import NLIPair
from sbertlib.workbook.profiles import PROFILES, describe, get_profile, load_nli_train


@pytest.fixture
def world(monkeypatch, tmp_path):
    """Control the facts get_profile() looks at: GPU, hub, HF cache contents, data folder."""
    monkeypatch.delenv(profiles.PROFILE_ENV, raising=False)
    monkeypatch.setenv(config.DATA_DIR_ENV, str(tmp_path))
    monkeypatch.chdir(tmp_path)
    state = {"cuda": False, "hub": False, "cached": []}
    monkeypatch.setattr(torch.cuda, "is_available", lambda: state["cuda"])
    monkeypatch.setattr(config, "hub_reachable", lambda *a, **k: state["hub"])
    monkeypatch.setattr(backbones, "cached_hub_models", lambda: list(state["cached"]))
    return state


def test_env_overrides_the_automatic_choice(world, monkeypatch):
    world["hub"] = True
    monkeypatch.setenv(profiles.PROFILE_ENV, "smoke")
    p = get_profile()
    assert p.name == "smoke" and "SBERTLIB_PROFILE=smoke" in p.reason
    assert get_profile("offline").name == "offline"  # an explicit name beats the environment


@pytest.mark.parametrize("cuda, hub, expected", [(True, True, "laptop"), (True, False, "offline"),
                                                 (False, True, "laptop"), (False, False, "offline")])
def test_automatic_choice(world, cuda, hub, expected):
    """Online, laptop on whatever the machine has (a Colab GPU: minutes, not paper's hours); offline, offline."""
    world.update(cuda=cuda, hub=hub)
    p = get_profile()
    assert p.name == expected and p.reason.startswith("chosen because")
    assert p.reason.endswith("SBERTLIB_PROFILE=paper") == hub
    assert ("runs on a CUDA GPU" in p.reason) == cuda and ("runs on the CPU" in p.reason) == (not cuda)


def test_offline_with_the_small_bert_cached_chooses_laptop_and_never_paper(world):
    world.update(cuda=True, hub=False, cached=[profiles.PAPER_BERT])
    assert get_profile().name == "offline"  # paper only when named, even with its model local
    world.update(cached=[profiles.SMALL_BERT])
    p = get_profile()
    assert p.name == "laptop" and "is in the local Hugging Face cache" in p.reason


def test_offline_prefers_a_cached_plain_bert(world):
    p = get_profile("offline")
    assert (p.backbone, p.baseline_backbone, p.stand_in) == ("random-bert-2x128", "random-bert-2x128", True)
    assert (p.nli_objective, p.reference_backbone) == ("mnrl", "minilm")  # MiniLM: reference, never the start
    world["cached"] = ["some/other", profiles.SMALL_BERT]
    p = get_profile("offline")
    assert (p.backbone, p.stand_in) == (profiles.SMALL_BERT, False)
    # a real BERT runs the paper's own sequence: classification objective, its recipe, no reference
    assert (p.nli_objective, p.nli.lr, p.nli.batch_size, p.reference_backbone) == ("nli", 2e-5, 16, None)
    assert p.distill_teacher == "two-stage"  # the reference it drops cannot teach notebook 14: 05's model does
    assert "stand-in" not in describe(p) and "smaller plain BERT" in describe(p)
    world.update(cached=[profiles.SMALL_BERT, profiles.PAPER_BERT], cuda=True)
    assert get_profile("offline").backbone == profiles.PAPER_BERT  # on a GPU the paper's BERT first


def test_describe_names_stand_ins(world):
    text = describe(get_profile("offline"))
    assert text.startswith("offline profile: random-bert-2x128 (2 layers, random weights) stand-in — not the "
                           "paper's bert-base-uncased; numbers are not a reproduction of the paper")
    assert "MNRL" in text and "Reference for a fully trained sentence encoder" in text
    assert "stand-in" in describe(get_profile("smoke"))
    paper = describe(get_profile("paper"))
    assert "stand-in" not in paper and "the paper's backbone" in paper


@pytest.mark.parametrize("name", ["fast", "Paper2", ""])
def test_unknown_profile_is_a_clear_error(world, monkeypatch, name):
    with pytest.raises(ValueError, match="unknown profile .* choose one of paper, laptop, offline, smoke"):
        get_profile(name)
    monkeypatch.setenv(profiles.PROFILE_ENV, "turbo")
    with pytest.raises(ValueError, match="'turbo'"):
        get_profile()


def test_profile_settings():
    assert PROFILES["paper"].nli.batch_size == 16 and PROFILES["paper"].max_train_pairs is None
    assert PROFILES["smoke"].backbone == "tiny-random-bert" and PROFILES["smoke"].max_train_pairs == 64
    assert PROFILES["offline"].max_seq_length == 64 and PROFILES["offline"].nli_source == "offline-nli"
    assert PROFILES["laptop"].backbone == "google/bert_uncased_L-4_H-256_A-4"
    assert all(isinstance(p.stsb.epochs, int) and p.stsb.epochs >= 1 for p in PROFILES.values())
    assert PROFILES["paper"].stsb.epochs == 4 and PROFILES["paper"].stsb_train_pairs is None  # Table 2's recipe
    assert PROFILES["smoke"].eval_pairs == 200 and PROFILES["paper"].eval_pairs is None
    assert profiles.hub_models(PROFILES["laptop"]) == [profiles.SMALL_BERT]
    assert profiles.hub_models(PROFILES["offline"]) == [] and profiles.hub_models(PROFILES["smoke"]) == []


def test_offline_nli_training_pairs(shared_data):
    smoke = load_nli_train(PROFILES["smoke"], shared_data)
    assert len(smoke) == 64 and all(isinstance(p, NLIPair) for p in smoke)
    assert smoke == load_nli_train(PROFILES["smoke"], shared_data)  # deterministic
    assert len({p.label for p in smoke}) == 3
    everything = load_nli_train(replace(PROFILES["offline"], max_train_pairs=None), shared_data)
    assert len(everything) == 9842 + 9824 + 4500  # SNLI dev + test + SICK train


def test_allnli_training_pairs(tmp_path):
    rows = ["split\tdataset\tfilename\tsentence1\tsentence2\tlabel"]
    rows += [f"train\tSNLI\tx\tpremise {i}\thypothesis {i}\t{lab}"
             for i, lab in enumerate(["entailment", "neutral", "contradiction"] * 4)]
    rows += ["dev\tSNLI\tx\tdev premise\tdev hypothesis\tneutral"]
    with gzip.open(tmp_path / "AllNLI.tsv.gz", "wt") as f:
        f.write("\n".join(rows) + "\n")
    pairs = load_nli_train(replace(PROFILES["laptop"], max_train_pairs=5), tmp_path)
    assert len(pairs) == 5 and all(p.premise.startswith("premise") for p in pairs)
    assert len(load_nli_train(PROFILES["paper"], tmp_path)) == 12


def test_load_encoder_uses_the_profile_settings():
    enc = profiles.load_encoder(PROFILES["smoke"], device="cpu")
    assert enc.max_seq_length == 32 and enc.info["stand_in"]


def test_fetch_offline_fails_fast_with_a_message(world, monkeypatch, capsys):
    import time
    start = time.perf_counter()
    assert fetch.main(["--profile", "laptop"]) == 1
    assert time.perf_counter() - start < 10
    err = capsys.readouterr().err
    assert "Hugging Face Hub (https://huggingface.co) is not reachable" in err
    assert "'pair-class/train-00000-of-00001.parquet' of dataset sentence-transformers/all-nli" in err
    assert fetch.main(["--model", "someone/some-model"]) == 1


def test_fetch_offline_profile_needs_no_model_and_finds_its_data_locally(shared_data, monkeypatch, capsys):
    monkeypatch.setattr(config, "hub_reachable", lambda *a, **k: False)
    monkeypatch.setattr(backbones, "cached_hub_models", lambda: [])
    assert fetch.main(["--profile", "offline", "--data-dir", str(shared_data)]) == 0
    out = capsys.readouterr().out
    assert "[OK] model" not in out and f"[OK] data stsb: from the local data folder ({shared_data})" in out


def test_hub_check_gives_up_on_time_even_when_dns_hangs(monkeypatch):
    import socket
    import time

    from sbertlib import config
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: time.sleep(3) or [])
    config.hub_reachable.cache_clear()
    start = time.perf_counter()
    try:
        assert config.hub_reachable(timeout=0.2) is False
    finally:
        config.hub_reachable.cache_clear()
    assert time.perf_counter() - start < 1.5


def test_random_bert_shapes_and_errors():
    from sbertlib.model.backbones import BackboneNotAvailable, load_backbone
    b = load_backbone("random-bert-2x128")
    cfg = b.model.config
    assert (cfg.num_hidden_layers, cfg.hidden_size, cfg.num_attention_heads, b.stand_in) == (2, 128, 2, True)
    other = load_backbone("random-bert-2x128:1").model.embeddings.word_embeddings.weight
    assert not torch.equal(b.model.embeddings.word_embeddings.weight, other)  # the seed is honoured
    with pytest.raises(BackboneNotAvailable, match="multiple of 64"):
        load_backbone("random-bert-2x100")


def test_runs_objectives_and_the_nli_lesson(tmp_path, monkeypatch):
    """runs trains each objective with the profile's settings; the NLI lesson follows nli_objective,
    and a notebook's own run saved with save_run is what nli_model then loads."""
    from sbertlib import losses
    from sbertlib.workbook import runs
    monkeypatch.setenv("SBERTLIB_OUTPUT_DIR", str(tmp_path))
    smoke = get_profile("smoke")
    model = profiles.load_encoder(smoke)
    loss, train, _ = smoke.stage("mnrl").setup(model)
    assert isinstance(loss, losses.MultipleNegativesRankingLoss) and len(train) == 64
    assert all(len(t.__dict__) == 3 for t in train) and smoke.stage("mnrl").arguments().lr == smoke.nli.lr
    loss, train, _ = smoke.stage("two-stage").setup(model)
    assert isinstance(loss, losses.CosineSimilarityLoss)
    args = smoke.stage("two-stage").arguments(seed=3, epochs=2)
    assert (args.batch_size, args.lr, args.seed, args.epochs) == (smoke.stsb.batch_size, smoke.stsb.lr, 3, 2)
    assert smoke.stage("nli").arguments().save_head and not smoke.stage("mnrl").arguments().save_head
    assert runs.model_dir(smoke, "stsb", overrides={"lr": 0.01, "epochs": 2}).name.endswith("seed42-epochs2-lr0.01")
    with pytest.raises(ValueError, match="unknown objective 'nli\\+stsb'"):
        runs.model_dir(smoke, "nli+stsb")
    assert not runs.is_trained(smoke, "mnrl")
    history = runs.save_run(smoke, "mnrl", losses.MultipleNegativesRankingLoss(model), [1.0, 0.5, 0.25], 3.0,
                            lr=1e-3, warmup_ratio=0.5)
    assert history.lrs == [0.0, 5e-4, 1e-3]  # fit's schedule: warm-up 2 of 3
    assert not runs.is_trained(smoke, "mnrl")  # a warm-up of 0.5 is not the profile's recipe (0.1)
    history = runs.save_run(smoke, "mnrl", losses.MultipleNegativesRankingLoss(model), [1.0, 0.5, 0.25], 3.0,
                            lr=smoke.nli.lr)
    assert history.lrs == [0.0, smoke.nli.lr, smoke.nli.lr / 2] and runs.is_trained(smoke, "mnrl")
    loaded, loaded_history = runs.nli_model(smoke)
    assert loaded_history.losses == [1.0, 0.5, 0.25]
    probe = ["A dog runs."]
    assert torch.allclose(torch.as_tensor(loaded.encode(probe)), torch.as_tensor(model.encode(probe)))


def test_inference_precision_is_bf16_only_where_the_hardware_has_it():
    from sbertlib.model import hardware
    from sbertlib.workbook import profiles
    smoke, offline = profiles.get_profile("smoke"), profiles.get_profile("offline")
    assert profiles.inference_precision(smoke, "cpu") == "fp32"  # tests give the same numbers on every machine
    assert profiles.inference_precision(offline, "cpu") == ("bf16" if hardware.bf16_is_fast("cpu") else "fp32")
    assert profiles.load_encoder(smoke).precision == "fp32"
    offline_encoder = profiles.with_precision(profiles.load_encoder(smoke), offline)
    assert offline_encoder.precision == "auto"
    assert offline_encoder.resolved_precision() == profiles.inference_precision(offline, "cpu")
    assert profiles.inference_precision(offline, "cpu", pooling="cls") == "fp32"
    said = profiles.describe(offline)
    assert f"Encoding in {profiles.inference_precision(offline)}" in said and "CPU" in said


def test_expected_time_is_a_measured_build_or_says_how_to_estimate():
    from sbertlib.workbook import costs
    offline = costs.expected_time(get_profile("offline"))
    assert offline.startswith("offline: a whole build took 11 min 00 s on a 2-core AMD EPYC")
    assert "(every notebook of that day (00-13) and the site, offline)" in offline
    paper = costs.expected_time(get_profile("paper"))
    assert "no whole build measured" in paper and "python -m sbertlib estimate --profile paper" in paper


# Every profile's training arguments for every objective, recorded just before the profile held one
# TrainingArguments per stage (issue 28): the refactor, and any later one, must keep them exactly. A row is
# stage(objective).arguments().to_dict()'s values in TRAINING_FIELDS' order; "offline+small-bert" and
# "offline+bert-base" are offline with that real BERT in the Hugging Face cache (_offline_backbone, on a CPU).
TRAINING_FIELDS = ("epochs", "batch_size", "lr", "weight_decay", "warmup_ratio", "max_grad_norm", "seed", "max_steps",
                   "shuffle", "length_grouping", "mixed_precision", "evaluation_steps", "checkpoint_steps", "save_head")
RECORDED_TRAINING_ARGUMENTS = {
    ('paper', 'nli'): (1, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 1000, 0, True),
    ('paper', 'mnrl'): (1, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 1000, 0, False),
    ('paper', 'stsb'): (4, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 1000, 0, False),
    ('paper', 'two-stage'): (4, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 1000, 0, False),
    ('paper', 'distill'): (3, 128, 0.001, 0.01, 0.1, 1.0, 42, None, True, True, None, 1000, 0, False),
    ('paper', 'distill-stsb'): (4, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 1000, 0, False),
    ('laptop', 'nli'): (1, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, True),
    ('laptop', 'mnrl'): (1, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, False),
    ('laptop', 'stsb'): (2, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, False),
    ('laptop', 'two-stage'): (2, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, False),
    ('laptop', 'distill'): (3, 128, 0.001, 0.01, 0.1, 1.0, 42, None, True, True, None, 250, 0, False),
    ('laptop', 'distill-stsb'): (2, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, False),
    ('offline', 'nli'): (4, 64, 0.001, 0.01, 0.1, 1.0, 42, None, True, True, None, 0, 0, True),
    ('offline', 'mnrl'): (4, 64, 0.001, 0.01, 0.1, 1.0, 42, None, True, True, None, 0, 0, False),
    ('offline', 'stsb'): (4, 32, 0.001, 0.01, 0.1, 1.0, 42, None, True, True, None, 0, 0, False),
    ('offline', 'two-stage'): (4, 32, 0.001, 0.01, 0.1, 1.0, 42, None, True, True, None, 0, 0, False),
    ('offline', 'distill'): (3, 128, 0.001, 0.01, 0.1, 1.0, 42, None, True, True, None, 0, 0, False),
    ('offline', 'distill-stsb'): (4, 32, 0.001, 0.01, 0.1, 1.0, 42, None, True, True, None, 0, 0, False),
    ('smoke', 'nli'): (1, 16, 0.001, 0.01, 0.1, 1.0, 42, None, True, False, None, 2, 0, True),
    ('smoke', 'mnrl'): (1, 16, 0.001, 0.01, 0.1, 1.0, 42, None, True, False, None, 2, 0, False),
    ('smoke', 'stsb'): (1, 8, 0.001, 0.01, 0.1, 1.0, 42, None, True, False, None, 2, 0, False),
    ('smoke', 'two-stage'): (1, 8, 0.001, 0.01, 0.1, 1.0, 42, None, True, False, None, 2, 0, False),
    ('smoke', 'distill'): (1, 128, 0.001, 0.01, 0.1, 1.0, 42, None, True, True, None, 2, 0, False),
    ('smoke', 'distill-stsb'): (1, 8, 0.001, 0.01, 0.1, 1.0, 42, None, True, False, None, 2, 0, False),
    ('offline+small-bert', 'nli'): (1, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, True),
    ('offline+small-bert', 'mnrl'): (1, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, False),
    ('offline+small-bert', 'stsb'): (4, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, False),
    ('offline+small-bert', 'two-stage'): (4, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, False),
    ('offline+small-bert', 'distill'): (3, 128, 0.001, 0.01, 0.1, 1.0, 42, None, True, True, None, 250, 0, False),
    ('offline+small-bert', 'distill-stsb'): (4, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, False),
    ('offline+bert-base', 'nli'): (1, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, True),
    ('offline+bert-base', 'mnrl'): (1, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, False),
    ('offline+bert-base', 'stsb'): (4, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, False),
    ('offline+bert-base', 'two-stage'): (4, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, False),
    ('offline+bert-base', 'distill'): (3, 128, 0.001, 0.01, 0.1, 1.0, 42, None, True, True, None, 250, 0, False),
    ('offline+bert-base', 'distill-stsb'): (4, 16, 2e-05, 0.01, 0.1, 1.0, 42, None, True, False, None, 250, 0, False),
}


@pytest.mark.parametrize("dry_run", [False, True])
@pytest.mark.parametrize("variant", sorted({v for v, _ in RECORDED_TRAINING_ARGUMENTS}))
def test_every_profiles_training_arguments_are_as_recorded(world, variant, dry_run):
    """Each profile (and its dry run: the same recipe on random weights) trains every objective exactly as
    recorded in RECORDED_TRAINING_ARGUMENTS."""
    name, _, cached = variant.partition("+")
    world["cached"] = {"": [], "small-bert": [profiles.SMALL_BERT], "bert-base": [profiles.PAPER_BERT]}[cached]
    profile = get_profile(name, dry_run=dry_run)
    real = {"small-bert": profiles.SMALL_BERT, "bert-base": profiles.PAPER_BERT}.get(cached)
    assert real is None or architectures.hub_name(profile.backbone) == real
    for (v, objective), row in RECORDED_TRAINING_ARGUMENTS.items():
        if v == variant:
            got = profile.stage(objective).arguments().to_dict()
            assert tuple(got) == TRAINING_FIELDS and got == dict(zip(TRAINING_FIELDS, row)), (variant, objective)
