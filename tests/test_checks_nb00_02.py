"""The exercise checks of notebooks 00–02: each passes a right answer and rejects wrong ones."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from sbertlib.workbook.lessons import ExerciseError, nb00, nb01, nb02
from test_checks_build_it import good_pool  # the one right pooling of the check tests


# ----------------------------------------------------------------------------- nb00
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


# ----------------------------------------------------------------------------- nb01: pair count
def test_nb01_pair_count_right(capsys):
    nb01.check_pair_count(lambda n: n * (n - 1) // 2)
    nb01.check_pair_count(lambda n: n * (n - 1) / 2)  # a float with the right value is fine
    assert "49,995,000" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda n: n * n, "ordered"),
    (lambda n: n * (n - 1), "symmetric"),
    (lambda n: n * (n + 1) // 2, r"n·\(n\+1\)/2 includes each sentence paired with itself"),  # got n²'s hint
    (lambda n: n * (n + 1) / 2, r"n·\(n\+1\)/2 includes"),
    (lambda n: 49_995_000, None),  # the one number, hard-coded
    (lambda n: None, None),
])
def test_nb01_pair_count_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_pair_count(wrong)


def test_nb01_hours_right(capsys):
    nb01.check_cross_encoder_hours(lambda n, pps: n * (n - 1) / 2 / pps / 3600)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda n, pps: n * (n - 1) / 2 / pps, "seconds"),
    (lambda n, pps: n * (n - 1) / 2 / pps / 60, "minutes"),
    (lambda n, pps: n * n / pps / 3600, "n²"),
    (lambda n, pps: 65.0, None),
    (lambda n, pps: NotImplemented, None),
])
def test_nb01_hours_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_cross_encoder_hours(wrong)


# ----------------------------------------------------------------------------- nb01: anisotropy
def good_anisotropy(v):
    x = np.asarray(v, dtype=float)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = x @ x.T
    n = len(x)
    return (cos.sum() - n) / (n * (n - 1))


def test_nb01_anisotropy_right(capsys):
    nb01.check_anisotropy(good_anisotropy)
    nb01.check_anisotropy(lambda v: torch.tensor(good_anisotropy(v)))  # a 0-d tensor is accepted too
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb01_anisotropy_truth():
    assert nb01.anisotropy_truth(np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 3.0]])) == pytest.approx(1 / 3)
    assert nb01.anisotropy_truth(np.eye(4)) == pytest.approx(0.0)


def _unit(v):
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.mark.parametrize("wrong, hint", [
    (lambda v: (_unit(v) @ _unit(v).T).mean(), "diagonal"),                      # each sentence with itself
    (lambda v: (v @ v.T)[~np.eye(len(v), dtype=bool)].mean(), "dot product"),    # not normalised
    (lambda v: good_anisotropy(v - v.mean(axis=0)), "centred"),                  # measures the fixed vectors
    (lambda v: 0.9, None),
    (lambda v: None, None),
])
def test_nb01_anisotropy_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_anisotropy(wrong)


# ----------------------------------------------------------------------------- nb02
def good_concat(u, v, parts):
    table = {"u": u, "v": v, "|u-v|": torch.abs(u - v), "u*v": u * v}
    return torch.cat([table[p] for p in parts], dim=1)


def test_nb02_concat_right(capsys):
    u, v = torch.randn(2, 5), torch.randn(2, 5)
    nb02.check_concat_features(good_concat, u, v)
    nb02.check_concat_features(good_concat)
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb02_reference_matches_the_softmax_loss_features():
    from sbertlib.losses import SoftmaxLoss
    from sbertlib.paper import TABLE6_CONCATS

    class Stub(torch.nn.Module):
        dim = 5

    u, v = torch.randn(3, 5), torch.randn(3, 5)
    assert [tuple(c) for c in TABLE6_CONCATS] == list(nb02.TABLE6_CONCATS)
    for parts in TABLE6_CONCATS:
        loss = SoftmaxLoss(Stub(), concat=parts)
        assert torch.equal(loss.features(u, v), nb02.reference_features(u, v, parts))


@pytest.mark.parametrize("wrong, hint", [
    (lambda u, v, parts: torch.cat([{"u": u, "v": v, "|u-v|": u - v, "u*v": u * v}[p] for p in parts], 1),
     "absolute value"),
    (lambda u, v, parts: torch.cat([good_concat(u, v, (p,)) for p in reversed(parts)], 1), "order"),
    (lambda u, v, parts: torch.stack([good_concat(u, v, (p,)) for p in parts], 1), "shape"),
    (lambda u, v, parts: good_concat(u, v, parts).T, "shape"),
    (lambda u, v, parts: torch.cat([u, v, (u - v).abs()], 1), "shape"),  # always the paper's three
    (lambda u, v, parts: good_concat(u, v, parts).numpy(), "torch tensor"),
    (lambda u, v, parts: None, None),
])
def test_nb02_concat_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb02.check_concat_features(wrong)


@pytest.mark.parametrize("value, says", [(5, "returned 5, not a pair"), ((1, 2, 3), "3 values, not a pair"),
                                         (None, "returned None"), (NotImplemented, "NotImplemented"),
                                         (..., "Ellipsis")])
def test_two_items_says_what_came_back(value, says):
    from sbertlib.workbook.lessons import ExerciseError, two_items
    with pytest.raises(ExerciseError, match=says) as err:
        two_items(value, "f() returned", "return (a, b)")
    assert "Hint: return (a, b)" in str(err.value)
    assert two_items((7, 8), "f() returned", "") == [7, 8]


# ----------------------------------------------------------------------------- issue 20: checks that teach without telling
def fixed_order_concat(u, v, parts):
    """Builds the blocks in one fixed order whatever the order of ``parts``: passes all of Table 6."""
    table = {"u": u, "v": v, "|u-v|": torch.abs(u - v), "u*v": u * v}
    return torch.cat([table[p] for p in ("u", "v", "|u-v|", "u*v") if p in parts], dim=1)


def test_nb02_concat_that_ignores_the_order_of_parts_fails():
    for parts in nb02.TABLE6_CONCATS:   # all seven in the standard order: indistinguishable from the right one
        assert torch.equal(fixed_order_concat(torch.ones(1, 2), torch.zeros(1, 2), parts),
                           good_concat(torch.ones(1, 2), torch.zeros(1, 2), parts))
    with pytest.raises(ExerciseError, match=r"your blocks are \(u, v\) for parts \('v', 'u'\)") as err:
        nb02.check_concat_features(fixed_order_concat)
    assert "in another order" in str(err.value)


@pytest.mark.parametrize("wrong, says", [
    # (u, |u-v|, v) where (u, v, |u-v|) is asked for: the student's blocks are named, in their order
    (lambda u, v, parts: torch.cat([u, (u - v).abs(), v], 1) if tuple(parts) == ("u", "v", "|u-v|")
     else good_concat(u, v, parts), r"your blocks are \(u, \|u-v\|, v\)"),
    (lambda u, v, parts: torch.cat([good_concat(u, v, (p,)) for p in reversed(parts)], 1),
     r"your blocks are \(v, u\)"),
    (lambda u, v, parts: torch.cat([{"u": u, "v": v, "|u-v|": v - u, "u*v": u * v}[p] for p in parts], 1),
     "v − u without the absolute value"),
    (lambda u, v, parts: torch.cat([{"u": u, "v": v, "|u-v|": u + v, "u*v": u * v}[p] for p in parts], 1),
     r"your blocks are \(\?\) for parts \('\|u-v\|',\): block 0 is none of u, v, \|u-v\| and u\*v"),
])
def test_nb02_concat_wrong_blocks_are_named_without_the_answer(wrong, says):
    with pytest.raises(ExerciseError, match=says) as err:
        nb02.check_concat_features(wrong)
    message = str(err.value)
    for answer in ("torch.cat", ".abs()", "torch.abs", "available["):
        assert answer not in message




@pytest.mark.parametrize("wrong, says", [
    # the (B, T) mask multiplied straight into the (B, T, H) token vectors
    (lambda t, mask, mode="mean": (t * mask).sum(1) / mask.sum(1) if mode == "mean" else good_pool(t, mask, mode),
     r"H = 5 \(vector size\) against T = 7 \(token positions\).*\(B, T, 1\)"),
    # a (B, H) sum divided by a (B,) count
    (lambda t, mask, mode="mean": (t * mask.unsqueeze(-1)).sum(1) / mask.sum(1) if mode == "mean"
     else good_pool(t, mask, mode), r"H = 5 \(vector size\) against B = 4 \(sentences\).*\(B, 1\)"),
    # max pooling with the (B, T) mask filled into (B, T, H) vectors
    (lambda t, mask, mode="mean": t.masked_fill(mask == 0, float("-inf")).max(1).values if mode == "max"
     else good_pool(t, mask, mode), r"(H = 5 \(vector size\) against T = 7|T = 7 \(token positions\) against H = 5)"),
])
def test_nb02_pooling_broadcasting_slip_is_told_with_the_students_shapes(wrong, says):
    with pytest.raises(ExerciseError) as err:
        nb02.check_pooling(wrong)
    message = " ".join(str(err.value).split())
    assert __import__("re").search(says, message), message
    assert "token_embeddings had shape (B, T, H) = (4, 7, 5) and attention_mask (B, T) = (4, 7)" in message
    assert "masked_fill(" not in message and "unsqueeze(-1)" not in message
    assert isinstance(err.value.__cause__, RuntimeError)   # the student's own error stays attached …
    shown = "\n".join(err.value._render_traceback_())      # … and its frame in their code is what Jupyter shows
    assert "In your code:" in shown and "test_checks_nb00_02.py" in shown and "RuntimeError" in shown


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


# ----------------------------------------------------------------------------- nb02: one pair's loss, branch by branch
def make_pair_loss(score=lambda u, v: torch.nn.functional.cosine_similarity(u, v), square=True, which=("a", "b")):
    def pair_loss(model, fa, fb, target, detach_a=False, detach_b=False):
        u, v = model(fa), model(fb)
        flags = dict(zip(which, (detach_a, detach_b)))
        u = u.detach() if flags.get("a") else u
        v = v.detach() if flags.get("b") else v
        diff = score(u, v) - target
        return (diff ** 2 if square else diff.abs()).mean()
    return pair_loss


@pytest.fixture(scope="module")
def tiny_encoder():
    from sbertlib.model.encoder import SentenceEncoder
    return SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=32)


def test_nb02_pair_loss_right_passes(tiny_encoder, capsys):
    nb02.check_pair_loss(make_pair_loss(), tiny_encoder)
    assert "[OK] pair_loss is right" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (make_pair_loss(which=("b", "a")), "you cut the other branch: detach_a is about branch A"),
    (make_pair_loss(which=()), "with detach_a=True the gradient still flows through branch A"),
    (make_pair_loss(square=False), r"\|cos − target\| \(or cos − target\): square it"),
    (make_pair_loss(score=lambda u, v: (u * v).sum(-1)), "dot product"),
    (lambda model, fa, fb, target, detach_a=False, detach_b=False: float(make_pair_loss()(model, fa, fb, target)),
     "no .item()"),
])
def test_nb02_pair_loss_wrong_fails(tiny_encoder, wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb02.check_pair_loss(wrong, tiny_encoder)


# ----------------------------------------------------------------------------- nb02: gradients, one step
def good_gradients(model, fa, fb, target, detach_a=False, detach_b=False):
    model.zero_grad(set_to_none=True)
    loss = nb02.pair_loss_truth(model, fa, fb, target, detach_a=detach_a, detach_b=detach_b)
    loss.backward()
    return float(loss), {k: (p.grad.clone() if p.grad is not None else torch.zeros_like(p))
                         for k, p in model.named_parameters()}


def gradients_with(clear=True, clone=True, zeros=True, set_to_none=True):
    def gradients(model, fa, fb, target, detach_a=False, detach_b=False):
        if clear:
            model.zero_grad(set_to_none=set_to_none)
        loss = nb02.pair_loss_truth(model, fa, fb, target, detach_a=detach_a, detach_b=detach_b)
        loss.backward()
        out = {}
        for k, p in model.named_parameters():
            if p.grad is None:
                if zeros:
                    out[k] = torch.zeros_like(p)
                continue
            out[k] = p.grad.clone() if clone else p.grad
        return loss.item(), out
    return gradients


def test_nb02_gradients_right_passes(tiny_encoder, capsys):
    nb02.check_gradients(good_gradients, tiny_encoder)
    nb02.check_gradients(gradients_with(set_to_none=False), tiny_encoder)   # zeroed in place, but copied: fine
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, hint", [
    (gradients_with(clear=False), "backward ADDS"),
    (gradients_with(clone=False, set_to_none=False), "keep a copy"),
    (gradients_with(zeros=False), "zeros where no gradient reached it"),
    (lambda m, fa, fb, t, **kw: good_gradients(m, fa, fb, t)[1], "two things|not a pair|values, not a pair"),
    (lambda m, fa, fb, t, **kw: good_gradients(m, fa, fb, t), "branch B detached"),       # the flags ignored
    (lambda m, fa, fb, t, **kw: (None, good_gradients(m, fa, fb, t, **kw)[1]), "loss you returned"),
])
def test_nb02_gradients_wrong(tiny_encoder, wrong, hint):
    with pytest.raises(ExerciseError, match=hint) as err:
        nb02.check_gradients(wrong, tiny_encoder)
    assert "zero_grad(set_to_none" not in str(err.value)


def good_step(model, grads, lr):
    with torch.no_grad():
        for k, p in model.named_parameters():
            p -= lr * grads[k]
    return model


def step_with(sign=-1.0, use_lr=True, in_place=True, only_first=False, returns="model"):
    def gradient_step(model, grads, lr):
        import copy
        target = model if in_place else copy.deepcopy(model)
        with torch.no_grad():
            for i, (k, p) in enumerate(target.named_parameters()):
                if only_first and i:
                    break
                p += sign * (lr if use_lr else 1.0) * grads[k]
        return {"model": target, "none": None}[returns]
    return gradient_step


def rebinding_step(model, grads, lr):
    for k, p in model.named_parameters():
        p = p - lr * grads[k]                     # a new tensor: the model does not move
    return model


def test_nb02_gradient_step_right_passes(capsys):
    nb02.check_gradient_step(good_step)
    nb02.check_gradient_step(step_with())
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, hint", [
    (step_with(sign=+1.0), "uphill"),
    (step_with(use_lr=False), "learning rate is missing"),
    (step_with(in_place=False), "returned another one"),
    (rebinding_step, "no parameter of the model changed"),
    (step_with(only_first=True), "parameter tensors moved"),
    (step_with(returns="none"), "not the model it updated"),
])
def test_nb02_gradient_step_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb02.check_gradient_step(wrong)


def test_nb02_gradient_step_without_no_grad_is_named():
    def outside_no_grad(model, grads, lr):
        for k, p in model.named_parameters():
            p -= lr * grads[k]
        return model
    with pytest.raises(ExerciseError, match=r"recorded by autograd(?s:.*)inside torch.no_grad\(\)"):
        nb02.check_gradient_step(outside_no_grad)
