"""Self-checks for ``02_the_siamese_network``."""
from __future__ import annotations

import re
from typing import Callable, Sequence

import torch

from ...losses import CONCAT_PARTS, pair_features
from ...paper import TABLE6_CONCATS
from . import guard, Exercise, ExerciseError, call, ok, require, two_items
from .questions import choice, number

__all__ = ["check_concat_features", "check_gradient_step", "check_gradients", "check_pair_loss", "check_pooling", "check_siamese_classifier", "pair_loss_truth", "gradients_truth",
           "reference_features", "TABLE6_CONCATS"]

PARTS = CONCAT_PARTS


def reference_features(u: torch.Tensor, v: torch.Tensor, parts: Sequence[str]) -> torch.Tensor:
    """The library's answer: :func:`sbertlib.losses.pair_features`."""
    return pair_features(u, v, parts)


# Parts in other orders than Table 6's: a function that builds the blocks in one fixed order, whatever
# ``parts`` says, passes all seven of Table 6 (each lists its parts in the same order) but fails these.
REORDERED = (("v", "u"), ("|u-v|", "u", "v"), ("u*v", "u"), ("u", "|u-v|", "v"), ("u*v", "|u-v|", "v", "u"))


def _block_names(got: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> list[str]:
    """What each ``n``-wide block of ``got`` holds, named as a part ("u", "v", "|u-v|", "u*v"), as
    "u-v" / "v-u" (a difference without the absolute value) or "?" (none of these)."""
    n = u.shape[1]
    known = {"u": u, "v": v, "|u-v|": (u - v).abs(), "u*v": u * v, "u-v": u - v, "v-u": v - u}
    names = []
    for k in range(got.shape[1] // n):
        block = got[:, k * n:(k + 1) * n]
        names.append(next((name for name, t in known.items() if torch.allclose(block, t, atol=1e-5)), "?"))
    return names


def _diagnose(got: torch.Tensor, u: torch.Tensor, v: torch.Tensor, parts: tuple[str, ...]) -> str:
    """Say what the student's blocks are, in their order — never what they should have written."""
    names = _block_names(got, u, v)
    said = f"your blocks are ({', '.join(names)})"
    for k, (name, p) in enumerate(zip(names, parts)):
        if p == "|u-v|" and name in ("u-v", "v-u"):
            return (f"{said}: block {k} is the difference {name.replace('-', ' − ')} without the absolute value — "
                    "'|u-v|' is element-wise |u − v|, never negative")
    if sorted(names) == sorted(parts):
        return (f"{said} for parts {parts}: the right parts in another order — block k must be the part "
                "named k-th in parts, whatever the order of parts")
    unknown = [k for k, name in enumerate(names) if name == "?"]
    if unknown:
        return (f"{said} for parts {parts}: block {unknown[0]} is none of u, v, |u-v| and u*v (for u, v of shape "
                f"{tuple(u.shape)})")
    return f"{said} for parts {parts}: each block must be the part named at the same position of parts"


def check_concat_features(concat_features: Callable, u: torch.Tensor | None = None,
                          v: torch.Tensor | None = None) -> None:
    """Check ``concat_features(u, v, parts)`` for every concatenation of the paper's Table 6.

    Tested on random ``u, v`` of a few shapes (and on the notebook's ``u, v`` if given) against a
    reference computed here: shape ``(B, len(parts)·n)`` and the values of each block in order — for
    Table 6's seven and for parts in other orders (:data:`REORDERED`), so a function that ignores the
    order of ``parts`` fails. A wrong answer is told what its blocks are, e.g. ``(u, |u-v|, v)``.
    """
    require(callable(concat_features), "pass your function itself: check_concat_features(concat_features, u, v)")
    g = torch.Generator().manual_seed(0)
    inputs = [(torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)),
              (torch.randn(1, 6, generator=g), torch.randn(1, 6, generator=g))]
    if u is not None and v is not None:
        inputs.append((u.detach().float().cpu(), v.detach().float().cpu()))
    for a, b in inputs:
        for parts in TABLE6_CONCATS + REORDERED:
            got = call(concat_features, a.clone(), b.clone(), parts)
            require(got is not None and got is not NotImplemented, f"concat_features(u, v, {parts}) returned {got!r}",
                    "return the concatenated tensor")
            require(isinstance(got, torch.Tensor), f"concat_features returned a {type(got).__name__}, not a torch tensor",
                    "use torch.cat([...], dim=1)")
            got = got.detach().float().cpu()
            want = reference_features(a, b, parts)
            require(tuple(got.shape) == tuple(want.shape),
                    f"for u, v of shape {tuple(a.shape)} and parts {parts} you returned shape {tuple(got.shape)}, "
                    f"expected {tuple(want.shape)} = (batch, {len(parts)}·n)",
                    "concatenate along the feature axis: torch.cat(list_of_parts, dim=1)")
            if not torch.allclose(got, want, atol=1e-5):
                raise ExerciseError(f"concat_features(u, v, {parts}) has the right shape but wrong values\n"
                                    f"Hint: {_diagnose(got, a, b, parts)}")
    ok("concat_features is right for all seven concatenations of Table 6, and for parts in other orders")


# ----------------------------------------------------------------------------- pooling
def _pooling_cases(seed: int = 0):
    """Token vectors with padding that cannot hide: far-away padding, and all-negative real values
    (so a max that lets zero-filled padding in shows at once)."""
    g = torch.Generator().manual_seed(seed)
    for batch, seq, dim, lengths, shift in ((4, 7, 5, (7, 3, 1, 5), 0.0), (2, 6, 3, (6, 2), -5.0),
                                            (3, 4, 8, (4, 4, 4), 0.0)):
        tokens = torch.randn(batch, seq, dim, generator=g) + shift
        mask = torch.zeros(batch, seq, dtype=torch.long)
        for row, n in enumerate(lengths):
            mask[row, :n] = 1
            tokens[row, n:] = 100.0 if shift == 0 else 0.0
        yield tokens, mask


def _pooling_hint(mode: str, got: torch.Tensor, tokens: torch.Tensor, mask: torch.Tensor) -> str:
    m = mask.unsqueeze(-1).to(tokens.dtype)
    close = lambda x: tuple(x.shape) == tuple(got.shape) and torch.allclose(got, x, atol=1e-4)  # noqa: E731
    last = tokens[torch.arange(len(mask)), mask.sum(1) - 1]
    known = {
        "mean": [(tokens.mean(1), "that is the mean over all positions: padding was counted. Only the real tokens "
                                  "(mask 1) may enter the sum, and the count"),
                 ((tokens * m).sum(1), "that is the masked sum: a mean also divides, by each sentence's own number "
                                       "of real tokens"),
                 ((tokens * m).sum(1) / tokens.shape[1], "you divided by the padded length T, not by each "
                                                         "sentence's own number of real tokens")],
        "max": [(tokens.max(1).values, "padding won the max: a padded position must never win, whatever the real "
                                       "values are"),
                ((tokens * m).max(1).values, "zeroing the padding is not enough: when every real value is negative "
                                             "a padded 0 wins. A padded position must lose to every real value")],
        "cls": [(last, "that is the last real token ([SEP]); the [CLS] token is the first of every sentence"),
                (tokens[:, -1], "that is the last position; the [CLS] token is the first of every sentence"),
                (tokens.mean(1), "CLS pooling takes one position's vector, not a mean: the [CLS] token's")],
    }
    for value, hint in known[mode]:
        if close(value):
            return hint
    return {"mean": "sum(token vectors × mask) / sum(mask), per sentence",
            "max": "the largest value of each dimension over the real tokens only",
            "cls": "the vector at position 0 of every sentence"}[mode]


_BROADCAST = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")


def _shape_slip(error: Exception, tokens: torch.Tensor, mask: torch.Tensor) -> str | None:
    """A broadcasting error inside the student's pooling, told with the student's own names: which two
    axes of token_embeddings (B, T, H) and attention_mask (B, T) PyTorch was asked to line up.
    The cases' B, T and H all differ, so the sizes in PyTorch's message name the axes. None when the
    error is not a broadcasting one."""
    found = _BROADCAST.search(str(error))
    if not isinstance(error, RuntimeError) or not found:
        return None
    batch, seq, dim = tokens.shape
    axis = {batch: f"B = {batch} (sentences)", seq: f"T = {seq} (token positions)", dim: f"H = {dim} (vector size)"}
    a, b = (int(x) for x in found.groups())
    said = (f"token_embeddings had shape (B, T, H) = {tuple(tokens.shape)} and attention_mask (B, T) = "
            f"{tuple(mask.shape)}; your code combined two tensors whose axes do not line up: "
            f"{axis.get(a, f'an axis of size {a}')} against {axis.get(b, f'an axis of size {b}')}")
    pair = {a, b}
    if pair == {seq, dim}:
        hint = ("the mask meets the token vectors: PyTorch lines shapes up from the last axis, so a (B, T) mask's T "
                "lands on H. The mask needs a last axis of size 1, (B, T, 1), to spread over the H numbers of "
                "each token")
    elif pair == {batch, dim}:
        hint = ("a (B, H) result met one number per sentence of shape (B,): from the last axis, its B lands on H. "
                "Keep that count as a column, (B, 1), so each sentence's vector is divided by its own count")
    else:
        hint = ("one of the tensors lost or gained an axis on the way: print the shapes of your mask and of every "
                "intermediate result, and compare them axis by axis from the right")
    return f"{said}\nHint: {hint}"


def check_pooling(pool_fn: Callable) -> None:
    """Check ``pool(token_embeddings, attention_mask, mode)`` for mode ``"mean"``, ``"max"``, ``"cls"``:
    ``(B, T, H)`` and ``(B, T)`` → ``(B, H)``, equal to ``sbertlib.model.pooling.pool``. Padding is
    made impossible to miss (far-away vectors; all-negative values with zero padding). A broadcasting
    error inside ``pool`` is explained with the axes of the student's own tensors (:func:`_shape_slip`)."""
    from ...model.pooling import pool as reference
    require(callable(pool_fn), "pass your function itself: check_pooling(pool)")
    for mode in ("mean", "max", "cls"):
        for tokens, mask in _pooling_cases():
            try:
                got = call(pool_fn, tokens.clone(), mask.clone(), mode)
            except ExerciseError as err:
                slip = _shape_slip(err.__cause__, tokens, mask) if err.__cause__ is not None else None
                if slip is None:
                    raise
                raise ExerciseError(f"pool(..., {mode!r}) stopped with a shape error: {slip}") from err.__cause__
            require(isinstance(got, torch.Tensor), f"pool(..., {mode!r}) returned {type(got).__name__}, not a tensor",
                    "return a torch tensor of shape (batch, dim)")
            want = reference(tokens, mask, mode)
            require(tuple(got.shape) == tuple(want.shape),
                    f"pool(..., {mode!r}) on shape {tuple(tokens.shape)} returned {tuple(got.shape)}, "
                    f"expected {tuple(want.shape)} = (batch, dim)", "reduce over the sequence axis, dim=1")
            if not torch.allclose(got.detach().float(), want, atol=1e-5):
                raise ExerciseError(f"pool(..., {mode!r}) gives the wrong vectors\n"
                                    f"Hint: {_pooling_hint(mode, got.detach().float(), tokens, mask)}")
    ok("pool is right for mean, max and cls: padding never gets in")


# ----------------------------------------------------------------------------- the classification head
def _classifier_inputs(dim: int, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    u, v = torch.randn(5, dim, generator=g), torch.randn(5, dim, generator=g)
    return u, v, torch.tensor([0, 1, 2, 1, 0])


def _head_hint(student, reference, u, v, labels) -> str:
    """Name the usual mistake by rebuilding it with the student's own weights."""
    import torch.nn.functional as F
    weight, bias = reference.classifier.weight, reference.classifier.bias
    variants = {
        "the features are (u, v, u − v): take the absolute value |u − v|": torch.cat([u, v, u - v], 1),
        "the parts are in the wrong order: the paper's is (u, v, |u − v|)": torch.cat([v, u, (u - v).abs()], 1),
        "the parts are in the wrong order: (u, v, |u − v|), |u − v| last": torch.cat([(u - v).abs(), u, v], 1),
        "the third part is the element-wise product u * v; the paper's default is the absolute difference |u − v|":
            torch.cat([u, v, u * v], 1),
    }
    got = float(student.loss_from_embeddings([u, v], labels))
    for hint, feats in variants.items():
        if abs(got - float(F.cross_entropy(F.linear(feats, weight, bias), labels))) < 1e-5:
            return hint
    logits = F.linear(torch.cat([u, v, (u - v).abs()], 1), weight, bias)
    if abs(got - float(F.cross_entropy(logits.softmax(1), labels))) < 1e-5:
        return ("softmax was applied twice: F.cross_entropy takes the raw logits (it applies log-softmax itself); "
                "the paper's softmax is inside the cross-entropy")
    if abs(got - float(F.cross_entropy(logits, labels, reduction="sum"))) < 1e-4:
        return "that is the sum over the batch: use the mean (F.cross_entropy's default reduction)"
    if abs(got - float(F.nll_loss(logits, labels))) < 1e-5:
        return ("the logits went into a negative log-likelihood as they are: the cross-entropy takes the raw logits "
                "and applies the log-softmax itself")
    return ("the loss is the cross-entropy of the classifier's raw scores for the features (u, v, |u − v|) — side by "
            "side, in that order — against the labels, averaged over the batch")


def check_siamese_classifier(cls, encoder) -> None:
    """Check the student's ``SiameseClassifier(model, num_labels=3)`` (a ``losses.SBERTLoss``):
    a ``classifier`` ``nn.Linear(3n, k)`` with a bias, and ``loss_from_embeddings([u, v], labels)``
    equal to ``sbertlib.losses.SoftmaxLoss`` given the same weights, on random vectors. Known
    mistakes (``u − v`` without abs, parts reordered, softmax twice, summed loss) get their own hint."""
    from ... import losses
    require(isinstance(cls, type) and issubclass(cls, losses.SBERTLoss),
            "pass your class itself, a subclass of losses.SBERTLoss: check_siamese_classifier(SiameseClassifier, encoder)")
    try:
        student = cls(encoder, num_labels=3)
    except NotImplementedError:
        raise ExerciseError("SiameseClassifier is not written yet\nHint: fill in __init__ and loss_from_embeddings") from None
    head = getattr(student, "classifier", None)
    require(isinstance(head, torch.nn.Linear), "self.classifier is not an nn.Linear",
            "in __init__, make self.classifier a linear layer from the features to one score per label")
    n = int(encoder.dim)
    require((head.in_features, head.out_features) == (3 * n, 3),
            f"classifier is {head.in_features} → {head.out_features}, expected {3 * n} → 3 (3n → k)",
            "its input is (u, v, |u − v|): three vectors of n numbers")
    require(head.bias is not None, "the classifier has no bias", "keep nn.Linear's bias, as sentence-transformers does")
    require(student.model is encoder, "self.model is not the encoder you passed in",
            "call super().__init__(model): the one encoder both sentences go through")
    reference = losses.SoftmaxLoss(encoder, num_labels=3)
    reference.classifier.load_state_dict(head.state_dict())
    u, v, labels = _classifier_inputs(n)
    with torch.no_grad():
        got = student.loss_from_embeddings([u, v], labels)
        require(isinstance(got, torch.Tensor) and got.dim() == 0,
                f"loss_from_embeddings returned {got!r}", "return one scalar tensor: the mean cross-entropy")
        want = reference.loss_from_embeddings([u, v], labels)
        if not torch.allclose(got, want, atol=1e-5):
            raise ExerciseError(f"loss {float(got):.5f}, expected {float(want):.5f}\n"
                                f"Hint: {_head_hint(student, reference, u, v, labels)}")
    ok(f"SiameseClassifier computes softmax(W·(u, v, |u−v|)) + cross-entropy, W: {3 * n} → 3, as SoftmaxLoss")


# ----------------------------------------------------------------------------- tied weights: one pair, two branches
def pair_loss_truth(model, fa, fb, target, detach_a: bool = False, detach_b: bool = False) -> torch.Tensor:
    """``(cos(u, v) − target)²`` (mean over the pair) with ``u = model(fa)``, ``v = model(fb)``; a detached branch's
    vector is a constant for autograd."""
    import torch.nn.functional as F
    u, v = model(fa), model(fb)
    u = u.detach() if detach_a else u
    v = v.detach() if detach_b else v
    return F.mse_loss(F.cosine_similarity(u, v), target)


def _grads(fn, model, *args, **kwargs) -> torch.Tensor:
    model.zero_grad(set_to_none=True)
    value = fn(model, *args, **kwargs)
    value.backward()
    out = torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).flatten() for p in model.parameters()])
    model.zero_grad(set_to_none=True)
    return out


