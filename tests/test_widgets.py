"""Widgets driven from Python: set values, check that the outputs follow."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from sbertlib.workbook import widgets  # noqa: E402
from sbertlib.model.encoder import SentenceEncoder  # noqa: E402


@pytest.fixture(scope="module")
def tiny():
    return SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")


@pytest.fixture(scope="module")
def tiny2():
    return SentenceEncoder.from_pretrained("tiny-random-bert:1", device="cpu")


SENTS = ["A man plays a guitar.", "Someone is playing a guitar.", "The stock market fell today."]


def test_explorer_updates_on_text_model_pooling_measure(tiny, tiny2):
    ex = widgets.SimilarityExplorer({"a": tiny, "b": lambda: tiny2}, SENTS)
    assert ex.matrix.shape == (3, 3) and "guitar" in ex.pairs.value
    first = ex.matrix.copy()
    ex.text.value = "\n".join(SENTS + ["A fourth sentence arrives."])
    assert ex.matrix.shape == (4, 4) and "fourth" in ex.pairs.value
    ex.model.value = "b"
    assert not np.allclose(ex.matrix[:3, :3], first)
    ex.pooling.value = "cls"
    cls = ex.matrix.copy()
    ex.pooling.value = "mean"
    assert not np.allclose(cls, ex.matrix)
    ex.measure.value = "euclidean"
    assert (ex.matrix <= 1e-5).all()  # negative distances
    assert ex.figure is not None and ex.figure.axes[0].get_title().startswith("euclidean")


def count_encode_calls(monkeypatch, model) -> list:
    """Wrap ``model.encode`` so that each call that really runs the model is recorded."""
    calls, real = [], model.encode
    monkeypatch.setattr(model, "encode", lambda texts, *a, **k: (calls.append(list(texts)), real(texts, *a, **k))[1])
    return calls


def test_explorer_caches_embeddings(tiny, monkeypatch):
    calls = count_encode_calls(monkeypatch, tiny)
    ex = widgets.SimilarityExplorer({"a": tiny}, SENTS)
    before = len(calls)
    ex.measure.value = "dot"          # no new embeddings needed
    assert len(calls) == before
    ex.text.value = "\n".join(SENTS + ["new line"])  # only the new line is encoded
    assert calls[before:] == [["new line"]]
    assert ("a", "mean", "new line") in ex.bank._cache


def test_explorer_edge_inputs(tiny):
    ex = widgets.SimilarityExplorer({"a": tiny})
    assert "at least two" in ex.message.value and ex.matrix is None
    ex.text.value = "only one"
    assert "One sentence" in ex.message.value and ex.matrix is None
    ex.text.value = "\n".join(f"sentence number {i}" for i in range(300))
    assert "first 25" in ex.message.value and ex.matrix.shape == (25, 25)
    assert ex.pairs.value.count("<tr>") == 11  # header + top 10 pairs over all 300


def test_semantic_search_computes_corpus_once(tiny, monkeypatch):
    encode_calls = count_encode_calls(monkeypatch, tiny)
    ss = widgets.SemanticSearch(tiny, SENTS + ["Dogs run in the park."], top_k=2)
    assert "Type a query" in (ss.results.value or "Type a query")
    ss.query.value = "guitar music"
    assert len(ss.hits) == 2
    calls = len(encode_calls)
    ss.query.value = "finance news"
    assert encode_calls[calls:] == [["finance news"]]  # only the query
    ss.k.value = 3
    assert len(ss.hits) == 3
    ss.query.value = "   "
    assert ss.hits == [] and "Type a query" in ss.results.value
    with pytest.raises(ValueError, match="empty"):
        widgets.SemanticSearch(tiny, [])


def test_model_comparer(tiny, tiny2):
    mc = widgets.ModelComparer({"a": tiny, "b": tiny2}, SENTS[0], SENTS[1])
    assert set(mc.scores) == {"a", "b"} and mc.scores["a"] != mc.scores["b"]
    u, v = tiny.encode(SENTS[:2])
    assert mc.scores["a"] == pytest.approx(float(u @ v / np.linalg.norm(u) / np.linalg.norm(v)), abs=1e-5)
    mc.b.value = ""
    assert mc.scores == {} and "Type two" in mc.table.value


def test_nb10_checks(tiny, capsys):
    from sbertlib.workbook.lessons import ExerciseError, nb10
    from sbertlib.model.encoder import SentenceEncoder
    ref = SentenceEncoder.from_pretrained("minilm", device="cpu")
    assert nb10.check_paraphrase_without_overlap("The kid is laughing.", "A child giggles.", ref) > 0.6
    with pytest.raises(ExerciseError, match="share"):
        nb10.check_paraphrase_without_overlap("The kid is laughing.", "The kid laughs.", ref)
    with pytest.raises(ExerciseError, match="Cosine"):
        nb10.check_paraphrase_without_overlap("The kid is laughing.", "Stocks fell sharply.", ref)
    with pytest.raises(ExerciseError):
        nb10.check_paraphrase_without_overlap(..., "x", ref)
    nb10.check_higher_model("a", {"a": 0.9, "b": 0.1})
    nb10.check_higher_model("b", {"a": 0.9, "b": 0.1})  # a prediction that did not hold is told, not failed
    out = capsys.readouterr().out
    assert "your prediction held: 'a'" in out and "[prediction] 'a' gives this unrelated pair the highest" in out
    with pytest.raises(ExerciseError):
        nb10.check_higher_model(..., {"a": 0.9, "b": 0.1})
    with pytest.raises(ExerciseError, match="one of the model names"):
        nb10.check_higher_model("c", {"a": 0.9, "b": 0.1})


def test_display_carries_live_widget_and_static_snapshot(tiny, tiny2):
    """JupyterLab renders the widget view; a kernel-less HTML page falls back to the snapshot."""
    ex = widgets.SimilarityExplorer({"a": tiny}, SENTS)
    bundle = ex._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == ex.widget.model_id
    assert "data:image/png;base64," in bundle["text/html"] and "guitar" in bundle["text/html"]
    ex.text.value = "Cats purr.\nKittens meow softly."
    assert "Kittens" in ex._repr_mimebundle_()["text/html"]
    ex.text.value = ""
    snap = ex._repr_mimebundle_()["text/html"]
    assert "at least two" in snap and "data:image/png" not in snap  # no stale heatmap

    ss = widgets.SemanticSearch(tiny, SENTS, top_k=1)
    ss.query.value = "guitar music"
    assert SENTS[ss.hits[0]["corpus_id"]] in ss._repr_mimebundle_()["text/html"]
    mc = widgets.ModelComparer({"a": tiny, "b": tiny2}, SENTS[0], SENTS[2])
    assert f"{mc.scores['b']:.3f}" in mc._repr_mimebundle_()["text/html"]
