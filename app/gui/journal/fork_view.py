"""The decision fork drawn as a tree: the problem is the trunk, each approach a branch.

Why custom painting rather than a list of cards: the shape itself carries the audit story. The
selected branch is the thick highlighted one, a recommendation the user did not follow is
still visibly marked, rejected branches are muted and carry their rejection reason, and a
user-provided "Other" answer grows as its own branch. Every state also has a text marker
("Selected", "Recommended", "Rejected", "Other"), so nothing depends on colour alone, and the
same facts are in the accessible description for screen readers. System themes (a dark GTK
theme, for one) may give lines the colour of the cards and badge text the colour of its fill,
so lines too close to the card are drawn nearer the text colour and badge text is whichever of
the card colour, black or white reads on its fill.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from PySide6.QtCore import QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QHelpEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from app.gui.journal.formatting import display_time
from app.gui.widgets.palette import ForkColors, contrast_ratio, fork_colors, readable_on
from core.gocompat.text import go_trim
from core.record.controls import visible_controls
from core.record.models import DecisionRecord

CUSTOM_KEY = "__custom__"
SELECTED_TEXT = "✓ Selected"
RECOMMENDED_TEXT = "★ Recommended"
OTHER_TEXT = "Other · user-provided"
NO_REASON = "no reason recorded"
_WRAP = int(Qt.TextFlag.TextWordWrap)
LINE_CONTRAST = 1.8
"""A line or border at least this far from the card colour is visible; closer ones are mixed
with the text colour until they are."""


def _visible(colour: QColor, background: QColor, text: QColor) -> QColor:
    """`colour`, or a mix towards `text` that stands out from `background`."""
    mixed = QColor(colour)
    for step in range(1, 6):
        if contrast_ratio(mixed, background) >= LINE_CONTRAST:
            return mixed
        share = step / 6
        mixed = QColor.fromRgbF(
            colour.redF() * (1 - share) + text.redF() * share,
            colour.greenF() * (1 - share) + text.greenF() * share,
            colour.blueF() * (1 - share) + text.blueF() * share,
        )
    return mixed


def legible_colors(colors: ForkColors) -> ForkColors:
    """The palette's fork colours with trunk, borders and rejected lines kept visible."""
    return replace(
        colors,
        trunk=_visible(colors.trunk, colors.card, colors.text),
        card_border=_visible(colors.card_border, colors.card, colors.text),
        rejected=_visible(colors.rejected, colors.card, colors.text),
    )


class BranchState(Enum):
    SELECTED = "selected"
    REJECTED = "rejected"
    UNCHOSEN = "unchosen"  # an old record without a rejection entry for this option


@dataclass(frozen=True, slots=True)
class Branch:
    """One approach as drawn; `reason` is the rejection reason of a rejected branch."""

    key: str
    label: str
    description: str
    state: BranchState
    recommended: bool = False
    custom: bool = False
    reason: str = ""

    def caption(self) -> str:
        """The branch in one line of words, for tooltips and the accessible description."""
        marks = []
        if self.state is BranchState.SELECTED:
            marks.append("selected")
        if self.recommended:
            marks.append("recommended")
        if self.custom:
            marks.append("other, user-provided")
        text = self.label + (f" ({', '.join(marks)})" if marks else "")
        if self.state is BranchState.REJECTED:
            text += f"; rejected because {self.reason or NO_REASON}"
        return text


@dataclass(frozen=True, slots=True)
class ForkTree:
    problem: str
    branches: tuple[Branch, ...]
    deleted: bool = False
    deleted_note: str = ""

    def branch(self, key: str) -> Branch:
        return next(b for b in self.branches if b.key == key)


