"""The checks of notebook 02 (the siamese network): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb02)."""
from __future__ import annotations

from pathlib import Path
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from sbertlib import losses
from sbertlib.workbook.lessons import ExerciseError, nb02


def good_pool(t, mask, mode="mean"):
    m = mask.unsqueeze(-1).to(t.dtype)
    if mode == "mean":
        return (t * m).sum(1) / m.sum(1)
    if mode == "max":
        return t.masked_fill(m == 0, float("-inf")).max(1).values
    return t[:, 0]


def test_pooling_right(capsys):
    nb02.check_pooling(good_pool)
    assert "[OK]" in capsys.readouterr().out


def _with(mode_fn, mode):
    return lambda t, mask, m="mean": mode_fn(t, mask) if m == mode else good_pool(t, mask, m)


@pytest.mark.parametrize("wrong, hint", [
    (_with(lambda t, mask: t.mean(1), "mean"), "padding was counted"),
    (_with(lambda t, mask: (t * mask.unsqueeze(-1)).sum(1), "mean"), "masked sum"),
    (_with(lambda t, mask: (t * mask.unsqueeze(-1)).sum(1) / t.shape[1], "mean"), "padded length"),
    (_with(lambda t, mask: t.max(1).values, "max"), "padding won the max"),
    (_with(lambda t, mask: (t * mask.unsqueeze(-1)).max(1).values, "max"), "negative"),
    (_with(lambda t, mask: t[:, -1], "cls"), "last position; the \\[CLS\\] token is the first"),
    (_with(lambda t, mask: t[torch.arange(len(mask)), mask.sum(1) - 1], "cls"), r"\[SEP\]"),
    (_with(lambda t, mask: t.mean(2), "mean"), "shape"),
    (lambda t, mask, m="mean": None, "not a tensor"),
])
def test_pooling_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint) as err:
        nb02.check_pooling(wrong)
    assert not any(code in str(err.value) for code in ("[:, 0]", "masked_fill", "mask.sum(dim=1)", "unsqueeze"))


def make_head(features=lambda u, v: torch.cat([u, v, (u - v).abs()], 1), bias=True, width=3,
              loss=lambda logits, labels: F.cross_entropy(logits, labels)):
    class Head(losses.SBERTLoss):
        label_kind = "class"

        def __init__(self, model, num_labels=3):
            super().__init__(model)
            self.classifier = nn.Linear(width * model.dim, num_labels, bias=bias)

        def loss_from_embeddings(self, embeddings, labels):
            u, v = embeddings
            return loss(self.classifier(features(u, v)), labels)
    return Head


def test_siamese_classifier_right(encoder, capsys):
    nb02.check_siamese_classifier(make_head(), encoder)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (make_head(features=lambda u, v: torch.cat([u, v, u - v], 1)), "absolute value"),
    (make_head(features=lambda u, v: torch.cat([v, u, (u - v).abs()], 1)), "wrong order"),
    (make_head(features=lambda u, v: torch.cat([(u - v).abs(), u, v], 1)), "wrong order"),
    (make_head(loss=lambda lg, y: F.cross_entropy(lg.softmax(1), y)), "softmax was applied twice"),
    (make_head(loss=lambda lg, y: F.cross_entropy(lg, y, reduction="sum")), "sum over the batch"),
    (make_head(bias=False), "no bias"),
    (make_head(features=lambda u, v: torch.cat([u, v, u * v], 1)), "element-wise product"),
    (make_head(loss=lambda lg, y: F.nll_loss(lg, y)), "negative log-likelihood"),
    (make_head(loss=lambda lg, y: F.cross_entropy(lg, y) * 0.5), "raw scores for the features"),
    (make_head(features=lambda u, v: torch.cat([u, v], 1), width=2), "expected"),
    (nn.Linear, "subclass of losses.SBERTLoss"),
])
def test_siamese_classifier_wrong(encoder, wrong, hint):
    with pytest.raises(ExerciseError, match=hint) as err:
        nb02.check_siamese_classifier(wrong, encoder)
    assert not any(code in str(err.value) for code in ("nn.Linear(3", "F.cross_entropy(self", "torch.cat(["))


def test_siamese_classifier_that_is_not_a_linear_layer_is_told_without_the_answer(encoder):
    class NoLinear(losses.SBERTLoss):
        def __init__(self, model, num_labels=3):
            super().__init__(model)
            self.classifier = nn.Sequential(nn.Linear(3 * model.dim, num_labels))
    with pytest.raises(ExerciseError, match="linear layer from the features") as err:
        nb02.check_siamese_classifier(NoLinear, encoder)
    assert "3 * model.dim" not in str(err.value)


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
    assert "In your code:" in shown and Path(__file__).name in shown and "RuntimeError" in shown


def make_pair_loss(score=lambda u, v: torch.nn.functional.cosine_similarity(u, v), square=True, which=("a", "b")):
    def pair_loss(model, fa, fb, target, detach_a=False, detach_b=False):
        u, v = model(fa), model(fb)
        flags = dict(zip(which, (detach_a, detach_b)))
        u = u.detach() if flags.get("a") else u
        v = v.detach() if flags.get("b") else v
        diff = score(u, v) - target
        return (diff ** 2 if square else diff.abs()).mean()
    return pair_loss


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
    # right in value, the gradient halved or cut without any flag (the eighth trial's trick, in 05 and 14)
    (lambda model, fa, fb, target, detach_a=False, detach_b=False:
     0.5 * make_pair_loss()(model, fa, fb, target, detach_a, detach_b)
     + 0.5 * make_pair_loss()(model, fa, fb, target, detach_a, detach_b).detach(),
     "without a detach flag your loss has the right value but its gradient is 0.5× the loss's"),
    (lambda model, fa, fb, target, detach_a=False, detach_b=False:
     make_pair_loss()(model, fa, fb, target, detach_a, True),
     "without a detach flag your loss has the right value but its gradient is only branch A's"),
])
def test_nb02_pair_loss_wrong_fails(tiny_encoder, wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb02.check_pair_loss(wrong, tiny_encoder)


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
