"""Dry runs: the real architectures with random weights, stand-in NLI data at full size, said loudly."""
from __future__ import annotations

import gzip
import json
from dataclasses import replace
from pathlib import Path

import pytest

from sbertlib.data import NLIPair, Triplet
from sbertlib.model import architectures, backbones
from sbertlib.workbook.publish import build as workbook_build
from sbertlib.workbook import profiles, runs
from sbertlib.workbook.publish.notebooks import RunResult
from sbertlib.workbook.profiles import PROFILES, get_profile, load_nli_train


@pytest.fixture
def no_dry_env(monkeypatch):
    monkeypatch.delenv(profiles.DRY_RUN_ENV, raising=False)
    monkeypatch.delenv(profiles.PROFILE_ENV, raising=False)


def test_random_init_backbones_have_the_real_architectures():
    small = backbones.load_backbone("random-init:google/bert_uncased_L-4_H-256_A-4")
    cfg = small.model.config
    assert (cfg.num_hidden_layers, cfg.hidden_size, cfg.num_attention_heads, cfg.intermediate_size) == (4, 256, 4, 1024)
    assert (cfg.vocab_size, cfg.max_position_embeddings, cfg.type_vocab_size) == (30522, 512, 2)
    # the hub model's 11,170,560 parameters less its pooler (256 x 256 + 256), which sentence embeddings leave out
    assert sum(p.numel() for p in small.model.parameters()) == 11_170_560 - 65_792
    assert small.stand_in and small.max_seq_length == 512 and len(small.tokenizer) == 30522
    base = architectures.random_model("random-init:bert-base-uncased")
    assert (base.config.num_hidden_layers, base.config.hidden_size, base.config.intermediate_size) == (12, 768, 3072)
    assert sum(p.numel() for p in base.parameters()) == 109_482_240 - 590_592  # bert-base-uncased less its pooler
    with pytest.raises(KeyError, match="no architecture constant"):
        architectures.random_model("random-init:roberta-base")


def test_the_word_tokenizer_counts_tokens_as_bert_base_uncased_does():
    bert, words = backbones.bert_uncased_tokenizer(), architectures.word_tokenizer()
    assert all(len(bert(w, add_special_tokens=False)["input_ids"]) == 1 for w in architectures.WORDS)
    text = "The man is playing with a dog in the park."
    assert len(words(text)["input_ids"]) == len(bert(text)["input_ids"]) == 13
    assert words.unk_token_id not in words(text)["input_ids"]


def test_dry_run_profile_swaps_hub_backbones_and_says_so(no_dry_env, monkeypatch):
    real = get_profile("laptop")
    assert not real.dry_run and real.backbone == profiles.SMALL_BERT and "DRY RUN" not in profiles.describe(real)
    monkeypatch.setenv(profiles.DRY_RUN_ENV, "1")
    for name, hub in (("laptop", profiles.SMALL_BERT), ("paper", profiles.PAPER_BERT)):
        p = get_profile(name)
        assert p.dry_run and p.backbone == p.baseline_backbone == f"random-init:{hub}"
        assert not p.stand_in  # the code paths stay those of a real BERT
        text = profiles.describe(p)
        assert text.startswith(f"*** {profiles.DRY_RUN_BANNER} ***") and "RANDOM weights" in text
        assert "DRY RUN" in p.reason and profiles.hub_models(p) == []
    assert "the paper's backbone" in profiles.describe(get_profile("paper"))
    assert not get_profile("laptop", dry_run=False).dry_run  # an explicit argument beats the environment
    assert get_profile("offline").backbone == "random-bert-2x128"  # already random: unchanged


def test_dry_run_allnli_is_the_offline_pairs_at_full_size(shared_data, no_dry_env):
    laptop = get_profile("laptop", dry_run=True)
    pairs = load_nli_train(laptop, shared_data)
    assert len(pairs) == 20_000 and all(isinstance(p, NLIPair) for p in pairs[:50])
    offline = {(p.premise, p.hypothesis) for p in load_nli_train(replace(PROFILES["offline"], max_train_pairs=None),
                                                                 shared_data)}
    assert {(p.premise, p.hypothesis) for p in pairs} <= offline  # real sentences of the offline data
    triplets = load_nli_train(laptop, shared_data, triplets=True)
    assert len(triplets) == 20_000 and isinstance(triplets[0], Triplet)
    paper = load_nli_train(get_profile("paper", dry_run=True), shared_data)
    assert len(paper) == profiles.ALLNLI_TRAIN_PAIRS and paper[:5] == load_nli_train(
        get_profile("paper", dry_run=True), shared_data)[:5]


