"""Scope and filters of the journal list: project, domain, kind, status, risk, dates, text.

Why the bar hands out a value (`requests.FilterState`), not its widgets: the window remembers
it in QSettings and compares it to skip redundant reloads, and the bridge turns it into an
`IndexFilter` only when it knows the current project, which the index determines in a worker.
Text search is debounced (`SEARCH_DEBOUNCE_MS`) so typing a word costs one query, not one per
key; every other control applies at once. The order is part of the state: the index answers
newest first, and any other order is applied to the matching IDs (`requests.sort_ids`) before
they are frozen in a snapshot.
"""

from __future__ import annotations

from itertools import pairwise

from PySide6.QtCore import QDate, QSignalBlocker, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QVBoxLayout,
    QWidget,
)

from app.gui.journal.formatting import short_id
from app.gui.journal.requests import (
    SCOPE_ALL,
    SCOPE_CURRENT,
    SCOPE_PROJECT,
    SORT_NEWEST,
    SORTS,
    FilterState,
)
from core.index.rows import Facets, ProjectSummary
from core.record.models import STATUSES

SEARCH_DEBOUNCE_MS = 180
SEARCH_PLACEHOLDER = "Search problem, rationale, tag, or option  (Ctrl+F)"
ANY_DATE = QDate(2000, 1, 1)
RISKS = ("low", "medium", "high", "critical")


