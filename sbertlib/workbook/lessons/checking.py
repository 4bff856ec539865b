"""The machinery every self-check shares (re-exported by :mod:`sbertlib.workbook.lessons`): how a check calls the
student's function (:func:`call`), fails (:class:`ExerciseError`, :func:`require`), names a slip (:func:`named_slip`),
and the function kind of exercise (:class:`Exercise`)."""
import functools
import sysconfig
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

_PACKAGE = Path(__file__).resolve().parents[2]  # sbertlib/: the checks' code, and the library's


def _library_frame(filename: str) -> bool:
    """True for a frame of sbertlib, the standard library or an installed package: not the student's."""
    try:
        path = Path(filename).resolve()
    except (OSError, ValueError):
        return False
    roots = [_PACKAGE] + [Path(p).resolve() for p in {sysconfig.get_paths().get(k) for k in
                                                     ("stdlib", "platstdlib", "purelib", "platlib")} if p]
    return any(path == r or r in path.parents for r in roots)


def _where(filename: str) -> str:
    """``Cell In[3]`` for a notebook cell (as IPython names it), else ``File "path"``."""
    try:
        from IPython import get_ipython
        kind, name = get_ipython().compile.format_code_name(filename)
    except Exception:  # noqa: BLE001 - no IPython (or no shell), or one without cell names: the plain file name
        kind = name = None
    return f"{kind} {name}" if kind and name else f'File "{filename}"'


def student_frames(error: BaseException | None) -> list[str]:
    """``error``'s traceback in the student's own frames (a cell, their module), its line and a blank; else ``[]``."""
    frames = [f for f in traceback.extract_tb(getattr(error, "__traceback__", None)) if not _library_frame(f.filename)]
    lines = ["In your code:"]
    for frame in frames:
        lines.append(f"  {_where(frame.filename)}, line {frame.lineno}, in {frame.name}")
        if frame.line:
            lines.append(f"    {frame.line.strip()}")
    lines.extend("".join(traceback.format_exception_only(type(error), error)).rstrip("\n").split("\n"))
    return lines + [""] if frames else []


class ExerciseError(AssertionError):
    """A wrong (or unfinished) exercise answer; the message holds a hint."""

    def _render_traceback_(self) -> list[str]:
        """What IPython shows: the student's frames of the ``__cause__`` first, then the message, never the check."""
        first, *rest = str(self).split("\n")
        return student_frames(self.__cause__) + [f"{type(self).__name__}: {first}"] + rest


def guard(namespace: dict) -> None:
    """Wrap every ``check_*`` function a lesson module defines (its ``globals()``, called last): an error of the check's
    own code shows as an :class:`ExerciseError` naming it, never as a traceback through its source (it has answers)."""
    for name, fn in list(namespace.items()):
        if name.startswith("check_") and callable(fn) and getattr(fn, "__module__", None) == namespace["__name__"]:
            namespace[name] = _guarded(fn)


def _guarded(fn):
    @functools.wraps(fn)
    def check(*args, **kwargs):
        __tracebackhide__ = True  # noqa: F841
        try:
            return fn(*args, **kwargs)
        except ExerciseError:
            raise
        except Exception as exc:  # noqa: BLE001 - the check's own code failed: say so, without its source
            raise ExerciseError(f"the check could not finish: {type(exc).__name__}: {exc}\nHint: look at what your "
                                f"code returned (its type, shape and values); if it looks right to you, tell your "
                                f"lecturer — the check itself may be at fault") from None
    return check


@contextmanager
def reference_numerics():
    """Within: torch computes as in a fresh process (no autocast, full float32 matmuls, float32 default), whatever the
    student switched on (``set_float32_matmul_precision("high")``, ``allow_tf32``): a check's reference is computed
    inside. Torch ≥ 2.9's per-backend setting is saved and restored; the legacy flag is never read beside it (torch
    raises where a kernel mixed the two)."""
    import torch
    matmuls = [torch.backends.cuda.matmul, torch.backends.mkldnn.matmul]   # what set_float32_matmul_precision sets
    new_api = hasattr(torch.backends.mkldnn.matmul, "fp32_precision")
    saved = [m.fp32_precision for m in matmuls] if new_api else torch.get_float32_matmul_precision()
    dtype = torch.get_default_dtype()
    try:
        for m in matmuls if new_api else []:
            m.fp32_precision = "ieee"
        if not new_api:
            torch.set_float32_matmul_precision("highest")
        torch.set_default_dtype(torch.float32)
        with torch.autocast("cpu", enabled=False):
            yield
    finally:
        for m, precision in zip(matmuls, saved) if new_api else []:
            m.fp32_precision = precision
        if not new_api:
            torch.set_float32_matmul_precision(saved)
        torch.set_default_dtype(dtype)


