"""sbertlib.places: where each user's files go on a shared install — $SBERTLIB_OUTPUT_DIR ({user},
~ and $VARS expanded), else the user's data folder, never beside the package; a folder that cannot
be written is named before any work starts (train: one line, exit 2; fit: before step one)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from sbertlib import places
from sbertlib.workbook import runs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def fresh(monkeypatch, tmp_path):
    monkeypatch.delenv(places.OUTPUT_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    places._CHECKED.clear()


def test_without_a_setting_files_go_to_the_users_data_folder_not_beside_the_package(tmp_path):
    folder = runs.output_dir("offline")
    assert folder == tmp_path / "xdg" / "sbert-workbook" / "runs" / "offline" and folder.is_dir()
    package = Path(places.__file__).resolve().parents[1]
    assert package not in folder.parents
    assert places.describe()["output folder"].startswith(str(tmp_path / "xdg"))


def test_one_setting_for_a_whole_class_names_each_user(monkeypatch, tmp_path):
    monkeypatch.setenv(places.OUTPUT_DIR_ENV, str(tmp_path / "class" / "{user}"))
    assert runs.output_dir() == tmp_path / "class" / places.user_name()
    monkeypatch.setenv(places.OUTPUT_DIR_ENV, "~/sbert-runs")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert runs.output_dir() == tmp_path / "home" / "sbert-runs"


def test_a_folder_under_a_file_is_named_with_the_file(monkeypatch, tmp_path):
    (tmp_path / "afile").write_text("x")
    monkeypatch.setenv(places.OUTPUT_DIR_ENV, str(tmp_path / "afile" / "runs"))
    with pytest.raises(places.OutputDirError, match=r"afile is a file") as err:
        runs.output_dir()
    assert places.OUTPUT_DIR_ENV in str(err.value)


def test_fit_checks_its_output_dir_before_the_first_step(tmp_path):
    from sbertlib.losses import CosineSimilarityLoss
    from sbertlib.model.encoder import SentenceEncoder
    from sbertlib.training import fit
    encoder = SentenceEncoder.from_pretrained("tiny-random-bert:0", device="cpu")
    loss = CosineSimilarityLoss(encoder)
    steps = []
    loss.register_forward_hook(lambda *a: steps.append(1))
    (tmp_path / "afile").write_text("x")
    with pytest.raises(places.OutputDirError, match=r"fit\(output_dir=...\).*afile is a file"):
        fit(encoder, loss, [("a b", "c", 0.5)] * 4, batch_size=2, output_dir=tmp_path / "afile" / "out",
            show_progress_bar=False)
    assert steps == []  # no training step ran


def test_train_with_an_output_dir_under_a_file_is_one_line_and_exit_2(tmp_path, shared_data, monkeypatch, capsys):
    """The command's main in this process, as tests/test_cli.py calls it (a second interpreter would only import torch
    again); nothing but the one line, no warning either."""
    import warnings

    from sbertlib.cli import train
    (tmp_path / "afile").write_text("x")
    monkeypatch.setenv("SBERTLIB_DATA_DIR", str(shared_data))
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        try:
            code = train.main(["--profile", "smoke", "--output-dir", str(tmp_path / "afile" / "runs")])
        except SystemExit as exit_:
            code = exit_.code
    err = capsys.readouterr().err
    assert code == 2 and not warned, (err, [str(w.message) for w in warned])
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "afile is a file" in lines[0] and "Traceback" not in err


def _as_nobody() -> list[str] | None:
    """A command prefix that runs Python as the unprivileged user nobody (root only)."""
    if not hasattr(os, "getuid") or os.getuid() != 0 or shutil.which("setpriv") is None:
        return None
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else None
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", python] if python else None


def test_an_output_dir_the_user_cannot_write_is_named_not_a_bare_permission_error(tmp_path):
    prefix = _as_nobody()
    if prefix is None:
        pytest.skip("needs root, setpriv and /usr/bin/python3 to run a child as the unprivileged user nobody "
                    "(root itself can write anywhere, so only another user shows the error)")
    import tempfile
    top = Path(tempfile.mkdtemp(prefix="sbertlib-places-", dir="/tmp"))  # pytest's tmp_path: root's alone (0700)
    os.chmod(top, 0o755)
    locked = top / "lecturers"
    locked.mkdir(mode=0o755)  # root's: nobody may read, not write
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from sbertlib import places\n"
            "try:\n    places.output_dir('x')\nexcept places.OutputDirError as e:\n    print('NAMED', e)\n")
    env = {"PATH": os.environ.get("PATH", ""), places.OUTPUT_DIR_ENV: str(locked), "HOME": str(top)}
    try:
        done = subprocess.run(prefix + ["-c", code, str(ROOT)], capture_output=True, text=True, env=env, timeout=60)
    finally:
        shutil.rmtree(top)
    assert "NAMED" in done.stdout, done.stdout + done.stderr
    assert str(locked) in done.stdout and "cannot write" in done.stdout and "PermissionError" not in done.stderr


def test_a_folder_another_user_owns_is_not_written_into(monkeypatch, tmp_path):
    if not hasattr(os, "chown") or os.getuid() != 0:
        pytest.skip("needs root to hand a folder to another user (chown)")
    shared = tmp_path / "class-runs"
    shared.mkdir()
    os.chown(shared, 65534, 65534)  # as if another student had made it
    monkeypatch.setenv(places.OUTPUT_DIR_ENV, str(shared))
    with pytest.raises(places.OutputDirError, match=r"belongs to user .*\{user\}"):
        runs.output_dir()
    monkeypatch.setenv(places.OUTPUT_DIR_ENV, str(shared / "{user}"))
    os.chmod(shared, 0o1777)
    assert runs.output_dir() == shared / places.user_name()


def test_where_prints_every_place(capsys, monkeypatch, tmp_path):
    from sbertlib.cli import main
    monkeypatch.setenv(places.OUTPUT_DIR_ENV, str(tmp_path / "o"))
    assert main(["where"]) == 0
    out = capsys.readouterr().out
    for what in ("output folder", "your kept code", "course data", "Hugging Face cache", str(tmp_path / "o")):
        assert what in out


def test_a_home_that_is_not_the_users_own_is_not_used(monkeypatch, tmp_path):
    if not hasattr(os, "chown") or os.getuid() != 0:
        pytest.skip("needs root to hand a folder to another user (chown)")
    import pwd
    monkeypatch.delenv("XDG_DATA_HOME")
    theirs = tmp_path / "someone-elses-home"
    theirs.mkdir()
    os.chown(theirs, 65534, 65534)
    monkeypatch.setenv("HOME", str(theirs))  # a process switched user but kept the caller's $HOME
    assert places.home() == Path(pwd.getpwuid(os.getuid()).pw_dir)
    monkeypatch.setenv("HOME", str(tmp_path))  # its own: honoured
    assert places.user_data_dir() == tmp_path / ".local" / "share" / "sbert-workbook"


def test_a_lecturer_asks_where_a_students_files_are(capsys, tmp_path, monkeypatch):
    from sbertlib.cli import main
    monkeypatch.setenv(places.OUTPUT_DIR_ENV, str(tmp_path / "class" / "{user}"))
    assert main(["where", "--user", "nobody"]) == 0
    out = capsys.readouterr().out
    assert str(tmp_path / "class" / "nobody" / "your_code") in out and "none yet" in out
    assert main(["where", "--user", "no-such-user-here"]) == 2
    assert "no such user" in capsys.readouterr().err


def test_an_output_dir_passed_wins_over_the_environment_and_a_dry_run_profile_goes_to_dry_run(monkeypatch, tmp_path):
    """What ``train --output-dir/--dry-run`` rely on, with no environment written: the folder and the dry run
    are arguments (``$SBERTLIB_OUTPUT_DIR`` and ``$SBERTLIB_DRY_RUN`` stay the defaults)."""
    from sbertlib.workbook import profiles
    monkeypatch.delenv(profiles.DRY_RUN_ENV, raising=False)
    elsewhere, given = tmp_path / "from-env", tmp_path / "given"
    monkeypatch.setenv(places.OUTPUT_DIR_ENV, str(elsewhere))
    smoke = profiles.PROFILES["smoke"]
    assert runs.model_dir(smoke, "stsb", output_dir=given).parent == given / "smoke"
    dry = runs.model_dir(profiles.get_profile("smoke", dry_run=True), "stsb", output_dir=given)
    assert dry.parent == given / "dry-run" / "smoke" and dry.is_dir()
    assert runs.output_dir("x", root=given, dry_run=True) == given / "dry-run" / "x"
    assert runs.output_dir(root=str(tmp_path / "class" / "{user}")) == tmp_path / "class" / places.user_name()
    assert not elsewhere.exists()
    assert runs.model_dir(smoke, "stsb").parent == elsewhere / "smoke"  # none given: the environment's
    monkeypatch.setenv(profiles.DRY_RUN_ENV, "1")
    assert runs.model_dir(smoke, "stsb").parent == elsewhere / "dry-run" / "smoke"
    (tmp_path / "afile").write_text("x")
    with pytest.raises(places.OutputDirError, match=r"output_dir=.*afile is a file"):
        runs.output_dir(root=tmp_path / "afile" / "runs")


class _Trains(Exception):
    pass


def test_trained_model_trains_earlier_stages_and_teachers_under_the_output_dir_given(monkeypatch, tmp_path,
                                                                                     shared_data):
    from dataclasses import replace

    from sbertlib.workbook import profiles, stages

    def caught(stage, model, folder, *rest):
        raise _Trains(folder)
    monkeypatch.setattr(stages.Stage, "train", caught)
    monkeypatch.delenv(profiles.DRY_RUN_ENV, raising=False)
    monkeypatch.setenv(places.OUTPUT_DIR_ENV, str(tmp_path / "from-env"))
    given = tmp_path / "given"
    smoke = profiles.PROFILES["smoke"]
    with pytest.raises(_Trains) as trains:  # two-stage: its NLI stage first
        runs.trained_model(smoke, "two-stage", data_dir=shared_data, show_progress_bar=False, output_dir=given)
    assert trains.value.args[0] == runs.model_dir(smoke, smoke.nli_objective, output_dir=given)
    taught = replace(smoke, distill_teacher="stsb")  # a teacher that is a run: trained where its student is
    with pytest.raises(_Trains) as trains:
        runs.teacher(taught, data_dir=shared_data, output_dir=given)
    assert trains.value.args[0] == runs.model_dir(taught, "stsb", output_dir=given)
    assert not (tmp_path / "from-env").exists()
