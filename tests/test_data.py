"""Tests of sbertlib.data: sizes of the real files, layouts, malformed input, finding/downloading."""
from __future__ import annotations

import gzip
import hashlib
import shutil
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import pytest

from sbertlib import config, data
from sbertlib.data import DataFormatError, DataNotFoundError, NLIPair, STSPair, Triplet


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Tests never touch the network: only file:// URLs may be opened."""
    real = urllib.request.urlopen

    def guarded(url, *args, **kwargs):
        if not str(getattr(url, "full_url", url)).startswith("file:"):
            raise urllib.error.URLError("network disabled in tests")
        return real(url, *args, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", guarded)


@pytest.fixture
def isolated(tmp_path, monkeypatch) -> Path:
    """No $SBERTLIB_DATA_DIR, cwd in an empty folder (so ./data is empty) and that folder as the
    default data dir (not the checkout's data/, which may hold downloads); returns a data dir."""
    monkeypatch.delenv("SBERTLIB_DATA_DIR", raising=False)
    monkeypatch.setattr(config, "default_data_dir", lambda: Path("data"))
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    (tmp_path / "d").mkdir()
    return tmp_path / "d"


@pytest.fixture
def gz_dir(fixtures_dir) -> Path:
    return fixtures_dir / "data"


def write(root: Path, relpath: str, text: str, encoding: str = "utf-8") -> Path:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))
    return path


STSB_ROW = "main-captions\tMSRvid\t2012test\t0001\t{score}\t{s1}\tA sentence.\n"


# ----------------------------------------------------------------------------- real files: sizes
@pytest.mark.parametrize("split,n", [("train", 5749), ("dev", 1500), ("test", 1379)])
def test_stsb_sizes(shared_data, split, n):
    pairs = data.load_stsb(split, shared_data)
    assert len(pairs) == n
    assert all(0 <= p.score <= 5 and p.sentence1 and p.sentence2 for p in pairs)


def test_stsb_first_test_pair(shared_data):
    first = data.load_stsb("test", shared_data)[0]
    assert (first.sentence1, first.sentence2) == ("A girl is styling her hair.", "A girl is brushing her hair.")
    assert first.score == 2.5 and first.label == 0.5 and first.source == "stsb/main-captions"


@pytest.mark.parametrize("year,n", [(12, 3108), (13, 1500), (14, 3750), (15, 3000), (16, 1186)])
def test_sts_year_sizes(shared_data, year, n):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        subsets = data.load_sts_year(year, shared_data)
    assert sum(len(v) for v in subsets.values()) == n
    assert list(subsets) == [s for s in data.STS_SUBSETS[f"STS{year}"] if s != "SMT"]


def test_sts12_ignores_aggregate_gold_file_silently(shared_data):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        subsets = data.load_sts_year("sts12", shared_data)
    assert "ALL" not in subsets
    assert subsets["MSRvid"][0] == STSPair("A man with a hard hat is dancing.",
                                           "A man wearing a hard hat is dancing.", 5.0, source="STS12/MSRvid")


def test_sts13_smt_warns(shared_data):
    with pytest.warns(UserWarning, match=r"STS13 subset 'SMT'.*STS\.input\.SMT\.txt"):
        subsets = data.load_sts_year(2013, shared_data)
    assert "SMT" not in subsets


def test_sts16_takes_first_two_of_four_columns(shared_data):
    first = data.load_sts_year(16, shared_data)["headlines"][0]
    assert first.sentence1 == "Driver backs into stroller with child, drives off"
    assert first.score == 4.0 and first.source == "STS16/headlines"


@pytest.mark.parametrize("split,n", [("train", 4500), ("dev", 500), ("trial", 500), ("test", 4927)])
def test_sick_sizes(shared_data, split, n):
    rel, nli = data.load_sick(split, shared_data), data.load_sick_nli(split, shared_data)
    assert len(rel) == len(nli) == n
    assert all(1 <= p.score <= 5 and p.min_score == 1 for p in rel)


def test_sick_first_train_pair(shared_data):
    rel, nli = data.load_sick("train", shared_data)[0], data.load_sick_nli("train", shared_data)[0]
    assert rel.sentence1.startswith("A group of kids is playing in a yard") and rel.score == 4.5
    assert rel.label == pytest.approx(0.875)
    assert nli.label == "neutral" and nli.premise == rel.sentence1


