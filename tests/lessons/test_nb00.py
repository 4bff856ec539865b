"""Notebook 00's checks beyond their declarations (test_declared.py runs every slip): right answers written another
way, the notebook's own matrix, an input changed in place; how a failed check shows itself in Jupyter."""
import numpy as np
import pytest
import torch

from sbertlib.model.similarity import cos_sim
from sbertlib.workbook import intro
from sbertlib.workbook.lessons import ExerciseError, nb00, unfinished
from lesson_helpers import IN_PLACE, unit_rows

PARAPHRASES = {(0, 5), (1, 3), (2, 4), (6, 7)}
SIM = torch.tensor(np.corrcoef(np.random.default_rng(0).standard_normal((8, 12))), dtype=torch.float32)


good_cosine = lambda a, b: unit_rows(a) @ unit_rows(b).T  # noqa: E731


def good_pair(sim):
    m = torch.tensor(np.array(sim, dtype=np.float64)).fill_diagonal_(-float("inf"))
    i, j = divmod(int(torch.argmax(m)), m.shape[1])
    return torch.tensor(j), np.int64(i)   # either order, tensor or numpy indices


def good_hits(sim, paraphrases):
    m = np.array(sim, dtype=np.float64) - 9 * np.eye(len(sim))
    return sum(tuple(sorted((i, int(j)))) in paraphrases for i, j in enumerate(m.argmax(axis=1)))


@pytest.mark.parametrize("cosine_matrix", [
    good_cosine, lambda a, b: cos_sim(torch.as_tensor(a), torch.as_tensor(b)),   # numpy float64, the library's tensor
    lambda a, b: (good_cosine(a, b)).tolist(),                                      # nested lists
    lambda a, b: torch.nn.functional.normalize(torch.as_tensor(a, dtype=torch.float64), dim=1)
    @ torch.nn.functional.normalize(torch.as_tensor(b, dtype=torch.float64), dim=1).T])
def test_right_cosine_matrices_written_another_way_pass(cosine_matrix, capsys):
    torch.set_float32_matmul_precision("high")   # a GPU tutorial's advice, in an earlier cell
    nb00.check_cosine_matrix(cosine_matrix)
    torch.set_float32_matmul_precision("highest")
    assert "[OK] cosine_matrix is right" in capsys.readouterr().out


@pytest.mark.parametrize("sim", [SIM, SIM.numpy(), SIM.double()])
def test_pair_and_hits_on_the_notebooks_matrix_as_tensor_or_array(sim, capsys):
    nb00.check_most_similar_pair(good_pair, sim)
    nb00.check_nearest_neighbour_hits(good_hits, sim, PARAPHRASES)
    nb00.check_nearest_neighbour_hits(lambda s, p: torch.tensor(good_hits(s, p)))   # no notebook data: hidden only
    out = capsys.readouterr().out
    i, j = nb00.most_similar_pair_truth(SIM)
    assert f"sentences {i} and {j} are the most similar" in out and out.count("[OK]") == 3
    assert "of 8" not in out and "expected" not in out   # the count is the table's to show, after the prediction


def test_a_torch_only_answer_gets_tensors_and_the_notebooks_own_matrix_is_checked(capsys):
    torch_only = lambda sim: divmod(int(sim.clone().fill_diagonal_(-2).argmax()), len(sim))   # noqa: E731 - no numpy
    nb00.check_most_similar_pair(torch_only, SIM)
    assert "[OK]" in capsys.readouterr().out
    with pytest.raises(ExerciseError, match=r"most_similar_pair\(<Tensor of shape \(8, 8\)>\) returned \(0, 1\)"):
        nb00.check_most_similar_pair(lambda sim: (0, 1) if len(sim) == 8 else torch_only(sim), SIM)


@pytest.mark.parametrize("as_array", [np.asarray, torch.as_tensor])
def test_filling_the_callers_similarity_matrix_is_named(as_array):
    def fills_callers(sim):
        (sim.fill_diagonal_(-9) if torch.is_tensor(sim) else np.fill_diagonal(sim, -9))
        return divmod(int(np.argmax(np.asarray(sim))), len(sim))
    with pytest.raises(ExerciseError, match=IN_PLACE):
        nb00.check_most_similar_pair(fills_callers, as_array(SIM.numpy().copy()))


