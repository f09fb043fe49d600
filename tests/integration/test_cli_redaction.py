"""No secret of a recognised family reaches the journal directory, whatever path brought it:
`ask` (pending and the reply to the agent), `import`, `edit`, `list`'s index, `export`; and
`doctor --redact` removes the ones an older version wrote."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

from core.record.codec import encode_record
from tests.factories import make_record, proposal_dict
from tests.integration.cli_runner import ROOT, run_cli
from tests.integration.stored_bytes import stored_bytes

HEX32 = "7c1e9a4b2d8f3065a1b9c7e2d4f60813"
SECRETS = {
    "sendgrid": "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",
    "telegram": "7312894055:AAHk3Lq9ZxV2mN8pR4tY6uW1sD5fG7hJ0kQ",
    "azure": base64.b64encode(bytes(range(7, 71))).decode(),
    "discord": "MTk4NjIyNDgzNDcxOTI1MjQ4.Gh7K2p.Xq9vLm3RtY8uWz1sD4fG6hJ0kL2aQ5eR7tYu9i",
    "mailgun": "key-3b8e1f6a9c2d4e7b0a5f8c1d6e9b2a4f",
    "datadog": "0f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "shopify": "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",
    "basic": base64.b64encode(b"deploy:Kq7!vR2pLx").decode(),
    "prose": "hunter2xyz!",
    "pair": "Winter2024!",
    "short": "Tr0ub4dor549",
}
# Public by design, so they stay: a Twilio account and API key SID, a key's private_key_id.
PUBLIC = {
    "twilio_sid": "AC" + HEX32,
    "twilio_key": "SK" + HEX32[::-1],
    "gcp_key_id": "4f0d2c9e8b7a61530e2d4c6b8a0f1e3d5c7b9a2e",
}
TEXT = (
    f"SendGrid {SECRETS['sendgrid']}; Twilio {PUBLIC['twilio_sid']} and {PUBLIC['twilio_key']}; "
    f"bot {SECRETS['telegram']}; AccountName=a;AccountKey={SECRETS['azure']}; "
    f'"private_key_id": "{PUBLIC["gcp_key_id"]}"; discord {SECRETS["discord"]}; '
    f"MAILGUN_API_KEY={SECRETS['mailgun']}; DD_API_KEY={SECRETS['datadog']}; "
    f"{SECRETS['shopify']}; Authorization: Basic {SECRETS['basic']}; "
    f"the password is {SECRETS['prose']} and login root / {SECRETS['pair']}; "
    f"DB_PASSWORD={SECRETS['short']}"
)


def _leaks(root: Path, *outputs: str) -> dict[str, list[str]]:
    """Every secret found in any file under root (the SQLite index and WAL included, and the
    records the index caches packed) or output."""
    found: dict[str, list[str]] = {}
    places = stored_bytes(root)
    places += [(f"output {n}", out.encode()) for n, out in enumerate(outputs)]
    for name, value in SECRETS.items():
        where = [place for place, data in places if value.encode() in data]
        if where:
            found[name] = where
    return found


def _ask_without_app(journal: Path, tmp_path: Path, proposal: dict[str, object]) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(PYTHONPATH=str(ROOT), XDG_RUNTIME_DIR=str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700, exist_ok=True)
    result = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "--journal", str(journal), "ask", "-",
         "--no-app", "--no-terminal", "--workspace", str(ROOT), "--session", "s-1"],
        input=json.dumps(proposal), env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return result.stdout + result.stderr


def test_no_path_writes_a_secret_anywhere(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    proposal = proposal_dict()
    proposal["problem"] = f"Where do the credentials go? {TEXT}"
    reply = _ask_without_app(journal, tmp_path, proposal)
    assert list((journal / "pending").glob("decision-*.json"))

    records = tmp_path / "records.json"
    record = make_record(id="decision-imported", selection_reason_raw=TEXT, tags=[TEXT[:200]])
    records.write_text("[" + encode_record(record).decode() + "]")
    imported = run_cli(journal, "import", str(records))
    assert imported.returncode == 0, imported.stderr
    edited = run_cli(
        journal, "edit", "decision-imported", "--expected-revision", "1", "--reason", TEXT
    )
    assert edited.returncode == 0, edited.stderr
    listed = run_cli(journal, "list", "--json")
    shown = run_cli(journal, "show", "decision-imported", "--json")
    exported = run_cli(journal, "export", "--private")
    assert "[REDACTED:" in shown.stdout
    assert (journal / "cache" / "index.sqlite3").exists()
    outputs = (reply, imported.stdout, edited.stdout, listed.stdout, shown.stdout, exported.stdout)
    assert _leaks(journal, *outputs) == {}


def _old_version_journal(tmp_path: Path) -> Path:
    """A journal whose record an older version wrote, before these patterns existed."""
    journal = tmp_path / "journal"
    seeded = run_cli(journal, "import", str(_clean_export(tmp_path)))
    assert seeded.returncode == 0, seeded.stderr
    old = make_record(
        id="decision-old", revision=1, schema_version=1, status="completed",
        selection_reason_raw=TEXT,
    )  # fmt: skip
    old.created_at = old.updated_at = "2026-01-02T03:04:05Z"  # type: ignore[assignment]
    path = journal / "records" / "decision-old.json"
    path.write_bytes(encode_record(old))
    path.chmod(0o600)
    assert run_cli(journal, "list").returncode == 0  # the index now holds the secrets too
    outcomes = journal / "outcomes" / "signals.ndjson"  # an outcome note an older version kept
    outcomes.parent.mkdir(mode=0o700, exist_ok=True)
    outcomes.write_text(json.dumps({"decision_id": "decision-old", "note": TEXT}) + "\n")
    outcomes.chmod(0o600)
    return journal


def _clean_export(tmp_path: Path) -> Path:
    target = tmp_path / "clean.json"
    target.write_text("[" + encode_record(make_record(id="decision-clean")).decode() + "]")
    return target


def test_doctor_redact_asks_first_then_rewrites_and_purges(tmp_path: Path) -> None:
    journal = _old_version_journal(tmp_path)
    assert _leaks(journal)

    unconfirmed = run_cli(journal, "doctor", "--redact")
    assert unconfirmed.returncode == 2
    assert "decision-old revision 1: " in unconfirmed.stdout
    assert "add --yes" in unconfirmed.stderr
    assert json.loads(run_cli(journal, "show", "decision-old", "--json").stdout)["revision"] == 1

    done = run_cli(journal, "doctor", "--redact", "--yes", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["rewritten"] == [{"id": "decision-old", "revision": 2}]
    assert summary["other_files_rewritten"] == [str(journal / "outcomes" / "signals.ndjson")]
    assert summary["index_rebuilt"] is True
    leaks = _leaks(journal)
    assert leaks and all("/history/" in place for places in leaks.values() for place in places)

    purged = run_cli(journal, "doctor", "--redact", "--yes", "--purge-history")
    assert purged.returncode == 0, purged.stderr
    assert "Purged decision-old history revisions 1 in place." in purged.stdout
    assert _leaks(journal) == {}
    history = run_cli(journal, "history", "decision-old", "--json")
    assert history.returncode == 0, history.stderr
    again = run_cli(journal, "doctor", "--redact")
    assert again.returncode == 0
    assert "No record or history revision holds text" in again.stdout
