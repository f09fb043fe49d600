"""The correction form: the only edits the journal allows, saved as a compare-and-swap revision.

What is editable is exactly `core.record.corrections.Correction`: the selection (a listed approach
or
Other), the selected rationale and every rejected rationale, tags, domains, kind, risk and the
project alias. The problem, options, recommendation, evidence and confidence are shown by the
fork view and never editable here.

Why the correction is computed against the revision the form was opened with: after a
conflict the form stays as the user left it and shows the newer revision; saving again applies
only the fields the user actually changed onto the newer revision, so nothing another writer
changed is silently reverted.

Every text field shows its UTF-8 byte count against its limit while typing. A save that cannot
be sent marks each field at fault (a red outline and an accessible description) and says
which field and which limit, then puts the cursor in the first of them. An optional "why
corrected" note goes with the save; the journal keeps it beside the history, not in the record.

A decision changed on two machines (a sync conflict) gets a notice at the top of the form:
saving settles the conflict, on the version the form shows, and "Choose a version…" opens
both versions side by side first. The form says so before the save, so a correction never
sets a version aside that the user did not know about.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from PySide6.QtCore import QSize, Qt, Signal, Slot
from PySide6.QtGui import QFont, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.gui.journal.decision_details import ledger_lines
from app.gui.journal.formatting import joined, split_list
from app.gui.widgets.byte_counter import ByteCounter, over_limit_color
from app.gui.widgets.message_bar import MessageBar
from app.gui.widgets.palette import adopt, warning_colour
from app.gui.widgets.screen_fit import fit_to_screen
from core.errors import InvalidDecision, NoChanges, describe
from core.gocompat.text import go_trim, utf8_len
from core.messages.wording import too_large
from core.record.corrections import Correction, apply_correction, precheck
from core.record.fields import FieldRule, item_rule, rule
from core.record.models import RISK_LEVELS, DecisionRecord
from core.record.normalize import dedupe_fold

CUSTOM = "__custom__"
NO_CHANGES_TEXT = "No changes to save"
RISK_CHOICES = (("", "Unspecified"), *((level, level) for level in RISK_LEVELS if level))
NOTE_PLACEHOLDER = "Optional: what was wrong, so the history says why (kept with this revision)"
SYNC_CONFLICT_HEADLINE = "Changed on two machines"
SYNC_CONFLICT_TEXT = (
    "Saving settles this: your correction is made on the version shown here (the current "
    "one), and the other machine's version is set aside. To compare them first, choose a "
    "version."
)
TextField = QLineEdit | QPlainTextEdit


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """A field that stops the save, and the sentence naming it and its limit."""

    field: QWidget
    message: str


def _text_of(field: TextField) -> str:
    return field.text() if isinstance(field, QLineEdit) else field.toPlainText()


def _text_edit(parent: QWidget, name: str, accessible: str) -> QPlainTextEdit:
    edit = QPlainTextEdit(parent)
    edit.setObjectName(name)
    edit.setAccessibleName(accessible)
    edit.setTabChangesFocus(True)
    edit.setFixedHeight(edit.fontMetrics().height() * 4)
    return edit


def conflict_text(newer: DecisionRecord) -> str:
    return (
        f"This decision changed elsewhere: it is now revision {newer.revision}. Your unsaved "
        "text is kept below; review the newer revision and save again to apply your changes "
        "on top of it."
    )


class EditDialog(QDialog):
    """Open with `open()`; the window performs the save and reports back.

    Signals:
        save_requested(object, int, str): (Correction, expected revision, why-corrected note)
            after local checks pass.
        versions_requested(): "Choose a version…" in the notice of a sync conflict.
    """

    save_requested = Signal(object, int, str)
    versions_requested = Signal()

    def __init__(self, record: DecisionRecord, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        adopt(self)
        self.setObjectName("edit-dialog")
        self.setWindowTitle(f"Correct decision (revision {record.revision})")
        self._original = record.model_copy(deep=True)
        self._current = record.model_copy(deep=True)
        self._saving = False
        self.selection = QComboBox(self)
        self.selection.setObjectName("edit-selection")
        self.custom = QLineEdit(self)
        self.custom.setObjectName("edit-custom")
        self.custom_counter = ByteCounter(rule("custom_selection").most, self)
        self.reason = _text_edit(self, "edit-reason", "Why this approach was selected")
        self.rejections: dict[str, QPlainTextEdit] = {}
        self._rejection_labels: dict[str, QLabel] = {}
        self.kind = QLineEdit(self)
        self.kind.setObjectName("edit-kind")
        self.risk = QComboBox(self)
        self.risk.setObjectName("edit-risk")
        self.domains = QLineEdit(self)
        self.domains.setObjectName("edit-domains")
        self.tags = QLineEdit(self)
        self.tags.setObjectName("edit-tags")
        self.alias = QLineEdit(self)
        self.alias.setObjectName("edit-alias")
        self.note = _text_edit(self, "edit-note", "Why corrected (optional)")
        self.note.setPlaceholderText(NOTE_PLACEHOLDER)
        self.counters: dict[TextField, ByteCounter] = {}
        self._marked: list[QWidget] = []
        self.message = MessageBar(self)
        self.settles_conflict = False
        """The notice of a sync conflict is shown: saving settles it."""
        self._build_conflict_notice()
        self.newer_box = QGroupBox("Newer revision", self)
        self.newer_box.setObjectName("edit-newer")
        self.newer_text = QLabel(self.newer_box)
        self.newer_text.setObjectName("edit-newer-text")
        self.newer_text.setTextFormat(Qt.TextFormat.PlainText)
        self.newer_text.setWordWrap(True)
        self.newer_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(self)
        self.save_button = QPushButton("&Save revision", self)
        self.save_button.setObjectName("edit-save")
        self.save_button.setToolTip("Save a new revision (Ctrl+S)")
        self.buttons.addButton(self.save_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self._build(record)
        self._tab_order()
        self._fill(record)
        self.selection.currentIndexChanged.connect(self._selection_changed)
        self.custom.textChanged.connect(self.custom_counter.update_count)
        self.custom.textChanged.connect(lambda _text: self._unmark(self.custom))
        self.domains.textChanged.connect(lambda _text: self._unmark(self.domains))
        self.tags.textChanged.connect(lambda _text: self._unmark(self.tags))
        self.risk.currentIndexChanged.connect(lambda _index: self._unmark(self.risk))
        self.save_button.clicked.connect(self.try_save)
        self.buttons.rejected.connect(self.reject)
        for keys in ("Ctrl+S", "Ctrl+Return"):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.activated.connect(self.try_save)
        self.custom_counter.update_count(self.custom.text())
        for field in self.counters:
            self._count(field)
        self._selection_changed()

    # building ----------------------------------------------------------------------------------

    def _build_conflict_notice(self) -> None:
        """The notice as the inspector shows it: a bold headline in the warning colour, what
        saving does, and the way to compare the versions first."""
        self.conflict_notice = QFrame(self)
        self.conflict_notice.setObjectName("edit-sync-conflict")
        self.conflict_notice.setFrameShape(QFrame.Shape.StyledPanel)
        self.conflict_notice.setAccessibleName(SYNC_CONFLICT_HEADLINE)
        self.conflict_notice.setAccessibleDescription(SYNC_CONFLICT_TEXT)
        headline = QLabel(SYNC_CONFLICT_HEADLINE, self.conflict_notice)
        bold = QFont(headline.font())
        bold.setBold(True)
        headline.setFont(bold)
        headline.setStyleSheet(f"color: {warning_colour(self.palette()).name()};")
        text = QLabel(SYNC_CONFLICT_TEXT, self.conflict_notice)
        text.setObjectName("edit-sync-conflict-text")
        text.setWordWrap(True)
        self.versions_button = QPushButton("C&hoose a version…", self.conflict_notice)
        self.versions_button.setObjectName("edit-choose-version")
        self.versions_button.setAutoDefault(False)
        self.versions_button.setToolTip("Both versions side by side in the history window")
        self.versions_button.setAccessibleDescription(
            f"{SYNC_CONFLICT_HEADLINE}. {SYNC_CONFLICT_TEXT}"
        )
        self.versions_button.clicked.connect(self.versions_requested)
        words = QVBoxLayout()
        words.addWidget(headline)
        words.addWidget(text)
        row = QHBoxLayout(self.conflict_notice)
        row.addLayout(words, 1)
        row.addWidget(self.versions_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.conflict_notice.hide()

    def _build(self, record: DecisionRecord) -> None:
        form_host = QWidget(self)
        host_layout = QVBoxLayout(form_host)
        form = QFormLayout()
        # Prompts above their fields: "Why … was not selected" is long and must not wrap beside
        # a narrow field.
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        host_layout.addLayout(form)
        host_layout.addStretch(1)
        problem = QLabel(record.problem, form_host)
        problem.setTextFormat(Qt.TextFormat.PlainText)
        problem.setWordWrap(True)
        form.addRow("Problem (not editable)", problem)
        for option in record.options:
            marker = " (recommended)" if option.id == record.recommended_option_id else ""
            self.selection.addItem(f"{option.label}{marker}", option.id)
        self.selection.addItem("Other / custom approach", CUSTOM)
        self._row(form, "Selected &approach", self.selection)
        custom_row = QWidget(form_host)
        custom_layout = QVBoxLayout(custom_row)
        custom_layout.setContentsMargins(0, 0, 0, 0)
        custom_layout.addWidget(self.custom)
        custom_layout.addWidget(self.custom_counter)
        self._custom_label = self._row(form, "C&ustom approach", custom_row)
        self._custom_row = custom_row
        self.custom.setAccessibleName("Custom approach")
        self._row(
            form,
            "&Why this approach was selected",
            self._counted(self.reason, "selection_reason_raw"),
        )
        for option in record.options:
            edit = _text_edit(
                form_host, f"edit-reject-{option.id}", f"Why {option.label} was not selected"
            )
            self.rejections[option.id] = edit
            self._rejection_labels[option.id] = self._row(
                form,
                f"Why {option.label} was not selected",
                self._counted(edit, "rejection_reason"),
            )
        self._row(form, "Decision &kind", self._counted(self.kind, "decision_kind"))
        for value, text in RISK_CHOICES:
            self.risk.addItem(text, value)
        self._row(form, "&Risk", self.risk)
        self._row(form, "&Domains (comma-separated)", self.domains)
        self._row(form, "&Tags (comma-separated)", self.tags)
        self._row(form, "&Project alias", self._counted(self.alias, "project_alias"))
        self._row(
            form,
            "Why &corrected (optional)",
            self._counted(self.note, "correction_note"),
        )
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(form_host)
        newer_layout = QVBoxLayout(self.newer_box)
        newer_layout.addWidget(self.newer_text)
        self.newer_box.hide()
        layout = QVBoxLayout(self)
        layout.addWidget(self.conflict_notice)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.newer_box)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        # on a 1366 by 768 laptop 760 pixels put Save below the edge; the form scrolls
        fit_to_screen(self, QSize(720, 760))

    def _tab_order(self) -> None:
        """Tab follows the form top to bottom: the conflict notice's button (when shown), each
        field in the order it is laid out, then Save and Cancel."""
        chain: list[QWidget] = [
            self.versions_button,
            self.selection,
            self.custom,
            self.reason,
            *self.rejections.values(),
            self.kind,
            self.risk,
            self.domains,
            self.tags,
            self.alias,
            self.note,
            self.save_button,
            *self.buttons.buttons()[1:],
        ]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    def _counted(self, field: TextField, name: str) -> QWidget:
        """The field with its byte counter under it, in one row of the form; `name` is the
        field's rule in `core.record.fields`."""
        limit = rule(name).most
        host = QWidget(field.parentWidget())
        column = QVBoxLayout(host)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        field.setParent(host)
        column.addWidget(field)
        counter = ByteCounter(limit, host)
        counter.setObjectName(f"{field.objectName()}-bytes")
        column.addWidget(counter)
        self.counters[field] = counter
        signal = field.textChanged
        signal.connect(lambda *_args: self._count(field))
        return host

    def _count(self, field: TextField) -> None:
        self.counters[field].update_count(_text_of(field))
        self._unmark(field)

    def _row(self, form: QFormLayout, text: str, field: QWidget) -> QLabel:
        target = next((f for f in self.counters if f.parentWidget() is field), field)
        label = QLabel(text, field.parentWidget())
        label.setBuddy(target)
        if not target.accessibleName():
            target.setAccessibleName(text.replace("&", ""))
        form.addRow(label, field)
        return label

    def _fill(self, record: DecisionRecord) -> None:
        key = CUSTOM if go_trim(record.custom_selection) else record.selected_option_id
        index = self.selection.findData(key)
        self.selection.setCurrentIndex(max(index, 0))
        self.custom.setText(record.custom_selection)
        self.reason.setPlainText(record.selection_reason_raw)
        reasons = {r.option_id: r.reason for r in record.rejected_reasons}
        for option_id, edit in self.rejections.items():
            edit.setPlainText(reasons.get(option_id, ""))
        self.kind.setText(record.decision_kind)
        self.risk.setCurrentIndex(max(self.risk.findData(record.risk_level), 0))
        self.domains.setText(", ".join(record.domains))
        self.tags.setText(", ".join(record.tags))
        self.alias.setText(record.project_alias)

    @Slot()
    def _selection_changed(self) -> None:
        chosen = self.selection.currentData()
        is_custom = chosen == CUSTOM
        self._custom_row.setVisible(is_custom)
        self._custom_label.setVisible(is_custom)
        for option_id, edit in self.rejections.items():
            rejected = option_id != chosen
            host = edit.parentWidget()  # the field with its byte counter
            if host is not None:
                host.setVisible(rejected)
            edit.setEnabled(rejected)
            self._rejection_labels[option_id].setVisible(rejected)

    # a sync conflict ---------------------------------------------------------------------------

    @property
    def decision_id(self) -> str:
        return self._original.id

    def set_sync_conflict(self, conflicted: bool) -> None:
        """Shows (or takes away) the notice that saving settles the decision's sync conflict."""
        self.settles_conflict = conflicted
        self.conflict_notice.setVisible(conflicted)
        revision = self._current.revision
        suffix = ", changed on two machines" if conflicted else ""
        self.setWindowTitle(f"Correct decision (revision {revision}{suffix})")

    # saving ------------------------------------------------------------------------------------

    @property
    def expected_revision(self) -> int:
        return self._current.revision

    def correction(self) -> Correction:
        """Only the fields the user changed since the form opened (a sparse correction)."""
        original = self._original
        chosen = str(self.selection.currentData())
        original_key = CUSTOM if go_trim(original.custom_selection) else original.selected_option_id
        custom_text = go_trim(self.custom.text())
        selected: str | None = None
        custom: str | None = None
        if chosen == CUSTOM and custom_text != go_trim(original.custom_selection):
            custom = custom_text
        elif chosen not in (CUSTOM, original_key):
            selected = chosen
        reason = go_trim(self.reason.toPlainText())
        previous = {r.option_id: go_trim(r.reason) for r in original.rejected_reasons}
        rejected = {
            option_id: go_trim(edit.toPlainText())
            for option_id, edit in self.rejections.items()
            if edit.isEnabled() and go_trim(edit.toPlainText()) != previous.get(option_id, "")
        }
        return Correction(
            selected_option_id=selected,
            custom_selection=custom,
            selection_reason=reason if reason != go_trim(original.selection_reason_raw) else None,
            rejected_reasons=rejected or None,
            tags=self._list_change(self.tags.text(), original.tags),
            domains=self._list_change(self.domains.text(), original.domains),
            decision_kind=self._text_change(self.kind.text(), original.decision_kind),
            risk_level=self._text_change(str(self.risk.currentData()), original.risk_level),
            project_alias=self._text_change(self.alias.text(), original.project_alias),
        )

    @staticmethod
    def _list_change(text: str, before: list[str]) -> list[str] | None:
        values = dedupe_fold(split_list(text))
        return values if values != before else None

    @staticmethod
    def _text_change(text: str, before: str) -> str | None:
        return go_trim(text) if go_trim(text) != before else None

    def problems(self) -> list[str]:
        """What must be fixed before a save can be sent, in form order."""
        return [problem.message for problem in self.field_problems()]

    def field_problems(self) -> list[FieldProblem]:
        """Each field that stops the save, with a sentence naming the field and its limit.

        The limits and the words that name them are the record's (`core.record.fields`), so
        the dialog refuses what a save would refuse, in the same numbers.
        """
        found: list[FieldProblem] = []
        if self.selection.currentData() == CUSTOM:
            self._required(found, self.custom, rule("custom_selection"))
        self._required(found, self.reason, rule("selection_reason_raw"))
        for option_id, edit in self.rejections.items():
            if edit.isEnabled():
                label = self._original.option_label(option_id) or option_id
                named = f"Why {label} was not selected"
                self._required(found, edit, rule("rejection_reason"), named)
        self._required(found, self.kind, rule("decision_kind"))
        self._within(found, self.alias, rule("project_alias"))
        for field, name in ((self.domains, "domains"), (self.tags, "tags")):
            problem = self._list_problem(split_list(field.text()), name)
            if problem:
                found.append(FieldProblem(field, problem))
        self._within(found, self.note, rule("correction_note"))
        return found

    @staticmethod
    def _list_problem(entries: list[str], name: str) -> str:
        """What is wrong with the list field `name`, or "" when it fits its rules."""
        limit, each = rule(name), item_rule(name)
        items = dedupe_fold(entries)
        if not limit.fits(len(items)):
            return f"{limit.wording} {limit.over(len(items))}."
        long = [item for item in items if not each.fits(utf8_len(item))]
        if long:
            return f"The {limit.unit} “{long[0][:40]}” {too_large(utf8_len(long[0]), each.most)}."
        return ""

    @staticmethod
    def _required(
        found: list[FieldProblem], field: TextField, limit: FieldRule, name: str = ""
    ) -> None:
        text = go_trim(_text_of(field))
        if not text:
            found.append(
                FieldProblem(field, f"{name or limit.wording} is empty; write {limit.span()}.")
            )
        else:
            EditDialog._within(found, field, limit, name)

    @staticmethod
    def _within(
        found: list[FieldProblem], field: TextField, limit: FieldRule, name: str = ""
    ) -> None:
        size = utf8_len(go_trim(_text_of(field)))
        if not limit.fits(size):
            message = f"{name or limit.wording} {too_large(size, limit.most)}."
            found.append(FieldProblem(field, message))

    def _mark(self, problems: list[FieldProblem]) -> None:
        """Outlines each field at fault and moves the cursor to the first."""
        colour = over_limit_color(self.palette()).name()
        for problem in problems:
            field = problem.field
            field.setProperty("invalid", True)
            # A style sheet replaces the palette's colours unless it names them: keep them.
            base = field.palette().color(QPalette.ColorRole.Base).name()
            text = field.palette().color(QPalette.ColorRole.Text).name()
            field.setStyleSheet(
                f"border: 2px solid {colour}; border-radius: 3px; "
                f"background-color: {base}; color: {text};"
            )
            field.setAccessibleDescription(problem.message)
            self._marked.append(field)
        problems[0].field.setFocus(Qt.FocusReason.OtherFocusReason)

    def _unmark(self, field: QWidget) -> None:
        if field in self._marked:
            self._marked.remove(field)
            field.setProperty("invalid", False)
            field.setStyleSheet("")
            field.setAccessibleDescription("")

    def marked_fields(self) -> list[QWidget]:
        """The fields outlined as wrong right now (tests and screenshots check them)."""
        return list(self._marked)

    @Slot()
    def try_save(self) -> None:
        if self._saving:
            return
        problems = self.field_problems()
        for field in list(self._marked):
            self._unmark(field)
        if problems:
            self._mark(problems)
            self.message.show_error(" ".join(problem.message for problem in problems))
            return
        correction = self.correction()
        if correction.is_empty() or not self._changes(correction):
            self.message.show_hint(NO_CHANGES_TEXT)
            return
        try:
            precheck(correction)
        except InvalidDecision as exc:
            self.message.show_error(str(describe(exc)))
            return
        self._saving = True
        self.save_button.setEnabled(False)
        self.message.show_hint("Saving…")
        self.save_requested.emit(
            correction, self._current.revision, go_trim(self.note.toPlainText())
        )

    def _changes(self, correction: Correction) -> bool:
        probe = self._current.model_copy(deep=True)
        try:
            apply_correction(probe, correction)
        except NoChanges:
            return False
        except InvalidDecision:
            return True  # the store reports it with its own words
        return True

    # results from the window -------------------------------------------------------------------

    def saved(self, record: DecisionRecord) -> None:
        self._saving = False
        self._current = record
        self.accept()

    def show_conflict(self, newer: DecisionRecord) -> None:
        """Keeps every field as typed, shows the newer revision and retargets the next save."""
        self._saving = False
        self._current = newer.model_copy(deep=True)
        self.save_button.setEnabled(True)
        self.setWindowTitle(f"Correct decision (revision {newer.revision}, changed elsewhere)")
        lines = [
            f"Revision {newer.revision} · {newer.status}",
            *ledger_lines(newer),
            f"Kind: {newer.decision_kind} · Risk: {newer.risk_level or 'unspecified'}",
            f"Domains: {joined(newer.domains)} · Tags: {joined(newer.tags)}",
            f"Project alias: {newer.project_alias or '—'}",
        ]
        self.newer_text.setText("\n".join(lines))
        self.newer_box.show()
        self.message.show_error(conflict_text(newer))

    def show_failure(self, text: str, field: str = "") -> None:
        """Shows why the save failed; a store error about one field marks that field."""
        self._saving = False
        self.save_button.setEnabled(True)
        if text == NO_CHANGES_TEXT:
            self.message.show_hint(text)
            return
        widget = self._field_widget(field)
        if widget is not None:
            self._mark([FieldProblem(widget, text)])
        self.message.show_error(text)

    def _field_widget(self, field: str) -> QWidget | None:
        """The form field a record field (as the store names it, "tags[3]" too) is edited in."""
        name = field.split("[", 1)[0].split(".", 1)[0]
        widgets: dict[str, QWidget] = {
            "selection_reason_raw": self.reason,
            "custom_selection": self.custom,
            "decision_kind": self.kind,
            "risk_level": self.risk,
            "tags": self.tags,
            "domains": self.domains,
            "project_alias": self.alias,
            "correction_note": self.note,
        }
        return widgets.get(name)

    @property
    def message_text(self) -> str:
        return self.message.label.text()
