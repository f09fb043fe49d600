"""Everything recorded about one decision besides the fork itself, as an audit would read it.

Why plain labels in fixed sections: the record is agent- and user-written text, so nothing is
ever interpreted as HTML; and the sections (ledger, evidence, provenance, redaction,
lifecycle, summary) keep the same place for every record, so a reader compares records by
position. The Korean summary is the stored sentence (or the one the store would generate);
the English rendering is display-only and never stored; a setting picks which comes first.
Evidence references are the one exception to plain text: each is an escaped link, a file path
(resolved against the record's workspace, `path:line` included) or a web address, which the
window opens in the editor or the browser.
"""

from __future__ import annotations

import html
import re
from pathlib import Path, PurePosixPath

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from app.gui.journal.formatting import NO_VALUE, display_time_precise, joined, percent
from core.gocompat.text import go_trim
from core.messages.language import ENGLISH, KOREAN
from core.outcomes.verdict import ACCEPT, AMEND, REDIRECT, record_outcome
from core.record.controls import visible_controls
from core.record.models import DecisionRecord
from core.record.origin import is_automatic
from core.record.summary import REASON_MISSING, english_summary, korean_summary

SUMMARY_ENGLISH = ENGLISH
SUMMARY_KOREAN = KOREAN
NO_EVIDENCE = "No evidence references recorded."
_WEB = re.compile(r"^https?://\S+$", re.IGNORECASE)
_LINE_SUFFIX = re.compile(r"^(?P<path>.+?)(?::\d+){1,2}$")
_PATH_LIKE = re.compile(r"^[\w.~/\\-][^\s]*$")

SECTIONS = (
    "Summary",
    "Rationale ledger",
    "Evidence",
    "Provenance and scope",
    "Redaction",
    "Lifecycle",
)


