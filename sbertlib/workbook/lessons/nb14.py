"""Self-checks for ``14_distillation``: the distillation objective, the word-piece PCA, the projection
started as the PCA's inverse, and a distillation run with the student's loop."""
from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Callable

import torch
import torch.nn.functional as F

from ... import losses
from ...training import distillation
from . import (guard, Exercise, ExerciseError, call, library_calls_watched, library_losses_watched, loss_state_kept,
               named_slip, ok, require, require_gradient, require_own_class, require_own_loss)
from .questions import choice
from .training_runs import (check_notebook_run, check_on_recipes, check_settings_passed, checked, fingerprint,
                            mark_checked, passed_as_is, require_no_weights_of_its_own, require_notebook_examples,
                            require_profile_as_defined, run_parts, settings_left_alone)

__all__ = ["checked", "check_pca_start", "check_distillation_objective", "check_pca_word_pieces", "check_inverse_projection",
           "check_distillation_run", "pca_truth", "fingerprint"]


# ----------------------------------------------------------------------------- the objective
def _hidden_vectors():
    g = torch.Generator().manual_seed(14)
    # then a real batch (128) at bert-base's width, MiniLM's and the students' (a step that changes only there shows)
    for batch, dim in ((5, 8), (1, 6), (9, 4), (128, 768), (128, 384), (128, 128), (128, 64)):
        student, teacher = torch.randn(batch, dim, generator=g) * 1.7, torch.randn(batch, dim, generator=g) * 0.6
        yield student, teacher


def _loss_hint(got: float, s: torch.Tensor, t: torch.Tensor) -> str:
    candidates = {
        "that is the *sum* of the squared differences: the loss is their mean over every number (B × d)":
            ((s - t) ** 2).sum(),
        "that sums each sentence's squared differences and averages over sentences: the mean squared error "
        "averages over every number, the d numbers of each vector too": ((s - t) ** 2).sum(1).mean(),
        "that is 1 − cosine: distillation asks for the teacher's vector itself, length included, with the mean "
        "squared error": (1 - F.cosine_similarity(s, t, dim=1)).mean(),
        "you normalised both vectors inside the loss: the loss compares the vectors as they come (the encoder "
        "normalises, as its teacher does), the student's and the teacher's alike":
            F.mse_loss(F.normalize(s, dim=1), F.normalize(t, dim=1)),
        "you normalised the student's vectors but not the teacher's inside the loss: student and teacher must "
        "be treated the same way — the loss compares them as they come": F.mse_loss(F.normalize(s, dim=1), t),
        "you normalised the teacher's vectors but not the student's inside the loss: student and teacher must "
        "be treated the same way — the loss compares them as they come": F.mse_loss(s, F.normalize(t, dim=1)),
        "that is the square root (RMSE): the loss is the mean squared error itself": torch.sqrt(F.mse_loss(s, t)),
        "that is the mean absolute error: square the differences": (s - t).abs().mean(),
        "that is the dot product: the loss is the mean squared difference": -(s * t).sum(1).mean(),
    }
    return named_slip(got, {h: float(v) for h, v in candidates.items()},
                      "compare the two vectors number by number, as the loss's name says: the error of each number, "
                      "squared, then the mean of them all", close=lambda a, b: abs(a - b) < 1e-5)


