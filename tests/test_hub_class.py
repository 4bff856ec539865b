"""A class on one server: a shared read-only Hugging Face cache, a Hub that rate-limits or never answers,
Hub copies that vanish, a slow network, empty course files. Tested against the real huggingface_hub
client talking to the stand-in Hub on 127.0.0.1 (tests/hubstub.py); huggingface_hub is never mocked."""
from __future__ import annotations

import io
import os
import shutil
import stat
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest

from sbertlib import config, data
from sbertlib.data import files, hub, sources
from sbertlib.model import backbones

from hubdata import course_files, course_hub_files, no_local_data, stub  # noqa: F401 (fixtures)
from hubstub import HubStub

pytest.importorskip("pyarrow")
ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- settings
def test_hub_settings_have_documented_defaults_and_bad_values_are_named(monkeypatch):
    for var in (config.HUB_TIMEOUT_ENV, config.HUB_REQUEST_TIMEOUT_ENV, config.HUB_WAIT_ENV):
        monkeypatch.delenv(var, raising=False)
    assert (config.hub_timeout(), config.hub_request_timeout(), config.hub_wait()) == (5.0, 10.0, 60.0)
    monkeypatch.setenv("SBERTLIB_HUB_WAIT", "2.5")
    assert config.hub_wait() == 2.5
    for bad in ("soon", "0", "-1", "inf"):
        monkeypatch.setenv("SBERTLIB_HUB_TIMEOUT", bad)
        with pytest.raises(ValueError, match=rf"\$SBERTLIB_HUB_TIMEOUT='{bad}': expected a number of seconds"):
            config.hub_timeout()
    readme = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    for var in (config.HUB_TIMEOUT_ENV, config.HUB_REQUEST_TIMEOUT_ENV, config.HUB_WAIT_ENV):
        assert var in readme, f"data/README.md does not document ${var}"


def test_reachability_check_waits_the_setting_and_says_once_when_it_gives_up(no_local_data, monkeypatch, capsys):
    asked = []
    real = config._can_connect
    monkeypatch.setattr(config, "_can_connect", lambda h, p, t: asked.append(t) or real(h, p, t))
    with HubStub() as s:
        url = s.url  # a port that was ours a moment ago: nothing listens there now
    monkeypatch.setenv("HF_ENDPOINT", url)
    monkeypatch.setenv("SBERTLIB_HUB_TIMEOUT", "0.7")
    assert config.hub_reachable() is False
    config._REACHABLE.clear()  # asked again after the 30 s reuse: no second line
    assert config.hub_reachable() is False
    assert asked == [0.7, 0.7]
    err = capsys.readouterr().err
    assert err.count("did not accept a connection") == 1
    assert url in err and "at most 0.7 s" in err and "SBERTLIB_HUB_TIMEOUT=<seconds>" in err
    monkeypatch.delenv("SBERTLIB_HUB_TIMEOUT")
    config.hub_reachable.cache_clear()
    config.hub_reachable()
    assert asked[-1] == 5.0  # the default: a slow campus network is not taken as offline after 1.5 s


# ----------------------------------------------------------------------------- a Hub under a whole class
def _lecturer_advice(msg: str) -> None:
    assert "python -m sbertlib fetch --profile" in msg and "HF_HUB_CACHE" in msg


def test_rate_limited_hub_fails_at_once_saying_retry_after_and_what_to_do(stub, course_hub_files, monkeypatch):
    stub.add("mteb/stsbenchmark-sts", hub.dataset("stsb").revision, course_hub_files["stsb"])
    stub.rate_limit = 3600
    monkeypatch.setenv("SBERTLIB_HUB_WAIT", "20")
    start = time.perf_counter()
    with pytest.raises(hub.HubUnavailableError) as err:
        data.load_stsb("test")
    assert time.perf_counter() - start < 10  # not an hour: huggingface_hub's announced wait is refused at once
    msg = str(err.value)
    assert "rate-limited" in msg and "HTTP 429" in msg and "Retry-After 3600 s" in msg
    assert stub.url in msg and "'test.jsonl.gz' of dataset mteb/stsbenchmark-sts" in msg
    _lecturer_advice(msg)
    assert isinstance(err.value, data.DataNotFoundError)  # fetch reports it as [FAIL] and goes on


