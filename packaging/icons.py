"""Renders the app icon from its SVG into the raster sets each platform wants.

Why at build time: the SVG in resources/ is the one source of truth. Linux menus want hicolor
PNGs besides the SVG, macOS wants an .icns and Windows an .ico; all are rendered here with Qt's
QSvgRenderer so no image tool has to be installed.

Usage: python packaging/icons.py {hicolor DIR | icns FILE | ico FILE} [--svg SVG]
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parents[1]
APP_SVG = ROOT / "resources" / "icons" / "decision-journal.svg"
ICON_NAME = "decision-journal"
HICOLOR_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 256)
# (ICNS type code, pixel size): the PNG-carrying types macOS reads for 16 to 512@2x.
ICNS_TYPES = (
    (b"icp4", 16),
    (b"ic11", 32),
    (b"icp5", 32),
    (b"ic12", 64),
    (b"ic07", 128),
    (b"ic13", 256),
    (b"ic08", 256),
    (b"ic14", 512),
    (b"ic09", 512),
    (b"ic10", 1024),
)


def render_png(svg: Path, size: int) -> bytes:
    """The SVG drawn into a transparent square of `size` pixels, as PNG bytes."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise OSError(f"{svg}: could not encode a {size}px PNG")
    buffer.close()
    return bytes(data.data())


def write_hicolor(svg: Path, share_icons: Path) -> list[Path]:
    """`hicolor/scalable/apps/<name>.svg` plus `hicolor/NxN/apps/<name>.png` for each size."""
    written = []
    scalable = share_icons / "hicolor" / "scalable" / "apps" / f"{ICON_NAME}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    scalable.write_bytes(svg.read_bytes())
    written.append(scalable)
    for size in HICOLOR_SIZES:
        target = share_icons / "hicolor" / f"{size}x{size}" / "apps" / f"{ICON_NAME}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(render_png(svg, size))
        written.append(target)
    return written


def write_icns(svg: Path, target: Path) -> Path:
    """An .icns of PNG entries (macOS 10.7+ reads PNG payloads for every type used here)."""
    rendered: dict[int, bytes] = {}
    chunks = []
    for code, size in ICNS_TYPES:
        png = rendered.setdefault(size, render_png(svg, size))
        chunks.append(code + struct.pack(">I", len(png) + 8) + png)
    body = b"".join(chunks)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"icns" + struct.pack(">I", len(body) + 8) + body)
    return target


def write_ico(svg: Path, target: Path) -> Path:
    """A Windows .ico whose entries are PNGs (read by Windows Vista and later)."""
    images = [(size, render_png(svg, size)) for size in ICO_SIZES]
    header = struct.pack("<HHH", 0, 1, len(images))
    offset = len(header) + 16 * len(images)
    directory = b""
    for size, png in images:
        side = 0 if size >= 256 else size  # 0 means 256 in an ICO directory entry
        directory += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset)
        offset += len(png)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(header + directory + b"".join(png for _, png in images))
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("hicolor", "icns", "ico"))
    parser.add_argument("target", type=Path)
    parser.add_argument("--svg", type=Path, default=APP_SVG)
    args = parser.parse_args(argv)
    if args.kind == "hicolor":
        for path in write_hicolor(args.svg, args.target):
            print(path)
    else:
        writer = write_icns if args.kind == "icns" else write_ico
        print(writer(args.svg, args.target))
    return 0


if __name__ == "__main__":
    sys.exit(main())
