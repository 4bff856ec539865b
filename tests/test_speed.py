"""Speed measurement helpers: honest timing, padding accounting, batching modes, cross vs bi."""
from __future__ import annotations

import numpy as np
import pytest

from sbertlib.evaluation import speed
from sbertlib.model.encoder import SentenceEncoder


@pytest.fixture(scope="module")
def tiny():
    return SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")


SENTS = ["short one", "a somewhat longer sentence that goes on for a while longer than the rest",
         "mid sized sentence here", "x", "another fairly long sentence with quite a few words in it"] * 4


def test_measure_counts_runs_and_computes_rate():
    calls = []
    t = speed.measure("x", lambda: calls.append(1), n_sentences=10, repeats=3, warmup=2)
    assert len(calls) == 5 and len(t.seconds) == 3
    assert t.sent_per_s == pytest.approx(10 / t.median_s)


def test_padding_share_matches_hand_count(tiny):
    """Token lengths 4, 16, 6, 3, 13, four times over, in batches of 4. In input order the batches are
    (4 16 6 3) (13 4 16 6) (3 13 4 16) (6 3 13 4) (16 6 3 13): 168 real tokens in 64 + 64 + 64 + 52 + 64
    = 308 slots. Sorted by length, each batch holds four of one length: no padding at all."""
    assert [len(x) for x in tiny.tokenizer(SENTS[:5])["input_ids"]] == [4, 16, 6, 3, 13]
    assert speed.padding_share(tiny, SENTS, 4, False) == pytest.approx(1 - 168 / 308)
    assert speed.padding_share(tiny, SENTS, 4, True) == 0.0


def test_token_budget_batches_respect_budget(tiny):
    for _, feats in tiny.batches(SENTS, 4, max_tokens=40):
        rows, width = feats["input_ids"].shape
        assert rows * width <= 40 or rows == 1
    a = tiny.encode(SENTS)
    b = tiny.encode(SENTS, max_tokens=40)
    assert np.allclose(a, b, atol=1e-5)


def test_the_speed_lab_times_the_real_cross_encoder(tiny, monkeypatch):
    """CrossEncoder.predict on random pairs of the sentences: the encoder's network as a cross-encoder
    (pairs up to twice its length), or the CrossEncoder given; 1 warm-up + ``repeats`` timed calls."""
    from sbertlib.model.cross_encoder import CrossEncoder
    asked, real = [], CrossEncoder.predict

    def spy(self, pairs, batch_size=32, **kw):
        asked.append((self, list(pairs), batch_size))
        return real(self, pairs, batch_size=batch_size, **kw)
    monkeypatch.setattr(CrossEncoder, "predict", spy)
    assert speed.cross_encoder_pairs_per_s(tiny, SENTS, n_pairs=8, batch_size=4, repeats=2) > 0
    assert len(asked) == 3 and len({id(m) for m, _, _ in asked}) == 1
    timed = asked[0][0]
    assert isinstance(timed, CrossEncoder) and timed.max_seq_length == 2 * tiny.max_seq_length
    assert all(len(p) == 8 and b == 4 and all(a in SENTS and c in SENTS for a, c in p) for _, p, b in asked)
    own = CrossEncoder.from_pretrained("tiny-random-bert", max_seq_length=24)
    asked.clear()
    res = speed.cross_vs_bi(tiny, SENTS, n=20, cross_pairs=8, cross_encoder=own)
    assert asked and all(m is own for m, _, _ in asked) and res["pairs"] == 190


def test_token_lengths_are_the_lengths_encode_runs(tiny):
    short = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu", max_seq_length=8)
    lengths = speed.token_lengths(short, SENTS)
    assert max(lengths) == 8 and lengths == short.tokenize(SENTS)["attention_mask"].sum(1).tolist()


def test_corpora(shared_data):
    from sbertlib.data.corpora import corpus
    short = corpus("stsb", None, shared_data)
    varied = corpus("varied", 5000, shared_data)
    assert len(short) > 2000 and len(varied) == 5000
    assert np.std([len(s.split()) for s in varied]) > np.std([len(s.split()) for s in short])
    with pytest.raises(ValueError, match="unknown corpus"):
        corpus("nope")
    assert not hasattr(speed, "corpus")  # the speed lab times; it does not load corpora


def test_precision_choice_lives_in_model_precision():
    from sbertlib.model import precision
    assert not hasattr(speed, "pick_precision") and not hasattr(speed, "available_precisions")
    assert precision.available_precisions("cpu") == ("fp32", "bf16", "int8")


def test_speedlab_widget(tiny):
    from sbertlib.workbook.widgets import SpeedLab
    lab = SpeedLab(tiny, {"toy": SENTS}, n=20, repeats=1, batch_size=4)
    assert ("toy", "smart batching", 4) in lab.results and "sentences/s" in lab.status.value
    lab.mode.value = "input order"
    lab.batch.value = 8
    assert ("toy", "input order", 8) in lab.results
    assert lab.results[("toy", "input order", 8)]["padding_share"] > 0
    snapshot = lab._repr_mimebundle_()["text/html"]   # what make workbook's HTML page shows
    assert "input order, batch 8" in snapshot and "data:image/png;base64," in snapshot


