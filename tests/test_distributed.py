"""fit() on two CPU processes (gloo): same weights as one process on the same global batches — for the
classification and regression objectives; for in-batch negatives (MNRL) the documented per-shard
problem — and exact resume."""
from __future__ import annotations

import os
import socket

import pytest
import torch
import torch.multiprocessing as mp
from transformers import BertConfig, BertModel

from sbertlib.data import NLIPair, STSPair
from sbertlib.losses import CosineSimilarityLoss, MultipleNegativesRankingLoss, SoftmaxLoss
from sbertlib.model.backbones import bert_uncased_tokenizer
from sbertlib.model.encoder import SentenceEncoder
from sbertlib.training import distributed, fit

WORDS = "a man woman dog cat is plays eats runs on the in park guitar food red big two".split()
LABELS = ("entailment", "neutral", "contradiction")


def data(n: int = 21) -> list[NLIPair]:
    """21 pairs in batches of 8: every epoch ends on a batch of 5, which two ranks split 3 + 2, so each
    shard's loss must be weighted by its share of the batch to match one process."""
    import random
    rng = random.Random(0)
    return [NLIPair(" ".join(rng.choices(WORDS, k=rng.randint(3, 9))), " ".join(rng.choices(WORDS, k=rng.randint(2, 7))),
                    LABELS[i % 3]) for i in range(n)]


def records(kind: str) -> list:
    """The same 21 sentence pairs as each objective takes them: NLI pairs (classification), texts
    only (anchor, positive) for in-batch negatives, STS pairs with a 0–5 score (regression)."""
    pairs = data()
    if kind == "softmax":
        return pairs
    if kind in ("mnrl", "mnrl-per-shard"):
        return [(p.premise, p.hypothesis) for p in pairs]
    return [STSPair(p.premise, p.hypothesis, float(i % 6)) for i, p in enumerate(pairs)]


class PerShardMNRL(MultipleNegativesRankingLoss):
    """What 2 processes compute for MNRL, in one process: the global batch cut into the ranks' shards
    (``distributed.shard``), each shard's in-batch-negatives loss over its own rows only, weighted by
    its share of the batch (the weighting ``train_step`` gives each rank before DDP averages)."""

    def loss_from_embeddings(self, embeddings, labels=None):
        rows = embeddings[0].shape[0]
        total = 0.0
        for rank in range(2):
            ids = distributed.shard(range(rows), rank, 2)
            total = total + len(ids) / rows * super().loss_from_embeddings([e[ids] for e in embeddings])
        return total


LOSSES = {"softmax": SoftmaxLoss, "mnrl": MultipleNegativesRankingLoss, "mnrl-per-shard": PerShardMNRL,
          "cosine": CosineSimilarityLoss}


def encoder(dropout: float) -> SentenceEncoder:
    cfg = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=64, hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout)
    torch.manual_seed(0)
    return SentenceEncoder(BertModel(cfg, add_pooling_layer=False), bert_uncased_tokenizer(), device="cpu")


def train(out: str, dropout: float, stop_at: int | None = None, resume: bool = False, kind: str = "softmax") -> dict:
    torch.set_num_threads(1)
    enc = encoder(dropout)
    loss = LOSSES[kind](enc)

    def stop(step, history):
        if step == stop_at:
            raise KeyboardInterrupt

    history = fit(enc, loss, records(kind), batch_size=8, epochs=2, lr=1e-3, seed=3, output_dir=out, checkpoint_steps=2,
                  resume=resume, show_progress_bar=False, callback=stop if stop_at else None)
    return {**{k: v.clone() for k, v in loss.state_dict().items()},
            "world_size": torch.tensor(history.settings.get("world_size", 1)),
            "step_losses": torch.tensor(history.losses, dtype=torch.float64)}


def _rank(rank: int, world: int, port: int, out: str, dropout: float, stop_at, resume: bool, kind: str) -> None:
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    import warnings
    with warnings.catch_warnings(record=True) as caught:  # (the interrupted run warns that it stopped)
        warnings.simplefilter("always")
        weights = train(out, dropout, stop_at, resume, kind)
    weights["negatives_warnings"] = torch.tensor(sum("in-batch negatives each" in str(w.message) for w in caught))
    if rank == 0:
        torch.save(weights, os.path.join(out, "weights.pt"))
    torch.distributed.destroy_process_group()


def two_processes(out, dropout: float, stop_at=None, resume: bool = False, kind: str = "softmax") -> dict:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(_rank, args=(2, port, str(out), dropout, stop_at, resume, kind), nprocs=2, join=True)
    return torch.load(os.path.join(out, "weights.pt"))


def assert_same(a: dict, b: dict, atol: float) -> None:
    a, b = ({k: v for k, v in d.items() if k != "negatives_warnings"} for d in (a, b))
    assert a.keys() == b.keys()
    worst = max(float((a[k].float() - b[k].float()).abs().max()) for k in a if k != "step_losses")
    assert worst <= atol, worst


def weights_apart(a: dict, b: dict) -> float:
    return max(float((a[k] - b[k]).abs().max()) for k in a if k not in ("world_size", "step_losses", "negatives_warnings"))


