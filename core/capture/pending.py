"""Pending decisions on disk: one private file per decision the human has not finished yet.

Why files under the journal and not session state: the app, the CLI and every agent session
must see the same pending decisions, and a decision must survive an app restart. The stored
proposal is canonical (a resume re-validates it instead of trusting a reconstructed copy), its
free text is redacted, and partial rationale text is never stored.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError

from core import limits
from core.capture.pending_index import INDEX_NAME, PendingBlocker, encode, is_pending_name
from core.capture.proposal import ParsedProposal, Selection, parse_stored_proposal, stored_identity
from core.errors import InvalidDecision, JournalDamaged, JournalError, NotFound, PendingDamaged
from core.gocompat.gojson import dumps_indented_bytes, loads_strict
from core.gocompat.gotime import GoTime
from core.gocompat.text import go_lower, go_trim
from core.record.codec import pydantic_problem
from core.record.fields import rule
from core.record.identity import project_identity
from core.record.models import SCHEMA_VERSION, Stage
from core.record.redaction import redact_text
from core.record.validation import is_valid_decision_id
from core.store.safefs import (
    atomic_write,
    ensure_private_dir,
    read_regular_file,
    remove_file,
)

PENDING_DIR = "pending"
STAGES: tuple[Stage, ...] = ("choice", "rationale")
_Paths = list[Path]
"""Spelled once here: inside PendingStore the name `list` is the method."""


@dataclass(frozen=True, slots=True)
class PendingDecision:
    """A decision waiting for the human: the proposal, how far they got, and when."""

    proposal: ParsedProposal
    stage: Stage = "choice"
    selection: Selection = field(default_factory=Selection)
    created_at: GoTime | None = None
    updated_at: GoTime | None = None

    @property
    def decision_id(self) -> str:
        return self.proposal.decision_id

    @property
    def session_id(self) -> str:
        return self.proposal.session_id


@dataclass(frozen=True, slots=True)
class PendingIssue:
    """One pending file that could not be used, with whatever could still be read from it."""

    path: str
    error: str
    decision_id: str = ""
    session_id: str = ""
    workspace: str = ""
    project_id: str = ""


@dataclass(slots=True)
class PendingListing:
    items: list[PendingDecision] = field(default_factory=list)
    issues: list[PendingIssue] = field(default_factory=list)


def normalize_stage(
    stage: str, selection: Selection, proposal: ParsedProposal
) -> tuple[Stage, Selection]:
    """The reference's repair rules, so a damaged stage never skips or garbles a question.

    An unknown stage becomes `choice`; `rationale` without a usable selection falls back to
    `choice`; `choice` never carries a selection.
    """
    wanted = go_lower(go_trim(stage))
    trimmed = Selection(go_trim(selection.option_id), go_trim(selection.custom))
    if wanted == "rationale" and proposal.accepts(trimmed):
        return "rationale", trimmed
    return "choice", Selection()


class _PendingFile(BaseModel):
    """The file layout, read strictly: unknown fields and wrong JSON types are damage."""

    model_config = ConfigDict(extra="forbid", strict=True)

    schema_version: StrictInt
    decision_id: StrictStr
    stage: StrictStr
    session_id: StrictStr = ""
    agent: StrictStr = ""
    workspace: StrictStr = ""
    project_id: StrictStr = ""
    project_alias: StrictStr = ""
    workspace_hash: StrictStr = ""
    created_at: StrictStr
    updated_at: StrictStr
    proposal: dict[str, Any]
    selected_option_id: StrictStr = ""
    custom_selection: StrictStr = ""


class PendingStore:
    """`<journal>/pending/<decision_id>.json`: 0700 directory, 0600 files, atomic, no links."""

    def __init__(self, journal_root: Path) -> None:
        self.root = Path(os.path.abspath(journal_root))
        self.directory = self.root / PENDING_DIR

    def path(self, decision_id: str) -> Path:
        if not is_valid_decision_id(decision_id):
            raise InvalidDecision(
                f"invalid pending implementation decision id {decision_id[:80]!r}",
                field="decision_id",
                limit=rule("id").most,
            )
        return self.directory / f"{decision_id}.json"

    def exists(self, decision_id: str) -> bool:
        path = self.path(decision_id)
        return path.exists() or path.is_symlink()

    # writing ---------------------------------------------------------------------------------

    def save(self, pending: PendingDecision) -> PendingDecision:
        """Writes the decision (normalized, redacted) and returns it as it now stands."""
        stage, selection = normalize_stage(pending.stage, pending.selection, pending.proposal)
        now = GoTime.now()
        saved = replace(
            pending,
            stage=stage,
            selection=selection,
            created_at=pending.created_at or now,
            updated_at=now,
        )
        path = self.path(saved.decision_id)
        ensure_private_dir(self.root, self.directory)
        atomic_write(self.root, path, _encode(saved))
        self.refresh_index()
        return saved

    def remove(self, decision_id: str) -> bool:
        """Deletes the pending file once its record is written; False when there was none."""
        if not remove_file(self.root, self.path(decision_id)):
            return False
        self.refresh_index()
        return True

    def refresh_index(self) -> None:
        """Rewrites `pending/.index.json` from the files as they are now
        (`core.capture.pending_index`).

        With nothing pending there is no index (the empty directory says it). The index only
        lets the hook skip work, so a failure to write it never fails the caller: the stale
        index is removed instead, and the hook takes its full path.
        """
        index = self.directory / INDEX_NAME
        try:
            entries = self._index_entries()
            if entries:
                atomic_write(self.root, index, encode(entries), durable=False)
                return
        except (JournalError, OSError):
            pass
        with contextlib.suppress(OSError):
            os.unlink(index)

    def _index_entries(self) -> list[PendingBlocker]:
        listing = self.list()
        entries = [
            PendingBlocker(
                p.decision_id,
                session_id=p.session_id,
                workspace=p.proposal.workspace,
                project_id=p.proposal.project_id,
                project_path=_project_path(p.proposal.workspace, p.proposal.project_id),
                problem=p.proposal.problem,
                stage=p.stage,
                project_alias=p.proposal.project_alias,
                created_at=p.created_at.format() if p.created_at else "",
                created_ns=p.created_at.unix_ns if p.created_at else 0,
            )
            for p in listing.items
        ]
        entries.extend(
            PendingBlocker(
                issue.decision_id or os.path.basename(issue.path)[: -len(".json")],
                session_id=issue.session_id,
                workspace=issue.workspace,
                project_id=issue.project_id,
                damaged=True,
            )
            for issue in listing.issues
        )
        return entries

    # reading ---------------------------------------------------------------------------------

    def load(self, decision_id: str) -> PendingDecision:
        """The pending decision, re-validated; a damaged file raises and stays where it is.

        Raises:
            InvalidDecision: the id itself is invalid.
            NotFound: nothing is pending under that id.
            PendingDamaged: the file is unreadable, inconsistent or its proposal is invalid.
        """
        path = self.path(decision_id)
        stored = self._read_file(path, decision_id)
        return _to_pending(stored, path)

    def list(self, workspace: str | None = None, session_id: str | None = None) -> PendingListing:
        """Healthy pending decisions, oldest first, plus one issue per unusable file.

        A filter keeps an issue whose workspace or session could not be read, so damage is
        never hidden by filtering.
        """
        listing = PendingListing()
        for path in self._files():
            self._list_one(path, listing)
        listing.items = [p for p in listing.items if _matches(p, workspace, session_id)]
        listing.items.sort(key=lambda p: (p.created_at or GoTime(0), p.decision_id))
        listing.issues = [i for i in listing.issues if _issue_matches(i, workspace, session_id)]
        return listing

    def for_session(self, session_id: str) -> str | None:
        """The decision pending for a session, or None.

        A damaged file whose session can still be read counts too: a tampered pending decision
        must keep blocking its session rather than let a new proposal slip past it.
        """
        wanted = go_trim(session_id)
        listing = self.list(session_id=wanted)
        damaged = sorted(i.decision_id for i in listing.issues if i.session_id == wanted)
        ids = [p.decision_id for p in listing.items if p.session_id == wanted] + damaged
        return ids[0] if ids else None

    def _files(self) -> _Paths:
        try:
            names = os.listdir(self.directory)
        except FileNotFoundError:
            return []
        return sorted(self.directory / name for name in names if is_pending_name(name))

    def _list_one(self, path: Path, listing: PendingListing) -> None:
        decision_id = path.name[: -len(".json")]
        if not is_valid_decision_id(decision_id):
            error = f"invalid pending implementation decision id in file name {path.name!r}"
            listing.issues.append(PendingIssue(str(path), error))
            return
        try:
            stored = self._read_file(path, decision_id)
        except NotFound:
            return  # finished and removed since the directory was listed
        except (JournalError, OSError) as exc:
            listing.issues.append(PendingIssue(str(path), str(exc), decision_id=decision_id))
            return
        try:
            listing.items.append(_to_pending(stored, path))
        except (JournalError, OSError) as exc:
            listing.issues.append(
                PendingIssue(
                    str(path),
                    str(exc),
                    decision_id=decision_id,
                    session_id=go_trim(stored.session_id),
                    workspace=go_trim(stored.workspace),
                    project_id=go_trim(stored.project_id),
                )
            )

    def _read_file(self, path: Path, decision_id: str) -> _PendingFile:
        """The file's structure: JSON, known fields, right types, and the id of its name."""
        data = read_regular_file(self.root, path, limits.PENDING_FILE_MAX)
        try:
            stored = _PendingFile.model_validate(loads_strict(data, what=path.name))
        except ValidationError as exc:
            raise _damaged(decision_id, path, pydantic_problem(exc)) from exc
        except JournalDamaged as exc:
            raise _damaged(decision_id, path, str(exc)) from exc
        if stored.schema_version != SCHEMA_VERSION:
            raise _damaged(decision_id, path, f"unsupported schema_version {stored.schema_version}")
        if go_trim(stored.decision_id) != decision_id:
            raise _damaged(
                decision_id, path, f"it holds decision id {stored.decision_id[:80]!r} instead"
            )
        return stored