def test_a_short_rate_limit_wait_is_honoured(stub, course_hub_files, shared_data, monkeypatch):
    stub.add("mteb/stsbenchmark-sts", hub.dataset("stsb").revision, course_hub_files["stsb"])
    stub.rate_limit, stub.rate_limit_count = 1, 2  # the first HEAD and its retry: Retry-After 1 s, within the bound
    monkeypatch.setenv("SBERTLIB_HUB_WAIT", "20")
    assert data.load_stsb("test") == data.load_stsb("test", shared_data)
    assert stub.rate_limit_count == 0


def test_hub_that_never_answers_fails_within_the_bound_saying_so(stub, course_hub_files, monkeypatch):
    stub.add("mteb/stsbenchmark-sts", hub.dataset("stsb").revision, course_hub_files["stsb"])
    stub.hang = True
    monkeypatch.setenv("SBERTLIB_HUB_REQUEST_TIMEOUT", "1")
    monkeypatch.setenv("SBERTLIB_HUB_WAIT", "2")
    start = time.perf_counter()
    with pytest.raises(hub.HubUnavailableError) as err:
        data.load_stsb("test")
    took = time.perf_counter() - start
    assert took < 8, f"waited {took:.1f} s"
    msg = str(err.value)
    assert "accepted the connection but sent no answer within" in msg
    assert stub.url in msg and "test.jsonl.gz" in msg and "SBERTLIB_HUB_WAIT" in msg
    _lecturer_advice(msg)


@pytest.mark.parametrize("fault", ["rate_limit", "hang"])
def test_model_download_is_bounded_too_and_follows_its_recorded_revision(fault, stub, monkeypatch, capsys):
    name = "google/bert_uncased_L-4_H-256_A-4"
    monkeypatch.setenv("SBERTLIB_HUB_REQUEST_TIMEOUT", "1")
    monkeypatch.setenv("SBERTLIB_HUB_WAIT", "2")
    monkeypatch.setattr(backbones, "_SAID_UNPINNED", set())
    setattr(stub, fault, 3600 if fault == "rate_limit" else True)
    start = time.perf_counter()
    with pytest.raises(backbones.BackboneNotAvailable) as err:
        backbones.load_backbone(name)
    assert time.perf_counter() - start < 8
    msg = str(err.value)
    assert f"model {name!r} at revision main" in msg and stub.url in msg
    assert ("Retry-After 3600 s" in msg) if fault == "rate_limit" else ("no answer within" in msg)
    _lecturer_advice(msg)
    assert any(f"/{name}/revision/main" in r[1] for r in stub.requests)
    assert "not a pinned commit" in capsys.readouterr().err


def test_an_abandoned_download_stops_before_it_can_break_a_later_one(stub, course_hub_files, monkeypatch):
    """huggingface_hub closes the HTTP client all its downloads share when a connection is refused; a
    download sbertlib gave up on must not go on retrying against a Hub that went away and close that
    client under the next download (CI saw "Bad file descriptor" in an unrelated test)."""
    import threading
    from huggingface_hub.utils import _http
    closed_by: list[str] = []
    real_close = _http.close_session
    monkeypatch.setattr(_http, "close_session",
                        lambda: (closed_by.append(threading.current_thread().name), real_close())[1])
    stub.add("mteb/stsbenchmark-sts", hub.dataset("stsb").revision, course_hub_files["stsb"])
    stub.hang = True
    monkeypatch.setenv("SBERTLIB_HUB_REQUEST_TIMEOUT", "1")
    monkeypatch.setenv("SBERTLIB_HUB_WAIT", "1")
    before = set(threading.enumerate())  # earlier tests' abandoned threads may still sleep out a Retry-After
    with pytest.raises(hub.HubUnavailableError):
        data.load_stsb("test")
    abandoned = [t for t in set(threading.enumerate()) - before if t.name == "sbertlib-hub-download"]
    assert abandoned
    stub.stop()  # the Hub goes away: the abandoned thread's next try would be refused
    for t in abandoned:
        t.join(30)
    assert not any(t.is_alive() for t in abandoned), "the abandoned download kept retrying"
    assert "sbertlib-hub-download" not in closed_by, "an abandoned download closed the shared HTTP client"


