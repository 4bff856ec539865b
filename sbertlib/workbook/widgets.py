"""Interactive explorers for JupyterLab (ipywidgets): similarity, semantic search, a model comparer, a speed lab.

Models are given as ``{label: encoder or zero-argument loader}``; loaders run on first use and their encoders are
kept; embeddings are cached per (model, pooling, sentence). Each explorer displays as the live widget and, in the same
output, a static HTML snapshot of what it showed, which a page exported without a kernel shows instead.
"""
from __future__ import annotations

import html
from typing import Callable, Mapping, Sequence

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np

from .. import search
from ..model.similarity import MEASURES, similarity_matrix
from . import plots
from ..errors import SettingError

MAX_HEATMAP = 25      # sentences drawn in the heatmap; more are ranked but not drawn
MAX_LINES = 2000      # lines accepted at all


class ModelBank:
    """Lazily loaded encoders plus an embedding cache keyed by (model, pooling, sentence)."""

    def __init__(self, models: Mapping[str, object | Callable[[], object]]):
        if not models:
            raise SettingError("give at least one model: {label: encoder or loader}")
        self._models = dict(models)
        self._cache: dict[tuple[str, str, str], np.ndarray] = {}

    @property
    def names(self) -> list[str]:
        return list(self._models)

    def get(self, name: str):
        model = self._models[name]
        if callable(model) and not hasattr(model, "encode"):
            model = self._models[name] = model()
        return model

    def embed(self, name: str, sentences: Sequence[str], pooling: str | None = None) -> np.ndarray:
        model = self.get(name)
        pooling = pooling or getattr(model, "pooling", "-")
        missing = list(dict.fromkeys(s for s in sentences if (name, pooling, s) not in self._cache))
        if missing:
            old = getattr(model, "pooling", None)
            if old is not None:
                model.pooling = pooling
            try:
                vectors = model.encode(missing, batch_size=32, show_progress_bar=False)
            finally:
                if old is not None:
                    model.pooling = old
            self._cache.update({(name, pooling, s): v for s, v in zip(missing, vectors)})
        return np.stack([self._cache[(name, pooling, s)] for s in sentences])


def _show_png(fig, output: W.Output) -> bytes:
    """Render ``fig`` as a PNG into ``output`` — whatever matplotlib backend the kernel runs —
    and close it, so the inline backend does not draw it a second time. Returns the PNG."""
    import io

    from IPython.display import Image, display
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", dpi=90)
    plt.close(fig)
    with output:
        display(Image(data=buf.getvalue()))
    return buf.getvalue()


def _img_html(png: bytes | None) -> str:
    import base64
    return "" if png is None else f"<img src='data:image/png;base64,{base64.b64encode(png).decode()}'>"


class _Explorer:
    """Shared display: the live widget plus a static snapshot (``text/html``) for kernel-less pages."""

    widget: W.Widget

    def snapshot_html(self) -> str:
        raise NotImplementedError

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        bundle = self.widget._repr_mimebundle_()
        bundle["text/html"] = ("<div class='sbert-snapshot'><p><i>Static snapshot of an interactive widget; "
                               "open the notebook in JupyterLab to use it.</i></p>"
                               f"{self.snapshot_html()}</div>")
        return bundle


def parse_lines(text: str) -> list[str]:
    """Non-empty, stripped lines, duplicates kept once (in first-seen order)."""
    return list(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))


def _pairs_html(sentences: list[str], pairs: list[tuple[float, int, int]]) -> str:
    rows = "".join(f"<tr><td>{s:.3f}</td><td>{html.escape(sentences[i])}</td><td>{html.escape(sentences[j])}</td></tr>"
                   for s, i, j in pairs)
    return f"<table><tr><th>score</th><th>sentence</th><th>sentence</th></tr>{rows}</table>"