@pytest.mark.parametrize("split,n", [("dev", 9842), ("test", 9824)])
def test_snli_sizes(shared_data, split, n):
    pairs = data.load_snli(split, shared_data)
    assert len(pairs) == n and {p.label for p in pairs} == set(data.NLI_LABELS)
    assert not pairs[0].premise.endswith(" ")


@pytest.mark.parametrize("name,n", [("sts12", 3108), ("stsb-test", 1379), ("stsb-dev", 1500),
                                    ("sick-r", 4927), ("sick-r-train", 4500)])
def test_load_sts_dataset(shared_data, name, n):
    assert len(data.load_sts_dataset(name, shared_data)) == n


def test_sts_datasets_order_and_unknown_name():
    assert data.STS_DATASETS == ("sts12", "sts13", "sts14", "sts15", "sts16", "stsb-test", "sick-r")
    with pytest.raises(ValueError, match="unknown STS dataset"):
        data.load_sts_dataset("sts11")


@pytest.mark.parametrize("task,n,splits,n_labels", [
    ("MR", 10662, {}, 2), ("CR", 3775, {}, 2), ("SUBJ", 10000, {}, 2), ("MPQA", 10606, {}, 2),
    ("SST2", 70042, {"train": 67349, "dev": 872, "test": 1821}, 2),
    ("TREC", 5952, {"train": 5452, "test": 500}, 6),
    ("MRPC", 5801, {"train": 4076, "test": 1725}, 2),
])
def test_senteval_sizes(shared_data, task, n, splits, n_labels):
    t = data.load_senteval(task, shared_data)
    assert len(t) == len(t.texts) == n
    assert {k: len(r) for k, r in t.splits.items()} == splits
    assert len(t.label_names) == n_labels and set(t.labels) == set(range(n_labels))
    assert t.is_pair == (task == "MRPC")


def test_senteval_contents(shared_data):
    mr = data.load_senteval("mr", shared_data)
    assert mr.labels.count(1) == mr.labels.count(0) == 5331 and mr.label_names[1] == "positive"
    trec_texts, trec_labels = data.load_senteval("TREC", shared_data).split("test")
    assert trec_texts[0] == "How far is it from Denver to Aspen ?" and data.TREC_LABELS[trec_labels[0]] == "NUM"
    mrpc_texts, mrpc_labels = data.load_senteval("MRPC", shared_data).split("train")
    assert mrpc_texts[0][0].startswith("Amrozi accused his brother") and mrpc_labels[:2] == [1, 0]
    with pytest.raises(KeyError, match="k-fold"):
        mr.split("train")
    assert data.load_senteval("CR", shared_data).texts.count("") == 4  # kept, as SentEval does


# ----------------------------------------------------------------------------- records
def test_records():
    assert STSPair("a", "b", 3.0, 1.0, 5.0).label == 0.5
    assert [NLIPair("p", "h", lab).label_id for lab in data.NLI_LABELS] == [0, 1, 2]
    with pytest.raises(ValueError):
        NLIPair("p", "h", "ENTAILMENT")



def test_stspair_label_range_reaches_the_regression_loss():
    """STSb's 0–5 gold is scaled to 0–1 before the regression objective sees it."""
    assert STSPair("a", "b", 5.0).label == 1.0 and STSPair("a", "b", 1.0, 1.0, 5.0).label == 0.0

def test_nli_triplets():
    pairs = [NLIPair("P", "e1", "entailment"), NLIPair("P", "c1", "contradiction"),
             NLIPair("P", "n1", "neutral"), NLIPair("P", "e2", "entailment"),
             NLIPair("Q", "e", "entailment"),  # no contradiction: skipped
             NLIPair("R", "c", "contradiction"),  # no entailment: skipped
             NLIPair("S", "c1", "contradiction"), NLIPair("S", "c2", "contradiction"),
             NLIPair("S", "e1", "entailment"), NLIPair("S", "e2", "entailment"), NLIPair("S", "e1", "entailment")]
    assert data.nli_triplets(pairs) == [Triplet("P", "e1", "c1"), Triplet("P", "e2", "c1"),
                                        Triplet("S", "e1", "c1"), Triplet("S", "e2", "c2")]
    assert data.nli_triplets(list(reversed(pairs))) == data.nli_triplets(list(reversed(pairs)))


