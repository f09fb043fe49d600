# Two entry points for a fresh machine: `make run` and `make test`.
# Each installs what it needs: a .venv with the project, and the Debian packages the tests need.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
APT_PACKAGES := xvfb xauth trayer xdotool libegl1 libgl1 libxkbcommon-x11-0 libxcb-cursor0 \
	libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0 libxcb-randr0 libxcb-render-util0 \
	libxcb-image0 libdbus-1-3 libfontconfig1 fonts-noto-cjk desktop-file-utils \
	openbox x11-utils libgtk-3-0 gnome-themes-extra libglib2.0-bin dbus-daemon git \
	age gnome-keyring openssh-server

.PHONY: help run demo test test-core lint typecheck pytest system-deps venv bench clean package

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)/  make \1\t\2/' | expand -t 24

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP) ## create .venv with the project and its dev tools

# Installs the Debian packages the GUI and its tests need, only when one is missing.
system-deps:
	@missing=""; for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing Debian packages:$$missing"; \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	@# The real-client tests run Claude Code, Codex, Gemini CLI, Copilot CLI, Qwen Code, opencode
	@# and log4brains from npm; they are installed on first use into
	@# ~/.cache/decision-journal-test-clients (DJ_CLIENTS_CACHE).
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		echo "Installing Debian packages: nodejs npm"; \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nodejs npm >/dev/null; \
	fi

run: system-deps $(STAMP) ## Set up and run the tray app
	$(BIN)/decision-journal app

DEMO_JOURNAL := build/demo-journal

demo: system-deps $(STAMP) ## Write a journal of demo decisions to build/demo-journal and open it in the app
	rm -rf $(DEMO_JOURNAL)
	$(BIN)/python -m bench.demo_journal --write $(DEMO_JOURNAL)
	$(BIN)/decision-journal --journal $(DEMO_JOURNAL) app --show

lint: $(STAMP) ## ruff (check, format) and import-linter contracts
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP) ## mypy strict on core and app
	$(BIN)/mypy core
	$(BIN)/mypy app

# PYTEST_WORKERS=auto runs the tests on every core (pytest-xdist), a test file a worker: a shared
# app, server or window is built once, and no two workers share a home, display or socket
# (see docs/decisions.md). The default, PYTEST_WORKERS=0, runs them in one process:
# some timing tests still fail now and then on a busy worker.
PYTEST_WORKERS ?= 0
PARALLEL = $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile)
CORE_PYTEST = DJ_FORBID_QT=1 $(BIN)/python -m pytest -q -p no:cacheprovider $(PARALLEL) \
	-c tests/core/qt-free.ini --rootdir . --confcutdir . tests/core

# tests/core runs where Qt cannot be imported (the core is pure Python); then everything else.
pytest: system-deps $(STAMP) ## every test (installs Debian packages and Node when missing)
	$(CORE_PYTEST)
	$(BIN)/python -m pytest -q -p no:cacheprovider $(PARALLEL) -m "not packaging" \
		--ignore=tests/core tests

# `package` is part of `test`, so CI builds the installers and runs their smoke tests on every
# change: an installer nobody builds breaks without anyone noticing.
test: lint typecheck pytest package ## lint, typecheck, every test, and the packages with their smoke tests: what CI runs

# The Qt-free core tests alone: no apt packages, no display, no Node.
test-core: $(STAMP) ## only the Qt-free core tests (no apt, no display)
	$(CORE_PYTEST)

bench: $(STAMP) ## run every bench/ script
	for b in bench/*_bench.py; do $(BIN)/python $$b; done

clean: ## remove build output and tool caches
	rm -rf build dist .mypy_cache .ruff_cache .pytest_cache

# `make package` (Linux x86-64): the one-folder PyInstaller bundle, a .deb and a .tar.gz in dist/,
# then the frozen smoke tests and the size and start-up budget. Windows and macOS: see
# packaging/README.md. PACKAGING_APT: the build's own tools, plus the Wayland libraries so the
# .deb can recommend them.
PACKAGING_APT := binutils dpkg-dev desktop-file-utils x11-utils xvfb xauth trayer xdotool \
	libwayland-cursor0 libwayland-egl1
PACKAGING_BUNDLE := dist/decision-journal

package: $(STAMP) ## PyInstaller bundle, .deb and .tar.gz, then their smoke tests
	@$(MAKE) --no-print-directory system-deps APT_PACKAGES="$(APT_PACKAGES) $(PACKAGING_APT)"
	rm -rf build/decision-journal build/deb $(PACKAGING_BUNDLE)
	$(BIN)/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build \
		packaging/decision-journal.spec
	$(BIN)/python packaging/linux/build_deb.py --bundle $(PACKAGING_BUNDLE) --out dist
	DECISION_JOURNAL_FROZEN=$(PACKAGING_BUNDLE)/decision-journal \
		$(BIN)/python -m pytest -q -p no:cacheprovider -m packaging tests/packaging
	$(BIN)/python packaging/budget.py --bundle $(PACKAGING_BUNDLE) --dist dist
