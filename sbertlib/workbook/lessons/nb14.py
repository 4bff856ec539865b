"""Self-checks for ``14_distillation``, declared (:mod:`sbertlib.workbook.lessons`); its run's: :mod:`.run_checks`."""
from types import SimpleNamespace

import torch
import torch.nn.functional as F

from ... import losses
from ...training import distillation
from . import _guarded, guard, Exercise, Objective, Run, _brief, as_array, call, hinted, ok, require
from .run_checks import LOOP_DEFAULTS, RECIPES, check_runs, checked, fingerprint, library_run, train_and_read

_mse, _unit, _cos = F.mse_loss, F.normalize, F.cosine_similarity


def _vectors():   # hidden ([student vectors], teacher vectors), of other lengths
    g, sizes = torch.Generator().manual_seed(14), ((5, 8), (1, 6), (9, 4), (32, 64))
    return [([torch.randn(b, d, generator=g) * 1.7], torch.randn(b, d, generator=g) * 0.6) for b, d in sizes]


def _records(encoder):
    g, texts = torch.Generator().manual_seed(41), ("a man plays a guitar", "two dogs run", "the chef cooks", "a kid")
    return [(s, torch.randn(encoder.dim, generator=g).numpy()) for s in texts]


DISTILLATION_OBJECTIVE = Objective("DistillationObjective", reference=losses.DistillationLoss, probe="""
            _g = _torch.Generator().manual_seed(2034)
            _s, _t = _torch.randn(4, 6, generator=_g), _torch.randn(4, 6, generator=_g)
            _result = DistillationObjective(_Model()).loss_from_embeddings([_s], _t)
            """, batches=_vectors, examples=_records, columns=("the student's vectors",), slips={
    "that is the *sum* of the squared differences: the loss is their mean": lambda e, t: ((e[0] - t) ** 2).sum(),
    "that sums each vector's squared errors: average over every number": lambda e, t: ((e[0] - t) ** 2).sum(1).mean(),
    "that is 1 − cosine: the loss asks for the teacher's vector itself": lambda e, t: (1 - _cos(e[0], t)).mean(),
    "you normalised both vectors: compare them as they come": lambda e, t: _mse(_unit(e[0]), _unit(t)),
    "you normalised the student's vectors only: compare both as they come": lambda e, t: _mse(_unit(e[0]), t),
    "you normalised the teacher's vectors only: compare both as they come": lambda e, t: _mse(e[0], _unit(t)),
    "that is the square root (RMSE): the loss is the mean squared error itself": lambda e, t: _mse(e[0], t).sqrt(),
    "that is the mean absolute error: square the differences": lambda e, t: (e[0] - t).abs().mean(),
    "that is the dot product: the loss is the mean squared difference": lambda e, t: -(e[0] * t).sum(1).mean()},
    hint="compare the two vectors number by number: each number's error, squared, then the mean of them all")


def check_distillation_objective(cls, encoder) -> None:
    hinted(DISTILLATION_OBJECTIVE.check, {"'list'": "`embeddings` is a list, one tensor per text column; a "
           "distillation example has one text: the student's vectors"}, cls, encoder)


def pca_truth(table: torch.Tensor, width: int):
    """:func:`sbertlib.training.distillation.pca_word_embeddings` of a teacher whose word-piece table is ``table``."""
    words = SimpleNamespace(get_input_embeddings=lambda: torch.nn.Embedding.from_pretrained(table.float()))
    return distillation.pca_word_embeddings(SimpleNamespace(backbone=words), width)


def _tables():   # hidden (table, width): not square first; spreads falling off; a centre far from 0
    g, out = torch.Generator().manual_seed(1414), []
    for vocab, hidden, width in ((40, 10, 4), (25, 6, 6), (60, 12, 1), (300, 16, 12)):
        rotation = torch.linalg.qr(torch.randn(hidden, hidden, generator=g))[0]
        table = torch.randn(vocab, hidden, generator=g) * torch.linspace(3.0, 0.3, hidden) @ rotation
        out.append((table + torch.randn(hidden, generator=g) * 2.0, width))
    return out


def _three(got, what: str) -> tuple:
    require(isinstance(got, (tuple, list)) and len(got) == 3, f"{what} returned {_brief(got)}",
            "return three things: reduced (vocab, width), components (width, H), mean (H,)")
    return tuple(torch.from_numpy(as_array(x).copy()) for x in got)   # a copy: numpy's [::-1] views, too


