"""Self-checks for ``02_the_siamese_network``: pooling, the head, the pair loss and gradients, a step, Table 6."""
import copy
import re
from dataclasses import replace

import torch
import torch.nn.functional as F

from ... import losses
from ...losses import pair_features
from ...model.pooling import pool as pool_truth
from ...paper import TABLE6_CONCATS
from . import (Exercise, ExerciseError, _brief, call, guard, hinted, named_slip, ok, one_number, require, require_gradient,
               two_items)

_close = lambda got, want: torch.is_tensor(got) and got.shape == want.shape and torch.allclose(got.float(), want, atol=1e-5)
_uv = lambda seed, rows, n: [t.clone() for t in torch.randn(2, rows, n, generator=torch.Generator().manual_seed(seed))]
_all_close = lambda a, b: all(torch.allclose(a[k].float(), b[k].float(), rtol=1e-4, atol=1e-7) for k in b)


def _padded() -> list[tuple]:   # every B, T and H differs, so a broadcasting error names its axes
    g, cases = torch.Generator().manual_seed(0), []   # far-away padding; all-negative real values beside zero padding
    for (b, t, h), lengths, pad in (((4, 7, 5), (7, 3, 1, 5), 1e2), ((2, 6, 10), (6, 2), 0.0), ((3, 9, 8), (9, 4, 4), 1e2)):
        mask = (torch.arange(t) < torch.tensor(lengths)[:, None]).long()
        cases.append(((torch.randn(b, t, h, generator=g) - 5 * (pad == 0)).masked_fill(mask[..., None] == 0, pad), mask))
    return [(x, m, mode) for mode in ("mean", "max", "cls") for x, m in cases]


_per = lambda mode, slips: {message: (lambda t, m, how="mean", slip=slip: slip(t, m[..., None].to(t.dtype)) if how == mode
                                      else pool_truth(t, m, how)) for message, slip in slips.items()}   # one mode's slip
POOL = Exercise('pool', probe="""
            _rng = _np.random.default_rng(2022)
            _result = {}
            for _k, _lengths in enumerate(((5, 2, 1), (4, 4))):
                _te = _torch.tensor(_rng.normal(size=(len(_lengths), max(_lengths), 6)) - 3.0, dtype=_torch.float32)
                _mask = _torch.tensor([[1] * n + [0] * (max(_lengths) - n) for n in _lengths])
                for _mode in ("mean", "max", "cls"):
                    _result[f"{_mode} {_k}"] = pool(_te.clone(), _mask.clone(), _mode)
            """, reference=pool_truth, inputs=_padded, compare=_close, slips={**_per("mean", {
        "that is the mean over all positions: padding was counted, only real tokens (mask 1) count": lambda t, m: t.mean(1),
        "the masked sum: a mean also divides, by each sentence's own number of real tokens": lambda t, m: (t * m).sum(1),
        "you divided by the padded length T, not each sentence's own count": lambda t, m: (t * m).sum(1) / t.shape[1],
        "you divided by the whole batch's real tokens: each sentence by its own": lambda t, m: (t * m).sum(1) / m.sum(),
        "you divided by the count − 1: a mean divides by the number of real tokens itself":
            lambda t, m: (t * m).sum(1) / (m.sum(1) - 1)}),
    **_per("max", {
        "padding won the max: a padded position must never win, whatever the real values are": lambda t, m: t.max(1).values,
        "zeroing the padding is not enough: where every real value is negative a padded 0 wins":
            lambda t, m: (t * m).max(1).values,
        "those are the positions of the maxima: .max(dim=1) gives (values, indices), take .values":
            lambda t, m: t.masked_fill(m == 0, -torch.inf).max(1).indices.to(t.dtype),
        "you masked the real tokens, not the padding: -inf where the mask is 0":
            lambda t, m: t.masked_fill(m == 1, -torch.inf).max(1).values,
        "mode='max' gave the mean: read `mode` and pool as it says": lambda t, m: pool_truth(t, m[..., 0].long(), "mean")}),
    **_per("cls", {
        "that is the last real token ([SEP]); the [CLS] token is the first of every sentence":
            lambda t, m: t[torch.arange(len(t)), m.sum((1, 2)).long() - 1],
        "that is the last position; the [CLS] token is the first of every sentence": lambda t, m: t[:, -1],
        "CLS pooling takes one position's vector, not a mean: the [CLS] token's": lambda t, m: t.mean(1)})},
    hint="print the shapes: token_embeddings (B, T, H), attention_mask (B, T); the result is (B, H), from real tokens only",
    ok="pool is right for mean, max and cls: padding never gets in")