def test_tour_tables_from_the_students_functions(tiny):
    sentences = ["A man is playing a guitar.", "Someone is playing an instrument.", "The stock market fell."]
    models = intro.tour_models(tiny, None)
    matrices = {"near": np.array([[1, .9, .1], [.9, 1, .2], [.1, .2, 1]]),
                "flat": np.array([[1, .97, .94], [.97, 1, .95], [.94, .95, 1]])}
    table = intro.gap_table(matrices)
    assert table.loc["near", intro.GAP] == pytest.approx(0.75)
    assert "separates the related pair clearly" in intro.gap_verdicts(table)[0]
    summary = intro.tour_summary(models, sentences, {(0, 1)}, good_cosine, nb00.most_similar_pair_truth,
                                 nb00.nearest_neighbour_hits_truth)
    m = good_cosine(tiny.encode(sentences), tiny.encode(sentences))
    i, j = nb00.most_similar_pair_truth(m)
    assert summary.iloc[0]["most similar pair"] == f"{i} ↔ {j}"
    assert summary.iloc[0]["nearest-neighbour hits (of 3)"] == nb00.nearest_neighbour_hits_truth(m, {(0, 1)})
    assert "NOT one of the paraphrase pairs" in intro.pair_verdict("x", sentences, (0, 2), {(0, 1)})


def test_only_the_stubs_bare_not_implemented_error_means_not_written_yet():
    assert unfinished(NotImplementedError()) and not unfinished(NotImplementedError("'Float' lacks it"))
    assert ExerciseError("a\nHint: b")._render_traceback_() == ["ExerciseError: a", "Hint: b"]


@pytest.mark.integration   # a real nbgrader / Jupyter kernel: the integration tier
def test_a_failed_check_in_jupyter_shows_its_message_not_the_checks_code(tmp_path):
    """In a real kernel: the error output of a failed check holds its message and the student's own failing line,
    but no line of the check's source (some of which is the answer)."""
    import inspect, re, tempfile  # noqa: E401

    import nbformat
    from nbclient import NotebookClient
    from sbertlib.workbook.lessons import nb02
    from sbertlib.workbook.publish import notebooks

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in (
        "import torch\nfrom sbertlib.workbook.lessons import nb02",
        "def concat_features(u, v, parts):\n    t = {'u': u, 'v': v, '|u-v|': (u - v).abs(), 'u*v': u * v}\n"
        "    order = ['u', '|u-v|', 'v'] if tuple(parts) == ('u', 'v', '|u-v|') else parts\n"
        "    return torch.cat([t[p] for p in order], 1)\nnb02.check_concat_features(concat_features)",
        "def pool(t, mask, mode='mean'):\n    return (t * mask).sum(1) / mask.sum(1)\nnb02.check_pooling(pool)")]
    with tempfile.TemporaryDirectory(prefix="sbertlib-kernel-") as sockets:
        NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True, resources={"metadata": {
            "path": str(tmp_path)}}, config=notebooks.quiet_kernel_config(sockets)).execute()
    source = {ln.strip() for m in (nb02, __import__("sbertlib.workbook.lessons", fromlist=["x"]))
              for ln in inspect.getsource(m).splitlines() if len(ln.strip()) > 12}
    for cell, says in ((nb.cells[1], "your blocks are (u, |u-v|, v)"), (nb.cells[2], "attention_mask (B, T) = (4, 7)")):
        (error,) = [o for o in cell.outputs if o.output_type == "error"]
        shown = [re.sub(r"\x1b\[[0-9;]*m", "", ln) for chunk in error.traceback for ln in chunk.splitlines()]
        assert error.ename == "ExerciseError" and any(says in ln for ln in shown) and len(shown) < 15, shown
        assert not [ln for ln in shown if ln.strip() in source or "sbertlib/workbook/lessons" in ln], shown
    assert "In your code:" in "\n".join(shown) and "(t * mask).sum(1)" in "\n".join(shown)   # the student's own line