# ----------------------------------------------------------------------------- gz layouts
def test_stsb_gz_by_path(gz_dir):
    pairs = {s: data.load_stsb(s, path=gz_dir / "stsbenchmark.tsv.gz") for s in ("train", "dev", "test")}
    assert [len(v) for v in pairs.values()] == [3, 2, 2]
    assert pairs["train"][1] == STSPair('He said "no" twice.', 'She said "yes".', 1.4, source="stsb/main-news")
    assert pairs["test"][1].sentence1 == "How do I fix it?"


def test_stsb_falls_back_to_gz_when_csv_missing(isolated, gz_dir):
    shutil.copy(gz_dir / "stsbenchmark.tsv.gz", isolated)
    assert data.load_stsb("test", isolated)[0].sentence1 == "A girl is styling her hair."
    write(isolated, "stsbenchmark/sts-test.csv", STSB_ROW.format(score="1.0", s1="From the csv."))
    assert data.load_stsb("test", isolated)[0].sentence1 == "From the csv."  # the csv wins


def test_stsb_missing_in_a_named_folder_names_the_file_and_the_archive(isolated):
    with pytest.raises(DataNotFoundError, match=r"sts-dev\.csv(.|\n)*Stsbenchmark\.tar\.gz"):
        data.load_stsb("dev", isolated)


def test_allnli_gz(gz_dir):
    path = gz_dir / "AllNLI.tsv.gz"
    train = data.load_allnli("train", path=path)
    assert [len(data.load_allnli(s, path=path)) for s in ("dev", "test")] == [2, 1]
    assert len(train) == 6 and train[1] == NLIPair("A man is running.", "A man is asleep.", "contradiction")
    assert data.nli_triplets(train) == [Triplet("A man is running.", "A person moves.", "A man is asleep."),
                                        Triplet("A man is running.", "Someone is running.", "A man is asleep.")]


def test_allnli_found_in_data_dir(isolated, gz_dir):
    shutil.copy(gz_dir / "AllNLI.tsv.gz", isolated)
    assert len(data.load_allnli("train", isolated)) == 6


# ----------------------------------------------------------------------------- data dir precedence
def test_data_dir_precedence(tmp_path, monkeypatch):
    for name in ("explicit", "env", "cwd/data"):
        write(tmp_path, f"{name}/stsbenchmark/sts-test.csv", STSB_ROW.format(score="2", s1=name))
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setenv("SBERTLIB_DATA_DIR", str(tmp_path / "env"))
    assert data.load_stsb("test", tmp_path / "explicit")[0].sentence1 == "explicit"
    assert data.load_stsb("test")[0].sentence1 == "env"
    monkeypatch.delenv("SBERTLIB_DATA_DIR")
    assert data.load_stsb("test")[0].sentence1 == "cwd/data"


def test_only_the_folder_the_caller_named_is_searched(tmp_path, monkeypatch):
    """A file elsewhere (./data, the checkout's data/) is never read when the caller named a folder."""
    write(tmp_path, "cwd/data/stsbenchmark/sts-test.csv", STSB_ROW.format(score="2", s1="local"))
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setattr(data.files, "download", lambda *a, **k: (_ for _ in ()).throw(OSError("offline")))
    monkeypatch.setenv("SBERTLIB_DATA_DIR", str(tmp_path / "empty-env"))
    with pytest.raises(DataNotFoundError) as err:  # explicit folder: only there
        data.load_stsb("test", tmp_path / "empty-explicit")
    assert str(tmp_path / "empty-explicit") in str(err.value) and "empty-env" not in str(err.value)
    with pytest.raises(DataNotFoundError):  # $SBERTLIB_DATA_DIR: only there
        data.load_stsb("test")
    monkeypatch.delenv("SBERTLIB_DATA_DIR")  # neither: the defaults, ./data among them
    monkeypatch.setattr(config, "default_data_dir", lambda: tmp_path / "nothing")
    assert data.load_stsb("test")[0].sentence1 == "local"


# ----------------------------------------------------------------------------- malformed input
def test_stsb_wrong_column_count(isolated):
    write(isolated, "stsbenchmark/sts-test.csv", STSB_ROW.format(score="1", s1="ok") + "a\tb\tc\n")
    with pytest.raises(DataFormatError, match=r"sts-test\.csv, line 2: expected 7 or 9 .*found 3"):
        data.load_stsb("test", isolated)