def check_pooling(pool) -> None:
    """:data:`POOL`; a broadcasting error inside ``pool`` is told in the axes of the student's own tensors."""
    try:
        POOL.check(pool)
    except ExerciseError as err:
        sizes = re.search(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)", str(err.__cause__))
        x, m, _ = next((c for c in _padded() if sizes and {*map(int, sizes.groups())} <= {*c[0].shape}), (None,) * 3)
        if x is None:
            raise
        a, b = (dict(zip(x.shape, "BTH"))[int(s)] for s in sizes.groups())
        hint = {"HT": "PyTorch lines shapes up from the last axis, so a (B, T) mask's T lands on H: give the mask a last "
                      "axis of size 1, (B, T, 1), to spread over each token's H numbers",
                "BH": "one count per sentence, shape (B,), met (B, H) vectors: from the last axis its B lands on H. Keep "
                      "the count as a column, (B, 1)"}.get("".join(sorted(a + b)), "print each intermediate shape")
        raise ExerciseError(f"token_embeddings had shape (B, T, H) = {tuple(x.shape)} and attention_mask (B, T) = "
                            f"{tuple(m.shape)}: your code lined up {a} = {sizes[1]} against {b} = {sizes[2]}\nHint: {hint}"
                            ) from err.__cause__


_UVD = ("u", "v", "|u-v|")
_ce = lambda W, x, y, **how: F.cross_entropy(W(x), y, **how)
_with = lambda *parts, **how: lambda W, u, v, y: _ce(W, pair_features(u, v, parts), y, **how)
HEAD = Exercise('SiameseClassifier', probe="""
            _rng = _np.random.default_rng(2023)
            _head = SiameseClassifier(_Model(), num_labels=3)
            with _torch.no_grad():
                _head.classifier.weight.copy_(_torch.tensor(_rng.normal(size=(3, 24)) * 0.3, dtype=_torch.float32))
                _head.classifier.bias.copy_(_torch.tensor([0.1, -0.2, 0.05]))
            _u, _v = (_torch.tensor(_rng.normal(size=(5, 8)), dtype=_torch.float32) for _ in range(2))
            _result = {"classifier": [_head.classifier.in_features, _head.classifier.out_features],
                       "loss": _head.loss_from_embeddings([_u, _v], _torch.tensor([0, 1, 2, 1, 0]))}
            """, slips={   # each: the loss that mistake gives with the student's own classifier W
    "(u, v, u − v): take the absolute value |u − v|": lambda W, u, v, y: _ce(W, torch.cat([u, v, u - v], 1), y),
    "the parts are in the wrong order: the paper's is (u, v, |u − v|)": _with("v", "u", "|u-v|"),
    "the parts are in the wrong order: (u, v, |u − v|), |u − v| last": _with("|u-v|", "u", "v"),
    "the third part is the element-wise product u * v; the paper's default is |u − v|": _with("u", "v", "u*v"),
    "the third part is u + v; the paper's is |u − v|": lambda W, u, v, y: _ce(W, torch.cat([u, v, u + v], 1), y),
    "softmax was applied twice: F.cross_entropy takes the raw logits (it applies log-softmax itself)":
        lambda W, u, v, y: F.cross_entropy(W(pair_features(u, v, _UVD)).softmax(1), y),
    "that is the sum over the batch: use the mean (F.cross_entropy's default)": _with(*_UVD, reduction="sum"),
    "the raw logits went into a negative log-likelihood: the cross-entropy applies the log-softmax itself":
        lambda W, u, v, y: F.nll_loss(W(pair_features(u, v, _UVD)), y)})