class ElidingComboBox(QComboBox):
    """A combo box whose closed text ends in "…" when it is wider than the box, instead of
    being cut off mid-letter; the popup and the tooltip show it whole."""

    def _option(self) -> QStyleOptionComboBox:
        """The style option with its text elided to the edit field's width."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox,
            option,
            QStyle.SubControl.SC_ComboBoxEditField,
            self,
        )
        option.currentText = option.fontMetrics.elidedText(
            option.currentText, Qt.TextElideMode.ElideRight, field.width()
        )
        return option

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = self._option()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def shown_text(self) -> str:
        """The text the closed box shows (elided when it does not fit)."""
        return self._option().currentText


class DayEdit(QDateEdit):
    """A day field that Tab leaves at once; ←/→ move between its year, month and day.

    Why: QDateTimeEdit spends Tab on its sections, and while it shows its special value
    ("any") it swallows Tab altogether, which traps keyboard users in the first date field.
    """

    def focusNextPrevChild(self, next: bool) -> bool:
        return QWidget.focusNextPrevChild(self, next)


class FilterBar(QWidget):
    """Signals:
    filter_changed(object): the new `FilterState`, after the debounce for text.
    """

    filter_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("filter-bar")
        self._state = FilterState()
        self._current_alias = ""
        self.search = QLineEdit(self)
        self.search.setObjectName("search")
        self.search.setPlaceholderText(SEARCH_PLACEHOLDER)
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName("Search decisions")
        self.scope = self._combo("scope", "Scope")
        self.domain = self._combo("domain", "Domain")
        self.kind = self._combo("kind", "Decision kind")
        self.status = self._combo("status", "Status")
        self.risk = self._combo("risk", "Risk")
        self.sort = self._combo("sort", "Sort order")
        self.date_from = self._date("date-from", "Updated from")
        self.date_to = self._date("date-to", "Updated until")
        self.include_deleted = QCheckBox("Include &deleted", self)
        self.include_deleted.setObjectName("include-deleted")
        self.debounce = QTimer(self)
        self.debounce.setObjectName("search-debounce")
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._fill_static()
        self._build()
        self.search.textEdited.connect(self._text_edited)
        self.search.textChanged.connect(self._text_changed)
        self.debounce.timeout.connect(self._apply)
        for combo in self._combos():
            combo.activated.connect(self._apply)
        self.scope.currentIndexChanged.connect(self._scope_tooltip)
        for edit in (self.date_from, self.date_to):
            edit.editingFinished.connect(self._apply)
            edit.dateChanged.connect(self._date_changed)
        self.include_deleted.toggled.connect(self._apply)

    def _combo(self, name: str, accessible: str) -> QComboBox:
        combo = ElidingComboBox(self)
        combo.setObjectName(name)
        combo.setAccessibleName(accessible)
        # Long project aliases or kinds must not make the window wider than a laptop screen.
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(7)
        return combo

    def _combos(self) -> tuple[QComboBox, ...]:
        return (self.scope, self.domain, self.kind, self.status, self.risk, self.sort)

    def _date(self, name: str, accessible: str) -> QDateEdit:
        edit = DayEdit(self)
        edit.setObjectName(name)
        edit.setAccessibleName(accessible)
        edit.setCalendarPopup(True)
        edit.setMinimumDate(ANY_DATE)
        edit.setSpecialValueText("any")
        edit.setDisplayFormat("yyyy-MM-dd")
        edit.setDate(ANY_DATE)
        return edit

    def _fill_static(self) -> None:
        self.scope.addItem("Current project", SCOPE_CURRENT)
        # Wide enough for "Current project (billing)"; longer names elide, the tooltip
        # and the popup (as wide as its items) show them whole.
        self.scope.setMinimumContentsLength(20)
        self.scope.view().setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.scope.addItem("All projects", SCOPE_ALL)
        for value, text in SORTS:
            self.sort.addItem(text, value)
        self.sort.setMinimumContentsLength(12)
        self.domain.addItem("All domains", "")
        self.kind.addItem("All kinds", "")
        self.status.addItem("Any status", "")
        for status in STATUSES:
            self.status.addItem(status, status)
        self.risk.addItem("Any risk", "")
        for risk in RISKS:
            self.risk.addItem(risk, risk)

    def _build(self) -> None:
        """Two rows: search, dates and "Include deleted"; then the combos, which name
        themselves ("All domains", "Any risk") and so need no labels. Narrow enough for a
        small laptop screen."""
        top = QHBoxLayout()
        search_label = QLabel("&Search", self)
        search_label.setBuddy(self.search)
        top.addWidget(search_label)
        top.addWidget(self.search, 1)
        for text, widget in (("&Updated from", self.date_from), ("&to", self.date_to)):
            label = QLabel(text, self)
            label.setBuddy(widget)
            top.addWidget(label)
            top.addWidget(widget)
        top.addWidget(self.include_deleted)
        row = QHBoxLayout()
        for combo in self._combos():
            combo.setToolTip(combo.accessibleName())
            row.addWidget(combo)
        row.addWidget(self.sort)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addLayout(row)
        order = (self.search, self.date_from, self.date_to, self.include_deleted, *self._combos())
        for before, after in pairwise(order):
            QWidget.setTabOrder(before, after)  # Tab reads as the eye does: row by row

    # state -------------------------------------------------------------------------------------

    @property
    def state(self) -> FilterState:
        return self._state

    def set_state(self, state: FilterState) -> None:
        """Shows a remembered state without emitting; the window then loads it once."""
        self._state = state
        blockers = [
            QSignalBlocker(w)
            for w in (
                self.search,
                self.scope,
                self.domain,
                self.kind,
                self.status,
                self.risk,
                self.sort,
                self.date_from,
                self.date_to,
                self.include_deleted,
            )
        ]
        self.search.setText(state.query)
        self._select(self.scope, state.project_id if state.scope == SCOPE_PROJECT else state.scope)
        for combo, value in (
            (self.domain, state.domain),
            (self.kind, state.decision_kind),
            (self.status, state.status),
            (self.risk, state.risk_level),
            (self.sort, state.sort),
        ):
            self._select(combo, value)
        self.date_from.setDate(
            QDate.fromString(state.date_from, Qt.DateFormat.ISODate)
            if state.date_from
            else ANY_DATE
        )
        self.date_to.setDate(
            QDate.fromString(state.date_to, Qt.DateFormat.ISODate) if state.date_to else ANY_DATE
        )
        self.include_deleted.setChecked(state.include_deleted)
        del blockers
        self._scope_tooltip()

    @staticmethod
    def _select(combo: QComboBox, value: str) -> None:
        index = combo.findData(value)
        if index < 0 and value:
            combo.addItem(value, value)  # a remembered value the catalog has not listed yet
            index = combo.count() - 1
        combo.setCurrentIndex(max(index, 0))

    def set_catalog(
        self, projects: list[ProjectSummary], facets: Facets, current_project: str
    ) -> None:
        """Fills the menus from the index; keeps every current choice."""
        alias = next((p.alias for p in projects if p.project_id == current_project), "")
        self.scope.setItemText(0, f"Current: {alias}" if alias else "Current project")
        self._refill(
            self.scope,
            [(SCOPE_CURRENT, self.scope.itemText(0)), (SCOPE_ALL, "All projects")]
            + [
                (
                    p.project_id,
                    f"{p.alias or p.project_id} · …{short_id(p.project_id)} ({p.count:,})",
                )
                for p in sorted(projects, key=lambda p: (p.alias.lower(), p.project_id))
            ],
        )
        self._refill(self.domain, [("", "All domains")] + [(d, d) for d in facets.domains])
        self._refill(self.kind, [("", "All kinds")] + [(k, k) for k in facets.kinds])
        for combo in (self.scope, self.domain, self.kind):
            for index in range(combo.count()):
                combo.setItemData(index, combo.itemText(index), Qt.ItemDataRole.ToolTipRole)
        self._scope_tooltip()

    @Slot()
    def _scope_tooltip(self) -> None:
        """The whole scope text, for when an alias is longer than the box."""
        self.scope.setToolTip(f"Scope: {self.scope.currentText()}")

    def show_all_projects(self) -> None:
        """The one-click "N decisions in other projects": the same filter over every project."""
        self._select(self.scope, SCOPE_ALL)
        self._apply()

    def _refill(self, combo: QComboBox, items: list[tuple[str, str]]) -> None:
        blocker = QSignalBlocker(combo)
        chosen = combo.currentData()
        combo.clear()
        for value, text in items:
            combo.addItem(text, value)
        self._select(combo, str(chosen or ""))
        del blocker

    def focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def flush(self) -> None:
        """Applies the text at once (Enter in the search box, benchmarks)."""
        self.debounce.stop()
        self._apply()

    def stop(self) -> None:
        self.debounce.stop()

    # reacting ----------------------------------------------------------------------------------

    @Slot(str)
    def _text_edited(self, _text: str) -> None:
        self.debounce.start()

    @Slot(str)
    def _text_changed(self, text: str) -> None:
        if not text and not self.debounce.isActive() and self._state.query:
            self.debounce.start()  # the clear button empties the box without textEdited

    @Slot(QDate)
    def _date_changed(self, _date: QDate) -> None:
        # The calendar popup commits without editingFinished on some styles.
        if not any(edit.hasFocus() for edit in (self.date_from, self.date_to)):
            self._apply()

    @Slot()
    def _apply(self) -> None:
        scope_value = str(self.scope.currentData() or SCOPE_CURRENT)
        scope, project = (
            (scope_value, "")
            if scope_value in (SCOPE_CURRENT, SCOPE_ALL)
            else (SCOPE_PROJECT, scope_value)
        )
        state = FilterState(
            scope=scope,
            project_id=project,
            domain=str(self.domain.currentData() or ""),
            decision_kind=str(self.kind.currentData() or ""),
            status=str(self.status.currentData() or ""),
            risk_level=str(self.risk.currentData() or ""),
            date_from=self._iso(self.date_from),
            date_to=self._iso(self.date_to),
            query=self.search.text(),
            include_deleted=self.include_deleted.isChecked(),
            sort=str(self.sort.currentData() or SORT_NEWEST),
        )
        if state != self._state:
            self._state = state
            self.filter_changed.emit(state)

    @staticmethod
    def _iso(edit: QDateEdit) -> str:
        date = edit.date()
        return "" if date <= ANY_DATE else date.toString(Qt.DateFormat.ISODate)