def unfinished(error: BaseException) -> bool:
    """True for the stub's bare ``raise NotImplementedError``, not PyTorch's with a message (``&`` on floats)."""
    return type(error) is NotImplementedError and not error.args


RAISED = {  # a piece of an error's text -> what it usually means in a student's code
    "Boolean value of Tensor with more than one value": "Python's max, min, if or and got a tensor of several values: "
    "use torch's element-wise functions (torch.clamp(x, min=0), torch.maximum, torch.where)",
    "argument after ** must be a mapping": "a model was called on a tensor: the vectors are computed already, no model "
    "call is needed there",
    "not numpy.ndarray": "a torch function got a numpy array: torch.as_tensor(x) first, or stay in numpy",
    "'list' object has no attribute": "a plain Python list has no such method (the check may pass lists where the "
    "notebook passes arrays or Series): turn it into what your code needs first (np.asarray(x), pd.Series(x))",
    "expected scalar type": "float64 met float32 in one operation: cast one side (.float() or .double())",
    "have the same dtype": "float64 met float32 in one operation: cast one side (.float() or .double())",
}


def student_raised(what: str, error: Exception) -> ExerciseError:
    """The ExerciseError to raise ``from error`` when the student's code raised ``error`` (their lines shown above):
    what the error usually means (:data:`RAISED`; an attribute the check's own stand-in lacks), else where it stopped."""
    if isinstance(error, ExerciseError):
        return error
    text = str(error)
    hint = next((h for key, h in RAISED.items() if key in text), "the lines of your code shown above are where it stopped")
    if isinstance(error, AttributeError) and type(getattr(error, "obj", None)).__module__.startswith(__package__):
        hint = (f"the check passes a stand-in of its own ({error.obj!r}) that has only what the exercise names: use "
                f"only that (for a model, its encode)")
    text = text if len(text) <= 300 else text[:150] + " … " + text[-120:]   # a model's repr runs to pages
    return ExerciseError(f"{what} raised {type(error).__name__}: {text}\nHint: {hint}")


def ok(message: str) -> None:
    print(f"[OK] {message}")


def require(condition: bool, message: str, hint: str = "") -> None:
    """Fail the exercise with ``message`` (and a hint) unless ``condition`` holds."""
    __tracebackhide__ = True  # noqa: F841 - read by pytest and IPython: the check's frame is not the student's
    if not condition:
        raise ExerciseError(message + (f"\nHint: {hint}" if hint else ""))


def require_gradient(got, inputs: dict, truth, what: str) -> None:
    """The student's loss ``got`` (of the right value) from ``inputs`` (name → leaf) must be a 0-dim tensor giving each
    input ``truth(*inputs)``'s gradient: one cut (``.detach()``), scaled or gone trains another model, so it fails."""
    __tracebackhide__ = True  # noqa: F841
    import torch
    require(got.dim() == 0, f"{what} is a tensor of shape {tuple(got.shape)}, not a scalar (shape ())",
            "return the mean itself — a 0-dim tensor, as .mean() gives it — not wrapped in a batch dimension")
    require(got.requires_grad, f"{what}: the value is right but it is detached (no gradient)",
            "stay in torch end to end: no .item(), .detach() or numpy inside the loss")
    copies = {k: x.detach().clone().requires_grad_(True) for k, x in inputs.items()}
    want = torch.autograd.grad(truth(*copies.values()), list(copies.values()), allow_unused=True)
    mine = torch.autograd.grad(got, list(inputs.values()), allow_unused=True, retain_graph=True)
    for name, g, w in zip(inputs, mine, want):
        w = torch.zeros_like(inputs[name]) if w is None else w
        if g is not None and torch.allclose(g, w, rtol=1e-4, atol=1e-7):
            continue
        if g is None or not bool(g.abs().sum()):
            how = "no gradient reaches it"
        else:
            share = float((g * w).sum() / (w * w).sum().clamp_min(1e-30))
            aligned = float(torch.nn.functional.cosine_similarity(g.flatten(), w.flatten(), dim=0))
            how = (f"it is near the loss's gradient but not it: the largest difference is "
                   f"{float((g - w).abs().max()):.2g}, where the gradient's largest entry is {float(w.abs().max()):.2g}"
                   if aligned > 0.9999 and abs(share - 1) < 1e-3 else
                   f"it gets {share:.3g}× the loss's gradient" if aligned > 0.9999 else
                   f"it points elsewhere than the loss's gradient (cosine {aligned:.3f} between the two): a part of "
                   f"the loss is detached, such as a norm")
        raise ExerciseError(f"{what}: its value is right, but its gradient into {name} is not the loss's ({how})\n"
                            f"Hint: training follows the gradient, not the value: every part of the loss must stay "
                            f"connected to the vectors — no .detach(), .data or .item() on any part of it, and no "
                            f"detached value added back")