def _width_read_as_built(cls, encoder, n: int) -> None:
    """A classifier width written in as a number (192 on smoke) stays as it was around an encoder made 8 wider."""
    config = encoder.backbone.config if getattr(encoder, "projection", None) is None else None
    if config is None:
        return
    config.hidden_size += 8
    try:
        wide = call(lambda model: cls(model, num_labels=3), encoder, what="SiameseClassifier(encoder of other width)")
    finally:
        config.hidden_size -= 8
    require(getattr(getattr(wide, "classifier", None), "in_features", None) == 3 * (n + 8), "your classifier's width "
            "is a number written into the code: around an encoder 8 wider it reads as many features as before",
            "3 * model.dim: the encoder's own size, read when the classifier is built")


def check_siamese_classifier(cls, encoder) -> None:
    """``classifier`` an ``nn.Linear(3n, num_labels)`` with a bias; the loss (value, gradient) SoftmaxLoss's."""
    require(isinstance(cls, type) and issubclass(cls, losses.SBERTLoss), "pass your class itself, a subclass of "
            "losses.SBERTLoss", "check_siamese_classifier(SiameseClassifier, encoder)")
    n = int(encoder.dim)
    for k in (2, 3):
        head = call(lambda model: cls(model, num_labels=k), encoder, what=f"SiameseClassifier(encoder, num_labels={k})")
        W = getattr(head, "classifier", None)
        require(isinstance(W, torch.nn.Linear), "self.classifier is not an nn.Linear",
                "in __init__, make self.classifier a linear layer from the features to one score per label")
        require(W.out_features == k, f"with num_labels={k} your classifier gives {W.out_features} scores",
                "one score per label: the num_labels passed in, not a fixed number")
        require(W.in_features == 3 * n, f"your classifier reads {W.in_features} features, not the 3 × model.dim of "
                "(u, v, |u − v|) side by side", "3 * model.dim: the encoder's own size, not a fixed number; and the "
                "parts joined side by side (dim=1), only u, v and |u − v|")
        require(W.bias is not None, "the classifier has no bias", "keep nn.Linear's bias, as sentence-transformers does")
        require(head.model is encoder, "self.model is not the encoder you passed in", "call super().__init__(model)")
    _width_read_as_built(cls, encoder, n)
    reference, y = losses.SoftmaxLoss(encoder, num_labels=3), torch.tensor([0, 1, 2, 1, 0])
    reference.classifier.load_state_dict(W.state_dict())
    u, v = (t.requires_grad_() for t in _uv(0, 5, n))
    got = call(head.loss_from_embeddings, [u, v], y, what="your loss_from_embeddings")
    require(torch.is_tensor(got) and got.numel() == 1, f"loss_from_embeddings returned {_brief(got)}",
            "return one scalar tensor: the mean cross-entropy")
    again = float(call(head.loss_from_embeddings, [u, v], y, what="your loss_from_embeddings").detach())
    require(abs(again - float(got.detach())) < 1e-6, "your loss gave another value when called again on the same "
            "vectors", "a layer made inside loss_from_embeddings starts random at each call: make it once, in __init__")
    if abs((value := float(got.detach())) - float(reference.loss_from_embeddings([u, v], y).detach())) > 1e-5:
        slips = {m: (lambda s=s: float(s(W, u, v, y).detach())) for m, s in HEAD.slips.items()}
        raise ExerciseError(f"your loss on hidden vectors is {value:.5f}, not SoftmaxLoss's with your weights\nHint: " +
                            named_slip(value, slips, "the cross-entropy of the raw scores for (u, v, |u − v|), side by "
                                       "side in that order, averaged over the batch", lambda a, b: abs(a - b) < 1e-5))
    require_gradient(got, {"u": u, "v": v}, lambda a, b: reference.loss_from_embeddings([a, b], y), "your loss")
    ok(f"SiameseClassifier computes softmax(W·(u, v, |u−v|)) + cross-entropy, W: {3 * n} → 3, as SoftmaxLoss")


