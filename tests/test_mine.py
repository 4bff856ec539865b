"""sbertlib.workbook.mine: a student's function kept in one notebook and loaded in the next — round
trips (imports, constants and helpers travel along), the syntax a student writes, the loud fallback
when nothing is saved yet, and the real thing: two notebooks, each in its own kernel."""
from __future__ import annotations

import linecache
import os
import sys
from pathlib import Path
import math

import nbformat
import pytest
import torch
from torch import nn

from sbertlib import losses
from sbertlib.workbook import mine
from sbertlib.workbook.lessons import nb03


@pytest.fixture(autouse=True)
def output_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SBERTLIB_OUTPUT_DIR", str(tmp_path / "runs"))
    return tmp_path / "runs"


# ----------------------------------------------------------------------------- what a student writes
# Cells of a notebook, run as a kernel runs them: in one namespace named __main__, each cell's source
# registered with linecache under a file name of its own (where inspect finds a function's source).
CELLS = [
    """
import math
from collections import Counter

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.functional import cosine_similarity as cos_sim

from sbertlib import losses
from sbertlib.training import make_optimizer

SCALE = 20.0
NAMES = ("a", "b")
LIMIT = float("inf")
""",
    """
def ranks(a):
    a = np.asarray(a, dtype=float)
    order = np.argsort(a, kind="stable")
    r = np.empty(len(a))
    r[order] = np.arange(1, len(a) + 1)
    for value in np.unique(a):
        r[a == value] = r[a == value].mean()
    return r


def spearman(x, y):
    return float(np.corrcoef(ranks(x), ranks(y))[0, 1])
""",
    """
def sts_like(u, v, gold):
    \"\"\"Uses a helper (spearman, which uses ranks), modules (np, torch), an alias (F), a constant (SCALE).\"\"\"
    cos = F.cosine_similarity(torch.as_tensor(u), torch.as_tensor(v), dim=1)
    return SCALE * spearman(cos.numpy(), gold), cos
""",
    """
class YourMNRL(losses.SBERTLoss):
    \"\"\"A class: base from a module, super(), a class attribute, torch and F inside its method.\"\"\"

    n_texts = (2, 3)

    def __init__(self, model, scale=SCALE):
        super().__init__(model)
        self.scale = scale

    def loss_from_embeddings(self, embeddings, labels=None):
        anchors, candidates = embeddings[0], torch.cat(embeddings[1:], dim=0)
        scores = F.normalize(anchors, dim=1) @ F.normalize(candidates, dim=1).T * self.scale
        return F.cross_entropy(scores, torch.arange(len(anchors)))
""",
    """
regression_loss = lambda u, v, scores: ((F.cosine_similarity(u, v, dim=1) - scores / 5) ** 2).mean()
""",
    """
@torch.no_grad()
def decorated(u: torch.Tensor, *, eps: float = 1e-9) -> torch.Tensor:
    # decorator, annotations, keyword-only default, walrus, f-string, comprehension, nested function,
    # an object imported by name (make_optimizer, only named here) and `from torch import nn`
    def norm(x):
        return torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    if (n := norm(u)).min() < eps:
        raise ValueError(f"a zero vector among {len(u)}: {[round(float(x), 3) for x in n.ravel()]}")
    assert callable(make_optimizer) and issubclass(nn.Linear, nn.Module) and math.pi > 3
    assert float(cos_sim(u, u).min()) < LIMIT          # a torch builtin imported by name; a float that is no literal
    counted = Counter(NAMES)
    return u / n * len(counted)
""",
]


def run_cells(cells, ns=None):
    """Run ``cells`` the way a kernel does; returns the notebook's namespace."""
    ns = {"__name__": "__main__"} if ns is None else ns
    for source in cells:
        filename = f"<cell-{id(source)}-{len(linecache.cache)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
        exec(compile(source, filename, "exec"), ns)
    return ns


@pytest.fixture()
def nb():
    return run_cells(CELLS)