def fork_tree(record: DecisionRecord) -> ForkTree:
    """The branches of a record in stored option order, plus a custom "Other" branch."""
    reasons = {r.option_id: go_trim(r.reason) for r in record.rejected_reasons}
    custom = go_trim(record.custom_selection)
    branches = []
    for option in record.options:
        recommended = option.recommended or option.id == record.recommended_option_id
        if not custom and option.id == record.selected_option_id:
            state = BranchState.SELECTED
        elif option.id in reasons:
            state = BranchState.REJECTED
        else:
            state = BranchState.UNCHOSEN
        branches.append(
            Branch(
                key=option.id,
                label=visible_controls(option.label or option.id),
                description=visible_controls(option.description),
                state=state,
                recommended=bool(recommended and option.id),
                reason=visible_controls(reasons.get(option.id, "")),
            )
        )
    if custom:
        branches.append(
            Branch(
                key=CUSTOM_KEY,
                label=visible_controls(custom),
                description="User-provided alternative",
                state=BranchState.SELECTED,
                custom=True,
            )
        )
    note = ""
    if record.is_deleted:
        when = display_time(record.deleted_at) if record.deleted_at else ""
        note = f"Soft-deleted{f' on {when}' if when else ''}; restore it to include it again."
    return ForkTree(visible_controls(record.problem), tuple(branches), record.is_deleted, note)


@dataclass(frozen=True, slots=True)
class _Placed:
    branch: Branch
    card: QRectF
    junction: QPointF


class _Layout:
    """Geometry for one width: computed once per width and tree, reused by every paint."""

    def __init__(self, tree: ForkTree, width: int, font: QFont) -> None:
        self.bold = QFont(font)
        self.bold.setBold(True)
        self.small = QFont(font)
        if font.pointSizeF() > 0:
            self.small.setPointSizeF(font.pointSizeF() * 0.9)
        metrics = QFontMetrics(font)
        self.unit = metrics.height()
        pad = self.unit
        y = float(pad)
        self.banner = QRectF()
        if tree.deleted:
            height = self._text_height(tree.deleted_note, width - 3 * pad, self.bold) + pad
            self.banner = QRectF(pad, y, width - 2 * pad, height)
            y += height + pad / 2
        problem_height = self._text_height(tree.problem, width - 4 * pad, self.bold)
        self.problem = QRectF(pad, y, width - 2 * pad, problem_height + 2.2 * pad)
        y = self.problem.bottom() + pad
        self.trunk_x = pad + 1.5 * pad
        card_left = self.trunk_x + 2.2 * pad
        card_width = max(4 * pad, width - card_left - pad)
        self.placed: list[_Placed] = []
        for branch in tree.branches:
            height = self._card_height(branch, card_width - 2 * pad)
            card = QRectF(card_left, y, card_width, height)
            self.placed.append(_Placed(branch, card, QPointF(self.trunk_x, card.center().y())))
            y = card.bottom() + 0.7 * pad
        self.height = int(y + pad / 2)

    def _text_height(self, text: str, width: float, font: QFont) -> float:
        rect = QFontMetrics(font).boundingRect(
            QRect(0, 0, max(1, int(width)), 100_000), _WRAP, text
        )
        return float(rect.height())

    def _card_height(self, branch: Branch, inner: float) -> float:
        chips = self.unit * 1.4
        height = self.unit * 0.6 + chips + self._text_height(branch.label, inner, self.bold)
        if branch.description:
            height += self.unit * 0.2 + self._text_height(branch.description, inner, self.small)
        if branch.state is BranchState.REJECTED:
            height += self.unit * 0.3 + self._text_height(_reason(branch), inner, self.small)
        return height + self.unit * 0.7


def _wrapped_rect(text: str, width: float, font: QFont) -> QRect:
    return QFontMetrics(font).boundingRect(QRect(0, 0, max(1, int(width)), 100_000), _WRAP, text)


def _draw_wrapped(
    painter: QPainter, origin: QPointF, width: float, text: str, font: QFont
) -> float:
    """Draws word-wrapped text from `origin`; returns the y just below it."""
    height = _wrapped_rect(text, width, font).height()
    painter.drawText(QRectF(origin.x(), origin.y(), width, height), _WRAP, text)
    return origin.y() + height


def _line_colour(branch: Branch, colors: ForkColors) -> QColor:
    if branch.custom:
        return colors.custom
    return colors.selected if branch.state is BranchState.SELECTED else colors.rejected


def _reason(branch: Branch) -> str:
    return f"✕ Rejected: {branch.reason or NO_REASON}"


