"""tests/core must pass where Qt cannot be imported: the core is pure Python.

`make test` runs this folder with DJ_FORBID_QT=1, which makes any import of PySide6,
shiboken6 or the adapters fail, as on a machine without Qt.
"""

from __future__ import annotations

import importlib.abc
import os
import sys

_FORBIDDEN = ("PySide6", "shiboken6", "app")


class _ForbidQt(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: object, target: object = None) -> None:
        if fullname.split(".", maxsplit=1)[0] in _FORBIDDEN:
            raise ImportError(f"{fullname} must not be imported by core or its tests")


if os.environ.get("DJ_FORBID_QT") == "1":
    sys.meta_path.insert(0, _ForbidQt())
