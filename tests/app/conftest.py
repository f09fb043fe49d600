"""Qt tests run headless: the platform plugin is chosen before any QApplication exists."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
