"""The documents a newcomer reads agree with the code: the data table, the command list, the links."""
from __future__ import annotations

import re
from pathlib import Path

from sbertlib.cli import COMMANDS
from sbertlib.data import hub

ROOT = Path(__file__).resolve().parents[1]


def test_data_readme_holds_the_catalogue_table_exactly():
    table = hub.catalogue_markdown()
    assert table in (ROOT / "data" / "README.md").read_text(encoding="utf-8"), (
        "data/README.md's Hub table differs from sbertlib.data.hub.catalogue_markdown(): paste its output there")


def test_catalogue_table_has_a_row_per_data_set_and_marks_branches():
    lines = hub.catalogue_markdown().splitlines()
    assert len(lines) == 2 + len(hub.CATALOGUE)
    for ds, line in zip(hub.CATALOGUE.values(), lines[2:]):
        assert line.startswith(f"| `{ds.name}` | [{ds.repo_id}]")
        assert ds.revision in line
        assert ("not pinned" in line) == (not hub.is_pinned(ds))
        assert line.count(" | ") == 6  # seven cells: no stray pipe from a catalogue text


def test_readme_command_line_matches_the_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"python -m sbertlib (\w+)", readme))
    assert shown <= set(COMMANDS), f"README shows unknown commands {sorted(shown - set(COMMANDS))}"
    assert set(COMMANDS) <= shown, f"README never shows {sorted(set(COMMANDS) - shown)}"


def test_readme_links_point_at_files_that_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme)
    assert {"LICENSE", "BENCHMARKS.md", "data/README.md"} <= set(links)
    for link in links:
        assert (ROOT / link).exists(), link
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
