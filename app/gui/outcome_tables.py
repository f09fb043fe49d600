"""The profile panel's outcome figures: acceptance of recommendations per kind, rule scores.

Why plain read-only tables: the figures are derived (from the records and the outcome log)
and never edited here; the window computes them in a worker and hands over finished rows.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.gui.formatting import percent
from core.outcomes import KindAcceptance
from core.rule_outcomes import RuleOutcome

ACCEPTANCE_TITLE = "How often you accept the agents' recommendations"
ACCEPTANCE_HEADERS = ("Decision kind", "Accepted", "Amended", "Redirected", "Accept rate")
RULE_TITLE = "Rule outcomes (from reported CI, acceptance and eval signals)"
RULE_HEADERS = ("Rule", "Support", "Rewarded", "Beta mean", "Elo")
NO_FIGURES = "No decisions with a recommendation yet."
COUNTING = "Counting decisions…"


def _table(parent: QWidget, name: str, headers: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(headers), parent)
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(list(headers))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().hide()
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _fill(table: QTableWidget, rows: list[list[str]]) -> None:
    table.setRowCount(len(rows))
    for row, values in enumerate(rows):
        for column, value in enumerate(values):
            item = QTableWidgetItem(value)
            if column:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(row, column, item)


class OutcomeTables(QWidget):
    """Two small tables; `set_acceptance` and `set_rule_outcomes` replace their rows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outcome-tables")
        self.acceptance = _table(self, "acceptance-table", ACCEPTANCE_HEADERS)
        self.acceptance.setAccessibleName(ACCEPTANCE_TITLE)
        self.rules = _table(self, "rule-outcomes-table", RULE_HEADERS)
        self.rules.setAccessibleName(RULE_TITLE)
        self.message = QLabel(COUNTING, self)
        self.message.setObjectName("acceptance-message")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        acceptance_caption = QLabel(ACCEPTANCE_TITLE, self)
        acceptance_caption.setBuddy(self.acceptance)
        rules_caption = QLabel(RULE_TITLE, self)
        rules_caption.setBuddy(self.rules)
        left = QVBoxLayout()
        left.addWidget(acceptance_caption)
        left.addWidget(self.message)
        left.addWidget(self.acceptance, 1)
        right = QVBoxLayout()
        right.addWidget(rules_caption)
        right.addWidget(self.rules, 1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(left, 1)
        layout.addLayout(right, 1)
        # Inside the panel's splitter: never make the window taller than it was before.
        self.setMinimumHeight(1)

    def show_counting(self) -> None:
        """Until the first figures arrive, say they are being counted: on a large journal that
        takes seconds, and "no decisions" meanwhile would be wrong."""
        if self.acceptance.rowCount() == 0:
            self.message.setText(COUNTING)
            self.message.show()

    def set_acceptance(self, rows: list[KindAcceptance]) -> None:
        _fill(
            self.acceptance,
            [
                [
                    row.decision_kind or "(no kind)",
                    str(row.accept),
                    str(row.amend),
                    str(row.redirect),
                    percent(row.accept_rate),
                ]
                for row in rows
            ],
        )
        self.message.setVisible(not rows)
        self.message.setText(NO_FIGURES)

    def set_rule_outcomes(self, outcomes: dict[str, RuleOutcome]) -> None:
        _fill(
            self.rules,
            [
                [
                    rule_id,
                    str(outcome.support),
                    str(outcome.rewarded),
                    f"{outcome.beta_mean:.2f}",
                    f"{outcome.elo:.0f}",
                ]
                for rule_id, outcome in sorted(outcomes.items())
            ],
        )

    def show_error(self, text: str) -> None:
        self.message.setText(f"Could not compute the outcome figures: {text}")
        self.message.show()
