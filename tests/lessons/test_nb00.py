"""The checks of notebook 00 (setup and tour): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb00)."""
from __future__ import annotations

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")

from sbertlib.model.similarity import cos_sim  # noqa: E402
from sbertlib.workbook import intro  # noqa: E402
from sbertlib.workbook.lessons import ExerciseError, nb00, nb02  # noqa: E402
from lesson_helpers import IN_PLACE, not_done, unit_rows


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
    (lambda a, b: np.asarray(a) @ np.asarray(b), "your cosine_matrix raised ValueError"),
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


def _sim(n: int = 4, seed: int = 1) -> torch.Tensor:
    x = torch.nn.functional.normalize(torch.randn(n, 8, generator=torch.Generator().manual_seed(seed)), dim=1)
    return x @ x.T


def good_pair(sim):
    m = torch.as_tensor(np.asarray(sim)).clone().double()
    m.fill_diagonal_(-float("inf"))
    i, j = divmod(int(torch.argmax(m)), m.shape[1])
    return j, i  # order must not matter


def test_nb00_right_answer_passes_on_torch_and_numpy(capsys):
    nb00.check_most_similar_pair(good_pair, _sim())
    nb00.check_most_similar_pair(good_pair, _sim(6, seed=3).numpy())
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb00_truth_ignores_the_diagonal():
    m = np.array([[1.0, 0.2, 0.7], [0.2, 1.0, 0.1], [0.7, 0.1, 1.0]])
    assert nb00.most_similar_pair_truth(m) == (0, 2)


@pytest.mark.parametrize("wrong", [
    lambda sim: divmod(int(np.argmax(np.asarray(sim))), np.asarray(sim).shape[1]),  # diagonal included
    lambda sim: good_pair(-np.asarray(sim) + 2 * np.eye(len(sim))),  # least similar pair
    lambda sim: (0, 1),  # hard-coded
    lambda sim: None,
    lambda sim: 3,
    lambda sim: (0, 99),
])
def test_nb00_wrong_answers_fail(wrong):
    with pytest.raises(ExerciseError):
        nb00.check_most_similar_pair(wrong, _sim())


def test_nb00_unfinished_stub_and_non_callable_fail():
    def stub(sim):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb00.check_most_similar_pair(stub, _sim())
    with pytest.raises(ExerciseError):
        nb00.check_most_similar_pair((0, 1), _sim())


def test_nb00_diagonal_mistake_gets_a_hint():
    with pytest.raises(ExerciseError, match="itself"):
        nb00.check_most_similar_pair(lambda s: divmod(int(np.argmax(np.asarray(s))), len(s)), _sim())


def test_exercise_error_renders_as_its_message_alone():
    err = ExerciseError("your blocks are (u, |u-v|, v)\nHint: put each part where parts names it")
    assert err._render_traceback_() == ["ExerciseError: your blocks are (u, |u-v|, v)",
                                        "Hint: put each part where parts names it"]


def test_a_failed_check_in_jupyter_shows_its_message_not_the_checks_code(tmp_path):
    """Executed in a real kernel: the error output of a failed check holds its message (and the student's
    own failing line) but no line of the check's source — some of which is the answer."""
    pytest.importorskip("nbclient")
    import inspect
    import re

    import nbformat
    from nbclient import NotebookClient

    from sbertlib.workbook.publish import notebooks
    from sbertlib.workbook.lessons import nb03

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in (
        "import torch\nfrom sbertlib.workbook.lessons import nb02",
        "def concat_features(u, v, parts):\n    t = {'u': u, 'v': v, '|u-v|': (u - v).abs(), 'u*v': u * v}\n"
        "    order = ['u', '|u-v|', 'v'] if tuple(parts) == ('u', 'v', '|u-v|') else parts\n"
        "    return torch.cat([t[p] for p in order], 1)\n"
        "nb02.check_concat_features(concat_features)",
        "def pool(t, mask, mode='mean'):\n    return (t * mask).sum(1) / mask.sum(1)\nnb02.check_pooling(pool)",
    )]
    with __import__("tempfile").TemporaryDirectory(prefix="sbertlib-kernel-") as sockets:
        NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                       config=notebooks.quiet_kernel_config(sockets),
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
    source_lines = set()
    for module in (nb02, nb03, __import__("sbertlib.workbook.lessons", fromlist=["x"])):
        source_lines |= {ln.strip() for ln in inspect.getsource(module).splitlines() if len(ln.strip()) > 12}
    for cell, says in ((nb.cells[1], "your blocks are (u, |u-v|, v)"), (nb.cells[2], "attention_mask (B, T) = (4, 7)")):
        (error,) = [o for o in cell.outputs if o.output_type == "error"]
        assert error.ename == "ExerciseError"
        shown = [re.sub(r"\x1b\[[0-9;]*m", "", line) for chunk in error.traceback for line in chunk.splitlines()]
        assert any(says in line for line in shown), shown
        assert len(shown) < 15, shown
        leaked = [line for line in shown if line.strip() in source_lines]
        assert not leaked, leaked
        assert not any("sbertlib/workbook/lessons" in line for line in shown), shown
        assert not any("nn.Linear(3 * model.dim" in line for line in shown)
    pool_shown = "\n".join(nb.cells[2].outputs[-1].traceback)
    assert "In your code:" in pool_shown and "(t * mask).sum(1)" in pool_shown   # the student's own line


def test_only_the_stubs_bare_not_implemented_error_means_not_written_yet():
    from sbertlib.workbook.lessons import unfinished
    assert unfinished(NotImplementedError())
    assert not unfinished(NotImplementedError('"bitwise_and_cpu" not implemented for \'Float\''))
    assert not unfinished(ValueError())


def most_similar_pair_filling_the_callers_matrix(sim):
    m = sim if isinstance(sim, np.ndarray) else sim  # no copy
    if isinstance(m, torch.Tensor):
        m.fill_diagonal_(-float("inf"))
    else:
        np.fill_diagonal(m, -np.inf)
    i, j = divmod(int(np.argmax(np.asarray(m))), len(m))
    return i, j


@pytest.mark.parametrize("as_array", [np.asarray, torch.as_tensor])
def test_filling_the_callers_similarity_matrix_is_refused(as_array):
    x = np.random.default_rng(0).standard_normal((5, 4))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    sim = as_array(x @ x.T)
    with pytest.raises(ExerciseError, match=IN_PLACE):
        nb00.check_most_similar_pair(most_similar_pair_filling_the_callers_matrix, sim)


def test_shapes_that_do_not_broadcast_get_a_hint_not_only_numpys_message():
    """00's cosine matrix without keepdims: numpy's broadcasting error came bare (issue 29)."""
    def cosine_matrix_without_keepdims(a, b):
        a = a / np.linalg.norm(a, axis=1)  # (n, d) / (n,): a row vector, not a column
        b = b / np.linalg.norm(b, axis=1)
        return a @ b.T
    with pytest.raises(ExerciseError, match=r"two shapes did not line up.*keepdims=True"):
        nb00.check_cosine_matrix(cosine_matrix_without_keepdims)