def test_stsb_non_numeric_score(isolated):
    write(isolated, "stsbenchmark/sts-dev.csv", STSB_ROW.format(score="1", s1="ok") * 2
          + STSB_ROW.format(score="high", s1="bad"))
    with pytest.raises(DataFormatError, match=r"sts-dev\.csv, line 3: score 'high' is not a number"):
        data.load_stsb("dev", isolated)


def test_stsb_score_out_of_range(isolated):
    write(isolated, "stsbenchmark/sts-train.csv", STSB_ROW.format(score="5.5", s1="bad"))
    with pytest.raises(DataFormatError, match=r"sts-train\.csv, line 1: score 5\.5 outside"):
        data.load_stsb("train", isolated)


def test_stsb_gz_missing_header_column(tmp_path):
    path = tmp_path / "stsbenchmark.tsv.gz"
    path.write_bytes(gzip.compress(b"split\tgenre\tsentence1\tsentence2\ntest\tx\ta\tb\n"))
    with pytest.raises(DataFormatError, match=r"stsbenchmark\.tsv\.gz, line 1: header lacks .*'score'"):
        data.load_stsb("test", path=path)


def _sts12_tree(root: Path, n: int = 2) -> None:
    for subset in data.STS_SUBSETS["STS12"]:
        write(root, f"sts/STS12/STS.input.{subset}.txt", "A s.\tB s.\n" * n)
        write(root, f"sts/STS12/STS.gs.{subset}.txt", "3.0\n" * n)


def test_sts_tiny_tree_with_unscored_pair(isolated):
    _sts12_tree(isolated)
    write(isolated, "sts/STS12/STS.gs.MSRvid.txt", "\n4.5\n")
    subsets = data.load_sts_year(12, isolated)
    assert subsets["MSRvid"] == [STSPair("A s.", "B s.", 4.5, source="STS12/MSRvid")]
    assert [len(v) for v in subsets.values()] == [2, 1, 2, 2, 2]
    assert data.load_sts_year("2012", isolated) == data.load_sts_year("STS12", isolated) == subsets


def test_sts_mismatched_line_counts(isolated):
    _sts12_tree(isolated)
    write(isolated, "sts/STS12/STS.gs.MSRpar.txt", "3.0\n")
    with pytest.raises(DataFormatError) as err:
        data.load_sts_year(12, isolated)
    msg = str(err.value)
    assert "STS.input.MSRpar.txt has 2" in msg and "STS.gs.MSRpar.txt has 1" in msg and "line 2" in msg


def test_sts_non_numeric_gold(isolated):
    _sts12_tree(isolated)
    write(isolated, "sts/STS12/STS.gs.SMTeuroparl.txt", "3.0\nn/a\n")
    with pytest.raises(DataFormatError, match=r"STS\.gs\.SMTeuroparl\.txt, line 2: score 'n/a'"):
        data.load_sts_year(12, isolated)


def test_sts_input_wrong_column_count(isolated):
    _sts12_tree(isolated)
    write(isolated, "sts/STS12/STS.input.MSRvid.txt", "A s.\tB s.\nonly one sentence\n")
    with pytest.raises(DataFormatError, match=r"STS\.input\.MSRvid\.txt, line 2: expected 2 .*found 1"):
        data.load_sts_year(12, isolated)


def test_sts_missing_subset_is_an_error(isolated):
    _sts12_tree(isolated)
    (isolated / "sts/STS12/STS.input.MSRvid.txt").unlink()
    with pytest.raises(DataNotFoundError, match=r"STS\.input\.MSRvid\.txt(.|\n)*STS2012-en-test\.zip"):
        data.load_sts_year(12, isolated)


SICK_HEADER = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\r\n"


def test_sick_score_out_of_range(isolated):
    write(isolated, "sick/SICK_trial.txt", SICK_HEADER + "1\ta\tb\t4.0\tNEUTRAL\r\n2\ta\tb\t0.5\tNEUTRAL\r\n")
    with pytest.raises(DataFormatError, match=r"SICK_trial\.txt, line 3: score 0\.5 outside the range \[1, 5\]"):
        data.load_sick("dev", isolated)


