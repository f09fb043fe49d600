"""Light and dark palettes for the journal window, following the system colour scheme.

Why explicit palettes: Qt reports the desktop's scheme through `QStyleHints.colorScheme()`, but
several platform/style combinations (Fusion on X11, the offscreen platform) keep a light
palette even when the desktop is dark. The window therefore asks the style hints, keeps the
system palette when it already matches, and otherwise installs one of the two palettes below.
The fork view's branch colours come from `ForkColors`, chosen so that selected, recommended
and rejected stay distinguishable in both schemes and never by colour alone (the view also
draws markers and text).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QWidget

Role = QPalette.ColorRole
Group = QPalette.ColorGroup

_LIGHT = {
    Role.Window: "#f4f5f7",
    Role.WindowText: "#1d2129",
    Role.Base: "#ffffff",
    Role.AlternateBase: "#eef0f3",
    Role.ToolTipBase: "#ffffff",
    Role.ToolTipText: "#1d2129",
    Role.PlaceholderText: "#6b7280",
    Role.Text: "#1d2129",
    Role.Button: "#eceef1",
    Role.ButtonText: "#1d2129",
    Role.BrightText: "#b42318",
    Role.Light: "#ffffff",
    Role.Midlight: "#e3e6ea",
    Role.Mid: "#c4c9d0",
    Role.Dark: "#8a919c",
    Role.Shadow: "#5b6270",
    Role.Highlight: "#2f6fde",
    Role.HighlightedText: "#ffffff",
    Role.Link: "#1f5fbf",
    Role.LinkVisited: "#6941c6",
    Role.Accent: "#2f6fde",
}
_DARK = {
    Role.Window: "#2b2f36",
    Role.WindowText: "#e6e8eb",
    Role.Base: "#1f2228",
    Role.AlternateBase: "#252930",
    Role.ToolTipBase: "#2a2e36",
    Role.ToolTipText: "#e6e8eb",
    Role.PlaceholderText: "#9199a5",
    Role.Text: "#e6e8eb",
    Role.Button: "#363b45",
    Role.ButtonText: "#e6e8eb",
    Role.BrightText: "#ff8a80",
    Role.Light: "#4a505c",
    Role.Midlight: "#3b414b",
    Role.Mid: "#5a616d",
    Role.Dark: "#15171b",
    Role.Shadow: "#000000",
    Role.Highlight: "#4c8dff",
    Role.HighlightedText: "#ffffff",
    Role.Link: "#7fb0ff",
    Role.LinkVisited: "#b69cff",
    Role.Accent: "#4c8dff",
}
_DISABLED_TEXT = {False: "#9aa1ab", True: "#6b7280"}


@dataclass(frozen=True, slots=True)
class ForkColors:
    """Colours of the drawn fork tree; each branch state also has a non-colour marker."""

    trunk: QColor
    selected: QColor
    selected_fill: QColor
    recommended: QColor
    rejected: QColor
    rejected_text: QColor
    custom: QColor
    deleted: QColor
    card: QColor
    card_border: QColor
    text: QColor


def is_dark(palette: QPalette) -> bool:
    """A palette is dark when its window colour is darker than its text."""
    return palette.color(Role.Window).lightness() < palette.color(Role.WindowText).lightness()


def system_scheme() -> Qt.ColorScheme:
    """The desktop's scheme as Qt reports it; Unknown when the platform does not say."""
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() if hints is not None else Qt.ColorScheme.Unknown


def build_palette(dark: bool) -> QPalette:
    """One of the two palettes, with disabled text dimmed so disabled controls read as such."""
    palette = QPalette()
    for role, colour in (_DARK if dark else _LIGHT).items():
        palette.setColor(role, QColor(colour))
    for role in (Role.WindowText, Role.Text, Role.ButtonText):
        palette.setColor(Group.Disabled, role, QColor(_DISABLED_TEXT[dark]))
    return palette


def palette_for(scheme: Qt.ColorScheme, current: QPalette) -> QPalette | None:
    """The palette to install for `scheme`, or None when `current` already matches it.

    Why None: a desktop whose style already supplies a matching palette (KDE, macOS) keeps
    its own colours; only a mismatch (a dark desktop with a light Fusion palette) is fixed.
    """
    if scheme == Qt.ColorScheme.Unknown:
        return None
    wants_dark = scheme == Qt.ColorScheme.Dark
    if is_dark(current) == wants_dark:
        return None
    return build_palette(wants_dark)


def apply_scheme(widget: QWidget, scheme: Qt.ColorScheme | None = None) -> bool:
    """Installs the palette for `scheme` (default: the system's) on a top-level widget.

    Returns whether the widget now uses a dark palette. Child dialogs inherit it when they set
    `Qt.WA_WindowPropagation` (see `adopt`).
    """
    wanted = system_scheme() if scheme is None else scheme
    base = QGuiApplication.palette()
    replacement = palette_for(wanted, base)
    widget.setPalette(readable(replacement if replacement is not None else base))
    return is_dark(widget.palette())


