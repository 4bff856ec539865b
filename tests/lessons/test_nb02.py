"""Notebook 02's checks beyond their declarations (test_declared.py runs pool's and concat_features' slips): right
answers written another way, the named mistakes of the hand-written checks, a broadcasting error in the student's axes."""
import copy
import re

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from sbertlib import losses
from sbertlib.losses import pair_features
from sbertlib.workbook.lessons import ExerciseError, nb02, two_items


def good_pool(t, mask, mode="mean"):
    m = mask.unsqueeze(-1).double()                              # float64 arithmetic, float64 result
    if mode == "max":
        return t.masked_fill(m == 0, -1e9).max(1).values
    return t[:, 0] if mode == "cls" else (t * m).sum(1) / m.sum(1)


@pytest.mark.parametrize("wrong, axes, hint", [
    (lambda t, mask, mode="mean": (t * mask).sum(1) / mask.sum(1), "H = 5 against T = 7", r"\(B, T, 1\)"),
    (lambda t, mask, mode="mean": (t * mask[..., None]).sum(1) / mask.sum(1), "H = 5 against B = 4", r"\(B, 1\)")])
def test_a_broadcasting_error_is_told_in_the_students_axes(wrong, axes, hint):
    with pytest.raises(ExerciseError) as err:
        nb02.check_pooling(wrong)
    said = str(err.value)
    assert "token_embeddings had shape (B, T, H) = (4, 7, 5) and attention_mask (B, T) = (4, 7)" in said
    assert axes in said and re.search(hint, said) and isinstance(err.value.__cause__, RuntimeError)


def make_head(loss=None, width=3, labels=None, bias=True, layer=nn.Linear):
    class Head(losses.SBERTLoss):
        label_kind = "class"

        def __init__(self, model, num_labels=3):
            super().__init__(model)
            self.classifier = layer(width * model.dim, labels or num_labels, bias=bias)

        def loss_from_embeddings(self, embeddings, labels):
            u, v = embeddings
            return (loss or (lambda W, u, v, y: F.cross_entropy(W(torch.cat([u, v, (u - v).abs()], 1)), y)))(
                self.classifier, u, v, labels)
    return Head


def test_siamese_classifier_right_and_each_slip_named(encoder, capsys):
    nb02.check_siamese_classifier(make_head(), encoder)
    assert "[OK]" in capsys.readouterr().out
    for message, slip in nb02.HEAD.slips.items():
        with pytest.raises(ExerciseError, match=re.escape(message)):
            nb02.check_siamese_classifier(make_head(slip), encoder)


@pytest.mark.parametrize("head, says", [
    (make_head(labels=3), "with num_labels=2 your classifier gives 3 scores"),
    (make_head(width=2), r"reads \d+ features, not the 3 × model.dim"), (make_head(bias=False), "no bias"),
    (make_head(layer=lambda i, o, bias: nn.Sequential(nn.Linear(i, o))), "not an nn.Linear"),
    (make_head(loss=lambda W, u, v, y: F.cross_entropy(W(torch.cat([u, v, (u - v).abs()], 1)), y).item()), "returned"),
    (make_head(loss=lambda W, u, v, y: F.cross_entropy(W(torch.cat([u, v, (u - v).abs()], 1).detach()), y)), "detached"),
    (make_head(loss=lambda W, u, v, y: F.cross_entropy(nn.Linear(W.in_features, W.out_features)(
        torch.cat([u, v, (u - v).abs()], 1)), y)), "another value when called again"),    # trial 4: a layer per call
    (nn.Linear, "subclass of losses.SBERTLoss")])
def test_siamese_classifier_built_wrong_is_named(encoder, head, says):
    with pytest.raises(ExerciseError, match=says):
        nb02.check_siamese_classifier(head, encoder)


def test_a_classifier_width_written_in_as_a_number_is_named(encoder):
    """Trial 4: nn.Linear(192, num_labels), right on smoke's 64-wide encoder only, passed."""
    n = int(encoder.dim)
    with pytest.raises(ExerciseError, match="a number written into the code"):
        nb02.check_siamese_classifier(make_head(layer=lambda i, o, bias: nn.Linear(3 * n, o, bias=bias)), encoder)
    assert int(encoder.dim) == n                                     # the encoder is as it was


def good_pair_loss(model, fa, fb, target, detach_a=False, detach_b=False):
    u, v = model(fa).double(), model(fb).double()                 # float64 arithmetic
    return ((F.cosine_similarity(u.detach() if detach_a else u, v.detach() if detach_b else v) - target) ** 2).mean()


def test_pair_loss_right_in_float64_and_each_slip_named(encoder, capsys):
    nb02.check_pair_loss(good_pair_loss, encoder)
    assert "[OK] pair_loss is right" in capsys.readouterr().out
    for message, slip in nb02.PAIR_LOSS.slips.items():
        with pytest.raises(ExerciseError, match=re.escape(message)):
            nb02.check_pair_loss(slip, encoder)
    with pytest.raises(ExerciseError, match=r"no \.item\(\)"):
        nb02.check_pair_loss(lambda *a, **k: good_pair_loss(*a, **k).item(), encoder)


def gradients_with(clear=True, none=True, clone=True, zeros=True, flags=True):
    def gradients(model, fa, fb, target, detach_a=False, detach_b=False):
        if clear:
            model.zero_grad(set_to_none=none)
        loss = nb02.pair_loss_truth(model, fa, fb, target, *((detach_a, detach_b) if flags else ()))
        loss.backward()
        return loss.item(), {k: (p.grad.clone() if clone else p.grad) if p.grad is not None else torch.zeros_like(p)
                             for k, p in model.named_parameters() if zeros or p.grad is not None}
    return gradients