def test_sick_unknown_label(isolated):
    write(isolated, "sick/SICK_train.txt", SICK_HEADER + "1\ta\tb\t4.0\tMAYBE\r\n")
    assert data.load_sick("train", isolated)[0].score == 4.0
    with pytest.raises(DataFormatError, match=r"SICK_train\.txt, line 2: unknown NLI label 'MAYBE'"):
        data.load_sick_nli("train", isolated)


def test_sick_wrong_column_count(isolated):
    write(isolated, "sick/SICK_test_annotated.txt", SICK_HEADER + "1\ta\tb\t4.0\r\n")
    with pytest.raises(DataFormatError, match=r"SICK_test_annotated\.txt, line 2: expected 5 .*found 4"):
        data.load_sick("test", isolated)


def _snli(root: Path, s1: str, s2: str, labels: str) -> None:
    for name, text in (("s1", s1), ("s2", s2), ("labels", labels)):
        write(root, f"snli/{name}.dev", text)


def test_snli_tiny_and_unknown_label(isolated):
    _snli(isolated, "A man . \nA dog . \n", "A person . \nA cat . \n", "entailment\ncontradiction\n")
    assert data.load_snli("dev", isolated) == [NLIPair("A man .", "A person .", "entailment"),
                                               NLIPair("A dog .", "A cat .", "contradiction")]
    _snli(isolated, "a\nb\n", "c\nd\n", "neutral\n-\n")
    with pytest.raises(DataFormatError, match=r"labels\.dev, line 2: unknown NLI label '-'"):
        data.load_snli("dev", isolated)


def test_snli_mismatched_line_counts(isolated):
    _snli(isolated, "a\nb\n", "c\n", "neutral\nneutral\n")
    with pytest.raises(DataFormatError, match=r"s1\.dev has 2, .*s2\.dev has 1, .*labels\.dev has 2"):
        data.load_snli("dev", isolated)


def test_allnli_unknown_label(tmp_path):
    path = tmp_path / "AllNLI.tsv.gz"
    path.write_bytes(gzip.compress(b"split\tdataset\tfilename\tsentence1\tsentence2\tlabel\n"
                                   b"train\tSNLI\tf\ta\tb\tentailment\ntrain\tSNLI\tf\ta\tb\tcontradicts\n"))
    with pytest.raises(DataFormatError, match=r"AllNLI\.tsv\.gz, line 3: unknown NLI label 'contradicts'"):
        data.load_allnli("train", path=path)


def test_senteval_malformed(isolated):
    for split in ("train", "dev", "test"):
        write(isolated, f"senteval/SST/binary/sentiment-{split}", "good movie \t1\nbad movie \t0\n")
    assert data.load_senteval("SST", isolated).split("dev") == (["good movie", "bad movie"], [1, 0])
    write(isolated, "senteval/SST/binary/sentiment-dev", "good movie \t1\nbad movie \t2\n")
    with pytest.raises(DataFormatError, match=r"sentiment-dev, line 2: label '2'"):
        data.load_senteval("SST2", isolated)
    write(isolated, "senteval/TREC/train_5500.label", "NUM:dist How far ?\nWHAT:x Who ?\n", "latin-1")
    write(isolated, "senteval/TREC/TREC_10.label", "LOC:city Where ?\n")
    with pytest.raises(DataFormatError, match=r"train_5500\.label, line 2: expected 'COARSE:fine"):
        data.load_senteval("TREC", isolated)


def test_unknown_split_and_year():
    with pytest.raises(ValueError, match="unknown split"):
        data.load_stsb("validation")
    with pytest.raises(ValueError, match="unknown STS year"):
        data.load_sts_year(2017)
    with pytest.raises(ValueError, match="unknown SentEval task"):
        data.load_senteval("SICK-E")



def test_invalid_utf8_names_file_and_line(tmp_path):
    folder = tmp_path / "snli"
    folder.mkdir()
    (folder / "s1.dev").write_bytes(b"A man sleeps.\nA bad \xff byte.\n")
    (folder / "s2.dev").write_text("Someone sleeps.\nA byte.\n")
    (folder / "labels.dev").write_text("entailment\nneutral\n")
    with pytest.raises(DataFormatError, match=r"s1\.dev, line 2: not valid utf-8"):
        data.load_snli("dev", tmp_path)