def check_distillation_objective(cls, encoder) -> None:
    """Check ``DistillationObjective(model)``: a ``losses.SBERTLoss`` whose examples are ``(sentence,
    teacher_vector)`` and whose ``loss_from_embeddings([student], teacher)`` is the mean squared error
    over every number — :class:`sbertlib.losses.DistillationLoss` — on hidden vectors, then end to end
    through ``encoder``."""
    from ...training import collate, prepare_examples
    require(isinstance(cls, type) and issubclass(cls, losses.SBERTLoss),
            f"pass your class itself, a subclass of losses.SBERTLoss (got {cls!r})",
            "check_distillation_objective(DistillationObjective, encoder) — no parentheses after the name")
    require_own_class(cls, losses.SBERTLoss, "DistillationObjective")
    reference = losses.DistillationLoss(torch.nn.Identity())
    try:
        objective = cls(torch.nn.Identity())
    except NotImplementedError:
        raise ExerciseError("DistillationObjective is not written yet\nHint: fill in the YOUR CODE HERE parts") from None
    except Exception as exc:  # noqa: BLE001 - the student's __init__: named as theirs, not as the check's fault
        raise ExerciseError(f"DistillationObjective(model) raised {type(exc).__name__}: {exc}\nHint: the check builds "
                            f"your objective around a stand-in model (torch.nn.Identity, which hands the vectors "
                            f"through: no projection, no backbone); __init__ needs nothing of the model but to keep it "
                            f"— super().__init__(model)") from exc
    require_no_weights_of_its_own(objective, "DistillationObjective")
    for s, t in _hidden_vectors():
        sg = s.clone().requires_grad_(True)
        try:
            objective.model.train()
            with library_losses_watched() as used, loss_state_kept(objective.loss_from_embeddings,
                                                                   "your loss_from_embeddings"):
                got = call(objective.loss_from_embeddings, [sg], t.clone())
            require_own_loss(used, "DistillationObjective")
            require(objective.model.training, "your loss_from_embeddings switched the model to eval mode",
                    "leave the model's mode to the training loop: dropout stays on while it trains")
        except ExerciseError as err:
            cause = err.__cause__
            if isinstance(cause, (AttributeError, TypeError)) and "'list'" in str(cause):
                raise ExerciseError(f"your loss_from_embeddings raised {type(cause).__name__}: {cause}\nHint: "
                                    "`embeddings` is a list, one tensor per text column (SBERTLoss's convention); "
                                    "a distillation example has one text, so its vectors are the list's only "
                                    "item") from cause
            raise
        require(got is not None and got is not NotImplemented and got is not Ellipsis,
                f"loss_from_embeddings returned {got!r}", "return the loss: a scalar tensor")
        require(isinstance(got, torch.Tensor), f"loss_from_embeddings returned a {type(got).__name__}, not a tensor",
                "compute with torch operations (no .item(), no numpy): training back-propagates through it")
        require(got.numel() == 1, f"for {len(s)} sentences of {s.shape[1]} numbers you returned a tensor of shape "
                f"{tuple(got.shape)}, not a scalar",
                "one loss per sentence (or per number) is not averaged yet: the mean squared error averages "
                "over every number of the batch")
        want, value = float(reference.loss_from_embeddings([s], t)), float(got.detach())
        if abs(value - want) > 1e-5:
            raise ExerciseError(f"for {len(s)} student vectors of {s.shape[1]} numbers you returned {value:.6f}; "
                                f"DistillationLoss gives {want:.6f}\nHint: {_loss_hint(value, s, t)}")
        require_gradient(got, {"the student's vectors": sg}, lambda v: reference.loss_from_embeddings([v], t),
                         f"for {len(s)} student vectors your loss")
    require(getattr(objective, "label_kind", None) == "vector",   # the instance's: training reads it there
            f"label_kind is {getattr(objective, 'label_kind', None)!r}: training reads it to know what each example's "
            "label is", "a distillation example's label is the teacher's vector of its sentence")
    n_texts = getattr(objective, "n_texts", None)
    require(isinstance(n_texts, tuple) and n_texts == (1,), f"n_texts is {n_texts!r}",
            "n_texts is a tuple of the text counts an example may hold: each example holds one sentence, so (1,)")
    g = torch.Generator().manual_seed(41)
    sentences = ["a man plays a guitar", "two dogs run on the beach", "the chef cooks", "a child reads a book"]
    data = [(s, torch.randn(encoder.dim, generator=g).numpy()) for s in sentences]
    with settings_left_alone(encoder, "DistillationObjective(model)"):
        mine = cls(encoder)
    ref = losses.DistillationLoss(encoder)
    require(mine.model is encoder, "the objective's .model is not the encoder it was given",
            "call super().__init__(model) if you wrote an __init__: SBERTLoss keeps the one encoder as self.model")
    try:
        batch = collate(prepare_examples(data, mine), encoder)
    except ValueError as error:
        raise ExerciseError(f"training refuses (sentence, teacher vector) examples: {error}\nHint: label_kind "
                            "says what an example's label is") from None
    with torch.no_grad():
        got, want = mine(batch), ref(collate(prepare_examples(data, ref), encoder))
    require(torch.allclose(got.float(), want.float(), atol=1e-5),
            f"end to end on {len(data)} sentences your objective gives {float(got):.5f}, DistillationLoss "
            f"{float(want):.5f}", "the loss of a batch is your MSE of the student's vectors and the batch's labels")
    ok("DistillationObjective equals DistillationLoss: the mean squared error between the student's and the "
       "teacher's vectors, over every number")