def check_pair_loss(pair_loss: Callable, encoder) -> None:
    """Check ``pair_loss(model, fa, fb, target, detach_a=False, detach_b=False)`` on a hidden pair through
    ``encoder`` (in eval mode): its value is ``(cos(u, v) − target)²``, and ``detach_a`` / ``detach_b`` stop the
    gradient through branch A (``u = model(fa)``) / branch B (``v = model(fb)``) without changing the value."""
    import copy
    require(callable(pair_loss), f"pass your function itself, not {type(pair_loss).__name__}",
            "check_pair_loss(pair_loss, encoder)")
    model = copy.deepcopy(encoder).cpu().eval()
    fa, fb = model.tokenize(["A dog runs across the field."]), model.tokenize(["The market closed early today."])
    target = torch.tensor([0.2])
    got = call(pair_loss, model, fa, fb, target)
    require(isinstance(got, torch.Tensor) and got.numel() == 1, f"pair_loss returned {got!r}",
            "return the loss: a tensor holding one number, still attached to the model (no .item())")
    want = pair_loss_truth(model, fa, fb, target)
    if abs(float(got.detach()) - float(want.detach())) > 1e-5:
        import torch.nn.functional as F
        with torch.no_grad():
            u, v = model(fa), model(fb)
        got, want, cos = got.detach(), want.detach(), F.cosine_similarity(u, v)
        hint = ("that is |cos − target| (or cos − target): square it"
                if abs(abs(float(got)) - float((cos - target).abs().sum())) < 1e-5 else
                "the dot product u·v is not the cosine: these vectors are not normalised"
                if abs(float(got) - float(F.mse_loss((u * v).sum(-1), target))) < 1e-4 else
                "the loss compares cos(u, v) with the target: (cos − target)²")
        raise ExerciseError(f"on a hidden pair your loss is {float(got):.6f}, (cos(u, v) − target)² is "
                            f"{float(want):.6f}\nHint: {hint}")
    require(got.requires_grad, "the loss has no gradient: it is detached from the model",
            "compute it from model(fa) and model(fb) with torch operations")
    full = _grads(pair_loss_truth, model, fa, fb, target)
    via_a = _grads(pair_loss_truth, model, fa, fb, target, detach_b=True)
    via_b = _grads(pair_loss_truth, model, fa, fb, target, detach_a=True)
    mine = _grads(lambda *args: call(pair_loss, *args), model, fa, fb, target)
    if not torch.allclose(mine, full, atol=1e-7, rtol=1e-4):
        which = ("only branch A's" if torch.allclose(mine, via_a, atol=1e-7, rtol=1e-4) else
                 "only branch B's" if torch.allclose(mine, via_b, atol=1e-7, rtol=1e-4) else
                 f"{float(mine @ full / (full @ full).clamp_min(1e-30)):.3g}× the loss's, or another direction")
        raise ExerciseError(f"without a detach flag your loss has the right value but its gradient is {which}\n"
                            "Hint: with both flags False, both branches stay connected: no .detach(), .data or "
                            ".item() on any part of the loss")
    for flag, own, other, branch in (("detach_a", via_b, via_a, "A (u = model(fa))"),
                                     ("detach_b", via_a, via_b, "B (v = model(fb))")):
        value = call(lambda *args: pair_loss(*args, **{flag: True}), model, fa, fb, target)
        require(isinstance(value, torch.Tensor) and abs(float(value.detach()) - float(want.detach())) < 1e-5,
                f"with {flag}=True your loss is {float(value.detach()) if isinstance(value, torch.Tensor) else value!r}, not "
                f"{float(want.detach()):.6f}", "detaching a branch changes where the gradient flows, not the loss's value")
        got_grad = _grads(pair_loss, model, fa, fb, target, **{flag: True})
        if torch.allclose(got_grad, own, atol=1e-7, rtol=1e-4):
            continue
        if torch.allclose(got_grad, full, atol=1e-7, rtol=1e-4):
            raise ExerciseError(f"with {flag}=True the gradient still flows through branch {branch}\nHint: make that "
                                "branch's vector a constant for autograd")
        if torch.allclose(got_grad, other, atol=1e-7, rtol=1e-4):
            raise ExerciseError(f"with {flag}=True you cut the other branch: {flag} is about branch {branch}")
        raise ExerciseError(f"with {flag}=True the gradient is neither the full one nor branch {branch}'s alone")
    ok("pair_loss is right: (cos(u, v) − target)², and each detach flag cuts its own branch's gradient")