# ----------------------------------------------------------------------------- pins
def test_every_data_set_is_pinned_to_a_commit_or_falls_back_to_its_original_files():
    for ds in hub.CATALOGUE.values():
        if hub.is_pinned(ds) and not ds.revision_note:
            continue
        why = "a branch" if not hub.is_pinned(ds) else ds.revision_note
        assert ds.fallback, f"{ds.name}: {ds.revision} is {why}, and no original files to fall back to"
        local = hub.LOCAL_FILES[ds.name]
        missing = [rel for rel in local.values() if not sources.original_url(rel)]
        assert not missing, f"{ds.name}: no published original for {missing}"
    unpinned = {n for n, ds in hub.CATALOGUE.items() if not hub.is_pinned(ds)}
    assert unpinned <= {"sick", "trec", "cr", "sst2"}, f"newly unpinned: {sorted(unpinned)}"


def test_every_hub_model_a_profile_names_has_a_recorded_revision():
    from sbertlib.workbook import profiles
    for profile in profiles.PROFILES.values():
        for name in profiles.hub_models(profile):
            assert name in backbones.MODEL_REVISIONS, f"{profile.name}: {name} has no recorded revision"
    for name, rev in backbones.MODEL_REVISIONS.items():
        assert rev == "main" or (len(rev) == 40 and all(c in "0123456789abcdef" for c in rev)), (name, rev)
    readme = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    for name in backbones.MODEL_REVISIONS:
        assert name in readme


# ----------------------------------------------------------------------------- Hub copies that vanish
def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, body in files.items():
            z.writestr(name, body)
    return buf.getvalue()


@pytest.fixture
def originals(stub, shared_data, monkeypatch):
    """The Hub holds the repositories of SICK, TREC, MR, CR and SST2, without the revisions the catalogue
    names (the Parquet branch deleted, the pull request gone, main gone); their original files on 127.0.0.1."""
    for name in ("sick", "trec", "mr", "cr", "sst2"):
        stub.add(hub.dataset(name).repo_id, ("abcdef0123" * 4)[:40], {"README.md": b"# moved on\n"})
        stub.repos[("datasets", hub.dataset(name).repo_id)].branches.discard("main")
    for split, fname in (("train", "SICK_train.txt"), ("trial", "SICK_trial.txt"),
                         ("test_annotated", "SICK_test_annotated.txt")):
        stub.static[f"sick_{split}.zip"] = _zip({fname: (shared_data / "sick" / fname).read_bytes()})
        monkeypatch.setitem(sources.ARCHIVE_SOURCES, f"sick/{fname}", stub.static_url(f"sick_{split}.zip"))
    for fname in ("train_5500.label", "TREC_10.label"):
        stub.static[fname] = (shared_data / "senteval" / "TREC" / fname).read_bytes()
        monkeypatch.setitem(sources.SOURCES, f"senteval/TREC/{fname}", stub.static_url(fname))
    senteval = shared_data / "senteval"
    stub.static["datasmall_NB_ACL12.zip"] = _zip({
        **{f"data/rt10662/{f}": (senteval / "MR" / f).read_bytes() for f in ("rt-polarity.pos", "rt-polarity.neg")},
        **{f"data/customerr/{f}": (senteval / "CR" / f).read_bytes() for f in ("custrev.pos", "custrev.neg")}})
    for task in ("MR", "CR"):
        monkeypatch.setitem(sources.ARCHIVE_SOURCES, f"senteval/{task}/", stub.static_url("datasmall_NB_ACL12.zip"))
    for split in ("train", "dev", "test"):
        stub.static[f"sentiment-{split}"] = (senteval / "SST" / "binary" / f"sentiment-{split}").read_bytes()
        monkeypatch.setitem(sources.SOURCES, f"senteval/SST/binary/sentiment-{split}",
                            stub.static_url(f"sentiment-{split}"))
    monkeypatch.setattr(files, "_SAID_ORIGINAL", set())
    return stub


