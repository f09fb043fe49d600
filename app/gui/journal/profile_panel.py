"""The preference profile: derived rules with their evidence, and the operator's overrides.

Why the panel edits so little: rules are derived from the journal and rebuilt from it, so only
the override fields (enabled, pinned, a private note) are the user's to change. Every change
is a compare-and-swap against the profile revision on screen; when another writer got there
first the panel says so and reloads instead of guessing. Each rule lists the decisions that
support and contradict it, and any of them opens in the fork view, so a rule can always be
traced back to what the user actually decided.

Why the layout: the rules table takes the height (about a dozen rows on a 1366 by 768 laptop),
and the selected rule's evidence, the acceptance figures and the rule outcomes share the
tabs below it. Statistics have plain names; what they are and how they are computed is in
each header's tooltip. A rule has one short name ("R-1a2b3c"), used by every table here.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QAbstractTableModel,
    QByteArray,
    QItemSelection,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.gui.journal.formatting import NO_VALUE, count_text, display_time, percent, short_id
from app.gui.journal.outcome_tables import HintedView, OutcomeTables
from app.gui.journal.requests import OverrideRequest
from core.profile.model import (
    GLOBAL_KEY,
    SCOPE_GLOBAL,
    SCOPE_PROJECT,
    STATE_REBUILDING,
    PreferenceProfile,
    ProfileRule,
    ProfileStatus,
)
from core.profile.query import wilson_lower_95

AnyIndex = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()
EXPLAINER = (
    "Rules summarize your repeated decisions. Agents read them as evidence, never as commands."
)
EXPLAINER_MORE = (
    "Pinning does not bypass evidence thresholds or force a rule. Only the overrides are yours "
    "to change: whether a rule is enabled, whether it is pinned, and a private note."
)
EMPTY_TEXT = "More repeated evidence is required"
EMPTY_HINT = (
    "No rules yet. A rule appears once you have made the same kind of decision the same way "
    "several times; Rebuild now re-reads the journal."
)
NO_RULE_SELECTED = "Select a rule above to see the decisions behind it."
NO_DECISIONS = "None."
CONFLICT_TEXT = (
    "The profile changed elsewhere (now revision {revision}). It was reloaded; apply your "
    "change again."
)
STATE_TEXT = {
    "current": "current",
    "stale": "stale: the journal changed after the profile was generated",
    "rebuilding": "rebuilding…",
    "error": "error",
}


class RuleModel(QAbstractTableModel):
    """Rules as rows; Enabled and Pinned are check boxes that request an override save.

    Signals:
        override_requested(object): an `OverrideRequest` after a check box was toggled.
    """

    override_requested = Signal(object)
    HEADERS = (
        "Rule",
        "Scope",
        "Applies to",
        "Decision kind",
        "Preferred approach",
        "Supporting",
        "Contradicting",
        "Confidence",
        "Strength",
        "Enabled",
        "Pinned",
        "Note",
    )
    TIPS = (
        "The rule's short name; the rule outcomes use the same name",
        "global: every project; project: the one project in the next column",
        "The project a project rule is about (its full ID is in the cell's tooltip)",
        "The kind of decision the rule is about",
        "What you chose most often for this kind of decision",
        "Decisions in which you chose the preferred approach",
        "Decisions of this kind in which you chose something else",
        "Supporting decisions as a share of all the decisions the rule is about",
        "Wilson strength: the lower bound of the 95% Wilson interval of the support share, so "
        "a rule with few decisions scores low even when they all agree (0 to 1)",
        "Whether agents are told about the rule",
        "Pinned rules are listed first for agents; pinning never forces a rule",
        "Your private note (redacted when it looks sensitive)",
    )
    NUMERIC = (5, 6, 7, 8)
    ENABLED, PINNED = 9, 10

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rules: list[ProfileRule] = []
        self._aliases: dict[str, str] = {}
        self.revision = 0

    def set_aliases(self, aliases: dict[str, str]) -> None:
        """Project aliases, so a project rule's key reads "payments-api …58ea", not an ID."""
        self._aliases = dict(aliases)
        if self._rules:
            self.dataChanged.emit(self.index(0, 1), self.index(len(self._rules) - 1, 1))

    def set_profile(self, profile: PreferenceProfile) -> None:
        self.beginResetModel()
        self._rules = [rule.model_copy(deep=True) for rule in profile.rules]
        self.revision = profile.revision
        self.endResetModel()

    def rule(self, row: int) -> ProfileRule:
        return self._rules[row]

    def row_of(self, rule_id: str) -> int:
        return next((n for n, rule in enumerate(self._rules) if rule.id == rule_id), -1)

    def rowCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rules)

    def columnCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() in (self.ENABLED, self.PINNED):
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        rule = self._rules[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.CheckStateRole and column in (self.ENABLED, self.PINNED):
            on = rule.enabled if column == self.ENABLED else rule.pinned
            return Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 2 and rule.scope == SCOPE_PROJECT and rule.scope_key in self._aliases:
                return f"{self._aliases[rule.scope_key]} …{short_id(rule.scope_key)}"
            return self._display(rule, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return {0: rule.id, 2: rule.scope_key}.get(column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in self.NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def rule_names(self) -> dict[str, tuple[str, str]]:
        """{rule id: (short name, preferred approach)} in table order, for the outcome table."""
        return {
            rule.id: (rule_name(rule.id), rule.preference_label or rule.preference)
            for rule in self._rules
        }

    @staticmethod
    def _display(rule: ProfileRule, column: int) -> str | None:
        support, against = len(rule.support_decision_ids), len(rule.contradiction_decision_ids)
        key = GLOBAL_KEY if rule.scope == SCOPE_GLOBAL else rule.scope_key
        values = (
            rule_name(rule.id),
            rule.scope,
            key,
            rule.criterion,
            rule.preference_label or rule.preference,
            str(support),
            str(against),
            percent(rule.confidence),
            f"{wilson_lower_95(support, against):.2f}",
            None,
            None,
            rule.user_note or ("(redacted)" if rule.user_note_redacted else ""),
        )
        return values[column]

    def setData(self, index: AnyIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """Shows the new state at once and asks for the save; a failed save reloads."""
        if role != Qt.ItemDataRole.CheckStateRole or index.column() not in (
            self.ENABLED,
            self.PINNED,
        ):
            return False
        rule = self._rules[index.row()]
        on = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) else value
        if index.column() == self.ENABLED:
            rule.enabled = on
            request = OverrideRequest(rule.id, self.revision, enabled=on)
        else:
            rule.pinned = on
            request = OverrideRequest(rule.id, self.revision, pinned=on)
        self.dataChanged.emit(index, index, [role])
        self.override_requested.emit(request)
        return True

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.TIPS[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and section in self.NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


def rule_name(rule_id: str) -> str:
    """ "R-1a2b3c": the end of a rule's stable ID, short enough for a table cell."""
    return f"R-{rule_id.removeprefix('preference-')[-6:]}"


class HintTableView(HintedView, QTableView):
    """The rules table, which says how rules come about while there are none."""


class HintListView(HintedView, QListView):
    """An evidence list that says what it would show while it is empty."""


class EvidenceModel(QAbstractListModel):
    """Decision IDs that support or contradict a rule, labelled with their problem once known."""

    DecisionIdRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._ids: list[str] = []
        self._labels: dict[str, str] = {}

    def set_ids(self, ids: list[str]) -> None:
        self.beginResetModel()
        self._ids = list(ids)
        self.endResetModel()

    def set_labels(self, labels: dict[str, str]) -> None:
        self._labels.update(labels)
        if self._ids:
            self.dataChanged.emit(self.index(0), self.index(len(self._ids) - 1))

    def ids(self) -> list[str]:
        return list(self._ids)

    def rowCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._ids)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        decision_id = self._ids[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._labels.get(decision_id) or decision_id
        if role in (Qt.ItemDataRole.ToolTipRole, self.DecisionIdRole):
            return decision_id
        return None


class ProfilePanel(QWidget):
    """Rules, their state and evidence; the window connects the signals to the bridge.

    Signals:
        rebuild_requested(): "Rebuild now".
        override_requested(object): an `OverrideRequest` to save with CAS.
        decision_requested(str): open this decision in the fork view.
        labels_wanted(list): decision IDs whose problems should be looked up.
    """

    rebuild_requested = Signal()
    override_requested = Signal(object)
    decision_requested = Signal(str)
    labels_wanted = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("profile-panel")
        self.rules = RuleModel(self)
        self.support = EvidenceModel(self)
        self.contradictions = EvidenceModel(self)
        self._profile = PreferenceProfile.empty()
        self._columns_chosen = False
        """Column widths came from settings or the first rules: later profiles keep them."""
        explainer = QLabel(EXPLAINER, self)
        explainer.setWordWrap(True)
        explainer.setToolTip(EXPLAINER_MORE)
        self.state_label = QLabel(self)
        self.state_label.setObjectName("profile-state")
        self.state_label.setTextFormat(Qt.TextFormat.PlainText)
        self.rebuild_button = QPushButton("&Rebuild now", self)
        self.rebuild_button.setObjectName("profile-rebuild")
        self.message = QLabel(self)
        self.message.setObjectName("profile-message")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.empty_label = QLabel(EMPTY_TEXT, self)
        self.empty_label.setObjectName("profile-empty")
        self.empty_label.setToolTip(EMPTY_HINT)
        self.table = HintTableView(self)
        self.table.hint = EMPTY_HINT
        self.table.setObjectName("profile-rules")
        self.table.setAccessibleName("Preference rules")
        self.table.setModel(self.rules)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.horizontalHeader().setStretchLastSection(True)
        self._keep_names_whole()
        self.support_view = self._evidence_view(self.support, "Supporting decisions")
        self.contradiction_view = self._evidence_view(
            self.contradictions, "Contradicting decisions"
        )
        self.note_edit = QLineEdit(self)
        self.note_edit.setObjectName("profile-note")
        self.note_edit.setPlaceholderText("Private note (redacted when it looks sensitive)")
        self.note_edit.setAccessibleName("Private note")
        self.save_note_button = QPushButton("Save &note", self)
        self.save_note_button.setObjectName("profile-save-note")
        self.support_caption = QLabel("Supporting decisions", self)
        self.contradiction_caption = QLabel("Contradicting decisions", self)
        self.support_caption.setBuddy(self.support_view)
        self.contradiction_caption.setBuddy(self.contradiction_view)
        self.outcomes = OutcomeTables(self)
        self.outcomes.rule_activated.connect(self.select_rule)
        self.detail_tabs = QTabWidget(self)
        self.detail_tabs.setObjectName("profile-detail-tabs")
        self._build(explainer)
        self.rebuild_button.clicked.connect(self.rebuild_requested)
        self.rules.override_requested.connect(self.override_requested)
        self.table.selectionModel().selectionChanged.connect(self._rule_selected)
        self.save_note_button.clicked.connect(self._save_note)
        self.note_edit.returnPressed.connect(self._save_note)
        self._set_rule_controls(None)
        self.set_status(None)
        self.message.hide()

    def _evidence_view(self, model: EvidenceModel, name: str) -> HintListView:
        view = HintListView(self)
        view.hint = NO_RULE_SELECTED
        view.setModel(model)
        view.setAccessibleName(name)
        view.setObjectName(name.lower().replace(" ", "-"))
        view.activated.connect(self._open_evidence)
        view.doubleClicked.connect(self._open_evidence)
        return view

    def _build(self, explainer: QLabel) -> None:
        header = QHBoxLayout()
        header.addWidget(self.state_label, 1)
        header.addWidget(self.rebuild_button)
        detail = QWidget(self)
        grid = QGridLayout(detail)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.support_caption, 0, 0)
        grid.addWidget(self.contradiction_caption, 0, 1)
        grid.addWidget(self.support_view, 1, 0)
        grid.addWidget(self.contradiction_view, 1, 1)
        note_row = QHBoxLayout()
        note_row.addWidget(self.note_edit, 1)
        note_row.addWidget(self.save_note_button)
        grid.addLayout(note_row, 2, 0, 1, 2)
        self.detail_tabs.addTab(detail, "&Evidence for the selected rule")
        self.detail_tabs.addTab(self.outcomes.acceptance_page, "&Acceptance")
        self.detail_tabs.addTab(self.outcomes.rules_page, "Rule &outcomes")
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("profile-splitter")
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.detail_tabs)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([640, 320])
        self.splitter.setChildrenCollapsible(False)
        self.detail_tabs.setMinimumHeight(self.fontMetrics().height() * 9)
        layout = QVBoxLayout(self)
        layout.addWidget(explainer)
        layout.addLayout(header)
        layout.addWidget(self.message)
        layout.addWidget(self.empty_label)
        layout.addWidget(self.splitter, 1)

    # inputs from the window --------------------------------------------------------------------

    @property
    def profile(self) -> PreferenceProfile:
        return self._profile

    def set_profile(self, profile: PreferenceProfile) -> None:
        """Ignores a profile older than the one on screen (a late answer to an old request)."""
        if 0 < profile.revision < self._profile.revision:
            return
        selected = self.selected_rule()
        self._profile = profile
        self.rules.set_profile(profile)
        self.outcomes.set_rule_names(self.rules.rule_names())
        self.empty_label.setVisible(not profile.rules)
        if not self._columns_chosen and profile.rules:
            self.table.resizeColumnsToContents()
            self._columns_chosen = True
        self._keep_names_whole()  # remembered widths may be narrower than these rules' keys
        row = self.rules.row_of(selected.id) if selected is not None else -1
        if row >= 0:
            self.table.selectRow(row)
        else:
            self._set_rule_controls(None)
        self._describe_state()

    def set_status(self, status: ProfileStatus | None) -> None:
        self._status = status
        self.rebuild_button.setEnabled(status is None or status.state != STATE_REBUILDING)
        self._describe_state()

    def restore_columns(self, state: QByteArray) -> bool:
        """Restores the rules table's column widths (kept per journal by the window)."""
        self._columns_chosen = self.table.horizontalHeader().restoreState(state)
        self._keep_names_whole()
        return self._columns_chosen

    def _keep_names_whole(self) -> None:
        """Widens each column too narrow for its name ("Preferred approach" read "eferred
        approac") or, but for the note, for its values (a rule read "R-884…", a scope
        "proj…"), also in widths remembered from before; wider columns are kept. The note,
        the last column, takes what is left."""
        header = self.table.horizontalHeader()
        note = self.rules.columnCount() - 1
        for column in range(header.count()):
            wanted = header.sectionSizeHint(column)
            if column != note and self.rules.rowCount():
                wanted = max(wanted, self.table.sizeHintForColumn(column))
            if header.sectionSize(column) < wanted:
                header.resizeSection(column, wanted)

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def show_conflict(self, revision: int) -> None:
        self.show_message(CONFLICT_TEXT.format(revision=revision))

    def set_labels(self, labels: dict[str, str]) -> None:
        self.support.set_labels(labels)
        self.contradictions.set_labels(labels)

    def _describe_state(self) -> None:
        status = getattr(self, "_status", None)
        state = STATE_TEXT.get(status.state, status.state) if status is not None else "unknown"
        if status is not None and status.error and status.state != "stale":
            state += f": {status.error}"
        profile = self._profile
        generated = display_time(profile.generated_at) if profile.revision else NO_VALUE
        self.state_label.setText(
            f"Profile {state} · revision {profile.revision} · "
            f"{count_text(len(profile.rules), 'rule')} · "
            f"generated {generated}"
        )

    # rule selection ----------------------------------------------------------------------------

    def selected_rule(self) -> ProfileRule | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return self.rules.rule(rows[0].row()) if rows else None

    @Slot(str)
    def select_rule(self, rule_id: str) -> None:
        """Selects the rule and shows its evidence (a rule outcome row opened asks for this)."""
        row = self.rules.row_of(rule_id)
        if row >= 0:
            self.table.selectRow(row)
            self.table.scrollTo(self.rules.index(row, 0))
            self.detail_tabs.setCurrentIndex(0)

    @Slot(QItemSelection, QItemSelection)
    def _rule_selected(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        self._set_rule_controls(self.selected_rule())

    def _set_rule_controls(self, rule: ProfileRule | None) -> None:
        support = list(rule.support_decision_ids) if rule else []
        against = list(rule.contradiction_decision_ids) if rule else []
        self.support.set_ids(support)
        self.contradictions.set_ids(against)
        self.support_caption.setText(f"&Supporting decisions ({len(support):,})")
        self.contradiction_caption.setText(f"C&ontradicting decisions ({len(against):,})")
        hint = NO_DECISIONS if rule is not None else NO_RULE_SELECTED
        for view in (self.support_view, self.contradiction_view):
            view.hint = hint
            view.viewport().update()
        self.note_edit.setEnabled(rule is not None)
        self.save_note_button.setEnabled(rule is not None)
        self.note_edit.setText(rule.user_note if rule else "")
        if support or against:
            self.labels_wanted.emit(support + against)

    @Slot(QModelIndex)
    def _open_evidence(self, index: QModelIndex) -> None:
        decision_id = index.data(EvidenceModel.DecisionIdRole)
        if decision_id:
            self.decision_requested.emit(str(decision_id))

    @Slot()
    def _save_note(self) -> None:
        rule = self.selected_rule()
        if rule is None:
            return
        if self._profile.revision <= 0:
            self.show_message("Rebuild the profile before editing rules.")
            return
        self.override_requested.emit(
            OverrideRequest(rule.id, self._profile.revision, note=self.note_edit.text())
        )