def two_items(value, said: str, hint: str) -> list:
    """``value`` as a list of exactly two items, or an ExerciseError opening with ``said`` ("your f returned")."""
    __tracebackhide__ = True  # noqa: F841
    try:
        items = list(value)
    except TypeError:
        raise ExerciseError(f"{said} {value!r}, not a pair\nHint: {hint}") from None
    require(len(items) == 2, f"{said} {len(items)} values, not a pair", hint)
    return items


# ----------------------------------------------------------------------------- calling the student's function
_ORDINAL = ("first", "second", "third", "fourth", "fifth", "sixth")


def _snapshot(value):
    """A copy of an array, tensor, list, dict or pandas table; None for anything else (a model may change)."""
    import copy

    import numpy as np
    import torch
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (list, dict)):
        try:
            return copy.deepcopy(value)
        except Exception:  # noqa: BLE001 - an argument that cannot be copied is not watched
            return None
    if _is_pandas(value):
        return value.copy(deep=True)
    return None


def _is_pandas(value) -> bool:
    """A pandas DataFrame or Series (pandas is imported only where it already is)."""
    import sys
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(value, (pd.DataFrame, pd.Series))


def _same(before, after) -> bool:
    """Whether ``after`` still equals its snapshot ``before`` (a container item by item: a tensor cannot say ==)."""
    import numpy as np
    import torch
    if isinstance(before, dict):
        return isinstance(after, dict) and before.keys() == after.keys() and all(
            _same(v, after[k]) for k, v in before.items())
    if isinstance(before, (list, tuple)):
        return type(after) is type(before) and len(before) == len(after) and all(map(_same, before, after))
    if isinstance(before, np.ndarray):   # NaN equal to NaN in floats; strings or objects have none to speak of
        return isinstance(after, np.ndarray) and before.shape == after.shape and bool(
            np.array_equal(before, after, equal_nan=before.dtype.kind in "fcmM"))
    if isinstance(before, torch.Tensor):
        return (isinstance(after, torch.Tensor) and before.shape == after.shape
                and bool(torch.equal(before, after.detach()) or torch.allclose(before, after.detach(), equal_nan=True)))
    if _is_pandas(before):   # a column added or removed, a cell, the order or the index changed
        return type(after) is type(before) and before.equals(after) and list(before.index) == list(after.index) and \
            (not hasattr(before, "columns") or list(before.columns) == list(after.columns))
    try:
        return bool(before == after)
    except Exception:  # noqa: BLE001 - values that cannot be compared are taken as unchanged
        return True


def call(fn, *args, what: str = "your function"):
    """``fn(*args)``, the student's function, as a careful marker calls it: an unfinished stub, an error in their code
    (named, their lines shown) or an argument changed in place (the notebook's own data) becomes an ExerciseError."""
    __tracebackhide__ = True  # noqa: F841
    require(callable(fn), f"pass your function itself, not {type(fn).__name__}", "no parentheses after its name")
    before = [_snapshot(a) for a in args]
    try:
        result = fn(*args)
    except ExerciseError:
        raise
    except Exception as exc:  # noqa: BLE001 - report what went wrong inside the student's code
        if unfinished(exc):
            raise ExerciseError(f"the exercise is not done yet: {what} is not written yet (it raised "
                                "NotImplementedError)\nHint: replace the `raise NotImplementedError` line with your "
                                "code") from None
        if isinstance(exc, KeyError):
            raise ExerciseError(f"{what} raised KeyError: {exc}\nHint: a key your code looked up was not there. The "
                                f"check passes inputs of its own — other rows than the notebook's, or none at all (an "
                                f"empty list): read only what the exercise names, from the arguments, and let an empty "
                                f"input give an empty result") from exc
        text = str(exc)   # numpy's or torch's error for two shapes that do not broadcast:
        if "could not be broadcast" in text or "must match the size of tensor" in text and "non-singleton" in text:
            raise ExerciseError(f"{what} raised {type(exc).__name__}: {exc}\nHint: two shapes did not line up. A value "
                                "per row, shape (n,), divides or subtracts from an (n, d) array only as a column, "
                                "(n, 1): keepdims=True, or [:, None] — compare the shapes in the message") from exc
        raise student_raised(what, exc) from exc
    for k, (arg, snap) in enumerate(zip(args, before)):
        if snap is not None and not _same(snap, arg):
            place = _ORDINAL[k] if k < len(_ORDINAL) else f"#{k + 1}"
            raise ExerciseError(
                f"{what} changed its {place} argument (a {type(arg).__name__}) in place: the caller's data is no longer "
                f"what it passed, so the notebook's own vectors or matrix would change behind its back\n"
                f"Hint: leave the input as it is and return a new result — e.g. `x - m` instead of `x -= m`, or work "
                f"on a copy (`x.copy()`, `t.clone()`) before writing into it")
    return result


