"""The course's data folder written out in the Hub's file formats (each repository's files, columns
and label ids as ``sbertlib.data.hub.CATALOGUE`` names them), to be served by :class:`HubStub`."""
from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from sbertlib import config, data
from sbertlib.data import hub

_NLI_ID = {"entailment": 0, "neutral": 1, "contradiction": 2}


def _jsonl(rows: list[dict], gz: bool) -> bytes:
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
    return gzip.compress(text, mtime=0) if gz else text


def _parquet(rows: list[dict], columns: dict[str, str]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq
    types = {"str": pa.string(), "int": pa.int64(), "float": pa.float64()}
    schema = pa.schema([(c, types[t]) for c, t in columns.items()])
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), buf)
    return buf.getvalue()


def _sts_rows(pairs, split: str) -> list[dict]:
    return [{"split": split, "sentence1": p.sentence1, "sentence2": p.sentence2, "score": p.score} for p in pairs]


def course_files(course: Path) -> dict[str, dict[str, bytes]]:
    """``{catalogue name: {file in the repository: bytes}}`` made from the course folder ``course``."""
    out: dict[str, dict[str, bytes]] = {}
    stsb = hub.dataset("stsb")
    out["stsb"] = {stsb.files[s]: _jsonl([{**r, "genre": p.source.split("/", 1)[1]} for r, p in zip(
        _sts_rows(pairs, s), pairs)], gz=True) for s in ("train", "dev", "test")
        for pairs in [data.load_stsb(s, course)]}
    for year in range(12, 17):
        pairs = [p for ps in data.load_sts_year(year, course).values() for p in ps]
        out[f"sts{year}"] = {"test.jsonl.gz": _jsonl(_sts_rows(pairs, "test"), gz=True)}
    out["sick"] = {hub.dataset("sick").files[s]: _sick_parquet(course, s) for s in ("train", "dev", "test")}
    snli_cols = {"premise": "str", "hypothesis": "str", "label": "int"}
    out["snli"] = {hub.dataset("snli").files[s]: _parquet(
        [{"premise": p.premise, "hypothesis": p.hypothesis, "label": _NLI_ID[p.label]}
         for p in data.load_snli(s, course)] + [{"premise": "no gold", "hypothesis": "label", "label": -1}],
        snli_cols) for s in ("dev", "test")}
    out.update(_senteval_files(course))
    return out


def _sick_parquet(course: Path, split: str) -> bytes:
    rel, nli = data.load_sick(split, course), data.load_sick_nli(split, course)
    rows = [{"id": str(i), "sentence_A": r.sentence1, "sentence_B": r.sentence2, "label": _NLI_ID[n.label],
             "relatedness_score": r.score} for i, (r, n) in enumerate(zip(rel, nli))]
    return _parquet(rows, {"id": "str", "sentence_A": "str", "sentence_B": "str", "label": "int",
                           "relatedness_score": "float"})


def _senteval_files(course: Path) -> dict[str, dict[str, bytes]]:
    out = {}
    mr = data.load_senteval("MR", course)
    text_label = {"text": "str", "label": "int"}
    rows = [{"text": t, "label": y} for t, y in zip(mr.texts, mr.labels)]
    out["mr"] = {"train.parquet": _parquet(rows, text_label), "validation.parquet": _parquet([], text_label),
                 "test.parquet": _parquet([], text_label)}
    out["cr"] = {name: (course / "senteval" / "CR" / name).read_bytes() for name in ("custrev.pos", "custrev.neg")}
    subj = data.load_senteval("SUBJ", course)
    out["subj"] = {"train.jsonl": _jsonl([{"text": t, "label": 1 - y, "label_text": subj.label_names[y]}
                                          for t, y in zip(subj.texts, subj.labels)], gz=False),
                   "test.jsonl": b""}
    sst = data.load_senteval("SST2", course)
    out["sst2"] = {hub.dataset("sst2").files[s]: _jsonl(
        [{"text": t, "label": y, "label_text": sst.label_names[y]} for t, y in zip(*sst.split(s))], gz=False)
        for s in ("train", "dev", "test")}
    trec = data.load_senteval("TREC", course)
    trec_cols = {"text": "str", "coarse_label": "int", "fine_label": "int"}
    out["trec"] = {hub.dataset("trec").files[s]: _parquet(
        [{"text": t, "coarse_label": hub.TREC_HUB_LABELS.index(trec.label_names[y]), "fine_label": 0}
         for t, y in zip(*trec.split(s))], trec_cols) for s in ("train", "test")}
    mrpc = data.load_senteval("MRPC", course)
    pair_cols = {"sentence1": "str", "sentence2": "str", "label": "int", "idx": "int"}

    def pairs(split: str) -> bytes:
        texts, labels = mrpc.split(split)
        return _parquet([{"sentence1": a, "sentence2": b, "label": y, "idx": i}
                         for i, ((a, b), y) in enumerate(zip(texts, labels))], pair_cols)
    out["mrpc"] = {"mrpc/train-00000-of-00001.parquet": pairs("train"),
                   "mrpc/validation-00000-of-00001.parquet": _parquet([], pair_cols),
                   "mrpc/test-00000-of-00001.parquet": pairs("test")}
    return out


def serve_course(stub, course: Path | dict[str, dict[str, bytes]]) -> None:
    """Put the course folder's data (or files :func:`course_files` made of it) on ``stub`` under each
    catalogue entry's repository and revision."""
    for name, files in (course if isinstance(course, dict) else course_files(course)).items():
        ds = hub.dataset(name)
        stub.add(ds.repo_id, ds.revision, files)


# ----------------------------------------------------------------------------- fixtures the Hub tests share
# (a test module imports them by name: `from hubdata import no_local_data, stub, course_hub_files`)
@pytest.fixture
def no_local_data(tmp_path, monkeypatch):
    """No data folder anywhere (as on a fresh clone), the Hub allowed, an empty Hub cache, sbertlib's
    Hub time settings unset."""
    for var in ("SBERTLIB_DATA_DIR", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "SBERTLIB_DATA_SOURCE",
                config.HUB_TIMEOUT_ENV, config.HUB_REQUEST_TIMEOUT_ENV, config.HUB_WAIT_ENV):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(config, "default_data_dir", lambda: tmp_path / "no-data-here")
    config.hub_reachable.cache_clear()
    yield tmp_path
    config.hub_reachable.cache_clear()


@pytest.fixture
def stub(no_local_data, monkeypatch):
    """The local Hub stand-in, named by $HF_ENDPOINT."""
    from hubstub import HubStub
    with HubStub() as s:
        monkeypatch.setenv("HF_ENDPOINT", s.url)
        yield s


@pytest.fixture(scope="module")
def course_hub_files(shared_data):
    return course_files(shared_data)