def pair_loss_truth(model, fa, fb, target, detach_a: bool = False, detach_b: bool = False) -> torch.Tensor:
    """``(cos(u, v) − target)²`` (mean over pairs), ``u = model(fa)``, ``v = model(fb)``; a detached branch constant."""
    u, v = model(fa), model(fb)
    return F.mse_loss(F.cosine_similarity(u.detach() if detach_a else u, v.detach() if detach_b else v), target)


_as = lambda **fixed: lambda m, a, b, t, detach_a=False, detach_b=False: pair_loss_truth(m, a, b, t, **{
    "detach_a": detach_a, "detach_b": detach_b, **fixed})   # the pair loss with a flag fixed, whatever is passed
_cos = lambda f: lambda m, a, b, t, **_: f(F.cosine_similarity(m(a), m(b)), t)
PAIR_LOSS = Exercise('pair_loss', probe="""
            _rng = _np.random.default_rng(2036)
            _lin = _torch.nn.Linear(4, 3)
            with _torch.no_grad():
                _lin.weight.copy_(_torch.tensor(_rng.normal(size=(3, 4)), dtype=_torch.float32))
                _lin.bias.copy_(_torch.tensor([0.1, -0.3, 0.2]))
            _fa, _fb = (_torch.tensor(_rng.normal(size=(2, 4)), dtype=_torch.float32) for _ in range(2))
            _result = {}
            for _branch, _detach in (("both", {}), ("A only", {"detach_b": True}), ("B only", {"detach_a": True})):
                _lin.zero_grad()
                _loss = pair_loss(_lin, _fa, _fb, _torch.tensor([0.2, 0.9]), **_detach)
                _loss.backward()
                _result[_branch] = {"loss": _loss, "weight gradient": _lin.weight.grad}
            """, slips={   # each: pair_loss written with that mistake
    "that is |cos − target| (or cos − target): square it": _cos(lambda c, t: (c - t).abs().mean()),
    "the dot product u·v is not the cosine: these vectors are not normalised":
        lambda m, a, b, t, **_: F.mse_loss((m(a) * m(b)).sum(-1), t),
    "that compares 1 − cos with the target, a similarity: use cos(u, v)": _cos(lambda c, t: F.mse_loss(1 - c, t)),
    "(cos + target)²: the loss is (cos(u, v) − target)²": _cos(lambda c, t: F.mse_loss(c, -t)),
    "both branches encoded the same sentences: u = model(fa), v = model(fb)":
        lambda m, a, b, t, **kw: pair_loss_truth(m, a, a, t, **kw),
    "without a detach flag both branches stay connected: your loss cut branch B's gradient": _as(detach_b=True),
    "without a detach flag both branches stay connected: your loss cut branch A's gradient": _as(detach_a=True),
    "with detach_a=True the gradient still flows through branch A (u = model(fa)): make u a constant": _as(detach_a=False),
    "with detach_b=True the gradient still flows through branch B (v = model(fb)): make v a constant": _as(detach_b=False),
    "you cut the other branch: detach_a is about branch A (u = model(fa)), detach_b about B (v = model(fb))":
        lambda m, a, b, t, detach_a=False, detach_b=False: pair_loss_truth(m, a, b, t, detach_b, detach_a)})


def _graded(loss, model) -> tuple[float, dict[str, torch.Tensor]]:
    """A loss's value and its gradient into each parameter of ``model`` by name, zeros where none (.grad untouched)."""
    named = dict(model.named_parameters())
    grads = torch.autograd.grad(loss, list(named.values()), allow_unused=True, retain_graph=True)
    return float(loss.detach()), {k: torch.zeros_like(p) if g is None else g for (k, p), g in zip(named.items(), grads)}


