"""``student --nbgrader DIR`` into a folder the lecturer already has: their ``nbgrader_config.py`` and
``README.md`` stay (the course's go beside them, with the settings to merge), files the command wrote
itself are rewritten, ``--overwrite`` replaces; ``--course-id`` is validated and written quoted."""
from __future__ import annotations

import os

import ast

import pytest

from sbertlib.cli import student as student_cli
from sbertlib.workbook.publish import nbgrader_export as ne

pytest.importorskip("nbgrader")

THEIR_CONFIG = '''\
c = get_config()
c.CourseDirectory.course_id = "ml101"
c.Exchange.root = "/srv/nbgrader/exchange"          # their exchange
c.Exchange.timezone = "Europe/Berlin"
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"      # already as the course wants it
c.Execute.timeout = 60                               # their grading policy
'''
THEIR_README = "# ML 101\n\nOffice hours: Tuesdays.\n"


def _config_values(text: str) -> dict:
    """What nbgrader would read from a config file: run it with a real traitlets Config."""
    from traitlets.config import Config
    config = Config()
    saved = dict(os.environ)  # the config sets SBERTLIB_OUTPUT_DIR="sbertlib-runs" (relative): not for later tests
    try:
        exec(compile(text, "nbgrader_config.py", "exec"), {"get_config": lambda: config,
                                                           "__file__": "/x/nbgrader_config.py"})
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return config


def test_the_lecturers_config_and_readme_stay_and_the_settings_to_merge_are_named(tmp_path, capsys):
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(THEIR_CONFIG)
    (course / "README.md").write_text(THEIR_README)
    assert student_cli.main(["--nbgrader", str(course), "--only", "02"]) == 0
    assert (course / "nbgrader_config.py").read_text() == THEIR_CONFIG
    assert (course / "README.md").read_text() == THEIR_README
    ours = (course / "nbgrader_config.sbertlib.py").read_text()
    assert _config_values(ours).ClearSolutions.code_stub == {"python": ""}
    assert "nbgrader autograde" in (course / "README.sbertlib.md").read_text()
    out = capsys.readouterr().out
    assert "kept your" in out and "nbgrader_config.sbertlib.py" in out and "--overwrite" in out
    assert "README.sbertlib.md" in out
    merge = out.split("Merge these settings into yours")[1]
    assert 'c.ClearSolutions.code_stub = {"python": ""}' in merge          # they lack it
    assert "c.Execute.timeout = 600" in merge                              # they set it otherwise
    assert "c.CourseDirectory.course_id = 'sbert-workbook'" in merge
    assert "text_stub" not in merge                                        # they have it already
    assert "Exchange" not in merge                                         # theirs alone: nothing to say
    # their settings merged as told: nothing left to merge
    merged = THEIR_CONFIG + "".join(line.strip() + "\n" for line in merge.splitlines()[1:] if line.startswith("    "))
    assert ne.settings_to_merge(merged, ours) == []
    assert _config_values(merged).Exchange.root == "/srv/nbgrader/exchange"


def test_files_it_wrote_are_rewritten_edited_ones_kept_and_overwrite_replaces(tmp_path, capsys):
    course = tmp_path / "course"
    assert student_cli.main(["--nbgrader", str(course), "--only", "02"]) == 0
    first = (course / "nbgrader_config.py").read_text()
    assert ne.ours_untouched(first) and ne.ours_untouched((course / "README.md").read_text())
    # the same command again (a solution changed, sbertlib upgraded): its own files are simply rewritten
    assert student_cli.main(["--nbgrader", str(course), "--only", "02", "--course-id", "ml.101"]) == 0
    assert "c.CourseDirectory.course_id = 'ml.101'" in (course / "nbgrader_config.py").read_text()
    assert not list(course.glob("*.sbertlib.*"))
    # an edit makes it the lecturer's
    edited = (course / "nbgrader_config.py").read_text().replace("c.Execute.timeout = 600", "c.Execute.timeout = 90")
    (course / "nbgrader_config.py").write_text(edited)
    capsys.readouterr()
    assert student_cli.main(["--nbgrader", str(course), "--only", "02"]) == 0
    assert (course / "nbgrader_config.py").read_text() == edited
    assert "    c.Execute.timeout = 600" in capsys.readouterr().out
    assert (course / "README.md").is_file() and not (course / "README.sbertlib.md").exists()
    # --overwrite: replaced
    assert student_cli.main(["--nbgrader", str(course), "--only", "02", "--overwrite"]) == 0
    assert "c.Execute.timeout = 600" in (course / "nbgrader_config.py").read_text()
    assert ne.ours_untouched((course / "nbgrader_config.py").read_text())


@pytest.mark.parametrize("bad", ["a'b\nimport os; os.system('id')", 'x"); import os; ("', "two words", "", ".", "..",
                                 "../up", "a/b", "c\u00e9", "x" * 101])
def test_a_bad_course_id_is_one_line_naming_it_and_nothing_is_written(bad, tmp_path, capsys):
    course = tmp_path / "course"
    assert student_cli.main(["--nbgrader", str(course), "--only", "02", "--course-id", bad]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("python -m sbertlib student: error: --course-id ")
    assert repr(bad) in err and "Traceback" not in err
    assert not course.exists()
    with pytest.raises(ValueError, match="--course-id"):
        ne.config_text(bad, "smoke", False)
    with pytest.raises(ValueError, match="--course-id"):
        ne.export_course(course, only=["02"], course_id=bad, log=lambda *_: None)


@pytest.mark.parametrize("good", ["sbert-workbook", "ML_101", "cs.224n", "2026-fall"])
def test_a_good_course_id_is_written_as_a_python_string(good):
    text = ne.config_text(good, "smoke", True)
    ast.parse(text)
    assert _config_values(text).CourseDirectory.course_id == good
    assert f"c.CourseDirectory.course_id = {good!r}" in text


def test_overwrite_goes_with_nbgrader_only(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        student_cli.main(["notebooks", str(tmp_path / "copies"), "--overwrite"])
    assert exit_.value.code == 2 and "--overwrite goes with --nbgrader DIR only" in capsys.readouterr().err
