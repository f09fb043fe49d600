"""Reads one MADR (2.x, 3.x, 4.x) or Nygard-style ADR file into its decision parts.

Why all three: real ADR folders mix them. MADR 2 puts status and date in `* Status:` bullets
under the title; MADR 3 and 4 put them in YAML front matter (4 quotes the status and renamed
"Deciders"); Nygard ADRs have `## Status` and `## Decision` sections and no option list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.gocompat.text import collapse_spaces
from core.importers.markdown import Section, plain, sections

_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_META_BULLET = re.compile(
    r"^\s*[-*]\s*(status|date|deciders|decision-makers)\s*:\s*(.+?)\s*$", re.I
)
_META_LINE = re.compile(r"^\s*(status|date)\s*:\s*(.+?)\s*$", re.I)
"""adr-tools (Nygard) writes `Date: 2016-02-12` as a plain line under the title."""
_CHOSEN = re.compile(
    r"chosen\s+option\s*:?\s*(?P<name>\"[^\"]+\"|\[[^\]]+\](?:\([^)]*\))?|[^,\n]+?)"
    r"\s*(?:,\s*because\s*(?P<why>.+)|$)",
    re.IGNORECASE | re.DOTALL,
)
_NUMBERING = re.compile(r"^(?:adr[-\s]?)?\d+\s*[-.:)]?\s*", re.IGNORECASE)
_BAD = re.compile(r"^bad,?\s*because\s*(.+)$", re.IGNORECASE | re.DOTALL)
_GOOD = re.compile(r"^good,?\s*because\s*(.+)$", re.IGNORECASE | re.DOTALL)
_CONSEQUENCES = {
    "consequences": "",
    "positive consequences": "good",
    "negative consequences": "bad",
}
"""Headings of the chosen approach's consequences (MADR 3/4, MADR 2's two lists, Nygard)."""
_BULLET_START = re.compile(r"^\s*(?:[*+-]|\d+[.)])\s+")
DECIDED = ("accepted", "deprecated", "superseded")
"""Statuses of a decision that was made; any other status phrase ("proposed", "on hold",
"draft", "rejected") is not a decision yet."""


@dataclass(slots=True)
class AdrParts:
    title: str = ""
    status: str = ""
    date: str = ""
    context: str = ""
    options: list[str] = field(default_factory=list)
    chosen: str = ""
    reason: str = ""
    decision_text: str = ""
    rejections: dict[str, str] = field(default_factory=dict)
    good: list[str] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)
    consequences: str = ""
    """Consequences written as prose (Nygard), not as Good/Bad bullets."""

    @property
    def status_phrase(self) -> str:
        """The status as written, folded: "On Hold" is "on hold", "Superseded by [ADR-5](…)"
        is "superseded by adr-5"."""
        return " ".join(plain(self.status).casefold().strip("\"'.,").split())

    @property
    def status_word(self) -> str:
        """The status phrase's first word ("superseded" of "superseded by adr-5")."""
        words = self.status_phrase.split()
        return words[0].strip("\"'.,:") if words else ""

    @property
    def decided(self) -> bool:
        """The status names a decision that was made (no status: the ADR is one)."""
        return not self.status_phrase or self.status_word in DECIDED


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """Simple `key: value` front matter (quotes removed) and the body after it."""
    match = _FRONT.match(text)
    if match is None:
        return {}, text
    values: dict[str, str] = {}
    for line in match.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not line[:1].isspace():
            values[key.strip().casefold()] = value.strip().strip("\"'")
    return values, text[match.end() :]


def _find(found: list[Section], *names: str) -> Section | None:
    for section in found:
        if section.title.casefold() in names:
            return section
    return None


def _paragraph(text: str) -> str:
    return collapse_spaces(plain(text.split("\n\n", maxsplit=1)[0])) if text else ""