# ----------------------------------------------------------------------------- the PCA
def pca_truth(table: torch.Tensor, width: int):
    """:func:`sbertlib.training.distillation.pca_word_embeddings` of a teacher whose word-piece table is ``table``."""
    embedding = torch.nn.Embedding.from_pretrained(table.float())
    teacher = SimpleNamespace(backbone=SimpleNamespace(get_input_embeddings=lambda: embedding))
    return distillation.pca_word_embeddings(teacher, width)


def _hidden_tables():
    g = torch.Generator().manual_seed(1414)
    # the last: wider than any student (a width capped at 64 shows) and long enough that an SVD of a sample shows
    # and one as long as bert-base-uncased's table (30,522 word pieces): an SVD of part of it shows
    for vocab, hidden, width in ((40, 10, 4), (25, 6, 6), (60, 12, 1), (2500, 80, 70), (30522, 16, 12)):
        scales = torch.linspace(3.0, 0.3, hidden)
        table = torch.randn(vocab, hidden, generator=g) * scales @ torch.linalg.qr(torch.randn(hidden, hidden, generator=g))[0]
        yield table + torch.randn(hidden, generator=g) * 2.0, width   # an offset: a centre far from 0


def _as_tensor(x, what: str) -> torch.Tensor:
    try:
        return torch.as_tensor(x.detach() if isinstance(x, torch.Tensor) else x).float()
    except Exception:  # noqa: BLE001
        raise ExerciseError(f"{what} is a {type(x).__name__}, not an array\nHint: return torch tensors") from None


def _same_up_to_sign(got: torch.Tensor, want: torch.Tensor, dim_rows: bool = True, atol: float = 1e-3) -> bool:
    """Equal but for the sign of each direction (a row of components, a column of reduced)."""
    if got.shape != want.shape:
        return False
    g, w = (got, want) if dim_rows else (got.T, want.T)
    signs = torch.sign((g * w).sum(dim=1, keepdim=True))
    signs[signs == 0] = 1
    return torch.allclose(g * signs, w, atol=atol)