# ----------------------------------------------------------------------------- the gradient of each branch, one step
def gradients_truth(model, fa, fb, target, **detach) -> tuple[float, dict[str, torch.Tensor]]:
    """``(loss, {parameter name: its gradient})`` of one pair's loss (:func:`pair_loss_truth`), from cleared
    gradients, a copy of each (zeros where none reached a parameter); the model's ``.grad`` left cleared."""
    model.zero_grad(set_to_none=True)
    value = pair_loss_truth(model, fa, fb, target, **detach)
    value.backward()
    grads = {k: (p.grad.detach().clone() if p.grad is not None else torch.zeros_like(p))
             for k, p in model.named_parameters()}
    model.zero_grad(set_to_none=True)
    return float(value.detach()), grads


def _grad_case(encoder):
    """A copy of the encoder with one more parameter that no loss reaches (as BERT's pooler, under mean
    pooling): its ``.grad`` stays ``None``, and the answer must give it zeros."""
    import copy
    model = copy.deepcopy(encoder).cpu().eval()
    model.register_parameter("never_reached", torch.nn.Parameter(torch.zeros(3)))
    return model, model.tokenize(["Two children play in the snow."]), model.tokenize(["A chef slices onions."]), \
        torch.tensor([0.1])


def _as_grads(got, names, what: str) -> dict:
    items = two_items(got, f"{what} returned", "return two things: the loss's value and a dict {parameter name: gradient}")
    value, grads = items
    require(isinstance(grads, dict), f"the second thing {what} returned is a {type(grads).__name__}, not a dict",
            "a dict {parameter name: gradient tensor}, one entry per model.named_parameters()")
    missing = [k for k in names if k not in grads]
    require(not missing, f"your dict has no gradient for {len(missing)} of {len(names)} parameters (e.g. {missing[0]!r})"
            if missing else "", "every parameter gets an entry: zeros where no gradient reached it (its .grad is None)")
    nones = [k for k in names if not isinstance(grads[k], torch.Tensor)]
    require(not nones, f"{len(nones)} entries are not tensors (e.g. {nones[0]!r}: {grads[nones[0]]!r})" if nones else "",
            "a parameter no gradient reached has .grad None: give it zeros of its shape (torch.zeros_like)")
    return {"value": value, "grads": grads}


