"""MADR 4.0 export: one `NNNN-title-with-dashes.md` per decision plus an `index.md`.

Mapping decisions (MADR has no place for some of our facts):

* Status: MADR readers such as log4brains reject unknown words, so only canonical words are
  written. `completed` and `corrected` are `accepted` (a correction is a new revision of the same
  accepted decision); a soft-deleted decision is `deprecated`: it was accepted and then
  withdrawn, and MADR's `rejected` means a proposal that was never accepted.
* `date` is the day of the last update, as MADR asks; `decision-makers` comes from the
  selection's provenance (the capture path records `user`).
* Readers of both generations: MADR 4 readers (Backstage, python-frontmatter) take status,
  date and decision-makers from the front matter; log4brains 1.1 reads only the MADR 2 bullet
  list under the title (`* Status:`, `* Date:`, `* Deciders:`, `* Tags:`) and renders the front
  matter as Markdown. So both are written, and the front matter ends with a blank line before
  its closing `---`: without it a Markdown renderer reads the YAML lines as a setext heading,
  which hides the bullet list from log4brains (it looks between the first element and the first
  `h2`).
* Numbers follow creation order, oldest first, so re-exporting a grown journal keeps the
  numbers of older decisions.
* Each rejected option's reason is a `* Bad, because …` line under that option; options' own
  pros and cons are Good/Bad lines; the chosen option's pros and cons are its Consequences.
* Everything else (id, revision, kind, risk, domains, tags, provenance, redaction, the English
  summary) goes under `## More Information`; local metadata (alias, workspace, session,
  evidence) only when `include_private` is set, as in JSON exports.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from core.exporters.markdown_text import md_cell, md_text, name_slug, slug
from core.exporters.staging import Progress, Staging, ticks, utf8
from core.exporters.stand_in import options_without_stand_in, rejections_without_stand_in
from core.gocompat.gotime import GoTime
from core.gocompat.text import go_lower, go_trim
from core.record.models import DecisionRecord, Option
from core.record.summary import english_summary

STATUS_WORDS = {"completed": "accepted", "corrected": "accepted", "deleted": "deprecated"}
_MAKERS = {"user": "user", "model": "coding agent", "runtime": "runtime", "imported": "imported"}


def madr_status(record: DecisionRecord) -> str:
    if record.is_deleted:
        return "deprecated"
    return STATUS_WORDS.get(go_lower(go_trim(record.status)), "accepted")


def _date(value: GoTime | None) -> str:
    return value.to_datetime().date().isoformat() if value else ""


def _sentence(text: str) -> str:
    line = md_text(text)
    return line if line.endswith((".", "!", "?")) else line + "."


def file_name(number: int, record: DecisionRecord) -> str:
    return f"{number:04d}-{name_slug(record.problem) or slug(record.id) or 'decision'}.md"


def render_madr(record: DecisionRecord, *, include_private: bool = False) -> str:
    makers = _MAKERS.get(go_lower(go_trim(record.provenance.selection)), "unrecorded")
    status, date = madr_status(record), _date(record.updated_at)
    lines = [
        "---",
        f'status: "{status}"',
        f"date: {date}",
        f"decision-makers: {makers}",
        "",
        "---",
        "",
        f"# {md_text(record.problem)}",
        "",
        *_madr2_header(status, date, makers, record.tags),
        "",
        "## Context and Problem Statement",
        "",
        md_text(record.problem),
        "",
        "## Considered Options",
        "",
        *(f"* {md_text(option.label)}" for option in options_without_stand_in(record)),
    ]
    custom = go_trim(record.custom_selection)
    if custom:
        lines.append(f"* {md_text(custom)}")
    lines += [
        "",
        "## Decision Outcome",
        "",
        f'Chosen option: "{md_text(record.selected_label())}", because '
        f"{_sentence(record.selection_reason_raw)}",
    ]
    lines += _consequences(record)
    lines += _pros_and_cons(record)
    lines += ["", "## More Information", "", *_more_information(record, include_private), ""]
    return "\n".join(lines)


def _madr2_header(status: str, date: str, makers: str, tags: list[str]) -> list[str]:
    """The MADR 2 metadata bullets log4brains reads; tags are space-separated words there."""
    lines = [f"* Status: {status}"]
    if date:
        lines.append(f"* Date: {date}")
    lines.append(f"* Deciders: {makers}")
    words = [slug(tag) for tag in tags]
    if any(words):
        lines.append(f"* Tags: {', '.join(word for word in words if word)}")
    return lines


def _selected_option(record: DecisionRecord) -> Option | None:
    if go_trim(record.custom_selection):
        return None
    return next((o for o in record.options if o.id == record.selected_option_id), None)


def _consequences(record: DecisionRecord) -> list[str]:
    chosen = _selected_option(record)
    if chosen is None or not (chosen.pros or chosen.cons):
        return []
    return [
        "",
        "### Consequences",
        "",
        *(f"* Good, because {md_text(pro)}" for pro in chosen.pros),
        *(f"* Bad, because {md_text(con)}" for con in chosen.cons),
    ]


def _pros_and_cons(record: DecisionRecord) -> list[str]:
    reasons: dict[str, list[str]] = {}
    for rejection in rejections_without_stand_in(record):
        reasons.setdefault(rejection.option_id, []).append(rejection.reason)
    lines = ["", "## Pros and Cons of the Options"]
    for option in options_without_stand_in(record):
        lines += ["", f"### {md_text(option.label)}", ""]
        if go_trim(option.description):
            lines += [md_text(option.description), ""]
        lines += [f"* Good, because {md_text(pro)}" for pro in option.pros]
        lines += [f"* Bad, because {md_text(con)}" for con in option.cons]
        if option.id == record.selected_option_id and not go_trim(record.custom_selection):
            lines.append(f"* Good, because {md_text(record.selection_reason_raw)}")
        lines += [f"* Bad, because {md_text(reason)}" for reason in reasons.get(option.id, [])]
        if lines[-1] == "":
            lines.pop()
    return lines


def _more_information(record: DecisionRecord, include_private: bool) -> list[str]:
    facts: list[tuple[str, str]] = [
        ("Decision ID", f"`{record.id}`"),
        ("Revision", f"{record.revision} ({md_text(record.status)})"),
        ("Created", record.created_at.format() if record.created_at else ""),
        ("Updated", record.updated_at.format() if record.updated_at else ""),
        ("Deleted", record.deleted_at.format() if record.deleted_at else ""),
        ("Decision kind", md_text(record.decision_kind)),
        ("Risk", md_text(record.risk_level)),
        ("Project", md_text(record.project_id)),
        ("Domains", md_text(", ".join(record.domains))),
        ("Languages", md_text(", ".join(record.languages))),
        ("Tags", md_text(", ".join(record.tags))),
        ("Recommended option", md_text(record.option_label(record.recommended_option_id))),
        ("Detector confidence", f"{record.detector_confidence:.2f}"),
        ("Provenance", _provenance(record)),
        ("Redacted at capture", md_text(", ".join(record.redaction.patterns))),
        ("Summary", md_text(english_summary(record))),
    ]
    if go_lower(go_trim(record.provenance.summary)) == "user":
        facts.append(("Summary written by the user", md_text(record.summary_sentence)))
    if include_private:
        facts += [
            ("Project alias", md_text(record.project_alias)),
            ("Workspace", md_text(record.workspace)),
            ("Session", md_text(record.session_id)),
            ("Evidence", md_text("; ".join(record.evidence_refs))),
        ]
    return [f"* {name}: {value}" for name, value in facts if value]


def _provenance(record: DecisionRecord) -> str:
    p = record.provenance
    pairs = [
        ("options", p.options),
        ("selection", p.selection),
        ("rationale", p.rationale),
        ("summary", p.summary),
    ]
    return md_text(", ".join(f"{name} {value}" for name, value in pairs if value))


def render_index(entries: list[tuple[str, DecisionRecord]]) -> str:
    lines = [
        "# Decision records",
        "",
        "Exported from Decision Journal as MADR 4.0, oldest first.",
        "",
        "| # | Decision | Status | Date |",
        "|---|---|---|---|",
    ]
    for name, record in entries:
        number = name.split("-", 1)[0]
        lines.append(
            f"| [{number}]({name}) | {md_cell(record.problem)} | {madr_status(record)} | "
            f"{_date(record.updated_at)} |"
        )
    return "\n".join(lines) + "\n"


def _creation_order(record: DecisionRecord) -> tuple[int, str]:
    created = record.created_at.unix_ns if record.created_at else 0
    return created, record.id


def export_madr(
    records: Iterable[DecisionRecord],
    directory: Path,
    *,
    include_private: bool = False,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> list[Path]:
    """Writes every decision and index.md into directory, all or nothing."""
    ordered = sorted(records, key=_creation_order)
    entries = [(file_name(n, r), r) for n, r in enumerate(ordered, start=1)]
    with Staging(directory) as stage:
        for name, record in ticks(entries, progress, cancel):
            text = render_madr(record, include_private=include_private)
            stage.write(name, utf8(text))
        stage.write("index.md", utf8(render_index(entries)))
        return stage.commit()
