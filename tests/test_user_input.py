"""What users feed it (issue 19): spreadsheet CSVs, damaged weights, sentence-transformers folders with
modules sbertlib does not implement, constant gold scores, odd text. Each works or fails with a message
naming what is wrong — never a silent wrong answer or a bare error from a dependency."""
from __future__ import annotations

import json
import shutil
import warnings

import numpy as np
import pytest
import torch

from sbertlib import data, evaluation
from sbertlib.data import DataFormatError, STSPair
from sbertlib.model import backbones
from sbertlib.model.encoder import SentenceEncoder

BOM = "\ufeff"


def write_bytes(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))  # as written: no newline translation
    return path


# ----------------------------------------------------------------------------- 1. CSV as spreadsheets export it
def test_excel_csv_with_bom_crlf_semicolons_and_decimal_commas_loads(tmp_path):
    """Excel in a European locale: BOM, CRLF, ';' between fields, '3,5' for 3.5."""
    text = BOM + 'sentence1;sentence2;score\r\nA cat sits.;"A cat, sitting.";4,5\r\nA dog;Ein Hund;3\r\nX;Y;0,25\r\n'
    pairs = data.load_scored_pairs(write_bytes(tmp_path, "excel.csv", text), score_range=(0, 5))
    assert [(p.sentence1, p.sentence2, p.score) for p in pairs] == [
        ("A cat sits.", "A cat, sitting.", 4.5), ("A dog", "Ein Hund", 3.0), ("X", "Y", 0.25)]


def test_bom_and_crlf_in_a_comma_csv(tmp_path):
    text = BOM + "sentence1,sentence2,score\r\nA,B,3.5\r\nC,D,1\r\n"
    pairs = data.load_scored_pairs(write_bytes(tmp_path, "p.csv", text), score_range=(0, 5))
    assert [(p.sentence1, p.sentence2, p.score) for p in pairs] == [("A", "B", 3.5), ("C", "D", 1.0)]


def test_semicolon_csv_for_labels_and_sentences(tmp_path):
    pairs, names = data.load_labelled_pairs(write_bytes(tmp_path, "l.csv", "sentence1;sentence2;label\r\n"
                                                        "A, b;C;yes\r\nD;E;no\r\n"))
    assert pairs == [("A, b", "C", 1), ("D", "E", 0)] and names == ("no", "yes")
    assert data.load_sentences(write_bytes(tmp_path, "s.csv", "id;sentence\n1;Hello, world\n2;Bye\n")) == [
        "Hello, world", "Bye"]


@pytest.mark.parametrize("text, match", [
    ("sentence1;sentence2;score\nA;B;3,5\nC;D;drei\n", r"s.csv, line 3: score 'drei' in column 'score' is not a number"),
    ("sentence1;sentence2;score\nA;B;3,5\nC;D;1.234,5\n", r"s.csv, line 3: score '1.234,5' .* is not a number"),
    ('sentence1,sentence2,score\nA,B,"3,5"\n', r"s.csv, line 2: score '3,5' .* not a number; a decimal comma is "
                                              r"read only in a ';'-delimited file"),
])
def test_a_score_that_is_still_not_a_number_names_file_and_line(tmp_path, text, match):
    with pytest.raises(DataFormatError, match=match):
        data.load_scored_pairs(write_bytes(tmp_path, "s.csv", text), score_range=(0, 5))


def test_explicit_delimiter_still_wins_over_detection(tmp_path):
    path = write_bytes(tmp_path, "p.csv", "sentence1;sentence2;score\nA;B;1\n")
    with pytest.raises(DataFormatError, match=r"line 1: no column 'sentence1'.*split on ','"):
        data.load_scored_pairs(path, delimiter=",")


def test_a_semicolon_header_without_the_columns_is_shown_split_on_semicolons(tmp_path):
    with pytest.raises(DataFormatError, match=r"line 1: no column 'sentence1', 'sentence2'; the header has "
                                              r"\['s1', 's2', 'score'\] \(split on ';'\)"):
        data.load_scored_pairs(write_bytes(tmp_path, "p.csv", "s1;s2;score\nA;B;1\n"))


# ----------------------------------------------------------------------------- 2. damaged weights
@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    """A tiny random BERT saved as a sentence-transformers folder (by sbertlib)."""
    enc = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu", max_seq_length=32)
    return enc.save(tmp_path_factory.mktemp("tiny") / "model", format="sentence-transformers")


def _copy(src, dst):
    shutil.copytree(src, dst)
    return dst


@pytest.mark.parametrize("keep", [0, 5, 1000, -100])
def test_truncated_safetensors_is_named_as_damaged(tiny_folder, tmp_path, keep):
    folder = _copy(tiny_folder, tmp_path / "m")
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:keep])
    with pytest.raises(backbones.BackboneNotAvailable, match=r"model.safetensors.* is damaged or incomplete.*"
                                                             r"re-download the model, or re-save it"):
        SentenceEncoder.from_pretrained(folder, device="cpu")