def parse_adr(text: str) -> AdrParts:
    meta, body = front_matter(text)
    found = sections(body)
    parts = AdrParts(status=meta.get("status", ""), date=meta.get("date", ""))
    title = next((s for s in found if s.level == 1), None)
    if title is not None:
        parts.title = _NUMBERING.sub("", title.title) or title.title
    for section in found[:2]:
        under_title = section.level <= 1
        for line in section.lines:
            bullet = _META_BULLET.match(line) or (_META_LINE.match(line) if under_title else None)
            name = bullet.group(1).casefold() if bullet else ""
            if bullet and name == "status" and not parts.status:
                parts.status = plain(bullet.group(2))
            elif bullet and name == "date" and not parts.date:
                parts.date = plain(bullet.group(2))
    status = _find(found, "status")
    if status is not None and not parts.status:
        parts.status = _paragraph(status.text)
    context = _find(found, "context and problem statement", "context", "problem statement")
    parts.context = collapse_spaces(plain(context.text)) if context else ""
    considered = _find(found, "considered options", "options")
    parts.options = [_option_name(b) for b in considered.bullets()] if considered else []
    _read_outcome(parts, found)
    _read_pros_and_cons(parts, found)
    _read_consequences(parts, found)
    return parts


def _read_consequences(parts: AdrParts, found: list[Section]) -> None:
    """The chosen approach's consequences: "Good, because" and "Bad, because" bullets (or the
    bullets of MADR 2's Positive and Negative lists), else the section's prose."""
    prose = []
    for section in found:
        kind = _CONSEQUENCES.get(section.title.casefold())
        if kind is None:
            continue
        bullets = [collapse_spaces(plain(b)).rstrip(".") for b in section.bullets()]
        for bullet in bullets:
            good, bad = _GOOD.match(bullet), _BAD.match(bullet)
            if good or kind == "good":
                parts.good.append(good.group(1) if good else bullet)
            elif bad or kind == "bad":
                parts.bad.append(bad.group(1) if bad else bullet)
            else:
                prose.append(bullet)
        if not bullets and section.text:
            prose.append(collapse_spaces(plain(section.text)))
    parts.consequences = " ".join(prose)


def _option_name(text: str) -> str:
    return collapse_spaces(plain(text)).strip('"')


def _read_outcome(parts: AdrParts, found: list[Section]) -> None:
    outcome = _find(found, "decision outcome", "decision")
    if outcome is None:
        return
    match = _CHOSEN.search(outcome.text)
    if match is None:
        parts.decision_text = collapse_spaces(plain(outcome.text))
        return
    parts.chosen = _option_name(match.group("name").strip('"[]'))
    parts.reason = _reason(match.group("why") or "")


def _reason(why: str) -> str:
    """The text after "because": its first paragraph, or, when MADR's template lists the
    reasons as bullets ("because\n\n* one\n* two"), those bullets joined with "; "."""
    text = why.strip()
    if not text:
        return ""
    first = text.split("\n\n", maxsplit=1)[0]
    items = Section(0, "", first.splitlines()).bullets()
    if items and _BULLET_START.match(first):
        return "; ".join(collapse_spaces(plain(item)).rstrip(".") for item in items)
    return collapse_spaces(plain(first)).rstrip(".")


def _read_pros_and_cons(parts: AdrParts, found: list[Section]) -> None:
    """Each option's "Bad, because" bullets, from the heading that names it.

    MADR puts these under `### <option>` below "Pros and Cons of the Options"; real ADRs also
    use `## <option>`, and headings may shorten a long option title, so a heading belongs to
    the option it equals or begins. Deeper headings inside an option's part (an "Examples"
    sub-heading) still belong to that option; a heading at the option's level or above that
    names no option ends it, so its bullets are nobody's.
    """
    bad: dict[str, list[str]] = {}
    owner: str | None = None
    owner_level = 0
    for section in found:
        named = _option_owner(section, parts.options) if section.level in (2, 3) else None
        if named is not None:
            owner, owner_level = named, section.level
        elif owner is not None and section.level <= owner_level:
            owner = None
        if owner is not None:
            bad.setdefault(owner, []).extend(
                m.group(1) for m in (_BAD.match(b) for b in section.bullets()) if m
            )
    for name, reasons in bad.items():
        if reasons:
            parts.rejections[name] = "; ".join(
                collapse_spaces(plain(b)).rstrip(".") for b in reasons
            )


def _option_owner(section: Section, options: list[str]) -> str | None:
    names = [option.casefold() for option in options]
    title = _option_name(section.title).casefold()
    if title in names:
        return title
    return next((name for name in names if title and name.startswith(title)), None)
