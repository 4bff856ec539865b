"""What the student writes in one notebook and uses in the next: keep a function's source, load it back.

Each notebook runs in its own kernel, so the training loop a student wrote in notebook 03 does not
exist in notebook 05's. After its check passes, a notebook keeps the student's code::

    mine.keep(train_loop, notebook="03")      # writes <output dir>/your_code/train_loop.py

and a later notebook loads it::

    train_loop = mine.load("train_loop")      # the student's, from notebook 03

:func:`keep` writes the source with what it needs to run on its own (04's ``sts_evaluate`` takes its ``spearman``
along). **Why a kept file loads:** the text is written only after it has been imported back, from a file of its own,
as a module of its own (:func:`_write_if_it_loads`): source Python does not have, a helper that needs a name the
notebook never defined, or a syntax slip is refused at ``keep`` with a message naming it (:class:`CannotKeep`),
so the student's check passing and the kept file loading in a later kernel are the same event.

:func:`load` imports that file. When there is none yet (notebook 05 opened before 03 ran), or it no
longer loads, it prints one line saying so and returns the workbook's reference instead (for the
names in :func:`references`, or the ``fallback`` given) — never silently. :func:`where` says which
of the two a loaded object is (for labels and run records).
"""
from __future__ import annotations

import ast
import builtins
import datetime as _dt
import gc
import importlib
import importlib.util
import inspect
import json
import linecache
import re
import symtable
import sys
import textwrap
import types
from pathlib import Path
from typing import Any, Callable

from .. import places
from ..errors import SettingError, UnknownName, UserError

FOLDER = "your_code"
MARKER = "# sbertlib-mine: "

_ORIGIN: dict[int, str] = {}  # id(loaded object) -> what it is, for where()


def references() -> dict[str, tuple[str, Any]]:
    """``{name: (the notebook the student writes it in, the workbook's reference used until they have)}``: the
    exercises declared ``kept`` in the lessons (:func:`sbertlib.workbook.lessons.kept_references`)."""
    from .lessons import kept_references
    return kept_references()


# ----------------------------------------------------------------------------- where the code lives
def folder() -> Path:
    """``<output dir>/your_code``: where kept code lives (see :func:`sbertlib.workbook.runs.output_dir`)."""
    from .runs import output_dir
    return output_dir(FOLDER)


def path_for(name: str) -> Path:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name or ""):
        raise SettingError(f"{name!r} is not a Python name: keep and load take the name of a function or class")
    return folder() / f"{name}.py"


def saved(name: str) -> dict | None:
    """What :func:`keep` recorded for ``name`` (``name``, ``notebook``, ``saved``, ``user``, ``path``), or None.
    A file that is not UTF-8 text (damaged, or saved in another encoding) gets ``"unreadable"``: why."""
    path = path_for(name)
    if not path.is_file():
        return None
    found = {"name": name, "notebook": None, "saved": None, "path": str(path)}
    try:
        head = path.read_bytes()[:4096].decode("utf-8")
    except UnicodeDecodeError as err:
        why = f"it is not UTF-8 text (byte {err.start}): damaged, or saved in another encoding"
        return {**found, "unreadable": why}
    except OSError as err:
        return {**found, "unreadable": f"it cannot be read ({err.strerror or type(err).__name__})"}
    for line in head.splitlines()[:5]:
        if line.startswith(MARKER):
            try:
                return {**found, **json.loads(line[len(MARKER):]), "path": str(path)}
            except json.JSONDecodeError:
                break
    return found


def where(obj: Any) -> str:
    """Which code :func:`load` returned: ``"your train_loop (notebook 03)"`` or ``"the workbook's reference,
    sbertlib.…"``; for an object that did not come from :func:`load`, its dotted name."""
    return _ORIGIN.get(id(obj)) or _dotted(obj)


def is_yours(obj: Any) -> bool:
    """True when ``obj`` is the student's own code, loaded from a notebook that kept it."""
    return _ORIGIN.get(id(obj), "").startswith("your ")


