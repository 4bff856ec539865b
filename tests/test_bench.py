"""The benchmark commands run and write their figures (tiny model; numbers themselves not asserted)."""
import json

from sbertlib.cli import bench


def test_bench_encode_json(shared_data, tmp_path, capsys):
    out = tmp_path / "enc.json"
    assert bench.main(["encode", "--model", "tiny-random-bert", "--n", "40", "--repeats", "1",
                       "--no-reference", "--data-dir", str(shared_data), "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["n_sentences"] == 40 and len(result["rows"]) == 3
    assert all(r["sent_per_s"] > 0 for r in result["rows"])
    assert "smart batching speed-up" in capsys.readouterr().out


def test_bench_train_json(shared_data, tmp_path, capsys):
    out = tmp_path / "train.json"
    assert bench.main(["train", "--model", "tiny-random-bert", "--steps", "2", "--batch-size", "4",
                       "--no-reference", "--data-dir", str(shared_data), "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["pairs"] == 8 and [r["label"][-3:] for r in result["rows"]] == ["off", " on"]
    assert result["warmup_steps"] == 1 and all(r["pairs_per_s"] > 0 for r in result["rows"])


def test_bench_encode_precisions_prints_one_json_object(shared_data, capsys):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bf16 is emulated on CPUs without AMX/AVX512-BF16 (it warns)
        assert bench.main(["encode", "--model", "tiny-random-bert", "--n", "40", "--repeats", "1", "--warmup", "0",
                           "--precision", "fp32,bf16,int8", "--no-reference", "--data-dir", str(shared_data),
                           "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)  # stdout holds the JSON object alone; the table went to stderr
    assert list(result) == ["fp32", "bf16", "int8"]
    assert result["fp32"]["spearman_diff"] == 0.0 and result["fp32"]["sentence_transformers"] is None
    assert all(r["ours"] > 0 and abs(r["spearman_diff"]) < 100 for r in result.values())
    assert "bf16" in captured.err and "ours bf16 / ours fp32" in captured.err


def test_bench_train_precision_column(shared_data, tmp_path):
    out = tmp_path / "train.json"
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert bench.main(["train", "--model", "tiny-random-bert", "--steps", "2", "--batch-size", "4", "--precision",
                           "fp32,bf16", "--no-reference", "--data-dir", str(shared_data), "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [r["precision"] for r in rows] == ["fp32", "fp32", "bf16", "bf16"]
    assert rows[2]["label"].endswith("bf16 autocast")


def test_pick_precision_takes_the_fastest_unchanged_one():
    import pytest
    from sbertlib.evaluation.speed import pick_precision
    rows = [{"precision": "fp32", "sent_per_s": 600, "spearman": 82.03},
            {"precision": "bf16", "sent_per_s": 1300, "spearman": 82.07},
            {"precision": "int8", "sent_per_s": 1500, "spearman": 80.95}]
    assert pick_precision(rows) == "bf16"  # int8 is faster but loses 1.08
    rows[1]["spearman"] = 82.10  # a gain beyond the tolerance is a change too
    assert pick_precision(rows) == "fp32"
    assert pick_precision(rows, tolerance=2.0) == "int8"
    with pytest.raises(ValueError, match="fp32 row"):
        pick_precision(rows[1:])