def check_pca_word_pieces(pca_word_pieces: Callable) -> None:
    """Check ``pca_word_pieces(table, width) -> (reduced, components, mean)`` on hidden word-piece tables:
    ``mean`` ``(H,)`` the mean word piece, ``components`` ``(width, H)`` the first ``width`` principal
    directions (rows), ``reduced = (table − mean) @ components.T`` — as ``pca_word_embeddings``, each
    direction up to its sign."""
    require(callable(pca_word_pieces), f"pass your function itself, not {type(pca_word_pieces).__name__}",
            "check_pca_word_pieces(pca_word_pieces) — no parentheses after the name")
    from ...training import distillation
    for table, width in _hidden_tables():
        with library_calls_watched(distillation, "pca_word_embeddings", "make_student") as used:
            out = call(pca_word_pieces, table.clone(), width)
        require(not used, f"your pca_word_pieces calls the library's {used[0] if used else ''}: its PCA is the "
                f"library's, not yours", "write the PCA with torch operations yourself: centre, SVD, keep the first "
                "directions, project — the exercise is the PCA")
        require(isinstance(out, (tuple, list)) and len(out) == 3,
                f"your function returned {type(out).__name__}" + (f" of {len(out)} items" if hasattr(out, "__len__") else ""),
                "return three things: reduced (vocab, width), components (width, H), mean (H,)")
        reduced, components, mean = (_as_tensor(x, name) for x, name in zip(out, ("reduced", "components", "mean")))
        want_reduced, want_components, want_mean = pca_truth(table, width)
        vocab, hidden = table.shape
        shapes = [tuple(x.shape) for x in (reduced, components, mean)]
        expected = [(vocab, width), (width, hidden), (hidden,)]
        if shapes != expected and sorted(shapes) == sorted(expected):
            names = {(vocab, width): "reduced", (width, hidden): "components", (hidden,): "mean"}
            raise ExerciseError(f"you returned the three in another order: {', '.join(names[s] for s in shapes)} "
                                f"(shapes {shapes})\nHint: return them as (reduced, components, mean)")
        require(mean.shape == (hidden,), f"mean has shape {tuple(mean.shape)}, not ({hidden},)",
                "the centre is the mean word piece: average the table over its rows (the vocabulary, dim 0)"
                if mean.shape == (vocab,) else "one number per dimension of the word pieces")
        require(torch.allclose(mean, want_mean, atol=1e-4), "mean is not the table's mean word piece",
                "average the rows of the table (dim 0)")
        if components.shape == (hidden, width) and width != hidden:
            raise ExerciseError(f"components has shape {tuple(components.shape)}, not ({width}, {hidden})\n"
                                "Hint: one direction per row — torch.linalg.svd returns Vh (= Vᵀ), whose rows are the "
                                "directions: keep its first width rows")
        require(components.shape[1:] == (hidden,) and components.dim() == 2,
                f"components has shape {tuple(components.shape)}, not ({width}, {hidden})",
                "one direction per row, each as long as a word piece")
        require(components.shape[0] == width, f"you kept {components.shape[0]} directions, not width = {width}",
                "keep exactly the first width directions: the student's word pieces are width numbers long")
        _, _, vh_raw = torch.linalg.svd(table, full_matrices=False)
        _, _, vh = torch.linalg.svd(table - want_mean, full_matrices=False)
        if not _same_up_to_sign(components, want_components):
            if _same_up_to_sign(components, vh_raw[:width]):
                raise ExerciseError("your directions are those of the table as it is, not centred\nHint: subtract the "
                                    "mean word piece before the SVD: PCA's directions are those of the spread around "
                                    "the centre")
            if width < hidden and _same_up_to_sign(components, vh[-width:]):
                raise ExerciseError("you kept the last directions, those of least spread\nHint: the SVD sorts its "
                                    "singular values largest first: keep the first width rows")
            if width < hidden and _same_up_to_sign(components, vh[:, :width].T):
                raise ExerciseError("your directions are columns of Vh\nHint: torch.linalg.svd returns Vh = Vᵀ: the "
                                    "directions are its rows, not its columns")
            raise ExerciseError("components are not the first principal directions of the table\nHint: PCA's "
                                "directions are those of the largest spread of the whole centred table (every "
                                "row), one per row, largest first")
        scale = max(1.0, float(want_reduced.abs().max()))   # float32's SVD: ~1e-5 of the values' size
        if not _same_up_to_sign(reduced, want_reduced, dim_rows=False, atol=1e-4 * scale):
            u, s, _ = torch.linalg.svd(table - want_mean, full_matrices=False)
            if _same_up_to_sign(reduced, u[:, :width], dim_rows=False):
                raise ExerciseError("reduced is U of the SVD: its columns have length 1, they lost each direction's "
                                    "spread\nHint: project the centred table on your directions, so that each keeps "
                                    "its spread")
            if _same_up_to_sign(reduced, table @ want_components.T, dim_rows=False):
                raise ExerciseError("reduced is the table as it is, projected: not centred\nHint: subtract the mean "
                                    "word piece before projecting — the projection back adds it again")
            raise ExerciseError(f"reduced (shape {tuple(reduced.shape)}) is not the centred table projected on your "
                                f"directions\nHint: each word piece, centred, then measured along each of your "
                                f"directions: shape ({vocab}, {width})")
        signs = torch.sign((components * want_components).sum(dim=1))
        require(torch.allclose(reduced, (table - mean) @ components.T, atol=1e-4) or
                torch.allclose(reduced * signs, want_reduced, atol=1e-4),
                "reduced and components disagree on a direction's sign",
                "compute reduced from the components and the mean you return")
    ok("pca_word_pieces equals pca_word_embeddings: the centred table's first principal directions, the table "
       "projected on them, and the mean word piece")