def check_pair_loss(pair_loss, encoder) -> None:
    model = copy.deepcopy(encoder).cpu().eval()
    args = model, model.tokenize(["A dog runs across the field."]), model.tokenize(["Markets closed."]), torch.tensor([.2])
    same = lambda a, b: abs(a[0] - b[0]) < 1e-5 and _all_close(a[1], b[1])  # noqa: E731
    for flags in ({}, {"detach_a": True}, {"detach_b": True}):
        shown = f"pair_loss(model, fa, fb, target{''.join(f', {k}=True' for k in flags)})"
        got = call(lambda *a: pair_loss(*a, **flags), *args, what=f"your {shown}")
        require(torch.is_tensor(got) and got.numel() == 1 and got.requires_grad, f"your {shown} returned {_brief(got)}",
                "return the loss: a tensor holding one number, still attached to the model (no .item(), no backward())")
        try:
            got = _graded(got.sum(), model)
        except RuntimeError:   # its graph freed by a backward() inside
            raise ExerciseError(f"your {shown} ran backward() itself\nHint: return the loss; its caller "
                                "runs backward") from None
        if not same(got, _graded(pair_loss_truth(*args, **flags), model)):
            slips = {m: (lambda s=s: _graded(s(*args, **flags), model)) for m, s in PAIR_LOSS.slips.items()}
            raise ExerciseError(f"your {shown} is {got[0]:.5f}, its gradient compared too\nHint: " + named_slip(
                got, slips, "(cos(u, v) − target)²; a detach flag changes where the gradient flows, not the value", same))
    ok("pair_loss is right: (cos(u, v) − target)², and each detach flag cuts its own branch's gradient")


def _as_grads(got, shapes: dict, what: str) -> dict:
    value, grads = two_items(got, f"{what} returned", "return two things: the loss's value and {parameter name: gradient}")
    require(not (torch.is_tensor(value) and value.requires_grad), f"the loss {what} returned is a tensor still attached "
            "to its graph", "return its value, a number: loss.item() (the notebook prints it as one)")
    one_number(value, f"the loss {what}", "the loss's value: float(loss) or loss.item()")
    missing = [k for k in shapes if not torch.is_tensor(grads.get(k) if isinstance(grads, dict) else None)]
    require(not missing, f"{what} returned no gradient tensor for {len(missing)} of {len(shapes)} parameters (e.g. "
            f"{missing[:1]})", "a dict with every parameter's name: zeros of its shape where its .grad is None")
    wrong = [k for k, shape in shapes.items() if grads[k].shape != shape]
    require(not wrong, f"{what} returned a gradient of shape {tuple(grads[wrong[0]].shape) if wrong else ''} for "
            f"{wrong[:1]}, whose parameter is {tuple(shapes[wrong[0]]) if wrong else ''}",
            "a gradient has its parameter's shape: torch.zeros_like(p) where p.grad is None")
    return grads


