"""tests/core must pass where Qt cannot be imported: the core is pure Python.

`make test` runs this folder with DJ_FORBID_QT=1, which makes any import of PySide6,
shiboken6 or the adapters fail, as on a machine without Qt.
"""

from __future__ import annotations

import importlib.abc
import os
import sys

import pytest

_FORBIDDEN = ("PySide6", "shiboken6", "app")


class _ForbidQt(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: object, target: object = None) -> None:
        if fullname.split(".", maxsplit=1)[0] in _FORBIDDEN:
            raise ImportError(f"{fullname} must not be imported by core or its tests")


if os.environ.get("DJ_FORBID_QT") == "1":
    sys.meta_path.insert(0, _ForbidQt())


@pytest.fixture(autouse=True)
def _private_home_is_active(request: pytest.FixtureRequest) -> None:
    """Every core test runs in the private home of `tests/conftest.py`, never the real one.

    Run with `-c tests/core/qt-free.ini`, pytest stops looking for conftest files at that
    file's folder unless `--confcutdir .` says otherwise; then no test would get a private
    HOME, and git, keyring or config code under test would write into the real one.
    """
    if "private_home" not in request.fixturenames:
        pytest.fail(
            "tests/conftest.py is not loaded, so this test would use the real HOME: "
            "run with --confcutdir . (see CONTRIBUTING.md)",
            pytrace=False,
        )