class SimilarityExplorer(_Explorer):
    """Type sentences (one per line); see how similar every pair is under the chosen model."""

    def __init__(self, models: Mapping[str, object], sentences: Sequence[str] = (), top_pairs: int = 10,
                 similarity: Callable | None = None):
        """``similarity``: a function ``(a, b, measure) -> (n, m)`` scores, larger = more similar (notebook
        10's student's); it then computes the heatmap and the ranked pairs. None: the library's measures."""
        self.bank = ModelBank(models)
        self.top_pairs = top_pairs
        self.similarity = similarity
        self.text = W.Textarea("\n".join(sentences), placeholder="one sentence per line",
                               layout=W.Layout(width="100%", height="140px"), continuous_update=False)
        self.model = W.Dropdown(options=self.bank.names, description="model")
        self.pooling = W.Dropdown(options=["mean", "max", "cls"], value="mean", description="pooling")
        self.measure = W.Dropdown(options=list(MEASURES), value="cosine", description="measure")
        self.message = W.HTML()
        self.plot = W.Output()
        self.plot.add_class("sbert-heatmap")
        self.pairs = W.HTML()
        self.pairs.add_class("sbert-pairs")
        self.matrix: np.ndarray | None = None
        self.figure = None
        self._png: bytes | None = None
        for w in (self.text, self.model, self.pooling, self.measure):
            w.observe(lambda _change: self.update(), names="value")
        self.widget = W.VBox([self.text, W.HBox([self.model, self.pooling, self.measure]),
                              self.message, W.HBox([self.plot, self.pairs])])
        self.update()

    def update(self) -> None:
        sentences = parse_lines(self.text.value)
        self.matrix, self.pairs.value = None, ""
        if len(sentences) < 2:
            self.message.value = ("<b>Type at least two sentences, one per line.</b>" if not sentences
                                  else "<b>One sentence: add another to compare it with.</b>")
            self._draw(None, [])
            return
        note = ""
        if len(sentences) > MAX_LINES:
            note = f" Only the first {MAX_LINES} of {len(sentences)} lines are used."
            sentences = sentences[:MAX_LINES]
        emb = self.bank.embed(self.model.value, sentences, self.pooling.value)
        full = (scores_in_chunks(self.similarity, emb, self.measure.value) if self.similarity is not None
                else similarity_matrix(emb, measure=self.measure.value).numpy())
        pairs = top_pairs(full, self.top_pairs)
        self.pairs.value = _pairs_html(sentences, pairs)
        shown = sentences[:MAX_HEATMAP]
        if len(sentences) > MAX_HEATMAP:
            note += f" The heatmap shows the first {MAX_HEATMAP}; the ranking uses all {len(sentences)}."
        self.matrix = full[:MAX_HEATMAP, :MAX_HEATMAP]
        self.message.value = f"{len(sentences)} sentences, model <i>{html.escape(self.model.value)}</i>." + note
        self._draw(shown, pairs)

    def _draw(self, shown, pairs) -> None:
        self.plot.clear_output(wait=True)
        self.figure, self._png = None, None
        if shown is None:
            return
        self.figure = plots.similarity_heatmap(shown, self.matrix, title=f"{self.measure.value} similarity")
        self._png = _show_png(self.figure, self.plot)

    def snapshot_html(self) -> str:
        return (f"<p>{self.message.value}</p><div style='display:flex;gap:1em'>"
                f"{_img_html(self._png)}<div>{self.pairs.value}</div></div>")


def scores_in_chunks(similarity: Callable, emb: np.ndarray, measure: str, rows: int = 16) -> np.ndarray:
    """The ``(n, n)`` matrix ``similarity(emb, emb, measure)``, computed ``rows`` rows at a time (a distance
    written with broadcasting builds an ``(rows, n, dim)`` array, not ``(n, n, dim)``)."""
    parts = []
    for i in range(0, len(emb), rows):
        part = np.asarray(similarity(emb[i:i + rows], emb, measure), dtype=np.float64)
        if part.shape != (len(emb[i:i + rows]), len(emb)):
            raise SettingError(f"similarity returned {part.shape} scores for {len(emb[i:i + rows])} × {len(emb)} "
                               f"sentences; expected ({len(emb[i:i + rows])}, {len(emb)})")
        parts.append(part)
    return np.vstack(parts)


def top_pairs(matrix: np.ndarray, k: int) -> list[tuple[float, int, int]]:
    """The ``k`` highest entries above the diagonal of a square score matrix, as ``(score, i, j)``, ``i < j``,
    best first (the form of :func:`sbertlib.search.paraphrase_mining_embeddings`)."""
    i, j = np.triu_indices(len(matrix), k=1)
    scores = np.asarray(matrix)[i, j]
    best = np.argsort(-scores, kind="stable")[:k]
    return [(float(scores[b]), int(i[b]), int(j[b])) for b in best]


class SemanticSearch(_Explorer):
    """A query box over ``corpus``; shows the top-k hits with their cosine scores."""

    def __init__(self, model, corpus: Sequence[str], top_k: int = 5):
        self.bank = ModelBank({"model": model})
        self.corpus = list(dict.fromkeys(corpus))
        if not self.corpus:
            raise SettingError("the corpus is empty")
        self._corpus_emb: np.ndarray | None = None
        self.query = W.Text(placeholder="type a query and press Enter", continuous_update=False,
                            layout=W.Layout(width="70%"))
        self.k = W.IntSlider(value=top_k, min=1, max=min(50, len(self.corpus)), description="top k")
        self.results = W.HTML()
        self.hits: list[dict] = []
        for w in (self.query, self.k):
            w.observe(lambda _change: self.update(), names="value")
        self.widget = W.VBox([W.HBox([self.query, self.k]), self.results])

    def snapshot_html(self) -> str:
        return f"<p>query: <b>{html.escape(self.query.value)}</b></p>{self.results.value}"

    @property
    def corpus_embeddings(self) -> np.ndarray:
        if self._corpus_emb is None:  # computed once, on the first query
            self._corpus_emb = self.bank.embed("model", self.corpus)
        return self._corpus_emb

    def update(self) -> None:
        q = self.query.value.strip()
        if not q:
            self.hits, self.results.value = [], "<i>Type a query.</i>"
            return
        q_emb = self.bank.embed("model", [q])
        self.hits = search.semantic_search(q_emb, self.corpus_embeddings, top_k=self.k.value)[0]
        rows = "".join(f"<tr><td>{h['score']:.3f}</td><td>{html.escape(self.corpus[h['corpus_id']])}</td></tr>"
                       for h in self.hits)
        self.results.value = f"<table><tr><th>cosine</th><th>sentence</th></tr>{rows}</table>"