def adopt(window: QWidget) -> None:
    """Lets a dialog inherit its parent window's palette and font, as child widgets do."""
    window.setAttribute(Qt.WidgetAttribute.WA_WindowPropagation, True)
    parent = window.parentWidget()
    if parent is not None:
        window.setPalette(parent.palette())


def warning_colour(palette: QPalette) -> QColor:
    """Amber text that stays readable on both window colours (warnings also carry words)."""
    return QColor("#f0b429" if is_dark(palette) else "#92400e")


def fork_colors(palette: QPalette) -> ForkColors:
    """Branch colours derived from the palette, with amber and rose fixed per scheme."""
    dark = is_dark(palette)
    accent = palette.color(Role.Highlight)
    fill = QColor(accent)
    fill.setAlpha(48 if dark else 28)
    return ForkColors(
        trunk=palette.color(Role.Dark if not dark else Role.Mid),
        selected=accent,
        selected_fill=fill,
        recommended=QColor("#f0b429" if dark else "#b7791f"),
        rejected=palette.color(Role.Mid),
        rejected_text=palette.color(Role.PlaceholderText),
        custom=QColor("#2dd4bf" if dark else "#0f766e"),
        deleted=QColor("#fb7185" if dark else "#be123c"),
        card=palette.color(Role.Base),
        card_border=palette.color(Role.Mid),
        text=palette.color(Role.Text),
    )


def contrast_ratio(first: QColor, second: QColor) -> float:
    """WCAG contrast ratio of two colours, from 1 (same) to 21 (black on white)."""

    def luminance(colour: QColor) -> float:
        def channel(value: float) -> float:
            return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

        red, green, blue = (channel(c) for c in (colour.redF(), colour.greenF(), colour.blueF()))
        return 0.2126 * red + 0.7152 * green + 0.0722 * blue

    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


READABLE_CONTRAST = 4.5
"""WCAG AA for normal text: what badge text on its fill must reach."""
MARK_CONTRAST = 3.0
"""WCAG AA for graphical objects: what an indicator's mark must reach on its fill."""


def readable_on(fill: QColor, preferred: QColor, minimum: float = READABLE_CONTRAST) -> QColor:
    """`preferred` when it is readable on `fill`, else black or white, whichever reads better.

    `minimum` is the contrast `preferred` must reach: text needs 4.5, a mark such as a radio
    button's dot needs 3 (WCAG's figure for graphical objects).

    Why: system themes pair highlight and highlighted-text colours that are not always
    readable at badge size (some dark GTK themes put dark text on a mid blue).
    """
    if contrast_ratio(fill, preferred) >= minimum:
        return preferred
    black, white = QColor("#000000"), QColor("#ffffff")
    return black if contrast_ratio(fill, black) >= contrast_ratio(fill, white) else white


def mix(first: QColor, second: QColor, amount: float) -> QColor:
    """`first` moved `amount` (0 to 1) of the way towards `second`, channel by channel."""
    return QColor.fromRgbF(
        first.redF() + (second.redF() - first.redF()) * amount,
        first.greenF() + (second.greenF() - first.greenF()) * amount,
        first.blueF() + (second.blueF() - first.blueF()) * amount,
    )


def over(colour: QColor, background: QColor) -> QColor:
    """`colour` as it shows when painted on `background` (its transparency resolved)."""
    return mix(background, QColor(colour.red(), colour.green(), colour.blue()), colour.alphaF())


def readable_muted(palette: QPalette) -> QColor:
    """The palette's muted text colour, moved towards the text colour just far enough to be
    readable (4.5:1) on both the window and the field background."""
    backgrounds = (palette.color(Role.Window), palette.color(Role.Base))
    muted = over(palette.color(Role.PlaceholderText), backgrounds[0])
    text = palette.color(Role.WindowText)
    for step in range(11):
        candidate = mix(muted, text, step / 10)
        if all(contrast_ratio(candidate, b) >= READABLE_CONTRAST for b in backgrounds):
            return candidate
    return text


def focus_colour(palette: QPalette) -> QColor:
    """The highlight colour, moved towards the text colour until it stands out 3:1 from the
    window, so a focus ring is seen even where a theme's highlight is dark (Adwaita dark)."""
    highlight = palette.color(Role.Highlight)
    text = palette.color(Role.WindowText)
    window = palette.color(Role.Window)
    for step in range(11):
        candidate = mix(highlight, text, step / 10)
        if contrast_ratio(candidate, window) >= MARK_CONTRAST:
            return candidate
    return text


def readable(palette: QPalette) -> QPalette:
    """A copy whose muted text is readable; every other colour is the palette's own.

    Why: labels such as "Project:" use the muted (placeholder) colour, and several palettes,
    GTK's Adwaita dark among them, pick one below WCAG AA on their own window colour.
    """
    result = QPalette(palette)
    for group in (Group.Active, Group.Inactive):
        result.setColor(group, Role.PlaceholderText, readable_muted(result))
    return result


def selection_tint(palette: QPalette) -> QColor:
    """The highlight colour thinned for a chosen card's background, in both schemes."""
    tint = QColor(palette.color(Role.Highlight))
    tint.setAlpha(56 if is_dark(palette) else 32)
    return tint