def test_truncated_gz_names_file_and_line(tmp_path):
    rows = "split\tsentence1\tsentence2\tlabel\n" + "train\tA man sleeps.\tSomeone sleeps.\tentailment\n" * 2000
    whole = gzip.compress(rows.encode())
    (tmp_path / "AllNLI.tsv.gz").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DataFormatError, match=r"AllNLI\.tsv\.gz, line \d+: .*truncated or corrupt"):
        data.load_allnli("train", tmp_path)

# ----------------------------------------------------------------------------- download / locate
def test_download_file_url_with_checksum(tmp_path, gz_dir):
    src = gz_dir / "AllNLI.tsv.gz"
    sha = hashlib.sha256(src.read_bytes()).hexdigest()
    dest = data.download(src.as_uri(), tmp_path / "sub" / "AllNLI.tsv.gz", sha256=sha)
    assert dest.read_bytes() == src.read_bytes()
    assert sorted(p.name for p in dest.parent.iterdir()) == ["AllNLI.tsv.gz"]


def test_download_checksum_mismatch_leaves_nothing(tmp_path, gz_dir):
    with pytest.raises(data.ChecksumError, match="SHA-256"):
        data.download((gz_dir / "AllNLI.tsv.gz").as_uri(), tmp_path / "AllNLI.tsv.gz", sha256="0" * 64)
    assert list(tmp_path.iterdir()) == []


def test_download_missing_source_leaves_nothing(tmp_path):
    with pytest.raises(OSError):
        data.download((tmp_path / "nope.gz").as_uri(), tmp_path / "out" / "x.gz")
    assert list((tmp_path / "out").iterdir()) == []


def test_locate_finds_existing_file_without_download(isolated, monkeypatch):
    write(isolated, "senteval/TREC/TREC_10.label", "x")
    monkeypatch.setattr(data.files, "download", lambda *a, **k: pytest.fail("should not download"))
    assert data.locate("senteval/TREC/TREC_10.label", isolated) == isolated / "senteval/TREC/TREC_10.label"


def test_locate_downloads_into_first_candidate(isolated, monkeypatch):
    calls = []

    def fake(url, dest, sha256=None):
        calls.append((url, dest))
        return write(dest.parent, dest.name, "x")

    monkeypatch.setattr(data.files, "download", fake)
    rel = "senteval/TREC/TREC_10.label"
    assert data.locate(rel, isolated) == isolated / rel
    assert calls == [(data.SOURCES[rel], isolated / rel)]


def test_locate_download_failure_message(isolated, monkeypatch):
    def fail(url, dest, sha256=None):
        raise urllib.error.URLError("timed out")

    monkeypatch.setattr(data.files, "download", fail)
    with pytest.raises(DataNotFoundError) as err:
        data.locate("senteval/TREC/TREC_10.label", isolated)
    msg = str(err.value)
    for needed in ("'senteval/TREC/TREC_10.label'", str((isolated / "senteval/TREC/TREC_10.label").absolute()),
                   "SBERTLIB_DATA_DIR", "data_dir=",
                   "https://cogcomp.seas.upenn.edu/Data/QA/QC/TREC_10.label", "timed out"):
        assert needed in msg


def test_locate_without_direct_url_names_archive(isolated, monkeypatch):
    monkeypatch.setattr(data.files, "download", lambda *a, **k: pytest.fail("no direct URL: no download"))
    with pytest.raises(DataNotFoundError, match=r"SICK_train\.txt(.|\n)*sick_train\.zip"):
        data.load_sick("train", isolated)


def test_default_data_dir_is_the_checkouts_whatever_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("SBERTLIB_DATA_DIR", raising=False)
    repo_data = Path(__file__).resolve().parent.parent / "data"
    monkeypatch.chdir(tmp_path)                   # e.g. a kernel started in notebooks/
    assert config.data_dir() == repo_data and repo_data in config.data_dir_candidates()


def test_relative_data_dir_is_passed_on_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = config.absolute_data_dir_env({"SBERTLIB_DATA_DIR": "../shared/data", "OTHER": "x"})
    assert env == {"SBERTLIB_DATA_DIR": str(tmp_path / "../shared/data"), "OTHER": "x"}
    assert config.absolute_data_dir_env({"OTHER": "x"}) == {"OTHER": "x"}