# ----------------------------------------------------------------------------- keep
def keep(obj: Callable, notebook: str | None = None, name: str | None = None, quiet: bool = False) -> None:
    """Write ``obj``'s source (a function or class the student defined in a notebook), with what it
    needs to run on its own, to ``your_code/<name>.py`` (:func:`path_for`) and say so in one line.

    ``notebook``: where it was written (``"03"``), named in later notebooks' messages. ``name``:
    defaults to the object's own (a lambda takes the name it is bound to in the notebook). What the
    code refers to is saved along: modules become imports, library objects ``from … import``, plain
    constants assignments, and functions or classes the notebook defined their source. A name that
    cannot travel (an object made in the notebook, such as a model) is named in a printed warning:
    pass it as an argument instead.
    """
    namespace = _namespace(obj)
    name = name or _bound_name(obj, namespace)
    path = path_for(name)
    notebook = notebook or _notebook_of(namespace)
    imports, helpers, missing = _requirements(obj, name, namespace)
    when = _dt.datetime.now().replace(microsecond=0).isoformat(sep=" ")
    meta = {"name": name, "notebook": notebook, "saved": when, "user": places.user_name()}
    where_from = f"notebook {notebook}" if notebook else "a notebook"
    head = [f"# {name}: written by you in {where_from}, kept by sbertlib.workbook.mine.keep on {when}.",
            f"# Later notebooks load it with mine.load({name!r}); to change it, edit {where_from} and run it again.",
            MARKER + json.dumps(meta)]
    body = "\n".join(head) + "\n" + "".join(line + "\n" for line in imports)
    for source in helpers + [_source_of(obj, name)]:
        body += "\n\n" + source.rstrip() + "\n"
    _write_if_it_loads(name, path, body)
    if not quiet:
        print(f"kept your {name} ({where_from}) for the notebooks that use it: {path}")
        for n, what in missing.items():
            print(f"  warning: {name} uses {n!r} ({what}), which cannot be saved with it: where a later notebook "
                  f"runs that line it fails with NameError — pass {n} in as an argument instead")


class CannotKeep(UserError, ValueError, OSError):
    """``keep`` cannot save this object so that it loads back (the message names it and says why)."""


def _write_if_it_loads(name: str, path: Path, body: str) -> None:
    """Write ``body`` to ``path`` only once it has been imported from a file of its own and defines
    ``name``: a kept file always loads back (an earlier version stays until then)."""
    tmp = path.with_name(f".{path.stem}.{places.user_name()}.tmp.py")
    tmp.write_text(body, encoding="utf-8")
    try:
        _import(name, tmp, module_name=f"_sbertlib_keep_check_{name}")
    except Exception as exc:  # noqa: BLE001 - named below, with the file kept for a look
        failed = tmp.with_name(f"{path.stem}.failed.py")
        tmp.replace(failed)
        raise CannotKeep(f"cannot keep {name}: the saved code does not load back on its own "
                         f"({type(exc).__name__}: {exc}); it is in {failed} for a look. Usually a name it uses "
                         f"was made in the notebook in a way that cannot be saved: pass it in as an argument") from None
    finally:
        sys.modules.pop(f"_sbertlib_keep_check_{name}", None)
    tmp.replace(path)


