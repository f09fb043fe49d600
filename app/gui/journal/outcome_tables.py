"""The profile panel's outcome figures: acceptance of recommendations per kind, rule scores.

Why plain read-only tables: the figures are derived (from the records and the outcome log)
and never edited here; the window computes them in a worker and hands over finished rows.
Each table is a page of the panel's lower tabs, names its statistics in plain words (the
technical name and its meaning are in the header's tooltip), right-aligns every number, names
a rule exactly as the rules table above does, and says what to do when it is empty.
"""

from __future__ import annotations

from typing import cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.gui.journal.formatting import percent
from core.outcomes.reward import ELO_BASE
from core.outcomes.rule_scores import RuleOutcome
from core.outcomes.verdict import KindAcceptance

ACCEPTANCE_TITLE = "How often you accept the agents' recommendations"
ACCEPTANCE_HEADERS = ("Decision kind", "Accepted", "Amended", "Redirected", "Accept rate")
ACCEPTANCE_TIPS = (
    "The kind of decision the agent asked about",
    "You chose the option the agent recommended",
    "You chose the recommendation and changed or added to it",
    "You chose a different option than the agent recommended",
    "Accepted decisions as a share of all decisions of this kind with a recommendation",
)
RULE_TITLE = "How following each rule turned out (from reported CI, acceptance and eval signals)"
RULE_HEADERS = (
    "Rule",
    "Preferred approach",
    "Supporting",
    "With reports",
    "Success estimate",
    "Rating",
)
RULE_TIPS = (
    "The rule's short name, as in the rules table above",
    "What the rule prefers",
    "Decisions that support the rule",
    "Supporting decisions for which a tool reported an outcome",
    "Beta mean: the estimated chance that following the rule turns out well, from the "
    "reported outcomes (recent reports count more); 0.50 until something is reported",
    f"Elo rating: starts at {ELO_BASE:,.0f}, rises with good outcomes and falls with bad "
    "ones; compare rules with it",
)
NO_FIGURES = "No decisions with a recommendation yet."
NO_RULE_FIGURES = (
    "No rules yet. Outcomes appear here once the profile has rules and agents report CI, "
    "acceptance or eval results (MCP report_outcome)."
)
COUNTING = "Counting decisions…"
_NUMBER = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def paint_hint(view: QAbstractScrollArea, text: str, empty: bool) -> None:
    """Writes `text` in the middle of an empty view's viewport, in the placeholder colour."""
    if not empty or not text:
        return
    painter = QPainter(view.viewport())
    painter.setPen(view.palette().color(QPalette.ColorRole.PlaceholderText))
    area = view.viewport().rect().adjusted(12, 12, -12, -12)
    flags = int(Qt.AlignmentFlag.AlignCenter) | int(Qt.TextFlag.TextWordWrap)
    painter.drawText(area, flags, text)
    painter.end()


class HintedView:
    """Mixed into an item view (first base): while its model is empty it shows `hint`."""

    hint = ""

    def paintEvent(self, event: QPaintEvent) -> None:
        view = cast(QAbstractItemView, self)
        super().paintEvent(event)  # type: ignore[misc]
        model = view.model()
        paint_hint(view, self.hint, model is None or model.rowCount() == 0)


class HintTable(HintedView, QTableWidget):
    """A read-only table that says what to do while it has no rows."""

    def __init__(
        self, name: str, headers: tuple[str, ...], tips: tuple[str, ...], parent: QWidget
    ) -> None:
        super().__init__(0, len(headers), parent)
        self.hint = ""
        self.numeric: set[int] = set()
        self.setObjectName(name)
        for column, (title, tip) in enumerate(zip(headers, tips, strict=True)):
            item = QTableWidgetItem(title)
            item.setToolTip(tip)
            if column:
                item.setTextAlignment(_NUMBER)
            self.setHorizontalHeaderItem(column, item)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.verticalHeader().hide()
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)

    def fill(self, rows: list[list[str]], tips: list[str] | None = None) -> None:
        """Replaces the rows; numeric columns are right-aligned; `tips` go on column 0."""
        self.setRowCount(len(rows))
        for row, values in enumerate(rows):
            for column, value in enumerate(values):
                item = QTableWidgetItem(value)
                if column in self.numeric:
                    item.setTextAlignment(_NUMBER)
                if column == 0 and tips:
                    item.setToolTip(tips[row])
                self.setItem(row, column, item)
        self.viewport().update()