# ----------------------------------------------------------------------------- round trips
def test_round_trip_takes_imports_constants_and_helpers(nb, output_dir, capsys):
    assert mine.keep(nb["sts_like"], notebook="04") is None   # nothing for a notebook cell to echo
    path = mine.path_for("sts_like")
    assert path == output_dir / "your_code" / "sts_like.py"
    text = path.read_text()
    assert "import numpy as np" in text and "import torch.nn.functional as F" in text and "SCALE = 20.0" in text
    assert "def spearman" in text and "def ranks" in text  # the notebook's helpers it calls
    assert "kept your sts_like (notebook 04)" in capsys.readouterr().out
    loaded = mine.load("sts_like")
    assert "sts_like: yours, from notebook 04" in capsys.readouterr().out
    g = torch.Generator().manual_seed(0)
    u, v = torch.randn(12, 5, generator=g), torch.randn(12, 5, generator=g)
    gold = [0, 1, 1, 2, 3, 3, 3, 4, 5, 5, 2, 1]
    assert loaded(u, v, gold)[0] == pytest.approx(nb["sts_like"](u, v, gold)[0])
    assert loaded is not nb["sts_like"] and mine.is_yours(loaded)
    assert mine.where(loaded) == "your sts_like (notebook 04)" and mine.saved("sts_like")["notebook"] == "04"


def test_a_class_round_trips_and_trains(nb, capsys):
    mine.keep(nb["YourMNRL"], notebook="03")  # inspect.getsource fails on a notebook's class: found via a method
    Loaded = mine.load("YourMNRL")
    assert issubclass(Loaded, losses.SBERTLoss) and Loaded.n_texts == (2, 3) and Loaded is not nb["YourMNRL"]
    g = torch.Generator().manual_seed(1)
    emb = [torch.randn(4, 8, generator=g) for _ in range(3)]
    want = losses.MultipleNegativesRankingLoss(nn.Identity()).loss_from_embeddings(emb)
    assert torch.allclose(Loaded(nn.Identity()).loss_from_embeddings(emb), want)


def test_the_syntax_a_student_writes_round_trips(nb, capsys):
    mine.keep(nb["regression_loss"], notebook="05")  # a lambda: saved under the name it is bound to
    assert "regression_loss = lambda u, v, scores:" in mine.path_for("regression_loss").read_text()
    u, v, s = torch.randn(6, 4), torch.randn(6, 4), torch.tensor([0.0, 1, 2, 3, 4, 5])
    assert torch.allclose(mine.load("regression_loss")(u, v, s), nb["regression_loss"](u, v, s))

    mine.keep(nb["decorated"], notebook="02")
    text = mine.path_for("decorated").read_text()
    assert "from torch import nn" in text and "import math" in text and "NAMES = ('a', 'b')" in text
    assert "from collections import Counter" in text and "from sbertlib.training" in text
    assert "from torch import cosine_similarity as cos_sim" in text and "LIMIT = float('inf')" in text
    loaded = mine.load("decorated")
    x = torch.randn(3, 4, requires_grad=True)
    assert torch.allclose(loaded(x), nb["decorated"](x)) and not loaded(x).requires_grad  # the decorator came along
    with pytest.raises(ValueError, match="a zero vector among 2"):
        loaded(torch.zeros(2, 4))


def test_keep_again_replaces_the_earlier_version(nb, capsys):
    run_cells(["def scorer(x):\n    return x + 1\n"], nb)
    mine.keep(nb["scorer"], notebook="04")
    run_cells(["def scorer(x):\n    return x + 2\n"], nb)  # the student edits the cell and runs it again
    mine.keep(nb["scorer"], notebook="04")
    assert mine.load("scorer")(1) == 3


# ----------------------------------------------------------------------------- never silently
def test_nothing_saved_yet_says_so_and_uses_the_reference(capsys):
    loop = mine.load("train_loop")
    out = capsys.readouterr().out.strip().splitlines()
    assert out == ["notebook 03's train_loop is not saved yet: using the workbook's reference, "
                   "sbertlib.workbook.lessons.nb03.fit_loop (run notebook 03 to use yours)"]
    assert loop is nb03.fit_loop and not mine.is_yours(loop)
    assert mine.where(loop) == "the workbook's reference, sbertlib.workbook.lessons.nb03.fit_loop"
    assert mine.load("MNRL") is losses.MultipleNegativesRankingLoss
    assert "notebook 03's MNRL is not saved yet" in capsys.readouterr().out