def test_nb11_checks():
    from sbertlib.workbook.lessons import ExerciseError, nb11

    def right(lengths, bs, sort):
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i]) if sort else list(range(len(lengths)))
        slots = real = 0
        for s in range(0, len(order), bs):
            b = [lengths[i] for i in order[s:s + bs]]
            slots, real = slots + max(b) * len(b), real + sum(b)
        return 1 - real / slots

    nb11.check_padding_share(right)
    with pytest.raises(ExerciseError):
        nb11.check_padding_share(lambda lengths, bs, sort: right(lengths, bs, not sort))  # ignores sort
    with pytest.raises(ExerciseError):
        nb11.check_padding_share(lambda lengths, bs, sort: 1 - sum(lengths) / (max(lengths) * len(lengths)))
    with pytest.raises(ExerciseError):
        nb11.check_padding_share(None)


# ----------------------------------------------------------------------------- GPU synchronisation, memory
@pytest.fixture
def gpus(monkeypatch):
    """Fake CUDA and mps: ``gpus(cuda=..., mps=...)``; returns the events list that runs and syncs append to."""
    import torch
    events: list[str] = []

    def make(cuda: bool = False, mps: bool = False) -> list[str]:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
        monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: events.append("cuda sync"))
        monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
        monkeypatch.setattr(torch.mps, "synchronize", lambda: events.append("mps sync"))
        return events
    return make


def test_timing_waits_for_the_mac_gpu_around_every_timed_run(gpus):
    events = gpus(mps=True)
    t = speed.measure("x", lambda: events.append("run"), n_sentences=1, repeats=2, warmup=1, device="mps")
    assert events == ["run", "mps sync", "run", "mps sync", "mps sync", "run", "mps sync"]
    assert len(t.seconds) == 2


@pytest.mark.parametrize("cuda, mps, device, expected", [
    (False, True, None, ["mps sync", "run", "mps sync"]),      # a Mac, no device named: its GPU is waited for
    (True, False, "cuda", ["cuda sync", "run", "cuda sync"]),
    (True, False, None, ["cuda sync", "run", "cuda sync"]),
    (False, True, "cpu", ["run"]),                             # a CPU run has nothing to wait for
    (True, True, "mps", ["mps sync", "run", "mps sync"]),     # only the device's own GPU
    (False, False, None, ["run"]),
])
def test_timing_synchronises_the_gpu_it_runs_on(gpus, cuda, mps, device, expected):
    events = gpus(cuda=cuda, mps=mps)
    speed.measure("x", lambda: events.append("run"), n_sentences=1, repeats=1, warmup=0, device=device)
    assert events == expected


def test_bi_encoder_timing_synchronises_mps(gpus):
    import types

    import torch
    events = gpus(mps=True)
    on_mps = types.SimpleNamespace(device=torch.device("mps"),
                                   encode=lambda s, **k: events.append("encode") or torch.eye(len(s)))
    speed.bi_encoder_most_similar_pair(on_mps, ["a", "b", "c"])
    assert events == ["mps sync", "encode", "mps sync"]


def test_mps_memory_is_labelled_as_what_it_is(monkeypatch):
    import torch
    monkeypatch.setattr(torch.mps, "current_allocated_memory", lambda: 3 * 2 ** 20)
    monkeypatch.setattr(torch.mps, "driver_allocated_memory", lambda: 5 * 2 ** 20)
    used = speed.memory_used("mps")
    assert used == {"mps_allocated_mib": 3.0, "mps_driver_mib": 5.0}  # no "peak": mps keeps no peak
    note = speed.memory_note(used)
    assert "3 MiB in tensors" in note and "5 MiB" in note and "not a peak" in note
    assert speed.memory_used("cpu") == {} and speed.memory_note({}) == ""
    assert speed.memory_note({"peak_memory_mib": 7.0}) == "peak 7 MiB"


def test_environment_names_the_device_the_timing_ran_on(gpus):
    gpus(cuda=False, mps=True)
    assert speed.environment()["device_type"] == "mps" and "mps" in speed.environment()["device"]
    assert speed.environment("cpu")["device"].startswith("CPU (")


def test_encoder_comparison_times_each_encoder_at_each_precision_and_sizes_the_saved_ones():
    """Notebook 14's speed table: one row per (encoder, precision), parameters counted, and the saved folder's
    size only for the encoders asked for (a bigger model saves a bigger folder)."""
    import math

    from sbertlib.evaluation import speed
    from sbertlib.model.encoder import SentenceEncoder
    small = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu", max_seq_length=16)
    wide = SentenceEncoder.from_pretrained("random-bert-2x128", device="cpu", max_seq_length=16)
    table = speed.encoder_comparison({"small": small, "wide": wide, "unsaved": small}, ["A dog runs.", "Two cats."] * 4,
                                     ["fp32", "bf16"], batch_size=4, repeats=1, saved=["small", "wide"])
    assert list(table.index) == [(m, p) for m in ("small", "wide", "unsaved") for p in ("fp32", "bf16")]
    assert (table["sentences/s"] > 0).all()
    assert table.loc[("small", "fp32"), "parameters (M)"] == sum(p.numel() for p in small.parameters()) / 1e6
    assert table.loc[("wide", "fp32"), "saved folder (MB)"] > table.loc[("small", "fp32"), "saved folder (MB)"] > 0
    assert math.isnan(table.loc[("unsaved", "bf16"), "saved folder (MB)"])


def test_sts_suite_per_profile():
    from sbertlib import data
    from sbertlib.workbook import runs
    from sbertlib.workbook.profiles import PROFILES
    assert runs.sts_suite(PROFILES["smoke"]) == (["sts12", "stsb-test"], {"sts12": 200, "stsb-test": 200})
    datasets, caps = runs.sts_suite(PROFILES["offline"])
    assert datasets == list(data.STS_DATASETS) and caps["stsb-test"] is None and caps["sts12"] == 500
    assert set(runs.sts_suite(PROFILES["laptop"])[1].values()) == {None}