def named_slip(got, slips: dict, fallback: str, close: Callable[[Any, Any], bool]) -> str:
    """The hint of the first slip whose value is ``got`` by ``close`` (``slips``: hint → its value, or a function giving
    it), else ``fallback``: how every check names a usual mistake in the student's terms."""
    for hint, value in slips.items():
        try:
            wrong = value() if callable(value) else value
            if close(got, wrong):
                return hint
        except Exception:  # noqa: BLE001 - a slip that cannot be computed on this input names nothing
            continue
    return fallback


_FACTORS = {-1.0: "the sign is flipped",
            5.0: "your values are 5 × the right ones: on the 0–5 gold scale?",
            0.2: "your values are the right ones / 5: on the 0–1 scale where 0–5 is asked?",
            100.0: "your values are 100 × the right ones: a percentage where a share is asked?",
            0.01: "your values are the right ones / 100: a share where a percentage is asked?"}


ORDER = "the right values in another order: compare the order you return with the one asked"
SHAPE = "your result has shape"   # an Exercise's hint follows it: how to read the shapes


def _leaves(value) -> list:
    """A result as the float64 arrays it holds, in order (a dict by its keys, a table by its values)."""
    if isinstance(value, dict):
        return [x for k in sorted(value, key=str) for x in _leaves(value[k])]
    if isinstance(value, (tuple, list)) and not all(isinstance(v, (int, float)) for v in value):
        return [x for v in value for x in _leaves(v)]
    return [as_array(value.to_numpy() if _is_pandas(value) else value)]


def _named_parts(got, want, parts: Sequence[str]) -> tuple[list, list, list[str]]:
    """The results' parts side by side and their names: a table's columns (its rows aligned by the index) or a
    tuple's items (``parts`` names them; else "first result", …); one part for anything else."""
    if _is_pandas(got) and _is_pandas(want) and hasattr(want, "columns") and set(map(str, got.index)) == set(
            map(str, want.index)) and set(want.columns) <= set(getattr(got, "columns", ())):
        got = got.set_axis(list(map(str, got.index))).loc[list(map(str, want.index))]
        return [got[c] for c in want.columns], [want[c] for c in want.columns], [f"column {c!r}" for c in want.columns]
    if isinstance(got, tuple) and isinstance(want, tuple) and len(got) == len(want) > 1:
        names = [f"your {n}" for n in parts] if len(parts) == len(want) else \
            [f"{_ORDINAL[k] if k < len(_ORDINAL) else f'#{k + 1}'} result" for k in range(len(want))]
        return list(got), list(want), names
    return [got], [want], [""]


def related(got, want, rows: int | None = None, parts: Sequence[str] = ()) -> str:
    """How a wrong result relates to the right one, in the student's terms and never showing it: its keys, length,
    item type or shape, its order, its items' fields, values rounded, scaled (``rows``: summed where a mean over them
    is asked), shifted, reordered, stripped of their signs or right in part — and, of a result in parts (``parts``
    names a tuple's), which parts are right; "" where none of these holds."""
    for mine, right in [(got, want), *(zip(got, want) if isinstance(got, tuple) and isinstance(want, tuple) else [])]:
        if isinstance(mine, dict) and isinstance(right, dict) and set(mine) != set(right):
            return (f"your dict's keys are not the ones asked: {sorted(set(right) - set(mine), key=str)} missing, "
                    f"{sorted(set(mine) - set(right), key=str)} too many — one entry per key the inputs give")
    if isinstance(got, (list, tuple)) and isinstance(want, list) and want and not isinstance(want[0], float):
        if said := _list_relation(got, want, parts):
            return said
    mine, right, names = _named_parts(got, want, parts)
    try:
        g, w = [_leaves(x) for x in mine], [_leaves(x) for x in right]
    except (TypeError, ValueError, RuntimeError):
        return ""
    if [len(x) for x in g] != [len(x) for x in w] or not g[0]:
        return ""
    flat_g, flat_w = sum(g, []), sum(w, [])
    if len(flat_g) == 2 and all(x.shape == y.shape and _near(x, y) for x, y in zip(flat_g, flat_w[::-1])):
        return "the two results are in the wrong order: swap them"
    found = [(f"{name}: " if name else "") + (_shape_relation(a, b) if a.shape != b.shape else _value_relation(
        a.ravel(), b.ravel(), rows)) for name, gs, ws in zip(names, g, w) for a, b in zip(gs, ws)]
    found = sorted((f for f in found if f and not f.endswith(": ")), key=lambda f: (ORDER in f, PART in f))
    fits = [[all(a.shape == b.shape and _near(a, b) for a, b in zip(gs, ws)) for ws in w] for gs in g]
    right_parts = [n for k, n in enumerate(names) if fits[k][k]]
    moved = [f"{names[i]} holds what {names[j].replace('your ', 'the ')} should: is it computed from the other input?"
             for i in range(len(names)) for j in range(len(names)) if i != j and fits[i][j] and not fits[i][i]]
    if found and not (ORDER in found[0] or PART in found[0]) or not 0 < len(right_parts) < len(names):
        return found[0] if found else (moved or [""])[0]   # a named relation first; then which parts are right
    wrong = [n for n in names if n not in right_parts]
    return f"right: {', '.join(right_parts)}; " + ((moved or found)[0] if moved or found else f"{PARTS} "
                                                   f"{', '.join(wrong)} — look again at how you compute "
                                                   f"{'it' if len(wrong) == 1 else 'them'}")


