"""Repository hygiene: packaging in sync, CI calls the README's test command, notebooks clean."""
from __future__ import annotations

import ast
import re
import tomllib
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from sbertlib.workbook.publish import notebooks

ROOT = Path(__file__).resolve().parents[1]


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[ ;]", req.strip(), maxsplit=1)[0].lower()


def test_environment_yml_names_the_same_packages_as_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = [r for reqs in project["optional-dependencies"].values() for r in reqs]
    wanted = {_name(r) for r in project["dependencies"] + extras} - {"sbertlib"}
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    listed = {_name(r) for r in pip if not r.startswith("-e")}
    assert listed == wanted


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    commands = re.findall(r"^\s*(make test)\s*$", readme, flags=re.M)
    assert commands, "README shows no test command"
    assert any(re.search(rf"^\s*{re.escape(c)}\s*$", ci, flags=re.M) for c in commands)
    assert re.search(r"^\s*make test-integration\s*$", readme, flags=re.M), "README shows no integration command"
    assert re.search(r"^make test-integration$", ci, flags=re.M), ".ci/run skips the integration tests"


def test_package_never_imports_sentence_transformers():
    for path in (ROOT / "sbertlib").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n.split(".")[0] == "sentence_transformers" for n in names), path


def _import_graph() -> dict[str, set[str]]:
    """Each module of sbertlib -> the sbertlib modules it imports anywhere (inside functions too), relative
    imports resolved and ``from pkg import name`` counted as the submodule ``pkg.name`` where there is one."""
    modules = {}
    for path in (ROOT / "sbertlib").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(node.level - 1):
                    base = base.rsplit(".", 1)[0]
                full = (base + (f".{node.module}" if node.module else "")) if node.level else node.module
                targets.update(f"{full}.{a.name}" if f"{full}.{a.name}" in modules else full for a in node.names)
        graph[module] = set()
        for target in targets:
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != module:
                graph[module].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (each holds an import cycle)."""
    reach = {}
    for start in graph:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        reach[start] = seen
    components = {frozenset(m for m in reach[a] if a in reach[m]) | {a} for a in graph if a in reach[a]}
    return [set(c) for c in components if len(c) > 1]


def test_no_import_cycles():
    graph = _import_graph()
    cycles = sorted(_cycles(graph), key=sorted)
    assert not cycles, "import cycles in sbertlib:\n" + "\n".join(
        "  " + "; ".join(f"{m} -> {', '.join(sorted(graph[m] & c))}" for m in sorted(c)) for c in cycles)


def test_importing_the_data_package_leaves_torch_and_transformers_unimported():
    code = "import sys, sbertlib.data; print(sorted({'torch', 'transformers'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"import sbertlib.data imported {out.stdout.strip()} (sbertlib/__init__.py " \
                                       "promises it stays quick)"


@pytest.mark.parametrize("path", notebooks.notebook_paths(), ids=lambda p: p.name)
def test_notebook_committed_clean_with_goals_and_recap(path):
    nb = nbformat.read(path, as_version=4)
    assert not notebooks.has_outputs(nb), f"{path.name}: strip outputs before committing"
    first = nb.cells[0]
    assert first.cell_type == "markdown" and "learning goals" in first.source.lower()
    md = [c for c in nb.cells if c.cell_type == "markdown" and "answers" not in notebooks.tags(c)]
    assert "## recap" in md[-2].source.lower(), f"{path.name}: the last two markdown cells are Recap, Questions"
    assert "## questions" in md[-1].source.lower(), f"{path.name}: the notebook ends with its questionnaire"


@pytest.mark.parametrize("path", notebooks.notebook_paths(), ids=lambda p: p.name)
def test_questionnaire_answers_are_left_out_of_student_copies(path):
    nb = nbformat.read(path, as_version=4)
    questions = [c for c in nb.cells if "## questions" in c.source.lower()][-1].source
    n_questions = sum(1 for line in questions.splitlines() if line.lstrip()[:3].rstrip(". ").isdigit())
    answers = [c for c in nb.cells if "answers" in notebooks.tags(c)]
    assert n_questions >= 4, f"{path.name}: the questionnaire has {n_questions} numbered questions"
    assert answers and all(c.cell_type == "markdown" for c in answers), f"{path.name}: answers cell missing"
    n_answers = sum(1 for line in answers[0].source.splitlines() if line.lstrip()[:3].rstrip(". ").isdigit())
    assert n_answers == n_questions, f"{path.name}: {n_questions} questions but {n_answers} answers"
    student = notebooks.student_copy(nb)
    assert not any("answers" in notebooks.tags(c) for c in student.cells)
    assert answers[0].source.strip() not in [c.source.strip() for c in student.cells]


@pytest.mark.parametrize("path", notebooks.notebook_paths(), ids=lambda p: p.name)
def test_student_copy_has_no_solutions(path):
    nb = nbformat.read(path, as_version=4)
    solutions = [c.source for c in nb.cells if "solution" in notebooks.tags(c)]
    student = notebooks.student_copy(nb)
    assert not any("solution" in notebooks.tags(c) for c in student.cells)
    for src in solutions:
        assert src.strip() not in [c.source.strip() for c in student.cells]


def test_student_copies_come_with_the_example_data(tmp_path):
    from sbertlib.cli import student
    assert student.main([str(ROOT / "notebooks"), str(tmp_path / "student")]) == 0
    assert (tmp_path / "student" / "13_your_own_data.ipynb").is_file()
    assert (tmp_path / "student" / "examples" / "course_questions.tsv").is_file()


def test_student_never_writes_over_the_lecturers_notebooks(tmp_path, capsys):
    """`student notebooks` (one argument) once wrote the copies over the originals, solutions lost."""
    from sbertlib.cli import envcheck, student
    src = tmp_path / "notebooks"
    shutil.copytree(ROOT / "notebooks", src)
    before = {p.name: p.read_bytes() for p in src.glob("*.ipynb")}
    for argv in ([str(src)], [str(src), str(src)], [str(src), str(src / "student")]):
        with pytest.raises(SystemExit) as exit_:
            student.main(argv)
        assert exit_.value.code == 2
    assert "would overwrite or sit inside" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in src.glob("*.ipynb")} == before and not (src / "student").exists()
    with pytest.raises(SystemExit) as exit_:
        student.main(["--help"])
    assert exit_.value.code == 0 and "usage: python -m sbertlib student" in capsys.readouterr().out
    assert not (Path.cwd() / "--help").exists()
    with pytest.raises(SystemExit) as exit_:
        envcheck.main(["--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0 and "usage: python -m sbertlib envcheck" in out and "[OK] torch" not in out