@pytest.mark.integration
def test_two_processes_match_one_on_the_same_global_batches(tmp_path):
    one = train(str(tmp_path / "one"), dropout=0.0)
    two = two_processes(tmp_path / "two", dropout=0.0)
    assert int(one.pop("world_size")) == 1 and int(two.pop("world_size")) == 2  # it really ran as two ranks
    assert_same(one, two, atol=1e-5)
    assert torch.allclose(one["step_losses"], two["step_losses"], atol=1e-5)  # step by step, the global batch's loss
    start = SoftmaxLoss(encoder(0.0)).state_dict()  # the same seeded start as train()
    assert max(float((two[k] - start[k]).abs().max()) for k in start) > 1e-3  # it trained


@pytest.mark.integration
def test_two_processes_match_one_with_the_regression_objective(tmp_path):
    """CosineSimilarityLoss is per pair, like SoftmaxLoss: two ranks give one process's steps and weights."""
    one = train(str(tmp_path / "one"), dropout=0.0, kind="cosine")
    two = two_processes(tmp_path / "two", dropout=0.0, kind="cosine")
    assert int(one.pop("world_size")) == 1 and int(two.pop("world_size")) == 2
    assert len(two["step_losses"]) == 6  # 2 epochs of 21 pairs in batches of 8, the last of 5 split 3 + 2
    assert torch.allclose(one["step_losses"], two["step_losses"], atol=1e-5)
    assert_same(one, two, atol=1e-5)
    start = CosineSimilarityLoss(encoder(0.0)).state_dict()
    assert weights_apart(two, start) > 1e-3  # it trained


@pytest.mark.integration
def test_in_batch_negatives_under_two_processes_are_each_shards_own(tmp_path):
    """MNRL's negatives are the other positives *of the batch a rank holds*: under 2 processes each anchor
    competes with its shard's positives only (README, "Training on several GPUs"), so the run equals, step by
    step, one process training on the shard-wise loss — and differs from one process on the whole batch."""
    two = two_processes(tmp_path / "two", dropout=0.0, kind="mnrl")
    per_shard = train(str(tmp_path / "per-shard"), dropout=0.0, kind="mnrl-per-shard")
    whole = train(str(tmp_path / "whole"), dropout=0.0, kind="mnrl")
    assert int(two.pop("world_size")) == 2 and int(per_shard.pop("world_size")) == 1
    assert int(two.pop("negatives_warnings")) == 1  # fit says so, once, on rank 0
    assert torch.allclose(per_shard["step_losses"], two["step_losses"], atol=1e-5)
    assert_same(per_shard, two, atol=1e-5)
    # one process on the whole batch has 7 negatives per anchor, not 3: another loss from the first step on
    assert float((whole["step_losses"] - two["step_losses"]).abs().min()) > 0.1, (whole["step_losses"], two["step_losses"])
    assert weights_apart(whole, two) > 1e-3


@pytest.mark.integration
def test_two_processes_resume_exactly(tmp_path):
    whole = two_processes(tmp_path / "whole", dropout=0.1)
    two_processes(tmp_path / "cut", dropout=0.1, stop_at=3)  # checkpoint at step 2, stops at 3
    saved = torch.load(tmp_path / "cut" / "checkpoint" / "state.pt", weights_only=True)
    assert saved["step"] == 2 and len(saved["other_ranks_rng"]) == 1  # rank 1's random state is in the one file
    resumed = two_processes(tmp_path / "cut", dropout=0.1, resume=True)
    assert_same(whole, resumed, atol=0.0)


def test_shards_cover_the_batch_and_small_last_batches_are_refused():
    ids = list(range(7))
    assert [distributed.shard(ids, r, 3) for r in range(3)] == [[0, 1, 2], [3, 4], [5, 6]]
    from sbertlib.training.loop import _check_world
    _check_world(24, 8, 2)
    with pytest.raises(ValueError, match="last batch of 1"):
        _check_world(25, 8, 2)


@pytest.mark.integration
def test_the_training_command_under_torchrun(tmp_path, shared_data):
    """What the README shows for N GPUs, on 2 CPU processes: one report (rank 0's), one saved model."""
    import json
    import subprocess
    import sys
    env = {**os.environ, "SBERTLIB_DATA_DIR": str(shared_data), "SBERTLIB_OUTPUT_DIR": str(tmp_path),
           "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "-m", "sbertlib.train",
                           "--profile", "smoke", "--json"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1
    report = json.loads(lines[0])
    assert report["profile"] == "smoke" and report["stsb_test_after"] != report["stsb_test_before"]
    history = json.loads((tmp_path / "smoke" / "mnrl-tiny-random-bert-mean-seed42" / "history.json").read_text())
    assert history["settings"]["world_size"] == 2


def test_each_torchrun_process_gets_its_own_gpu(monkeypatch):
    from sbertlib import config
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert config.pick_device() == torch.device("cuda:1")
    with pytest.raises(RuntimeError, match="LOCAL_RANK=1 has its model on cuda:0"):
        distributed._check_own_gpu(torch.device("cuda:0"))
    distributed._check_own_gpu(torch.device("cuda:1"))


def test_rank_falls_back_to_torchruns_variable_before_a_group_is_joined(monkeypatch):
    monkeypatch.setenv("RANK", "1")
    assert distributed.rank() == 1 and distributed.world_size() == 1