def check_gradients(gradients, encoder) -> None:
    """The pair loss's gradients: branch A alone, B alone, the pair twice, on one model (with a parameter unreached)."""
    model = copy.deepcopy(encoder).cpu().eval()
    model.register_parameter("never_reached", torch.nn.Parameter(torch.zeros(3)))
    fa, fb, target = model.tokenize(["Two children play in the snow."]), model.tokenize(["A chef."]), torch.tensor([.1])
    reference, names, returned, wants = copy.deepcopy(model), [k for k, _ in model.named_parameters()], [], []
    for k, (what, flags) in enumerate((("branch A alone (detach_b=True)", {"detach_b": True}), ("branch B alone "
                                       "(detach_a=True)", {"detach_a": True}), ("the pair", {}), ("the pair again", {}))):
        grads = _as_grads(call(lambda *a: gradients(*a, **flags), model, fa, fb, target),
                          {k: p.shape for k, p in model.named_parameters()}, "your gradients")
        returned.append((grads, {n: grads[n].detach().clone() for n in names}))
        wants.append(_graded(pair_loss_truth(reference, fa, fb, target, **flags), reference)[1])
        if _all_close(returned[k][1], wants[k]):
            continue
        require(not k or not _all_close(returned[k][1], {n: sum(w[n] for w in wants) for n in names}), f"for {what} you "
                "returned the sum of this call's gradients and the earlier calls': backward ADDS to .grad",
                "clear every parameter's gradient at the start of each call (model.zero_grad())")
        raise ExerciseError(f"your gradients for {what} are not the pair loss's\nHint: " + named_slip(returned[k][1], {
            "they have the opposite sign: return each .grad as it is": {n: -w for n, w in wants[k].items()},
            "those are the parameters themselves: return each parameter's .grad": dict(model.named_parameters()),
            "every gradient is zero: zero_grad() before backward(), not after it": {n: 0 * w for n, w in wants[k].items()}},
            "call pair_loss with the detach flags given, backward() on it, then read each parameter's .grad", _all_close))
    require(all(torch.equal(returned[0][0][n], returned[0][1][n]) for n in names), "the gradients your first call "
            "returned changed when the function was called again: the dict holds the parameters' own .grad tensors, "
            "which the next backward overwrites", "keep a copy of each gradient (.clone())")
    ok(f"gradients of branch A, branch B and the whole pair equal autograd's, for all {len(names) - 1} parameter tensors "
       "of the encoder and one that no gradient reaches (zeros), call after call")


def check_gradient_step(gradient_step) -> None:
    """``gradient_step(model, grads, lr)``: every parameter ``p ← p − lr · grads[name]``, in place, the model returned."""
    model, lr = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2)), 0.3
    before = {k: p.detach().clone() for k, p in model.named_parameters()}
    grads = {k: torch.randn(p.shape, generator=torch.Generator().manual_seed(i)) for i, (k, p) in enumerate(before.items())}
    returned = hinted(call, {"leaf Variable that requires grad": "your in-place update was recorded by autograd, which "
                             "refuses to change a parameter that requires a gradient; an update is not part of what is "
                             "differentiated: do it inside torch.no_grad()"}, gradient_step, model, grads, lr,
                      what="your gradient_step")
    step = {k: before[k] - p.detach() for k, p in model.named_parameters()}
    moved = sum(bool(s.any()) for s in step.values())
    require(moved, "the model passed in did not change" + (" (you returned another one)" if returned is not model and
            isinstance(returned, torch.nn.Module) else ""), "update each parameter in place, inside torch.no_grad(): "
            "p -= lr * grads[its name] (p = p − … makes a new tensor and leaves the model as it was; p.grad is empty "
            "here: the gradients are in grads)")
    require(moved == len(step), f"only {moved} of {len(step)} parameter tensors moved", "every parameter takes its step")
    rate = sum(float((s * grads[k]).sum()) for k, s in step.items()) / sum(float((x * x).sum()) for x in grads.values())
    if not all(torch.allclose(s, lr * grads[k], atol=1e-6) for k, s in step.items()):
        along = all(torch.allclose(s, rate * grads[k], atol=1e-6) for k, s in step.items())
        raise ExerciseError(f"after your step the parameters are not p − lr · gradient (lr = {lr})\nHint: " + (
            "each parameter moves by −lr times its own gradient, grads[its name]" if not along else "that step went "
            "uphill: gradient DEScent subtracts lr · gradient" if rate < 0 else "the learning rate is missing: the step "
            "is lr · gradient" if abs(rate - 1) < 1e-4 else f"your step is {rate:.3g} × gradient: use the lr passed in"))
    require(all(p.requires_grad and p.grad is None for p in model.parameters()), "after your step the parameters no "
            "longer require gradients, or carry a .grad", "update the values in place under torch.no_grad()")
    require(returned is model, f"your gradient_step returned {_brief(returned)}, not the model it updated",
            "return the model, so that tied = gradient_step(copy.deepcopy(encoder), …) reads well")
    ok(f"gradient_step moves each of the {len(step)} parameter tensors by −lr · its gradient, in place")


