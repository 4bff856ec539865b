"""The explorers of sbertlib.workbook.widgets, scoring with the similarity function given."""
from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from sbertlib.workbook import widgets  # noqa: E402
from lesson_helpers import good_similarity


# ============================================================================= widgets: the explorer scores with the student's function
def test_explorer_scores_with_the_given_similarity(tiny):
    sents = ["A man plays a guitar.", "Someone is playing a guitar.", "The stock market fell today.", "Shares fell."]
    calls = []

    def mine(a, b, measure):
        calls.append(measure)
        return good_similarity(a, b, measure)
    ex = widgets.SimilarityExplorer({"a": tiny}, sents, similarity=mine)
    library = widgets.SimilarityExplorer({"a": tiny}, sents)
    assert calls == ["cosine"]
    np.testing.assert_allclose(ex.matrix, library.matrix, atol=1e-5)
    assert ex.pairs.value.count("<tr>") == library.pairs.value.count("<tr>") == 1 + 6
    for measure in ("dot", "euclidean", "manhattan"):
        ex.measure.value = library.measure.value = measure
        assert calls[-1] == measure
        np.testing.assert_allclose(ex.matrix, library.matrix, rtol=1e-4, atol=1e-4)
    ex.similarity = lambda a, b, m: -good_similarity(a, b, m)       # the explorer shows what the function says
    ex.update()
    assert np.allclose(ex.matrix, -library.matrix, atol=1e-4)


def test_scores_in_chunks_and_top_pairs():
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(37, 5))
    full = widgets.scores_in_chunks(good_similarity, emb, "euclidean", rows=8)
    np.testing.assert_allclose(full, good_similarity(emb, emb, "euclidean"))
    with pytest.raises(ValueError, match="expected \\(8, 37\\)"):
        widgets.scores_in_chunks(lambda a, b, m: good_similarity(a, b, m).T, emb, "cosine", rows=8)
    from sbertlib import search
    want = search.paraphrase_mining_embeddings(emb, top_k=5, max_pairs=5)
    got = widgets.top_pairs(good_similarity(emb, emb, "cosine"), 5)
    assert [(i, j) for _, i, j in got] == [(i, j) for _, i, j in want]
    assert np.allclose([s for s, _, _ in got], [s for s, _, _ in want], atol=1e-5)
