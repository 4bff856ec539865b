"""The two kinds of exercise beside a function (:class:`~sbertlib.workbook.lessons.Exercise`): :class:`Objective`, a
loss class, and :class:`Run`, a training function (what a self-check does not try to stop: the package's docstring)."""
import inspect
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import torch

from .checking import (ExerciseError, call, hinted, named_slip, ok, one_number, reference_numerics, related, require,
                       require_gradient)


def as_number(value, what: str) -> float:
    """One number out of a 0-d (or one-element) tensor, array or a float; an ExerciseError naming what came back."""
    return one_number(value, what, "the loss of a batch is the mean over its rows: one scalar (.mean())"
                      if isinstance(value, torch.Tensor) else "return the loss: one number, a scalar tensor")


def close(got: float, want: float, rel: float = 1e-4) -> bool:
    """Equal to float32's rounding (relative ``rel``, absolute 1e-6)."""
    return math.isclose(got, want, rel_tol=rel, abs_tol=1e-6)

# ----------------------------------------------------------------------------- an objective


@dataclass(frozen=True)
class Objective:
    """A loss class exercise: ``name`` is the class the student writes; ``reference(model, **setting)`` the library's
    loss, built with each of ``settings`` (the first the default); ``batches()`` hidden ``(embeddings, labels)``;
    ``examples()`` (or ``examples(encoder)``) records for one batch end to end; ``slips``: ``{message:
    loss_from_embeddings written with that mistake, f(embeddings, labels, **setting)}``; ``columns`` names the
    embeddings' columns; ``stretch``: for a loss of cosines, the message when the loss moves as vectors are stretched;
    ``hint``: said when nothing matches. A setting ignored (a number where ``self.x`` belongs) is named by itself."""

    name: str
    reference: Callable
    batches: Callable[[], Sequence[tuple[list, Any]]]
    examples: Callable[[], list]
    settings: tuple[dict, ...] = ({},)
    slips: Mapping[str, Callable] = field(default_factory=dict)
    columns: tuple[str, ...] = ("the first column", "the second column", "the third column")
    stretch: str = ""
    hint: str = ""
    ok: str = ""
    probe: str | None = None
    kept: bool = False

    probe_code = property(lambda self: self.probe)   # the hidden test's code, as an Exercise's

    def check(self, cls, encoder) -> None:
        """Build the student's ``cls`` around ``encoder`` with each setting and compare it with the reference."""
        __tracebackhide__ = True  # noqa: F841
        built = [self._build(cls, encoder, s) for s in self.settings]
        self._data_kind(built[0], self.reference(encoder, **self.settings[0]))
        for objective, setting in zip(built, self.settings):
            for embeddings, labels in self.batches():
                self._value_and_gradient(objective, encoder, setting, embeddings, labels)
        self._end_to_end(built[0], encoder)
        ok(self.ok or f"{self.name} equals the library's loss: its data, its value and gradient on hidden batches, "
                      f"and one batch end to end")

    def _build(self, cls, encoder, setting: dict):
        from ...losses import SBERTLoss
        require(isinstance(cls, type) and issubclass(cls, SBERTLoss),
                f"pass your class itself, a subclass of losses.SBERTLoss, not {cls!r}",
                f"check_…({self.name}, encoder): the class's name, no parentheses")
        borrowed = [k.__name__ for k in cls.__mro__ if k is not SBERTLoss and issubclass(k, SBERTLoss)
                    and k.__module__.startswith("sbertlib.losses")]
        require(not borrowed, f"your {self.name} is (or extends) the library's {borrowed[0] if borrowed else ''}, "
                "which already is the loss", f"extend losses.SBERTLoss and write loss_from_embeddings yourself")
        shown = "".join(f", {k}={v!r}" for k, v in setting.items())
        hints = {"before Module.__init__() call": "your __init__ never called super().__init__(model): make it the "
                "first line — an nn.Module sets itself up there to hold a model",
                **({"TypeError": f"{', '.join(setting)} is an argument of the objective: keep it (self.…) for "
                                 "loss_from_embeddings"} if setting else {})}
        objective = hinted(call, hints, lambda model: cls(model, **setting), encoder, what=f"{self.name}(model{shown})")
        require(getattr(objective, "model", None) is encoder, f"your {self.name}'s .model is not the encoder it was given",
                "call super().__init__(model) first: SBERTLoss keeps the one encoder as self.model")
        own = lambda loss: sum(p.numel() for p in loss.parameters()) - sum(p.numel() for p in encoder.parameters())  # noqa
        require(own(objective) <= own(self.reference(encoder, **setting)), f"your {self.name} has {own(objective)} "
                f"trainable numbers of its own (an nn.Parameter): the optimizer would change them as it trains",
                "keep a setting such as the margin or the scale a plain number (self.margin = margin)")
        return objective

    def _data_kind(self, objective, reference) -> None:
        part = reference.n_texts != (3,) and 3 in reference.n_texts   # (3,), a part of the answer, would read as it
        for attribute, meaning in (("n_texts", f"a tuple of how many texts an example may hold, e.g. "
                                               f"{'(1, 2)' if part else '(3,)'}"),
                                   ("label_kind", '"class", "score", "vector" or None: what an example\'s label is'),
                                   ("score_range", "(lowest, highest): the gold scores training takes, each checked")):
            got, want = getattr(objective, attribute, None), getattr(reference, attribute)
            got = tuple(got) if attribute == "score_range" and isinstance(got, list) else got
            require(got == want, f"your {self.name}'s {attribute} is {got!r}: training reads from it what an example "
                    f"of this objective holds, and it does not fit this objective's data",
                    f"{attribute} is {meaning}; set it as a class attribute for the data this loss takes")

    def _value_and_gradient(self, objective, encoder, setting: dict, embeddings: list, labels) -> None:
        shown = f"a hidden batch of {len(embeddings[0])} rows, {len(embeddings)} columns" + \
            (f", {', '.join(f'{k}={v!r}' for k, v in setting.items())}" if setting else "")
        leaves = [e.detach().clone().requires_grad_(True) for e in embeddings]
        got = call(objective.loss_from_embeddings, leaves, labels, what=f"your {self.name}'s loss_from_embeddings")
        value = as_number(got, f"your {self.name}'s loss_from_embeddings")
        with reference_numerics():
            reference = self.reference(encoder, **setting)
            want = float(reference.loss_from_embeddings([e.detach().clone() for e in embeddings], labels))
        if not close(value, want):
            raise ExerciseError(f"on {shown} your {self.name} gives {value:.5f}, not the library's loss\n"
                                f"Hint: {self._slip(value, want, embeddings, labels, setting, encoder, objective)}")
        require(isinstance(got, torch.Tensor), f"your {self.name} returned a plain number: no gradient can flow",
                "stay in torch end to end: no .item(), float() or numpy inside the loss")
        # both at 1/100 scale: require_gradient's absolute tolerance (1e-7) then allows float32's rounding of
        # gradients near 1, which a loss computed in float64 does not share
        require_gradient(got / 100, dict(zip(self.columns, leaves)),
                         lambda *e: self.reference(encoder, **setting).loss_from_embeddings(list(e), labels) / 100,
                         f"on {shown} your {self.name}'s loss")

    def _slip(self, value: float, want: float, embeddings: list, labels, setting: dict, encoder, objective) -> str:
        """The declared slip of the student's value, else a setting ignored (another value's loss), else how it relates
        to the library's (:func:`related`), else the hint."""
        copies = lambda: [e.detach().clone() for e in embeddings]  # noqa: E731
        slips = {message: (lambda slip=slip: float(slip(copies(), labels, **setting)))
                 for message, slip in self.slips.items()}
        defaults = {k: p.default for k, p in inspect.signature(self.reference).parameters.items()
                    if p.default is not inspect.Parameter.empty}
        given = setting or {k: defaults[k] for s in self.settings for k in s if k in defaults}   # built with none:
        for key, mine in given.items():                                                            # the defaults
            for other in dict.fromkeys([s[key] for s in self.settings if key in s] + [defaults.get(key, mine)]):
                if other != mine:
                    slips[f"that is the loss for {key}={other!r}, but this objective was built with {key}={mine!r}: "
                          f"use self.{key}, not a number written into the code" if key in setting else
                          f"built without a {key}, your {self.name} used {key}={other!r}: keep the library's default, "
                          f"{key}={mine!r}"] = lambda other=other, key=key: float(
                        self.reference(encoder, **{**setting, key: other}).loss_from_embeddings(copies(), labels))
        found = named_slip(value, slips, "", close=lambda a, b: close(a, float(b))) or related(value, want, len(
            embeddings[0]))
        stretched = self.stretch and self._stretched_moves(objective, copies(), labels)
        return found or (self.stretch if stretched else self.hint)

    @staticmethod
    def _stretched_moves(objective, embeddings: list, labels) -> bool:
        """Whether the student's loss moves as each vector is stretched (row i by 1 + i/2), keeping its direction."""
        with torch.no_grad():
            a, b = (as_number(objective.loss_from_embeddings([e * (1 + k * torch.arange(len(e))[:, None]) for e in
                                                              embeddings], labels), "the loss") for k in (0, 0.5))
        return not close(a, b)

    def _end_to_end(self, objective, encoder) -> None:
        from ...training import collate, prepare_examples
        records = self.examples(encoder) if inspect.signature(self.examples).parameters else self.examples()
        try:
            examples = prepare_examples(records, objective)
        except ValueError as exc:
            raise ExerciseError(f"training refuses this objective's examples: {exc}\nHint: n_texts and label_kind say "
                                f"what an example holds; compare them with the data this objective trains on") from None
        batch = collate(examples, encoder)
        with torch.no_grad():
            got = as_number(call(objective, batch, what=f"your {self.name} (a whole batch)"), f"your {self.name}")
            with reference_numerics():
                want = float(self.reference(encoder, **self.settings[0])(batch))
        require(close(got, want, 1e-3), f"end to end ({len(records)} examples through the encoder) your {self.name} "
                f"gives {got:.5f}, not the library's loss", "loss_from_embeddings gets one embedding per text column, "
                "in the examples' order, and the batch's labels as they are")