# ----------------------------------------------------------------------------- load
def load(name: str, fallback: Any = None, notebook: str | None = None, quiet: bool = False) -> Any:
    """The student's ``name`` as :func:`keep` saved it (imported from ``your_code/<name>.py``).

    Not saved yet, or not loadable: prints one line saying so and returns ``fallback`` — an object
    or a dotted name; default: the workbook's reference for ``name`` (:func:`references`).
    """
    known_notebook, known_reference = references().get(name, (None, None))
    notebook = notebook or known_notebook
    reference = fallback if fallback is not None else known_reference
    info = saved(name)
    if info is None:
        whose = f"notebook {notebook}'s" if notebook else "your"
        reason = f"{whose} {name} is not saved yet"
    elif (stranger := places.owned_by_someone_else(info["path"])) is not None:
        # a shared output folder: another student's file is never run as yours
        reason = (f"{info['path']} belongs to user {stranger}, not to you ({places.user_name()}): sbertlib loads "
                  f"only your own kept code. Your output folder is shared; run `python -m sbertlib where` and set "
                  f"${places.OUTPUT_DIR_ENV} to a folder of your own (e.g. ~/sbert-runs)")
    elif info.get("unreadable"):
        reason = f"your saved {name} ({info['path']}) cannot be read back: {info['unreadable']}"
    else:
        try:
            obj = _import(name, Path(info["path"]))
        except Exception as exc:  # noqa: BLE001 - a broken file is reported and replaced, never fatal
            reason = f"your saved {name} ({info['path']}) does not load ({type(exc).__name__}: {exc})"
        else:
            from_nb = info.get("notebook") or notebook
            _ORIGIN[id(obj)] = f"your {name} (notebook {from_nb})" if from_nb else f"your {name}"
            if not quiet:
                print(f"{name}: yours, from {'notebook ' + from_nb if from_nb else 'an earlier notebook'} "
                      f"(kept {info.get('saved') or 'earlier'})")
            return obj
    if reference is None:
        raise UnknownName(f"{reason}, and there is no reference to use instead: run "
                          f"{'notebook ' + notebook if notebook else 'the notebook that defines it'} first")
    obj = _resolve(reference) if isinstance(reference, str) else reference
    dotted = reference if isinstance(reference, str) else _dotted(reference)
    _ORIGIN[id(obj)] = f"the workbook's reference, {dotted}"
    if not quiet:
        run = f" (run notebook {notebook} to use yours)" if notebook and info is None else ""
        print(f"{reason}: using the workbook's reference, {dotted}{run}")
    return obj


def _import(name: str, path: Path, module_name: str | None = None):
    module_name = module_name or f"_sbertlib_your_code_{name}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # inspect.getsource and pickle find it
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    if not hasattr(module, name):
        raise AttributeError(f"the file defines no {name!r}")
    return getattr(module, name)


def _resolve(dotted: str):
    module, _, attr = dotted.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def _dotted(obj) -> str:
    module, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return f"{module}.{qual}" if module and qual else repr(obj)


# ----------------------------------------------------------------------------- what a piece of code needs
def _namespace(obj) -> dict:
    """The global namespace ``obj`` was defined in (a notebook's: ``__main__``)."""
    if isinstance(obj, type):
        for member in _functions_of(obj):
            if not member.__code__.co_filename.startswith("<string"):  # not made by exec (a dataclass's __init__)
                return member.__globals__
        module = sys.modules.get(obj.__module__)  # a kernel's __main__ is the notebook's namespace
        if module is not None and getattr(module, obj.__name__, None) is obj:
            return vars(module)
        for ref in gc.get_referrers(obj):  # a namespace that is no module's (exec in a dict)
            if isinstance(ref, dict) and ref.get(obj.__name__) is obj and ref.get("__name__") == obj.__module__:
                return ref
        return vars(module) if module else {}
    obj = inspect.unwrap(obj) if callable(obj) else obj  # a decorated function: where its own code lives
    if isinstance(obj, types.FunctionType):
        return obj.__globals__
    raise TypeError(f"keep takes a function or a class you defined, not {type(obj).__name__}")


def _functions_of(cls: type) -> list[types.FunctionType]:
    found = []
    for value in vars(cls).values():
        value = getattr(value, "__func__", value)  # staticmethod / classmethod
        if isinstance(value, property):
            value = value.fget
        if isinstance(value, types.FunctionType):
            found.append(value)
    return found