def _page(parent: QWidget, title: str, *widgets: QWidget) -> QWidget:
    page = QWidget(parent)
    layout = QVBoxLayout(page)
    layout.setContentsMargins(4, 4, 4, 4)
    caption = QLabel(title, page)
    caption.setWordWrap(True)
    caption.setBuddy(widgets[-1])
    layout.addWidget(caption)
    for widget in widgets:
        layout.addWidget(widget, 1 if widget is widgets[-1] else 0)
    return page


class OutcomeTables(QWidget):
    """Two pages for the panel's tabs; `set_acceptance` and `set_rule_outcomes` fill them.

    Signals:
        rule_activated(str): a rule outcome row was opened (the panel selects that rule).
    """

    rule_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outcome-tables")
        self._names: dict[str, tuple[str, str]] = {}
        self._rule_ids: list[str] = []
        self.acceptance = HintTable("acceptance-table", ACCEPTANCE_HEADERS, ACCEPTANCE_TIPS, self)
        self.acceptance.numeric = {1, 2, 3, 4}
        self.acceptance.setAccessibleName(ACCEPTANCE_TITLE)
        self.rules = HintTable("rule-outcomes-table", RULE_HEADERS, RULE_TIPS, self)
        self.rules.numeric = {2, 3, 4, 5}
        self.rules.hint = NO_RULE_FIGURES
        self.rules.setAccessibleName(RULE_TITLE)
        self.rules.cellActivated.connect(self._activated)
        self.rules.cellDoubleClicked.connect(self._activated)
        self.message = QLabel(COUNTING, self)
        self.message.setObjectName("acceptance-message")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.acceptance_page = _page(self, ACCEPTANCE_TITLE, self.message, self.acceptance)
        self.rules_page = _page(self, RULE_TITLE, self.rules)
        self.hide()  # the pages live in the panel's tabs; this widget only owns them

    def set_rule_names(self, names: dict[str, tuple[str, str]]) -> None:
        """{rule id: (short name, preferred approach)} in the rules table's order."""
        self._names = dict(names)

    def show_counting(self) -> None:
        """Until the first figures arrive, say they are being counted: on a large journal that
        takes seconds, and "no decisions" meanwhile would be wrong."""
        if self.acceptance.rowCount() == 0:
            self.message.setText(COUNTING)
            self.message.show()

    def set_acceptance(self, rows: list[KindAcceptance]) -> None:
        self.acceptance.fill(
            [
                [
                    row.decision_kind or "(no kind)",
                    f"{row.accept:,}",
                    f"{row.amend:,}",
                    f"{row.redirect:,}",
                    percent(row.accept_rate),
                ]
                for row in rows
            ]
        )
        self.message.setVisible(not rows)
        self.message.setText(NO_FIGURES)

    def set_rule_outcomes(self, outcomes: dict[str, RuleOutcome]) -> None:
        position = {rule_id: n for n, rule_id in enumerate(self._names)}
        ordered = sorted(
            outcomes.items(), key=lambda item: (position.get(item[0], len(position)), item[0])
        )
        self._rule_ids = [rule_id for rule_id, _outcome in ordered]
        self.rules.fill(
            [
                [
                    self._name(rule_id)[0],
                    self._name(rule_id)[1],
                    f"{outcome.support:,}",
                    f"{outcome.rewarded:,}",
                    f"{outcome.beta_mean:.2f}",
                    f"{outcome.elo:,.0f}",
                ]
                for rule_id, outcome in ordered
            ],
            tips=self._rule_ids,
        )

    def _name(self, rule_id: str) -> tuple[str, str]:
        return self._names.get(rule_id, (rule_id, ""))

    def _activated(self, row: int, _column: int) -> None:
        if 0 <= row < len(self._rule_ids):
            self.rule_activated.emit(self._rule_ids[row])

    def show_error(self, text: str) -> None:
        self.message.setText(f"Could not compute the outcome figures: {text}")
        self.message.show()