def test_gradients_right(encoder, capsys):
    nb02.check_gradients(gradients_with(), encoder)
    nb02.check_gradients(gradients_with(none=False), encoder)         # zeroed in place, but copied: fine
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("gradients, says", [
    (gradients_with(clear=False), "backward ADDS"), (gradients_with(none=False, clone=False), "keep a copy"),
    (gradients_with(zeros=False), "zeros of its shape where its .grad is None"),
    (gradients_with(flags=False), "for branch A alone"),
    (lambda m, fa, fb, t, **kw: gradients_with()(m, fa, fb, t, **kw)[1], "not a pair"),
    (lambda m, fa, fb, t, **kw: (None, gradients_with()(m, fa, fb, t, **kw)[1]), "the loss your gradients returned"),
    # trial 4: the loss still attached, a 0-d zero for an unreached parameter, negated gradients, the parameters
    (lambda m, *a, **kw: (m(a[0]).sum(), gradients_with()(m, *a, **kw)[1]), "a tensor still attached"),
    (lambda *a, **kw: (1.0, {k: g if g.any() else torch.tensor(0.) for k, g in gradients_with()(*a, **kw)[1].items()}),
     "a gradient has its parameter's shape"),
    (lambda *a, **kw: (1.0, {k: -g for k, g in gradients_with()(*a, **kw)[1].items()}), "the opposite sign"),
    (lambda m, *a, **kw: (1.0, {k: p.detach().clone() for k, p in m.named_parameters()}), "the parameters themselves")])
def test_gradients_wrong_is_named(encoder, gradients, says):
    with pytest.raises(ExerciseError, match=says):
        nb02.check_gradients(gradients, encoder)


def step_with(rate=lambda lr: lr, in_place=True, only_first=False, returns="model", no_grad=True):
    def gradient_step(model, grads, lr):
        target = model if in_place else copy.deepcopy(model)
        with torch.no_grad() if no_grad else torch.enable_grad():
            for i, (k, p) in enumerate(target.named_parameters()):
                if not (only_first and i):
                    p -= rate(lr) * grads[k]
        return {"model": target, "none": None}[returns]
    return gradient_step


@pytest.mark.parametrize("wrong, says", [
    (step_with(rate=lambda lr: -lr), "uphill"), (step_with(rate=lambda lr: 1.0), "learning rate is missing"),
    (step_with(rate=lambda lr: 0.01), "use the lr passed in"), (step_with(in_place=False), "returned another one"),
    (step_with(only_first=True), "parameter tensors moved"), (step_with(returns="none"), "not the model it updated"),
    (step_with(no_grad=False), r"recorded by autograd(?s:.*)torch.no_grad\(\)"),
    (lambda model, grads, lr: [p - lr * grads[k] for k, p in model.named_parameters()] and model, "did not change"),
    (lambda model, grads, lr: (step_with()(model, grads, lr), grads.clear())[0], "changed its second argument")])
def test_gradient_step_wrong_is_named(wrong, says):
    with pytest.raises(ExerciseError, match=says):
        nb02.check_gradient_step(wrong)


def good_concat(u, v, parts):
    return torch.cat([{"u": u, "v": v, "|u-v|": (u - v).abs(), "u*v": u * v}[p] for p in parts], dim=1)


def test_right_pooling_concat_and_step_written_another_way(capsys):
    nb02.check_pooling(good_pool)                                                 # float64
    nb02.check_concat_features(good_concat, torch.randn(2, 5), torch.randn(2, 5))  # on the notebook's u, v
    nb02.check_gradient_step(step_with(rate=lambda lr: torch.tensor(lr, dtype=torch.float64)))
    assert capsys.readouterr().out.count("[OK]") == 3


@pytest.mark.parametrize("wrong, says", [
    (lambda u, v, p: good_concat(u, v, ["u", "|u-v|", "v"] if tuple(p) == ("u", "v", "|u-v|") else p),
     r"your blocks are \(u, \|u-v\|, v\) for parts \('u', 'v', '\|u-v\|'\)"),
    (lambda u, v, p: torch.cat([{"u": u, "v": v, "|u-v|": u + v, "u*v": u * v}[q] for q in p], 1),
     r"your blocks are \(\?\) for parts \('\|u-v\|',\).*a '\?' is none of u, v"),
    (lambda u, v, p: good_concat(u, v, p).numpy(), "torch tensor")])
def test_concat_wrong_blocks_are_named_without_the_answer(wrong, says):
    with pytest.raises(ExerciseError, match=says) as err:
        nb02.check_concat_features(wrong)
    assert not any(answer in str(err.value) for answer in ("torch.abs", ".abs()", "available["))


def test_the_reference_is_softmax_losss_features_and_two_items_says_what_came_back():
    u, v = torch.randn(3, 5), torch.randn(3, 5)
    for parts in nb02.TABLE6_CONCATS:
        assert torch.equal(losses.SoftmaxLoss(type("Stub", (nn.Module,), {"dim": 5})(), concat=parts).features(u, v),
                           pair_features(u, v, parts))
    with pytest.raises(ExerciseError, match="3 values, not a pair"):
        two_items((1, 2, 3), "f() returned", "return (a, b)")


def test_a_float64_pooling_passes_and_is_told_the_cells_below_need_float32(capsys):
    """Trial 4: pool returning float64 passed, then the notebook's next cell failed ('Double did not match Float')."""
    nb02.check_pooling(lambda t, m, mode: nb02.pool_truth(t.double(), m, mode))
    assert "float64 where the reference's is float32" in capsys.readouterr().out
