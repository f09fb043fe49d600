"""Everything recorded about one decision besides the fork itself, as an audit would read it.

Why plain labels in fixed sections: the record is agent- and user-written text, so nothing is
ever interpreted as HTML; and the sections (ledger, evidence, provenance, redaction,
lifecycle, summary) keep the same place for every record, so a reader compares records by
position. The Korean summary is the stored sentence (or the one the store would generate);
the English rendering is display-only and never stored.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from app.gui.formatting import NO_VALUE, display_time_precise, joined, percent
from core.models import DecisionRecord
from core.outcomes import ACCEPT, AMEND, REDIRECT, record_outcome
from core.summary import REASON_MISSING, english_summary, korean_summary
from core.text import go_trim

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


def redaction_text(record: DecisionRecord) -> str:
    if not record.redaction.redacted:
        return "Nothing was redacted."
    patterns = joined(record.redaction.patterns)
    return f"Redacted at write time; patterns that fired: {patterns}"


def provenance_text(record: DecisionRecord) -> str:
    p = record.provenance
    return (
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
    """The derived outcome against the recommendation (`core.outcomes.record_outcome`)."""
    outcome = record_outcome(record)
    return NO_OUTCOME if outcome is None else OUTCOME_TEXT.get(outcome, str(outcome))


class DecisionDetails(QWidget):
    """Read-only sections under the fork view; `show_record(None)` clears them."""

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
        layout.addStretch(1)

    def text(self, name: str) -> str:
        return self.values[name].text()

    def show_record(self, record: DecisionRecord | None) -> None:
        if record is None:
            for label in self.values.values():
                label.setText(NO_VALUE)
            return
        stored = go_trim(record.summary_sentence)
        generated = korean_summary(record)
        korean = stored or (
            f"{generated} (not stored yet; as the store writes it)" if generated else ""
        )
        values = {
            "summary-ko": korean,
            "summary-en": english_summary(record),
            "ledger": "\n".join(ledger_lines(record)),
            "evidence": "\n".join(record.evidence_refs) or "No evidence references recorded.",
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
            self.values[name].setText(text or NO_VALUE)