# ----------------------------------------------------------------------------- the projection
def check_inverse_projection(inverse_projection: Callable) -> None:
    """Check ``inverse_projection(components, mean) -> nn.Linear(width, H)``: weight ``components.T``, bias
    ``mean`` — the map that takes a reduced word piece back to the teacher's space, trainable."""
    require(callable(inverse_projection) and not isinstance(inverse_projection, torch.nn.Module),
            f"pass your function itself, not {type(inverse_projection).__name__}",
            "check_inverse_projection(inverse_projection)")
    for table, width in _hidden_tables():
        reduced, components, mean = pca_truth(table, width)
        hidden = table.shape[1]
        given_c, given_m = components.clone(), mean.clone()
        try:
            got = call(inverse_projection, given_c, given_m)
        except ExerciseError as err:
            cause = err.__cause__
            if isinstance(cause, RuntimeError) and "leaf Variable that requires grad" in str(cause):
                raise ExerciseError(f"your function raised {type(cause).__name__}: {cause}\nHint: a new Linear's "
                                    "weight and bias are trainable: write into them inside `with torch.no_grad():`, "
                                    "as the exercise says") from cause
            if isinstance(cause, RuntimeError) and width != hidden and any(
                    t in str(cause) for t in ("size of tensor", "shape", "size mismatch")):
                raise ExerciseError(f"your function raised {type(cause).__name__}: {cause}\nHint: a Linear's weight has "
                                    f"shape (out_features, in_features) = ({hidden}, {width}); components is "
                                    f"({width}, {hidden}): the weight is its transpose") from cause
            raise
        require(isinstance(got, torch.nn.Linear), f"your function returned {type(got).__name__}, not an nn.Linear",
                "return torch.nn.Linear(width, H) with its weight and bias set: the encoder's projection is one")
        if width != hidden and (got.in_features, got.out_features) == (hidden, width):
            raise ExerciseError(f"your Linear maps {hidden} → {width} numbers; the projection goes from the student's "
                                f"width ({width}) to the teacher's ({hidden})\nHint: nn.Linear(in_features, out_features)")
        require((got.in_features, got.out_features) == (width, hidden),
                f"your Linear maps {got.in_features} → {got.out_features}, not {width} → {hidden}",
                "nn.Linear(width, H): from the student's width to the teacher's")
        require(got.bias is not None, "your Linear has no bias", "the bias puts the mean word piece back: keep it")
        require(got.weight.dtype == torch.float32 and got.bias.dtype == torch.float32,
                f"your Linear holds {got.weight.dtype} numbers; the student's vectors are float32",
                "leave the layer in float32 (no .double() or .half()): a layer and its input must share a dtype")
        for param, given, what in ((got.weight, given_c, "components"), (got.bias, given_m, "mean")):
            require(param.untyped_storage().data_ptr() != given.untyped_storage().data_ptr(),
                    f"your Linear's {'weight' if param is got.weight else 'bias'} shares its memory with `{what}`: "
                    f"training the projection would change the notebook's {what} behind its back",
                    "copy the values into the layer's own weight and bias (under torch.no_grad()), or clone them first")
        w, b = got.weight.detach().float(), got.bias.detach().float()
        require(torch.allclose(w, components.T, atol=1e-5),
                "the weight is not the inverse of the PCA's projection"
                + (" (it is components, not transposed)" if w.shape == components.shape else ""),
                "the directions are orthonormal, so going back multiplies by them again, the other way round; a "
                "Linear computes r @ weight.T: which weight gives that? Copy it in under torch.no_grad()")
        if torch.allclose(b, torch.zeros_like(b), atol=1e-6) or not torch.allclose(b, mean, atol=1e-5):
            raise ExerciseError("the bias is not the mean word piece\nHint: the PCA took the mean away before "
                                "projecting: the way back must add it again")
        require(got.weight.requires_grad and got.bias.requires_grad,
                "the projection is frozen (requires_grad is False)", "distillation trains it: leave it trainable")
        with torch.no_grad():   # what the layer does, hooks and all: a Linear whose forward adds a tanh is no inverse
            back = torch.as_tensor(call(got, reduced.clone(), what="your projection")).float()
        require(tuple(back.shape) == tuple(table.shape) and torch.allclose(back, reduced @ components + mean, atol=1e-3),
                "your layer does not map a reduced word piece r back to r @ components + mean, though its weight and "
                "bias are right: its forward does more than a Linear's (an activation, a hook, dropout)",
                "return a plain torch.nn.Linear: the projection is linear, so that at first it is the PCA's exact "
                "inverse")
        _require_linear_gradient(got, reduced)
    ok("inverse_projection starts the projection as the PCA's inverse: weight components.T, bias the mean word piece")


def _require_linear_gradient(layer, reduced) -> None:
    """The gradient that reaches ``layer``'s weight and bias is a Linear's (trial 13: a hook that zeroes or scales it
    freezes the projection while its weight and bias look right)."""
    g = torch.Generator().manual_seed(1415)
    rows = reduced[: min(len(reduced), 16)].clone()
    upstream = torch.randn(len(rows), layer.out_features, generator=g)
    layer.zero_grad(set_to_none=True)
    try:
        with torch.enable_grad():
            out = call(layer, rows, what="your projection")
            (out * upstream).sum().backward()
        grads = (layer.weight.grad, layer.bias.grad)
    finally:
        layer.zero_grad(set_to_none=True)
    want = (upstream.T @ rows, upstream.sum(dim=0))
    require(all(got is not None and got.shape == w.shape and torch.allclose(got.float(), w, atol=1e-4, rtol=1e-4)
                for got, w in zip(grads, want)),
            "the gradient that reaches your layer's weight and bias is not a Linear's (a hook changes or stops it): "
            "distillation would not train the projection as it should",
            "return a plain torch.nn.Linear, with nothing registered on it or on its parameters")