def test_an_explicit_fallback_and_an_unknown_name(capsys):
    assert mine.load("my_own", fallback=math.sqrt, notebook="07") is math.sqrt
    assert capsys.readouterr().out.startswith("notebook 07's my_own is not saved yet: using the workbook's "
                                              "reference, math.sqrt")
    with pytest.raises(LookupError, match="no reference"):
        mine.load("nobody_wrote_this")


def test_every_reference_resolves(capsys):
    for name in mine.references():
        assert callable(mine.load(name, quiet=True)), name
    assert capsys.readouterr().out == ""


def test_a_broken_file_is_reported_and_replaced(nb, capsys):
    mine.keep(nb["sts_like"], notebook="04", quiet=True)
    mine.path_for("sts_like").write_text("import not_a_module_anywhere\n")
    assert mine.load("sts_like", fallback=math.fsum) is math.fsum
    out = capsys.readouterr().out
    assert "does not load (ModuleNotFoundError" in out and "using the workbook's reference" in out


def test_a_name_that_cannot_travel_is_named(nb, capsys):
    run_cells(["model = nn.Linear(2, 2)\n\ndef uses_a_model(x):\n    return model(x)\n"], nb)
    mine.keep(nb["uses_a_model"], notebook="05")
    assert "uses 'model' (a Linear made in this notebook)" in capsys.readouterr().out
    with pytest.raises(NameError):
        mine.load("uses_a_model", quiet=True)(torch.zeros(1, 2))


def test_names_must_be_python_names():
    with pytest.raises(ValueError, match="not a Python name"):
        mine.path_for("../escape")


def test_the_reference_loop_is_fit():
    from sbertlib import data
    from sbertlib.model.encoder import SentenceEncoder
    from sbertlib.training import fit, prepare_examples
    triplets = data.nli_triplets(data.load_snli("dev")[:120])[:24]
    runs = []
    for trainer in ("fit", "fit_loop"):
        torch.manual_seed(0)
        model = SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=32)
        loss = losses.MultipleNegativesRankingLoss(model)
        examples = prepare_examples(triplets, loss)
        settings = dict(epochs=1, batch_size=8, lr=1e-3, seed=3)
        runs.append(fit(model, loss, examples, show_progress_bar=False, **settings).losses if trainer == "fit"
                    else nb03.fit_loop(loss, examples, **settings))
    assert len(runs[0]) == 3 and runs[0] == pytest.approx(runs[1])


# ----------------------------------------------------------------------------- two notebooks, two kernels
@pytest.mark.integration
def test_kept_in_one_notebooks_kernel_loaded_in_anothers(tmp_path, output_dir):
    pytest.importorskip("nbclient")
    from sbertlib.workbook.publish import notebooks
    cell = nbformat.v4.new_code_cell
    first = nbformat.v4.new_notebook(cells=[
        cell("import torch\nimport torch.nn.functional as F\nfrom sbertlib import losses\nfrom sbertlib.workbook import mine"),
        cell("def helper(x):\n    return x * 2\n\ndef twice_norm(u):\n    return helper(F.normalize(u, dim=1))"),
        cell("class Doubler(losses.SBERTLoss):\n    n_texts = (2,)\n\n    def loss_from_embeddings(self, embeddings, "
             "labels=None):\n        return twice_norm(embeddings[0]).sum()"),
        cell("mine.keep(twice_norm, notebook='03')\nmine.keep(Doubler, notebook='03')"),
    ])
    second = nbformat.v4.new_notebook(cells=[
        cell("import torch\nfrom sbertlib.workbook import mine\nDoubler = mine.load('Doubler')\n"
             "value = Doubler(torch.nn.Identity()).loss_from_embeddings([torch.ones(2, 4)])\n"
             "print('value', round(float(value), 4), mine.is_yours(Doubler))"),
    ])
    env = {"SBERTLIB_OUTPUT_DIR": str(output_dir)}
    for name, nb in (("03_first.ipynb", first), ("05_second.ipynb", second)):
        nbformat.write(nb, tmp_path / name)
        executed, result = notebooks.execute(tmp_path / name, timeout=120, env=env)
        assert result.error is None, result.error
    out = "".join(o.get("text", "") for o in executed.cells[0].outputs)
    assert "Doubler: yours, from notebook 03" in out and "value 8.0 True" in out  # 2 rows × 4 × (2 · 0.5)


