"""madr: a folder of MADR or Nygard ADR files; each decided ADR becomes one record.

Considered options become the options, "Chosen option: X, because Y" the selection and its
reason, and each rejected option's "Bad, because" bullets its rejection reason. An ADR without
an option list (Nygard) names only its decision, so it gets an explicit "alternatives not
recorded" option. Proposed, draft and rejected ADRs are not decisions yet and are skipped with
their status. Key: `madr:<project>:<path>`; an ADR edited after its import is reported as a
conflict and its record is left as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from core.importers.base import ImportContext, Item, ItemError, Skip
from core.importers.locate import locate
from core.importers.shaping import SourceDecision, SourceOption, record_from_source
from core.importers.source_file import SourceRefused, read_source_text
from core.importers.sources.decisions_md import first_sentence, parse_date
from core.importers.sources.madr_parse import AdrParts, parse_adr
from core.record.identity import ProjectIdentity

KIND = "madr"
DECISION_KIND = "architecture_decision"
_NOT_ADRS = ("readme.md", "index.md", "template.md", "adr-template.md", "toc.md")


def adr_files(source: Path) -> list[Path]:
    if source.is_file():
        return [source]
    return sorted(
        p
        for p in source.rglob("*.md")
        if p.is_file()
        and not p.is_symlink()
        and p.name.casefold() not in _NOT_ADRS
        and not p.name.casefold().startswith("adr-template")
    )


class MadrImporter:
    kind = KIND

    def items(self, source: Path, ctx: ImportContext) -> Iterator[Item]:
        files = adr_files(source)
        ctx.set_total(len(files))
        for path in files:
            yield self._file_item(path)
            ctx.step()

    def _file_item(self, path: Path) -> Item:
        try:
            text = read_source_text(path)
        except (OSError, UnicodeDecodeError, SourceRefused) as exc:
            return ItemError(str(path), f"cannot read the ADR: {exc}")
        identity, relative = locate(path)
        key = f"{KIND}:{identity.project_id}:{relative}"
        parts = parse_adr(text)
        if not parts.title:
            return Skip(key, "not an ADR (no title heading)", str(path))
        if not parts.decided:
            return Skip(key, f"status {parts.status_phrase}: not a decision yet", str(path))
        if not parts.chosen and not parts.decision_text:
            return Skip(key, "no decision outcome in the ADR", str(path))
        return record_from_source(_decision(parts, key, identity, relative))


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def _match(chosen: str, options: list[str]) -> int | None:
    wanted = _fold(chosen)
    folded = [_fold(o) for o in options]
    if wanted in folded:
        return folded.index(wanted)
    starts = [i for i, o in enumerate(folded) if o.startswith(wanted) or wanted.startswith(o)]
    return starts[0] if len(starts) == 1 else None


def _with_consequences(option: SourceOption, parts: AdrParts) -> SourceOption:
    """The chosen option with the ADR's consequences: Good/Bad bullets as its pros and cons,
    prose after its description (a Nygard ADR's decision text is that description)."""
    description = option.description or parts.decision_text or option.label
    if parts.consequences:
        description = f"{description} Consequences: {parts.consequences}"
    return replace(
        option,
        description=description if description != option.label else "",
        pros=(*option.pros, *parts.good),
        cons=(*option.cons, *parts.bad),
    )


def _decision(
    parts: AdrParts, key: str, identity: ProjectIdentity, relative: str
) -> SourceDecision:
    problem = f"{parts.title}. {parts.context}" if parts.context else parts.title
    options = [
        SourceOption(name, rejection=parts.rejections.get(_fold(name), ""))
        for name in parts.options
    ]
    chosen = _match(parts.chosen, parts.options) if parts.chosen else None
    custom = ""
    if parts.chosen and chosen is None:
        if options:
            custom = parts.chosen
        else:
            options, chosen = [SourceOption(parts.chosen)], 0
    if not parts.chosen:
        options, chosen = [SourceOption(first_sentence(parts.decision_text))], 0
    if chosen is not None:
        options[chosen] = _with_consequences(options[chosen], parts)
    tags = (f"status:{parts.status_word}",) if parts.status_word else ()
    return SourceDecision(
        importer=KIND,
        key=key,
        problem=problem,
        decision_kind=DECISION_KIND,
        options=tuple(options),
        identity=identity,
        chosen=chosen,
        custom=custom,
        reason=parts.reason,
        when=parse_date(parts.date),
        tags=tags,
        evidence_refs=(relative,),
        only_chosen_named=len(options) == 1,
    )