def _bound_name(obj, namespace: dict) -> str:
    own = getattr(obj, "__name__", "")
    if own and own != "<lambda>" and namespace.get(own) is obj:
        return own
    bound = [k for k, v in namespace.items() if v is obj and not k.startswith("_")]
    if bound:
        return bound[0]
    if own and own != "<lambda>":
        return own
    raise SettingError("this function has no name in the notebook: assign it to one, or pass name=...")


def _notebook_of(namespace: dict) -> str | None:
    """The notebook's number where the kernel says which notebook it runs (Jupyter's ``__session__``)."""
    import os
    session = str(namespace.get("__session__") or os.environ.get("JPY_SESSION_NAME") or "")
    m = re.search(r"(?:^|[/\\])(\d\d)_[^/\\]*\.ipynb$", session)
    return m.group(1) if m else None


def _source_of(obj, name: str) -> str:
    """The definition of ``obj`` as source text, at the top level, under ``name``."""
    if isinstance(obj, type):
        source = _class_source(obj)
    else:
        try:
            source = textwrap.dedent(inspect.getsource(obj))
        except (OSError, TypeError):
            raise CannotKeep(f"cannot keep {name}: Python has no source text for it (it was made by exec(), "
                             f"typed at a console, or loaded from a compiled file). Define {name} with def in a "
                             f"notebook cell, run that cell, and keep it again") from None
        if obj.__name__ == "<lambda>":
            return f"{name} = {_lambda_text(source, obj)}"
    tree = ast.parse(source)
    defined = tree.body[0].name if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                         ast.ClassDef)) else None
    if defined is not None and defined != name:
        source += f"\n{name} = {defined}\n"
    return source


def _class_source(cls: type) -> str:
    """A class's source — also in a notebook, where ``inspect.getsource`` of a class fails (Python
    looks for the file of ``__main__``): found through one of its methods' cell."""
    try:
        return textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        pass
    for fn in _functions_of(cls):
        filename, line = fn.__code__.co_filename, fn.__code__.co_firstlineno
        text = "".join(linecache.getlines(filename))
        if not text:
            continue
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == cls.__name__ and node.lineno <= line <= node.end_lineno:
                return _node_text(text, node)
    found = _class_in_cells(cls)  # no method of its own (a @dataclass, a class of constants)
    if found is not None:
        return found
    raise CannotKeep(f"cannot keep {cls.__name__}: the source of class {cls.__name__} is not available: define it "
                     f"in a notebook cell (or a file), run that cell, and keep it again")


def _node_text(text: str, node: ast.ClassDef) -> str:
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return textwrap.dedent("".join(text.splitlines(keepends=True)[first - 1:node.end_lineno]))


def _class_in_cells(cls: type) -> str | None:
    """The newest top-level definition of ``cls`` among the cells the kernel ran (linecache holds each
    cell's text) whose own names — fields, attributes, methods — are the class's."""
    own = {k for k in vars(cls) if not (k.startswith("__") and k.endswith("__"))} | set(
        vars(cls).get("__annotations__", {}))
    found = None
    for filename in list(linecache.cache):
        text = "".join(linecache.getlines(filename))
        if f"class {cls.__name__}" not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == cls.__name__ and own <= _names_in(node):
                found = _node_text(text, node)
    return found


def _names_in(node: ast.ClassDef) -> set[str]:
    """The names a class body defines: assignments, annotated fields, functions, nested classes."""
    names = set()
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(item.name)
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
        elif isinstance(item, ast.Assign):
            names.update(t.id for t in item.targets if isinstance(t, ast.Name))
    return names


def _lambda_text(source: str, fn) -> str:
    try:
        tree = ast.parse(source)
    except SyntaxError:  # the lambda sits inside a longer statement
        raise OSError("the source of this lambda is not available on its own: write it as a def") from None
    args = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == args:
            return ast.get_source_segment(source, node)
    raise OSError("the source of this lambda is not available: write it as a def")