def _damaged(decision_id: str, path: Path, problem: str) -> PendingDamaged:
    return PendingDamaged(
        f"pending implementation decision {decision_id} is invalid: {problem}",
        decision_id=decision_id,
        path=str(path),
    )


def _to_pending(stored: _PendingFile, path: Path) -> PendingDecision:
    """Re-validates the stored proposal and repairs the stage (reference section 7)."""
    decision_id = go_trim(stored.decision_id)
    identity = stored_identity(
        project_id=go_trim(stored.project_id),
        workspace_hash=go_trim(stored.workspace_hash),
        alias=go_trim(stored.project_alias),
        workspace=go_trim(stored.workspace),
    )
    try:
        proposal = parse_stored_proposal(
            stored.proposal,
            decision_id=decision_id,
            identity=identity,
            session_id=go_trim(stored.session_id),
            agent=go_trim(stored.agent),
        )
        created, updated = GoTime.parse(stored.created_at), GoTime.parse(stored.updated_at)
    except (InvalidDecision, ValueError) as exc:
        raise _damaged(decision_id, path, str(exc)) from exc
    selection = Selection(stored.selected_option_id, stored.custom_selection)
    stage, selection = normalize_stage(stored.stage, selection, proposal)
    return PendingDecision(proposal, stage, selection, created, updated)


