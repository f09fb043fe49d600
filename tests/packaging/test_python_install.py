"""Installed the way Python developers install tools: `uv tool install .` from a clone and from
a built wheel, and `pipx install` of that wheel, each give a `decision-journal` that runs the
app and carries its resources (the runbook, the icons).

pipx and uv come from PyPI into this test's own virtual environment, so nothing of the
developer's is used; their caches live beside the npm clients' (`DJ_PYTHON_TOOLS_CACHE`) so a
second run downloads nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PYTHON_TOOLS_CACHE_ENV
from tests.packaging.conftest import (
    ROOT,
    project_version,
    run,
    source_copy,
    start_app,
    stop_app,
    unexpected_stderr,
    wait_running,
)

pytestmark = pytest.mark.packaging

TOOLS = ("pipx>=1.7", "uv>=0.5")
WAYS = ("uv tool install .", "uv tool install WHEEL", "pipx install WHEEL")
INSTALL_TIMEOUT = 900


def _tools_env(base: Path, place: str) -> dict[str, str]:
    """The environment of pip, uv and pipx: the shared caches, and tool folders under
    base/place (one per installation, so each stays installed beside the others)."""
    cache = Path(os.environ[PYTHON_TOOLS_CACHE_ENV])
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PIP_", "UV_", "PIPX_", "VIRTUAL_ENV", "PYTHONPATH"))
    }
    env.update(
        PIP_CACHE_DIR=str(cache / "pip"),
        UV_CACHE_DIR=str(cache / "uv"),
        UV_PYTHON_DOWNLOADS="never",  # the interpreter running the tests, never a download
        UV_TOOL_DIR=str(base / place / "tools"),
        UV_TOOL_BIN_DIR=str(base / place / "bin"),
        PIPX_HOME=str(base / place / "tools"),
        PIPX_BIN_DIR=str(base / place / "bin"),
        PIPX_DEFAULT_PYTHON=sys.executable,
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return env


def _run(command: list[str], env: dict[str, str], cwd: Path | None = None) -> str:
    result = subprocess.run(
        command,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, f"{command}: {result.stdout}{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def installs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """The `decision-journal` each installation put on its bin folder, by how it was made."""
    base = tmp_path_factory.mktemp("python-install")
    tools = base / "tools"
    venv.EnvBuilder(with_pip=True).create(tools)
    shared = _tools_env(base, ".")
    _run([str(tools / "bin" / "python"), "-m", "pip", "install", "-q", *TOOLS], shared)
    uv, pipx = str(tools / "bin" / "uv"), str(tools / "bin" / "pipx")
    clone = source_copy(base / "clone")
    python = ["--python", sys.executable]
    _run([uv, "tool", "install", *python, "."], _tools_env(base, "uv-clone"), cwd=clone)
    wheels = base / "wheel"
    _run([uv, "build", "--wheel", "--out-dir", str(wheels), *python, "."], shared, cwd=clone)
    [wheel] = wheels.glob(f"decision_journal-{project_version()}-*.whl")
    _run([uv, "tool", "install", *python, str(wheel)], _tools_env(base, "uv-wheel"))
    _run([pipx, "install", str(wheel)], _tools_env(base, "pipx-wheel"))
    yield {
        way: base / place / "bin" / "decision-journal"
        for way, place in zip(WAYS, ("uv-clone", "uv-wheel", "pipx-wheel"), strict=True)
    }


@pytest.mark.parametrize("way", WAYS)
def test_the_installed_command_runs_the_app_with_its_resources(
    installs: dict[str, Path], way: str, frozen_env: dict[str, str], home: Path
) -> None:
    command = installs[way]
    journal = home / "journal"
    version = run(command, journal, "--version", env=frozen_env)
    assert version.stdout.strip() == f"decision-journal {project_version()}", version.stderr
    entry = run(command, journal, "help", "runbook", "disk-full", env=frozen_env)
    assert entry.returncode == 0, entry.stderr
    assert entry.stdout.startswith("## disk-full\n")
    shipped = _installed_resources(command)
    assert (shipped / "runbook.md").read_bytes() == (ROOT / "resources" / "runbook.md").read_bytes()
    icons = sorted(p.name for p in (ROOT / "resources" / "icons").iterdir())
    assert sorted(p.name for p in (shipped / "icons").iterdir()) == icons
    env = dict(frozen_env, QT_QPA_PLATFORM="offscreen")
    app = start_app(command, journal, env)
    try:
        status = wait_running(command, journal, env)
        assert (status["version"], status["journal"]) == (project_version(), str(journal))
    finally:
        code, err = stop_app(app)
    assert code == 0
    assert unexpected_stderr(err) == []


def _installed_resources(command: Path) -> Path:
    """The resources folder of the environment the command runs in (its script's venv)."""
    interpreter = command.resolve().parent / "python"
    code = "import resources, pathlib; print(pathlib.Path(resources.__file__).parent)"
    folder = subprocess.run(
        [str(interpreter), "-c", code], capture_output=True, text=True, check=True, cwd="/"
    ).stdout.strip()
    assert not folder.startswith(str(ROOT)), folder  # the installed copy, not this checkout
    return Path(folder)


def test_every_way_installs_the_same_files(installs: dict[str, Path]) -> None:
    listings = {way: json.dumps(_files(installs[way])) for way in WAYS}
    assert len(set(listings.values())) == 1, listings


def _files(command: Path) -> list[str]:
    root = _installed_resources(command).parent
    return sorted(
        str(p.relative_to(root))
        for package in ("app", "core", "resources")
        for p in (root / package).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
