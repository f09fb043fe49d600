"""decider: the owner-decision ledger (SQLite, v1 and v2 rows), honouring its exclusion rules.

Rows with 2 or more options and an answer become records (question -> problem, category or v1
`class` -> kind, `recommended` -> the recommended option, `answer` -> the selection, a free
answer -> custom text). Decision-note rows (no options) become notes. Excluded rows are never
written anywhere, not even to the import ledger. The table layout is read, not assumed: any
table with a `key` column and either a JSON row column or plain row columns is accepted.
Key: `decider:<row key>`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.gocompat.text import collapse_spaces
from core.importers.answers import answer_parts, selection
from core.importers.base import ImportContext, Item, ItemError, NoteItem, Skip
from core.importers.locate import named_identity
from core.importers.ndjson_source import first_text, parse_when
from core.importers.notes_sink import ImportedNote
from core.importers.shaping import SourceDecision, SourceOption, kind_slug, record_from_source
from core.importers.sources.decider_policy import ExclusionPolicy, exclusion_reason
from core.outcomes.verdict import extends_label, strip_recommended
from core.record.identity import ProjectIdentity, project_identity

KIND = "decider"
DEFAULT_KIND = "owner_decision"
_JSON_COLUMNS = ("row_json", "row", "data", "json", "payload", "value", "body")
_PREFERRED = ("ledger", "ledger_rows", "rows", "entries", "owner_decisions")


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)


def _ledger_table(db: sqlite3.Connection) -> tuple[str, list[str]] | None:
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    names.sort(key=lambda n: (_PREFERRED.index(n) if n in _PREFERRED else len(_PREFERRED), n))
    for name in names:
        columns = [r[1] for r in db.execute(f'PRAGMA table_info("{name}")')]
        if "key" in columns and (set(columns) & {*_JSON_COLUMNS, "question"}):
            return name, columns
    return None


def _row_dict(columns: list[str], values: tuple[Any, ...]) -> dict[str, Any]:
    raw = dict(zip(columns, values, strict=True))
    for name in _JSON_COLUMNS:
        text = raw.get(name)
        if isinstance(text, str | bytes) and text[:1] in ("{", b"{"):
            decoded = json.loads(text)
            if isinstance(decoded, dict):
                return {"key": raw["key"], **decoded}
    for name in ("options", "answer", "mentionedInitiatives", "mentioned_initiatives"):
        text = raw.get(name)
        if isinstance(text, str) and text[:1] in ("[", "{"):
            raw[name] = json.loads(text)
    return raw


class DeciderImporter:
    kind = KIND

    def __init__(self, policy: ExclusionPolicy | None = None) -> None:
        self.policy = policy or ExclusionPolicy()
        self._identities: dict[str, ProjectIdentity] = {}

    def items(self, source: Path, ctx: ImportContext) -> Iterator[Item]:
        try:
            db = _connect(source)
            found = _ledger_table(db)
        except sqlite3.Error as exc:
            yield ItemError(str(source), f"cannot open the ledger: {exc}")
            return
        if found is None:
            db.close()
            yield ItemError(str(source), "no ledger table (a table with a key column) found")
            return
        table, columns = found
        with db:
            ctx.set_total(int(db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]))
            for values in db.execute(f'SELECT * FROM "{table}" ORDER BY rowid'):
                yield self._row_item(columns, values)
                ctx.step()
        db.close()

    def _row_item(self, columns: list[str], values: tuple[Any, ...]) -> Item:
        try:
            row = _row_dict(columns, values)
        except (ValueError, TypeError) as exc:
            digest = hashlib.sha256(repr(values).encode()).hexdigest()[:16]
            return Skip(f"{KIND}:row-{digest}", f"unreadable ledger row: {exc}")
        key = f"{KIND}:{row.get('key')}"
        excluded = exclusion_reason(row, self.policy)
        if excluded:
            return Skip(key, excluded)
        options = _options(row)
        question = first_text(row, "question", "header")
        if not options:
            return self._note(row, key, question)
        return record_from_source(self._decision(row, key, question, options))

    def _decision(
        self, row: dict[str, Any], key: str, question: str, options: list[SourceOption]
    ) -> SourceDecision:
        labels = [o.label for o in options]
        parts = answer_parts(row.get("answer"), labels, multi=True)
        chosen, custom, also = selection(parts, labels) if parts else (None, "", ())
        initiative = first_text(row, "initiative")
        tags = [f"initiative:{initiative}"] if initiative else []
        if row.get("unclaimed") is True or not initiative:
            tags.append("unclaimed")
        if first_text(row, "answered_by", "answeredBy") == "decider":
            tags.append("answered-by-decider")
        return SourceDecision(
            importer=KIND,
            key=key,
            problem=question or "(question not recorded)",
            decision_kind=kind_slug(first_text(row, "category", "class", "header"), DEFAULT_KIND),
            options=tuple(options),
            identity=self._identity(first_text(row, "cwd"), initiative),
            chosen=chosen,
            custom=custom,
            also_chosen=also,
            amended=tuple(
                i for i, label in enumerate(labels) if custom and extends_label(custom, label)
            ),
            reason=first_text(row, "rationale", "reason", "why", "notes"),
            when=parse_when(row, "asked_at", "answered_at", "askedAt"),
            session_id=first_text(row, "session", "session_id"),
            tags=tuple(tags),
            evidence_refs=(key,),
        )

    def _note(self, row: dict[str, Any], key: str, question: str) -> Item:
        answer = row.get("answer")
        text = ", ".join(str(a) for a in answer) if isinstance(answer, list) else str(answer or "")
        if not question and not text:
            return Skip(key, "row has neither a question nor an answer")
        note = ImportedNote.of(
            workspace=first_text(row, "cwd"),
            decision=question or text,
            why=text if question else "",
            evidence=key,
            goal=first_text(row, "initiative"),
            agent="decider ledger",
        )
        return NoteItem(key, note, parse_when(row, "asked_at", "askedAt"))

    def _identity(self, cwd: str, initiative: str) -> ProjectIdentity:
        """The row's working directory; else a stable identity named after its initiative."""
        token = cwd or f"initiative:{initiative}"
        identity = self._identities.get(token)
        if identity is None:
            if cwd or not initiative:
                identity = project_identity(cwd)
            else:
                identity = named_identity("initiative", initiative)
            self._identities[token] = identity
        return identity


def _options(row: dict[str, Any]) -> list[SourceOption]:
    raw = row.get("options")
    recommended = collapse_spaces(strip_recommended(str(row.get("recommended") or ""))).casefold()
    options = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict):
            label, description = str(item.get("label") or ""), str(item.get("description") or "")
        else:
            label, description = str(item), ""
        if not label.strip():
            continue
        folded = collapse_spaces(strip_recommended(label)).casefold()
        options.append(
            SourceOption(label, description, bool(recommended) and folded == recommended)
        )
    return options