def test_vanished_parquet_branch_falls_back_to_the_original_files_saying_so(originals, shared_data, capsys,
                                                                            monkeypatch):
    stub = originals
    assert data.load_sick("test") == data.load_sick("test", shared_data)
    assert data.load_sick_nli("train") == data.load_sick_nli("train", shared_data)
    err = capsys.readouterr().err
    assert "sick: the Hub's copy is gone (revision refs/convert/parquet of dataset repository 'RobZamp/sick' " \
           "not found" in err
    assert f"using the original file 'sick/SICK_test_annotated.txt'" in err
    assert stub.static_url("sick_test_annotated.zip") in err and "SemEval 2014" in err
    for task in ("TREC", "MR", "CR", "SST2"):
        got, course = data.load_senteval(task), data.load_senteval(task, shared_data)
        assert (got.texts, got.labels, got.label_names) == (course.texts, course.labels, course.label_names)
    err = capsys.readouterr().err
    assert "trec: the Hub's copy is gone" in err and stub.static_url("train_5500.label") in err
    assert "mr: the Hub's copy is gone (revision b6059de032aed3fea5bfadcbef8d375559c6bfd9" in err
    assert "cr: the Hub's copy is gone (revision main of dataset repository 'SetFit/SentEval-CR'" in err
    assert "sst2: the Hub's copy is gone" in err and stub.static_url("sentiment-train") in err
    assert stub.requests.count(("GET", "/static/datasmall_NB_ACL12.zip", None)) == 1  # MR's and CR's, once
    # the originals are kept in the Hugging Face cache: offline now, a class reads them from there
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    asked = len(stub.requests)
    assert data.load_sick("test") == data.load_sick("test", shared_data)
    assert len(stub.requests) == asked


def test_fetch_says_which_source_it_used(originals, capsys):
    from sbertlib.cli import fetch
    assert fetch.main(["--datasets", "sick,trec"]) == 0
    out = capsys.readouterr().out
    assert "[OK] data sick: 3 file(s)" in out and "of the original files (SemEval 2014 task 1's own files" in out
    assert originals.static_url("sick_train.zip") in out and "the Hub's copy is gone" in out
    assert "[OK] data trec: 2 file(s)" in out and originals.static_url("TREC_10.label") in out


def test_unpinned_branch_is_said_and_its_commit_reported(stub, course_hub_files, capsys, monkeypatch):
    from sbertlib.cli import fetch
    monkeypatch.setattr(hub, "_SAID_UNPINNED", set())
    stub.add("RobZamp/sick", "refs/convert/parquet", course_hub_files["sick"])
    assert fetch.main(["--datasets", "sick"]) == 0
    captured = capsys.readouterr()
    commit = stub.repos[("datasets", "RobZamp/sick")].commit
    assert (f"RobZamp/sick at refs/convert/parquet (a branch, not pinned; it resolved to commit {commit})"
            in captured.out)
    assert "sick: RobZamp/sick is read at 'refs/convert/parquet', a branch, not a pinned commit" in captured.err