def _list_relation(got: Sequence, want: list, parts: Sequence[str]) -> str:
    """Of a list result: its items' type, its length (of records: with which first field), its records' fields."""
    if got and isinstance(got[0], (dict, str, int, float)) and type(got[0]) is not type(want[0]):
        return f"your items are {type(got[0]).__name__}s where the exercise asks for {type(want[0]).__name__}s"
    records = [_record(x) for x in [*got, *want]]
    records = (records[:len(got)], records[len(got):]) if all(r and isinstance(r[0], str) for r in records) else ()
    fields = _fields(want[0]) or (tuple(parts) if records and len(parts) == len(records[1][0]) else ())
    if len(got) != len(want):
        return "your result is empty where the inputs give some: a condition or a filter that never holds?" if not got \
            else f"your result has {len(got)} item{'s' * (len(got) != 1)}: too " \
                 f"{'few' if len(got) < len(want) else 'many'} {COUNT}" + (
                     _by_first(*records, *fields[:1] or ["first field"]) if records else "")
    return _record_relation(*records, fields) if records else ""


def _record(item) -> tuple | None:
    """A record's values: a tuple as it is, a dataclass's fields in order; None for anything else."""
    import dataclasses
    return tuple(item) if isinstance(item, tuple) else dataclasses.astuple(item) if dataclasses.is_dataclass(item) \
        and not isinstance(item, type) else None


def _fields(item) -> tuple[str, ...]:
    """A record's field names (a named tuple's or a dataclass's), else ()."""
    import dataclasses
    return tuple(getattr(item, "_fields", ())) or (tuple(f.name for f in dataclasses.fields(item))
                                                   if dataclasses.is_dataclass(item) else ())


def _by_first(got: Sequence[tuple] = (), want: Sequence[tuple] = (), field: str = "first field") -> str:
    """Of records, the first fields (an input, such as a premise) with fewer or more records than they should have."""
    from collections import Counter
    mine, right = Counter(r[0] for r in got), Counter(r[0] for r in want)
    few, many = [k for k in right if mine[k] < right[k]], [k for k in mine if mine[k] > right[k]]
    return "".join(f"; too {how} with the {field} {', '.join(map(repr, keys[:3]))}{', …' * (len(keys) > 3)}"
                   for keys, how in ((few, "few"), (many, "many")) if keys)


def _record_relation(got: Sequence[tuple], want: Sequence[tuple], fields: Sequence[str] = ()) -> str:
    """Of two equally long lists of records (tuples of text), which fields differ and in how many records."""
    if sorted(map(repr, got)) == sorted(map(repr, want)):
        return ORDER
    width = len(want[0])
    if any(len(r) != width for r in got):
        return f"your items are not all {width}-tuples: each item holds {width} things"
    fields = list(fields if len(fields) == width else [f"part {k + 1}" for k in range(width)])
    off = {f: sum(a[k] != b[k] for a, b in zip(got, want)) for k, f in enumerate(fields)}
    wrong, right = [f for f in fields if off[f]], [f for f in fields if not off[f]]
    if not right:
        return ""
    return f"in your items the {' and '.join(right)} {'is' if len(right) == 1 else 'are'} right; " + "; ".join(
        f"the {f} is wrong in {off[f]} of {len(want)}" for f in wrong) + f": look again at how you choose the {wrong[0]}"


