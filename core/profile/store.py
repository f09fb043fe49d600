"""profiles/profile.json on disk: strict load, compare-and-swap writes, overrides and rebuild.

Why this shape: the profile is a rebuildable cache of the journal, but it also holds the user's
overrides, so a corrupt file is never overwritten, every write is atomic, locked and checked
against the revision the writer read, and a rebuild carries the overrides across.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec

from core import limits
from core.bulk.file_identity import FileIdentity
from core.bulk.gc_pause import gc_paused
from core.bulk.listing import list_records, record_stats
from core.bulk.parallel_read import read_records
from core.bulk.profile_facts import RecordFacts
from core.errors import (
    JournalError,
    LockCancelled,
    NotFound,
    ProfileConflict,
    ProfileDamaged,
    ProfileInvalid,
    describe,
    unreadable_records,
)
from core.gocompat.gojson import dumps_indented_bytes
from core.gocompat.gotime import GoTime
from core.gocompat.text import go_trim
from core.messages.wording import too_large
from core.profile.derive import (
    Derivation,
    Grouping,
    carry_overrides,
    facts_from,
    facts_of,
    source_hash,
)
from core.profile.facts_file import load_facts, save_facts
from core.profile.model import (
    MAX_OVERRIDES,
    PROFILE_SCHEMA_VERSION,
    STATE_CURRENT,
    STATE_ERROR,
    STATE_STALE,
    PreferenceProfile,
    ProfileRule,
    ProfileStatus,
    normalize_profile,
    parse_profile,
    sync_overrides_from_rules,
    validate_profile,
)
from core.record.filters import ListFilter
from core.record.shape import StoredRead
from core.store.decisions import DecisionStore
from core.store.locking import locked
from core.store.record_files import record_file_names
from core.store.safefs import atomic_write, check_no_links, ensure_private_dir, read_regular_file

PROFILE_DIR = "profiles"
PROFILE_FILE = "profile.json"
RuleMutation = Callable[[ProfileRule], None]
FACTS_CACHE_FILE = Path("cache") / "profile-facts.msgpack"
PERSIST_MIN_CHANGES = 64


class _DefaultTimeout:
    """Marks "use the store's lock timeout", since None already means "wait until cancelled"."""


DEFAULT_TIMEOUT = _DefaultTimeout()


class CancelScope:
    """A cancel flag whose check-then-write is atomic with `cancel()`.

    Why: a stopped worker must not write a profile afterwards. `cancel()` waits for a write
    already past its check, and every later write sees the flag, so after `cancel()` returns no
    profile is written by this scope.
    """

    def __init__(self, event: threading.Event | None = None) -> None:
        self.event = event if event is not None else threading.Event()
        self._gate = threading.Lock()

    @property
    def cancelled(self) -> bool:
        return self.event.is_set()

    def cancel(self) -> None:
        self.event.set()
        with self._gate:
            pass

    def check(self) -> None:
        if self.event.is_set():
            raise LockCancelled("preference profile rebuild was cancelled")

    @contextlib.contextmanager
    def committing(self) -> Iterator[None]:
        with self._gate:
            self.check()
            yield


@dataclass(frozen=True, slots=True)
class RebuildResult:
    profile: PreferenceProfile
    seconds: float


# the per-record facts cache --------------------------------------------------------------------


class _Entry(msgspec.Struct, frozen=True, gc=False):
    """A cached file: built in C, and left out of the cycle collector's walks (one per record)."""

    identity: FileIdentity
    trusted: bool
    facts: RecordFacts

    def matches(self, info: os.stat_result) -> bool:
        return self.trusted and self.identity == FileIdentity.of(info)