def _encode(pending: PendingDecision) -> bytes:
    """The file bytes; free text is redacted here, at the persistence boundary."""
    proposal = pending.proposal.redacted()
    identity = proposal.identity
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "decision_id": pending.decision_id,
        "stage": pending.stage,
        "session_id": proposal.session_id,
        "agent": proposal.agent,
        "workspace": identity.workspace,
        "project_id": identity.project_id,
        "project_alias": identity.alias,
        "workspace_hash": identity.workspace_hash,
        "created_at": _time(pending.created_at),
        "updated_at": _time(pending.updated_at),
        "proposal": proposal.proposal_fields(),
    }
    if pending.selection.option_id:
        data["selected_option_id"] = pending.selection.option_id
    if pending.selection.custom:
        data["custom_selection"] = redact_text(pending.selection.custom)[0]
    return dumps_indented_bytes(data)


def _time(value: GoTime | None) -> str:
    return (value or GoTime.now()).format()


def _same_workspace(workspace: str, stored_workspace: str, stored_project_id: str) -> bool:
    """A workspace filter matches the raw path or the same project (worktrees of one base)."""
    wanted = go_trim(workspace)
    if wanted == stored_workspace:
        return True
    with contextlib.suppress(OSError, ValueError):
        return project_identity(wanted).project_id == stored_project_id
    return False


def _matches(pending: PendingDecision, workspace: str | None, session_id: str | None) -> bool:
    proposal = pending.proposal
    if session_id is not None and proposal.session_id != go_trim(session_id):
        return False
    return workspace is None or _same_workspace(workspace, proposal.workspace, proposal.project_id)


def _issue_matches(issue: PendingIssue, workspace: str | None, session_id: str | None) -> bool:
    if session_id is not None and issue.session_id and issue.session_id != go_trim(session_id):
        return False
    if workspace is None or not (issue.workspace or issue.project_id):
        return True
    return _same_workspace(workspace, issue.workspace, issue.project_id)


def pending_items(
    pending: PendingStore,
    workspace: str | None = None,
    session_id: str | None = None,
    *,
    now_ns: int | None = None,
) -> list[dict[str, Any]]:
    """Pending decisions as the socket, the CLI, the tray and the window all list them, with
    their age as of `now_ns` (default: now)."""
    now = GoTime.now().unix_ns if now_ns is None else now_ns
    return [
        {
            "decision_id": item.decision_id,
            "stage": item.stage,
            "problem": item.proposal.problem,
            "project_alias": item.proposal.project_alias,
            "session_id": item.session_id,
            "created_at": item.created_at.format() if item.created_at else "",
            "age_seconds": (now - item.created_at.unix_ns) // 1_000_000_000
            if item.created_at
            else 0,
        }
        for item in pending.list(workspace=workspace, session_id=session_id).items
    ]


def _project_path(workspace: str, project_id: str) -> str:
    """The canonical path behind `project_id` when the workspace is where it comes from, so
    the hook can compare paths instead of hashing them
    (`core.capture.pending_index.PendingBlocker`)."""
    identity = project_identity(workspace) if workspace else None
    if identity is None or identity.project_id != project_id:
        return ""
    return identity.canonical_path