_ORDERS = TABLE6_CONCATS + (("v", "u"), ("|u-v|", "u", "v"), ("u*v", "u"), ("u", "|u-v|", "v"), ("u*v", "|u-v|", "v", "u"))
_cat = lambda u, v, parts, dim=1, **own: torch.cat([{"u": u, "v": v, "|u-v|": (u - v).abs(), "u*v": u * v, **own}[p]
                                                    for p in parts], dim)


def _blocks(_fn, got, u: torch.Tensor, v: torch.Tensor, parts: tuple) -> str:
    """What each n-wide block of the student's ``got`` holds, in their order — never what it should hold."""
    n, known = u.shape[1], {"u": u, "v": v, "|u-v|": (u - v).abs(), "u*v": u * v, "u − v": u - v, "v − u": v - u}
    if not (torch.is_tensor(got) and got.dim() == 2 and got.shape[0] == len(u) and got.shape[1] % n == 0):
        return "return a torch tensor of shape (batch, len(parts)·n): the parts side by side, torch.cat(..., dim=1)"
    names = [next((k for k, t in known.items() if torch.allclose(got[:, i:i + n].float(), t, atol=1e-5)), "?")
             for i in range(0, got.shape[1], n)]
    return (f"your blocks are ({', '.join(names)}) for parts {parts}: block k must be the part named k-th in parts"
            + (" — a '?' is none of u, v, |u-v| and u*v" if "?" in names else ""))


CONCAT_FEATURES = Exercise('concat_features', probe="""
            _rng = _np.random.default_rng(2024)
            _u, _v = (_torch.tensor(_rng.normal(size=(2, 3)), dtype=_torch.float32) for _ in range(2))
            _parts = [("u", "v"), ("|u-v|",), ("u*v",), ("|u-v|", "u*v"), ("u", "v", "u*v"), ("u", "v", "|u-v|"),
                      ("u", "v", "|u-v|", "u*v"), ("v", "u"), ("|u-v|", "v", "u")]
            _result = {" ".join(p): concat_features(_u.clone(), _v.clone(), p) for p in _parts}
            """, reference=pair_features, compare=_close, diagnose=_blocks,
    inputs=lambda: [(*_uv(seed, rows, n), parts) for seed, rows, n in ((0, 3, 4), (1, 1, 6)) for parts in _ORDERS],
    slips={"'|u-v|' is the element-wise |u − v|, never negative: you left out the absolute value (u − v)":
               lambda u, v, p: _cat(u, v, p, **{"|u-v|": u - v}),
           "'|u-v|' is the element-wise |u − v|, never negative: you took v − u without the absolute value":
               lambda u, v, p: _cat(u, v, p, **{"|u-v|": v - u}),
           "your blocks come in one fixed order whatever `parts` says: block k must be the part named k-th in parts":
               lambda u, v, p: _cat(u, v, [q for q in ("u", "v", "|u-v|", "u*v") if q in p]),
           "you stacked the parts on a new axis: put them side by side, torch.cat(..., dim=1)":
               lambda u, v, p: torch.stack([_cat(u, v, [q]) for q in p], 1),
           "you joined the parts along the batch axis (dim=0): side by side is dim=1": lambda u, v, p: _cat(u, v, p, 0)},
    ok="concat_features is right for all seven concatenations of Table 6, and for parts in other orders")


def check_concat_features(concat_features, u=None, v=None) -> None:
    mine = [] if u is None else [(u.detach().float().cpu(), v.detach().float().cpu(), p) for p in _ORDERS]
    replace(CONCAT_FEATURES, inputs=lambda: CONCAT_FEATURES.inputs() + mine).check(concat_features)


EXERCISES = (POOL, HEAD, PAIR_LOSS, CONCAT_FEATURES)

guard(globals())   # last: every check above shows its own failures as an ExerciseError
