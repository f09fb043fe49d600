"""The real agent clients, installed from npm into a cache outside the repository.

Why a cache: the three clients are about 300 MB together; CI and every developer reuse one
install per pinned version between runs (`DJ_CLIENTS_CACHE`, default
`~/.cache/decision-journal-test-clients`). Node and npm come from Debian's packages when
missing (`make test` installs them). A version can be overridden for one run, e.g.
`DJ_CLAUDE_CODE_VERSION=2.1.197`, to try an older or newer release than the pinned one.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True, slots=True)
class NpmClient:
    """One agent CLI published on npm: its package, pinned version and executable name."""

    package: str
    version: str
    executable: str
    version_env: str

    @property
    def wanted_version(self) -> str:
        return os.environ.get(self.version_env) or self.version


CLAUDE_CODE = NpmClient("@anthropic-ai/claude-code", "2.1.332", "claude", "DJ_CLAUDE_CODE_VERSION")
CODEX = NpmClient("@openai/codex", "0.171.0", "codex", "DJ_CODEX_VERSION")
GEMINI = NpmClient("@google/gemini-cli", "0.61.0", "gemini", "DJ_GEMINI_VERSION")
COPILOT = NpmClient("@github/copilot", "1.0.102", "copilot", "DJ_COPILOT_VERSION")
QWEN = NpmClient("@qwen-code/qwen-code", "0.24.4", "qwen", "DJ_QWEN_VERSION")
OPENCODE = NpmClient("opencode-ai", "1.18.33", "opencode", "DJ_OPENCODE_VERSION")
"""opencode's package brings its native binary as an optional dependency of the platform."""
LOG4BRAINS = NpmClient("log4brains", "1.1.0", "log4brains", "DJ_LOG4BRAINS_VERSION")
"""Not an agent: the ADR site generator, a real reader of our MADR export."""
INSTALL_TIMEOUT = 900.0


def cache_root() -> Path:
    default = Path.home() / ".cache" / "decision-journal-test-clients"
    return Path(os.environ.get("DJ_CLIENTS_CACHE") or default)


def install(client: NpmClient) -> Path:
    """The client's executable, installing the wanted version into the cache first if needed.

    Skips the test (with the reason) where Node or npm is missing; an install that fails is a
    test error, not a skip, since `make test` installs Node and the registry is reachable.
    """
    prefix = _ensure(client.package, client.wanted_version, client.executable)
    return prefix / "node_modules" / ".bin" / client.executable


def package_dir(package: str, version: str) -> Path:
    """The folder of an npm package with no executable (e.g. `madr`, for its real ADR files),
    installed into the same cache."""
    return _ensure(package, version) / "node_modules" / package


def _ensure(package: str, version: str, executable: str = "") -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed (make test installs them)")
    prefix = cache_root() / f"{package.replace('/', '+')}@{version}"
    wanted = prefix / "node_modules" / (Path(".bin") / executable if executable else package)
    done = prefix / ".installed"
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix / ".lock", "w") as lock:  # parallel test processes install once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (done.exists() and wanted.exists()):
            result = subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix",
                 str(prefix), f"{package}@{version}"],
                capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
            )  # fmt: skip
            if result.returncode != 0 or not wanted.exists():
                raise RuntimeError(
                    f"npm install {package}@{version} failed:\n{result.stderr[-4000:]}"
                )
            done.write_text(version + "\n")
    return prefix