def _value_label(parent: QWidget, name: str) -> QLabel:
    label = QLabel(NO_VALUE, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setObjectName(f"detail-{name}")
    label.setAccessibleName(name.replace("-", " "))
    return label


def ledger_lines(record: DecisionRecord) -> list[str]:
    """Why the selection won, then why each other approach lost, in option order."""
    selected = record.selected_label() or NO_VALUE
    lines = [f"Selected {selected}: {go_trim(record.selection_reason_raw) or REASON_MISSING}"]
    for rejection in record.rejected_reasons:
        label = go_trim(record.option_label(rejection.option_id)) or rejection.option_id
        lines.append(f"Rejected {label}: {go_trim(rejection.reason) or REASON_MISSING}")
    return lines


def evidence_url(ref: str, workspace: str) -> QUrl | None:
    """Where an evidence reference points: a web address, or a file (`path:line` keeps the path).

    A relative path resolves against the decision's workspace; text that is neither (a ticket
    number, a sentence) has no address and stays plain.
    """
    text = ref.strip()
    if _WEB.match(text):
        url = QUrl(text)
        return url if url.isValid() else None
    if text.lower().startswith("file://"):
        return QUrl(text)
    match = _LINE_SUFFIX.match(text)
    path_text = match.group("path") if match else text
    if not _PATH_LIKE.match(path_text) or not ("/" in path_text or "." in path_text):
        return None
    if path_text.startswith("~/"):
        return QUrl.fromLocalFile(str(Path(path_text).expanduser()))
    path = PurePosixPath(path_text)
    if not path.is_absolute():
        if not workspace:
            return None
        path = PurePosixPath(workspace) / path
    return QUrl.fromLocalFile(str(path))


def evidence_html(refs: list[str], workspace: str) -> str:
    """The references one per line, each with an address a link; everything escaped."""
    lines = []
    for number, ref in enumerate(refs):
        shown = html.escape(ref)
        if evidence_url(ref, workspace) is None:
            lines.append(shown)
        else:
            lines.append(f'<a href="evidence:{number}">{shown}</a>')
    return "<br>".join(lines)


def redaction_text(record: DecisionRecord) -> str:
    if not record.redaction.redacted:
        return "Nothing was redacted."
    patterns = joined(record.redaction.patterns)
    return f"Redacted at write time; patterns that fired: {patterns}"


AUTOMATIC_ORIGIN = (
    "Answered by your preference profile, not asked (overrule it: decision-journal overrule "
    "ID --select OPTION). "
)


def provenance_text(record: DecisionRecord) -> str:
    p = record.provenance
    origin = AUTOMATIC_ORIGIN if is_automatic(record) else ""
    return origin + (
        f"options: {p.options or NO_VALUE} · selection: {p.selection or NO_VALUE} · "
        f"rationale: {p.rationale or NO_VALUE} · summary: {p.summary or NO_VALUE}"
    )


OUTCOME_TEXT = {
    ACCEPT: "accept: the agent's recommendation was taken",
    AMEND: "amend: the answer builds on the agent's recommendation",
    REDIRECT: "redirect: a different option than the agent recommended",
}
NO_OUTCOME = "none: the agent made no recommendation"


def outcome_text(record: DecisionRecord) -> str:
    """The derived outcome against the recommendation (`core.outcomes.verdict.record_outcome`)."""
    outcome = record_outcome(record)
    return NO_OUTCOME if outcome is None else OUTCOME_TEXT.get(outcome, str(outcome))


class DecisionDetails(QWidget):
    """Read-only sections under the fork view; `show_record(None)` clears them.

    Signals:
        evidence_activated(QUrl): an evidence link was clicked (or activated by keyboard).
    """

    evidence_activated = Signal(QUrl)

    _FIELDS: tuple[tuple[str, str, str], ...] = (
        ("Summary", "summary-ko", "Korean"),
        ("Summary", "summary-en", "English"),
        ("Rationale ledger", "ledger", "Ledger"),
        ("Evidence", "evidence", "Evidence refs"),
        ("Evidence", "fingerprints", "Fingerprints"),
        ("Provenance and scope", "provenance", "Provenance"),
        ("Provenance and scope", "outcome", "Outcome"),
        ("Provenance and scope", "confidence", "Detector confidence"),
        ("Provenance and scope", "risk", "Risk"),
        ("Provenance and scope", "kind", "Kind"),
        ("Provenance and scope", "domains", "Domains"),
        ("Provenance and scope", "languages", "Languages"),
        ("Provenance and scope", "tags", "Tags"),
        ("Provenance and scope", "project", "Project"),
        ("Provenance and scope", "workspace", "Workspace"),
        ("Provenance and scope", "session", "Session"),
        ("Redaction", "redaction", "State"),
        ("Lifecycle", "status", "Status"),
        ("Lifecycle", "revision", "Revision"),
        ("Lifecycle", "created", "Created"),
        ("Lifecycle", "updated", "Updated"),
        ("Lifecycle", "deleted", "Deleted at"),
        ("Lifecycle", "id", "Decision ID"),
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.values: dict[str, QLabel] = {}
        self._refs: list[str] = []
        self._workspace = ""
        self._record: DecisionRecord | None = None
        self._summary_first = SUMMARY_ENGLISH
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        forms: dict[str, QFormLayout] = {}
        for title in SECTIONS:
            box = QGroupBox(title, self)
            box.setObjectName(f"section-{title.lower().replace(' ', '-')}")
            form = QFormLayout(box)
            form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            forms[title] = form
            layout.addWidget(box)
        for section, name, caption in self._FIELDS:
            value = _value_label(self, name)
            key = QLabel(caption, self)
            key.setForegroundRole(QPalette.ColorRole.PlaceholderText)
            key.setBuddy(value)
            forms[section].addRow(key, value)
            self.values[name] = value
        form = forms["Summary"]
        self._summary_rows = [
            (form.labelForField(self.values[name]), self.values[name])
            for name in ("summary-ko", "summary-en")
        ]
        evidence = self.values["evidence"]
        evidence.setTextFormat(Qt.TextFormat.RichText)
        evidence.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        evidence.setOpenExternalLinks(False)
        evidence.linkActivated.connect(self._evidence_link)
        layout.addStretch(1)
        self.set_summary_first(SUMMARY_ENGLISH)

    @property
    def summary_first(self) -> str:
        return self._summary_first

    def set_summary_first(self, language: str) -> None:
        """Puts the English rendering or the stored Korean sentence at the top of the summary.

        The two rows stay where they are; their captions and texts trade places.
        """
        self._summary_first = SUMMARY_KOREAN if language == SUMMARY_KOREAN else SUMMARY_ENGLISH
        order = [("summary-en", "English"), ("summary-ko", "Korean")]
        if self._summary_first == SUMMARY_KOREAN:
            order.reverse()
        for (key, value), (name, caption) in zip(self._summary_rows, order, strict=True):
            if isinstance(key, QLabel):
                key.setText(caption)
            value.setObjectName(f"detail-{name}")
            value.setAccessibleName(f"{caption} summary")
            self.values[name] = value
        self.show_record(self._record)

    def summary_order(self) -> list[str]:
        """The summary rows' names top to bottom (tests and screenshots check it)."""
        return [
            name
            for _key, value in self._summary_rows
            for name, label in self.values.items()
            if label is value and name.startswith("summary-")
        ]

    def _evidence_link(self, href: str) -> None:
        number = href.removeprefix("evidence:")
        if number.isdigit() and int(number) < len(self._refs):
            url = evidence_url(self._refs[int(number)], self._workspace)
            if url is not None:
                self.evidence_activated.emit(url)

    def evidence_refs(self) -> list[str]:
        return list(self._refs)

    def activate_evidence(self, number: int) -> None:
        """What a click on the nth evidence link does (keyboard activation calls it too)."""
        self._evidence_link(f"evidence:{number}")

    def text(self, name: str) -> str:
        return self.values[name].text()

    def show_record(self, record: DecisionRecord | None) -> None:
        self._record = record
        if record is None:
            self._refs, self._workspace = [], ""
            for label in self.values.values():
                label.setText(NO_VALUE)
            return
        self._refs, self._workspace = list(record.evidence_refs), record.workspace
        stored = go_trim(record.summary_sentence)
        generated = korean_summary(record)
        korean = stored or (
            f"{generated} (not stored yet; as the store writes it)" if generated else ""
        )
        values = {
            "summary-ko": korean,
            "summary-en": english_summary(record),
            "ledger": "\n".join(ledger_lines(record)),
            "evidence": evidence_html(record.evidence_refs, record.workspace) or NO_EVIDENCE,
            "fingerprints": (
                f"task {record.task_fingerprint or NO_VALUE} · "
                f"evidence {record.evidence_fingerprint or NO_VALUE}"
            ),
            "provenance": provenance_text(record),
            "outcome": outcome_text(record),
            "confidence": percent(record.detector_confidence),
            "risk": record.risk_level or "unspecified",
            "kind": record.decision_kind,
            "domains": joined(record.domains),
            "languages": joined(record.languages),
            "tags": joined(record.tags),
            "project": f"{record.project_alias or NO_VALUE} ({record.project_id or NO_VALUE})",
            "workspace": record.workspace,
            "session": record.session_id,
            "redaction": redaction_text(record),
            "status": record.status,
            "revision": str(record.revision),
            "created": display_time_precise(record.created_at),
            "updated": display_time_precise(record.updated_at),
            "deleted": display_time_precise(record.deleted_at),
            "id": record.id,
        }
        for name, text in values.items():
            self.values[name].setText(visible_controls(text) or NO_VALUE)