def _near(a, b) -> bool:
    import numpy as np
    return bool(np.allclose(a, b, 1e-4, 1e-6, equal_nan=True))


def _shape_relation(a, b) -> str:
    """What a result of ``a``'s shape is, where the inputs give ``b``'s."""
    if a.size == 0:
        return "your result is empty where the inputs give some: a condition or a filter that never holds?"
    if a.ndim == b.ndim == 1:
        return f"your result has {len(a)} items where the inputs give {len(b)}" + (
            ": an off-by-one in a range or a slice?" if abs(len(a) - len(b)) == 1 else "")
    if a.ndim == b.ndim + 1 and a.shape[:b.ndim] == b.shape:
        return "a vector where one number is asked: reduce each over its numbers (a norm, a sum, a mean)"
    return f"{SHAPE} {a.shape}, the right one {b.shape}" + (": transposed?" if a.shape == b.shape[::-1] else "")


PART = "of your values are right"   # a result right in part: said only where nothing more telling holds
PARTS = "not right:"                  # a result some of whose parts are right: likewise
COUNT = "for these inputs"            # a list too short or too long: likewise
WEAK = (PART, PARTS, COUNT)           # an Exercise's diagnosis goes before these, and before the whole's ORDER




def _value_relation(a, b, rows: int | None = None) -> str:
    """How the values ``a`` (flat) relate to the right ``b``: scaled, rounded, without signs, by one factor or one
    offset, in the same or the opposite order, reordered, right in part; else ""."""
    import numpy as np
    if np.isnan(a).any() and not np.isnan(b).any():
        return "NaN (not a number) where the right values are numbers: a division by zero, a correlation of a list " \
               "without spread (every value the same: the wrong field?), or a NaN in what you read"
    if _near(a, b) or np.isnan(a).any() or not np.abs(b).max(initial=0) > 1e-6:
        return ""
    factors = dict(_FACTORS)
    if rows:
        factors[float(rows)] = f"your value is {rows} × the right one: a sum over the {rows} rows where their mean " \
                               f"is asked"
        factors[1 / rows] = f"your value is the right one / {rows}: divided by the number of rows once too often"
    found = [message for c, message in factors.items() if _near(a, c * b)]
    if np.array_equal(a, np.round(a)) and any(_near(a, f(b)) for f in (np.trunc, np.floor)):
        found.append("your values lost their fractions (int() or .astype(int) cuts 3.5 to 3): keep them as floats")
    found += [f"your values are rounded to {f'{d} decimal' + 's' * (d > 1) if d else 'whole numbers'}: keep them as "
              f"computed, round only what you print"
              for d in range(5) if np.allclose(a, np.round(a, d), 0, 1e-9)
              and np.all(np.abs(a - b) <= 0.5 / 10 ** d + 1e-6)]
    if (b < 0).any() and _near(a, np.abs(b)):
        found.append("your values are the right ones without their signs: an abs() too many")
    if len(a) >= 4 and np.allclose(a, b, 1e-2, 1e-3):
        found.append("your values are within about 1% of the right ones but not equal: computed in a lower precision "
                     "(float16, bfloat16, .half()) or rounded on the way?")
    return (found or [_pattern_relation(a, b)])[0]


def _pattern_relation(a, b) -> str:
    """Of two flat arrays with nothing simpler between them: one factor, one offset, the same or the opposite order,
    the same values reordered, some of them right; else ""."""
    import numpy as np
    n, big = len(a), np.abs(b) > 1e-9 * np.abs(b).max()
    if n > 1 and big.sum() > 1 and _near(a[~big], 0) and _near(a[big] / b[big], (a[big] / b[big])[0]):
        return "your values are all the right ones times one same factor: a division or a multiplication too many, " \
               "too few or by another number (a count written into the code, a scale)"
    if n > 1 and _near(a - b, (a - b)[0]):
        return "your values are all the right ones plus one same amount: an offset (counting from 1, not 0; a +1 or " \
               "−1; a mean added or subtracted)"
    if _near(np.sort(a), np.sort(b)):
        return ORDER
    right = np.isclose(a, b, 1e-4, 1e-6)
    k, wrong = int(right.sum()), np.flatnonzero(~right)
    if n >= 3 and 1 < k < n and right[:k].all():
        return f"the first {k} {PART}, from number {k + 1} on they are not: an item dropped, added or moved there " \
               f"shifts the rest"
    if n >= 6 and np.isfinite(a).all() and np.isfinite(b).all():
        order = lambda x: np.sign(np.where(abs(d := x[:300, None] - x[None, :300]) > 1e-7 * abs(x).max(), d, 0))  # noqa
        if np.array_equal(order(a), order(b)):
            return "your values rise and fall with the right ones but are not them: a square, a root, a log or an " \
                   "exp too many or too few?"
        if np.array_equal(order(a), -order(b)):
            return "your values fall where the right ones rise (the opposite order): 1 − x, a minus sign, or a " \
                   "distance where a similarity is asked?"
    if n >= 3 and max(2, n / 5) <= k < n:
        return f"{k} of {n} {PART}; the others, at positions " + ", ".join(map(str, wrong[:6])) + (
            ", …" if len(wrong) > 6 else "") + ", are not: what sets them apart?"
    return ""