# ----------------------------------------------------------------------------- a shared, read-only cache
def _student_reads() -> str:
    """What a student's process sees: the good file, then the damaged one (offline, as a class often is)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    lines = [f"GOOD {len(data.load_stsb('dev'))}"]
    try:
        data.load_stsb("test")
    except data.ChecksumError as exc:
        lines.append(f"DAMAGED {exc}")
    except BaseException as exc:
        lines.append(f"OTHER {type(exc).__name__} {exc}")
    else:
        lines.append("LOADED")
    return "\n".join(lines)


def _as_nobody(read) -> str:
    """``read()`` in a forked child that became the user nobody (uid 65534), for a root test run: root
    writes through any chmod. Forked, not started afresh: this interpreter lives under /root, which nobody
    may not enter, and everything the reads need is imported already."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(rfd)
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            out = read()
        except BaseException as exc:
            out = f"CHILD {type(exc).__name__} {exc}"
        os.write(wfd, out.encode())
        os._exit(0)
    os.close(wfd)
    chunks = []
    while chunk := os.read(rfd, 1 << 16):
        chunks.append(chunk)
    os.close(rfd)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode()


def _chmod_tree(root: Path, writable: bool) -> None:
    for place in [root, *root.rglob("*")]:
        if place.is_symlink():
            continue
        mode = place.stat().st_mode
        mode = mode | stat.S_IWUSR if writable else mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
        os.chmod(place, mode)


