"""Data from the Hugging Face Hub, tested against a stand-in Hub on 127.0.0.1 (tests/hubstub.py)."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from sbertlib import config, data
from sbertlib.data import hub

from hubdata import course_files, course_hub_files, no_local_data, serve_course, stub  # noqa: F401 (fixtures)
from hubstub import HubStub

pytest.importorskip("pyarrow")


def _same(a, b, strip_subset=False):
    key = (lambda p: (p.sentence1, p.sentence2, p.score, p.min_score, p.max_score, p.source.split("/")[0])) \
        if strip_subset else (lambda p: p)
    assert len(a) == len(b)
    for i, (x, y) in enumerate(zip(a, b)):
        assert key(x) == key(y), f"item {i}: {x} != {y}"


LOADERS = {
    "stsb-train": lambda d: data.load_stsb("train", d), "stsb-dev": lambda d: data.load_stsb("dev", d),
    "stsb-test": lambda d: data.load_stsb("test", d),
    "sick-train": lambda d: data.load_sick("train", d), "sick-trial": lambda d: data.load_sick("trial", d),
    "sick-test": lambda d: data.load_sick("test", d), "sick-nli-train": lambda d: data.load_sick_nli("train", d),
    "sick-nli-test": lambda d: data.load_sick_nli("test", d),
    "snli-dev": lambda d: data.load_snli("dev", d), "snli-test": lambda d: data.load_snli("test", d),
}


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_hub_and_course_folder_give_the_same_records(name, stub, shared_data, course_hub_files):
    serve_course(stub, course_hub_files)
    _same(LOADERS[name](shared_data), LOADERS[name](None))


@pytest.mark.parametrize("year", [12, 13, 14, 15, 16])
def test_sts_years_from_the_hub_equal_the_course_files_pooled(year, stub, shared_data, course_hub_files):
    stub.add(f"mteb/sts{year}-sts", hub.dataset(f"sts{year}").revision, course_hub_files[f"sts{year}"])
    course = [p for ps in data.load_sts_year(year, shared_data).values() for p in ps]
    from_hub = data.load_sts_year(year)
    assert list(from_hub) == [f"STS{year}"]
    _same(course, from_hub[f"STS{year}"], strip_subset=True)


@pytest.mark.parametrize("task", data.SENTEVAL_TASKS)
def test_senteval_tasks_from_the_hub_equal_the_course_files(task, stub, shared_data, course_hub_files):
    serve_course(stub, course_hub_files)
    course = data.load_senteval(task, shared_data)
    if task == "MPQA":  # no Hub copy: the error names the file and the archive it ships in
        with pytest.raises(data.DataNotFoundError, match=r"senteval/MPQA(.|\n)*datasmall_NB_ACL12.zip"):
            data.load_senteval(task)
        return
    got = data.load_senteval(task)
    assert (got.name, got.texts, got.labels, got.label_names, got.splits) == \
        (course.name, course.texts, course.labels, course.label_names, course.splits)


def test_allnli_from_the_hub_equals_the_tsv(stub, fixtures_dir):
    from hubdata import _NLI_ID, _parquet
    tsv = fixtures_dir / "data" / "AllNLI.tsv.gz"
    ds = hub.dataset("allnli")
    files = {}
    for split in ("train", "dev", "test"):
        rows = [{"premise": p.premise, "hypothesis": p.hypothesis, "label": _NLI_ID[p.label]}
                for p in data.load_allnli(split, path=tsv)]
        files[ds.files[split]] = _parquet(rows, {"premise": "str", "hypothesis": "str", "label": "int"})
    stub.add(ds.repo_id, ds.revision, files)
    for split in ("train", "dev", "test"):
        from_tsv = data.load_allnli(split, path=tsv)
        assert from_tsv, f"the fixture has no {split} pairs: the comparison would prove nothing"
        _same(from_tsv, data.load_allnli(split))


def test_local_folder_wins_and_the_hub_is_not_asked(stub, shared_data, monkeypatch):
    monkeypatch.setenv("SBERTLIB_DATA_DIR", str(shared_data))
    assert len(data.load_stsb("test")) == 1379
    assert stub.requests == []


def test_cut_off_download_resumes_with_a_range_request(stub):
    """huggingface_hub writes in 10 MB chunks: a file of 12 MB cut after 11 MB resumes from 10 MB."""
    payload = os.urandom(12 << 20)
    stub.add("mteb/stsbenchmark-sts", hub.dataset("stsb").revision, {"test.jsonl.gz": payload})
    stub.cut_after["test.jsonl.gz"] = 11 << 20
    assert hub.hub_file("stsb", "test").read_bytes() == payload
    gets = [r for r in stub.requests if r[0] == "GET" and r[1].endswith("test.jsonl.gz")]
    assert [r[2] for r in gets] == [None, f"bytes={10 << 20}-"]


def test_cut_off_download_of_a_small_file_is_retried_whole(stub, shared_data, course_hub_files):
    files = course_hub_files["stsb"]
    stub.add("mteb/stsbenchmark-sts", hub.dataset("stsb").revision, files)
    stub.cut_after["test.jsonl.gz"] = len(files["test.jsonl.gz"]) // 2
    _same(data.load_stsb("test", shared_data), data.load_stsb("test"))
    assert len([r for r in stub.requests if r[0] == "GET" and r[1].endswith("test.jsonl.gz")]) == 2


def test_file_whose_hash_does_not_match_is_refused_and_leaves_nothing(stub, course_hub_files, no_local_data):
    stub.add("mteb/stsbenchmark-sts", hub.dataset("stsb").revision, course_hub_files["stsb"])
    stub.corrupt.add("test.jsonl.gz")
    with pytest.raises(data.ChecksumError, match=r"'test.jsonl.gz' of dataset mteb/stsbenchmark-sts at revision "
                                                 r"b0fddb56ed78048fa8b90373c8a3cfc37b684831.*removed from the cache"):
        data.load_stsb("test")
    cache = no_local_data / "hub-cache"
    left = [p for p in cache.rglob("*") if p.is_file() and ".locks" not in p.parts and p.name != "CACHEDIR.TAG"]
    assert left == []
    stub.corrupt.clear()  # a later try downloads it again, whole
    assert len(data.load_stsb("test")) == len(data.load_stsb("test", None))


def test_unknown_repository_revision_and_file_are_named(stub, monkeypatch):
    monkeypatch.setitem(hub.CATALOGUE, "gone", hub.HubDataset("gone", "someone/gone", "0" * 40,
                                                              {"test": "t.jsonl"}, ""))
    with pytest.raises(data.DataNotFoundError, match="dataset repository 'someone/gone' not found"):
        hub.hub_file("gone", "test")
    stub.add("someone/gone", "1" * 40, {"t.jsonl": b"{}\n"})
    with pytest.raises(data.DataNotFoundError, match=f"revision {'0' * 40} of dataset repository 'someone/gone'"):
        hub.hub_file("gone", "test")
    monkeypatch.setitem(hub.CATALOGUE, "gone", hub.HubDataset("gone", "someone/gone", "1" * 40,
                                                              {"test": "other.jsonl"}, ""))
    with pytest.raises(data.DataNotFoundError, match="'other.jsonl' of dataset someone/gone.*no such file"):
        hub.hub_file("gone", "test")
    with pytest.raises(ValueError, match="no Hub data set named 'nope'; known: allnli"):
        hub.hub_file("nope", "test")
    with pytest.raises(ValueError, match=r"has splits \['test'\], not 'train'"):
        hub.hub_file("gone", "train")


@pytest.mark.parametrize("how", ["HF_HUB_OFFLINE", "nothing listening", "SBERTLIB_DATA_SOURCE"])
def test_offline_fails_fast_naming_what_is_missing_and_how_to_provide_it(how, no_local_data, monkeypatch):
    if how == "HF_HUB_OFFLINE":
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    elif how == "SBERTLIB_DATA_SOURCE":
        monkeypatch.setenv("SBERTLIB_DATA_SOURCE", "local")
    else:
        with HubStub() as s:
            url = s.url  # a port that was ours a moment ago: nothing listens there now
        monkeypatch.setenv("HF_ENDPOINT", url)
    start = time.perf_counter()
    with pytest.raises(data.DataNotFoundError) as err:
        data.load_sts_dataset("sts14")
    assert time.perf_counter() - start < 2
    msg = str(err.value)
    assert "sts/STS14/" in msg and ("mteb/sts14-sts" in msg or how == "SBERTLIB_DATA_SOURCE")
    assert "SBERTLIB_DATA_DIR" in msg
    if how != "SBERTLIB_DATA_SOURCE":
        assert "python -m sbertlib fetch --datasets sts14" in msg


def test_explicit_data_dir_is_the_only_place_asked(stub, tmp_path):
    with pytest.raises(data.DataNotFoundError, match="stsbenchmark/sts-test.csv"):
        data.load_stsb("test", tmp_path / "empty")
    assert stub.requests == []


def test_a_cached_file_is_used_offline(stub, course_hub_files, monkeypatch):
    stub.add("mteb/sts15-sts", hub.dataset("sts15").revision, course_hub_files["sts15"])
    first = data.load_sts_dataset("sts15")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    asked = len(stub.requests)
    assert data.load_sts_dataset("sts15") == first and len(stub.requests) == asked


def test_bad_rows_are_named(stub):
    stub.add("mteb/sts16-sts", hub.dataset("sts16").revision,
             {"test.jsonl.gz": __import__("gzip").compress(b'{"sentence1": "a", "sentence2": "b", "score": 2}\n'
                                                           b'{"sentence1": "a", "score": 2}\n')})
    with pytest.raises(data.DataFormatError, match=r"row 2: lacks column\(s\) \['sentence2'\]"):
        data.load_sts_dataset("sts16")


def test_fetch_profile_gets_every_data_set_and_says_from_where(stub, shared_data, course_hub_files,
                                                               no_local_data, monkeypatch, capsys):
    import shutil

    from sbertlib.cli import fetch
    serve_course(stub, shared_data)
    trec_only = no_local_data / "trec-only"  # a local folder holding just TREC: it wins, the rest is the Hub's
    shutil.copytree(shared_data / "senteval" / "TREC", trec_only / "senteval" / "TREC")
    monkeypatch.setenv("SBERTLIB_DATA_DIR", str(trec_only))
    assert fetch.main(["--profile", "smoke"]) == 0
    out = capsys.readouterr().out
    assert "[OK] data stsb: 3 file(s)" in out and "from the Hub, mteb/stsbenchmark-sts at b0fddb56ed78" in out
    assert "[OK] data sick: 3 file(s)" in out and \
        "RobZamp/sick at refs/convert/parquet (a branch, not pinned; it resolved to commit " in out
    assert f"[OK] data trec: from the local data folder ({trec_only})" in out
    assert "[SKIP] data mpqa: no Hub copy" in out
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # everything is cached now: a second run asks nobody
    asked = len(stub.requests)
    assert fetch.main(["--datasets", "stsb,sts12"]) == 0 and len(stub.requests) == asked
    with pytest.raises(SystemExit):
        fetch.main(["--datasets", "nope"])
    assert "unknown data set(s) ['nope']" in capsys.readouterr().err
