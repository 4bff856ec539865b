"""The command line: one flag per idea in every command, plain-text help, --version, and a user's
mistake answered with one line and exit status 2, never a traceback."""
from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from sbertlib import __version__, cli
from sbertlib.cli import common

REST = ("``", ":func:", ":class:", ":mod:", ":meth:", "=====")


def run_main(name: str, argv: list[str], capsys) -> tuple[int, str, str]:
    module = importlib.import_module(f"sbertlib.cli.{name}")
    try:
        code = module.main(argv)
    except SystemExit as exit_:  # argparse's own exits (--help, --version, usage errors)
        code = exit_.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name", cli.COMMANDS)
def test_every_command_has_plain_help_and_a_version(name, capsys):
    code, out, _ = run_main(name, ["--help"], capsys)
    assert code == 0 and f"usage: python -m sbertlib {name}" in out
    assert not [mark for mark in REST if mark in out], out
    code, out, _ = run_main(name, ["--version"], capsys)
    assert code == 0 and out.strip() == f"sbertlib {__version__}"


def test_the_top_level_help_is_plain_text_and_lists_every_command():
    done = subprocess.run([sys.executable, "-m", "sbertlib", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and not [mark for mark in REST if mark in done.stdout]
    assert all(f"\n  {name} " in done.stdout for name in cli.COMMANDS)
    version = subprocess.run([sys.executable, "-m", "sbertlib", "--version"], capture_output=True, text=True)
    assert version.stdout.strip() == f"sbertlib {__version__}"
    unknown = subprocess.run([sys.executable, "-m", "sbertlib", "trian"], capture_output=True, text=True)
    assert unknown.returncode == 2 and "unknown command 'trian'; choose one of evaluate, train" in unknown.stderr


@pytest.mark.parametrize("name, argv, message", [
    # --profile is one flag everywhere (cli.common.add_profile): argparse names the choices
    ("train", ["--profile", "nosuch"], "invalid choice: 'nosuch' (choose from 'paper', 'laptop', 'offline', 'smoke')"),
    ("build", ["--profile", "nosuch", "--skip-data-check"], "invalid choice: 'nosuch'"),
    ("fetch", ["--profile", "nosuch"], "invalid choice: 'nosuch'"),
    ("estimate", ["--profile", "offline"], "invalid choice: 'offline' (choose from 'paper', 'laptop')"),
    ("evaluate", ["--model", "tiny-random-bert", "--device", "cuda:7"], "device 'cuda:7' is not on this machine"),
    ("evaluate", ["--model", "tiny-random-bert", "--device", "gpu"], "unknown device 'gpu': use cpu, cuda"),
    ("evaluate", ["--model", "tiny-random-bert", "--datasets", "stsb-tset"], "unknown split 'tset'; expected one of"),
    ("estimate", ["--profile", "laptop", "--device", "mps", "--sentences", "synthetic"],
     "device 'mps' is not on this machine"),
    ("fetch", ["--datasets", "stsc"], "unknown data set(s) ['stsc']"),
    ("train", ["--profile", "smoke", "--warmup-ratio", "2"], "warmup_ratio must be between 0 and 1, got 2.0"),
])
def test_a_users_mistake_is_one_line_and_exit_2(name, argv, message, capsys, monkeypatch):
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    code, out, err = run_main(name, argv, capsys)
    assert code == 2, (out, err)
    assert message in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith((f"python -m sbertlib {name}: error:", "usage:")) \
        or f"python -m sbertlib {name}: error: " in err


@pytest.mark.parametrize("bug", [ValueError("a bug in sbertlib"), KeyError("internal"),
                                 FileNotFoundError("/no/such/internal/file")])
def test_a_bug_keeps_its_traceback_only_sbertlibs_own_errors_are_a_users_mistake(bug, monkeypatch):
    """A ValueError or KeyError from sbertlib's internals or a dependency is a bug, not the user's mistake:
    the command does not hide it behind one line and exit 2."""
    from sbertlib import errors
    module = importlib.import_module("sbertlib.cli.evaluate")

    def broken(*args, **kwargs):
        raise bug
    monkeypatch.setattr(module, "build_encoder", broken)
    with pytest.raises(type(bug)) as raised:
        module.main(["--model", "tiny-random-bert"])
    assert not isinstance(raised.value, errors.UserError)


def test_sbertlibs_own_errors_are_also_the_builtin_type_a_caller_expects():
    from sbertlib import errors
    from sbertlib.data.records import DataNotFoundError
    from sbertlib.model.backbones import BackboneNotAvailable
    assert issubclass(errors.SettingError, ValueError) and issubclass(errors.UnknownName, KeyError)
    assert issubclass(errors.MissingPath, FileNotFoundError) and issubclass(BackboneNotAvailable, errors.UserError)
    assert issubclass(DataNotFoundError, errors.UserError)
    assert str(errors.UnknownName("no question '99.9'")) == "no question '99.9'"  # not quoted as KeyError is


def test_debug_shows_the_traceback(monkeypatch):
    monkeypatch.setenv("SBERTLIB_DEBUG", "1")
    with pytest.raises(ValueError, match="unknown device 'gpu'"):
        importlib.import_module("sbertlib.cli.evaluate").main(["--model", "tiny-random-bert", "--device", "gpu"])


def test_the_same_flag_means_the_same_thing_everywhere():
    """--model names the encoder, --json prints (never takes a file), --warmup is never ambiguous."""
    flags = {}
    for name in cli.COMMANDS:
        module = importlib.import_module(f"sbertlib.cli.{name}")
        for parser in _parsers(module, name):
            for action in parser._actions:
                for flag in action.option_strings:
                    flags.setdefault(flag, []).append((name, action))
    assert "--backbone" not in flags and "--warmup" not in flags
    assert all(action.nargs == 0 for _, action in flags["--json"]), "--json is a plain switch in every command"
    assert {name for name, _ in flags["--model"]} >= {"evaluate", "bench", "fetch"}


def _parsers(module, name):
    """The parsers a command builds (its sub-commands' included), by running it with --help."""
    import argparse
    made = []
    real = argparse.ArgumentParser.parse_args

    def capture(self, args=None, namespace=None):
        made.append(self)
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                made.extend(action.choices.values())
        raise SystemExit(0)

    argparse.ArgumentParser.parse_args = capture
    try:
        module.main(["--help"])
    except SystemExit:
        pass
    finally:
        argparse.ArgumentParser.parse_args = real
    assert made, name
    return made


def test_plain_strips_rest():
    doc = "Use :func:`sbertlib.training.fit` and ``--json``.\n\n=====  ====\na      b\n=====  ===="
    assert common.plain(doc) == "Use fit and --json.\n\na      b"


def test_train_passes_output_dir_and_dry_run_without_writing_the_environment(tmp_path, monkeypatch, shared_data,
                                                                                 capsys):
    """--output-dir and --dry-run reach the library as arguments: os.environ is left as it was, so a second call
    in the same process (a test, a notebook) does not inherit the first one's folder or dry run."""
    import json
    import os

    from sbertlib import places
    from sbertlib.cli import train
    from sbertlib.workbook import profiles
    elsewhere, given = tmp_path / "from-env", tmp_path / "given"
    monkeypatch.setenv(places.OUTPUT_DIR_ENV, str(elsewhere))
    monkeypatch.setenv("SBERTLIB_DATA_DIR", str(shared_data))
    monkeypatch.delenv(profiles.DRY_RUN_ENV, raising=False)
    before = dict(os.environ)
    argv = ["--profile", "smoke", "--objective", "sts", "--max-steps", "2", "--json", "--output-dir", str(given)]
    assert train.main([*argv, "--dry-run"]) == 0
    assert dict(os.environ) == before
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["dry_run"] is True
    assert Path(result["model"]).is_relative_to(given / "dry-run" / "smoke") and Path(result["model"]).is_dir()
    assert not elsewhere.exists()
    assert train.main(argv) == 0  # the same process, no --dry-run: not a dry run, still under the folder given
    assert dict(os.environ) == before
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["dry_run"] is False
    assert Path(result["model"]).is_relative_to(given / "smoke") and "dry-run" not in Path(result["model"]).parts
    assert not elsewhere.exists()
