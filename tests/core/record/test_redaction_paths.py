"""Every writer other than the record store redacts the new families too: agent notes,
capture-window drafts and correction notes never put a secret on disk."""

from __future__ import annotations

from pathlib import Path

from core.agents.notes import NoteStore
from core.capture.drafts import Draft, DraftStore
from core.store.correction_notes import CorrectionNotes

SECRETS = {
    "sendgrid": "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",
    "telegram": "7312894055:AAHk3Lq9ZxV2mN8pR4tY6uW1sD5fG7hJ0kQ",
    "datadog": "0f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "shopify": "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",
    "prose": "hunter2xyz!",
    "short": "Tr0ub4dor549",
}
TEXT = (
    f"{SECRETS['sendgrid']} {SECRETS['telegram']} DD_API_KEY={SECRETS['datadog']} "
    f"{SECRETS['shopify']} the password is {SECRETS['prose']}; DB_PASSWORD={SECRETS['short']}"
)


def _leaked(root: Path) -> list[str]:
    data = b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())
    return [name for name, value in SECRETS.items() if value.encode() in data]


def test_agent_notes_are_redacted_before_they_are_appended(tmp_path: Path) -> None:
    note = NoteStore(tmp_path).append(
        workspace=str(tmp_path / "project"), decision="Keep the relay", why=TEXT, evidence=TEXT
    )
    assert "[REDACTED:" in note.why
    assert _leaked(tmp_path) == []


def test_drafts_are_redacted_before_they_are_saved(tmp_path: Path) -> None:
    saved = DraftStore(tmp_path).save(
        Draft(
            decision_id="decision-1",
            custom_selection=TEXT,
            selection_reason=TEXT,
            rejections={"a": TEXT},
        )
    )
    assert saved is not None and "[REDACTED:" in saved.selection_reason
    assert _leaked(tmp_path) == []


def test_correction_notes_are_redacted_before_they_are_written(tmp_path: Path) -> None:
    written = CorrectionNotes(tmp_path).write("decision-1", 2, TEXT, author="dev")
    assert written is not None
    assert _leaked(tmp_path) == []
