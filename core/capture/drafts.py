"""Private drafts of what a person typed into a capture window, kept until the decision is recorded.

Why apart from the pending file: agents read pending state, and the spec says it holds no
partial rationale. A draft is the human's unfinished text, so it lives in its own private
folder (`<journal>/drafts/<decision_id>.json`, 0700/0600, written atomically, no links), goes
through the same redaction as records, is read only by the capture window, and is deleted once
the decision is recorded. A draft that cannot be read is set aside rather than trusted, so a
damaged file never blocks answering the decision.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError

from core import limits
from core.errors import InvalidDecision, JournalDamaged
from core.gocompat.gojson import dumps_indented_bytes, loads_strict
from core.gocompat.gotime import GoTime
from core.gocompat.text import go_trim, utf8_len
from core.record.codec import pydantic_problem
from core.record.redaction import redact_text
from core.record.validation import is_valid_decision_id
from core.store.safefs import (
    atomic_write,
    ensure_private_dir,
    read_regular_file,
    remove_file,
)

DRAFTS_DIR = "drafts"
DRAFT_FORMAT = 1
DRAFT_TEXT_MAX = 4 * limits.REASON_MAX
"""Per text: room to keep an answer typed past its limit, so the person can shorten it."""
DRAFT_FILE_MAX = (limits.OPTIONS_MAX + 2) * DRAFT_TEXT_MAX * 6 + 4096
"""Every text at its cap, each UTF-8 byte escaped as `\\uXXXX` at worst, plus the framing."""


@dataclass(frozen=True, slots=True)
class Draft:
    """What a capture window showed when it was last saved.

    Attributes:
        decision_id: the pending decision the draft belongs to.
        selected_option_id: the listed approach marked on the choice page, or "".
        custom_selection: the text under Other (kept even when Other is not marked).
        other_chosen: whether Other was the marked choice.
        selection_reason: the answer to "Why did you choose …?".
        rejections: option id → the answer to "Why did you not choose …?".
        updated_at: when the draft was written (RFC 3339), "" before it is saved.
    """

    decision_id: str
    selected_option_id: str = ""
    custom_selection: str = ""
    other_chosen: bool = False
    selection_reason: str = ""
    rejections: dict[str, str] = field(default_factory=dict)
    updated_at: str = ""

    def is_empty(self) -> bool:
        """Nothing marked and nothing but blanks typed: there is nothing to keep."""
        texts = [self.custom_selection, self.selection_reason, *self.rejections.values()]
        marked = bool(self.selected_option_id) or self.other_chosen
        return not marked and not any(go_trim(text) for text in texts)


class _DraftFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    format: StrictInt
    decision_id: StrictStr
    selected_option_id: StrictStr = ""
    custom_selection: StrictStr = ""
    other_chosen: bool = False
    selection_reason: StrictStr = ""
    rejections: dict[StrictStr, StrictStr] = {}
    updated_at: StrictStr = ""


class DraftStore:
    """`<journal>/drafts/<decision_id>.json`, private to the person at the capture window."""

    def __init__(self, journal_root: Path) -> None:
        self.root = Path(os.path.abspath(journal_root))
        self.directory = self.root / DRAFTS_DIR

    def path(self, decision_id: str) -> Path:
        """The draft's file.

        Raises:
            InvalidDecision: the id is not a valid decision id.
        """
        if not is_valid_decision_id(decision_id):
            raise InvalidDecision(
                f"invalid draft decision id {decision_id[:80]!r}",
                field="decision_id",
                limit=limits.DECISION_ID_MAX,
            )
        return self.directory / f"{decision_id}.json"

    def save(self, draft: Draft) -> Draft | None:
        """Writes the draft redacted; an empty draft removes the file instead.

        Returns:
            The draft as stored (redacted, stamped), or None when it was empty.

        Raises:
            InvalidDecision: a text is longer than `DRAFT_TEXT_MAX` bytes or the id is invalid.
        """
        path = self.path(draft.decision_id)
        if draft.is_empty():
            self.remove(draft.decision_id)
            return None
        stored = _redacted(draft)
        ensure_private_dir(self.root, self.directory)
        atomic_write(self.root, path, _encode(stored))
        return stored

    def load(self, decision_id: str) -> Draft | None:
        """The saved draft, or None when there is none or it could not be read.

        A draft that fails to read is renamed to `<name>.damaged` so the next save starts
        clean and the text stays on disk for whoever wants to look at it.
        """
        path = self.path(decision_id)
        if not (path.exists() or path.is_symlink()):
            return None
        try:
            return _decode(read_regular_file(self.root, path, DRAFT_FILE_MAX), decision_id)
        except (JournalDamaged, ValueError):
            self._set_aside(path)
            return None

    def remove(self, decision_id: str) -> bool:
        """Deletes the draft (the decision was recorded); False when there was none."""
        return remove_file(self.root, self.path(decision_id))

    def _set_aside(self, path: Path) -> None:
        with contextlib.suppress(OSError):
            os.replace(path, path.with_name(path.name + ".damaged"))


def _redacted(draft: Draft) -> Draft:
    def clean(where: str, text: str) -> str:
        size = utf8_len(text)
        if size > DRAFT_TEXT_MAX:
            raise InvalidDecision(
                f"draft {where}: {size} bytes, at most {DRAFT_TEXT_MAX} are kept",
                field=where,
                limit=DRAFT_TEXT_MAX,
            )
        return redact_text(text)[0]

    return Draft(
        decision_id=draft.decision_id,
        selected_option_id=draft.selected_option_id,
        custom_selection=clean("custom_selection", draft.custom_selection),
        other_chosen=draft.other_chosen,
        selection_reason=clean("selection_reason", draft.selection_reason),
        rejections={
            option_id: clean(f"rejections.{option_id}", text)
            for option_id, text in draft.rejections.items()
        },
        updated_at=GoTime.now().format(),
    )


def _encode(draft: Draft) -> bytes:
    return dumps_indented_bytes(
        {
            "format": DRAFT_FORMAT,
            "decision_id": draft.decision_id,
            "selected_option_id": draft.selected_option_id,
            "custom_selection": draft.custom_selection,
            "other_chosen": draft.other_chosen,
            "selection_reason": draft.selection_reason,
            "rejections": dict(draft.rejections),
            "updated_at": draft.updated_at,
        }
    )


def _decode(data: bytes, decision_id: str) -> Draft:
    try:
        stored = _DraftFile.model_validate(loads_strict(data, what=f"{decision_id}.json"))
    except ValidationError as exc:
        raise InvalidDecision(f"draft {decision_id}: {pydantic_problem(exc)}") from exc
    if stored.format != DRAFT_FORMAT:
        raise InvalidDecision(f"draft {decision_id}: unsupported format {stored.format}")
    if stored.decision_id != decision_id:
        raise InvalidDecision(f"draft {decision_id}: holds {stored.decision_id[:80]!r} instead")
    return Draft(
        decision_id=stored.decision_id,
        selected_option_id=stored.selected_option_id,
        custom_selection=stored.custom_selection,
        other_chosen=stored.other_chosen,
        selection_reason=stored.selection_reason,
        rejections=dict(stored.rejections),
        updated_at=stored.updated_at,
    )