# ----------------------------------------------------------------------------- a class on one server
def test_without_a_setting_kept_code_goes_to_the_users_data_folder(nb, monkeypatch, tmp_path, capsys):
    from sbertlib import places
    monkeypatch.delenv("SBERTLIB_OUTPUT_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home-a"))
    mine.keep(nb["spearman"], notebook="04")
    kept = tmp_path / "home-a" / "sbert-workbook" / "runs" / "your_code" / "spearman.py"
    assert kept.is_file() and str(kept) in capsys.readouterr().out
    assert Path(mine.__file__).resolve().parents[1] not in kept.parents  # never beside the package
    assert mine.saved("spearman")["user"] == places.user_name()


def test_one_students_kept_code_never_loads_for_another(nb, monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("SBERTLIB_OUTPUT_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home-a"))
    mine.keep(nb["spearman"], notebook="04")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home-b"))  # student B: another home
    loaded = mine.load("spearman")
    assert not mine.is_yours(loaded) and "not saved yet" in capsys.readouterr().out


def test_a_file_another_user_owns_is_refused_even_in_a_shared_folder(nb, capsys):
    if not hasattr(os, "chown") or os.getuid() != 0:
        pytest.skip("needs root to give the kept file to another user (chown)")
    mine.keep(nb["spearman"], notebook="04")
    os.chown(mine.path_for("spearman"), 65534, 65534)  # as if student 'nobody' had kept it in a shared folder
    loaded = mine.load("spearman")
    out = capsys.readouterr().out
    assert not mine.is_yours(loaded) and "belongs to user" in out and "not to you" in out
    assert "SBERTLIB_OUTPUT_DIR" in out


def test_a_kept_file_in_another_encoding_is_named_not_a_bare_decode_error(nb, capsys):
    mine.keep(nb["spearman"], notebook="04")
    path = mine.path_for("spearman")
    path.write_bytes(path.read_text(encoding="utf-8").replace("# spearman", "# spéarman").encode("latin-1"))
    loaded = mine.load("spearman")
    out = capsys.readouterr().out
    assert not mine.is_yours(loaded) and str(path) in out and "not UTF-8" in out


def test_a_function_without_source_is_named():
    ns = {"__name__": "__main__"}
    exec("def made_by_exec(x):\n    return x\n", ns)
    with pytest.raises(mine.CannotKeep, match="cannot keep made_by_exec: Python has no source"):
        mine.keep(ns["made_by_exec"])


@pytest.mark.parametrize("as_kernel", [True, False], ids=["kernel-main-module", "plain-namespace"])
def test_helper_classes_are_written_base_first_and_a_dataclass_can_be_kept(as_kernel, monkeypatch, capsys):
    import types
    main = types.ModuleType("__main__")  # as in a kernel: sys.modules["__main__"] is the notebook's namespace
    if as_kernel:
        monkeypatch.setitem(sys.modules, "__main__", main)
    ns = run_cells([
        "from dataclasses import dataclass\nimport torch",
        "class Base:\n    scale = 2.0\n\n    def twice(self, x):\n        return x * self.scale",
        "class Child(Base):\n    def thrice(self, x):\n        return self.twice(x) * 1.5",
        "def uses_both(x):\n    # names the subclass first in sorted order: Base < Child, yet Child needs Base\n"
        "    return Child().thrice(x) + Base().twice(x)",
        "@dataclass\nclass Recipe:\n    lr: float = 2e-5\n    batch_size: int = 16",
        "class Constants:\n    SCALE = 20.0",
    ], vars(main) if as_kernel else None)
    mine.keep(ns["uses_both"], notebook="05")
    assert mine.load("uses_both")(1.0) == 5.0
    mine.keep(ns["Recipe"], notebook="03")
    Recipe = mine.load("Recipe")
    assert mine.is_yours(Recipe) and Recipe(lr=1e-3) == Recipe(1e-3, 16) and Recipe().batch_size == 16
    mine.keep(ns["Constants"], notebook="03")
    assert mine.load("Constants").SCALE == 20.0
