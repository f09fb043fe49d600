"""Icons and other data files shipped with the app."""

from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parent
ICONS_DIR = RESOURCES_DIR / "icons"
