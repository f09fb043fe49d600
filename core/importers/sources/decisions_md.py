"""decisions-md: a Markdown decision log (Date | Decision | Reason tables, an Open table).

Rows of a decided table become records with `imported` provenance. An "Alternatives" column
gives the rejected options (their reasons are not recorded in such logs, and the record says
so); without one the log names only what was chosen, so the record gets an explicit
"alternatives not recorded" option. A "Revisit when" column becomes a note beside the record
(and a `revisit` tag), since the record format has no field for it; a "Layer" or "Topic" column
names what the decision is about. Rows of an open table
(a section named Open, Pending or Proposed, or a table with a "Needed by" column) become pending
decisions when the row lists 2-4 options with exactly one marked recommended or leading
("Options: A (recommended); B"); otherwise they are kept as notes with their "needed by", since
a pending decision needs options to ask about.

Keys: `decisions-md:<project>:<path>:<section>:<row id or text hash>`. A row whose text is later
edited is a new row to the importer (the old record stays as it was).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from core.capture.pending import PendingDecision
from core.capture.proposal import parse_proposal
from core.errors import InvalidDecision
from core.gocompat.gotime import GoTime
from core.gocompat.text import collapse_spaces, go_trim
from core.importers.base import ImportContext, Item, ItemError, NoteItem, PendingItem, Skip
from core.importers.locate import locate
from core.importers.markdown import Table, plain, tables
from core.importers.notes_sink import ImportedNote
from core.importers.shaping import (
    SourceDecision,
    SourceOption,
    record_from_source,
    source_fingerprints,
)
from core.importers.source_file import SourceRefused, read_source_text
from core.outcomes.verdict import is_recommended_label, strip_recommended
from core.record.fields import number_rule, rule
from core.record.identity import ProjectIdentity
from core.record.validation import fits_bytes

KIND = "decisions-md"
DECISION_KIND = "decision_log"
AGENT = "decisions-md import"
_ISO_DATE = re.compile(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b")
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>[A-Za-z]{3,9})\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_WORD_DATES = (
    re.compile(rf"\b{_DAY}\s+{_MONTH},?\s+(?P<year>\d{{4}})\b"),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+(?P<year>\d{{4}})\b"),
)
_SENTENCE = re.compile(r"^(.+?[.!?])(?:\s|$)")
_OPTIONS = re.compile(r"\boptions?\s*:\s*(.+?)(?:\.(?:\s|$)|$)", re.IGNORECASE)
_OPEN_SECTIONS = ("open", "pending", "proposed", "undecided")
_DECISION_COLUMNS = ("decision", "decided", "change", "what", "title")
_TOPIC_COLUMNS = ("layer", "topic", "area", "subject", "question")
_ALTERNATIVE_COLUMNS = (
    "alternatives",
    "alternatives considered",
    "rejected",
    "rejected alternatives",
    "options considered",
)
_REVISIT_COLUMNS = ("revisit when", "revisit", "review when", "revisit trigger")
_NOTHING = ("", "-", "—", "–", "none", "n/a", "na", "tbd")
_REASON_COLUMNS = ("reason", "why", "rationale", "evidence or reason", "evidence", "because")
_NEEDED_COLUMNS = ("needed by", "needed", "due", "deadline", "by")
_ID_COLUMNS = ("#", "id", "no", "no.", "number", "adr")


def parse_date(text: str) -> GoTime | None:
    """The day a cell names: "2024-03-02", "2024/3/2", "14 May 2024", "May 14, 2024".

    Day and month as two numbers in either order ("03/04/2024") are not read: 3 April and
    March 4 are both plausible, and a wrong date is worse than the import date.
    """
    match = _ISO_DATE.search(text)
    if match is not None:
        return _day(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    for pattern in _WORD_DATES:
        for found in pattern.finditer(text):
            month = _MONTHS.get(found.group("month").casefold())
            if month is not None:
                return _day(int(found.group("year")), month, int(found.group("day")))
    return None


def _day(year: int, month: int, day: int) -> GoTime | None:
    """Midnight UTC of that day; None for a day the calendar lacks (31 February)."""
    try:
        return GoTime.parse(f"{date(year, month, day).isoformat()}T00:00:00Z")
    except ValueError:
        return None


def first_sentence(text: str) -> str:
    match = _SENTENCE.match(text)
    sentence = match.group(1) if match else text
    return sentence if fits_bytes(sentence, rule("option.label").most) else text[:120] + "…"


def markdown_files(source: Path) -> list[Path]:
    if source.is_file():
        return [source]
    return sorted(p for p in source.rglob("*.md") if p.is_file() and not p.is_symlink())


class DecisionsMdImporter:
    kind = KIND

    def items(self, source: Path, ctx: ImportContext) -> Iterator[Item]:
        files = markdown_files(source)
        ctx.set_total(len(files))
        for path in files:
            try:
                text = read_source_text(path)
            except (OSError, UnicodeDecodeError, SourceRefused) as exc:
                yield ItemError(str(path), f"cannot read the decision log: {exc}")
                continue
            identity, relative = locate(path)
            for table in tables(text):
                yield from _table_items(table, identity, f"{identity.project_id}:{relative}")
            ctx.step()


def _is_open(table: Table) -> bool:
    section = table.section.casefold()
    return any(word in section for word in _OPEN_SECTIONS) or (
        table.column(*_NEEDED_COLUMNS) is not None and table.column("date") is None
    )


def _cell(cells: list[str], index: int | None) -> str:
    if index is None or index >= len(cells):
        return ""
    return collapse_spaces(plain(cells[index]))


def _table_items(table: Table, identity: ProjectIdentity, where: str) -> Iterator[Item]:
    decision_col = table.column(*_DECISION_COLUMNS)
    id_col = table.column(*_ID_COLUMNS)
    section = re.sub(r"[^a-z0-9]+", "-", table.section.casefold()).strip("-") or "table"
    for line, cells in table.rows:
        text = _cell(cells, decision_col)
        row_id = _cell(cells, id_col) or hashlib.sha256(text.encode()).hexdigest()[:16]
        key = f"{KIND}:{where}:{section}:{row_id}"
        location = f"{where.split(':', 1)[1]}:{line}"
        if decision_col is None:
            yield Skip(key, "table has no Decision or Change column", location)
        elif not text:
            yield Skip(key, "row has no decision text", location)
        elif _is_open(table):
            yield _open_item(key, text, _cell(cells, table.column(*_NEEDED_COLUMNS)), identity)
        else:
            yield from _decided_items(
                table, cells, identity, text=text, key=key, location=location, section=section
            )


def _decided_items(
    table: Table,
    cells: list[str],
    identity: ProjectIdentity,
    *,
    text: str,
    key: str,
    location: str,
    section: str,
) -> Iterator[Item]:
    """The row's record, and a note with its revisit condition when the log gives one."""
    topic = _cell(cells, table.column(*_TOPIC_COLUMNS))
    problem = f"{topic}: {text}" if topic else text
    alternatives = split_alternatives(_cell(cells, table.column(*_ALTERNATIVE_COLUMNS)))
    revisit = _cell(cells, table.column(*_REVISIT_COLUMNS))
    revisit = "" if revisit.casefold() in _NOTHING else revisit
    when = parse_date(_cell(cells, table.column("date", "when")))
    yield record_from_source(
        SourceDecision(
            importer=KIND,
            key=key,
            problem=problem,
            decision_kind=DECISION_KIND,
            options=(
                SourceOption(first_sentence(text), text),
                *(SourceOption(label) for label in alternatives),
            ),
            identity=identity,
            chosen=0,
            reason=_cell(cells, table.column(*_REASON_COLUMNS)),
            when=when,
            tags=(f"section:{section}", *(("revisit",) if revisit else ())),
            evidence_refs=(location,),
            only_chosen_named=not alternatives,
        )
    )
    if revisit:
        note = ImportedNote.of(
            workspace=identity.workspace,
            decision=f"Revisit: {problem}",
            why=f"Revisit when: {revisit}",
            evidence=key,
            agent=AGENT,
        )
        yield NoteItem(f"{key}:revisit", note, when)