def _same(a: dict, b: dict, names) -> bool:
    return all(torch.allclose(a[k].detach().float(), b[k].float(), atol=1e-7, rtol=1e-4) for k in names)


def check_gradients(gradients: Callable, encoder) -> None:
    """Check ``gradients(model, fa, fb, target, detach_a=False, detach_b=False) -> (loss, {name: gradient})``
    on a hidden pair: equal to :func:`gradients_truth` for branch A alone, branch B alone and the whole pair
    (twice), called one after the other on the same model as the notebook does — so gradients left over from
    a previous call, or a dict holding the ``.grad`` tensors that the next backward overwrites, are named."""
    import copy
    require(callable(gradients), f"pass your function itself, not {type(gradients).__name__}",
            "check_gradients(gradients, encoder)")
    model, fa, fb, target = _grad_case(encoder)
    reference = copy.deepcopy(model)
    names = [k for k, _ in model.named_parameters()]
    runs = [("branch A alone (detach_b=True)", {"detach_b": True}), ("branch B alone (detach_a=True)", {"detach_a": True}),
            ("the whole pair", {}), ("the whole pair, called again", {})]
    results, snapshots, wants = [], [], []
    for what, detach in runs:
        got = _as_grads(call(lambda *a: gradients(*a, **detach), model, fa, fb, target), names, "your function")
        value = got["value"]
        require(isinstance(value, (float, int)) or (isinstance(value, torch.Tensor) and value.numel() == 1),
                f"the loss you returned for {what} is {value!r}", "the loss's value: float(loss) or loss.item()")
        results.append(got["grads"])
        snapshots.append({k: got["grads"][k].detach().clone() for k in names})
        wants.append(gradients_truth(reference, fa, fb, target, **detach)[1])
    if not _same(snapshots[0], wants[0], names):
        raise ExerciseError("the gradients you returned for branch A alone are not the gradient of the pair loss with "
                            "branch B detached\nHint: call your pair_loss with the detach flags given, backward() on "
                            "it, then read each parameter's .grad")
    for i, (what, _) in enumerate(runs[1:], start=1):
        if _same(snapshots[i], wants[i], names):
            continue
        if _same(snapshots[i], {k: sum(w[k] for w in wants[:i + 1]) for k in names}, names):
            raise ExerciseError(f"for {what} you returned the sum of this call's gradients and the earlier calls': "
                                "backward ADDS to .grad\nHint: clear every parameter's gradient at the start of each call")
        raise ExerciseError(f"for {what} your gradients are not right, though branch A alone (the first call) was")
    if not _same(results[0], snapshots[0], names):
        raise ExerciseError("the gradients your first call returned changed when the function was called again: the "
                            "dict holds the parameters' own .grad tensors, which the next backward overwrites\n"
                            "Hint: keep a copy of each gradient (.clone())")
    ok(f"gradients of branch A, branch B and the whole pair equal autograd's, for all {len(names) - 1} parameter tensors "
       "of the encoder and one that no gradient reaches (zeros), call after call")


