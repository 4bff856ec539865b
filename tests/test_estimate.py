"""Measuring a profile's cost: synthetic sentences, one step, one encode batch, the estimate's arithmetic."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from sbertlib import data, losses
from sbertlib.cli import estimate
from sbertlib.evaluation import workload
from sbertlib.model import backbones
from sbertlib.model.encoder import SentenceEncoder
from sbertlib.workbook import costs
from sbertlib.workbook.profiles import ALLNLI_TRAIN_PAIRS, PROFILES


@pytest.mark.parametrize("kind", list(workload.LENGTH_QUANTILES))
def test_synthetic_sentences_have_the_measured_token_lengths(kind):
    lengths = workload.synthetic_lengths(kind, 5000)
    assert abs(lengths.mean() - workload.MEAN_TOKENS[kind]) < 0.03 * workload.MEAN_TOKENS[kind]
    q = workload.LENGTH_QUANTILES[kind]
    assert lengths.min() >= q[0] and lengths.max() <= q[-1]
    sentences = workload.synthetic_sentences(kind, 300)
    ids = backbones.bert_uncased_tokenizer()(sentences, add_special_tokens=False)["input_ids"]
    assert [len(x) for x in ids] == workload.synthetic_lengths(kind, 300).tolist()
    assert workload.synthetic_sentences(kind, 300) == sentences  # seeded


def test_synthetic_pairs():
    pairs = workload.synthetic_nli_pairs(9)
    assert [p.label for p in pairs[:3]] == list(data.NLI_LABELS) and all(p.premise != p.hypothesis for p in pairs)
    sts = workload.synthetic_sts_pairs(20)
    assert all(0 <= p.score <= 5 for p in sts) and len({p.sentence1 for p in sts}) > 15


@pytest.fixture
def tiny():
    return SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu", max_seq_length=32)


def test_train_step_timing_runs_fit_steps(tiny):
    loss = losses.SoftmaxLoss(tiny, num_labels=3)
    before = [p.detach().clone() for p in tiny.parameters()]
    timing = workload.train_step_timing(loss, workload.synthetic_nli_pairs(40), batch_size=8, repeats=3, warmup=2)
    assert len(timing.seconds) == 3 and timing.median_s > 0 and timing.n_sentences == 8
    assert any(not torch.equal(a, b) for a, b in zip(before, tiny.parameters()))  # it trained
    with pytest.raises(ValueError, match="do not fill one batch of 16"):
        workload.train_step_timing(loss, workload.synthetic_nli_pairs(10), batch_size=16)


def test_encode_batch_timing(tiny):
    timing = workload.encode_batch_timing(tiny, workload.synthetic_sentences("stsb", 70), 64, repeats=2, warmup=0)
    assert len(timing.seconds) == 2 and timing.n_sentences == 64
    with pytest.raises(ValueError, match="do not fill one batch of 64"):
        workload.encode_batch_timing(tiny, ["a."] * 10, 64)


def test_lesson_terms_count_as_fit_counts():
    assert (costs.evaluations(1000, 250), costs.evaluations(1001, 250), costs.evaluations(10, 0)) == (4, 5, 1)
    paper = {t.name: t for t in costs.lesson_terms(PROFILES["paper"], step_s=0.1, batch_s=0.02)}
    assert paper["NLI training"].count == -(-ALLNLI_TRAIN_PAIRS // 16) == 58_880
    assert paper["STSb dev during NLI"].count == 59 * 46  # ceil(58,880 / 1000) evaluations of 2,910 sentences
    assert paper["STSb regression"].count == 4 * 360 and paper["STSb test before and after"].count == 80
    assert paper["NLI training"].seconds == pytest.approx(5888.0)
    laptop = {t.name: t for t in costs.lesson_terms(PROFILES["laptop"], 1.0, 1.0)}
    assert laptop["NLI training"].count == 1250 and laptop["STSb regression"].count == 2 * 360
    assert laptop["STSb dev during NLI"].count == 5 * 46
    with pytest.raises(ValueError, match="AllNLI profiles"):
        costs.lesson_terms(PROFILES["offline"], 1.0, 1.0)
    assert costs.hours(45) == "45 s" and costs.hours(3 * 3600 + 125) == "3 h 02 min"


def test_stsb_constants_match_the_data(shared_data):
    dev, test = data.load_stsb("dev", shared_data), data.load_stsb("test", shared_data)
    assert costs.STSB_TRAIN_PAIRS == len(data.load_stsb("train", shared_data)) and costs.STSB_DEV_PAIRS == len(dev)
    for pairs, n in ((dev, costs.STSB_DEV_SENTENCES), (test, costs.STSB_TEST_SENTENCES)):
        assert len(dict.fromkeys([p.sentence1 for p in pairs] + [p.sentence2 for p in pairs])) == n


def test_estimate_command_prints_the_formula_beside_the_figures(shared_data, capsys, monkeypatch):
    monkeypatch.setenv("SBERTLIB_DATA_DIR", str(shared_data))
    assert estimate.main(["--profile", "laptop", "--device", "cpu", "--repeats", "1", "--warmup-steps", "0"]) == 0
    out = capsys.readouterr().out
    assert "random-init:google/bert_uncased_L-4_H-256_A-4" in out and "random (timings only)" in out
    assert "1 epoch x ceil(20,000 pairs / 16)" in out and "1,250" in out and "total" in out
    assert "V100" not in out  # Table 7's V100 figure is bert-base's: no scale for the 4-layer BERT
    assert estimate.main(["--profile", "laptop", "--device", "cpu", "--sentences", "synthetic", "--repeats", "1",
                          "--warmup-steps", "0", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["step_seconds"] > 0 and result["encode_batch_seconds"] > 0 and result["batch_size"] == 16
    assert result["estimate_total_seconds"] == pytest.approx(sum(t["seconds"] for t in result["estimate"]))
    assert np.isclose(result["estimate"][0]["seconds"], 1250 * result["step_seconds"])


def test_gpu_scale_is_this_devices_encode_speed_over_the_papers_v100():
    from sbertlib.workbook import costs
    factor, formula = costs.gpu_scale(2.0, batch=64)  # 32 sentences/s here
    assert abs(factor - 32 / 2042) < 1e-12 and "32.0 sentences/s here / 2,042 on the paper's V100" in formula
    terms = [costs.Term("x", "f", 10, "steps", 3.0)]
    assert costs.gpu_terms(terms, 0.5)[0].seconds == 15.0


def test_the_v100_guide_is_for_bert_base_measured_on_a_cpu():
    base = {"architecture": "random-init:bert-base-uncased", "device_type": "cpu"}
    assert estimate._v100_comparable(base)
    assert not estimate._v100_comparable({**base, "device_type": "cuda"})
    assert not estimate._v100_comparable({**base, "architecture": "random-init:google/bert_uncased_L-4_H-256_A-4"})
