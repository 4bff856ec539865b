"""The oldest huggingface_hub pyproject.toml allows: sbertlib.data.hub imports its error classes wherever
that version keeps them (``huggingface_hub.errors`` only from 0.25; ``huggingface_hub.utils`` before), so a
failed download is explained, never turned into an ImportError that crashes ``fetch``."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from sbertlib import config, data
from sbertlib.data import hub

from hubstub import HubStub

ROOT = Path(__file__).resolve().parents[1]
ERRORS = ("RepositoryNotFoundError", "RevisionNotFoundError", "EntryNotFoundError", "LocalEntryNotFoundError")


def floor_version() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    m = re.search(r'"huggingface_hub>=([0-9.]+)"', text)
    assert m, "pyproject.toml declares no huggingface_hub floor"
    return m.group(1)


def _modules(**names) -> dict[str, types.ModuleType]:
    out = {}
    for module, classes in names.items():
        out[module] = types.ModuleType(module)
        for name, cls in classes.items():
            setattr(out[module], name, cls)
    return out


def test_error_classes_come_from_utils_where_errors_lacks_them(monkeypatch):
    """As in 0.23 and 0.24: ``huggingface_hub.errors`` without the download errors, ``utils`` with them."""
    real = {name: hub.hub_error_class(name) for name in ERRORS}
    assert all(cls.__module__.startswith("huggingface_hub") for cls in real.values()), real
    fake = _modules(errors={}, utils=real)
    monkeypatch.setitem(sys.modules, "huggingface_hub.errors", fake["errors"])
    monkeypatch.setitem(sys.modules, "huggingface_hub.utils", fake["utils"])
    for name in ERRORS:
        assert hub.hub_error_class(name) is real[name]


def test_without_any_module_holding_them_a_failed_download_is_still_explained(tmp_path, monkeypatch):
    """Not one error class to be found while the failure is explained: still our error, naming the file."""
    for var in ("SBERTLIB_DATA_DIR", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "SBERTLIB_DATA_SOURCE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    monkeypatch.setattr(config, "default_data_dir", lambda: tmp_path / "no-data-here")
    monkeypatch.chdir(tmp_path)
    config.hub_reachable.cache_clear()
    explain = hub._download_error

    def without_error_modules(*args):
        with pytest.MonkeyPatch.context() as mp:
            for module in ("huggingface_hub.errors", "huggingface_hub.utils", "huggingface_hub.utils._errors"):
                mp.setitem(sys.modules, module, types.ModuleType(module))
            return explain(*args)
    monkeypatch.setattr(hub, "_download_error", without_error_modules)
    try:
        with HubStub() as stub:
            monkeypatch.setenv("HF_ENDPOINT", stub.url)
            with pytest.raises(data.DataNotFoundError, match=r"'test.jsonl.gz' of dataset mteb/sts14-sts.*the "
                                                             r"download failed \(RepositoryNotFoundError"):
                hub.hub_file("sts14", "test")
    finally:
        config.hub_reachable.cache_clear()


_FLOOR_SCRIPT = textwrap.dedent("""
    import gzip, os, sys, tempfile
    import huggingface_hub
    print("VERSION", huggingface_hub.__version__)
    from sbertlib import config, data
    from sbertlib.data import hub
    from hubstub import HubStub
    tmp = tempfile.mkdtemp()
    os.environ.update({"HF_HUB_CACHE": os.path.join(tmp, "cache"), "SBERTLIB_HUB_REQUEST_TIMEOUT": "1",
                       "SBERTLIB_HUB_WAIT": "3"})
    for var in ("HF_HUB_OFFLINE", "SBERTLIB_DATA_DIR", "SBERTLIB_DATA_SOURCE"):
        os.environ.pop(var, None)
    config.default_data_dir = lambda: __import__("pathlib").Path(tmp) / "none"
    os.chdir(tmp)
    ds = hub.dataset("sts14")

    def attempt(label, call):
        try:
            out = call()
            print(label, "OK", out)
        except Exception as exc:
            print(label, type(exc).__name__, str(exc).replace(chr(10), " "))

    with HubStub() as stub:
        os.environ["HF_ENDPOINT"] = stub.url
        attempt("NOREPO", lambda: hub.hub_file("sts14", "test"))
        stub.add(ds.repo_id, "1" * 40, {"test.jsonl.gz": b"x"})
        attempt("NOREVISION", lambda: hub.hub_file("sts14", "test"))
        stub.add("mteb/sts13-sts", hub.dataset("sts13").revision, {"other.jsonl.gz": b"x"})
        attempt("NOFILE", lambda: hub.hub_file("sts13", "test"))
        row = gzip.compress(b'{"sentence1": "a", "sentence2": "b", "score": 1}')
        stub.add(ds.repo_id, ds.revision, {"test.jsonl.gz": row})
        attempt("GOOD", lambda: len(hub.rows("sts14", "test")[1]))
        stub.add("mteb/sts15-sts", hub.dataset("sts15").revision, {"test.jsonl.gz": b"x"})
        stub.rate_limit = 3600
        attempt("RATELIMIT", lambda: hub.hub_file("sts15", "test"))
        stub.rate_limit = None
        stub.hang = True
        attempt("HANG", lambda: hub.hub_file("sts15", "test"))
""")


@pytest.mark.slow
def test_the_declared_floor_imports_and_explains_failed_downloads(tmp_path):
    """huggingface_hub at pyproject.toml's floor, installed beside this environment (pip --target, no
    dependencies: this environment's requests, filelock, ... serve it), then real downloads from the stub."""
    floor = floor_version()
    target = tmp_path / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                          f"huggingface_hub=={floor}.*"], capture_output=True, text=True, timeout=600)
    if pip.returncode != 0:
        pytest.skip(f"cannot install huggingface_hub=={floor}.* here: {pip.stderr.strip().splitlines()[-1:]}")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT), str(ROOT / "tests")])}
    run = subprocess.run([sys.executable, "-c", _FLOOR_SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    out = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in run.stdout.splitlines() if " " in line}
    assert out["VERSION"].startswith(floor), out
    assert out["NOREPO"].startswith("HubCopyMissing")
    assert "dataset repository 'mteb/sts14-sts' not found" in out["NOREPO"]
    assert out["NOREVISION"].startswith("HubCopyMissing") and "revision " in out["NOREVISION"]
    assert out["NOFILE"].startswith("DataNotFoundError") and "no such file in that revision" in out["NOFILE"]
    assert out["GOOD"] == "OK 1"
    assert out["RATELIMIT"].startswith("HubUnavailableError") and "Retry-After 3600 s" in out["RATELIMIT"]
    assert out["HANG"].startswith("HubUnavailableError") and "no answer within" in out["HANG"]
    assert "ImportError" not in run.stdout + run.stderr