def test_without_dry_run_the_real_allnli_is_read(monkeypatch, no_dry_env):
    def load_allnli(split, data_dir=None):
        raise LookupError(f"AllNLI {split} asked for")
    monkeypatch.setattr("sbertlib.data.load_allnli", load_allnli)
    with pytest.raises(LookupError, match="AllNLI train asked for"):
        load_nli_train(get_profile("laptop"))


def _allnli(folder: Path, premises: int) -> None:
    rows = ["split\tdataset\tfilename\tsentence1\tsentence2\tlabel"]
    for i in range(premises):
        rows += [f"train\tSNLI\tx\tpremise {i}\t{lab} {i}\t{lab}" for lab in ("entailment", "neutral", "contradiction")]
    rows += [f"test\tSNLI\tx\ttest premise\t{lab}\t{lab}" for lab in ("entailment", "contradiction")]
    with gzip.open(folder / "AllNLI.tsv.gz", "wt") as f:
        f.write("\n".join(rows) + "\n")


def test_laptop_triplets_come_from_all_of_allnli_then_are_cut(tmp_path):
    """Notebook 06 on laptop: 20,000 triplets, not the few that 20,000 random pairs happen to hold."""
    _allnli(tmp_path, premises=200)
    laptop = replace(PROFILES["laptop"], max_train_pairs=100)
    train, heldout, name = profiles.triplet_pools(laptop, tmp_path)
    assert len(train) == 100 and all(isinstance(t, Triplet) for t in train)
    assert all(t.positive.startswith("entailment") and t.negative.startswith("contradiction") for t in train)
    assert len(heldout) == 1 and name == "AllNLI test"


def test_triplet_pools_offline_and_dry_run(shared_data):
    train, heldout, name = profiles.triplet_pools(PROFILES["offline"], shared_data)
    assert name == "SNLI test" and len(train) > 3000 and len(heldout) > 3000
    train, heldout, name = profiles.triplet_pools(get_profile("laptop", dry_run=True), shared_data)
    assert len(train) == 20_000 and name.startswith("SNLI test (dry run")


def test_dry_run_models_go_to_their_own_folder(tmp_path, monkeypatch, no_dry_env):
    monkeypatch.delenv(runs.OUTPUT_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert runs.output_dir() == tmp_path / "sbert-workbook" / "runs"
    monkeypatch.setenv(profiles.DRY_RUN_ENV, "1")
    assert runs.output_dir().parts[-2:] == ("runs", "dry-run")


def test_build_passes_the_dry_run_to_the_kernels_and_labels_the_index(tmp_path, monkeypatch, no_dry_env):
    seen = []

    def execute(path, timeout, env):
        seen.append(dict(env))
        import nbformat
        return nbformat.v4.new_notebook(), RunResult(path, 1.5, None, ["a headline"])
    monkeypatch.setattr(workbook_build.notebooks, "execute", execute)
    monkeypatch.setattr("sbertlib.workbook.publish.site.build_site", lambda *a, **k: tmp_path / "site" / "index.html")
    from sbertlib.cli import build as cli_build
    monkeypatch.setattr("sbertlib.workbook.publish.build.data_ready", lambda: True)
    assert cli_build.main(["--out", str(tmp_path), "--profile", "laptop", "--dry-run", "--only", "00"]) == 0
    assert seen[0][profiles.DRY_RUN_ENV] == "1" and seen[0][profiles.PROFILE_ENV] == "laptop"
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["dry_run"] is True and profiles.DRY_RUN_BANNER in index["profile"]
    seen.clear()
    assert cli_build.main(["--out", str(tmp_path), "--profile", "laptop", "--only", "00"]) == 0
    assert seen[0][profiles.DRY_RUN_ENV] == "" and json.loads((tmp_path / "index.json").read_text())["dry_run"] is False


def test_notebook_06_takes_its_triplets_from_triplet_pools():
    import nbformat
    nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / "06_triplet_objective.ipynb", as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "triplet_pools(profile, make_triplets=nli_to_triplets)" in code and "nli_triplets(load_nli_train(" not in code
