"""Under a real GTK dark theme (Qt's gtk3 platform theme, Adwaita:dark) on an X server, the
capture window's radio buttons, badges and muted labels stay readable.

Why a separate process: the platform theme is chosen when the QApplication starts, from the
environment (`QT_QPA_PLATFORMTHEME=gtk3 GTK_THEME=Adwaita:dark`), so it cannot be switched
inside the test session. Needs Debian's libgtk-3-0 (Adwaita dark ships inside GTK 3).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.integration.agent_support import start_xvfb, stop
from tests.integration.cli_runner import ROOT

pytestmark = pytest.mark.xvfb


def _probe(env: dict[str, str]) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-m", "tests.integration.palette_probe"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert isinstance(report, dict)
    return report


def test_gtk_dark_theme_keeps_every_control_readable() -> None:
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (make test installs it)")
    xvfb, display = start_xvfb()
    try:
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
        env.update(QT_QPA_PLATFORMTHEME="gtk3", GTK_THEME="Adwaita:dark")
        report = _probe(env)
    finally:
        stop(xvfb)
    if not report["platform_theme_dark"]:
        pytest.skip("the gtk3 platform theme did not load (libgtk-3-0 missing)")
    assert report["window_dark"] is True
    assert report["radio_ring_contrast"] >= 3.0
    badges = report["badge_contrast"]
    assert isinstance(badges, dict)
    assert set(badges) == {"✓ Selected", "Recommended (advice only)"}
    assert all(ratio >= 4.5 for ratio in badges.values()), badges
    assert report["muted_contrast"] >= 4.5