class ModelComparer(_Explorer):
    """One sentence pair; the cosine similarity under every model, side by side."""

    def __init__(self, models: Mapping[str, object], a: str = "", b: str = ""):
        self.bank = ModelBank(models)
        self.a = W.Text(a, description="sentence A", continuous_update=False, layout=W.Layout(width="90%"))
        self.b = W.Text(b, description="sentence B", continuous_update=False, layout=W.Layout(width="90%"))
        self.table = W.HTML()
        self.scores: dict[str, float] = {}
        for w in (self.a, self.b):
            w.observe(lambda _change: self.update(), names="value")
        self.widget = W.VBox([self.a, self.b, self.table])
        self.update()

    def snapshot_html(self) -> str:
        return (f"<p>A: {html.escape(self.a.value)}<br>B: {html.escape(self.b.value)}</p>{self.table.value}")

    def update(self) -> None:
        a, b = self.a.value.strip(), self.b.value.strip()
        if not a or not b:
            self.scores, self.table.value = {}, "<i>Type two sentences.</i>"
            return
        self.scores = {}
        for name in self.bank.names:
            u, v = self.bank.embed(name, [a, b])
            self.scores[name] = float(similarity_matrix(u, v).item())
        rows = "".join(f"<tr><td>{html.escape(n)}</td><td>{s:.3f}</td></tr>" for n, s in self.scores.items())
        self.table.value = f"<table><tr><th>model</th><th>cosine</th></tr>{rows}</table>"


class SpeedLab(_Explorer):
    """Toggle smart batching, move the batch size, and time ``encode`` live on a small corpus.

    Every change runs a short timing (``repeats`` runs after one warm-up) of the selected mode;
    the bar chart keeps the latest figure of each mode so they can be compared.
    """

    def __init__(self, encoder, corpora: Mapping[str, Sequence[str]], n: int = 200, repeats: int = 2,
                 batch_size: int = 32):
        from ..evaluation import speed
        self._speed = speed
        self.encoder, self.repeats = encoder, repeats
        self.corpora = {k: list(v)[:n] for k, v in corpora.items()}
        if not self.corpora or not all(self.corpora.values()):
            raise SettingError("give at least one non-empty corpus")
        self.mode = W.ToggleButtons(options=list(speed.MODES), value="smart batching", description="batching")
        self.batch = W.IntSlider(value=batch_size, min=1, max=128, step=1, description="batch size",
                                 continuous_update=False)
        self.corpus = W.Dropdown(options=list(self.corpora), description="corpus")
        self.status = W.HTML()
        self.plot = W.Output()
        self.results: dict[tuple[str, str, int], dict] = {}
        self._png: bytes | None = None
        for w in (self.mode, self.batch, self.corpus):
            w.observe(lambda _change: self.update(), names="value")
        self.widget = W.VBox([W.HBox([self.mode]), W.HBox([self.batch, self.corpus]), self.status, self.plot])
        self.update()

    def update(self) -> None:
        mode, bs, name = self.mode.value, self.batch.value, self.corpus.value
        sentences = self.corpora[name]
        row = self._speed.compare_modes(self.encoder, sentences, bs, self.repeats, warmup=1, modes=(mode,))[0]
        self.results[(name, mode, bs)] = row
        self.status.value = (f"{mode}, batch {bs}, {name} ({len(sentences)} sentences): "
                             f"<b>{row['sent_per_s']:.0f} sentences/s</b>, padding {100 * row['padding_share']:.0f}%")
        latest = [r for (c, m, b), r in self.results.items() if c == name and b == bs]
        fig = plots.speed_bars(sorted(latest, key=lambda r: list(self._speed.MODES).index(r["label"])),
                             title=f"{name}, batch size {bs}")
        self.plot.clear_output(wait=True)
        self._png = _show_png(fig, self.plot)

    def snapshot_html(self) -> str:
        return f"<p>{self.status.value}</p>{_img_html(self._png)}"