def check_pca_start(table, width: int, reduced, components, mean, projection) -> None:
    """The notebook's own PCA start: what your ``pca_word_pieces(table, width)`` and ``inverse_projection(components,
    mean)`` gave on the teacher's whole table at the profile's width — sizes no hidden table has, so a step that
    changes with the size (a condition on H, the rows or the width) shows here (trial 11). Without a second SVD: the
    directions must be orthonormal and hold, in order, the largest spreads of the centred table (the eigenvalues of
    its covariance); ``reduced`` the table projected on them; the projection must map ``reduced`` back."""
    table = torch.as_tensor(table).detach().float()
    rows, hidden = table.shape
    reduced, components, mean = (_as_tensor(x, name) for x, name in
                                 zip((reduced, components, mean), ("reduced", "components", "mean")))
    on = f"on the teacher's table ({rows:,} × {hidden}) at width {width}"
    why = ("the hidden tables of the checks above passed, so the likely cause is a step that changes with the size (a "
           "condition on H, on the number of rows or on the width), an approximate method (pca_lowrank, a randomised "
           "SVD) or a layer that does more than its Linear: do the same exact steps for every table")
    require([tuple(x.shape) for x in (reduced, components, mean)] == [(rows, width), (width, hidden), (hidden,)],
            f"{on} your pca_word_pieces returned shapes {[tuple(x.shape) for x in (reduced, components, mean)]}, not "
            f"[({rows}, {width}), ({width}, {hidden}), ({hidden},)]", why)
    want_mean = table.mean(dim=0)
    require(torch.allclose(mean, want_mean, atol=1e-4), f"{on} your mean is not the table's mean word piece", why)
    centred = (table - want_mean).double()
    covariance = centred.T @ centred / rows
    spreads = torch.linalg.eigvalsh(covariance).flip(0)[:width]        # the largest first
    c = components.double()
    require(torch.allclose(c @ c.T, torch.eye(width, dtype=torch.double), atol=1e-4),
            f"{on} your directions are not orthonormal (each of length 1, at right angles to the others)", why)
    held = c @ covariance @ c.T                                          # diagonal: the spread along each direction
    tol = 1e-4 * float(spreads[0])
    off = (held - torch.diag(torch.diagonal(held))).abs().max()
    wrong = [k for k in range(width) if abs(float(held[k, k] - spreads[k])) > tol]
    require(not wrong and float(off) <= tol,
            f"{on} your directions are not the table's first principal directions"
            + (f": direction {wrong[0]} holds a spread of {float(held[wrong[0], wrong[0]]):.4g}, where the "
               f"{_ordinal(wrong[0] + 1)} largest is {float(spreads[wrong[0]]):.4g}" if wrong else ""), why)
    scale = max(1.0, float(reduced.abs().max()))
    require(torch.allclose(reduced, (table - mean) @ components.T, atol=1e-4 * scale),
            f"{on} reduced is not the centred table projected on your directions", why)
    sample = reduced[torch.linspace(0, rows - 1, min(rows, 512)).long()]
    with torch.no_grad():
        back = torch.as_tensor(call(projection, sample, what="your projection (inverse_projection's layer)")).float()
    require(torch.allclose(back, sample @ components + mean, atol=1e-4 * scale),
            f"{on} your inverse_projection does not map a reduced word piece r back to r @ components + mean", why)
    ok(f"your PCA start {on}: the first {width} principal directions, largest spread first, the table projected on "
       f"them, and a projection that maps each reduced word piece back")


def _ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


# ----------------------------------------------------------------------------- the run
def _run_parts(result, start, before: tuple[float, ...]):
    """(objective, step_losses) of what ``train_distillation`` returned (:func:`run_parts`); the trained model keeps its
    projection to the teacher's width."""
    objective, step_losses = run_parts(result, start, before, "train_distillation", "DistillationObjective", "the 'PCA word pieces, not trained' row")
    require(getattr(objective.model, "projection", None) is not None or objective.model.dim == start.dim,
            "the trained model lost its projection to the teacher's width")
    return objective, step_losses