class _FactsCache:
    """Facts of every record file keyed by its stat identity.

    Why: the profile state must be cheap to compute and the worker rebuilds after every commit.
    Unchanged files (same inode, size, mtime and ctime, and not changed just before they were
    read) are not read again. Every other file goes through the store's strict read, one at a
    time so a large journal is never held in memory at once; like `DecisionStore.list`, one
    unreadable record fails the whole scan.
    """

    def __init__(self, root: Path | None = None) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}
        self._hash: str | None = None
        self._root = root
        self._file = None if root is None else root / FACTS_CACHE_FILE
        self._loaded = False
        self._file_usable = False
        # Changes since the facts file was written, over all scans: made one commit at a time,
        # they still add up to a rewrite.
        self._unsaved = 0

    def scan(
        self, store: DecisionStore, on_fact: Callable[[RecordFacts], None] | None = None
    ) -> list[RecordFacts]:
        """Facts of every record file (deleted ones included); fails on any unreadable one.

        `on_fact` gets each fact as soon as it is known (a file read by a worker process, as
        it arrives), so a derivation can run while the rest are read.
        """
        with self._lock:
            self._load_persisted()
            before = dict(self._entries)
            facts = self._scan(store, on_fact)[0]
            self._persist(before)
            return facts

    def _load_persisted(self) -> None:
        """A fresh process starts from facts an earlier one verified (core/profile_facts_file)."""
        if self._loaded or self._root is None or self._file is None:
            return
        self._loaded = True
        with gc_paused():
            stored = load_facts(self._root, self._file)
        self._file_usable = stored is not None
        for name, (identity, facts) in (stored or {}).items():
            self._entries.setdefault(name, _Entry(identity, True, facts))

    def _persist(self, before: dict[str, _Entry]) -> None:
        """Rewrites the facts file only when enough changed since it was written to matter to a
        fresh process.

        Why: the worker rebuilds after every commit; rewriting facts for 100,000 records to save a
        later process from re-reading one file would cost more than it saves. Changes are counted
        without building a tuple per entry: every state check runs this, and on a large journal the
        tuples were a visible part of it and set off collections (bench/profile_bench.py, the
        state check).
        """
        if self._root is None or self._file is None:
            return
        entries = self._entries
        if self._file_usable:
            self._unsaved += sum(
                1 for n, e in entries.items() if e.trusted and before.get(n) is not e
            )
            self._unsaved += sum(
                1
                for n, e in before.items()
                if e.trusted and not ((now := entries.get(n)) is not None and now.trusted)
            )
            trusted = sum(1 for e in entries.values() if e.trusted)
            if self._unsaved < max(PERSIST_MIN_CHANGES, trusted // 100):
                return
        with gc_paused():
            save_facts(
                self._root,
                self._file,
                [(n, e.identity, e.facts) for n, e in entries.items() if e.trusted],
            )
        self._file_usable = True
        self._unsaved = 0

    def source_hash(self, store: DecisionStore) -> str:
        """The journal's source hash, recomputed only when some record file changed."""
        with self._lock:
            self._load_persisted()
            before = dict(self._entries)
            facts, changed = self._scan(store)
            self._persist(before)
            if changed or self._hash is None:
                self._hash = source_hash(facts)
            return self._hash

    def _scan(
        self, store: DecisionStore, on_fact: Callable[[RecordFacts], None] | None = None
    ) -> tuple[list[RecordFacts], bool]:
        check_no_links(store.root, store.records_dir)
        stamp = time.time_ns()
        # With nothing cached every file is read, and each read takes its own stat: an lstat per
        # file first would only delay the read (bench/CHANGES.md).
        stats = record_stats(store.records_dir) if self._entries else None
        names = list(stats) if stats is not None else record_file_names(store.records_dir)
        if not all(name.endswith(".json") for name in names):
            # store.get needs the exact `<id>.json` name; read odd spellings via the list.
            self._entries.clear()
            listed = [facts_of(r) for r in list_records(store, ListFilter(include_deleted=True))]
            if on_fact is not None:
                for fact in listed:
                    on_fact(fact)
            return listed, True
        with gc_paused():
            facts, issues, changed = self._read_changed(store, names, stats, stamp, on_fact)
        # Every name listed and read is an entry now, and no failed one: only more entries
        # than that means some file is gone (the check saves two 100,000-name sets per scan).
        if len(self._entries) > len(names) - len(issues):
            for name in self._entries.keys() - set(names):
                del self._entries[name]
            changed = True
        if issues:
            path, error = issues[0]
            raise unreadable_records(len(issues), path, error)
        return facts, changed

    def _read_changed(
        self,
        store: DecisionStore,
        names: list[str],
        stats: dict[str, os.stat_result | None] | None,
        stamp: int,
        on_fact: Callable[[RecordFacts], None] | None,
    ) -> tuple[list[RecordFacts], list[tuple[str, str]], bool]:
        """Facts of every file: cached ones whose stat still matches, the others read."""
        known: dict[str, RecordFacts] = {}
        to_read: list[tuple[str, None]] = []
        for name in names:
            entry = self._entries.get(name)
            info = None if stats is None else stats[name]
            if entry is not None and info is not None and entry.matches(info):
                known[name] = entry.facts
            else:
                self._entries.pop(name, None)
                to_read.append((name, None))
        if on_fact is not None:
            for fact in known.values():
                on_fact(fact)
        issues: list[tuple[str, str]] = []
        outcomes_by_chunk = read_records(
            store.root, store.records_dir, to_read, _facts, value_type=_FactsOfFile
        )
        for outcomes in outcomes_by_chunk:
            for outcome in outcomes:
                if outcome.value is None:
                    assert outcome.failure is not None
                    issues.append((outcome.failure.path, outcome.failure.message))
                    continue
                identity, facts = outcome.value
                known[outcome.name] = self._remember(outcome.name, identity, stamp, facts)
                if on_fact is not None:
                    on_fact(facts)
        return list(known.values()), issues, bool(to_read)

    def _remember(
        self, name: str, identity: FileIdentity, stamp: int, facts: RecordFacts
    ) -> RecordFacts:
        """Caches facts under the stat the read took: any later change to the file changes it.

        A file changed just before the scan began may change again within the same timestamp
        granularity (`FileIdentity.racy`), so it is cached untrusted and read again next time.
        """
        self._entries[name] = _Entry(identity, not identity.racy(stamp), facts)
        return facts


_FactsOfFile = tuple[FileIdentity, RecordFacts]


def _facts(_name: str, _extra: None, read: StoredRead) -> _FactsOfFile:
    """What a worker process keeps of each record it reads for a rebuild: the file's identity
    as it was read, and the record's facts."""
    assert read.info is not None  # read from a file
    return FileIdentity.of(read.info), facts_from(read.record, read.compact)


# the profile store -----------------------------------------------------------------------------


def _derived_fields(profile: PreferenceProfile) -> tuple[object, ...]:
    return (
        profile.schema_version,
        profile.record_count,
        profile.source_hash,
        len(profile.rules),
        tuple(rule.derived_fields() for rule in profile.rules),
    )


def _next_revision(revision: int) -> int:
    if revision >= sys.maxsize:
        raise ProfileInvalid(
            f"preference profile revision cannot advance beyond {sys.maxsize}", field="revision"
        )
    return revision + 1


class ProfileStore:
    """The profile of one journal. Thread-safe and safe across processes (one profile lock)."""

    def __init__(
        self,
        root: Path,
        decisions: DecisionStore,
        *,
        lock_timeout: float | None = 30.0,
        override_limit: int = MAX_OVERRIDES,
    ) -> None:
        self.root = Path(os.path.abspath(root))
        self.decisions = decisions
        self.directory = self.root / PROFILE_DIR
        self.path = self.directory / PROFILE_FILE
        self.lock_timeout = lock_timeout
        self.override_limit = override_limit
        self._facts = _FactsCache(self.root)

    # reading -----------------------------------------------------------------------------------

    def load(self) -> PreferenceProfile:
        """The stored profile, strictly; a missing file is an empty profile at revision 0."""
        try:
            data = read_regular_file(self.root, self.path, limits.PROFILE_FILE_MAX)
        except NotFound:
            return PreferenceProfile.empty()
        try:
            profile = normalize_profile(parse_profile(data, what=self.path.name))
            validate_profile(profile)
        except (ProfileDamaged, ProfileInvalid) as exc:
            message = str(exc)
            if isinstance(exc, ProfileInvalid):
                message = f"preference profile {self.path.name} cannot be read: {exc}"
            raise ProfileDamaged(message, path=str(self.path)) from exc
        return profile

    def journal_source_hash(self) -> str:
        """The hash a rebuild would record now; fails closed on any unreadable record."""
        return self._facts.source_hash(self.decisions)

    def status(self) -> ProfileStatus:
        """current or stale by comparing source hashes; error when either side is unreadable."""
        try:
            profile = self.load()
            if profile.revision == 0:
                return ProfileStatus(STATE_STALE, error="no profile has been built yet")
            journal_hash = self.journal_source_hash()
        except (JournalError, OSError) as exc:
            return ProfileStatus(STATE_ERROR, error=str(describe(exc)))
        state = STATE_CURRENT if profile.source_hash == journal_hash else STATE_STALE
        return ProfileStatus(state, "", profile.revision, profile.source_hash, journal_hash)

    # writing -----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self, scope: CancelScope | None, timeout: float | None) -> Iterator[None]:
        ensure_private_dir(self.root, self.directory)
        event = scope.event if scope is not None else None
        with locked(self.root, self.path, cancel=event, timeout=timeout):
            yield

    def _write(
        self, profile: PreferenceProfile, scope: CancelScope | None = None, *, derived: bool = False
    ) -> None:
        validate_profile(profile, derived=derived)
        data = dumps_indented_bytes(profile.to_go_dict())
        if len(data) > limits.PROFILE_FILE_MAX:
            raise ProfileInvalid(
                "preference profile exceeds the storage limit: the file "
                f"{too_large(len(data), limits.PROFILE_FILE_MAX)}",
                field="profile",
                limit=limits.PROFILE_FILE_MAX,
            )
        if scope is None:
            atomic_write(self.root, self.path, data)
            return
        with scope.committing():
            atomic_write(self.root, self.path, data)

    def save(self, profile: PreferenceProfile) -> PreferenceProfile:
        """Compare-and-swap save of override fields; source-derived fields must be unchanged."""
        with self._locked(None, self.lock_timeout):
            current = self.load()
            candidate = profile.model_copy(deep=True)
            sync_overrides_from_rules(candidate)
            candidate = normalize_profile(candidate)
            if current.revision > 0:
                self._check_revision(current, candidate.revision)
                if _derived_fields(candidate) != _derived_fields(current):
                    raise ProfileInvalid(
                        "implementation preference profile source-derived fields cannot be "
                        "changed by Save",
                        field="rules",
                    )
            candidate.revision = _next_revision(current.revision)
            candidate.generated_at = candidate.generated_at or GoTime.now()
            self._write(candidate)
            return candidate

    @staticmethod
    def _check_revision(current: PreferenceProfile, expected: int) -> None:
        if current.revision != expected:
            raise ProfileConflict(
                "implementation preference profile conflict: profile is revision "
                f"{current.revision}, expected {expected}",
                current_revision=current.revision,
            )

    def update_rule(
        self, rule_id: str, expected_revision: int, mutate: RuleMutation | None
    ) -> PreferenceProfile:
        """Changes one rule's override fields (enabled, pinned, note) under the revision CAS."""
        if not go_trim(rule_id) or expected_revision <= 0 or mutate is None:
            raise ProfileInvalid(
                "rule id, positive expected revision, and mutation callback are required",
                field="rule_id",
            )
        with self._locked(None, self.lock_timeout):
            current = self.load()
            self._check_revision(current, expected_revision)
            index = _rule_index(current, rule_id)
            edited = current.rules[index].model_copy(deep=True)
            mutate(edited)
            if edited.derived_fields() != current.rules[index].derived_fields():
                raise ProfileInvalid(
                    "implementation preference rule source-derived rule fields cannot be changed",
                    field="rule",
                )
            updated = _with_rule(current, index, edited, GoTime.now())
            self._write(updated)
            return updated

    def set_rule(
        self,
        rule_id: str,
        expected_revision: int,
        *,
        enabled: bool | None = None,
        pinned: bool | None = None,
        note: str | None = None,
    ) -> PreferenceProfile:
        """`update_rule` for the common case; at least one field must be given."""
        if enabled is None and pinned is None and note is None:
            raise ProfileInvalid(
                "nothing to change: give enabled, pinned or a note", field="rule_override"
            )

        def apply(rule: ProfileRule) -> None:
            if enabled is not None:
                rule.enabled = enabled
            if pinned is not None:
                rule.pinned = pinned
            if note is not None:
                rule.user_note = note

        return self.update_rule(rule_id, expected_revision, apply)

    def rebuild(
        self,
        *,
        cancel: threading.Event | CancelScope | None = None,
        timeout: float | _DefaultTimeout | None = DEFAULT_TIMEOUT,
    ) -> RebuildResult:
        """Derives the profile from the journal and writes it, carrying the overrides across.

        Fails without writing when any record is unreadable or the stored profile is corrupt.

        Args:
            cancel: stops a wait for the profile lock and prevents the write once set.
            timeout: seconds to wait for the lock; None waits until cancelled.
        """
        started = time.perf_counter()
        scope = cancel if isinstance(cancel, CancelScope) or cancel is None else CancelScope(cancel)
        wait = self.lock_timeout if isinstance(timeout, _DefaultTimeout) else timeout
        with self._locked(scope, wait), gc_paused():
            derivation, now = self._derive(scope)
            previous = self.load()
            profile = PreferenceProfile(
                schema_version=PROFILE_SCHEMA_VERSION,
                revision=_next_revision(previous.revision),
                generated_at=now,
                record_count=derivation.record_count,
                source_hash=derivation.source_hash,
                rules=derivation.rules,
                overrides=carry_overrides(previous, derivation.rules, limit=self.override_limit),
            )
            profile = normalize_profile(profile, derived=True)
            self._write(profile, scope, derived=True)
        return RebuildResult(profile, time.perf_counter() - started)

    def _derive(self, scope: CancelScope | None) -> tuple[Derivation, GoTime]:
        """The journal's derivation, and the time it was made at.

        The grouping lives only here: freed on return while the cycle collector is still paused, it
        is not walked by the first collection after the rebuild (that collection would otherwise
        walk it inside the rebuild; bench/CHANGES.md).
        """
        grouping = Grouping()
        self._facts.scan(self.decisions, grouping.add)
        if scope is not None:
            scope.check()
        now = GoTime.now()
        return grouping.derivation(now), now


def _rule_index(profile: PreferenceProfile, rule_id: str) -> int:
    wanted = go_trim(rule_id)
    for index, rule in enumerate(profile.rules):
        if rule.id == wanted:
            return index
    raise NotFound(f"preference rule {wanted} does not exist")


def _with_rule(
    current: PreferenceProfile, index: int, edited: ProfileRule, now: GoTime
) -> PreferenceProfile:
    """The next revision with one rule replaced and its override upserted or removed."""
    edited.updated_at = now
    updated = current.model_copy(deep=True)
    updated.rules[index] = edited
    if edited.has_effect():
        updated.overrides[edited.id] = edited.to_override()
    else:
        updated.overrides.pop(edited.id, None)
    updated.revision = _next_revision(current.revision)
    updated.generated_at = now
    return normalize_profile(updated)
