"""A small stand-in for the Hugging Face Hub on 127.0.0.1, serving files the tests write.

It answers what ``huggingface_hub.hf_hub_download`` asks — ``HEAD``/``GET
/{datasets/|}{repo}/resolve/{revision}/{path}`` with ``X-Repo-Commit``, ``ETag`` (SHA-256, as for an
LFS file), ``Content-Length``, byte ranges — and the Hub's 404s with ``X-Error-Code``
(``RepoNotFound``, ``RevisionNotFound``, ``EntryNotFound``). Faults on demand: a download cut off
after N bytes (once), a body that differs from its announced hash, a Hub that rate-limits every request
(``rate_limit = 3600``: HTTP 429 with ``Retry-After: 3600``), a Hub that accepts the connection and never
answers (``hang = True``). ``static`` serves plain files at ``/static/<name>`` (an original archive, say).
For ``snapshot_download`` it also answers ``/api/{models|datasets}/{repo}/revision/{rev}`` (the commit
and the files) and ``.../tree/{rev}`` (every file, as LFS files with their SHA-256).
``requests`` logs what was asked.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

_RESOLVE = re.compile(r"^/(?:(datasets|models)/)?(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)$")
# What snapshot_download asks first: the revision's commit, then the files at that commit.
_API = re.compile(r"^/api/(?P<kind>datasets|models)/(?P<repo>[^/]+/[^/]+)/(?P<what>revision|tree)/(?P<rev>[^/?]+)")


@dataclass
class Repo:
    commit: str
    files: dict[str, bytes] = field(default_factory=dict)
    branches: set[str] = field(default_factory=lambda: {"main"})


class HubStub:
    """``with HubStub() as hub: hub.add(...); os.environ["HF_ENDPOINT"] = hub.url``."""

    def __init__(self) -> None:
        self.repos: dict[tuple[str, str], Repo] = {}
        self.cut_after: dict[str, int] = {}  # path -> bytes sent before the first GET is cut off
        self.corrupt: set[str] = set()  # paths served with one byte flipped under the true hash
        self.requests: list[tuple[str, str, str | None]] = []  # (method, path, Range header)
        self.rate_limit: int | None = None  # every request answered 429 with this Retry-After (seconds)
        self.rate_limit_count: int | None = None  # only this many requests rate-limited (None: all of them)
        self.hang = False  # every request read, then no answer until the stub closes
        self.static: dict[str, bytes] = {}  # name -> bytes served at /static/<name>
        self._closing = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def add(self, repo_id: str, revision: str, files: dict[str, bytes], kind: str = "datasets") -> None:
        """Serve ``files`` in ``repo_id`` at ``revision``: a commit hash, or a branch name (then a
        made-up commit stands behind it, as ``X-Repo-Commit`` says)."""
        is_commit = re.fullmatch(r"[0-9a-f]{40}", revision) is not None
        commit = revision if is_commit else hashlib.sha1(revision.encode()).hexdigest()
        repo = self.repos.setdefault((kind, repo_id), Repo(commit))
        repo.commit = commit
        if not is_commit:
            repo.branches.add(revision)
        repo.files.update(files)

    def add_folder(self, repo_id: str, revision: str, folder: Path, kind: str = "models") -> None:
        """Serve every file under ``folder`` (a model folder, say) as a repository."""
        files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
        self.add(repo_id, revision, files, kind)

    def __enter__(self) -> "HubStub":
        self._thread.start()
        return self

    def static_url(self, name: str) -> str:
        return f"{self.url}/static/{name}"

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        """Close the server (again: a no-op): a hanging request ends now, a new connection is refused."""
        if self._closing.is_set():
            return
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()

    # ------------------------------------------------------------------ the HTTP side
    def _lookup(self, path: str):
        m = _RESOLVE.match(path.split("?")[0])
        if m is None:
            return None, "RepoNotFound", None
        kind = m.group(1) or "models"
        repo = self.repos.get((kind, m["repo"]))
        if repo is None:
            return None, "RepoNotFound", None
        if urllib.parse.unquote(m["rev"]) not in {repo.commit, *repo.branches}:
            return None, "RevisionNotFound", repo
        body = repo.files.get(m["path"])
        return (m["path"], body, repo) if body is not None else (None, "EntryNotFound", repo)

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def _error(self, code: str, repo: Repo | None) -> None:
                self.send_response(404)
                self.send_header("X-Error-Code", code)
                self.send_header("X-Error-Message", code)
                if repo is not None and code == "EntryNotFound":
                    self.send_header("X-Repo-Commit", repo.commit)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _serve(self, with_body: bool) -> None:
                stub.requests.append((self.command, self.path, self.headers.get("Range")))
                if stub.hang:  # the connection was accepted and the request read: no answer, ever
                    stub._closing.wait()
                    self.close_connection = True
                    return
                if stub.rate_limit is not None and stub.rate_limit_count != 0:
                    if stub.rate_limit_count is not None:
                        stub.rate_limit_count -= 1
                    self.send_response(429)
                    self.send_header("Retry-After", str(stub.rate_limit))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if self.path.startswith("/static/"):
                    body = stub.static.get(urllib.parse.unquote(self.path[len("/static/"):]))
                    self.send_response(200 if body is not None else 404)
                    self.send_header("Content-Length", str(len(body or b"")))
                    self.end_headers()
                    if with_body and body:
                        self.wfile.write(body)
                    return
                if self.path.startswith("/api/"):
                    return self._api()
                name, body, repo = stub._lookup(self.path)
                if name is None:
                    return self._error(body, repo)
                etag = hashlib.sha256(body).hexdigest()
                if name in stub.corrupt:
                    body = bytes([body[0] ^ 0xFF]) + body[1:]
                start = 0
                m = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
                if m and with_body:
                    start = int(m.group(1))
                self.send_response(206 if start else 200)
                self.send_header("X-Repo-Commit", repo.commit)
                self.send_header("ETag", f'"{etag}"')
                self.send_header("Accept-Ranges", "bytes")
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                self.send_header("Content-Length", str(len(body) - start))
                self.end_headers()
                if not with_body:
                    return
                cut = stub.cut_after.pop(name, None) if start == 0 else None
                if cut is not None:
                    self.wfile.write(body[:cut])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body[start:])

            def _api(self) -> None:
                m = _API.match(self.path)
                repo = stub.repos.get((m["kind"], m["repo"])) if m else None
                if repo is None:
                    return self._error("RepoNotFound", None)
                if urllib.parse.unquote(m["rev"]) not in {repo.commit, *repo.branches}:
                    return self._error("RevisionNotFound", repo)
                files = sorted(repo.files)
                if m["what"] == "revision":
                    answer = {"id": m["repo"], "sha": repo.commit, "siblings": [{"rfilename": f} for f in files]}
                else:
                    answer = [{"type": "file", "path": f, "size": len(repo.files[f]),
                               "oid": hashlib.sha1(b"blob %d\0" % len(repo.files[f]) + repo.files[f]).hexdigest(),
                               "lfs": {"oid": hashlib.sha256(repo.files[f]).hexdigest(), "size": len(repo.files[f]),
                                       "pointerSize": 134}} for f in files]
                body = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("X-Repo-Commit", repo.commit)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command == "GET":
                    self.wfile.write(body)

            def do_HEAD(self) -> None:
                self._serve(False)

            def do_GET(self) -> None:
                self._serve(True)

        return Handler