def check_gradient_step(gradient_step: Callable) -> None:
    """Check ``gradient_step(model, grads, lr)``: every parameter ``p ← p − lr · grads[name]``, in place (the
    model passed in is updated, and returned), with hidden gradients and rates."""
    import copy
    require(callable(gradient_step), f"pass your function itself, not {type(gradient_step).__name__}",
            "check_gradient_step(gradient_step)")
    g = torch.Generator().manual_seed(31)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2))
    before = copy.deepcopy(model)
    grads = {k: torch.randn(p.shape, generator=g) for k, p in model.named_parameters()}
    lr = 0.3
    try:
        returned = call(gradient_step, model, {k: v.clone() for k, v in grads.items()}, lr)
    except ExerciseError as err:
        if "leaf Variable that requires grad" in str(err.__cause__ or ""):
            raise ExerciseError("your in-place update was recorded by autograd, which refuses to change a parameter "
                                "that requires a gradient (RuntimeError: a leaf Variable that requires grad is used "
                                "in an in-place operation)\nHint: an update is not part of the computation to "
                                "differentiate: do it inside torch.no_grad()") from None
        raise
    after = dict(model.named_parameters())
    want = {k: p.detach() - lr * grads[k] for k, p in before.named_parameters()}
    changed = [k for k, p in before.named_parameters() if not torch.equal(p, after[k])]
    if not changed:
        if isinstance(returned, torch.nn.Module) and returned is not model:
            raise ExerciseError("the model passed in did not change (you returned another one)\nHint: update its "
                                "parameters in place, inside torch.no_grad(), so that it is the model that moves")
        raise ExerciseError("no parameter of the model changed\nHint: update each parameter in place, inside "
                            "torch.no_grad() (an update that makes a new tensor leaves the model as it was)")
    require(len(changed) == len(after), f"only {len(changed)} of {len(after)} parameter tensors moved",
            "every parameter takes its step: go through all of model.named_parameters()")
    got = {k: p.detach() for k, p in after.items()}
    if not all(torch.allclose(got[k], want[k], atol=1e-6) for k in got):
        up = all(torch.allclose(got[k], want[k] + 2 * lr * grads[k], atol=1e-6) for k in got)
        no_lr = all(torch.allclose(got[k], want[k] + lr * grads[k] - grads[k], atol=1e-6) for k in got)
        hint = ("that step went uphill: gradient DEScent subtracts lr · gradient" if up else
                "the learning rate is missing: the step is lr · gradient" if no_lr else
                "each parameter moves by −lr times its own gradient (grads[its name])")
        raise ExerciseError(f"after your step the parameters are not p − lr · gradient (lr = {lr})\nHint: {hint}")
    require(all(not p.requires_grad or p.grad is None for p in after.values()) and all(p.requires_grad for p in after.values()),
            "after your step the parameters no longer require gradients, or carry a .grad",
            "update the values in place under torch.no_grad(); leave requires_grad as it was")
    require(returned is model, f"your function returned {type(returned).__name__}, not the model it updated",
            "return the model, so that tied = gradient_step(copy.deepcopy(encoder), …) reads well")
    ok(f"gradient_step moves each of the {len(after)} parameter tensors by −lr · its gradient, in place")


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    Exercise('pool', probe="""
            _rng = _np.random.default_rng(2022)
            _result = {}
            for _k, _lengths in enumerate(((5, 2, 1), (4, 4))):
                _te = _torch.tensor(_rng.normal(size=(len(_lengths), max(_lengths), 6)) - 3.0, dtype=_torch.float32)
                _mask = _torch.tensor([[1] * n + [0] * (max(_lengths) - n) for n in _lengths])
                for _mode in ("mean", "max", "cls"):
                    _result[f"{_mode} {_k}"] = pool(_te.clone(), _mask.clone(), _mode)
            """),
    Exercise('SiameseClassifier', probe="""
            _rng = _np.random.default_rng(2023)
            _head = SiameseClassifier(_Model(), num_labels=3)
            with _torch.no_grad():
                _head.classifier.weight.copy_(_torch.tensor(_rng.normal(size=(3, 24)) * 0.3, dtype=_torch.float32))
                _head.classifier.bias.copy_(_torch.tensor([0.1, -0.2, 0.05]))
            _u, _v = (_torch.tensor(_rng.normal(size=(5, 8)), dtype=_torch.float32) for _ in range(2))
            _result = {"classifier": [_head.classifier.in_features, _head.classifier.out_features],
                       "loss": _head.loss_from_embeddings([_u, _v], _torch.tensor([0, 1, 2, 1, 0]))}
            """),
    Exercise('pair_loss', probe="""
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
            """),
    Exercise('concat_features', probe="""
            _rng = _np.random.default_rng(2024)
            _u, _v = (_torch.tensor(_rng.normal(size=(2, 3)), dtype=_torch.float32) for _ in range(2))
            _parts = [("u", "v"), ("|u-v|",), ("u*v",), ("|u-v|", "u*v"), ("u", "v", "u*v"), ("u", "v", "|u-v|"),
                      ("u", "v", "|u-v|", "u*v"), ("v", "u"), ("|u-v|", "v", "u")]
            _result = {" ".join(p): concat_features(_u.clone(), _v.clone(), p) for p in _parts}
            """),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "02.1": choice(
        "If mean pooling divided by the padded length T, what would happen to a short sentence beside a long one?",
        "Its vector would shrink, by a factor that depends on the batch",
        {"Nothing, since the mask already zeroes the padded positions":
            "Zeroing removes padding from the sum; what does dividing by T instead of the real length do to the mean?",
         "Its vector would come out as NaN":
            "NaN comes from dividing by zero: when would that happen?",
         "Its vector would grow longer, since padding adds to the sum":
            "Dividing by a larger number than the count of real tokens …"}),
    "02.2": choice(
        "Max pooling with padded positions set to 0 instead of −∞ goes wrong when a dimension's real values are …",
        "all negative",
        {"all positive":
            "Try real values 2 and 3 with a padded 0: which wins the max?",
         "of mixed signs":
            "Try −1 and 2 with a padded 0: which wins the max?",
         "never: the mask keeps padding out":
            "max itself knows nothing of the mask: what values sit at the padded positions?"}),
    "02.3a": choice(
        "Why would u − v (no absolute value) make the classifier depend on which sentence comes first?",
        "It changes sign when the sentences swap",
        {"It is zero for paraphrases, whatever the order":
            "That holds for |u − v| too. What happens to u − v if A and B trade places?",
         "A linear layer cannot read negative numbers":
            "A linear layer takes any real numbers.",
         "It has a different size from |u − v|":
            "Both have n numbers."}),
    "02.3b": number(
        "By how many points does adding |u−v| to (u, v) raise the STSb dev score in Table 6?",
        14.74, 0.02,
        "Read Table 6's rows (u, v) and (u, v, |u−v|).",
        "Read Table 6's rows (u, v) and (u, v, |u−v|).",
        {11.40: "That is what u*v adds to (u, v). Which row adds |u−v|?"}),
    "02.4": choice(
        "After NLI training the classifier W_t is thrown away. How are two sentences compared at inference?",
        "Each encoded once, the two vectors compared by cosine",
        {"By the classifier's probability of entailment":
            "That would need W_t, which is gone, and both sentences at once. What does Figure 2 show?",
         "By the pooling layer, which holds what was learnt":
            "Mean pooling has no parameters. Where did the learning go?",
         "Both through BERT together, as in a cross-encoder":
            "Then there would be no vector per sentence, and search would be as slow as in notebook 01."}),
    "02.5a": choice(
        "Which is a reason to tie the weights of the two branches?",
        "cos(u, v) is the same in both orders; one vector per sentence",
        {"Tied weights halve each gradient, so training is more stable":
            "Section 4 measured it: the two branches' gradients add up in one .grad.",
         "The paper shows that tied weights score higher":
            "The paper gives no reason for tying them.",
         "Untied towers cannot be trained on pairs at all":
            "Dual encoders such as DPR are trained on pairs with two towers."}),
    "02.5b": choice(
        "Where is a dual encoder with two separately trained towers a sensible choice?",
        "Question → passage retrieval",
        {"STS, where a pair has no order":
            "If the pair has no order, what would two towers break?",
         "Clustering one corpus":
            "With two towers, which one encodes the corpus?",
         "Paraphrase mining in one corpus":
            "Every sentence is compared with every other of the same corpus: which tower encodes them?"}),
    "02.6": number(
        "How many trainable numbers does the classifier W_t have for n = 768 and k = 3, bias included?",
        6915, 0,
        "The features are (u, v, |u−v|), each of size n, and there is one bias per label.",
        "One weight per feature and label, plus one bias per label.",
        {6912: "Almost: add the bias.",
         2307: "The classifier reads 3n features, not n.",
         2304: "The classifier reads 3n features, and it has a bias."}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