def test_shared_read_only_cache_serves_good_files_and_names_a_damaged_one(stub, course_hub_files, monkeypatch):
    """The lecturer fills a cache with fetch; it is made read-only; one file is damaged. The students' reads
    run in a process that cannot write it: as root (where chmod stops nothing) as the user nobody."""
    from sbertlib.cli import fetch
    shared = Path(tempfile.mkdtemp(prefix="sbert-shared-", dir="/tmp"))
    try:
        os.chmod(shared, 0o755)
        cache = shared / "hf-cache"
        monkeypatch.setenv("HF_HUB_CACHE", str(cache))
        stub.add("mteb/stsbenchmark-sts", hub.dataset("stsb").revision, course_hub_files["stsb"])
        assert fetch.main(["--datasets", "stsb"]) == 0  # the lecturer
        damaged = hub.hub_file("stsb", "test")
        blob = damaged.resolve()
        body = bytearray(blob.read_bytes())
        body[len(body) // 2] ^= 0xFF
        blob.write_bytes(bytes(body))
        _chmod_tree(cache, writable=False)
        data.load_stsb("dev")  # imported and read once as the lecturer: the child needs no new import
        empty = shared / "no-data"  # the student's folders: nothing there, and nothing nobody may not enter
        empty.mkdir(mode=0o755)
        monkeypatch.chdir(empty)
        monkeypatch.setattr(config, "default_data_dir", lambda: empty / "data")
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        hub._VERIFIED.clear()
        if os.geteuid() == 0:  # root writes through any chmod: read as the unprivileged user nobody
            out = _as_nobody(_student_reads)
        else:
            out = _student_reads()
        assert out.startswith("GOOD 1500"), out
        line = out.splitlines()[1]
        assert line.startswith("DAMAGED"), line
        assert f"{damaged} is damaged" in line
        assert "python -m sbertlib fetch --datasets stsb" in line and f"HF_HUB_CACHE={cache}" in line
        assert "read-only" in line
        assert blob.is_file() and damaged.is_symlink()  # left for the lecturer: the student could not remove it
        _chmod_tree(cache, writable=True)  # the lecturer does what the message says: fetch again, once
        monkeypatch.delenv("HF_HUB_OFFLINE")
        assert fetch.main(["--datasets", "stsb"]) == 0
        assert len(data.load_stsb("test")) == 1379
    finally:
        _chmod_tree(shared, writable=True)
        shutil.rmtree(shared, ignore_errors=True)


def test_a_half_copied_file_read_offline_is_named_as_damaged_not_as_missing(stub, course_hub_files, monkeypatch,
                                                                            tmp_path):
    """A cache copied by hand and cut off: offline, the file is there but damaged. The message says so, and what to
    do online (it is fetched again by itself) and offline (copy the cache again) — not "not in the cache"."""
    from sbertlib.cli import fetch
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    stub.add("mteb/stsbenchmark-sts", hub.dataset("stsb").revision, course_hub_files["stsb"])
    assert fetch.main(["--datasets", "stsb"]) == 0
    cut = hub.hub_file("stsb", "test")
    blob = cut.resolve()
    blob.write_bytes(blob.read_bytes()[: blob.stat().st_size // 2])   # half of it copied
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub._VERIFIED.clear()
    with pytest.raises(hub.HubCopyMissing) as missing:
        hub.hub_file("stsb", "test")
    said = str(missing.value)
    assert "was in the Hugging Face cache but damaged" in said and str(cut) in said and "half-copied" in said
    assert "HF_HUB_OFFLINE is set" in said and "Online, it is fetched again" in said and "copy the cache again" in said
    assert "is not in the Hugging Face cache" not in said
    monkeypatch.delenv("HF_HUB_OFFLINE")   # online: fetched again by itself
    assert len(data.load_stsb("test")) == 1379


def test_read_only_cache_without_the_file_says_the_lecturer_should_fetch(stub, course_hub_files, monkeypatch,
                                                                         no_local_data):
    cache = no_local_data / "hub-cache"
    cache.mkdir()
    monkeypatch.setattr(hub, "cache_writable", lambda place=None: False)  # as a student sees a shared cache
    stub.add("mteb/stsbenchmark-sts", hub.dataset("stsb").revision, course_hub_files["stsb"])
    with pytest.raises(data.DataNotFoundError) as err:
        data.load_stsb("test")
    msg = str(err.value)
    assert "read-only here" in msg and "python -m sbertlib fetch --datasets stsb" in msg and str(cache) in msg
    assert stub.requests == []


# ----------------------------------------------------------------------------- empty course files
def _course_copy(shared_data: Path, tmp_path: Path, rel: str) -> Path:
    shutil.copytree(shared_data / rel, tmp_path / "course" / rel)
    return tmp_path / "course"


@pytest.mark.parametrize("rel, load", [
    ("stsbenchmark/sts-test.csv", lambda d: data.load_stsb("test", d)),
    ("sts/STS12/STS.gs.MSRpar.txt", lambda d: data.load_sts_year(12, d)),
    ("sts/STS12/STS.input.MSRvid.txt", lambda d: data.load_sts_year(12, d)),
    ("sick/SICK_test_annotated.txt", lambda d: data.load_sick("test", d)),
    ("snli/labels.test", lambda d: data.load_snli("test", d)),
    ("senteval/MR/rt-polarity.neg", lambda d: data.load_senteval("MR", d)),
    ("senteval/TREC/TREC_10.label", lambda d: data.load_senteval("TREC", d)),
])
def test_an_empty_course_file_is_named(rel, load, shared_data, tmp_path):
    course = _course_copy(shared_data, tmp_path, rel.split("/")[0])
    (course / rel).write_bytes(b"")
    with pytest.raises(data.DataFormatError, match=rf"{rel} is empty \(no lines\)"):
        load(course)


def test_a_header_only_file_is_named_as_empty(shared_data, tmp_path):
    course = _course_copy(shared_data, tmp_path, "sick")
    path = course / "sick" / "SICK_test_annotated.txt"
    path.write_text(path.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    with pytest.raises(data.DataFormatError, match=r"SICK_test_annotated.txt is empty: it holds its header line"):
        data.load_sick("test", course)


def test_a_split_with_no_rows_in_a_combined_file_is_named(tmp_path):
    import gzip
    stsb = tmp_path / "stsbenchmark.tsv.gz"
    stsb.write_bytes(gzip.compress(b"split\tgenre\tdataset\tyear\tsid\tscore\tsentence1\tsentence2\n"
                                   b"train\tmain-news\tx\t2012\t1\t3.0\tA man.\tA person.\n"))
    assert len(data.load_stsb("train", path=stsb)) == 1
    with pytest.raises(data.DataFormatError, match=r"stsbenchmark.tsv.gz holds no rows of split 'test'"):
        data.load_stsb("test", path=stsb)
    nli = tmp_path / "AllNLI.tsv.gz"
    nli.write_bytes(gzip.compress(b"split\tdataset\tfilename\tsentence1\tsentence2\tlabel\n"
                                  b"train\tSNLI\tx\tA man.\tA person.\tentailment\n"))
    with pytest.raises(data.DataFormatError, match=r"AllNLI.tsv.gz holds no rows of split 'dev'"):
        data.load_allnli("dev", path=nli)


def test_damaged_model_in_a_read_only_cache_says_what_the_lecturer_does(no_local_data, monkeypatch):
    name = "google/bert_uncased_L-4_H-256_A-4"
    commit = "c" * 40
    repo = no_local_data / "hub-cache" / f"models--{name.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True)
    (snap / "config.json").write_text('{"model_type": "bert"}')
    (snap / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":")  # cut short
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(hub, "cache_writable", lambda place=None: False)
    with pytest.raises(backbones.DamagedWeights) as err:
        backbones.load_backbone(name)
    msg = str(err.value)
    assert f"{snap / 'model.safetensors'} is damaged" in msg and "read-only here" in msg
    assert f"python -m sbertlib fetch --model {name}" in msg and "HF_HUB_CACHE=" in msg


@pytest.fixture
def tiny_model_folder(tmp_path):
    folder = tmp_path / "tiny-bert"
    backbones.tiny_random_bert(0).save_pretrained(folder)
    backbones.bert_uncased_tokenizer().save_pretrained(folder)
    return folder


def test_model_is_downloaded_at_its_recorded_revision(stub, tiny_model_folder, monkeypatch, capsys):
    from sbertlib.cli import fetch
    name = "google/bert_uncased_L-4_H-256_A-4"
    stub.add_folder(name, "main", tiny_model_folder)
    commit = stub.repos[("models", name)].commit
    monkeypatch.setattr(backbones, "_SAID_UNPINNED", set())
    assert fetch.main(["--model", name]) == 0  # recorded at main: followed, and said to be unpinned
    captured = capsys.readouterr()
    assert f"[OK] model {name}: " in captured.out and f"snapshots/{commit}" in captured.out
    assert f"model {name}: downloading branch 'main', not a pinned commit" in captured.err
    assert any(r[1].startswith(f"/api/models/{name}/revision/main") for r in stub.requests)
    assert backbones.load_backbone(name).model.config.hidden_size == backbones.tiny_random_bert(0).config.hidden_size

    pinned = "1234567890" * 4  # a pin: that commit is asked for, and no branch
    stub.add_folder(name, pinned, tiny_model_folder)
    monkeypatch.setitem(backbones.MODEL_REVISIONS, name, pinned)
    monkeypatch.setenv("HF_HUB_CACHE", str(Path(os.environ["HF_HUB_CACHE"]).parent / "cache-2"))  # empty
    stub.requests.clear()
    assert fetch.main(["--model", name]) == 0
    captured = capsys.readouterr()
    assert f"snapshots/{pinned}" in captured.out and "not a pinned commit" not in captured.err
    assert stub.requests and all("/main" not in r[1] for r in stub.requests)
    assert any(f"/resolve/{pinned}/config.json" in r[1] for r in stub.requests)


def test_fetch_replaces_a_damaged_model_file(stub, tiny_model_folder, capsys):
    from sbertlib.cli import fetch
    name = "google/bert_uncased_L-4_H-256_A-4"
    stub.add_folder(name, "main", tiny_model_folder)
    assert fetch.main(["--model", name]) == 0
    weights = backbones.cached_model(name) / "model.safetensors"
    blob = weights.resolve()
    blob.write_bytes(blob.read_bytes()[:100])  # cut short, as by an interrupted copy
    with pytest.raises(backbones.DamagedWeights, match="model.safetensors is damaged"):
        backbones.check_weights(weights.parent)
    assert fetch.main(["--model", name]) == 0  # the lecturer's re-run
    assert "is damaged or incomplete" in capsys.readouterr().err
    backbones.check_weights(weights.parent)
    assert weights.read_bytes() == (tiny_model_folder / "model.safetensors").read_bytes()