def hinted(check, hints: Mapping[str, str], *args, **kwargs):
    """``check(*args, **kwargs)``; where the failure's first line, or the error the student's code raised (its type
    and text), holds a key of ``hints``, the failure's hint is that key's."""
    try:
        return check(*args, **kwargs)
    except ExerciseError as err:
        first, cause = str(err).splitlines()[0], err.__cause__
        hint = next((h for key, h in hints.items() if key in f"{first} {type(cause).__name__}: {cause}"), None)
        raise (err if hint is None else ExerciseError(f"{first}\nHint: {hint}")) from cause


def as_array(x):
    """A float64 numpy array of a tensor (any device, gradient or not), an array or a list."""
    import numpy as np
    return np.asarray(x.detach().cpu() if hasattr(x, "detach") else x, dtype=np.float64)


def one_number(got, what: str, hint: str = "return one number, a float") -> float:
    """One float out of a number or a one-element array or tensor (an Exercise's ``returns``), else an ExerciseError."""
    try:
        x = None if got is None or isinstance(got, (str, bytes, bool)) else as_array(got)
    except (TypeError, ValueError, RuntimeError):
        x = None
    require(x is not None and x.size == 1, f"{what} returned {_brief(got)}, not one number", hint)
    return float(x.reshape(()))


def unit(x, axis=1):
    """``x`` as float64 with each row (``axis=0``: column; ``None``: the whole) scaled to length 1; zeros stay 0."""
    import numpy as np
    x = as_array(x)
    return x / np.maximum(np.linalg.norm(x, axis=axis, keepdims=True), 1e-300)


def within(rtol: float, atol: float, nan: bool = False, squeeze: bool = False):
    """An Exercise's ``compare``: the same shape (``squeeze``: axes of length 1 dropped), each value within ``rtol`` and
    ``atol`` as float64 (NaN equal to NaN where ``nan``)."""
    import numpy as np

    def same(got, want) -> bool:
        a, b = (as_array(x).squeeze() if squeeze else as_array(x) for x in (got, want))
        with np.errstate(all="ignore"):
            return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=nan))
    return same


def readable(compare):
    """``compare`` taking a value it cannot read (None, text, ragged lists) for a wrong answer, not a fault."""
    def same(got, want) -> bool:
        try:
            return bool(compare(got, want))
        except (TypeError, ValueError, IndexError, RuntimeError):
            return False
    return same


# ----------------------------------------------------------------------------- an exercise, declared once
VALUE = "value"  # an Exercise's probe: the hidden test compares the name's own value (``_result = name``)