def _scaled(vector, factor: float):
    """``factor`` × a teacher vector, of the notebook's own kind (a numpy array stays one, of its dtype; a tensor a
    tensor; a list a list): a function written for the notebook's vectors reads the check's alike (trial 11)."""
    import numpy as np
    if isinstance(vector, np.ndarray):
        return (vector * factor).astype(vector.dtype, copy=False)
    if isinstance(vector, torch.Tensor):
        return vector * factor
    return [factor * x for x in vector]


def _require_profiles_teacher_data(teacher_data, profile, sample: int = 8) -> None:
    """``teacher_data`` is what the notebook's cell builds for ``profile``: every distillation sentence, in order, each
    with the teacher's float32 vector — read again from the teacher for ``sample`` of them (to 1e-4 relative in fp32; a
    bf16 teacher gives another batch other roundings, so 3e-2 there). Trial 18: STSb test sentences appended, or the
    vectors cast to float16, passed and were saved as the profile's run."""
    import numpy as np
    from .. import runs
    items = list(teacher_data)
    require_notebook_examples([s for s, _ in items], distillation.distinct(runs.distillation_sentences(profile)),
                              "teacher_data")
    kinds = {str(np.asarray(v).dtype) for _, v in items}
    require(kinds == {"float32"}, f"teacher_data's vectors are {', '.join(sorted(kinds))}, not the teacher's float32",
            "run the cell that builds teacher_data again and leave it as it is")
    teacher = runs.teacher(profile)
    picked = sorted({round(k * (len(items) - 1) / (sample - 1)) for k in range(sample)})
    again = distillation.teacher_examples(teacher, [items[k][0] for k in picked])
    tol = 1e-4 if teacher.resolved_precision() == "fp32" else 3e-2
    for k, (_, want) in zip(picked, again):
        got = np.asarray(items[k][1], dtype=np.float64)
        error = float(np.linalg.norm(got - want) / np.linalg.norm(want))
        require(error <= tol, f"teacher_data's vector #{k} is not the teacher's for its sentence (off by {error:.2g} of "
                f"its length)", "run the cell that builds teacher_data again and leave it as it is")


