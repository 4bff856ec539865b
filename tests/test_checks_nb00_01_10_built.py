"""The pieces the student builds in notebooks 00, 01 and 10, and what moved out of those notebooks.

Each check passes a right answer (and the library's own), says an unfinished stub is not done, refuses
what is not a function, and names each usual slip with its own hint. The bookkeeping the notebooks now
call (sbertlib.workbook.intro, word_average.averaged_by, SimilarityExplorer(similarity=)) gets its
tests too.
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from sbertlib.model.similarity import cos_sim, similarity_matrix  # noqa: E402
from sbertlib.model.word_average import AverageWordEmbeddings, averaged_by, simple_tokenize  # noqa: E402
from sbertlib.workbook import intro, widgets  # noqa: E402
from sbertlib.workbook.lessons import ExerciseError, nb00, nb01, nb10  # noqa: E402


def not_done(*_args, **_kwargs):
    raise NotImplementedError


@pytest.fixture(scope="module")
def tiny():
    from sbertlib.model.encoder import SentenceEncoder
    return SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")


# ============================================================================= 00 · cosine_matrix
def unit_rows(x, axis=1):
    x = np.asarray(x, dtype=np.float64)
    return x / np.linalg.norm(x, axis=axis, keepdims=True)


def good_cosine(a, b):
    return unit_rows(a) @ unit_rows(b).T


def test_cosine_matrix_right(capsys):
    nb00.check_cosine_matrix(good_cosine)
    nb00.check_cosine_matrix(lambda a, b: cos_sim(a, b))          # the library's, a float32 tensor
    assert capsys.readouterr().out.count("[OK] cosine_matrix is right") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda a, b: np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64).T, "that is the dot product"),
    (lambda a, b: unit_rows(a) @ np.asarray(b, dtype=np.float64).T, "only the rows of `a`"),
    (lambda a, b: np.asarray(a, dtype=np.float64) @ unit_rows(b).T, "only the rows of `b`"),
    (lambda a, b: 1 - good_cosine(a, b), "cosine \\*distance\\*"),
    (lambda a, b: unit_rows(a, 0) @ unit_rows(b, 0).T, "normalised the columns"),
    (lambda a, b: (a / np.linalg.norm(a)) @ (b / np.linalg.norm(b)).T, "norm of the whole matrix"),
    (lambda a, b: good_cosine(b, a), "rows of `a`, columns of `b`"),
    (lambda a, b: good_cosine(a, b)[:, :1], "expected"),
    (lambda a, b: good_cosine(a, b) * np.nan, "NaN"),
    (lambda a, b: "cosines", "not an array"),
    (lambda a, b: np.asarray(a) @ np.asarray(b), "your function raised ValueError"),
])
def test_cosine_matrix_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb00.check_cosine_matrix(wrong)


def test_cosine_matrix_stub_and_non_function():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb00.check_cosine_matrix(not_done)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb00.check_cosine_matrix(good_cosine(np.eye(2), np.eye(2)))


# ============================================================================= 00 · nearest_neighbour_hits
PARAPHRASES = {(0, 5), (1, 3), (2, 4), (6, 7)}


def good_hits(sim, paraphrases):
    m = np.array(sim, dtype=np.float64)
    np.fill_diagonal(m, -np.inf)
    return sum(tuple(sorted((i, int(j)))) in paraphrases for i, j in enumerate(m.argmax(axis=1)))


def notebook_sim():
    rng = np.random.default_rng(0)
    m = rng.uniform(-0.2, 0.9, size=(8, 8)).astype(np.float32)
    m = (m + m.T) / 2
    np.fill_diagonal(m, 1.0)
    return torch.as_tensor(m)


def test_nearest_neighbour_hits_right(capsys):
    nb00.check_nearest_neighbour_hits(good_hits, notebook_sim(), PARAPHRASES)
    nb00.check_nearest_neighbour_hits(nb00.nearest_neighbour_hits_truth)
    out = capsys.readouterr().out
    assert out.count("[OK] nearest_neighbour_hits is right") == 2
    assert "of 8" not in out          # the count is the table's to show, after the student's prediction


def _nn(sim):
    m = np.array(sim, dtype=np.float64)
    np.fill_diagonal(m, -np.inf)
    return m.argmax(axis=1)


@pytest.mark.parametrize("wrong, hint", [
    (lambda s, p: sum(tuple(sorted((i, int(j)))) in p for i, j in enumerate(np.asarray(s).argmax(axis=1))),
     "its own nearest neighbour"),
    (lambda s, p: sum((i, int(j)) in p for i, j in enumerate(_nn(s))), r"\(5, 0\) and \(0, 5\) are the same pair"),
    (lambda s, p: len({tuple(sorted((i, int(j)))) for i, j in enumerate(_nn(s))} & p), "count sentences, not pairs"),
    (lambda s, p: good_hits(s, p) + 0.5, "expected"),
    (lambda s, p: None, "not a number"),
    (lambda s, p: torch.tensor([1, 2]), "a tensor of shape"),
])
def test_nearest_neighbour_hits_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb00.check_nearest_neighbour_hits(wrong, notebook_sim(), PARAPHRASES)


def test_nearest_neighbour_hits_stub_and_non_function():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb00.check_nearest_neighbour_hits(not_done, notebook_sim(), PARAPHRASES)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb00.check_nearest_neighbour_hits(3, notebook_sim(), PARAPHRASES)


def test_hidden_hits_case_tells_the_slips_apart():
    m, pairs = nb00._hits_case()
    assert nb00.nearest_neighbour_hits_truth(m, pairs) == 6
    counts = {nb00._hits_hint(float(x), m, pairs) for x in (0, 3, 4)}
    assert len(counts) == 3 and not any(h.startswith("for each row") for h in counts)


# ============================================================================= 01 · average_word_vectors
def good_average(sentences, vocab, vectors):
    out = np.zeros((len(sentences), vectors.shape[1]), dtype=np.float32)
    for k, s in enumerate(sentences):
        rows = [vocab[t] for t in simple_tokenize(s.lower()) if t in vocab]
        if rows:
            out[k] = np.asarray(vectors[rows]).mean(axis=0)
    return out


def average_with(tokenise=lambda s: simple_tokenize(s.lower()), known_only=True, reduce=np.mean, unique=False,
                 empty=np.zeros):
    def average(sentences, vocab, vectors):
        out = []
        for s in sentences:
            toks = tokenise(s)
            toks = list(dict.fromkeys(toks)) if unique else toks
            rows = [vectors[vocab[t]] if t in vocab else np.zeros(vectors.shape[1]) for t in toks
                    if t in vocab or not known_only]
            out.append(reduce(rows, axis=0) if rows else empty(vectors.shape[1]) * (np.nan if empty is np.ones else 1))
        return np.stack(out)
    return average


def test_average_word_vectors_right(capsys):
    nb01.check_average_word_vectors(good_average)
    nb01.check_average_word_vectors(lambda s, v, x: AverageWordEmbeddings(v, x, True, "lib").encode(s))
    nb01.check_average_word_vectors(lambda s, v, x: torch.as_tensor(good_average(s, v, x)))
    assert capsys.readouterr().out.count("[OK] average_word_vectors is right") == 3


@pytest.mark.parametrize("wrong, hint", [
    (average_with(tokenise=simple_tokenize), "lower-case each sentence"),
    (average_with(tokenise=lambda s: s.lower().split()), "not with str.split"),
    (average_with(known_only=False), "unknown words were counted as zero vectors"),
    (average_with(reduce=np.sum), "that is the sum"),
    (average_with(unique=True), "every occurrence counts"),
    (average_with(empty=np.ones), "got NaN"),
    (lambda s, v, x: good_average(s, v, x).mean(axis=0), "expected \\(4, 6\\)"),
    (lambda s, v, x: good_average(s, v, x) + 1, "for 4 of 4 hidden sentences"),
    (lambda s, v, x: [[1, 2], [3]], "not an \\(n, dim\\) array"),
])
def test_average_word_vectors_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_average_word_vectors(wrong)


def test_average_word_vectors_stub_and_non_function():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb01.check_average_word_vectors(not_done)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb01.check_average_word_vectors("average_word_vectors")


def test_averaged_by_encodes_with_the_given_function_over_the_same_table():
    vocab, vectors = nb01._hidden_table()
    words = AverageWordEmbeddings(vocab, vectors, lowercase=True, name="hidden (avg)")
    yours = averaged_by(words, good_average)
    sentences = list(nb01._HIDDEN_SENTENCES)
    np.testing.assert_array_equal(yours.encode(sentences), words.encode(sentences))
    assert yours.encode(sentences[0]).shape == (6,) and yours.dim == 6
    assert yours.name == words.name and yours.info["backbone"] == "hidden (avg)"
    assert averaged_by(words, good_average, name="mine").name == "mine"
    with pytest.raises(ValueError, match="returned shape"):
        averaged_by(words, lambda s, v, x: good_average(s, v, x)[:1]).encode(sentences)


# ============================================================================= 01 · the warm-up's two new functions
def test_bi_encoder_seconds_right_stub_and_slips(capsys):
    nb01.check_bi_encoder_seconds(lambda n, sps: n / sps)
    assert "[OK] bi_encoder_seconds is right" in capsys.readouterr().out
    for wrong, hint in [(lambda n, sps: n * (n - 1) / 2 / sps, "encodes every sentence once"),
                        (lambda n, sps: n / sps / 3600, "that is in hours"),
                        (lambda n, sps: sps / n, "upside down"),
                        (lambda n, sps: n * sps, "do not multiply"),
                        (lambda n, sps: None, "return a number")]:
        with pytest.raises(ExerciseError, match=hint):
            nb01.check_bi_encoder_seconds(wrong)
    with pytest.raises(ExerciseError, match="not done yet"):
        nb01.check_bi_encoder_seconds(not_done)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb01.check_bi_encoder_seconds(5.0)


def test_speedup_right_stub_and_slips(capsys):
    def hours(n, pps):
        return n * (n - 1) // 2 / pps / 3600

    nb01.check_speedup(lambda n, pps, sps: hours(n, pps) * 3600 / (n / sps))
    assert "[OK] speedup is right" in capsys.readouterr().out
    for wrong, hint in [(lambda n, pps, sps: (n / sps) / (hours(n, pps) * 3600), "upside down"),
                        (lambda n, pps, sps: hours(n, pps) / (n / sps), "same unit"),
                        (lambda n, pps, sps: n * n / pps / (n / sps), "each unordered pair once"),
                        (lambda n, pps, sps: sps / pps, "one pass with one pass")]:
        with pytest.raises(ExerciseError, match=hint):
            nb01.check_speedup(wrong)
    with pytest.raises(ExerciseError, match="not done yet"):
        nb01.check_speedup(not_done)


# ============================================================================= 01 · centre
def test_centre_right(capsys):
    nb01.check_centre(lambda x: x - x.mean(axis=0))
    nb01.check_centre(nb01.centre_truth)
    assert capsys.readouterr().out.count("[OK] centre is right") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda x: x - x.mean(axis=1, keepdims=True), "each row's own mean"),
    (lambda x: x - x.mean(), "one number"),
    (lambda x: unit_rows(x) - unit_rows(x).mean(axis=0), "normalised the rows first"),
    (lambda x: x.mean(axis=0) - x, "the wrong way round"),
    (lambda x: np.broadcast_to(x.mean(axis=0), x.shape), "the mean vector itself"),
    (lambda x: x.mean(axis=0), "expected"),
    (lambda x: x * 2, "subtract the mean of all rows"),
])
def test_centre_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_centre(wrong)


def test_centre_stub_and_non_function():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb01.check_centre(not_done)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb01.check_centre(np.zeros(3))


# ============================================================================= 10 · similarity
def good_similarity(a, b, measure="cosine"):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if measure == "cosine":
        return unit_rows(a) @ unit_rows(b).T
    if measure == "dot":
        return a @ b.T
    diff = a[:, None, :] - b[None, :, :]
    if measure == "euclidean":
        return -np.sqrt((diff ** 2).sum(axis=-1))
    if measure == "manhattan":
        return -np.abs(diff).sum(axis=-1)
    raise ValueError(measure)


def one_measure(measure, fn):
    """The right function, except for ``measure``, which ``fn(a, b)`` computes."""
    return lambda a, b, m="cosine": (fn(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)) if m == measure
                                     else good_similarity(a, b, m))


def _diff(a, b):
    return a[:, None, :] - b[None, :, :]


def test_similarity_right(capsys):
    nb10.check_similarity(good_similarity)
    nb10.check_similarity(lambda a, b, m="cosine": similarity_matrix(a, b, m))   # the library's, tensors
    assert capsys.readouterr().out.count("[OK] similarity is right") == 2


@pytest.mark.parametrize("wrong, hint", [
    (one_measure("cosine", lambda a, b: a @ b.T), "(?s)cosine: .*that is the dot product"),
    (one_measure("cosine", lambda a, b: 1 - good_similarity(a, b)), "cosine distance"),
    (one_measure("cosine", lambda a, b: good_similarity(a, b).T), "rows of a, columns of b"),
    (one_measure("dot", lambda a, b: good_similarity(a, b)), "(?s)dot: .*that is the cosine"),
    (one_measure("euclidean", lambda a, b: np.sqrt((_diff(a, b) ** 2).sum(-1))), "(?s)euclidean: .*MINUS the distance"),
    (one_measure("euclidean", lambda a, b: -(_diff(a, b) ** 2).sum(-1)), "squared distance"),
    (one_measure("euclidean", lambda a, b: good_similarity(a, b, "manhattan")), "that is the Manhattan"),
    (one_measure("euclidean", lambda a, b: good_similarity(unit_rows(a), unit_rows(b), "euclidean")),
     "normalised the vectors first"),
    (one_measure("manhattan", lambda a, b: np.abs(_diff(a, b)).sum(-1)), "(?s)manhattan: .*MINUS the distance"),
    (one_measure("manhattan", lambda a, b: good_similarity(a, b, "euclidean")), "that is the Euclidean"),
    (one_measure("manhattan", lambda a, b: -_diff(a, b).sum(-1)), "absolute value"),
    (one_measure("dot", lambda a, b: a @ b), r"raised ValueError"),
    (one_measure("dot", lambda a, b: None), "returned None"),
    (one_measure("manhattan", lambda a, b: good_similarity(a, b, "manhattan")[:2]), "expected \\(5, 4\\)"),
])
def test_similarity_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb10.check_similarity(wrong)


def test_similarity_stub_and_non_function():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb10.check_similarity(not_done)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb10.check_similarity("cosine")


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


# ============================================================================= sbertlib.workbook.intro (moved out of 00 and 01)
def test_profile_card_and_device_report():
    from sbertlib import config
    from sbertlib.workbook.profiles import get_profile
    card = intro.profile_card(get_profile("smoke", dry_run=False), ["minilm", "tiny-random-bert"])
    assert card.splitlines()[0].split() == ["profile:", "smoke"]
    assert "[stand-in]" in card and "MNRL, in-batch negatives" in card and "minilm, tiny-random-bert" in card
    report = intro.device_report(config.pick_device())
    assert report.startswith(f"[OK] torch {torch.__version__}, device: ") and "CPU threads torch uses" in report


def test_tour_tables_from_the_students_functions(tiny):
    sentences = ["A man is playing a guitar.", "Someone is playing an instrument.", "The stock market fell."]
    models = intro.tour_models(tiny, None)
    assert list(models) == ["tiny-random-bert [untrained, stand-in]"]
    matrices = {"near": np.array([[1, .9, .1], [.9, 1, .2], [.1, .2, 1]]),
                "flat": np.array([[1, .97, .94], [.97, 1, .95], [.94, .95, 1]])}
    table = intro.gap_table(matrices)
    assert list(table.columns) == ["cos(guitar, instrument)", "cos(guitar, market)", "cos(instrument, market)", intro.GAP]
    assert table.loc["near", intro.GAP] == pytest.approx(0.75)
    lines = intro.gap_verdicts(table)
    assert "separates the related pair clearly" in lines[0] and "every cosine is high" not in lines[0]
    assert "small margin" in lines[1] and "every cosine is high" in lines[1]
    fig = intro.similarity_heatmaps(sentences, matrices, title="profile smoke")
    assert len(fig.axes) == 4 and fig.axes[0].get_title() == "near\nprofile smoke"   # two panels, two colour bars

    paraphrases = {(0, 1)}
    summary = intro.tour_summary(models, sentences, paraphrases, good_cosine, nb00.most_similar_pair_truth,
                                 nb00.nearest_neighbour_hits_truth)
    e = tiny.encode(sentences)
    m = good_cosine(e, e)
    i, j = nb00.most_similar_pair_truth(m)
    row = summary.iloc[0]
    assert row["most similar pair"] == f"{i} ↔ {j}" and row["cosine"] == round(float(m[i, j]), 3)
    assert row["nearest-neighbour hits (of 3)"] == nb00.nearest_neighbour_hits_truth(m, paraphrases)
    assert "one of the paraphrase pairs we wrote" in intro.pair_verdict("x", sentences, (1, 0), paraphrases)
    assert "NOT one of the paraphrase pairs" in intro.pair_verdict("x", sentences, (0, 2), paraphrases)


def test_cross_vs_bi_table_extrapolates_with_the_students_functions(tiny):
    sentences = [f"Sentence number {k} is about topic {k % 7}." for k in range(40)]
    table = intro.cross_vs_bi_table([tiny], sentences, lambda n, pps: 1.0, lambda n, sps: 2.0,
                                    cross_pairs=4, bi_sentences=10, repeats=1)
    ours, paper_row = table.iloc[0], table.iloc[1]
    assert table.index[0].startswith("ours: tiny-random-bert (") and table.index[1].startswith("paper (Section 1)")
    assert ours[intro.CROSS_HOURS] == 1.0 and ours.iloc[-1] == 2.0      # the functions given, not a formula of ours
    assert ours.iloc[0] > 0 and ours.iloc[2] > 0
    assert paper_row[intro.CROSS_HOURS] == 65.0 and paper_row.iloc[-1] == 5.0 and paper_row.iloc[2] == 2000.0


def test_table1_bars_verdicts_and_saved_rows(tmp_path, monkeypatch):
    from sbertlib import evaluation
    monkeypatch.setenv("SBERTLIB_OUTPUT_DIR", str(tmp_path))
    ours = {"glove": {"stsb-test": 50.0}, "mean": {"stsb-test": 30.0}, "cls": {"stsb-test": 35.0}}
    rows = ["Avg. GloVe embeddings", "BERT CLS-vector"]
    table = evaluation.table1(ours, paper_rows=rows)
    fig = intro.table1_bars(table, ours, rows, ["stsb-test"], "smoke")
    assert [ax.get_title() for ax in fig.axes] == ["paper, Table 1", "ours — profile smoke"]
    lines = intro.baseline_verdicts({k: v["stsb-test"] for k, v in ours.items()}, "glove", "mean", "cls", None,
                                    "tiny", n_pairs=200, profile_name="smoke")
    assert lines[0] == "STS benchmark test, 200 pairs, profile smoke:"
    assert "- Mean pooling beats the CLS vector here: no (-5.00); in the paper: yes (+29.85)." in lines
    assert "- Averaged GloVe beats the untrained network's mean pooling here: yes (+20.00); in the paper: yes (+11.67)." in lines
    assert not any("reference" in line for line in lines)
    path = intro.save_table1_rows(ours, {"stsb-test": [0] * 200}, "smoke")
    import json
    assert json.loads(path.read_text()) == {"profile": "smoke", "pairs": {"stsb-test": 200}, "ours": ours}


def test_centring_histograms_use_the_given_centre():
    rng = np.random.default_rng(1)
    vectors = {"shifted": rng.normal(size=(50, 8)) + 3.0}
    seen = []
    fig = intro.centring_histograms(vectors, lambda v: (seen.append(v.shape), v - v.mean(axis=0))[1], n_pairs=100,
                                    title="before")
    assert seen == [(50, 8)] and [ax.get_title() for ax in fig.axes][0] == "before"
    centred_mean = float(fig.axes[1].get_legend().get_texts()[0].get_text().split("mean ")[1].rstrip(")"))
    raw_mean = float(fig.axes[0].get_legend().get_texts()[0].get_text().split("mean ")[1].rstrip(")"))
    assert raw_mean > 0.8 and abs(centred_mean) < 0.2
    assert isinstance(intro.gap_table({"m": np.eye(3)}), pd.DataFrame)