def _free_names(source: str) -> set[str]:
    """Names ``source`` uses but does not define: what must come from the notebook's globals."""
    top = symtable.symtable(source, "<kept>", "exec")
    defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    free = {s.get_name() for s in top.get_symbols() if s.is_referenced() and s.get_name() not in defined}

    def walk(table):
        for child in table.get_children():
            for s in child.get_symbols():
                if s.is_global() and s.is_referenced() or (child.get_type() == "class" and s.is_referenced()
                                                            and not s.is_assigned() and not s.is_local()):
                    free.add(s.get_name())
            walk(child)
    walk(top)
    return free - defined


def _import_line(name: str, value) -> str | None:
    if isinstance(value, types.ModuleType):
        module = value.__name__
        return f"import {module}" if module == name else f"import {module} as {name}"
    module = getattr(value, "__module__", None)
    if not module or module == "__main__":
        return None
    # a class or function by its qualified name; a builtin (torch.cosine_similarity's qualname is
    # "_VariableFunctionsClass.cosine_similarity") by its plain name, where the module has it
    for attr in dict.fromkeys((getattr(value, "__qualname__", None), getattr(value, "__name__", None))):
        if not attr or "." in attr or "<" in attr:
            continue
        try:
            found = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            continue
        if found is value:
            return f"from {module} import {attr}" + (f" as {name}" if name != attr else "")
    return None


def _literal(value) -> bool:
    try:
        return ast.literal_eval(repr(value)) == value and type(ast.literal_eval(repr(value))) is type(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _requirements(obj, name: str, namespace: dict) -> tuple[list[str], list[str], dict[str, str]]:
    """(import and constant lines, sources of the notebook's helpers, names that cannot travel).

    The helpers come in an order that loads: each after the helpers it needs (a subclass after its
    base, a class after what its body or decorators use)."""
    imports: list[str] = []
    sources: dict[str, str] = {}  # helper name -> its source, in the order found
    needs: dict[str, set[str]] = {name: set()}  # who -> the helpers its source names
    missing: dict[str, str] = {}
    seen = {name}
    pending = [(name, _source_of(obj, name), namespace)]
    while pending:
        who, source, ns = pending.pop()
        for free in sorted(_free_names(source)):
            if free in sources:
                needs[who].add(free)
            if free in seen:
                continue
            seen.add(free)
            if free not in ns:
                if not hasattr(builtins, free):
                    missing[free] = "not defined in this notebook"
                continue
            value = ns[free]
            line = _import_line(free, value)
            if line is not None:
                imports.append(line)
            elif isinstance(value, (types.FunctionType, type)) and getattr(value, "__module__", None) == ns.get(
                    "__name__", "__main__"):
                sources[free], needs[free] = _source_of(value, free), set()
                needs[who].add(free)
                pending.append((free, sources[free], _namespace(value)))
            elif _literal(value):
                imports.append(f"{free} = {value!r}")
            elif isinstance(value, float):  # nan, inf: their repr is no literal
                imports.append(f"{free} = float({str(value)!r})")
            else:
                missing[free] = f"a {type(value).__name__} made in this notebook"
    ordered = sorted(i for i in imports if i.startswith("import ")) + \
        sorted(i for i in imports if i.startswith("from ")) + [i for i in imports if not i.startswith(("import ", "from "))]
    return ordered, [sources[n] for n in _dependencies_first(sources, needs, name)], missing


def _dependencies_first(sources: dict[str, str], needs: dict[str, set[str]], kept: str) -> list[str]:
    """The helpers' names, each after those it needs (a cycle, possible only between functions, is
    broken where it closes: functions look names up when called, not when defined)."""
    order: list[str] = []
    visited: set[str] = set()

    def visit(n: str) -> None:
        if n in visited:
            return
        visited.add(n)
        for dep in sorted(needs.get(n, ())):
            if dep != kept:
                visit(dep)
        order.append(n)

    for n in sources:
        visit(n)
    return order
