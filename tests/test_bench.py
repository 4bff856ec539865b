"""The benchmark commands run and write their figures (tiny model; speeds themselves not asserted)."""
import json

import numpy as np
import pytest

from sbertlib.cli import bench
from sbertlib.model import hardware


@pytest.fixture
def fake_reference(monkeypatch):
    """The reference enabled for the tiny model, run_reference replaced: the jobs it was given."""
    jobs = []

    def run(kind, job):
        jobs.append((kind, job))
        if kind == "train":
            return {"label": "sentence-transformers SoftmaxLoss loop", "pairs_per_s": 1.0}
        return {"label": "sentence-transformers encode", "sent_per_s": 1.0, "embeddings": np.zeros((1, 1))}

    monkeypatch.setattr(bench, "REFERENCE_MODELS", ("tiny-random-bert",))
    monkeypatch.setattr(bench, "run_reference", run)
    return jobs


def test_bench_encode_json(shared_data, tmp_path, capsys):
    out = tmp_path / "enc.json"
    assert bench.main(["encode", "--model", "tiny-random-bert", "--n", "40", "--repeats", "1",
                       "--no-reference", "--data-dir", str(shared_data), "--save", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["n_sentences"] == 40 and len(result["rows"]) == 3
    assert all(r["sent_per_s"] > 0 for r in result["rows"])
    assert "smart batching speed-up" in capsys.readouterr().out


def test_bench_train_json(shared_data, tmp_path, capsys):
    out = tmp_path / "train.json"
    assert bench.main(["train", "--model", "tiny-random-bert", "--steps", "2", "--batch-size", "4",
                       "--no-reference", "--data-dir", str(shared_data), "--save", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["pairs"] == 8 and [r["label"][-3:] for r in result["rows"]] == ["off", " on"]
    assert result["warmup_steps"] == 1 and all(r["pairs_per_s"] > 0 for r in result["rows"])


def test_bench_encode_precisions_prints_one_json_object(shared_data, capsys):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bf16 is emulated on CPUs without AMX/AVX512-BF16 (it warns)
        assert bench.main(["encode", "--model", "tiny-random-bert", "--n", "40", "--repeats", "1", "--warmup-runs", "0",
                           "--precision", "fp32,bf16,int8", "--no-reference", "--data-dir", str(shared_data),
                           "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)  # stdout holds the JSON object alone; the table went to stderr
    assert list(result) == ["fp32", "bf16", "int8"]
    fp32 = result["fp32"]
    assert fp32["spearman_diff"] == 0.0 and fp32["max_abs_diff_vs_fp32"] == 0.0 and fp32["sentence_transformers"] is None
    for r in result.values():  # the difference is this row's Spearman minus fp32's, not e.g. the reverse
        assert r["ours"] > 0 and r["spearman_diff"] == pytest.approx(r["spearman"] - fp32["spearman"], abs=1e-9)
    for name in ("bf16", "int8"):  # the vectors moved, but the ranking barely (measured: ~0.002 on this model)
        assert result[name]["max_abs_diff_vs_fp32"] > 0 and abs(result[name]["spearman_diff"]) < 0.5
    assert result["int8"]["reference_note"] == "not run: --no-reference"
    assert "bf16" in captured.err and "ours bf16 / ours fp32" in captured.err


def test_an_emulated_precision_is_timed_on_a_sample_by_both_libraries(shared_data, fake_reference, monkeypatch,
                                                                      capsys):
    """Where bf16 is emulated (a CPU without AMX or AVX512-BF16) a pass over the corpus takes minutes: both
    libraries time it once on the first N sentences, and the table says so with the estimate for all."""
    monkeypatch.setattr(hardware, "cpu_bf16", lambda flags=None: "emulated")
    assert bench.main(["encode", "--model", "tiny-random-bert", "--n", "40", "--repeats", "2", "--precision",
                       "fp32,bf16", "--emulated-sample", "8", "--device", "cpu", "--data-dir", str(shared_data),
                       "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert result["fp32"]["timed_sentences"] == 40 and result["bf16"]["timed_sentences"] == 8
    assert result["bf16"]["estimated_s_all"] == pytest.approx(40 / result["bf16"]["ours"])
    jobs = {job["precision"]: job for kind, job in fake_reference}
    assert len(jobs["fp32"]["sentences"]) == 40 and jobs["fp32"]["repeats"] == 2
    assert len(jobs["bf16"]["sentences"]) == 8 and jobs["bf16"]["repeats"] == 1
    assert "bf16, emulated here: both libraries timed it once, on the first 8 sentences" in captured.err


def test_bench_train_precision_column(shared_data, tmp_path):
    out = tmp_path / "train.json"
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert bench.main(["train", "--model", "tiny-random-bert", "--steps", "2", "--batch-size", "4", "--precision",
                           "fp32,bf16", "--no-reference", "--data-dir", str(shared_data), "--save", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [r["precision"] for r in rows] == ["fp32", "fp32", "bf16", "bf16"]
    assert rows[2]["label"].endswith("bf16 autocast")


def test_bench_precision_auto_runs_the_reference_at_the_concrete_precision(shared_data, fake_reference,
                                                                          monkeypatch, capsys):
    monkeypatch.setattr(hardware, "bf16_is_fast", lambda device="cpu": True)  # auto -> bf16 (mean pooling)
    assert bench.main(["encode", "--model", "tiny-random-bert", "--n", "8", "--repeats", "1", "--warmup-runs", "0",
                       "--precision", "auto", "--device", "cpu", "--data-dir", str(shared_data), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["auto"]["runs_as"] == "bf16" and result["auto"]["sentence_transformers"] == 1.0
    assert [job["precision"] for kind, job in fake_reference] == ["bf16"]


def test_bench_says_why_sentence_transformers_did_not_run(shared_data, capsys):
    assert bench.main(["encode", "--model", "tiny-random-bert", "--n", "8", "--repeats", "1", "--warmup-runs", "0",
                       "--precision", "fp32", "--data-dir", str(shared_data), "--json"]) == 0
    captured = capsys.readouterr()
    entry = json.loads(captured.out)["fp32"]
    assert entry["sentence_transformers"] is None and "--model minilm" in entry["reference_note"]
    assert "sentence-transformers: not run: it loads the packaged all-MiniLM-L6-v2 only" in captured.err


def test_bench_train_reference_runs_on_the_chosen_device(shared_data, fake_reference, tmp_path):
    out = tmp_path / "train.json"
    assert bench.main(["train", "--model", "tiny-random-bert", "--steps", "2", "--batch-size", "4", "--device", "cpu:0",
                       "--data-dir", str(shared_data), "--save", str(out)]) == 0
    assert [(kind, job["device"], job["precision"]) for kind, job in fake_reference] == [("train", "cpu:0", "fp32")]
    assert json.loads(out.read_text())["rows"][-1]["label"] == "sentence-transformers SoftmaxLoss loop"


@pytest.mark.parametrize("argv, message", [
    (["train", "--precision", "fp32,fp16"], r"train: error: --precision fp16: fp16 autocast needs a CUDA GPU \(device: cpu\)"),
    (["train", "--precision", "int8"], "--precision int8: bench train runs fp32 weights .* for bench encode"),
    (["train", "--precision", ","], "--precision ',' names no precision"),
    (["encode", "--precision", "fp32,fp16"], r"encode: error: --precision fp16: precision='fp16' needs a CUDA GPU"),
    (["encode", "--precision", "fp8"], "--precision fp8: precision must be one of"),
    (["encode", "--device", "gpu"], "--device 'gpu': "),
])
def test_bench_rejects_settings_that_cannot_run_before_loading_anything(argv, message, capsys, monkeypatch):
    import re
    monkeypatch.setattr(bench.SentenceEncoder, "from_pretrained", None)  # must not get that far
    device = [] if "--device" in argv else ["--device", "cpu"]
    with pytest.raises(SystemExit) as exit_info:
        bench.main(argv + device)
    assert exit_info.value.code == 2 and re.search(message, capsys.readouterr().err)


def test_pick_precision_takes_the_fastest_unchanged_one():
    from sbertlib.model.precision import pick_precision
    rows = [{"precision": "fp32", "sent_per_s": 600, "spearman": 82.03},
            {"precision": "bf16", "sent_per_s": 1300, "spearman": 82.07},
            {"precision": "int8", "sent_per_s": 1500, "spearman": 80.95}]
    assert pick_precision(rows) == "bf16"  # int8 is faster but loses 1.08
    rows[1]["spearman"] = 82.10  # a gain beyond the tolerance is a change too
    assert pick_precision(rows) == "fp32"
    assert pick_precision(rows, tolerance=2.0) == "int8"
    with pytest.raises(ValueError, match="fp32 row"):
        pick_precision(rows[1:])
