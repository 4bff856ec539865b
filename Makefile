# sbert-workbook — every target does its own set-up on a fresh clone.
#   make workbook   execute all notebooks headlessly into build/ (HTML + index); BUILD_ARGS="--only 00,04" etc.
#   make test       the everyday test suite (library, lessons' checks, CLI; about 10 minutes on 2 cores)
#   make test-integration  the real components: every notebook on smoke, JupyterHub, Chromium, nbgrader, torchrun
#   make lab        open JupyterLab on notebooks/
#   make student    write student copies (solutions removed) into student/
#   make bench      print encode benchmark figures
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# The CPU wheel of this version lies on the course machines' disk; on a normal
# machine pip fetches the usual build. Override e.g. `make TORCH_SPEC=torch test`.
TORCH_SPEC ?= torch==2.13.0
STAMP  := $(VENV)/.installed
# Kernels start in notebooks/: a relative data directory is passed on made absolute.
ifneq ($(SBERTLIB_DATA_DIR),)
export SBERTLIB_DATA_DIR := $(abspath $(SBERTLIB_DATA_DIR))
endif

.PHONY: install test test-integration test-all workbook lab student bench envcheck clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; v = sys.version_info; sys.exit(0 if v >= (3, 10) else f"sbert-workbook needs Python 3.10 or newer; $(PYTHON) is {v[0]}.{v[1]}. Install a newer one (macOS: brew install python@3.12) and run: make PYTHON=python3.12 $(MAKECMDGOALS)")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "$(TORCH_SPEC)"
	$(PY) -m pip install -q -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

envcheck: $(STAMP)
	$(PY) -m sbertlib envcheck

test: $(STAMP)
	$(PY) -m pytest

test-integration: $(STAMP)
	$(PY) -m pytest -m "integration and not slow"

test-all: $(STAMP)
	$(PY) -m pytest -m ""

workbook: $(STAMP)
	$(PY) -m sbertlib build --out build $(BUILD_ARGS)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/

student: $(STAMP)
	$(PY) -m sbertlib student notebooks student

bench: $(STAMP)
	$(PY) -m sbertlib bench encode

clean:
	rm -rf build student .pytest_cache
