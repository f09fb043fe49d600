"""doctor --redact's engine: records written before a pattern existed, rewritten without it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import core.record.redact_record
from core.errors import HistoryTampered, RevisionConflict
from core.index.scrub import scrub_index
from core.journal import Journal
from core.store.redaction_sweep import (
    find_unredacted,
    newly_found,
    purge_history,
    redact_current,
    redact_other_file,
    rewritable,
)
from tests.factories import make_record

PASSWORD = "Falcon1999#"
DATADOG = "0f8e7d6c5b4a39281706f5e4d3c2b1a0"


def _everything_under(root: Path) -> bytes:
    return b"".join(path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file())


@pytest.fixture
def journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Journal:
    """A journal one record of which an older version wrote: its secrets were not recognised.

    Revision 1 and 2 carry the secrets; the current file is revision 2; the index holds it.
    """
    journal = Journal(tmp_path / "journal")
    with monkeypatch.context() as old_version:
        old_version.setattr(core.record.redact_record, "redact_record", lambda record: record)
        journal.store.put(
            make_record(
                id="decision-old",
                selection_reason_raw=f"the password is {PASSWORD} on the build box",
            )
        )
        journal.store.revise(
            "decision-old", 1, lambda r: setattr(r, "tags", [f"DD_API_KEY={DATADOG}"])
        )
        journal.store.put(make_record(id="decision-clean"))
    journal.index.read_all_files()
    assert PASSWORD.encode() in _everything_under(journal.root / "cache")
    return journal


def test_the_survey_names_current_and_history_revisions_with_the_new_patterns(
    journal: Journal,
) -> None:
    survey = find_unredacted(journal.store)
    assert [(i.record_id, i.revision, i.in_history) for i in survey.found] == [
        ("decision-old", 2, False),
        ("decision-old", 1, True),
    ]
    assert survey.current[0].patterns == ("password_in_prose", "datadog_api_key")
    assert survey.history[0].patterns == ("password_in_prose",)
    assert not survey.problems


def test_a_clean_record_is_not_reported(journal: Journal) -> None:
    assert newly_found(journal.store.get("decision-clean")) is None


def test_current_records_become_a_new_revision_and_history_stays_until_purged(
    journal: Journal,
) -> None:
    item = find_unredacted(journal.store).current[0]
    record = redact_current(journal.store, item)
    assert record.revision == 3
    assert record.redaction.redacted
    assert {"password_in_prose", "datadog_api_key"} <= set(record.redaction.patterns)
    current = (journal.root / "records" / "decision-old.json").read_bytes()
    assert PASSWORD.encode() not in current and DATADOG.encode() not in current
    # History is immutable by default: revisions 1 and 2 keep what they said.
    assert PASSWORD.encode() in _everything_under(journal.root / "history")
    assert [i.revision for i in find_unredacted(journal.store).history] == [1, 2]


def test_purging_history_rewrites_each_revision_in_place_and_keeps_the_chain(
    journal: Journal,
) -> None:
    redact_current(journal.store, find_unredacted(journal.store).current[0])
    before = {r.revision: r for r in journal.store.history("decision-old")}
    assert purge_history(journal.store, "decision-old") == [1, 2]
    after = journal.store.history("decision-old")
    assert [r.revision for r in after] == [1, 2, 3]
    for revision in after[:2]:
        old = before[revision.revision]
        assert (revision.created_at, revision.updated_at) == (old.created_at, old.updated_at)
        assert revision.status == old.status
        assert revision.redaction.redacted
    everything = _everything_under(journal.root / "history")
    assert PASSWORD.encode() not in everything and DATADOG.encode() not in everything
    assert find_unredacted(journal.store).found == ()


def test_the_index_is_rebuilt_from_a_new_file_without_the_secret(journal: Journal) -> None:
    redact_current(journal.store, find_unredacted(journal.store).current[0])
    report = scrub_index(journal.index)
    assert report.added == 2
    cache = _everything_under(journal.root / "cache")
    assert PASSWORD.encode() not in cache and DATADOG.encode() not in cache
    assert [r.revision for r in journal.index.records(["decision-old"])] == [3]


def test_a_record_changed_since_the_survey_is_not_overwritten(journal: Journal) -> None:
    item = find_unredacted(journal.store).current[0]
    journal.store.revise("decision-old", 2, lambda r: setattr(r, "tags", ["moved on"]))
    with pytest.raises(RevisionConflict):
        redact_current(journal.store, item)
    assert journal.store.get("decision-old").revision == 3


def test_an_unreadable_record_is_a_problem_not_a_crash(journal: Journal) -> None:
    (journal.root / "records" / "broken.json").write_text("{not json")
    survey = find_unredacted(journal.store)
    assert [Path(p.path).name for p in survey.problems] == ["broken.json"]
    assert len(survey.current) == 1


def test_purging_refuses_history_changed_after_it_was_written(journal: Journal) -> None:
    revision = journal.root / "history" / "decision-old" / "revision-000001.json"
    revision.write_bytes(revision.read_bytes().replace(b"build box", b"build bot"))
    with pytest.raises(HistoryTampered):
        purge_history(journal.store, "decision-old")
    assert b"build bot" in revision.read_bytes() and PASSWORD.encode() in revision.read_bytes()


def test_other_writers_files_holding_a_secret_are_found(journal: Journal) -> None:
    pending = journal.root / "pending" / "decision-waiting.json"
    pending.parent.mkdir(mode=0o700, exist_ok=True)
    escaped = json.dumps({"problem": f"the password is {PASSWORD}"}, ensure_ascii=True)
    pending.write_text(escaped.replace("!", "\\u0021").replace("#", "\\u0023"))
    notes = journal.root / "notes" / "project-x.ndjson"
    notes.parent.mkdir(mode=0o700)
    notes.write_text('{"why": "fine"}\n' + json.dumps({"why": f"DD_API_KEY={DATADOG}"}) + "\n")
    (journal.root / "drafts").mkdir(mode=0o700)
    (journal.root / "drafts" / "clean.json").write_text('{"selection_reason": "cheaper"}')
    survey = find_unredacted(journal.store)
    assert [(Path(o.path).name, o.patterns) for o in survey.others] == [
        ("decision-waiting.json", ("password_in_prose",)),
        ("project-x.ndjson", ("datadog_api_key",)),
    ]
    assert PASSWORD.encode() not in pending.read_bytes()  # hidden by escapes, still found


def test_other_writers_files_are_rewritten_in_their_layout(journal: Journal) -> None:
    """A pending decision (indented JSON), an NDJSON outcome log and a correction note keep
    their layout and every other byte; only the secrets go, hidden by escapes or not."""
    pending = journal.root / "pending" / "decision-waiting.json"
    pending.parent.mkdir(mode=0o700, exist_ok=True)
    body = {"problem": f"the password is {PASSWORD}", "options": [{"label": "x"}]}
    pending.write_text(json.dumps(body, indent=2).replace("#", "\\u0023") + "\n")
    outcomes = journal.root / "outcomes" / "signals.ndjson"
    outcomes.parent.mkdir(mode=0o700)
    lines = [{"note": "fine", "ci": "pass"}, {"note": f"DD_API_KEY={DATADOG}", "score": 0.5}]
    outcomes.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for other in find_unredacted(journal.store).others:
        assert rewritable(journal.root, other)
        assert redact_other_file(journal.root, Path(other.path))
    assert find_unredacted(journal.store).others == ()
    saved = json.loads(pending.read_text())
    assert saved["problem"] == "the password is [REDACTED:password_in_prose]"
    assert saved["options"] == [{"label": "x"}]
    assert pending.read_text().startswith('{\n  "problem"') and pending.read_text().endswith("}\n")
    entries = [json.loads(line) for line in outcomes.read_text().splitlines()]
    assert entries[0] == lines[0] and entries[1]["score"] == 0.5
    assert DATADOG not in outcomes.read_text()
    assert oct(outcomes.stat().st_mode & 0o777) == "0o600"
    assert not redact_other_file(journal.root, outcomes)  # nothing left: nothing written