# ----------------------------------------------------------------------------- a run


@dataclass(frozen=True)
class Run:
    """A training function exercise. ``run(fn, recipe, *context)`` calls a function of this kind (the student's, the
    library's ``reference`` or a slip) on one recipe (a dict) and returns ``(step losses, the trained model, the model
    it started from)``; ``recipes()``: the check's own; ``slips``: ``{message: the function written with that
    mistake}``; ``ignored``: ``{setting: the value a function ignoring it trains with}``; ``alike``: right functions
    written another way whose losses differ from the reference's (accepted too); ``hint``: said when nothing matches,
    or ``hint(got, want, recipe)``."""

    name: str
    reference: Callable
    run: Callable
    recipes: Callable[[], Sequence[dict]]
    slips: Mapping[str, Callable] = field(default_factory=dict)
    ignored: Mapping[str, Any] = field(default_factory=dict)
    alike: Mapping[str, Callable] = field(default_factory=dict)
    hint: str | Callable = ""
    ok: str = ""
    probe: str | None = None
    kept: bool = False
    tolerance: float = 1e-3

    probe_code = property(lambda self: self.probe)

    def check(self, fn, *context) -> int:
        """Run ``fn`` and the reference on every recipe; the number of steps compared."""
        __tracebackhide__ = True  # noqa: F841
        require(callable(fn), f"pass your function itself, not {type(fn).__name__}", "no parentheses after its name")
        steps = 0
        for recipe in self.recipes():
            got, model, start = self.run(fn, recipe, *context)
            with reference_numerics():
                want, _, _ = self.run(self.reference, recipe, *context)
            if not self.same(got, want) and not self._alike(got, recipe, context):
                shown = ", ".join(f"{k}={v!r}" for k, v in recipe.items())
                losses = ", ".join(f"{x:.4f}" for x in got[:3])
                raise ExerciseError(f"with the check's recipe ({shown}) your {self.name} ran {len(got)} steps "
                                    f"(losses {losses}{', …' if len(got) > 3 else ''}): not the library's run of that "
                                    f"recipe\nHint: {self._slip(got, want, recipe, context)}")
            require(not got or any(not torch.equal(a.detach().cpu(), b.detach().cpu())
                                   for a, b in zip(model.parameters(), start.parameters())),
                    f"your {self.name}'s losses are the library's, but the model it was given did not change",
                    "train the model the objective holds (loss.model), not a copy of it")
            steps += len(got)
        ok(self.ok or f"your {self.name} trains as the library does: {steps} steps on the check's recipes, every "
                      f"loss the same")
        return steps

    def _alike(self, got: list[float], recipe: dict, context: tuple) -> bool:
        with reference_numerics():
            return any(self.same(got, self.run(fn, recipe, *context)[0]) for fn in self.alike.values())

    def same(self, got: Sequence[float], want: Sequence[float]) -> bool:
        return len(got) == len(want) and all(close(g, w, self.tolerance) for g, w in zip(got, want))

    def _slip(self, got: list[float], want: list[float], recipe: dict, context: tuple) -> str:
        slips = {m: (lambda slip=slip: self.run(slip, recipe, *context)[0]) for m, slip in self.slips.items()}
        for key, default in self.ignored.items():
            if key in recipe and recipe[key] != default:
                slips[f"your {self.name} trained with {key}={default!r}, not the {key}={recipe[key]!r} it was given: "
                      f"pass {key} on as given, never a value written in"] = \
                    lambda key=key, default=default: self.run(self.reference, {**recipe, key: default}, *context)[0]
        return named_slip(got, slips, "", close=lambda a, b: self.same(a, b)) or (
            self.hint(got, want, recipe) if callable(self.hint) else self.hint)