def test_truncated_pytorch_model_bin_is_named_as_damaged(tiny_folder, tmp_path):
    folder = _copy(tiny_folder, tmp_path / "m")
    state = SentenceEncoder.from_pretrained(tiny_folder, device="cpu").backbone.state_dict()
    (folder / "model.safetensors").unlink()
    torch.save(state, folder / "pytorch_model.bin")
    assert SentenceEncoder.from_pretrained(folder, device="cpu").dim == 64  # the whole file loads
    raw = (folder / "pytorch_model.bin").read_bytes()
    (folder / "pytorch_model.bin").write_bytes(raw[:len(raw) // 2])
    with pytest.raises(backbones.BackboneNotAvailable, match=r"pytorch_model.bin.* is damaged or incomplete"):
        SentenceEncoder.from_pretrained(folder, device="cpu")


# ----------------------------------------------------------------------------- 3. modules we don't implement
@pytest.fixture(scope="module")
def st_model(tiny_folder):
    st = pytest.importorskip("sentence_transformers")
    return st.SentenceTransformer(str(tiny_folder), device="cpu")


def _st_save(modules, path):
    import sentence_transformers as st
    st.SentenceTransformer(modules=modules, device="cpu").save(str(path))
    return path


def test_a_nonlinear_dense_module_is_refused_by_name(st_model, tmp_path):
    """sbertlib applies a Dense layer only as a linear map (identity activation); sentence-transformers'
    default activation, Tanh, is refused naming the file and the activation."""
    from sentence_transformers import models as stm
    folder = _st_save([st_model[0], st_model[1], stm.Dense(64, 16)], tmp_path / "dense")
    with pytest.raises(backbones.BackboneNotAvailable,
                       match=r"2_Dense/config.json: the Dense module's activation is torch.nn.modules.activation.Tanh"):
        SentenceEncoder.from_pretrained(folder, device="cpu")


def test_a_dense_module_that_names_no_activation_is_refused_as_tanh(st_model, tmp_path):
    """A Dense config.json without activation_function gets sentence-transformers' default, Tanh: sbertlib
    loaded it as linear (a silent wrong answer), now refuses it by name."""
    from sentence_transformers import models as stm
    folder = _st_save([st_model[0], st_model[1], stm.Dense(64, 16, activation_function=torch.nn.Identity())],
                      tmp_path / "dense")
    cfg = folder / "2_Dense" / "config.json"
    settings = json.loads(cfg.read_text())
    del settings["activation_function"]
    cfg.write_text(json.dumps(settings))
    with pytest.raises(backbones.BackboneNotAvailable, match=r"2_Dense/config.json: the Dense module names no "
                                                             r"activation_function.*default, Tanh"):
        SentenceEncoder.from_pretrained(folder, device="cpu")


def test_normalize_before_pooling_is_refused(st_model, tmp_path):
    from sentence_transformers import models as stm
    folder = _st_save([st_model[0], stm.Normalize(), st_model[1]], tmp_path / "norm")
    with pytest.raises(backbones.BackboneNotAvailable,
                       match=r"modules.json lists 1_Normalize .* before 2_Pooling.*only as the last module"):
        SentenceEncoder.from_pretrained(folder, device="cpu")


def test_unknown_or_missing_modules_are_refused(tiny_folder, tmp_path):
    folder = _copy(tiny_folder, tmp_path / "m")
    modules = json.loads((folder / "modules.json").read_text())
    (folder / "modules.json").write_text(json.dumps(modules + [
        {"idx": 2, "name": "2", "path": "2_LayerNorm", "type": "sentence_transformers.models.LayerNorm"}]))
    with pytest.raises(backbones.BackboneNotAvailable,
                       match=r"lists 2_LayerNorm \(sentence_transformers.models.LayerNorm\), which sbertlib"):
        SentenceEncoder.from_pretrained(folder, device="cpu")
    (folder / "modules.json").write_text(json.dumps(modules[:1]))
    with pytest.raises(backbones.BackboneNotAvailable, match=r"modules.json lists no Pooling module"):
        SentenceEncoder.from_pretrained(folder, device="cpu")


def test_the_folders_sbertlib_writes_still_load(tiny_folder):
    enc = SentenceEncoder.from_pretrained(tiny_folder, device="cpu")
    assert (enc.pooling, enc.normalize) == ("mean", False)


# ----------------------------------------------------------------------------- 4. constant gold scores
class LookupEncoder:
    info = {"backbone": "lookup", "stand_in": False}

    def encode(self, sentences, batch_size=32, **_):
        return np.stack([np.random.default_rng(len(s) * 31 + ord(s[-1])).normal(size=8) for s in sentences]
                        ).astype(np.float32)


def test_constant_gold_scores_raise_naming_the_data_set():
    pairs = [STSPair(f"a{i}", f"b{i}", 3.0, source="mine.csv") for i in range(6)]
    with pytest.raises(ValueError, match=r"mine.csv: all 6 gold scores are 3: Spearman.* undefined"):
        evaluation.evaluate_sts(LookupEncoder(), pairs)
    with pytest.raises(ValueError, match=r"mine.csv: all 6 gold scores are 3"):
        evaluation.STSEvaluator(pairs)(LookupEncoder())


def test_a_subset_with_constant_gold_scores_is_named():
    subsets = {"good": [STSPair(f"a{i}", f"b{i}", float(i)) for i in range(5)],
               "flat": [STSPair(f"c{i}", f"d{i}", 2.0) for i in range(3)]}
    with pytest.raises(ValueError, match=r"subset 'flat': all 3 gold scores are 2"):
        evaluation.evaluate_sts_subsets(LookupEncoder(), subsets)


class SameVector:
    info = {"backbone": "same", "stand_in": False}

    def encode(self, sentences, batch_size=32, **_):
        return np.ones((len(sentences), 8), dtype=np.float32)


def test_a_model_that_gives_every_pair_the_same_similarity_warns_and_reports_nan():
    pairs = [STSPair(f"a{i}", f"b{i}", float(i), source="mine.csv") for i in range(5)]
    with pytest.warns(UserWarning, match=r"mine.csv: the cosine similarity is .* for every pair .* reported as NaN"):
        result = evaluation.evaluate_sts(SameVector(), pairs, ("cosine",))
    assert np.isnan(result.main)


# ----------------------------------------------------------------------------- 5. odd text
ODD = ["I love it 😀🎉", "مرحبا بالعالم", "שלום עולם", "a\x00b\x07c\u200f", "\x00\x01\x02", "👍🏽", "Ünïcödé ñ"]


@pytest.fixture(scope="module")
def tiny():
    return SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")


def test_emoji_rtl_and_control_characters_encode_to_finite_vectors(tiny):
    out = tiny.encode(ODD)
    assert out.shape == (len(ODD), tiny.dim) and np.isfinite(out).all()


def test_a_lone_surrogate_becomes_the_replacement_character_with_a_warning(tiny):
    with pytest.warns(UserWarning, match=r"2 of 3 texts hold a lone surrogate .*first: item 1.*U\+FFFD"):
        out = tiny.encode(["fine", "a\ud800b", "\udcff"])
    np.testing.assert_allclose(out[1], tiny.encode("a\ufffdb"), atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a proper pair written as two surrogates is the character itself
        np.testing.assert_allclose(tiny.encode("\ud83d\ude00"), tiny.encode("😀"), atol=1e-6)
    with pytest.warns(UserWarning, match=r"1 of 1 texts hold a lone surrogate"):
        assert tiny.tokenize(["x\ud800"])["input_ids"].shape[0] == 1


def test_the_cross_encoder_reads_odd_text_and_lone_surrogates_the_same_way():
    """Before, a lone surrogate reached the tokenizer from CrossEncoder.predict and failed with its bare
    TypeError; it now takes the encoder's path: U+FFFD and one warning."""
    from sbertlib.model.cross_encoder import CrossEncoder
    ce = CrossEncoder.from_pretrained("tiny-random-bert", device="cpu")
    scores = ce.predict(list(zip(ODD, ODD[1:] + ODD[:1])))
    assert np.isfinite(scores).all()
    with pytest.warns(UserWarning, match=r"1 of 2 texts hold a lone surrogate .*first: item 1"):
        got = ce.predict([("fine", "ok"), ("a\ud800b", "c")])
    np.testing.assert_allclose(got[1], ce.predict([("a\ufffdb", "c")])[0], atol=1e-5)


def test_the_loader_keeps_odd_text_and_names_the_line_of_bytes_that_are_not_utf8(tmp_path):
    text = "sentence1\tsentence2\tscore\n" + "".join(f"{a}\t{b}\t1\n" for a, b in zip(ODD, ODD[1:] + ODD[:1]))
    pairs = data.load_scored_pairs(write_bytes(tmp_path, "odd.tsv", text + "x\ty\t2\n"))
    assert [p.sentence1 for p in pairs[:-1]] == [s.strip() for s in ODD]
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(b"sentence1\tsentence2\tscore\nA\tB\t1\nC\t\xed\xa0\x80\t2\n")  # a surrogate, UTF-8-encoded
    with pytest.raises(DataFormatError, match=r"bad.tsv, line 3: not UTF-8 text"):
        data.load_scored_pairs(bad)