@dataclass(frozen=True)
class Exercise:
    """One exercise of a notebook, declared once in its lesson module's ``EXERCISES``: its check (:meth:`check`), the
    nbgrader export's hidden test (``probe``) and what later notebooks load until the student keeps theirs (``kept``).

    * ``name``: what the student's cell defines; ``probe``: hidden-test code setting ``_result`` on fixed inputs
      (helpers: :mod:`sbertlib.workbook.publish.nbgrader_export`), :data:`VALUE` for the name's value, ``None`` where
      the check grades; ``inputs()``: the hidden argument tuples, built afresh; ``slips``: ``{message naming the
      mistake: the function written with it}``; ``diagnose(fn, got, *inputs)``: a diagnosis beyond the slips ("" for
      none); then how the result relates to the reference's (:func:`related`); ``hint``: said when nothing of these
      names the mistake (never the reference's value); ``compare(got, want)``: default same shape, within 1e-6 (a
      value it cannot read is wrong); ``returns(value, what)``: reads the student's result, raising ExerciseError
      for what it cannot read; ``parts``: the names of a tuple result's items (the messages say which are right).
    """

    name: str
    probe: str | None = VALUE
    reference: Any = None
    kept: bool = False
    inputs: Callable[[], Sequence[tuple]] | None = None
    slips: Mapping[str, Callable] = field(default_factory=dict)
    diagnose: Callable[..., str] | None = None
    hint: str = ""
    ok: str = ""
    compare: Callable[[Any, Any], bool] | None = None
    returns: Callable[[Any, str], Any] | None = None
    parts: tuple[str, ...] = ()

    @property
    def probe_code(self) -> str | None:
        """The hidden test's code (``_result = …``), or None."""
        return f"_result = {self.name}" if self.probe == VALUE else self.probe

    def check(self, fn) -> None:
        """Grade ``fn`` on copies of each hidden input (see :func:`call`), a wrong result matched against the slips."""
        __tracebackhide__ = True  # noqa: F841
        if self.reference is None or self.inputs is None:
            raise TypeError(f"the exercise {self.name!r} declares no reference and inputs: its lesson module checks it")
        same = readable(self.compare or within(1e-5, 1e-6))
        cases, wider = list(self.inputs()), False
        for k, args in enumerate(cases):
            got = self._result(fn, args)
            with reference_numerics():
                want = self.reference(*_copies(args))
            if not same(got, want):
                hint = self._hint(fn, got, want, args, [a for a in cases[:k + 3] if a is not args], same)
                raise ExerciseError(f"{self.name}({_shown(args)}) returned {_brief(got)}, which is not the "
                                    f"reference's" + (f"\nHint: {hint}" if hint else ""))
            wider |= str(getattr(got, "dtype", "")).endswith("float64") and str(getattr(want, "dtype", "")).endswith("float32")
        ok((self.ok or f"{self.name} is right on {len(cases)} hidden inputs") + (
            " — your result is float64 where the reference's is float32: a cell that goes on with it beside float32 "
            "tensors needs it cast back (.float())" if wider else ""))

    def _result(self, fn, args: tuple):
        got = call(fn, *_copies(args), what=f"your {self.name}")
        return got if self.returns is None else self.returns(got, f"{self.name}({_shown(args)})")

    def _hint(self, fn, got, want, args: tuple, others: list, same) -> str:
        """The first slip whose value is the student's here and on the other inputs their function runs on (else the
        first here); else a strong relation, a diagnosis, a weak relation, the hint."""
        relation = related(got, want, parts=self.parts)
        relation += f"; {self.hint}" if relation.startswith(SHAPE) and self.hint else ""
        diagnosis = self.diagnose and self.diagnose(fn, got, *_copies(args))   # before the slips use the inputs
        strong = relation and not relation.startswith(ORDER) and not any(w in relation for w in WEAK)

        def fits(slip, a, value) -> bool:
            try:
                return bool(same(value, slip(*_copies(a))))
            except Exception:  # noqa: BLE001 - a slip that cannot be computed on this input names nothing
                return False
        here, mine = [], None
        for message, slip in self.slips.items():
            if fits(slip, args, got):
                here.append(message)
                if mine is None:   # the student's results on the other inputs, once a slip is a candidate
                    try:
                        mine = [(a, self._result(fn, a)) for a in others]
                    except ExerciseError:
                        break
                if all(fits(slip, a, value) for a, value in mine):
                    return message
        return (here or [""])[0] or (strong and relation) or diagnosis or relation or self.hint   # the first here

def _copies(args: tuple) -> tuple:
    """Fresh copies of the hidden inputs (deep where :func:`_snapshot` copies) for each call."""
    import copy
    return tuple(copy.copy(a) if (snap := _snapshot(a)) is None else snap for a in args)


def _brief(value) -> str:
    """A value as a message shows it: short ones whole, arrays by shape and first entries."""
    import numpy as np
    if hasattr(value, "shape") and int(np.prod(value.shape)) > 6:
        if _is_pandas(value):   # a table: its shape and columns (its cells may be text)
            return f"a {type(value).__name__} of shape {tuple(value.shape)}" + (
                f" with columns {list(value.columns)[:6]}" if hasattr(value, "columns") else "")
        kind = "a tensor" if hasattr(value, "detach") else "an array"
        flat = np.asarray(value.detach().flatten()[:4].tolist() if hasattr(value, "detach") else value).ravel()[:4]
        try:
            return f"{kind} of shape {tuple(np.shape(value))} starting {np.round(flat.astype(float), 4).tolist()}"
        except (TypeError, ValueError):   # text or objects
            return f"{kind} of shape {tuple(np.shape(value))} starting {flat.tolist()}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _shown(args: tuple) -> str:
    """The arguments as a message shows them: small ones whole, arrays by type and shape."""
    import numpy as np
    return ", ".join(f"<{type(a).__name__} of shape {tuple(a.shape)}>" if hasattr(a, "shape") and int(np.prod(a.shape)) > 6
                     else _brief(a) for a in args)
