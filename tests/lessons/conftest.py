"""Fixtures of the lessons' check tests."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def tiny_encoder():
    """tiny-random-bert (2 layers x 64) cut at 32 tokens: the encoder students' code runs on in the checks' tests,
    one per test module."""
    from sbertlib.model.encoder import SentenceEncoder
    return SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=32, device="cpu")


@pytest.fixture(scope="module")
def encoder(tiny_encoder):
    """The same encoder, under the name the training-loop tests use."""
    return tiny_encoder


@pytest.fixture
def high_precision():
    """A GPU tutorial's `torch.set_float32_matmul_precision("high")` in an early cell, put back afterwards."""
    import torch
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    yield
    torch.set_float32_matmul_precision(before)


@pytest.fixture(scope="module", autouse=True)
def declared_runs_train_once():
    """Within a test module, each declared run — a Run exercise's reference, slip or alike function on one recipe and
    one context — trains once, then gives its losses again: each is seeded, so deterministic, and the test of a late
    slip (or of a setting ignored late in the list) need not train every one before it again. A check still runs as a
    student's does: the function under test trains afresh, beside the reference, then is matched against every slip
    and ignored setting in order."""
    from dataclasses import replace

    from sbertlib.workbook.lessons import Run, lesson, numbers
    with pytest.MonkeyPatch.context() as patch:
        for number in numbers():
            module = lesson(number)
            for name, ex in list(vars(module).items()):
                if isinstance(ex, Run):
                    patch.setattr(module, name, replace(ex, run=_trains_once(ex)))
        yield


def _trains_once(ex):
    declared = {id(fn) for fn in (ex.reference, *ex.slips.values(), *getattr(ex, "alike", {}).values())}
    trained = {}   # (function, recipe, context) → (its run, the context: kept alive, so no id of it is reused)

    def run(fn, recipe, *context):
        if id(fn) not in declared:
            return ex.run(fn, recipe, *context)
        key = (id(fn), repr(sorted(recipe.items())), tuple(map(_as_key, context)))
        if key not in trained:
            trained[key] = ex.run(fn, recipe, *context), context
        (losses, model, start), _ = trained[key]
        return list(losses), model, start
    return run



@pytest.fixture(scope="module", autouse=True)
def library_points_train_once():
    """Notebook 07's library run of a grid point (a start, the scorer, the pairs, the objective, its settings) trains
    once a module, as a declared run does above: the test of a late mistake need not train each earlier mistake's run
    again. The answer under test still trains afresh, and the check names the first matching mistake in order."""
    from sbertlib.workbook.lessons import nb07
    point, trained = nb07.library_point, {}

    def library_point(start, evaluator, pairs, objective, p):
        key = (_as_key(start), id(evaluator), repr(pairs), objective, repr(sorted(p.items())))
        if key not in trained:
            trained[key] = point(start, evaluator, pairs, objective, p), (start, evaluator)
        return dict(trained[key][0])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nb07, "library_point", library_point)
        yield

def _as_key(value):
    """A model by what it computes with (its class, weights, buffers, length limit and mode: a check trains a fresh
    copy of it each time); anything else by identity."""
    import torch
    if not isinstance(value, torch.nn.Module):
        return id(value)
    with torch.no_grad():
        weights = tuple(float(t.double().sum()) for t in value.state_dict().values() if t.is_floating_point())
    return type(value), weights, getattr(value, "max_seq_length", None), value.training