class ForkView(QWidget):
    """Paints one record's fork; `show_record(None)` shows a hint instead."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tree: ForkTree | None = None
        self._layout: _Layout | None = None
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setAccessibleName("Decision fork")
        self.setObjectName("fork-view")

    @property
    def tree(self) -> ForkTree | None:
        return self._tree

    def show_record(self, record: DecisionRecord | None) -> None:
        self._tree = fork_tree(record) if record is not None else None
        self._layout = None
        description = "No decision selected"
        if self._tree is not None:
            parts = [f"Problem: {self._tree.problem}"]
            parts += [f"Branch: {b.caption()}" for b in self._tree.branches]
            if self._tree.deleted:
                parts.insert(0, self._tree.deleted_note)
            description = ". ".join(parts)
        self.setAccessibleDescription(description)
        self.updateGeometry()
        self.update()

    def branch_rect(self, key: str) -> QRect:
        """Where a branch's card is drawn (tests and tooltips use it)."""
        layout = self._current_layout()
        for placed in layout.placed if layout else []:
            if placed.branch.key == key:
                return placed.card.toAlignedRect()
        return QRect()

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        if self._tree is None:
            return self.fontMetrics().height() * 4
        return _Layout(self._tree, width, self.font()).height

    def sizeHint(self) -> QSize:
        width = self.fontMetrics().averageCharWidth() * 60
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(self.fontMetrics().averageCharWidth() * 30, self.fontMetrics().height() * 4)

    def resizeEvent(self, event: object) -> None:
        self._layout = None

    def event(self, event: object) -> bool:
        if isinstance(event, QHelpEvent) and event.type() == QHelpEvent.Type.ToolTip:
            layout = self._current_layout()
            for placed in layout.placed if layout else []:
                if placed.card.contains(QPointF(event.pos())):
                    QToolTip.showText(event.globalPos(), placed.branch.caption(), self)
                    return True
            QToolTip.hideText()
            return True
        return super().event(event)  # type: ignore[arg-type]

    def _current_layout(self) -> _Layout | None:
        if self._tree is None:
            return None
        if self._layout is None:
            self._layout = _Layout(self._tree, self.width(), self.font())
        return self._layout

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        colors = legible_colors(fork_colors(self.palette()))
        layout = self._current_layout()
        if layout is None or self._tree is None:
            painter.setPen(colors.rejected_text)
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "Select a decision")
            painter.end()
            return
        if self._tree.deleted:
            self._paint_banner(painter, layout, colors)
            painter.setOpacity(0.6)
        self._paint_problem(painter, layout, colors)
        self._paint_trunk(painter, layout, colors)
        for placed in layout.placed:
            self._paint_branch(painter, layout, placed, colors)
        painter.end()

    def _paint_banner(self, painter: QPainter, layout: _Layout, colors: ForkColors) -> None:
        fill = QColor(colors.deleted)
        fill.setAlpha(36)
        painter.setPen(QPen(colors.deleted, 1.5))
        painter.setBrush(fill)
        painter.drawRoundedRect(layout.banner, 6, 6)
        painter.setPen(colors.deleted)
        painter.setFont(layout.bold)
        inner = layout.banner.adjusted(layout.unit, layout.unit / 2, -layout.unit, 0)
        painter.drawText(inner, _WRAP, self._tree.deleted_note if self._tree else "")

    def _paint_problem(self, painter: QPainter, layout: _Layout, colors: ForkColors) -> None:
        painter.setPen(QPen(colors.trunk, 2))
        painter.setBrush(colors.card)
        painter.drawRoundedRect(layout.problem, 8, 8)
        pad = layout.unit
        painter.setFont(layout.small)
        painter.setPen(colors.rejected_text)
        caption = layout.problem.adjusted(pad, pad * 0.4, -pad, 0)
        painter.drawText(caption, int(Qt.AlignmentFlag.AlignLeft), "PROBLEM")
        painter.setFont(layout.bold)
        painter.setPen(colors.text)
        body = layout.problem.adjusted(pad, pad * 1.4, -pad, -pad * 0.4)
        painter.drawText(body, _WRAP, self._tree.problem if self._tree else "")

    def _paint_trunk(self, painter: QPainter, layout: _Layout, colors: ForkColors) -> None:
        if not layout.placed:
            return
        top = QPointF(layout.trunk_x, layout.problem.bottom())
        bottom = layout.placed[-1].junction
        painter.setPen(QPen(colors.trunk, 4, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        painter.drawLine(top, bottom)

    def _paint_branch(
        self, painter: QPainter, layout: _Layout, placed: _Placed, colors: ForkColors
    ) -> None:
        branch, card = placed.branch, placed.card
        selected = branch.state is BranchState.SELECTED
        line = _line_colour(branch, colors)
        path = QPainterPath(placed.junction)
        end = QPointF(card.left(), card.center().y())
        path.cubicTo(
            QPointF(placed.junction.x() + layout.unit, placed.junction.y()),
            QPointF(end.x() - layout.unit, end.y()),
            end,
        )
        style = Qt.PenStyle.SolidLine if selected else Qt.PenStyle.DashLine
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(line, 3.5 if selected else 1.5, style, Qt.PenCapStyle.RoundCap))
        painter.drawPath(path)
        radius = layout.unit * (0.38 if selected else 0.28)
        painter.setPen(QPen(line, 1.5))
        painter.setBrush(line if selected else colors.card)
        painter.drawEllipse(placed.junction, radius, radius)
        self._paint_card(painter, layout, placed, colors)

    def _paint_card(
        self,
        painter: QPainter,
        layout: _Layout,
        placed: _Placed,
        colors: ForkColors,
    ) -> None:
        branch, card = placed.branch, placed.card
        line = _line_colour(branch, colors)
        selected = branch.state is BranchState.SELECTED
        if selected:
            fill = QColor(line)
            fill.setAlpha(colors.selected_fill.alpha())
            border = QPen(line, 2.5)
        elif branch.recommended:
            fill, border = colors.card, QPen(colors.recommended, 2, Qt.PenStyle.DashLine)
        else:
            fill, border = colors.card, QPen(colors.card_border, 1)
        painter.setPen(border)
        painter.setBrush(fill)
        painter.drawRoundedRect(card, 7, 7)
        if selected:
            bar = QRectF(card.left() + 1.5, card.top() + 6, 4, card.height() - 12)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(line)
            painter.drawRoundedRect(bar, 2, 2)
        pad = layout.unit
        x = card.left() + pad
        y = card.top() + pad * 0.5
        y = self._paint_chips(painter, layout, branch, colors, QPointF(x, y))
        inner = card.width() - 2 * pad
        muted = not selected
        painter.setFont(layout.bold)
        painter.setPen(colors.rejected_text if muted and not branch.recommended else colors.text)
        y = _draw_wrapped(painter, QPointF(x, y), inner, branch.label, layout.bold)
        if branch.description:
            painter.setFont(layout.small)
            painter.setPen(colors.rejected_text)
            y = _draw_wrapped(
                painter, QPointF(x, y + pad * 0.2), inner, branch.description, layout.small
            )
        if branch.state is BranchState.REJECTED:
            font = QFont(layout.small)
            font.setItalic(True)
            painter.setFont(font)
            painter.setPen(colors.rejected_text)
            _draw_wrapped(painter, QPointF(x, y + pad * 0.3), inner, _reason(branch), font)

    def _paint_chips(
        self,
        painter: QPainter,
        layout: _Layout,
        branch: Branch,
        colors: ForkColors,
        origin: QPointF,
    ) -> float:
        line = _line_colour(branch, colors)
        chips: list[tuple[str, QColor, bool]] = []
        if branch.state is BranchState.SELECTED:
            chips.append((SELECTED_TEXT, line, True))
        if branch.recommended:
            chips.append((RECOMMENDED_TEXT, colors.recommended, False))
        if branch.custom:
            chips.append((OTHER_TEXT, colors.custom, False))
        if branch.state is BranchState.REJECTED:
            chips.append(("Rejected", colors.rejected_text, False))
        elif branch.state is BranchState.UNCHOSEN:
            chips.append(("Not chosen", colors.rejected_text, False))
        painter.setFont(layout.small)
        metrics = QFontMetrics(layout.small)
        x = origin.x()
        height = layout.unit * 1.15
        for text, colour, solid in chips:
            width = metrics.horizontalAdvance(text) + layout.unit
            rect = QRectF(x, origin.y(), width, height)
            painter.setPen(QPen(colour, 1.2))
            painter.setBrush(colour if solid else Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect, height / 2, height / 2)
            painter.setPen(readable_on(colour, colors.card) if solid else colour)
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)
            x += width + layout.unit * 0.4
        return origin.y() + layout.unit * 1.4
