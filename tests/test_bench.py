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