def check_distillation_run(train_distillation: Callable, result, start, before: tuple[float, ...], teacher_data,
                           recipe, profile=None) -> None:
    """Check ``train_distillation(start, data, recipe) -> (objective, step_losses, seconds)``.

    ``result`` is what the notebook's run returned (None where the run was loaded rather than trained), from
    ``start`` (``before`` is its :func:`fingerprint`) on ``teacher_data`` with ``recipe``
    (``profile.distill``): the start untouched, the objective holding the trained copy, one loss per step of
    ``recipe.epochs × ceil(len(teacher_data) / recipe.batch_size)``. Then the function itself, on the check's
    recipes (:func:`training_runs.check_on_recipes`): every loss and the trained weights must be the library's run of
    the same recipe; a setting not taken from ``recipe`` is named. With the notebook's ``profile``, ``recipe`` and
    ``teacher_data`` must be that profile's own (:func:`_require_profiles_teacher_data`)."""
    require(callable(train_distillation), f"pass your function itself, not {type(train_distillation).__name__}",
            "checks.check_distillation_run(train_distillation, new_run, pca_start, before, teacher_data, "
            "profile.distill, profile)")
    if profile is not None:
        require_profile_as_defined(profile, recipe, "distill")
        _require_profiles_teacher_data(teacher_data, profile)
    said = "the distillation run was loaded, trained before (RETRAIN = True trains it again)"
    read = check_settings_passed(train_distillation, "train_distillation", start, teacher_data, recipe)
    if result is not None:
        _, step_losses = _run_parts(result, start, before)
        per_epoch = math.ceil(len(teacher_data) / recipe.batch_size)
        n = len(step_losses)
        require(n == recipe.epochs * per_epoch, f"your function returned {n} step losses; the profile's recipe is {recipe.epochs} "
                f"epoch(s) of {per_epoch} batches = {recipe.epochs * per_epoch}",
                "train on every example of `data` with the recipe's epochs and batch_size")
    # the check's teacher vectors are 0.6 times as long as the notebook's (a teacher whose vectors are not of unit
    # length): a function that rescales them, harmless on MiniLM's unit vectors, trains another run
    rescaled = [(sentence, _scaled(vector, 0.6)) for sentence, vector in teacher_data]
    probes = check_on_recipes(train_distillation, "train_distillation", start, rescaled, recipe,
                              losses.DistillationLoss, _run_parts, "teacher_data")
    if result is not None:   # last: its hint assumes the check's recipes were followed
        followed = check_notebook_run(result[0], step_losses, start, teacher_data, recipe, losses.DistillationLoss)
        said = f"your run: {n} steps ({recipe.epochs} epoch(s)), the start untouched, {followed}"
    if result is not None:
        mark_checked(result)   # the notebook saves only what passed (training_runs.checked)
    ok(f"{said}; on the check's {len(probes)} recipes of its own (clipping at {probes[0].max_grad_norm:g} among them) "
       f"every loss and the trained weights are the library's run of the same recipe{passed_as_is(read)}")


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    Exercise('DistillationObjective', probe="""
            _g = _torch.Generator().manual_seed(2034)
            _s, _t = _torch.randn(4, 6, generator=_g), _torch.randn(4, 6, generator=_g)
            _result = DistillationObjective(_Model()).loss_from_embeddings([_s], _t)
            """),
    Exercise('pca_word_pieces', probe="""
            _g = _torch.Generator().manual_seed(2035)
            _table = _torch.randn(20, 6, generator=_g) * _torch.linspace(3, 0.5, 6) + 1.5
            _r, _c, _m = pca_word_pieces(_table, 3)
            _result = {"back": _torch.as_tensor(_r) @ _torch.as_tensor(_c) + _torch.as_tensor(_m), "mean": _m}
            """),
    Exercise('inverse_projection', probe="""
            _g = _torch.Generator().manual_seed(2036)
            _c = _torch.linalg.qr(_torch.randn(6, 6, generator=_g))[0][:3]
            _lin = inverse_projection(_c, _torch.randn(6, generator=_g))
            _result = {"weight": _lin.weight, "bias": _lin.bias}
            """),
    Exercise('train_distillation', probe=None),  # a training run: its check grades it
    Exercise('predict_pca_start', probe=None),  # a prediction: any of the three is an answer
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {
    "14.1": choice(
        "What does the distillation loss compare?",
        "The student's vector of a sentence with the teacher's vector of it",
        {"The cosine of two sentences with their gold score":
            "That is the regression objective of notebook 05. What is the label of a distillation example?",
         "The student's NLI label with the teacher's":
            "Neither model predicts a label here. What does the teacher give each sentence?"}),
    "14.2": choice(
        "The student's vectors are shorter than the teacher's (offline 128 numbers against 384). What makes the MSE "
        "between them possible?",
        "A learnt linear map, started as the PCA's inverse",
        {"Padding the student's vectors with zeros":
            "Then the teacher's extra numbers could never be matched. What could map the student's numbers to its?",
         "Cutting the teacher's vectors to the student's width":
            "The teacher's vector is the target as it is. What could the student add after its pooling?"}),
    "14.3": choice(
        "Why is the word-piece table centred before the SVD?",
        "Otherwise the first direction points at the mean word piece",
        {"The SVD fails on a table that is not centred":
            "It runs on any matrix. What would its first direction capture without centring?",
         "Centring makes the directions orthonormal":
            "The SVD's directions are orthonormal either way. What does the mean do to the first one?"}),
    "14.4": choice(
        "Why is the offline student's STSb score not a reproduction of the paper's SBERT-NLI-base?",
        "Its teacher is a published model trained on far more data: the knowledge is borrowed",
        {"The student is too small to count":
            "Size is not the point. Where did the student's knowledge come from?",
         "STSb test is a different data set offline":
            "It is the same test set. What did the student learn from, and what did that learn from?"}),
    "14.5": choice(
        "Why does the student encode faster than the teacher at the same precision?",
        "Fewer and narrower layers: less arithmetic per token",
        {"It has a smaller vocabulary":
            "The two share bert-base-uncased's word pieces. What else differs between the networks?",
         "Its vectors are normalised":
            "Both normalise; that costs almost nothing. How much work does each layer do?"}),
    "14.6": choice(
        "Where would you expect a distilled student to lose most against its teacher?",
        "On sentences unlike those it was distilled on",
        {"On the sentences it was distilled on":
            "There it was trained to match the teacher exactly. Where was it never shown the teacher's vectors?",
         "Nowhere: it gives the teacher's vectors everywhere":
            "Look at the Table 1 rows: does it match the teacher on every set?"}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