def split_alternatives(cell: str) -> list[str]:
    """The alternatives a cell lists, split at commas and semicolons outside parentheses
    ("Cloud Run (fallback after a 3 h timebox), Render" is two); "none" and dashes are none."""
    if cell.casefold() in _NOTHING:
        return []
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in cell:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if ch in ",;" and depth <= 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [go_trim(part) for part in parts if go_trim(part).casefold() not in _NOTHING]


def open_options(text: str) -> list[SourceOption]:
    """Options listed as "Options: A (recommended); B" (also "or" and "/" separated)."""
    match = _OPTIONS.search(text)
    if match is None:
        return []
    raw = re.split(r";|\s/\s|\bor\b", match.group(1))
    options = []
    for part in (go_trim(p) for p in raw):
        if not part:
            continue
        leading = bool(re.search(r"\((?:leading|preferred)\)", part, re.IGNORECASE))
        label = re.sub(r"\s*\((?:leading|preferred)\)", "", part, flags=re.IGNORECASE)
        recommended = leading or is_recommended_label(label)
        options.append(SourceOption(strip_recommended(label), recommended=recommended))
    return options


def _open_item(key: str, text: str, needed: str, identity: ProjectIdentity) -> Item:
    options = open_options(text)
    if 2 <= len(options) <= 4 and sum(o.recommended for o in options) == 1:
        try:
            return PendingItem(key, _pending(key, text, needed, options, identity))
        except InvalidDecision:
            pass  # the proposal rules refuse it: keep the row as a note instead
    when = f"; needed by {needed}" if needed else ""
    return NoteItem(
        key,
        ImportedNote.of(
            workspace=identity.workspace,
            decision=f"Open decision: {text}",
            why=f"Still open in the decision log{when}.",
            evidence=key,
            agent=AGENT,
        ),
    )


def _pending(
    key: str, text: str, needed: str, options: list[SourceOption], identity: ProjectIdentity
) -> PendingDecision:
    """A pending decision the window can ask; confidence is the capture floor (not measured)."""
    task_fp, evidence_fp = source_fingerprints(key)
    raw = {
        "problem": text,
        "decision_kind": DECISION_KIND,
        "header": f"Needed by {needed}"[:200] if needed else "Open decision",
        "detector_confidence": number_rule("detector_confidence").least,
        "task_fingerprint": task_fp,
        "evidence_fingerprint": evidence_fp,
        "options": [
            {
                "id": f"option-{n}",
                "label": o.label,
                "description": o.label,
                "recommended": o.recommended,
            }
            for n, o in enumerate(options, start=1)
        ],
    }
    proposal = parse_proposal(raw, workspace=identity.workspace, session_id=KIND, agent=AGENT)
    return PendingDecision(proposal)