def _same_pca(got, want) -> bool:
    """Equal to float32's rounding, each direction up to its sign (a row of components, its column of reduced)."""
    (r, c, m), (wr, wc, wm) = ([torch.as_tensor(x).double() for x in three] for three in (got, want))
    if [x.shape for x in (r, c, m)] != [x.shape for x in (wr, wc, wm)]:
        return False
    sign = torch.where((c * wc).sum(1) < 0, -1.0, 1.0) if r.dim() == c.dim() == 2 and r.shape[1] == len(c) else 1.0
    c, r = c * (sign[:, None] if torch.is_tensor(sign) else 1), r * sign
    return all(torch.allclose(a, b, rtol=1e-4, atol=1e-4 * max(1.0, float(b.abs().max()))) for a, b in zip(
        (r, c, m), (wr, wc, wm)))


def _pca(table, width, centre=True, pick="first", mean_dim=0, raw=False, u=False, order=(0, 1, 2)):
    mean = table.mean(dim=0)   # a PCA written with one slip: not centred, other directions picked, …
    left, _, vh = torch.linalg.svd(table - mean if centre else table, full_matrices=False)
    c = dict(first=vh[:width], last=vh[-width:], columns=vh[:, :width].T, extra=vh[:width + 1])[pick]
    three = (left[:, :width] if u else (table if raw else table - mean) @ c.T, c, table.mean(dim=mean_dim))
    return tuple(three[k] if k >= 0 else three[~k].T for k in order)


PCA_WORD_PIECES = Exercise("pca_word_pieces", probe="""
            _g = _torch.Generator().manual_seed(2035)
            _table = _torch.randn(20, 6, generator=_g) * _torch.linspace(3, 0.5, 6) + 1.5
            _r, _c, _m = pca_word_pieces(_table, 3)
            _result = {"back": _torch.as_tensor(_r) @ _torch.as_tensor(_c) + _torch.as_tensor(_m), "mean": _m}
            """, reference=pca_truth, inputs=_tables, returns=_three, compare=_same_pca, slips={
    "your directions are those of the uncentred table: subtract the mean first": lambda t, w: _pca(t, w, centre=False),
    "you kept the last directions, of least spread: the SVD sorts largest first": lambda t, w: _pca(t, w, pick="last"),
    "your directions are columns of Vh (= Vᵀ): its rows are the directions": lambda t, w: _pca(t, w, pick="columns"),
    "you kept one direction more than width": lambda t, w: _pca(t, w, pick="extra"),
    "components has a direction per column: one per row, (width, H)": lambda t, w: _pca(t, w, order=(0, ~1, 2)),
    "the mean word piece averages the table's rows (dim 0)": lambda t, w: _pca(t, w, mean_dim=1),
    "reduced is the table projected as it is: centre it first": lambda t, w: _pca(t, w, raw=True),
    "reduced is U of the SVD: it lost each direction's spread": lambda t, w: _pca(t, w, u=True),
    "you returned (components, reduced, mean): reduced comes first": lambda t, w: _pca(t, w, order=(1, 0, 2)),
    "you returned (mean, components, reduced): reduced comes first": lambda t, w: _pca(t, w, order=(2, 1, 0))},
    hint="PCA's directions: the largest spreads of the whole centred table, one per row, largest first",
    ok="pca_word_pieces equals pca_word_embeddings on hidden tables (each direction up to its sign)")
check_pca_word_pieces = _guarded(PCA_WORD_PIECES.check)


def inverse_projection_truth(components: torch.Tensor, mean: torch.Tensor) -> torch.nn.Linear:
    """``nn.Linear(width, H)``: weight ``components.T``, bias ``mean`` — the PCA's way back, trainable."""
    layer = torch.nn.Linear(*components.shape)
    layer.weight.data.copy_(components.T), layer.bias.data.copy_(mean)
    return layer


def _layer(got, what: str) -> tuple:
    require(isinstance(got, torch.nn.Linear), f"{what} returned a {type(got).__name__}, not an nn.Linear",
            "return torch.nn.Linear(width, H) with its weight and bias set: the student's projection is one")
    require(got.in_features <= got.out_features, f"your Linear maps {got.in_features} → {got.out_features} numbers: "
            "the projection goes from the student's width up to the teacher's", "nn.Linear(in_features, out_features)")
    require(got.bias is not None, "your Linear has no bias", "the bias puts the mean word piece back: keep it")
    require(got.weight.requires_grad and got.bias.requires_grad, "the projection is frozen (requires_grad is False)",
            "distillation trains it: leave it trainable")
    require(got.weight.dtype == torch.float32, f"your Linear holds {got.weight.dtype} numbers, not float32",
            "the student's vectors are float32, and a layer shares its input's dtype: no .double()")
    return got.weight.detach().double(), got.bias.detach().double()


INVERSE_PROJECTION = Exercise("inverse_projection", probe="""
            _g = _torch.Generator().manual_seed(2036)
            _c = _torch.linalg.qr(_torch.randn(6, 6, generator=_g))[0][:3]
            _lin = inverse_projection(_c, _torch.randn(6, generator=_g))
            _result = {"weight": _lin.weight, "bias": _lin.bias}
            """, reference=inverse_projection_truth, inputs=lambda: [pca_truth(t, w)[1:] for t, w in _tables()],
    returns=_layer, compare=lambda a, b: all(x.shape == y.shape and torch.allclose(x, y.detach().double(), atol=1e-5)
                                             for x, y in zip(a, (b.weight, b.bias))), slips={
    "the bias is zero: the way back adds the mean the PCA took away": lambda c, m: inverse_projection_truth(c, m * 0),
    "the bias subtracts the mean word piece: the way back adds it": lambda c, m: inverse_projection_truth(c, -m)},
    hint="the directions are orthonormal, so going back multiplies by them again, the other way round (a Linear "
         "computes r @ weight.T), and adds back what the PCA took away", ok="inverse_projection is the PCA's inverse")


def check_inverse_projection(inverse_projection) -> None:
    hinted(INVERSE_PROJECTION.check, {
        "leaf Variable": "a new Linear's weight and bias are trainable: write into them inside `with torch.no_grad():`",
        "size": "a Linear's weight has shape (out_features, in_features) = (H, width); components is (width, H): the "
                "weight is its transpose"}, inverse_projection)


def check_pca_start(table, width: int, reduced, components, mean, projection) -> None:
    """The notebook's PCA start on the teacher's table at the profile's width (sizes no hidden table has), without an
    SVD: orthonormal directions of the largest spreads in order, the table projected, mapped back; any signs."""
    table, r, c, m = (torch.as_tensor(x).detach().double() for x in (table, reduced, components, mean))
    (rows, hidden), shapes, centred = table.shape, [tuple(x.shape) for x in (r, c, m)], table - table.mean(dim=0)
    on = f"on the teacher's table ({rows:,} × {hidden}) at width {width}"
    why = "the hidden tables passed: a step that changes with the size (of the rows, the width), or pca_lowrank?"
    require(shapes == [(rows, width), (width, hidden), (hidden,)], f"{on} your PCA's shapes are {shapes}", why)
    require(torch.allclose(m, table.mean(dim=0), atol=1e-4), f"{on} your mean is not the mean word piece", why)
    covariance = centred.T @ centred / rows
    spreads = torch.linalg.eigvalsh(covariance).flip(0)[:width]   # the largest first
    require(torch.allclose(c @ c.T, torch.eye(width).double(), atol=1e-4), f"{on} not orthonormal directions", why)
    require(torch.allclose(c @ covariance @ c.T, torch.diag(spreads), atol=1e-4 * float(spreads[0])), f"{on} your "
            "directions are not the table's first principal directions, largest spread first", why)
    sample, scale = r[torch.linspace(0, rows - 1, min(rows, 512)).long()].float(), max(1.0, float(r.abs().max()))
    require(torch.allclose(r, centred @ c.T, atol=1e-4 * scale), f"{on} reduced is not the table projected", why)
    back = torch.as_tensor(call(projection, sample, what="your projection (inverse_projection's)")).detach().double()
    require(torch.allclose(back, sample.double() @ c + m, atol=1e-4 * scale), f"{on} the projection is no inverse", why)
    ok(f"your PCA start {on}: its first {width} principal directions, the table projected on them, and back")


_Distillation = type("DistillationLoss", (losses.DistillationLoss,), {})   # the reference's, of the lessons' own
DISTILLATION_RUN = Run("train_distillation", reference=library_run(_Distillation), recipes=lambda: RECIPES,
                       run=lambda fn, recipe, *c: train_and_read(fn, recipe, *c, "train_distillation", "teacher_data"),
                       ignored=LOOP_DEFAULTS, probe=None, hint="compare your call of train_loop with the recipe: its "
                       "seven settings as they are, a fresh copy of `start`, your objective, `data` as given")


def check_distillation_run(train_distillation, result, start, before: tuple, teacher_data, recipe, profile=None):
    """The notebook's run (None: loaded), then :data:`DISTILLATION_RUN`; ``profile`` unread."""
    check_runs(DISTILLATION_RUN, train_distillation, {} if result is None else {"distill": (start, before, result)},
               start, teacher_data, recipe, "profile.distill")


EXERCISES = (DISTILLATION_OBJECTIVE, PCA_WORD_PIECES, INVERSE_PROJECTION, DISTILLATION_RUN,
             Exercise('predict_pca_start', probe=None))  # a prediction: any of the three is an answer

guard(globals())   # last: every check above shows its own failures as an ExerciseError
